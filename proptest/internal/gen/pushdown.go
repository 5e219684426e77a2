package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The pushdown template: shapes predicate_pushdown rewrites, with the
// refusals kept close by (a conjunct reading a renamed or computed column,
// one partial expression in a node the others could cross).

// pushdownChain builds a filter over one to three nodes its conjuncts may
// cross — a projection keeping columns by identity, a with_columns adding
// columns, a sort on columns, passthrough_tag — over, most of the time, a
// scan of a table that accepts pushed comparisons:
//
//	filter(a > 1, q) . with_columns(p as q) . sort(b) . scan t (Exact)
//
// or else over a node that stops every conjunct (a limit, a join, ...),
// or anything. A built-in extension operator that lacks a property stops
// them too.
// Its conjuncts are shaped to move (pp.project, pp.with_columns, pp.sort,
// pp.extension.* and pp.scan allow): comparisons of a column with a
// non-null literal, and bool columns. Some read a column a node renames or
// computes and stay (the shadow cells refuse); the others then separate
// from them when the stayers are total, as a bool column is (pp.split).
// A node sometimes gets one partial expression or key, so that its
// crossing cell also refuses conjuncts that could otherwise move.
func (g *gen) pushdownChain(depth int) frame {
	k := 0
	if depth >= 2 {
		k = 1 + g.r.Intn(min(3, depth-1))
	}
	var in frame
	switch x := g.r.Intn(100); {
	case x < 35:
		in = g.pushdownScan()
	case x < 65:
		// A node no conjunct crosses: they stop there (pp.limit, pp.join,
		// ...), and that cell's mutant lets them through.
		in = g.nodeOf(barrierMoves[g.r.Intn(len(barrierMoves))], depth-1-k)
	default:
		in = g.node(depth - 1 - k)
	}
	sorted := false
	for i := 0; i < k; i++ {
		switch g.r.Intn(7) {
		case 0, 1:
			in = g.crossableProject(in)
		case 2, 3:
			in = g.crossableWithColumns(in)
		case 4, 5:
			in = g.crossableSort(in)
			sorted = true
		default:
			// Most often passthrough_tag, which declares every property, so
			// conjuncts cross it; the other operators each lack one
			// (pp.extension.* refuses, and a mutant of that cell moves
			// them).
			in = g.extension(in)
		}
	}
	// Over a sort, a non-deterministic conjunct must stay (pp.deterministic):
	// below, nd_seq would see the rows in another order.
	ndRate := 5
	if sorted {
		ndRate = 30
	}
	return g.movableFilter(in, g.r.Intn(100) < ndRate)
}

// barrierMoves build the nodes the default table stops every conjunct at.
var barrierMoves = []move{mLimit, mSlice, mAggregate, mJoin, mUnion, mDistinct, mExtension, mWindow}

// crossableProject projects in to most of its columns by identity, some
// renamed, plus sometimes a bounded-total computed column and, rarely, a
// partial one (pp.project refuses) or a rename onto another input name
// (pp.project.shadow refuses a conjunct reading it).
func (g *gen) crossableProject(in frame) frame {
	sc := newScope(in.schema())
	used := map[string]bool{}
	exprs := make([]plan.Expr, 0, len(sc.fields)+2)
	for _, f := range sc.fields {
		switch x := g.r.Intn(100); {
		case x < 72:
			if used[f.Name] {
				continue
			}
			used[f.Name] = true
			exprs = append(exprs, col(f.Name))
		case x < 87:
			name := g.freshName(used, sc)
			used[name] = true
			exprs = append(exprs, alias(col(f.Name), name))
		case x < 92:
			// col(b) as a: a conjunct reading a must stay.
			if name := g.shadowName(used, sc); name != "" && name != f.Name {
				used[name] = true
				exprs = append(exprs, alias(col(f.Name), name))
			}
		}
	}
	c := ectx{sc: sc, mode: boundedTotal}
	if g.r.Intn(2) == 0 {
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(g.expr(c, g.colType(sc), 2), name))
	}
	if g.r.Intn(100) < 10 {
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(g.partialOrAny(c, g.colType(sc)), name))
	}
	if len(exprs) == 0 {
		exprs = append(exprs, col(sc.fields[0].Name))
	}
	return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// crossableWithColumns adds one or two columns to in: a bool copy or a
