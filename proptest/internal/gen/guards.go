package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The error-guard templates (standard tier): the shapes error_guards
// rewrites (its eg.* cells) and the guard node's barriers (pp.guard,
// lp.guard, pr.guard), over the generator's adversarial integers, so that
// the guarded expressions overflow or divide by zero on rows the filter
// removes and on rows it keeps.
//
//	filter(k < 3, ...) . with_columns(a * 3 + 1 as x, a / b as y) . T
//	filter(a / b > 0) . filter(k < 3) . with_columns(a * 2 as x) . T
//	filter(k < 3) . guard [a * 2 + 1] . T      limit 1 . guard [...] . T
//	filter(a / b > 0, k < 3) . [filter(j > 1) .] scan   (eg.split, eg.scan)
//
// The with_columns under the filter holds cheap partial expressions (a checked
// chain of one column with literals, a div or mod of columns and
// literals), sometimes one with no cheap condition (a strict parse, abs:
// eg.cost refuses), a non-deterministic one (eg.deterministic refuses) or
// a conjunct reading the computed column (eg.columns refuses). A second,
// partial filter over the first (filter fusion keeps them apart) moves
// below the same node reusing the first one's guard (eg.covered).

// guardShape takes a share of the filter and with_columns moves for the
// guard templates; ok is false when move m stays the generator's own. It
// draws from the random source only for those moves.
func (g *gen) guardShape(m move, depth int) (frame, bool) {
	if g.nodesLeft <= 0 || depth < 3 {
		return frame{}, false
	}
	share := 0
	switch m {
	case mFilter:
		share = 15
	case mWithColumns:
		share = 90
	}
	if share > 0 && g.r.Intn(100) < share {
		barrier := 20
		if m == mFilter {
			barrier = 35
		}
		if g.r.Intn(100) < barrier {
			if m == mFilter && g.r.Intn(100) < 70 {
				return g.guardScan(), true
			}
			return g.guardBarrier(depth), true
		}
		return g.guardChain(depth), true
	}
	return frame{}, false
}

// guardMultipliers and guardAddends make chains that overflow on the
// generator's extreme integers (and on some moderate ones) but not on
// small ones.
var (
	guardMultipliers = []int64{2, 3, -2, -1, 1 << 20, math.MaxInt32, 1 << 40}
	guardAddends     = []int64{1, -1, 7, math.MaxInt64, math.MinInt64, math.MaxInt32}
)

// intCols returns the scope's int64 and int32 columns.
func intCols(sc *scope) []plan.Field {
	var out []plan.Field
	for _, f := range sc.fields {
		if f.Type == plan.Int64 || f.Type == plan.Int32 {
			out = append(out, f)
		}
	}
	return out
}

// guardChainExpr is a checked chain of one integer column with literals.
func (g *gen) guardChainExpr(c plan.Field) plan.Expr {
	var e plan.Expr = col(c.Name)
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		switch g.r.Intn(5) {
		case 0, 1:
			e = call(plan.FuncMul, e, lit(plan.Int64Value(guardMultipliers[g.r.Intn(len(guardMultipliers))])))
		case 2:
			e = call(plan.FuncAdd, e, lit(plan.Int64Value(guardAddends[g.r.Intn(len(guardAddends))])))
		case 3:
			e = call(plan.FuncSub, lit(plan.Int64Value(guardAddends[g.r.Intn(len(guardAddends))])), e)
		default:
			e = call(plan.FuncNeg, e)
		}
	}
	return e
}

