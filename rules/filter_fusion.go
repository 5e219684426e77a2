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
		Name:    FlagFilterFusion,
		Matches: []plan.Kind{plan.KindFilter},
		Cells:   legality.Default().CellsOf(legality.RuleFilterFusion),
		Doc:     "fuses a filter into the filter directly below it when the outer conjuncts are total",
		rewrite: func(r *run, root plan.Node) (plan.Node, error) {
			return (&fusion{run: r}).visit(root, &tpath{}), nil
		},
	}
}

type fusion struct{ *run }

func (f *fusion) visit(n plan.Node, path *tpath) plan.Node {
	top, ok := n.(*plan.FilterNode)
	if !ok {
		return f.children(n, path)
	}
	// The maximal run of filters starting at n, top first.
	var run []*plan.FilterNode
	var paths []*tpath
	var below plan.Node = top
	p := path
	for {
		fl, ok := below.(*plan.FilterNode)
		if !ok {
			break
		}
		run = append(run, fl)
		paths = append(paths, p)
		below = fl.Input
		p = p.child(".input")
	}
	newBelow := f.visit(below, p)
	if len(run) == 1 {
		if newBelow == below {
			return top
		}
		return top.WithChildren([]plan.Node{newBelow})
	}
	// From the bottom: seg is the conjunct list of the segment being built,
	// segNodes the original filters it fuses.
	facts := make([]legality.FilterFacts, len(run))
	for i, fl := range run {
		facts[i] = legality.FactsOf(fl)
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
		ruling := f.table.FuseFilters(facts[i], facts[i+1])
		f.ruling(FlagFilterFusion, ruling, f.nextItem(), inner, paths[i+1], nil, outer.Predicates)
		if ruling.Allowed {
			seg = append(seg, outer.Predicates...)
			segFused = true
			f.counters.FusedFilters++
			continue
		}
		flush()
		seg = append([]plan.Expr(nil), outer.Predicates...)
		segFirst, segFused = i, false
	}
	flush()
	return out
}

// children visits n's inputs and rebuilds n if any changed.
func (f *fusion) children(n plan.Node, path *tpath) plan.Node {
	return rebuildChildren(n, path, f.visit)
}

// rebuildChildren applies visit to each input of n and returns n itself
// when nothing changed, else an unresolved copy over the new inputs.
func rebuildChildren(n plan.Node, path *tpath, visit func(plan.Node, *tpath) plan.Node) plan.Node {
	children := n.Children()
	if len(children) == 0 {
		return n
	}
	var out []plan.Node
	for i, c := range children {
		nc := visit(c, childPath(path, n, i))
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
