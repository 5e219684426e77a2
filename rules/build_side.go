package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// build_side chooses which input of an inner join the executor hashes. By
// default it is the right one; the rule marks a join to hash its left
// input (plan.JoinNode.BuildLeft, shown by explain as build=left) when the
// left is provably the smaller:
//
//	join inner on=[k = k]                 join inner on=[k = k] build=left
//	  limit 10                      ==>     limit 10
//	    scan small  (1,000 rows)              scan small
//	  scan big      (1M rows)               scan big
//
// The proof is plan.RowEstimates: row bounds from the sources' estimates
// (plan.RowCountEstimator: in-memory tables and Parquet footers give
// theirs) carried through every node by its semantics — a filter keeps
// between none and all of its rows, a limit at most n, an aggregate
// without keys exactly one — so the left input is hashed only when its
// most rows are fewer than the right input's fewest (bs.estimate); the
// explain --why line shows both bounds. Only an inner join has a left build
// in the executor (bs.kind; Resolve rejects the hint elsewhere). The output
// does not change (legality/build_side.go): the left build emits the right
// build's pairs in the same order, left rows in order each followed by
// their matches in right order.
//
// The rule is an annotation: it changes one field and no schema, and it
// only ever sets the hint, so a join already marked (by an earlier run or
// a plan file) stays marked. It runs after every rewriting rule, so the
// joins it marks are the ones that run. Standard tier; with its flag off
// every join hashes its right input.
func buildSide() Rule {
	return Rule{
		Name:     FlagBuildSide,
		Doc:      "marks an inner join to hash its left input when the row estimates prove it the smaller one",
		Tier:     TierStandard,
		Counters: []CounterDef{{Name: counterBuildLeft}},
		Verbs: Verbs{Verb: Verb{Allowed: "hashes its left input at", Refused: "hashes its right input at"},
			Cells: map[legality.CellID]Verb{legality.BSKind: {Allowed: "may hash either input at", Refused: "hashes its right input at"}}},
		Application: "one join marked to hash its left input",
		Matches:     []plan.Kind{plan.KindJoin},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			est := plan.NewRowEstimates()
			return bottomUp(root, &plan.Path{}, func(orig, n plan.Node, path *plan.Path) plan.Node {
				oj, ok := orig.(*plan.JoinNode)
				if !ok || oj.BuildLeft {
					return n
				}
				ru := c.table.BuildLeft(oj, est.Of(oj.Left), est.Of(oj.Right))
				ru = c.budgetedRuling(ru, oj, path, nil, nil)
				c.ruling(ru, c.nextItem(), oj, path, nil, nil)
				if !ru.Allowed {
					return n
				}
				j := n.(*plan.JoinNode)
				nj := j.WithChildren([]plan.Node{j.Left, j.Right}).(*plan.JoinNode)
				nj.BuildLeft = true
				c.Count(counterBuildLeft, 1)
				return nj
			}), nil
		},
	}
}

// FlagBuildSide is build_side's flag (its name).
const FlagBuildSide = legality.RuleBuildSide

// counterBuildLeft counts the joins marked to hash their left input.
const counterBuildLeft = "buildLeft"
