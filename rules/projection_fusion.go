package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// projection_fusion inlines a with_columns value into the one projection
// expression that references it:
//
//	select(a, x)                         select(a, a / b as x)
//	  with_columns(a / b as x)   ==>       scan t
//	    scan t
//
// The substitution is structural (no reassociation), an alias keeps the
// output name, and the value leaves the with_columns, which disappears when
// nothing is left in it. Legality is pf.holder, pf.deterministic, pf.once,
// pf.capture, pf.text and pf.inline (error order). Values are decided from
// the last to the first, in passes until nothing more inlines, so that every
// decision sees the with_columns and the projection as they will be — and a
// second run finds nothing left to do. When a with_columns is emptied the
// projection continues with the with_columns below it.
func projectionFusion() Rule {
	return Rule{
		Name:    FlagProjectionFusion,
		Matches: []plan.Kind{plan.KindProject, plan.KindWithColumns},
		Cells:   legality.Default().CellsOf(legality.RuleProjectionFusion),
		Doc:     "inlines a with_columns value into the one projection expression that uses it",
		rewrite: func(r *run, root plan.Node) (plan.Node, error) {
			f := &projFusion{run: r}
			return f.visit(root, &plan.Path{}), nil
		},
	}
}

type projFusion struct{ *run }

func (f *projFusion) visit(n plan.Node, path *plan.Path) plan.Node {
	return bottomUp(n, path, func(orig, n plan.Node, path *plan.Path) plan.Node {
		if p, ok := n.(*plan.ProjectNode); ok {
			return f.fuse(orig, p, path)
		}
		return n
	})
}

// fuse inlines into project p (orig is p as it was in the rule's input, for
// the trace).
func (f *projFusion) fuse(orig plan.Node, p *plan.ProjectNode, path *plan.Path) plan.Node {
	exprs, input := p.Exprs, p.Input
	changed := false
	for {
		w, ok := input.(*plan.WithColumnsNode)
		if !ok {
			break
		}
		remaining, newExprs, inlined := f.pair(orig, path, exprs, w)
		if inlined == 0 {
			break
		}
		changed, exprs = true, newExprs
		if len(remaining) == 0 {
			input = w.Input
			continue
		}
		input = &plan.WithColumnsNode{Input: w.Input, Exprs: remaining}
		break
	}
	if !changed {
		return p
	}
	return &plan.ProjectNode{Input: input, Exprs: exprs}
}

// pair inlines what it can of w into exprs, in passes from the last value to
// the first until a pass inlines nothing. It returns the values left in w,
// the rewritten expressions and how many values were inlined.
func (f *projFusion) pair(orig plan.Node, path *plan.Path, exprs []plan.Expr, w *plan.WithColumnsNode) ([]plan.Expr, []plan.Expr, int) {
	cur := append([]plan.Expr(nil), exprs...)
	gone := make([]bool, len(w.Exprs))
	refused := map[int]legality.Ruling{} // the latest refusal of each value
	total := 0
	for {
		chk := f.table.NewInlineCheck(cur, w)
		for j := range gone {
			if gone[j] {
				chk.Inlined(j)
			}
		}
		pass := 0
		for j := len(w.Exprs) - 1; j >= 0; j-- {
			if gone[j] || len(chk.Users(j)) == 0 {
				continue
			}
			v := w.Exprs[j]
			ruling := f.budgetedRuling(FlagProjectionFusion, chk.Value(j), orig, path, v, nil)
			if !ruling.Allowed {
				refused[j] = ruling
				continue
			}
			delete(refused, j)
			f.ruling(FlagProjectionFusion, ruling, f.nextItem(), orig, path, v, nil)
			name, val := plan.OutputName(v), plan.Unalias(v)
			for _, k := range uniqueInts(chk.Users(j)) {
				ne := inline(cur[k], name, val)
				cur[k] = ne
				chk.Replace(k, ne)
			}
			chk.Inlined(j)
			gone[j] = true
			pass++
			f.counters.FusedProjections++
		}
		total += pass
		if pass == 0 {
			break
		}
	}
	for j, v := range w.Exprs {
		if ruling, ok := refused[j]; ok {
			f.ruling(FlagProjectionFusion, ruling, f.nextItem(), orig, path, v, nil)
		}
	}
	if total == 0 {
		return w.Exprs, exprs, 0
	}
	var remaining []plan.Expr
	for j, v := range w.Exprs {
		if !gone[j] {
			remaining = append(remaining, v)
		}
	}
	return remaining, cur, total
}

// inline substitutes val for every reference to name in e, keeping e's
// output name.
func inline(e plan.Expr, name string, val plan.Expr) plan.Expr {
	out := substitute(e, map[string]plan.Expr{name: val})
	if want := plan.OutputName(e); plan.OutputName(out) != want {
		out = &plan.Alias{Expr: out, Name: want}
	}
	return out
}

func uniqueInts(ks []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, k := range ks {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
