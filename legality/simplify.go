package legality

import (
	"errors"

	"github.com/dfopt/dfopt/plan"
)

// RuleSimplify names the rule of package rules whose cells are decided here
// (the sx.* cells): also its flag and file name.
const RuleSimplify = "simplify"

// The cells of simplify (standard tier). A constant is a subexpression that
// reads no column and holds no aggregate, no over() and no alias, other
// than a lone literal: the same value on every row of any input. Folding
// one evaluates it through an injected evaluator (the executor's own
// kernel) and puts the literal in its place, recording the constant as the
// literal's origin (plan.WithOrigin), so an error raised around it names
// what was written. Each rewrite keeps the type and the nullability of what
// it replaces (sx.field), so no schema changes.
const (
	// SXDeterministic decides whether a constant may be folded: it calls no
	// non-deterministic UDF.
	SXDeterministic CellID = "sx.deterministic"
	// SXRaise decides whether a constant may be folded: the evaluator
	// computed it without an error.
	SXRaise CellID = "sx.raise"
	// SXField decides whether a replacement (a folded literal, or the
	// literal an absorbing identity leaves) has the replaced expression's
	// type and nullability.
	SXField CellID = "sx.field"
	// SXFlip turns a comparison with a literal on the left into one with
	// the literal on the right (`1 < a` is `a > 1`).
	SXFlip CellID = "sx.flip"
	// SXNeutral drops a neutral operand: `x and true`, `x or false`
	// (either way round) are x.
	SXNeutral CellID = "sx.neutral"
	// SXAbsorb replaces `x and false` by false and `x or true` by true
	// (either way round) when x is total and deterministic.
	SXAbsorb CellID = "sx.absorb"
	// SXNotNot turns not(not(x)) into x.
	SXNotNot CellID = "sx.not_not"
	// SXIf replaces if(c, t, e) with a literal condition c by the branch
	// that takes every row: t when c is true, e when it is false or null.
	SXIf CellID = "sx.if"
	// SXFilterTrue drops a filter's conjunct `true`, and the filter when
	// none is left.
	SXFilterTrue CellID = "sx.filter_true"
	// SXFactorOr factors a conjunct common to every arm of a filter's
	// disjunction out of it: `(c and a) or (c and b)` becomes the
	// conjuncts `c` and `a or b`.
	SXFactorOr CellID = "sx.factor_or"
)

