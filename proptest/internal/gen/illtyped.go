package gen

import (
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// The ways a plan is made ill-typed (Result.Corruption). Each makes
// plan.Resolve fail, so the three ways of the oracle must report the same
// resolution error.
const (
	CorruptUnknownColumn    = "unknown_column"    // a reference to a column the input lacks
	CorruptTypeError        = "type_error"        // an operator applied to the wrong types
	CorruptAggregateOutside = "aggregate_outside" // an aggregate in a row context
	CorruptDuplicateName    = "duplicate_name"    // two outputs of one node share a name
	CorruptWindowOutside    = "window_outside"    // over() outside project and with_columns
)

// Corruptions lists every corruption, for coverage reports.
func Corruptions() []string {
	return []string{CorruptUnknownColumn, CorruptTypeError, CorruptAggregateOutside, CorruptDuplicateName, CorruptWindowOutside}
}

// corrupt makes the plan ill-typed by breaking one node (or a node added on
// top of the root). It returns the plan unchanged and well-typed only if no
// attempt yields a plan that fails to resolve.
func (g *gen) corrupt(root plan.Node) (plan.Node, bool, string) {
	r := newResolver()
	all := nodes(root)
	kinds := Corruptions()
	for tries := 0; tries < 8; tries++ {
		kind := kinds[g.r.Intn(len(kinds))]
		p := g.corruptOnce(root, all, r, kind)
		if p == nil {
			continue
		}
		if _, err := plan.Resolve(p); err == nil {
			continue
		}
		return p, true, kind
	}
	return root, false, ""
}

// corruptOnce applies one corruption of the given kind to a random node
// that admits it, or to a new node over the root.
func (g *gen) corruptOnce(root plan.Node, all []plan.Node, r *planutil.Resolver, kind string) plan.Node {
	var targets []plan.Node
	for _, n := range all {
		if _, ok := r.InputSchema(n, 0); ok && admits(n, kind) {
			targets = append(targets, n)
		}
	}
	if len(targets) == 0 || g.r.Intn(5) == 0 {
		// Break a new node on top of the root.
		res, err := r.Resolve(root)
		if err != nil {
			return nil
		}
		sc := newScope(res.Schema())
		var top plan.Node
		switch kind {
		case CorruptDuplicateName:
			if len(sc.fields) == 0 {
				return nil
			}
			name := sc.fields[0].Name
			top = &plan.ProjectNode{Input: root, Exprs: []plan.Expr{col(name), alias(lit(g.literal(plan.Int64)), name)}}
		default:
			top = &plan.FilterNode{Input: root, Predicates: []plan.Expr{lit(plan.BoolValue(true))}}
			return g.breakNode(top, sc, kind)
		}
		return top
	}
	n := targets[g.r.Intn(len(targets))]
	in, _ := r.InputSchema(n, 0)
	broken := g.breakNode(n, newScope(in), kind)
	if broken == nil {
		return nil
	}
	return replaceNode(root, n, broken)
}

// admits reports whether a corruption of the given kind applies to n.
func admits(n plan.Node, kind string) bool {
	switch n.(type) {
	case *plan.FilterNode, *plan.SortNode, *plan.JoinNode:
		return kind != CorruptDuplicateName
	case *plan.ProjectNode, *plan.WithColumnsNode:
		return kind != CorruptWindowOutside
	case *plan.AggregateNode:
		return true
	case *plan.DistinctNode:
		return kind == CorruptUnknownColumn || kind == CorruptDuplicateName
	}
	return false
}

// breakNode returns n with one entry broken by the corruption, or nil.
func (g *gen) breakNode(n plan.Node, sc *scope, kind string) plan.Node {
	if d, ok := n.(*plan.DistinctNode); ok {
		subset := append([]string(nil), d.Subset...)
		switch {
		case kind == CorruptUnknownColumn:
			subset = append(subset, "zz")
		case len(sc.fields) > 0:
			subset = append(subset, sc.fields[0].Name, sc.fields[0].Name)
		default:
			return nil
		}
		return &plan.DistinctNode{Input: d.Input, Subset: subset}
	}
	lists := exprLists(n)
	li := 0
	if len(lists) == 2 && (len(lists[0]) == 0 || g.r.Intn(2) == 0) {
		li = 1
	}
	if li >= len(lists) {
		return nil
	}
	list := lists[li]
	if len(list) == 0 {
		if kind == CorruptDuplicateName {
			return nil
		}
		return withAppended(n, li, g.badExpr(n, li, sc, kind, nil))
	}
	i := g.r.Intn(len(list))
	if kind == CorruptDuplicateName {
		name := plan.OutputName(list[i])
		if _, ok := n.(*plan.AggregateNode); ok && len(lists[0]) > 0 {
			// An aggregate named like a key.
			name = plan.OutputName(lists[0][g.r.Intn(len(lists[0]))])
			return withAppended(n, 1, alias(call(plan.FuncLen), name))
		}
		return withAppended(n, li, alias(lit(g.literal(g.anyType())), name))
	}
	bad := g.badExpr(n, li, sc, kind, list[i])
	if bad == nil {
		return nil
	}
	return withEntry(n, li, i, bad)
}

// badExpr builds the broken entry replacing old (nil when appending) in
// list li of n.
func (g *gen) badExpr(n plan.Node, li int, sc *scope, kind string, old plan.Expr) plan.Expr {
	keepName := func(e plan.Expr) plan.Expr {
		switch n.(type) {
		case *plan.ProjectNode, *plan.WithColumnsNode, *plan.AggregateNode:
			if old != nil {
				return named(e, plan.OutputName(old))
			}
			return alias(e, "zz_out")
		}
		return e
	}
	someCol := func() plan.Expr {
		if f, ok := g.anyCol(sc); ok {
			return col(f.Name)
		}
		return lit(plan.Int64Value(1))
	}
	switch kind {
	case CorruptUnknownColumn:
		if old != nil {
			var cols []planutil.Sub
			for _, s := range subterms(old) {
				if _, ok := s.Expr.(*plan.Column); ok {
					cols = append(cols, s)
				}
			}
			if len(cols) > 0 {
				s := cols[g.r.Intn(len(cols))]
				return replaceAt(old, s.Path, col("zz"))
			}
		}
		return keepName(call(plan.FuncGt, col("zz"), lit(plan.Int64Value(0))))
	case CorruptTypeError:
		if _, ok := n.(*plan.JoinNode); ok && g.r.Intn(2) == 0 {
			// A bool key: incomparable with the other side's key unless that
			// is bool too (then Resolve passes and corrupt tries again).
			return lit(plan.BoolValue(true))
		}
		if _, ok := n.(*plan.AggregateNode); ok && li == 1 {
			if g.r.Intn(2) == 0 {
				// A literal parameter out of range, of the wrong type or
				// not a literal at all.
				bad := []plan.Expr{
					call(plan.FuncQuantile, someCol(), lit(plan.Float64Value(1.5))),
					call(plan.FuncQuantile, someCol(), someCol()),
					call(plan.FuncQuantile, someCol(), lit(plan.StringValue("0.5"))),
					call(plan.FuncVar, someCol(), lit(plan.Int64Value(-1))),
					call(plan.FuncStd, someCol(), lit(plan.Float64Value(1))),
					call(plan.FuncQuantile, someCol(), lit(plan.NullValue(plan.Float64))),
				}
				return keepName(bad[g.r.Intn(len(bad))])
			}
			return keepName(call(plan.FuncSum, lit(plan.StringValue("x"))))
		}
		if _, ok := n.(*plan.FilterNode); ok && g.r.Intn(4) == 0 {
			// A predicate that is not bool.
			return lit(plan.Int64Value(1))
		}
		return keepName(g.typeError(sc))
	case CorruptAggregateOutside:
		agg := []plan.Expr{call(plan.FuncSum, someCol()), call(plan.FuncCount, someCol()), call(plan.FuncLen)}[g.r.Intn(3)]
		if _, ok := n.(*plan.AggregateNode); ok && li == 1 {
			// An aggregate entry that is not a single aggregate call.
			return keepName(call(plan.FuncAdd, agg, lit(plan.Int64Value(1))))
		}
		if _, ok := n.(*plan.FilterNode); ok {
			return call(plan.FuncGt, agg, lit(plan.Int64Value(0)))
		}
		return keepName(agg)
	case CorruptWindowOutside:
		w := &plan.Over{Agg: call(plan.FuncCount, someCol()), PartitionBy: []plan.Expr{someCol()}}
		if _, ok := n.(*plan.FilterNode); ok {
			return call(plan.FuncGt, w, lit(plan.Int64Value(0)))
		}
		return keepName(w)
	}
	return nil
}

// typeError builds an expression that does not type-check, reading a
// column where it can.
func (g *gen) typeError(sc *scope) plan.Expr {
	colOr := func(t plan.Type, v plan.Value) plan.Expr {
		if f, ok := g.pickCol(sc, t); ok {
			return col(f.Name)
		}
		return lit(v)
	}
	str := colOr(plan.String, plan.StringValue("x"))
	num := colOr(plan.Int64, plan.Int64Value(1))
	switch g.r.Intn(8) {
	case 0:
		return call(plan.FuncAdd, str, lit(plan.Int64Value(1)))
	case 1:
		return call(plan.FuncNot, num)
	case 2:
		return call(plan.FuncConcat, str, num)
	case 3:
		return call(plan.FuncIsNaN, str)
	case 4:
		return udfCall(udfIncWrap, str)
	case 5:
		return call(plan.FuncIf, num, num, num)
	case 6:
		return call(plan.FuncStrLen, num)
	}
	return call(plan.FuncAnd, lit(plan.BoolValue(true)), num)
}