// guardedEntry is one partial expression of the node under the filter:
// mostly cheap ones, sometimes one without a cheap condition or a
// non-deterministic one.
func (g *gen) guardedEntry(sc *scope, ints []plan.Field) plan.Expr {
	a := ints[g.r.Intn(len(ints))]
	b := ints[g.r.Intn(len(ints))]
	switch x := g.r.Intn(100); {
	case x < 45:
		return g.guardChainExpr(a)
	case x < 60:
		return call(plan.FuncDiv, col(a.Name), col(b.Name))
	case x < 68:
		return call(plan.FuncMod, col(a.Name), col(b.Name))
	case x < 74:
		return call(plan.FuncDiv, col(a.Name), lit(plan.Int64Value([]int64{0, -1, 3}[g.r.Intn(3)])))
	case x < 82:
		if s, ok := g.pickCol(sc, plan.String); ok {
			return &plan.Cast{Expr: col(s.Name), To: plan.Int64, Strict: true} // eg.cost refuses
		}
		return call(plan.FuncAbs, col(a.Name)) // eg.cost refuses
	case x < 88:
		return call(plan.FuncAbs, col(a.Name)) // eg.cost refuses
	case x < 94:
		return udfCall(udfNdSeq, &plan.Cast{Expr: g.guardChainExpr(a), To: plan.Int64}) // eg.deterministic refuses
	default:
		return call(plan.FuncAdd, col(a.Name), col(b.Name)) // two columns: eg.cost refuses
	}
}

// guardConjunct is a conjunct over the passthrough columns (so that the
// filter removes some rows), sometimes over the computed column x
// (eg.columns refuses) or partial.
func (g *gen) guardConjunct(sc *scope, ints []plan.Field, x string) plan.Expr {
	a := ints[g.r.Intn(len(ints))]
	switch r := g.r.Intn(100); {
	case r < 10 && x != "":
		return call(plan.FuncIsNotNull, col(x))
	case r < 20:
		b := ints[g.r.Intn(len(ints))]
		return call(plan.FuncGt, call(plan.FuncDiv, col(a.Name), col(b.Name)), lit(plan.Int64Value(0)))
	case r < 30:
		return g.predicate(ectx{sc: sc, mode: anyMode}, anyMode)
	default:
		return g.guardCmp(a)
	}
}

// guardCmp is a total comparison of column a with a literal: a conjunct
// the generator's pushdown tables take.
func (g *gen) guardCmp(a plan.Field) plan.Expr {
	v := []int64{0, 1, 3, -1, 100}[g.r.Intn(5)]
	fn := cmpFuncs[g.r.Intn(len(cmpFuncs))]
	var l plan.Expr = lit(plan.Int64Value(v))
	if a.Type == plan.Int32 {
		l = lit(plan.Int32Value(int32(v)))
	}
	return call(fn, col(a.Name), l)
}

// guardScan builds a filter holding a partial conjunct (a / b > 0, a % b
// >= 0 or a checked chain compared) and a total comparison directly over a
// scan of a table that takes pushed comparisons, sometimes over a
// filter(j op w) the scan takes first (two times in three, over a table
// taking comparisons Exact when there is one). eg.split then leaves the total
// comparison on a guard of the partial one over the scan, which eg.scan
// moves into the scan (allowed: the comparison is pushed after the guard)
// or, when the scan already holds j op w, keeps above it (refused: its
// mutant makes the guard meet the rows j op w removes, where b may be 0).
func (g *gen) guardScan() frame {
	inner := g.r.Intn(3) != 0
	var in frame
	if inner {
		// A table taking the inner comparison Exact, when there is one:
		// the scan then holds it, and eg.scan refuses.
		in = g.exactScan()
	} else {
		in = g.pushdownScan()
	}
	sc := newScope(in.schema())
	ints := intCols(sc)
	if len(ints) == 0 {
		return g.filter(in)
	}
	pick := func() plan.Field { return ints[g.r.Intn(len(ints))] }
	if inner {
		in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{g.guardCmp(pick())}}, in.rows, in)
	}
	a, b := pick(), pick()
	var partial plan.Expr
	switch g.r.Intn(3) {
	case 0:
		partial = call(plan.FuncGt, call(plan.FuncDiv, col(a.Name), col(b.Name)), lit(plan.Int64Value(0)))
	case 1:
		partial = call(plan.FuncGe, call(plan.FuncMod, col(a.Name), col(b.Name)), lit(plan.Int64Value(0)))
	default:
		partial = call(plan.FuncGt, g.guardChainExpr(a), lit(plan.Int64Value(0)))
	}
	preds := []plan.Expr{partial, g.guardCmp(pick())}
	if g.r.Intn(2) == 0 {
		preds[0], preds[1] = preds[1], preds[0]
	}
	return g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
}