// simplifyCells are simplify's cells, in the order the rule consults them.
var simplifyCells = []Cell{
	{ID: SXDeterministic, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: CrossesIf,
		Condition: "the constant calls no non-deterministic UDF",
		Reason:    "select(nd_seq(0) as s): the counter gives 0, 1, 2, … row by row; folded once, every row would read 0 and the counter would not advance"},
	{ID: SXRaise, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: CrossesIf,
		Condition: "the evaluator computes the constant without an error; one that raises stays as written, so it raises only where rows reach it, with its written text",
		Reason:    "select(a + 1 / 0): folding 1 / 0 to a null (the mutant does what engines that swallow a folding error do) makes every row null instead of raising divide_by_zero"},
	{ID: SXField, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: CrossesIf,
		Condition: "the literal has the type of the expression it replaces (plan.TypeOf) and, in a project, with_columns or aggregate, its nullability too (in a filter or a sort key no schema shows it)",
		Reason:    "select(if(true, 1, null(int64)) as x): x is a nullable int64; the literal 1 is not nullable, so folding would change the plan's schema"},
	{ID: SXFlip, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: Crosses,
		Reason:     "`1 < a` becomes `a > 1`, the form a source classifies: a comparison evaluates both operands over all rows, a literal raises nothing, and every comparison is symmetric in its nulls, its promotion and IEEE's NaN and -0.0, so the mirrored operator gives the same values",
		Equivalent: "a crosses cell: its mutant is a barrier, which leaves the literal on the left: the same values, only a form sources may not classify"},
	{ID: SXNeutral, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: Crosses,
		Reason:     "`x and true` and `x or false` are x on every row under Kleene logic (null and true is null, null or false is null), with x's nullability; x is still evaluated over every row, so its errors stay, and only the literal goes",
		Equivalent: "a crosses cell: its mutant is a barrier, which leaves the neutral literal in place: the same values"},
	{ID: SXAbsorb, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: CrossesIf,
		Condition: "x is total (the tier's totality, over the node's input) and deterministic: `x and false` is false and `x or true` true on every row, null rows of x included, but and/or evaluate both operands over all rows",
		Reason:    "filter(a / b > 1 and false) must raise divide_by_zero where b = 0, and filter(nd_seq(a) > 0 or true) must advance the counter: and/or do not short-circuit"},
	{ID: SXNotNot, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: Crosses,
		Reason:     "not(not(x)) is x on every row (not null is null), with x's nullability, and x is evaluated as before",
		Equivalent: "a crosses cell: its mutant is a barrier, which leaves both nots in place: the same values"},
	{ID: SXIf, Rule: RuleSimplify, Node: "filter, project, with_columns, sort, aggregate", Verdict: CrossesIf,
		Condition: "the branch kept has the type of the if() (plan.TypeOf: the common type of both branches) and, in a project, with_columns or aggregate, its nullability; the other branch sees no row, so it raises nothing and advances no counter",
		Reason:    "select(if(true, i, b) as x) with i int32 and b int64: x is an int64 (the branches' common type), and i alone would change the plan's schema; so would if(true, a, null(int64)) with a not nullable"},
	// sx.factor_or: in Kleene logic, ordered false < null < true with and
	// the minimum and or the maximum, max(min(c, a), min(c, b)) =
	// min(c, max(a, b)) on every row (if a <= b both sides are min(c, b),
	// and symmetrically), so `(c and a) or (c and b)` and `c and (a or b)`
	// have the same value, null rows included, and a filter keeps the
	// same rows under the conjuncts `c`, `a or b`. With more arms and
	// longer ones the same holds arm by arm (and/or are associative).
	// Errors: and/or evaluate both operands over all rows, so the written
	// form evaluates, over the filter's input, arm 1's conjuncts in order,
	// then arm 2's, ...; the factored form evaluates the common conjuncts
	// first (in arm 1's order), then each arm's other conjuncts in their
	// order. A common conjunct's later evaluations repeat its first (it is
	// deterministic: same values, same error), so the two orders differ
	// only in arm 1, where c moves before the other conjuncts that precede
	// it; the first error raised is the same when c is total, or when each
	// of those conjuncts is. A non-deterministic c evaluated once instead
	// of once per arm changes its values (and a counter's advance).
	{ID: SXFactorOr, Rule: RuleSimplify, Node: "filter", Verdict: CrossesIf,
		Condition: "the common conjunct is deterministic, and total or preceded in the first arm only by total conjuncts that stay in the arms (Kleene and/or distribute: (c and a) or (c and b) is c and (a or b) on every row, null rows included)",
		Reason:    "filter((x / y > 1 and a / b > 1) or (x / y > 2 and a / b > 1)) where both divisions divide by zero raises divide_by_zero in x / y; factored, a / b > 1 would be evaluated first and name a / b; and filter((nd_seq(a) > 1 and p) or (nd_seq(a) > 1 and q)) reads a new counter value in each arm"},
	{ID: SXFilterTrue, Rule: RuleSimplify, Node: "filter", Verdict: Crosses,
		Reason:     "a conjunct `true` keeps every row and raises nothing, so dropping it (and a filter left with none) changes no row and no error",
		Equivalent: "a crosses cell: its mutant is a barrier, which keeps the conjunct: the same rows"},
}

// SimplifyFold decides whether the constant e, whose field is want, may
// be folded into a literal, and returns the literal's value:
// sx.deterministic (e calls no non-deterministic UDF; only then is eval
// called, once), sx.raise (eval, the injected evaluator, returns no error)
// and sx.field (the value has want's type and nullability), in that
// order; anyNull says that the expression's nullability shows in no
// schema (see SimplifyField). The ruling's last decision is the refusing
// one when it refuses. Under the sx.raise mutant a constant that raised folds into a typed null
// of its type, as engines that swallow a folding error do.
func (t *Table) SimplifyFold(e plan.Expr, eval func() (plan.Value, error), want plan.Field, anyNull bool) (Ruling, plan.Value) {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(SXDeterministic, func() (bool, string) {
		if !plan.IsDeterministic(e) {
			return false, "`" + plan.Written(e) + "` is non-deterministic"
		}
		return true, ""
	})) {
		return ru, plan.Value{}
	}
	v, err := eval()
	if err != nil {
		v = plan.NullValue(want.Type)
	}
	if !ru.consult(t.decide(SXRaise, func() (bool, string) {
		if err != nil {
			return false, "it raises " + errorText(err)
		}
		return true, ""
	})) {
		return ru, plan.Value{}
	}
	ru.consult(t.SimplifyField(v, want, anyNull))
	return ru, v
}

