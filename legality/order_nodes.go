package legality

import (
	"fmt"
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The cells of the order nodes tail, reverse and row_index
// (docs/semantics.md): one per node kind and rule, so that no rule treats
// them by the closed-world catch-alls.
const (
	// PPTail, PPReverse, PPRowIndex: a conjunct crossing the node.
	PPTail     CellID = "pp.tail"
	PPReverse  CellID = "pp.reverse"
	PPRowIndex CellID = "pp.row_index"
	// PRTail, PRReverse, PRRowIndex: requirements narrowing below the
	// node; PRRowIndexDrop: a row_index whose column nothing reads goes.
	PRTail         CellID = "pr.tail"
	PRReverse      CellID = "pr.reverse"
	PRRowIndex     CellID = "pr.row_index"
	PRRowIndexDrop CellID = "pr.row_index.drop"
	// LPTail, LPReverse, LPRowIndex: a limit crossing the node.
	LPTail     CellID = "lp.tail"
	LPReverse  CellID = "lp.reverse"
	LPRowIndex CellID = "lp.row_index"
)

// orderNodeCells are the cells of tail, reverse and row_index, by rule in
// the order the rules run.
var orderNodeCells = []Cell{
	{ID: PPTail, Rule: RulePredicatePushdown, Node: "tail", Verdict: Barrier,
		Reason: "a tail keeps the last n rows: tail(2) . filter(a > 1) over a = [2, 3, 0] keeps [3]; below, the filter keeps [2, 3] and the tail both"},
	{ID: PPReverse, Rule: RulePredicatePushdown, Node: "reverse", Verdict: Crosses,
		Reason:     "reverse . filter(p) is filter(p) . reverse: the filter keeps a row by its own values, so the kept rows are the same, and reversed they come in the same order; the conjunct meets the same set of rows, and an error depends on that set only, never on its order (docs/semantics.md, Errors); a non-deterministic conjunct is stopped by pp.deterministic",
		Equivalent: "a crosses cell: its mutant (barrier) keeps the conjuncts above the reverse (an optimization lost, never another outcome)"},
	{ID: PPRowIndex, Rule: RulePredicatePushdown, Node: "row_index", Verdict: Barrier,
		Reason: "row_index numbers the rows it sees: row_index(i) . filter(a > 1) over a = [0, 2] keeps the row a = 2 with i = 1; below, the filter leaves one row, numbered 0"},
	{ID: PRTail, Rule: RuleProjectionPruning, Node: "tail", Verdict: Crosses,
		Reason:     "a tail keeps rows by position, whatever its columns: tail(1) . select(b) needs only b below",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: PRReverse, Rule: RuleProjectionPruning, Node: "reverse", Verdict: Crosses,
		Reason:     "a reverse reorders rows by position, whatever its columns: reverse . select(b) needs only b below",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: PRRowIndex, Rule: RuleProjectionPruning, Node: "row_index", Verdict: Crosses,
		Reason:     "a row_index numbers rows by position, whatever its input's columns: row_index(i) . select(i, b) needs only b below (its own column is not its input's)",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: PRRowIndexDrop, Rule: RuleProjectionPruning, Node: "row_index", Verdict: CrossesIf,
		Condition: "a row_index whose column nothing above reads goes when its numbering cannot overflow: offset 0, or offset + the input's most rows - 1 fits an int64 by the row bounds (plan.RowEstimates)",
		Reason:    "row_index(i, offset=9223372036854775807) . select(a) over two rows raises overflow on the second row; dropped, the error vanishes"},
	{ID: LPTail, Rule: RuleLimitPushdown, Node: "tail", Verdict: Barrier,
		Reason: "tail(2) . head(1) over [0, 1, 2] keeps 1; below, the limit keeps [0] and the tail 0"},
	{ID: LPReverse, Rule: RuleLimitPushdown, Node: "reverse", Verdict: Barrier,
		Reason: "reverse . head(1) over [0, 1] keeps 1, the last row; below, the limit keeps [0] and reversed it is 0"},
	{ID: LPRowIndex, Rule: RuleLimitPushdown, Node: "row_index", Verdict: Barrier,
		Reason: "row_index(i, offset=9223372036854775807) . head(1) over two rows raises overflow on the second row; below, the limit keeps one row, numbered 9223372036854775807, and the error vanishes"},
}

// PruneRowIndex decides whether a row_index whose column nothing above
// reads may go (pr.row_index.drop): only when its numbering cannot
// overflow, since a dead row_index must still raise what it raises.
func (t *Table) PruneRowIndex(n *plan.RowIndexNode) Decision {
	return t.orDefault().decide(PRRowIndexDrop, func() (bool, string) {
		if n.Offset == 0 {
			return true, ""
		}
		b := plan.NewRowEstimates().Of(n.Input)
		if !b.Bounded {
			return false, fmt.Sprintf("offset %d and no bound on the input's rows: the numbering may overflow", n.Offset)
		}
		if b.Max > 0 && n.Offset > math.MaxInt64-(b.Max-1) {
			return false, fmt.Sprintf("offset %d over up to %d rows may overflow", n.Offset, b.Max)
		}
		return true, ""
	})
}
