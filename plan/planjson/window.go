package planjson

import "github.com/dfopt/dfopt/plan"

// foldWindow undoes what plan.Resolve does when a project or with_columns
// uses over(): Resolve moves each over() into a window node below the parent
// as a temporary column "__over_N" and makes the parent read that column.
// The format has no source syntax for that (a window is written where it is
// used), so Encode substitutes each over() back into the parent's
// expressions.
//
// The fold is done only when it is exact, i.e. when resolving the folded
// parent synthesizes the same window again: every window entry is an aliased
// over(), the parent has no over() of its own, and the parent reads each
// temporary exactly once, in the window's order (Resolve extracts over()s in
// evaluation order, and the window evaluates them in that order, which
// decides which error is raised first), and the temporaries have the names
// Resolve would give them again (the first "__over_N" the window's input
// does not already have, in order: after the optimizer pruned an input
// column named "__over_0", resolving the folded parent would name its
// first temporary "__over_0", not the "__over_1" the plan holds).
// Otherwise (say the optimizer pruned a parent expression, leaving a window
// column unread but still evaluated) ok is false and the window is written
// as an explicit "window" node.
func foldWindow(exprs []plan.Expr, w *plan.WindowNode) (folded []plan.Expr, ok bool) {
	if w.Input == nil || !w.Input.Resolved() {
		return nil, false
	}
	names := plan.WindowNames(w.Input.Schema(), len(w.Exprs))
	index := make(map[string]int, len(w.Exprs))
	overs := make([]plan.Expr, len(w.Exprs))
	for i, we := range w.Exprs {
		a, isAlias := we.(*plan.Alias)
		if !isAlias {
			return nil, false
		}
		o, isOver := a.Expr.(*plan.Over)
		if !isOver {
			return nil, false
		}
		if _, dup := index[a.Name]; dup || a.Name != names[i] {
			return nil, false
		}
		index[a.Name] = i
		overs[i] = o
	}
	next := 0
	exact := true
	for _, e := range exprs {
		if e == nil || plan.ContainsOver(e) {
			return nil, false
		}
		plan.Walk(e, func(x plan.Expr) bool {
			if c, isCol := x.(*plan.Column); isCol {
				if i, isTemp := index[c.Name]; isTemp {
					exact = exact && i == next
					next++
				}
			}
			return exact
		})
		if !exact {
			return nil, false
		}
	}
	if next != len(overs) {
		return nil, false
	}
	var subst func(plan.Expr) plan.Expr
	subst = func(x plan.Expr) plan.Expr {
		if c, isCol := x.(*plan.Column); isCol {
			if i, isTemp := index[c.Name]; isTemp {
				return overs[i]
			}
			return x
		}
		args := x.Children()
		if len(args) == 0 {
			return x
		}
		out := make([]plan.Expr, len(args))
		for i, a := range args {
			out[i] = subst(a)
		}
		return x.WithChildren(out)
	}
	folded = make([]plan.Expr, len(exprs))
	for i, e := range exprs {
		f := subst(e)
		if a, isAlias := e.(*plan.Alias); isAlias {
			// Resolve adds "__over_0 as a" to keep the name the user's
			// expression had; once folded, the name comes back by itself and
			// the alias is dropped (so folding a freshly resolved plan gives
			// back the plan as written).
			inner := f.(*plan.Alias).Expr
			if plan.OutputName(a.Expr) != a.Name && plan.OutputName(inner) == a.Name {
				f = inner
			}
		} else if name := plan.OutputName(e); plan.OutputName(f) != name {
			f = &plan.Alias{Expr: f, Name: name}
		}
		folded[i] = f
	}
	return folded, true
}
