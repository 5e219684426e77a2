package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleErrorGuards names the rule of package rules whose cells are decided
// here (the eg.* cells): also its flag and file name.
const RuleErrorGuards = "error_guards"

// The cells of error_guards (standard tier) and predicate_pushdown's cell
// for a guard node. A filter directly above a with_columns holding
// partial expressions moves below it, and a guard
// (plan.GuardNode) of those expressions takes the node's place in
// evaluation order, below the filter: docs/adr/0004-error-guards.md proves
// that every outcome, the first error included, is unchanged.
const (
	// EGDeterministic: the filter's conjuncts and the node's expressions
	// are deterministic.
	EGDeterministic CellID = "eg.deterministic"
	// EGColumns: every column the filter reads is one the node passes
	// through unchanged.
	EGColumns CellID = "eg.columns"
	// EGCost: every partial expression of the node has a cheap error
	// condition (plan.CompileGuard).
	EGCost CellID = "eg.cost"
	// EGCovered: the guard is left out because a guard below, reached
	// through filters and guards only, already lists its expressions.
	EGCovered CellID = "eg.covered"
	// EGSplit: a filter holding total and partial conjuncts splits: the
	// total ones become a filter below the partial ones, above a guard of
	// the partial ones, so that the partial ones' values are computed only
	// on the rows the total ones keep (docs/adr/0004-error-guards.md, "Split
	// filters").
	EGSplit CellID = "eg.split"
	// EGScan: a filter of total conjuncts over a chain of guards directly
	// over a scan moves into the scan with them: the guards become the
	// scan's (plan.ScanNode.Guards, evaluated over every row the source
	// yields, before any pushed conjunct) and the conjuncts the source
	// accepts are pushed (docs/adr/0004-error-guards.md, "Guards in a
	// scan").
	EGScan CellID = "eg.scan"
	// EGUnguarded: the filter moves without leaving a guard (a barrier: it
	// never does; its mutant is the engines' behaviour that loses errors).
	EGUnguarded CellID = "eg.unguarded"
	// PPGuard: a conjunct crossing a guard (a barrier).
	PPGuard CellID = "pp.guard"
	// LPGuard: a limit crossing a guard (a barrier).
	LPGuard CellID = "lp.guard"
	// PRGuard: pruning through a guard (a barrier: every input column is
	// kept).
	PRGuard CellID = "pr.guard"
	// PRWithColumnsGuard: a dead with_columns entry that pr.with_columns
	// keeps (it is partial) becomes a guard of its expression below the
	// node instead of a column computed whole (projection_pruning, when
	// error_guards is enabled).
	PRWithColumnsGuard CellID = "pr.with_columns.guard"
)

