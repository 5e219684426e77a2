package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The limit templates of the standard tier: the shapes limit_pushdown
// rewrites (its lp.* cells), with the refusals close by.
//
//	limit 2 . with_columns(a > 1 as c, a / b as x) . project(...) . scan t
//	slice(1, 2) . union(sort(k) . scan t, project(...) . scan t)
//	limit 0 . filter(a / b > 1) . scan t (exact_all)
//
// A limit or slice (of the generator's sizes, 0 included) sits over a run
// of projections that are total (the limit moves below them: lp.project,
// lp.with_columns allow), partial, non-deterministic (lp.deterministic
// refuses; a non-deterministic value read again above makes its mutant
// visible) or owning a window (lp.window), over a sort whose keys tie a
// lot (top-k: lp.sort; ties test stability), a union (lp.union), a scan
// (lp.scan: a filter below over a table taking conjuncts Exact leaves them
// in the scan, partial ones too, which refuses the hint) or a node that
// stops it (lp.filter, lp.aggregate, lp.join, lp.distinct, lp.extension,
// lp.limit).

// limitShape takes a share of the limit, slice and sort moves for the
// limit templates and builds one; ok is false when move m stays the
// generator's own. It draws from the random source only for those moves,
// so every other move generates what it did before the templates existed.
func (g *gen) limitShape(m move, depth int) (frame, bool) {
	if g.nodesLeft <= 0 || depth < 1 {
		return frame{}, false
	}
	switch m {
	case mLimit, mSlice:
		if g.r.Intn(100) < 60 {
			return g.limitChain(m, depth), true
		}
	case mSort:
		if g.r.Intn(100) < 25 {
			return g.limitChain(mLimit, depth), true
		}
	}
	return frame{}, false
}

// limitChain builds a limit (or, for mSlice, a slice) over one of the
// shapes above, and sometimes reads a non-deterministic value over it, so
// that a limit wrongly moved below a non-deterministic projection changes
// the values read after it, or filters it. The whole stays within depth
// levels.
func (g *gen) limitChain(m move, depth int) frame {
	wrap := g.r.Intn(100)
	d := depth - 1 // the levels below the limit
	if wrap < 35 {
		d-- // one level for the reader or filter above
	}
	if d < 0 {
		wrap, d = 100, depth-1
	}
	var in frame
	switch x := g.r.Intn(100); {
	case x < 35:
		in = g.limitProjections(d)
	case x < 55:
		in = g.limitSorted(d)
	case x < 70:
		in = g.limitUnion(d)
	case x < 85:
		in = g.exactFilter(d)
	default:
		// A node the limit stops at (its barrier cell refuses; the
		// mutant moves the limit below it).
		in = g.nodeOf(limitBarriers[g.r.Intn(len(limitBarriers))], d)
	}
	var out frame
	if m == mSlice {
		out = g.slice(in)
	} else {
		out = g.limit(in)
	}
	switch {
	case wrap < 15:
		out = g.ndReader(out)
	case wrap < 35:
		// A filter over the limit (Polars #26803, #26824): it must stay
		// above, also once the limit is folded into a sort (pp.limit).
		out = g.limitFilter(out)
	}
	return out
}

// limitFilter filters in by a comparison of a column with a literal, which
// keeps some rows and drops others (so a filter wrongly moved below the
// limit changes which rows remain), or by the generator's usual conjuncts.
func (g *gen) limitFilter(in frame) frame {
	if p := g.colLitComparison(g.ctx(in, extTotal)); p != nil && g.r.Intn(3) > 0 {
		return g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{p}}, in.rows, in)
	}
	return g.filter(in)
}

// limitBarriers are the moves of the nodes a limit stops at (and the as-of
// join, twice, which it enters only over a left input sorted on the key:
// lp.asof_join allows and refuses).
var limitBarriers = []move{mFilter, mAggregate, mJoin, mDistinct, mExtension, mExtension, mLimit, mSlice, mWindow, mOrder, mOrder, mAsof, mAsof, mTemporal, mReshape, mReshape, mReshape}

// limitBase is what a limit template reads, within depth levels: a scan
// most of the time.
func (g *gen) limitBase(depth int) frame {
	if depth <= 0 || g.r.Intn(100) < 65 {
		return g.scan()
	}
	return g.node(depth)
}

// limitProjections builds one to three projections over a base, within
// depth levels.
func (g *gen) limitProjections(depth int) frame {
	if depth <= 0 {
		return g.scan()
	}
	k := 1 + g.r.Intn(min(3, depth))
	in := g.limitBase(depth - k)
	for i := 0; i < k; i++ {
		in = g.limitProjection(in)
	}
	return in
}

// limitSorted builds a sort whose keys tie a lot (tiedSort), sometimes
// under a projection, within depth levels.
func (g *gen) limitSorted(depth int) frame {
	if depth <= 0 {
		return g.scan()
	}
	project := depth >= 2 && g.r.Intn(3) == 0
	below := depth - 1
	if project {
		below--
	}
	in := g.tiedSort(g.limitBase(below))
	if project {
		in = g.limitProjection(in)
	}
	return in
}