// guardChain builds a filter (or two) over a with_columns holding partial
// expressions, within depth levels.
func (g *gen) guardChain(depth int) frame {
	twoFilters := depth >= 4 && g.r.Intn(2) == 0
	below := depth - 2
	if twoFilters {
		below--
	}
	in := g.node(below)
	sc := newScope(in.schema())
	ints := intCols(sc)
	if len(ints) == 0 {
		return g.filter(g.withColumns(in, false))
	}
	used := map[string]bool{}
	var exprs []plan.Expr
	first := ""
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		name := g.freshName(used, sc)
		used[name] = true
		if first == "" {
			first = name
		}
		exprs = append(exprs, alias(g.guardedEntry(sc, ints), name))
	}
	switch g.r.Intn(6) {
	case 0:
		// A total entry alongside.
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(call(plan.FuncIsNull, col(ints[0].Name)), name))
	case 1, 2:
		// A non-deterministic entry declared total (nd_tick): no guard
		// needs it, but below the filter its counter would advance on the
		// surviving rows only (eg.deterministic refuses; its mutant shows).
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(udfCall(udfNdTick, &plan.Cast{Expr: col(ints[0].Name), To: plan.Int64}), name))
	}
	mid := g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	msc := newScope(mid.schema())
	mints := intCols(msc)
	if len(mints) == 0 {
		return g.filter(mid)
	}
	var preds []plan.Expr
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		preds = append(preds, g.guardConjunct(sc, ints, first))
	}
	out := g.finish(&plan.FilterNode{Input: mid.raw, Predicates: preds}, mid.rows, mid)
	if twoFilters {
		a := ints[g.r.Intn(len(ints))]
		b := ints[g.r.Intn(len(ints))]
		partial := call(plan.FuncGe, call(plan.FuncMod, col(a.Name), col(b.Name)), lit(plan.Int64Value(0)))
		out = g.finish(&plan.FilterNode{Input: out.raw, Predicates: []plan.Expr{partial}}, out.rows, out)
	}
	return out
}

// guardBarrier puts a guard node in the input plan under a filter
// (pp.guard), a limit (lp.guard) or a project reading part of its columns
// (pr.guard).
func (g *gen) guardBarrier(depth int) frame {
	in := g.node(depth - 2)
	sc := newScope(in.schema())
	ints := intCols(sc)
	if len(ints) == 0 {
		return g.filter(in)
	}
	exprs := []plan.Expr{g.guardChainExpr(ints[g.r.Intn(len(ints))])}
	if g.r.Intn(3) == 0 {
		exprs = append(exprs, call(plan.FuncDiv, col(ints[0].Name), col(ints[len(ints)-1].Name)))
	}
	guard := g.finish(&plan.GuardNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	switch g.r.Intn(3) {
	case 0:
		return g.limit(guard)
	case 1:
		f := sc.fields[g.r.Intn(len(sc.fields))]
		return g.finish(&plan.ProjectNode{Input: guard.raw, Exprs: []plan.Expr{col(f.Name)}}, guard.rows, guard)
	}
	return g.finish(&plan.FilterNode{Input: guard.raw, Predicates: []plan.Expr{g.guardConjunct(sc, ints, "")}}, guard.rows, guard)
}

// exactScan reads a random table that takes pushed comparisons Exact, or
// any pushdown table when none does.
func (g *gen) exactScan() frame {
	var with []*plan.Table
	for _, t := range g.tables {
		if t.Pushdown() == plan.Exact {
			with = append(with, t)
		}
	}
	if len(with) == 0 {
		return g.pushdownScan()
	}
	return g.scanOf(with[g.r.Intn(len(with))])
}