// errorGuardCells are error_guards' cells, in the order the rule consults
// them, then predicate_pushdown's cell for the guard node.
var errorGuardCells = []Cell{
	{ID: EGDeterministic, Rule: RuleErrorGuards, Node: "filter over with_columns", Verdict: CrossesIf,
		Condition: "every conjunct of the filter and every expression of the node is deterministic",
		Reason:    "filter(k < 10) over with_columns(nd_seq(a * 2) as c): below the filter the counter advances only on the rows that pass, so c changes on every row after the first removed one"},
	{ID: EGColumns, Rule: RuleErrorGuards, Node: "filter over with_columns", Verdict: CrossesIf,
		Condition: "every column the filter reads is passed through by the node unchanged (not computed there, or restated as itself)",
		Reason:    "filter(c > 0) over with_columns(a * 2 + 1 as c): below the node, c is the input's c (or no column at all), not a * 2 + 1"},
	{ID: EGCost, Rule: RuleErrorGuards, Node: "filter over with_columns", Verdict: CrossesIf,
		Condition:  "every partial expression of the node (the tier's totality) has a cheap error condition (plan.CompileGuard: a range test of one column for a checked add/sub/mul/neg chain with literals, b = 0 and MinInt / -1 for a div or mod of columns and literals)",
		Reason:     "filter(k < 10) over with_columns(cast(s, int64) as x): a strict parse's error condition is the parse itself, so a guard would cost what computing x over every row costs",
		Equivalent: "an executor evaluates a guard whose expression has no cheap error condition in full and drops the value (exec/step and the reference alike), which raises exactly the expression's errors: the mutant changes the cost, never an outcome"},
	{ID: EGCovered, Rule: RuleErrorGuards, Node: "filter over with_columns", Verdict: CrossesIf,
		Condition: "a guard below the node's input, reached through filters and guards only, lists every expression the new guard would: it checked them over a superset of these rows, with the same values, so the new guard cannot raise and is left out",
		Reason:    "filter(k < 10) over with_columns(a * 2 as c) over filter(j > 0) over guard [b * 2]: the guard below checks b, not a; leaving a's guard out loses the overflow of a * 2 on the rows k < 10 removes"},
	{ID: EGSplit, Rule: RuleErrorGuards, Node: "filter", Verdict: CrossesIf,
		Condition: "the filter holds a total conjunct (the tier's totality) and a partial one, every conjunct is deterministic, and every partial conjunct has a cheap error condition (plan.CompileGuard); the total conjuncts then form a filter below the partial ones, above a guard of the partial ones",
		Reason:    "filter(nd_seq(a) + a / b > 1, k = 1): split, nd_seq would run only on the rows k = 1 keeps, so its counter, the values and the rows kept change (the cost condition alone changes no outcome: a guard without a cheap condition is evaluated in full)"},
	{ID: EGScan, Rule: RuleErrorGuards, Node: "filter of total conjuncts over guards over scan", Verdict: CrossesIf,
		Condition: "the source declares that its scans evaluate guards (plan.ScanGuardEvaluator), the scan holds no pushed conjunct and no max-rows hint (its guards then meet every row the source yields, as the guard nodes above it did) and the source accepts one of the filter's conjuncts (Exact or Inexact); the guards become the scan's, in evaluation order, and the accepted conjuncts are pushed after them",
		Reason:    "filter(k = 1) over guard [a / b] over scan t pushed=[j > 0 (exact)] with b = 0 on a row where j <= 0: in the scan the guard runs before the pushed j > 0 and meets that row, so the plan raises divide_by_zero where the guard node, above the pushed conjunct, never saw it; and a host source that translates the plan into its own engine without reading ScanNode.Guards would drop the guard and lose the error (examples/embed's host, seed 20261130 case 52)"},
	{ID: EGUnguarded, Rule: RuleErrorGuards, Node: "filter over with_columns; split filter", Verdict: Barrier,
		Reason: "filter(k < 10) over with_columns(a * 2 + 1 as c) with a = MaxInt64 on a row where k = 50: without a guard the filter removes that row first and the overflow vanishes (what engines that push filters anyway do)"},
	{ID: PPGuard, Rule: RulePredicatePushdown, Node: "guard", Verdict: Barrier,
		Reason: "filter(k < 10) over guard [a * 2 + 1]: below the guard the conjunct removes the rows on which the guarded expression overflows, so the error vanishes"},
	{ID: LPGuard, Rule: RuleLimitPushdown, Node: "guard", Verdict: Barrier,
		Reason: "limit 1 over guard [a * 2 + 1]: below the guard the limit keeps the first row only, and an overflow on the second row vanishes"},
	{ID: PRWithColumnsGuard, Rule: RuleProjectionPruning, Node: "with_columns", Verdict: CrossesIf,
		Condition: "(consulted only when error_guards is enabled, for a dead entry pr.with_columns keeps, in a with_columns owning no window) the entry is deterministic, has a cheap error condition (plan.CompileGuard), and every entry the node keeps listed before it is total; it then leaves the node and a guard of its expression goes below the node (none when its condition is empty)",
		Reason:    "with_columns(b * 2 as x, a * 2 as c) . select(x) with b * 2 overflowing on row 2 and a * 2 on row 1: the node raises b * 2's overflow (x is evaluated first); guard [a * 2] below it raises a * 2's"},
	{ID: PRGuard, Rule: RuleProjectionPruning, Node: "guard", Verdict: Barrier,
		Reason: "project [k] over guard [a * 2 + 1]: the guard reads a, which nothing above requires, so narrowing its input to what is required above would drop the column it tests; every input column is kept"},
}

