package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// The cells of asof_join and temporal_group (docs/semantics.md): one per
// node kind and rule. Both nodes VERIFY that an input is sorted and raise
// invalid_input otherwise, so a rewrite that removes rows from such an
// input could remove the very rows out of order and hide the error: a
// filter or a limit enters an as-of join's left input only when that
// input is provably sorted on the key (SortedOn).
const (
	// PPAsofJoin: a conjunct crossing an as-of join into its left input.
	PPAsofJoin CellID = "pp.asof_join"
	// PRAsofJoin: requirements narrowing into an as-of join's inputs.
	PRAsofJoin CellID = "pr.asof_join"
	// LPAsofJoin: a limit copied into an as-of join's left input.
	LPAsofJoin CellID = "lp.asof_join"
	// PPTemporalGroup: a conjunct crossing a temporal_group.
	PPTemporalGroup CellID = "pp.temporal_group"
	// PRTemporalGroup: requirements narrowing below a temporal_group.
	PRTemporalGroup CellID = "pr.temporal_group"
	// LPTemporalGroup: a limit crossing a temporal_group.
	LPTemporalGroup CellID = "lp.temporal_group"
)

// asofNodeCells are the cells of asof_join and temporal_group, by rule in
// the order the rules run.
var asofNodeCells = []Cell{
	{ID: PPAsofJoin, Rule: RulePredicatePushdown, Node: "asof_join", Verdict: CrossesIf,
		Condition: "the conjunct reads only left columns and is total, and the left input is provably sorted on the left key (plan.SortedOn: a sort whose first key is the key ascending, through filters, limits, slices, tails, guards, distincts and projections keeping the key); it goes into the left input, never into the right",
		Reason: "every left row appears once with its left values, and its match depends on the right input only, so a filter on left columns keeps the same rows either way — but the join verifies its inputs' order: " +
			"asof(l{t = [5, 1]}, r) . filter(t > 2) raises invalid_input (the left input is not sorted); below, the filter leaves [5], sorted, and the error vanishes; " +
			"a partial conjunct below would raise before the join's check of the right input (asof(l, r unsorted) . filter(1 / t > 0) over t = 0 raises invalid_input above, divide_by_zero below); " +
			"a right column changes with the match: asof(l{t = [2]}, r{t = [1, 2], v = [5, 0]}) . filter(v > 1) keeps nothing, while r filtered first gives the match v = 5"},
	{ID: PRAsofJoin, Rule: RuleProjectionPruning, Node: "asof_join", Verdict: CrossesIf,
		Condition:    "each input keeps its key and by-key columns, the columns read above and, on the left, every column a kept right column shares a name with (so no suffix changes)",
		Reason:       "asof(l{t, v}, r{t, v}) . select(v_right): dropping l.v would rename r.v to v; dropping a key breaks the join",
		NeverRefuses: "the columns each input keeps are computed, so the cell never refuses"},
	{ID: LPAsofJoin, Rule: RuleLimitPushdown, Node: "asof_join", Verdict: CrossesIf,
		Condition: "the left input is provably sorted on the key (plan.SortedOn); a limit of the same rows goes into the left input and the limit stays above",
		Reason:    "the output is the left rows one for one, in order, so head(n) keeps the first n left rows' matches — but asof(l{t = [0, 5, 1]}, r) . head(1) raises invalid_input; below, the limit keeps [0], sorted, and the error vanishes; nothing goes into the right input, whose every row may be the match"},
	{ID: PPTemporalGroup, Rule: RulePredicatePushdown, Node: "temporal_group", Verdict: Barrier,
		Reason: "a conjunct on a window label or an aggregate reads values the node computes; one on the by-keys selects whole groups, but the node verifies each group's index: " +
			"group_by_dynamic(t, by g) . filter(g = 'a') over g = [a, b, b], t = [1, 5, 2] raises invalid_input (group b is not sorted); below, the filter removes group b and the error vanishes"},
	{ID: PRTemporalGroup, Rule: RuleProjectionPruning, Node: "temporal_group", Verdict: CrossesIf,
		Condition:    "the input is narrowed to exactly the by-key, index and aggregate columns",
		Reason:       "rolling(t, period 2).agg(len()) over a pruned input must still see every row and its index",
		Equivalent:   "the condition holds wherever the cell is consulted (a temporal_group's input always narrows to its by-key, index and aggregate columns), so crosses decides the same",
		NeverRefuses: "a temporal_group's input always narrows to its by-key, index and aggregate columns"},
	{ID: LPTemporalGroup, Rule: RuleLimitPushdown, Node: "temporal_group", Verdict: Barrier,
		Reason: "group_by_dynamic(t, every 10).agg(len()) . head(1) over t = [1, 2] yields 2; below, the limit keeps [1] and the window counts 1"},
}

// PushdownAsof is the check of conjuncts crossing the as-of join n into
// its left input (pp.asof_join), decided per conjunct.
func (t *Table) pushdownAsof(c *NodeCheck, n *plan.AsOfJoinNode) {
	// The node-level decision names the cell (a Barrier mutant stops
	// every conjunct); each conjunct is then decided on its own.
	c.decision = t.decide(PPAsofJoin, always)
	c.generic = true
	var left plan.Schema
	if n.Left != nil {
		left = n.Left.Schema()
	}
	out := n.Schema()
	sorted := -1 // unknown until asked
	c.conjunct = func(e plan.Expr) Decision {
		return t.decide(PPAsofJoin, func() (bool, string) {
			for _, name := range plan.Columns(e) {
				if left.Index(name) < 0 {
					return false, "reads " + name + ", a right column"
				}
			}
			if !t.Total(e, out) {
				return false, "`" + e.String() + "` is partial"
			}
			if sorted < 0 {
				sorted = 0
				if plan.SortedOn(n.Left, n.LeftOn) {
					sorted = 1
				}
			}
			if sorted == 0 {
				return false, "the left input is not provably sorted on " + n.LeftOn
			}
			return true, ""
		})
	}
}

// PruneAsof decides whether an as-of join's inputs may be narrowed
// (pr.asof_join) and to which columns, given the output columns required
// above: keepLeft and keepRight in input order, nil meaning every column.
func (t *Table) PruneAsof(j *plan.AsOfJoinNode, required map[string]bool) (d Decision, keepLeft, keepRight []string) {
	t = t.orDefault()
	d = t.decide(PRAsofJoin, always)
	ls, rs := j.Left.Schema(), j.Right.Schema()
	keepL := map[string]bool{}
	keepR := map[string]bool{}
	if d.Verdict != Crosses {
		keepL[j.LeftOn], keepR[j.RightOn] = true, true
		for _, b := range j.LeftBy {
			keepL[b] = true
		}
		for _, b := range j.RightBy {
			keepR[b] = true
		}
	}
	for _, n := range ls.Names() {
		if required[n] {
			keepL[n] = true
		}
	}
	for _, n := range rs.Names() {
		if out, ok := plan.AsofRightColumn(j, n); ok && required[out] {
			keepR[n] = true
			if out != n && d.Verdict != Crosses {
				keepL[n] = true // keeps the suffix
			}
		}
	}
	return d, ordered(ls.Names(), keepL), ordered(rs.Names(), keepR)
}

// limitPastAsof decides lp.asof_join: a limit copied into the left input
// of a provably sorted one.
func (t *Table) limitPastAsof(n *plan.AsOfJoinNode) Decision {
	return t.decide(LPAsofJoin, func() (bool, string) {
		if !plan.SortedOn(n.Left, n.LeftOn) {
			return false, "the left input is not provably sorted on " + n.LeftOn
		}
		return true, ""
	})
}
