package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleOrImplied names the rule of package rules whose cells are decided
// here (the oi.* cells): also its flag and file name.
const RuleOrImplied = "or_implied"

// The cells of or_implied (standard tier). A filter conjunct F = D1 or ...
// or Dk, each Di a conjunction, implies for a column c the disjunction F'
// of the conjunctions Ci of the conjuncts of Di that read c alone, when
// every Ci is non-empty: on a row where F is true some Di is true, so all
// its conjuncts are, so Ci and F' are true. The rule puts F' in the filter
// right before F (`filter [F]` becomes `filter [F', F]`), what is proved
// once here:
//
//   - rows: a row survives iff every conjunct is valid and true; where F
//     is true so is F', and where F is not the row goes either way;
//   - order and values: a filter keeps its input's order and values;
//   - errors: a filter evaluates its conjuncts in list order, each over all
//     its input rows, and the first error aborts; F' goes first, so it
//     must raise nothing (oi.total) and leave the later conjuncts' values
//     alone (oi.deterministic); F and the others then evaluate over the
//     same rows as before;
//   - schema: a filter's schema is its input's.
//
// F' keeps the simplest provably equal form: an arm of one conjunct `c =
// v` each (v a literal) is is_in(c, [v1, ..., vk]), which docs/semantics.md
// defines as exactly that disjunction under Kleene or; repeated arms are
// written once (p or p is p).
const (
	// OIDeterministic decides whether a derived conjunct may be added: it
	// calls no non-deterministic UDF.
	OIDeterministic CellID = "oi.deterministic"
	// OITotal decides whether a derived conjunct may be added: every
	// conjunct it repeats is total under the tier's totality.
	OITotal CellID = "oi.total"
)

// orImpliedCells are or_implied's cells, in the order the rule consults
// them.
var orImpliedCells = []Cell{
	{ID: OIDeterministic, Rule: RuleOrImplied, Node: "filter", Verdict: CrossesIf,
		Condition: "the derived conjunct calls no non-deterministic UDF",
		Reason:    "filter((nd_tick(a) > 2 and b = 1) or (nd_tick(a) > 5 and b = 2)): the derived nd_tick(a) > 2 or nd_tick(a) > 5, evaluated first, advances the counter, so the disjunction reads other values and keeps other rows"},
	{ID: OITotal, Rule: RuleOrImplied, Node: "filter", Verdict: CrossesIf,
		Condition: "every conjunct the derived disjunction repeats is total (the tier's totality, over the filter's input): evaluated before the filter's conjuncts, it raises nothing",
		Reason:    "filter((x / y > 0 and a * 3 > 1) or (a * 2 > 1 and b = 1)) on a row with y = 0 and a = 4e18: the filter raises divide_by_zero in x / y, evaluated first; the derived a * 3 > 1 or a * 2 > 1, put before it, would raise overflow in a * 3"},
}

// OrImplied decides whether the conjunct derived from a filter's
// disjunction, which repeats the conjuncts conjs (each over the filter's
// input, of schema in), may be added to the filter before it:
// oi.deterministic, then oi.total. The ruling's last decision is the
// refusing one when it refuses.
func (t *Table) OrImplied(conjs []plan.Expr, in plan.Schema) Ruling {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(OIDeterministic, func() (bool, string) {
		for _, e := range conjs {
			if !plan.IsDeterministic(e) {
				return false, "`" + plan.Written(e) + "` is non-deterministic"
			}
		}
		return true, ""
	})) {
		return ru
	}
	ru.consult(t.decide(OITotal, func() (bool, string) {
		for _, e := range conjs {
			if !t.Total(e, in) {
				return false, "`" + plan.Written(e) + "` is partial"
			}
		}
		return true, ""
	}))
	return ru
}
