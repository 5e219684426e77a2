package planutil

import (
	"github.com/dfopt/dfopt/plan"
)

// The helpers below read and replace the expression lists of a plan node
// without knowing its kind at the call site. A node's lists are numbered:
// filter [predicates]; project and with_columns [exprs]; sort [key
// expressions]; aggregate [keys, aggs]; join [left_on, right_on] (a join key
// pair is dropped from both lists at once). Every helper returns a fresh,
// unresolved node over the same children.

// ExprLists returns the node's expression lists.
func ExprLists(n plan.Node) [][]plan.Expr {
	switch n := n.(type) {
	case *plan.FilterNode:
		return [][]plan.Expr{n.Predicates}
	case *plan.ProjectNode:
		return [][]plan.Expr{n.Exprs}
	case *plan.WithColumnsNode:
		return [][]plan.Expr{n.Exprs}
	case *plan.SortNode:
		keys := make([]plan.Expr, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = k.Expr
		}
		return [][]plan.Expr{keys}
	case *plan.AggregateNode:
		return [][]plan.Expr{n.Keys, n.Aggs}
	case *plan.JoinNode:
		return [][]plan.Expr{n.LeftOn, n.RightOn}
	}
	return nil
}

// replaced returns a copy of list with element i set to e.
func replaced(list []plan.Expr, i int, e plan.Expr) []plan.Expr {
	out := append([]plan.Expr(nil), list...)
	out[i] = e
	return out
}

// Dropped returns a copy of list without element i.
func Dropped[T any](list []T, i int) []T {
	out := make([]T, 0, len(list)-1)
	out = append(out, list[:i]...)
	return append(out, list[i+1:]...)
}

// WithEntry returns n with entry i of list li replaced by e.
func WithEntry(n plan.Node, li, i int, e plan.Expr) plan.Node {
	switch n := n.(type) {
	case *plan.FilterNode:
		return &plan.FilterNode{Input: n.Input, Predicates: replaced(n.Predicates, i, e)}
	case *plan.ProjectNode:
		return &plan.ProjectNode{Input: n.Input, Exprs: replaced(n.Exprs, i, e)}
	case *plan.WithColumnsNode:
		return &plan.WithColumnsNode{Input: n.Input, Exprs: replaced(n.Exprs, i, e)}
	case *plan.SortNode:
		keys := append([]plan.SortKey(nil), n.Keys...)
		keys[i].Expr = e
		return &plan.SortNode{Input: n.Input, Keys: keys}
	case *plan.AggregateNode:
		if li == 0 {
			return &plan.AggregateNode{Input: n.Input, Keys: replaced(n.Keys, i, e), Aggs: n.Aggs}
		}
		return &plan.AggregateNode{Input: n.Input, Keys: n.Keys, Aggs: replaced(n.Aggs, i, e)}
	case *plan.JoinNode:
		j2 := &plan.JoinNode{Left: n.Left, Right: n.Right, How: n.How, LeftOn: n.LeftOn, RightOn: n.RightOn, Suffix: n.Suffix}
		if li == 0 {
			j2.LeftOn = replaced(n.LeftOn, i, e)
		} else {
			j2.RightOn = replaced(n.RightOn, i, e)
		}
		return j2
	}
	return n
}

// WithoutEntry returns n without entry i of list li (a join loses the key
// pair i).
func WithoutEntry(n plan.Node, li, i int) plan.Node {
	switch n := n.(type) {
	case *plan.FilterNode:
		return &plan.FilterNode{Input: n.Input, Predicates: Dropped(n.Predicates, i)}
	case *plan.ProjectNode:
		return &plan.ProjectNode{Input: n.Input, Exprs: Dropped(n.Exprs, i)}
	case *plan.WithColumnsNode:
		return &plan.WithColumnsNode{Input: n.Input, Exprs: Dropped(n.Exprs, i)}
	case *plan.SortNode:
		return &plan.SortNode{Input: n.Input, Keys: Dropped(n.Keys, i)}
	case *plan.AggregateNode:
		if li == 0 {
			return &plan.AggregateNode{Input: n.Input, Keys: Dropped(n.Keys, i), Aggs: n.Aggs}
		}
		return &plan.AggregateNode{Input: n.Input, Keys: n.Keys, Aggs: Dropped(n.Aggs, i)}
	case *plan.JoinNode:
		return &plan.JoinNode{Left: n.Left, Right: n.Right, How: n.How, LeftOn: Dropped(n.LeftOn, i),
			RightOn: Dropped(n.RightOn, i), Suffix: n.Suffix}
	}
	return n
}

