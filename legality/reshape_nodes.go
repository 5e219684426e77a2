package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// The cells of the reshaping nodes hstack, merge_sorted and unpivot
// (docs/semantics.md): one per node kind and rule, so that no rule treats
// them by the closed-world catch-alls.
const (
	// PPHStack, PPMergeSorted, PPUnpivot: a conjunct crossing the node.
	PPHStack      CellID = "pp.hstack"
	PPMergeSorted CellID = "pp.merge_sorted"
	PPUnpivot     CellID = "pp.unpivot"
	// PRHStack, PRMergeSorted, PRUnpivot: requirements narrowing below the
	// node.
	PRHStack      CellID = "pr.hstack"
	PRMergeSorted CellID = "pr.merge_sorted"
	PRUnpivot     CellID = "pr.unpivot"
	// LPHStack, LPMergeSorted, LPUnpivot: a limit crossing the node.
	LPHStack      CellID = "lp.hstack"
	LPMergeSorted CellID = "lp.merge_sorted"
	LPUnpivot     CellID = "lp.unpivot"
)

// reshapeNodeCells are the cells of hstack, merge_sorted and unpivot, by
// rule in the order the rules run.
var reshapeNodeCells = []Cell{
	{ID: PPHStack, Rule: RulePredicatePushdown, Node: "hstack", Verdict: Barrier,
		Reason: "hstack zips rows by position: hstack(A, B) . filter(a > 1) over a = [1, 2], b = [3, 4] keeps (2, 4); moved into A, the filter leaves A one row against B's two, and the hstack raises invalid_input"},
	{ID: PPMergeSorted, Rule: RulePredicatePushdown, Node: "merge_sorted", Verdict: Barrier,
		Reason: "merge_sorted verifies its inputs' order: merge_sorted(A, B, k) . filter(k > 1) over A's k = [2, 0] raises invalid_input (A is unsorted); moved into both inputs, the filter leaves A = [2], sorted, and the error vanishes"},
	{ID: PPUnpivot, Rule: RulePredicatePushdown, Node: "unpivot", Verdict: CrossesIf,
		Condition: "the conjunct reads only index columns (which carry each input row's values unchanged into its k >= 1 output rows)",
		Reason:    "unpivot(on=[a, b], value_name=a) . filter(a > 1) reads the value column named a; moved below, it would read the input column a and keep the row (a = 2, b = 0) whole, giving its b row too"},
	{ID: PRHStack, Rule: RuleProjectionPruning, Node: "hstack", Verdict: Crosses,
		Reason:     "hstack places whole inputs side by side: each input needs only the columns of its own required above (at least one, which keeps it and its height check): hstack(A, B) . select(a) needs a of A and one column of B",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: PRMergeSorted, Rule: RuleProjectionPruning, Node: "merge_sorted", Verdict: Barrier,
		Reason: "the inputs must keep identical columns: merge_sorted(filter(x > 0) . A, B, k) . select(k) — narrowed, the left input still produces x for its filter where the right does not, and the merge's schemas differ"},
	{ID: PRUnpivot, Rule: RuleProjectionPruning, Node: "unpivot", Verdict: Crosses,
		Reason:     "unpivot reads its on columns and passes index columns through: unpivot(on=[a], index=[k, s]) . select(k, value) needs k and a below, and the index narrows to [k]",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column and index (an optimization lost, never a different outcome)"},
	{ID: LPHStack, Rule: RuleLimitPushdown, Node: "hstack", Verdict: Barrier,
		Reason: "hstack(A, B) . head(1) over A of 2 rows and B of 3 raises invalid_input; with the limit copied into both inputs, each has 1 row and the error vanishes"},
	{ID: LPMergeSorted, Rule: RuleLimitPushdown, Node: "merge_sorted", Verdict: Barrier,
		Reason: "merge_sorted(A, B, k) . head(1) over A's k = [1, 0] raises invalid_input (A is unsorted); with head(1) copied into both inputs, A is [1], sorted, and the error vanishes"},
	{ID: LPUnpivot, Rule: RuleLimitPushdown, Node: "unpivot", Verdict: Barrier,
		Reason: "unpivot(on=[a, b]) . head(1) keeps one row; moved below, head(1) keeps one input row, which unpivots into two"},
}

// unpivotCheck makes c the check of an unpivot: a conjunct reading only
// index columns crosses (pp.unpivot), decided conjunct by conjunct.
func (t *Table) unpivotCheck(c *NodeCheck, n *plan.UnpivotNode) {
	c.decision = Decision{Allowed: true}
	index := map[string]bool{}
	if names := n.Schema().Names(); len(names) >= 2 {
		for _, name := range names[:len(names)-2] {
			index[name] = true
		}
	}
	c.generic, c.shadow = true, PPUnpivot
	c.conjunct = func(e plan.Expr) Decision {
		return t.decide(PPUnpivot, func() (bool, string) {
			for _, name := range plan.Columns(e) {
				if !index[name] {
					return false, "reads " + name + ", not an index column"
				}
			}
			return true, ""
		})
	}
}