// GuardDeadEntry decides whether e, a dead entry of the with_columns n
// that pr.with_columns keeps (PruneEntry refused: e is partial or
// non-deterministic), may leave the node, a guard of its expression going
// below the node instead (pr.with_columns.guard; projection_pruning asks
// only when error_guards is enabled and n owns no window). keptBefore is
// the first entry listed before e that the node keeps and that is not
// total (the tier's totality), or nil: the guard runs before every entry
// the node keeps, so no partial one may come first. raises says whether
// the guard tests anything: an entry whose error condition is empty
// leaves with no guard. The guard raises what the entry raised, over the
// same rows, before every kept entry as the entry was (docs/adr/0004-error-guards.md,
// "Dead partial columns").
func (t *Table) GuardDeadEntry(n *plan.WithColumnsNode, e plan.Expr, keptBefore plan.Expr) (d Decision, raises bool) {
	t = t.orDefault()
	in := inputSchema(n)
	d = t.decide(PRWithColumnsGuard, func() (bool, string) {
		if !plan.IsDeterministic(e) {
			return false, "`" + e.String() + "` is non-deterministic"
		}
		prog, ok := plan.CompileGuard(plan.Unalias(e), in)
		if !ok {
			return false, "`" + e.String() + "` has no error condition cheaper than itself"
		}
		if keptBefore != nil {
			return false, "`" + keptBefore.String() + "`, kept and partial, is evaluated before it"
		}
		raises = len(prog.Tests) > 0
		if !raises {
			return true, "it cannot raise: no guard"
		}
		return true, "guard [" + plan.Unalias(e).String() + "] below the node"
	})
	if t.Verdict(PRWithColumnsGuard) == Crosses {
		raises = true // the mutant: nothing was compiled
	}
	return d, raises
}

// GuardRuling is error_guards' decision for a filter directly above a
// with_columns: the consulted decisions and, when allowed, the
// expressions the guard lists (the node's partial ones, in list order;
// empty when the node holds none) and whether the guard is left out (only
// under eg.unguarded's mutant).
type GuardRuling struct {
	Ruling
	Guard     []plan.Expr
	Unguarded bool
}

// GuardFilter decides whether filter f may move below its input n (a
// resolved with_columns owning no window, holding at least one
// partial expression; the rule checks that) leaving a guard:
// eg.deterministic, eg.columns, eg.cost, then eg.covered (whether a guard
// below, reached from below — n's input as the plan now has it — through
// filters and guards, already lists the expressions) and eg.unguarded
// (whether the guard is left out).
func (t *Table) GuardFilter(f *plan.FilterNode, n plan.Node, exprs []plan.Expr, below plan.Node) GuardRuling {
	t = t.orDefault()
	var r GuardRuling
	in := inputSchema(n)
	if !r.consult(t.decide(EGDeterministic, func() (bool, string) {
		for _, e := range f.Predicates {
			if !plan.IsDeterministic(e) {
				return false, "`" + e.String() + "` is non-deterministic"
			}
		}
		for _, e := range exprs {
			if !plan.IsDeterministic(e) {
				return false, "`" + e.String() + "` is non-deterministic"
			}
		}
		return true, ""
	})) {
		return r
	}
	if !r.consult(t.decide(EGColumns, func() (bool, string) {
		pass := passedThrough(n, exprs)
		for _, e := range f.Predicates {
			for _, c := range plan.Columns(e) {
				if !pass(c) {
					return false, "`" + e.String() + "` reads " + c + ", which the node computes"
				}
			}
		}
		return true, ""
	})) {
		return r
	}
	var partial []plan.Expr
	for _, e := range exprs {
		if !t.Total(e, in) {
			partial = append(partial, plan.Unalias(e))
		}
	}
	var raising []plan.Expr
	if !r.consult(t.decide(EGCost, func() (bool, string) {
		var ok bool
		var why string
		raising, why, ok = raisingParts(partial, in)
		return ok, why
	})) {
		return r
	}
	if t.Verdict(EGCost) == Crosses {
		raising = partial // the mutant: nothing was compiled
	}
	// An expression whose error condition is empty cannot raise at all (a
	// comparison is partial only under the bounded tier's totality): it
	// needs no guard.
	partial = raising
	r.Guard = partial
	r.Allowed = true
	if len(partial) == 0 {
		return r
	}
	d := t.decide(EGCovered, func() (bool, string) {
		for below != nil {
			switch b := below.(type) {
			case *plan.FilterNode:
				below = b.Input
				continue
			case *plan.GuardNode:
				if coveredBy(partial, b.Exprs) {
					return true, "guard [" + exprList(b.Exprs) + "] below checks them"
				}
				below = b.Input
				continue
			}
			break
		}
		return false, ""
	})
	r.Decisions = append(r.Decisions, d)
	if d.Allowed {
		r.Unguarded = true
		return r
	}
	d = t.decide(EGUnguarded, always)
	r.Decisions = append(r.Decisions, d)
	r.Unguarded = d.Allowed
	return r
}

// SplitConjuncts partitions a filter's conjuncts, evaluated over rows of
// schema in, into the total ones and the partial ones (the tier's
// totality), each in list order: error_guards splits a filter holding both
// (GuardSplit).
func (t *Table) SplitConjuncts(conjuncts []plan.Expr, in plan.Schema) (total, partial []plan.Expr) {
	t = t.orDefault()
	for _, e := range conjuncts {
		if t.Total(e, in) {
			total = append(total, e)
		} else {
			partial = append(partial, e)
		}
	}
	return total, partial
}