// bool literal (a total stayer for pp.split), a bounded-total value, a
// same-name identity, a replaced input column (pp.with_columns.shadow
// refuses a conjunct reading it) or, rarely, a partial value
// (pp.with_columns refuses).
func (g *gen) crossableWithColumns(in frame) frame {
	sc := newScope(in.schema())
	c := ectx{sc: sc, mode: boundedTotal}
	used := map[string]bool{}
	n := 1 + g.r.Intn(2)
	exprs := make([]plan.Expr, 0, n)
	for i := 0; i < n; i++ {
		var e plan.Expr
		name := ""
		switch x := g.r.Intn(100); {
		case x < 30:
			if f, ok := g.pickCol(sc, plan.Bool); ok {
				e = col(f.Name)
			} else {
				e = lit(g.literal(plan.Bool))
			}
		case x < 58:
			e = g.expr(c, g.colType(sc), 2)
		case x < 71:
			if name = g.shadowName(used, sc); name != "" {
				e = col(name) // same-name identity: crosses
			}
		case x < 90:
			if name = g.shadowName(used, sc); name != "" {
				f, _ := sc.lookup(name)
				e = lit(g.literal(f.Type))
				if o, ok := g.pickCol(sc, f.Type); ok && o.Name != name && g.r.Intn(2) == 0 {
					e = col(o.Name)
				}
			}
		default:
			e = g.partialOrAny(c, g.colType(sc))
		}
		if e == nil {
			continue
		}
		if name == "" {
			name = g.freshName(used, sc)
		}
		used[name] = true
		exprs = append(exprs, named(e, name))
	}
	if len(exprs) == 0 {
		name := g.freshName(used, sc)
		exprs = append(exprs, alias(lit(g.literal(plan.Bool)), name))
	}
	return g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// crossableSort sorts in by one or two columns (total keys: pp.sort
// allows) or, rarely, by a partial computed key (pp.sort refuses).
func (g *gen) crossableSort(in frame) frame {
	sc := newScope(in.schema())
	n := 1 + g.r.Intn(2)
	keys := make([]plan.SortKey, 0, n)
	for i := 0; i < n; i++ {
		var e plan.Expr
		if f, ok := g.anyCol(sc); ok && g.r.Intn(100) < 91 {
			e = col(f.Name)
		} else {
			e = g.partialOrAny(ectx{sc: sc, mode: anyMode}, g.colType(sc))
		}
		keys = append(keys, plan.SortKey{Expr: e, Desc: g.r.Intn(100) < 30, NullsLast: g.r.Intn(100) < 30})
	}
	return g.finish(&plan.SortNode{Input: in.raw, Keys: keys}, in.rows, in)
}

// movableFilter puts a filter of one to three conjuncts over in, shaped to
// move: mostly comparisons of a column with a non-null literal (which a
// pushdown table accepts) and bool columns (total, so they may stay while
// the others move), sometimes a conjunct that is never true, a
// never-raising or a partial predicate, or a / 0 > 0 on an int64 column,
// which raises on its non-null rows. With nd, one conjunct calls nd_seq
// instead.
func (g *gen) movableFilter(in frame, nd bool) frame {
	c := g.ctx(in, extTotal)
	n := 1
	switch x := g.r.Intn(100); {
	case x < 20:
		n = 3
	case x < 60:
		n = 2
	}
	preds := make([]plan.Expr, 0, n)
	for len(preds) < n {
		var e plan.Expr
		switch x := g.r.Intn(100); {
		case x < 47:
			e = g.colLitComparison(c)
		case x < 54:
			// Never true: a comparison with null, or false. It reads at
			// most one column, so it moves as far as any conjunct, and
			// below an outer join or a global aggregate it empties an
			// input instead of the output.
			if f, ok := g.anyCol(c.sc); ok && g.r.Intn(2) == 0 {
				e = call(cmpFuncs[g.r.Intn(len(cmpFuncs))], col(f.Name), lit(plan.NullValue(f.Type)))
			} else {
				e = lit(plan.BoolValue(false))
			}
		case x < 74:
			if f, ok := g.pickCol(c.sc, plan.Bool); ok {
				e = col(f.Name)
			} else {
				e = g.colLitComparison(c)
			}
		case x < 86:
			e = g.predicate(c, extTotal)
		case x < 90:
			// A conjunct that raises, on any column (a renamed or replaced
			// one too: its error names what the user wrote).
			if ie, ok := g.pickCol(c.sc, plan.Int64); ok && g.r.Intn(2) == 0 {
				fn := []plan.Func{plan.FuncDiv, plan.FuncMod}[g.r.Intn(2)]
				e = call(plan.FuncGt, call(fn, col(ie.Name), lit(plan.Int64Value(0))), lit(plan.Int64Value(0)))
			} else {
				e = g.predicate(c, anyMode)
			}
		default:
			e = g.predicate(c, anyMode)
		}
		if e == nil {
			e = lit(plan.BoolValue(true))
		}
		preds = append(preds, e)
	}
	if nd {
		preds[g.r.Intn(len(preds))] = g.ndPredicate(c)
	}
	return g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
}

// partialOrAny is a partial expression of type t that raises on typical
// data (partialExpr), or any expression of t when the scope offers none.
func (g *gen) partialOrAny(c ectx, t plan.Type) plan.Expr {
	if e := g.partialExpr(c, t); e != nil {
		return e
	}
	return g.expr(c.with(anyMode).noOver(), t, 2)
}