// errorText is what a trace detail says of an error: its kind and
// expression for a *plan.Error, else its message, abbreviated.
func errorText(err error) string {
	var pe *plan.Error
	if errors.As(err, &pe) && pe.Kind != "" {
		return string(pe.Kind) + " in `" + plan.Abbrev(pe.Expr, 200) + "`"
	}
	return plan.Abbrev(err.Error(), 200)
}

// SimplifyField decides whether the literal v may replace an expression of
// field want (sx.field): same type, and nullable exactly when want is,
// unless anyNull says that no schema shows the expression's nullability
// (a filter's conjuncts and sort keys output no column; the values are the
// same either way).
func (t *Table) SimplifyField(v plan.Value, want plan.Field, anyNull bool) Decision {
	return t.orDefault().decide(SXField, func() (bool, string) {
		switch {
		case v.Type() != want.Type:
			return false, "the literal is " + v.Type().String() + ", the expression " + want.Type.String()
		case v.IsNull() != want.Nullable && !anyNull:
			if want.Nullable {
				return false, "the expression is nullable, the literal " + v.String() + " is not"
			}
			return false, "the expression is not nullable, the literal is null"
		}
		return true, ""
	})
}

// SimplifyAbsorb decides whether `x and false` (`x or true`) may become
// the literal (sx.absorb): x, evaluated over the rows of in, must be
// deterministic and total under the table's totality. The caller then
// asks SimplifyField about the literal.
func (t *Table) SimplifyAbsorb(x plan.Expr, in plan.Schema) Decision {
	t = t.orDefault()
	return t.decide(SXAbsorb, func() (bool, string) {
		if !plan.IsDeterministic(x) {
			return false, "`" + plan.Written(x) + "` is non-deterministic"
		}
		if !t.Total(x, in) {
			return false, "`" + plan.Written(x) + "` is partial"
		}
		return true, ""
	})
}

// SimplifyFactorOr decides whether the conjunct c, common to every arm of
// a filter's disjunction, may be factored out of it (sx.factor_or): c is
// deterministic, and total under the table's totality over in, or every
// conjunct in before (those preceding c in the first arm that stay in the
// arms) is total.
func (t *Table) SimplifyFactorOr(c plan.Expr, before []plan.Expr, in plan.Schema) Decision {
	t = t.orDefault()
	return t.decide(SXFactorOr, func() (bool, string) {
		if !plan.IsDeterministic(c) {
			return false, "`" + plan.Written(c) + "` is non-deterministic"
		}
		if t.Total(c, in) {
			return true, ""
		}
		for _, b := range before {
			if !t.Total(b, in) {
				return false, "`" + plan.Written(c) + "` and `" + plan.Written(b) + "`, evaluated before it in the first arm, are partial"
			}
		}
		return true, ""
	})
}

// SimplifyIf decides whether the branch of field branch may replace an
// if() of field want whose condition is a literal (sx.if): the same type,
// and the same nullability unless anyNull says no schema shows it.
func (t *Table) SimplifyIf(branch, want plan.Field, anyNull bool) Decision {
	return t.orDefault().decide(SXIf, func() (bool, string) {
		switch {
		case branch.Type != want.Type:
			return false, "the branch is " + branch.Type.String() + ", the if() " + want.Type.String()
		case branch.Nullable != want.Nullable && !anyNull:
			if want.Nullable {
				return false, "the if() is nullable, the branch is not"
			}
			return false, "the branch is nullable, the if() is not"
		}
		return true, ""
	})
}

// SimplifyFlip, SimplifyNeutral, SimplifyNotNot and SimplifyFilterTrue
// decide the identities that hold by construction (crosses cells): their
// verdict in force (a barrier under a mutant or an override).
func (t *Table) SimplifyFlip() Decision { return t.orDefault().decide(SXFlip, always) }

// SimplifyNeutral decides sx.neutral (see SimplifyFlip).
func (t *Table) SimplifyNeutral() Decision { return t.orDefault().decide(SXNeutral, always) }

// SimplifyNotNot decides sx.not_not (see SimplifyFlip).
func (t *Table) SimplifyNotNot() Decision { return t.orDefault().decide(SXNotNot, always) }

// SimplifyFilterTrue decides sx.filter_true (see SimplifyFlip).
func (t *Table) SimplifyFilterTrue() Decision { return t.orDefault().decide(SXFilterTrue, always) }