// GuardSplit decides whether a filter holding the total conjuncts total
// and the partial conjuncts partial (SplitConjuncts, both non-empty; in:
// the schema they are evaluated over) may split into filter [partial] over
// filter [total] over guard [partial] (eg.split): every conjunct must be
// deterministic and every partial one have a cheap error condition. When
// allowed, Guard lists the partial conjuncts that can raise at all, and
// eg.unguarded (the barrier, consulted when there is something to guard)
// says whether the guard is left out.
func (t *Table) GuardSplit(total, partial []plan.Expr, in plan.Schema) GuardRuling {
	t = t.orDefault()
	var r GuardRuling
	var raising []plan.Expr
	if !r.consult(t.decide(EGSplit, func() (bool, string) {
		raising = raising[:0]
		for _, list := range [][]plan.Expr{partial, total} {
			for _, e := range list {
				if !plan.IsDeterministic(e) {
					return false, "`" + e.String() + "` is non-deterministic"
				}
			}
		}
		var ok bool
		var why string
		raising, why, ok = raisingParts(partial, in)
		return ok, why
	})) {
		return r
	}
	if t.Verdict(EGSplit) == Crosses {
		raising = partial // the mutant: nothing was compiled
	}
	r.Guard = raising
	r.Allowed = true
	if len(raising) == 0 {
		return r
	}
	d := t.decide(EGUnguarded, always)
	r.Decisions = append(r.Decisions, d)
	r.Unguarded = d.Allowed
	return r
}

// coveredBy reports whether every expression of want is in have.
func coveredBy(want, have []plan.Expr) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if plan.ExprEqual(w, h) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func exprList(es []plan.Expr) string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += ", "
		}
		s += e.String()
	}
	return s
}

// passedThrough returns whether a column of n's output is its input's
// column unchanged: for a project, one of its plain same-name column
// expressions; for a with_columns, any name no expression computes, or one
// restated as itself.
func passedThrough(n plan.Node, exprs []plan.Expr) func(string) bool {
	_, project := n.(*plan.ProjectNode)
	defined := map[string]bool{}
	identity := map[string]bool{}
	for _, e := range exprs {
		name := plan.OutputName(e)
		if c, ok := plan.Unalias(e).(*plan.Column); ok && c.Name == name && !defined[name] {
			identity[name] = true
			continue
		}
		defined[name] = true
		delete(identity, name)
	}
	return func(c string) bool {
		if project {
			return identity[c]
		}
		return identity[c] || !defined[c]
	}
}

// raisingParts returns those of the partial expressions whose guard tests
// anything (the ones that can raise over in); ok is false, with the reason,
// when one has no error condition cheaper than itself.
func raisingParts(partial []plan.Expr, in plan.Schema) (raising []plan.Expr, why string, ok bool) {
	for _, e := range partial {
		prog, ok := plan.CompileGuard(e, in)
		if !ok {
			return nil, "`" + e.String() + "` has no error condition cheaper than itself", false
		}
		if len(prog.Tests) > 0 {
			raising = append(raising, e)
		}
	}
	return raising, "", true
}

// GuardScan decides whether the filter of total conjuncts conjuncts, over
// the guards guards (in evaluation order, lowest first) directly over the
// scan s, may move into s (eg.scan): the guards become the scan's, then
// the conjuncts support classifies Exact or Inexact are pushed. Allowed
// when s holds no pushed conjunct and no max-rows hint: the scan's guards
// run over every row its source yields, before its pushed conjuncts
// (docs/semantics.md, scan), which is where the guard nodes above it ran
// only while nothing was pushed into it. The rule asks only when the
// source accepts one of the conjuncts.
func (t *Table) GuardScan(conjuncts, guards []plan.Expr, s *plan.ScanNode) Decision {
	t = t.orDefault()
	return t.decide(EGScan, func() (bool, string) {
		if !plan.EvaluatesScanGuards(s.Source) {
			return false, "the source does not declare that its scans evaluate guards (plan.ScanGuardEvaluator): a host that translates the plan would drop them"
		}
		if len(s.Pushed) > 0 {
			return false, "the scan holds pushed conjuncts, which its guards would run before"
		}
		if s.HasMaxRows {
			return false, "the scan holds a max-rows hint"
		}
		return true, "guards [" + exprList(guards) + "] into the scan, [" + exprList(conjuncts) + "] offered to its source"
	})
}
