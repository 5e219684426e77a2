package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// semi_pushdown moves a semi (or anti) join over an inner join into the
// inner join's input whose columns its left keys read — what a SQL front
// end's `WHERE o_orderkey IN (SELECT ...)` over `FROM customer, orders,
// lineitem` becomes once collapse_cross_join has made the joins (TPC-H
// Q18) — so that it filters that input before the inner join multiplies
// its rows:
//
//	join semi on=[o_orderkey = l_orderkey]        join inner on=[o_orderkey = l_orderkey]
//	  join inner on=[o_orderkey = l_orderkey]  ==>  join semi on=[o_orderkey = l_orderkey]
//	    scan orders                                   scan orders
//	    scan lineitem                                 aggregate ...
//	  aggregate ...                                 scan lineitem
//
// An inner join yields its left rows in order, each followed by its matches
// in right order, and each output row carries its rows' values, so keeping
// the left (or right) rows with a match first keeps exactly the output rows
// the semi join kept, in the same order; legality/semi_pushdown.go proves
// it and its cells guard what may differ: the keys read one input only
// (sp.side), no residual or validate (sp.options), keys that meet other
// rows total and deterministic (sp.keys), and a right input that raises
// nothing, since it is now evaluated before the inner join's other input
// (sp.right_input). A moved join is tried again at its new place, so it
// sinks through a chain of inner joins (customer, orders, lineitem) to the
// table it filters. The rule resolves what it builds and fails if the
// schema differs (a bug, never a plan's fault).
//
// It is a standard-tier rule, run after collapse_cross_join (which makes
// the inner joins) and before pruning and build_side (which then see the
// smaller input).
func semiPushdown() Rule {
	return Rule{
		Name:     FlagSemiPushdown,
		Doc:      "moves a semi or anti join over an inner join into the inner join's input that its left keys read",
		Tier:     TierStandard,
		Counters: []CounterDef{{Name: counterPushedSemiJoins}},
		Verbs: Verbs{Verb: Verb{Allowed: "moved below the inner join at", Refused: "stays above the inner join at"},
			Cells: map[legality.CellID]Verb{
				legality.SPSide: {Allowed: "reads one input of the inner join at", Refused: "reads both inputs of the inner join at"},
			}},
		Application: "one semi or anti join moved below the inner join under it",
		Matches:     []plan.Kind{plan.KindJoin},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			return bottomUpErr(root, func(orig, n plan.Node, path *plan.Path) (plan.Node, error) {
				j, ok := n.(*plan.JoinNode)
				if !ok || (j.How != plan.SemiJoin && j.How != plan.AntiJoin) {
					return n, nil
				}
				if in, ok := j.Left.(*plan.JoinNode); !ok || in.How != plan.InnerJoin {
					return n, nil
				}
				return sinkSemi(c, n, orig.Schema(), path)
			})
		},
	}
}

// FlagSemiPushdown is semi_pushdown's flag (its name).
const FlagSemiPushdown = legality.RuleSemiPushdown

// counterPushedSemiJoins counts the semi and anti joins moved below an
// inner join (once per inner join crossed).
const counterPushedSemiJoins = "pushedSemiJoins"

// sinkSemi moves the semi or anti join n below the inner join that is its
// left input when the table allows it, and again below the next inner join
// at its new place, returning the rewritten subtree (n when it stays). want
// is the schema the subtree must keep.
func sinkSemi(c *Context, n plan.Node, want plan.Schema, path *plan.Path) (plan.Node, error) {
	res, err := plan.Resolve(n)
	if err != nil {
		return nil, fmt.Errorf("semi_pushdown: the %s join at %s does not resolve: %w", n.(*plan.JoinNode).How, path, err)
	}
	semi := res.(*plan.JoinNode)
	inner, ok := semi.Left.(*plan.JoinNode)
	if !ok || inner.How != plan.InnerJoin {
		return n, nil
	}
	ru, target := c.table.SemiPush(semi, inner)
	ru = c.budgetedRuling(ru, semi, path, nil, nil)
	c.ruling(ru, c.nextItem(), semi, path, nil, nil)
	if !ru.Allowed {
		return n, nil
	}
	side := 0
	if target.Side == plan.SideRight {
		side = 1
	}
	lk := make([]plan.Expr, len(semi.LeftOn))
	for i, k := range semi.LeftOn {
		lk[i] = renameColumns(k, target.Names)
	}
	children := inner.Children()
	moved := &plan.JoinNode{Left: children[side], Right: semi.Right, How: semi.How, LeftOn: lk, RightOn: semi.RightOn,
		Suffix: semi.Suffix, Coalesce: semi.Coalesce, NullsEqual: semi.NullsEqual, Validate: semi.Validate, Residual: semi.Residual}
	innerPath := path.Input(semi, 0)
	sunk, err := sinkSemi(c, moved, children[side].Schema(), innerPath.Input(inner, side))
	if err != nil {
		return nil, err
	}
	children[side] = sunk
	out, err := plan.Resolve(inner.WithChildren(children))
	if err != nil {
		return nil, fmt.Errorf("semi_pushdown: the inner join at %s does not resolve over the moved %s join: %w", innerPath, semi.How, err)
	}
	if !out.Schema().Equal(want) {
		return nil, fmt.Errorf("semi_pushdown: the inner join at %s has schema %s, the %s join %s", innerPath, out.Schema(), semi.How, want)
	}
	c.Count(counterPushedSemiJoins, 1)
	return out, nil
}