// WithAppended returns n with e appended to list li.
func WithAppended(n plan.Node, li int, e plan.Expr) plan.Node {
	add := func(l []plan.Expr) []plan.Expr { return append(append([]plan.Expr(nil), l...), e) }
	switch n := n.(type) {
	case *plan.FilterNode:
		return &plan.FilterNode{Input: n.Input, Predicates: add(n.Predicates)}
	case *plan.ProjectNode:
		return &plan.ProjectNode{Input: n.Input, Exprs: add(n.Exprs)}
	case *plan.WithColumnsNode:
		return &plan.WithColumnsNode{Input: n.Input, Exprs: add(n.Exprs)}
	case *plan.SortNode:
		return &plan.SortNode{Input: n.Input, Keys: append(append([]plan.SortKey(nil), n.Keys...), plan.SortKey{Expr: e})}
	case *plan.AggregateNode:
		if li == 0 {
			return &plan.AggregateNode{Input: n.Input, Keys: add(n.Keys), Aggs: n.Aggs}
		}
		return &plan.AggregateNode{Input: n.Input, Keys: n.Keys, Aggs: add(n.Aggs)}
	}
	return n
}

// Sub is a subexpression of an entry, located by the child indexes leading
// to it.
type Sub struct {
	Path []int
	Expr plan.Expr
	Size int // expression nodes in the subexpression
}

// Subterms lists e and all its subexpressions, parents before children.
func Subterms(e plan.Expr) []Sub {
	var out []Sub
	var walk func(e plan.Expr, path []int) int
	walk = func(e plan.Expr, path []int) int {
		idx := len(out)
		out = append(out, Sub{Path: append([]int(nil), path...), Expr: e})
		size := 1
		for i, c := range e.Children() {
			size += walk(c, append(path, i))
		}
		out[idx].Size = size
		return size
	}
	if e != nil {
		walk(e, nil)
	}
	return out
}

// ReplaceAt returns e with the subexpression at path replaced by repl.
func ReplaceAt(e plan.Expr, path []int, repl plan.Expr) plan.Expr {
	if len(path) == 0 {
		return repl
	}
	ch := e.Children()
	if path[0] >= len(ch) {
		return e
	}
	args := append([]plan.Expr(nil), ch...)
	args[path[0]] = ReplaceAt(ch[path[0]], path[1:], repl)
	return e.WithChildren(args)
}

// ExprSize counts the expression nodes of e.
func ExprSize(e plan.Expr) int {
	if e == nil {
		return 0
	}
	n := 0
	plan.Walk(e, func(plan.Expr) bool { n++; return true })
	return n
}

// Nodes lists the distinct nodes of a plan (shared subtrees once), parents
// before children.
func Nodes(root plan.Node) []plan.Node {
	var out []plan.Node
	seen := map[plan.Node]bool{}
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// MapEntries returns n with every entry of every list passed through f
// (which returns its argument to keep an entry), or n itself when nothing
// changed.
func MapEntries(n plan.Node, f func(li int, e plan.Expr) plan.Expr) plan.Node {
	lists := ExprLists(n)
	out := n
	for li, list := range lists {
		for i, e := range list {
			if ne := f(li, e); ne != e {
				out = WithEntry(out, li, i, ne)
			}
		}
	}
	return out
}

// NamedList reports whether list li of n names output columns (project,
// with_columns, aggregate keys and aggregates), so that a rewritten entry
// must keep its output name.
func NamedList(n plan.Node) bool {
	switch n.(type) {
	case *plan.ProjectNode, *plan.WithColumnsNode, *plan.AggregateNode:
		return true
	}
	return false
}

// InputIndex is the child whose schema list li of n is typed against: the
// right input for a join's right keys, else the first.
func InputIndex(n plan.Node, li int) int {
	if _, ok := n.(*plan.JoinNode); ok && li == 1 {
		return 1
	}
	return 0
}

// TypeOfAny types e in a row context, or as an aggregate entry.
func TypeOfAny(e plan.Expr, in plan.Schema) (plan.Type, bool) {
	if f, err := plan.TypeOf(e, in); err == nil {
		return f.Type, true
	}
	if f, err := plan.AggTypeOf(e, in); err == nil {
		return f.Type, true
	}
	return plan.Invalid, false
}
