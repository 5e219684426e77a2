package rules

import (
	"github.com/dfopt/dfopt/plan"
)

// A reordered chain numbers each input's rows. When the plan already
// evaluates a semi join of one input against another on key pairs of the
// chain between them (TPC-H Q2 written as SQL: semi_reduction gives the
// correlated subquery's aggregate `partsupp ⋉ filter(part)`, and the outer
// chain joins the same partsupp and filtered part on the same key),
// join_order numbers that semi join's rows instead of the whole input:
// the rows it drops match no row of the other input, so no tuple of the
// chain holds them, and the executor's memo evaluates the semi join once
// for both places. The chain then probes and numbers the few rows the
// semi join keeps, not the whole input, and the plan probes the input
// once. The legality cell jo.reduce guards the other input's second
// evaluation (legality.Table.JoinReduce).

// plainSemiJoins lists the semi joins of the plan under root without
// options or residual whose keys are plain columns: the reductions a chain
// input may share.
func plainSemiJoins(root plan.Node) []*plan.JoinNode {
	var out []*plan.JoinNode
	plan.WalkNodes(root, func(n plan.Node) bool {
		j, ok := n.(*plan.JoinNode)
		if !ok || j.How != plan.SemiJoin || j.HasOptions() || j.BuildLeft || len(j.LeftOn) == 0 {
			return true
		}
		for _, keys := range [][]plan.Expr{j.LeftOn, j.RightOn} {
			for _, k := range keys {
				if _, ok := k.(*plan.Column); !ok {
					return true
				}
			}
		}
		out = append(out, j)
		return true
	})
	return out
}

// reduceInputs returns the chain's inputs (in), each replaced by a semi
// join of semis that reduces it by another input of the chain on key pairs
// of the chain between the two (edges: both of the semi join's inputs
// Equal to the chain's, each of its key pairs an edge between them) when
// the legality table allows it; an input no semi join reduces stays as it
// is. oj and path name the chain for the trace.
func reduceInputs(c *Context, semis []*plan.JoinNode, in []plan.Node, edges []chainEdge, oj *plan.JoinNode, path *plan.Path) []plan.Node {
	out := append([]plan.Node(nil), in...)
	if len(semis) == 0 {
		return out
	}
	for i := range in {
		for _, s := range semis {
			j := reducerOf(s, i, in, edges)
			if j < 0 {
				continue
			}
			ru := c.table.JoinReduce(in[j])
			ru = c.budgetedRuling(ru, oj, path, nil, nil)
			c.ruling(ru, c.nextItem(), oj, path, nil, nil)
			if ru.Allowed {
				out[i] = s
			}
			break
		}
	}
	return out
}

// reducerOf returns the input of the chain that the semi join s reduces
// input i by: s's left input is Equal to input i, its right input to
// input j, and each of its key pairs names the columns of an edge between
// i and j; -1 when there is none.
func reducerOf(s *plan.JoinNode, i int, in []plan.Node, edges []chainEdge) int {
	if !plan.Equal(s.Left, in[i]) {
		return -1
	}
	for j := range in {
		if j == i || !plan.Equal(s.Right, in[j]) {
			continue
		}
		if keysAreEdges(s, in[i].Schema(), in[j].Schema(), i, j, edges) {
			return j
		}
	}
	return -1
}

// keysAreEdges reports whether every key pair of s (left keys columns of
// li, input i; right keys of ri, input j) is an edge of the chain between
// those columns, in either direction.
func keysAreEdges(s *plan.JoinNode, li, ri plan.Schema, i, j int, edges []chainEdge) bool {
	for k := range s.LeftOn {
		lc, lok := s.LeftOn[k].(*plan.Column)
		rc, rok := s.RightOn[k].(*plan.Column)
		if !lok || !rok {
			return false
		}
		a, b := chainCol{i, li.Index(lc.Name)}, chainCol{j, ri.Index(rc.Name)}
		if a.ordinal < 0 || b.ordinal < 0 {
			return false
		}
		found := false
		for _, e := range edges {
			if (e.a == a && e.b == b) || (e.a == b && e.b == a) {
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