// limitProjection puts one project or with_columns over in whose entries
// are total half of the time, else hold one partial, non-deterministic or
// window entry.
func (g *gen) limitProjection(in frame) frame {
	c := g.ctx(in, extTotal)
	c.over = false
	sc := c.sc
	used := map[string]bool{}
	var exprs []plan.Expr
	project := g.r.Intn(2) == 0
	if project {
		// Keep a few input columns by identity.
		for _, f := range sc.fields {
			if g.r.Intn(2) == 0 && !used[f.Name] {
				used[f.Name] = true
				exprs = append(exprs, col(f.Name))
			}
		}
	}
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		t := g.colType(sc)
		name := g.entryName(used, sc, !project && g.r.Intn(100) < 30)
		exprs = append(exprs, named(g.expr(c, t, g.exprDepth()), name))
	}
	// The odd one out: what keeps the limit above the node.
	switch x := g.r.Intn(100); {
	case x < 20:
		if e := g.partialExpr(c, plan.Int64); e != nil {
			exprs = append(exprs, named(e, g.entryName(used, sc, false)))
		}
	case x < 32:
		f, ok := g.pickCol(sc, plan.Int64)
		if ok {
			u := udfNdTick // declared total: only lp.deterministic stops it
			if g.r.Intn(3) == 0 {
				u = udfNdSeq
			}
			exprs = append(exprs, named(udfCall(u, col(f.Name)), g.entryName(used, sc, false)))
		}
	case x < 40:
		wc := c.with(anyMode)
		wc.over = true
		e, _ := g.windowEntry(wc)
		exprs = append(exprs, alias(e, g.entryName(used, sc, false)))
	}
	if len(exprs) == 0 {
		f, _ := g.anyCol(sc)
		exprs = append(exprs, col(f.Name))
	}
	if project {
		return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	}
	return g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// tiedSort sorts in by one or two plain columns, which in generated data
// hold many equal values: a top-k sort must keep tied rows in input order,
// and its keys may still raise (a partial key sometimes).
func (g *gen) tiedSort(in frame) frame {
	c := g.ctx(in, anyMode)
	var keys []plan.SortKey
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		f, ok := g.anyCol(c.sc)
		if !ok {
			break
		}
		var e plan.Expr = col(f.Name)
		if g.r.Intn(100) < 15 {
			if p := g.partialExpr(c, plan.Int64); p != nil {
				e = p
			}
		}
		keys = append(keys, plan.SortKey{Expr: e, Desc: g.r.Intn(2) == 0, NullsLast: g.r.Intn(3) == 0})
	}
	if len(keys) == 0 {
		return in
	}
	return g.finish(&plan.SortNode{Input: in.raw, Keys: keys}, in.rows, in)
}

// limitUnion builds a union of two or three variants of one subplan, each
// sometimes sorted, projected or filtered, so that the limit copied into
// the inputs meets sorts, projections and barriers; within depth levels.
func (g *gen) limitUnion(depth int) frame {
	if depth <= 0 {
		return g.scan()
	}
	levels := min(2, depth-1) // for a variant
	s := g.limitBase(depth - 1 - levels)
	n := 2 + g.r.Intn(2)
	inputs := make([]frame, n)
	for i := range inputs {
		in := s
		switch x := g.r.Intn(4); {
		case levels >= 1 && x == 0:
			in = g.tiedSort(in)
		case levels >= 2 && x == 1:
			in = g.projectTo(s.schema(), g.limitProjection(in))
		case levels >= 1 && x == 2:
			in = g.filter(in)
		}
		inputs[i] = in
	}
	return g.unionOf(inputs)
}

// exactFilter builds a filter of one or two conjuncts, partial ones often,
// over a table that takes conjuncts Exact when there is one: predicate
// pushdown then leaves them in the scan, and a limit above meets the scan
// with its pushed list (lp.scan allows over total conjuncts, refuses over
// partial ones); within depth levels.
func (g *gen) exactFilter(depth int) frame {
	if depth <= 0 {
		return g.scan()
	}
	in := g.pushdownScan()
	if g.r.Intn(100) < 20 && depth > 1 {
		in = g.node(depth - 1)
	}
	c := g.ctx(in, anyMode)
	preds := make([]plan.Expr, 1+g.r.Intn(2))
	for i := range preds {
		m := extTotal
		switch x := g.r.Intn(100); {
		case x < 30:
			// A comparison of an expression that raises on typical data.
			if e := g.partialExpr(c, plan.Int64); e != nil {
				preds[i] = call(plan.FuncGt, e, lit(plan.Int64Value(0)))
				continue
			}
		case x < 60:
			m = anyMode
		}
		preds[i] = g.predicate(c, m)
	}
	return g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
}

// ndReader reads a non-deterministic value over in: with_columns of
// nd_tick of an int64 column (or, without one, of a literal), evaluated
// after everything below, so it sees the call counter as left by them.
func (g *gen) ndReader(in frame) frame {
	c := g.ctx(in, extTotal)
	var arg plan.Expr = lit(plan.Int64Value(0))
	if f, ok := g.pickCol(c.sc, plan.Int64); ok {
		arg = col(f.Name)
	}
	name := g.freshName(map[string]bool{}, c.sc)
	return g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{named(udfCall(udfNdTick, arg), name)}}, in.rows, in)
}
