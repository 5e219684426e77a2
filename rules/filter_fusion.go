package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// filter_fusion merges a filter into the filter directly below it:
//
//	filter(p)                    filter(c, p)        (inner conjuncts first)
//	  filter(c)          ==>       scan t
//	    scan t
//
// only when every outer conjunct is total and deterministic (ff.total_outer:
// after fusion the outer conjuncts see every row the inner one saw, not just
// the survivors) and both filters' conjuncts resolve to bool
// (ff.boolean). A run of k filters is handled in one pass from the bottom,
// building each fused conjunct list once, so a 50,000-filter chain fuses in
// linear time.
func filterFusion() Rule {
	return Rule{
		Name:        FlagFilterFusion,
		Doc:         "fuses a filter into the filter directly below it when the outer conjuncts are total",
		Counters:    []CounterDef{{Name: counterFusedFilters, Position: 5}},
		Verbs:       Verbs{Verb: Verb{Allowed: "fused into", Refused: "not fused into"}},
		Application: "one filter fused into the filter below it",
		Matches:     []plan.Kind{plan.KindFilter},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			return (&fusion{Context: c}).visit(root, &plan.Path{}), nil
		},
	}
}

// FlagFilterFusion is filter_fusion's flag (its name).
const FlagFilterFusion = legality.RuleFilterFusion

// counterFusedFilters counts the filters fused into the filter below them.
const counterFusedFilters = "fusedFilters"

type fusion struct{ *Context }

// ffFrame is a node on the way down: a run of adjacent filters (top first)
// or a single-input node to rebuild.
type ffFrame struct {
	run   []*plan.FilterNode
	paths []*plan.Path
	node  plan.Node
	input plan.Node
}

// visit walks down chains of single-input nodes in a loop, collecting each
// maximal run of filters as one frame, recurses only into the inputs of
// multi-input nodes, and fuses on the way up.
func (f *fusion) visit(n plan.Node, path *plan.Path) plan.Node {
	var frames []ffFrame
	var out plan.Node
	for out == nil {
		if fl, ok := n.(*plan.FilterNode); ok {
			var fr ffFrame
			for ok {
				fr.run = append(fr.run, fl)
				fr.paths = append(fr.paths, path)
				n, path = fl.Input, path.Child(".input")
				fl, ok = n.(*plan.FilterNode)
			}
			frames = append(frames, fr)
			continue
		}
		children := n.Children()
		if len(children) != 1 {
			out = rebuildChildren(n, path, f.visit)
			continue
		}
		frames = append(frames, ffFrame{node: n, input: children[0]})
		n, path = children[0], path.Input(n, 0)
	}
	for i := len(frames) - 1; i >= 0; i-- {
		fr := &frames[i]
		if fr.run == nil {
			if out != fr.input {
				out = fr.node.WithChildren([]plan.Node{out})
			} else {
				out = fr.node
			}
			continue
		}
		out = f.fuseRun(fr.run, fr.paths, out)
	}
	return out
}

// fuseRun fuses a run of adjacent filters (top first) over newBelow, the
// rewritten input of the lowest one, from the bottom up: each fused
// conjunct list is built once.
func (f *fusion) fuseRun(run []*plan.FilterNode, paths []*plan.Path, newBelow plan.Node) plan.Node {
	if len(run) == 1 {
		if newBelow == run[0].Input {
			return run[0]
		}
		return run[0].WithChildren([]plan.Node{newBelow})
	}
	facts := make([]legality.FilterFacts, len(run))
	for i, fl := range run {
		facts[i] = f.table.FactsOf(fl)
	}
	out := newBelow
	k := len(run) - 1
	seg := append([]plan.Expr(nil), run[k].Predicates...)
	segFirst := k // the lowest filter of the segment
	segFused := false
	flush := func() {
		if !segFused && run[segFirst].Input == out {
			out = run[segFirst]
			return
		}
		out = &plan.FilterNode{Input: out, Predicates: seg}
	}
	for i := k - 1; i >= 0; i-- {
		outer, inner := run[i], run[i+1]
		ruling := f.budgetedRuling(f.table.FuseFilters(facts[i], facts[i+1]), inner, paths[i+1], nil, outer)
		f.ruling(ruling, f.nextItem(), inner, paths[i+1], nil, outer)
		if ruling.Allowed {
			seg = append(seg, outer.Predicates...)
			segFused = true
			f.Count(counterFusedFilters, 1)
			continue
		}
		flush()
		seg = append([]plan.Expr(nil), outer.Predicates...)
		segFirst, segFused = i, false
	}
	flush()
	return out
}

// rebuildChildren applies visit to each input of n and returns n itself
// when nothing changed, else an unresolved copy over the new inputs.
func rebuildChildren(n plan.Node, path *plan.Path, visit func(plan.Node, *plan.Path) plan.Node) plan.Node {
	children := n.Children()
	if len(children) == 0 {
		return n
	}
	var out []plan.Node
	for i, c := range children {
		nc := visit(c, path.Input(n, i))
		if nc != c && out == nil {
			out = append([]plan.Node(nil), children...)
		}
		if out != nil {
			out[i] = nc
		}
	}
	if out == nil {
		return n
	}
	return n.WithChildren(out)
}

// bottomUpErr is bottomUp for a rewrite that can fail: once fn returns an
// error the walk leaves every further node as it is, and the first error is
// returned instead of the tree.
func bottomUpErr(root plan.Node, fn func(orig, n plan.Node, path *plan.Path) (plan.Node, error)) (plan.Node, error) {
	var err error
	out := bottomUp(root, &plan.Path{}, func(orig, n plan.Node, path *plan.Path) plan.Node {
		if err != nil {
			return n
		}
		var m plan.Node
		m, err = fn(orig, n, path)
		return m
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// bottomUp rewrites a tree bottom-up: fn sees each original node and the
// node rebuilt over its rewritten inputs. Chains of single-input nodes are
// walked in a loop; only multi-input nodes recurse.
func bottomUp(root plan.Node, path *plan.Path, fn func(orig, n plan.Node, path *plan.Path) plan.Node) plan.Node {
	type frame struct {
		node, input plan.Node
		path        *plan.Path
	}
	var spine []frame
	n, p := root, path
	for {
		children := n.Children()
		if len(children) != 1 {
			break
		}
		spine = append(spine, frame{n, children[0], p})
		n, p = children[0], p.Input(n, 0)
	}
	out := rebuildChildren(n, p, func(c plan.Node, cp *plan.Path) plan.Node { return bottomUp(c, cp, fn) })
	out = fn(n, out, p)
	for i := len(spine) - 1; i >= 0; i-- {
		s := spine[i]
		cur := s.node
		if out != s.input {
			cur = s.node.WithChildren([]plan.Node{out})
		}
		out = fn(s.node, cur, s.path)
	}
	return out
}
