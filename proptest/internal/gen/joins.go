package gen

import (
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// The join templates of the standard tier: SQL-style joins — a filter over
// a cross join whose conjuncts equate a left expression with a right one,
// what `FROM l, r WHERE l.k = r.k AND ...` becomes (collapse_cross_join's
// ccj.* cells) —, joins of unequal sizes, whose smaller input is the
// left one as often as not (build_side's bs.* cells), and left-deep chains
// of inner and cross joins a connected order can join without the cross
// join (join_order's jo.* cells).

// joinShape takes a share of the join and filter moves for the join
// templates and builds one; ok is false when move m stays the generator's
// own. It draws from the random source only for those two moves, so every
// other move generates what it did before the templates existed.
func (g *gen) joinShape(m move, depth int) (frame, bool) {
	if g.nodesLeft <= 0 {
		return frame{}, false
	}
	switch m {
	case mJoin:
		switch x := g.r.Intn(100); {
		case x < 56 && depth >= 2:
			return g.sqlJoin(depth), true
		case x >= 56 && x < 95:
			return g.unequalJoin(depth), true
		case x == 99 && depth >= 4:
			return g.joinChain(depth), true
		case x >= 95 && depth >= 3:
			return g.semiOverInner(depth), true
		}
	case mFilter:
		switch x := g.r.Intn(100); {
		case x < 40 && depth >= 2:
			return g.sqlJoin(depth), true
		case x >= 40 && x < 48 && depth >= 3:
			return g.semiOverInner(depth), true
		case x >= 48 && x < 53 && depth >= 4:
			return g.joinChain(depth), true
		case x >= 53 && x < 58 && depth >= 3:
			return g.joinOverAggregate(depth), true
		}
	}
	return frame{}, false
}

// sqlJoin builds a filter of one to three key equalities and zero to two
// other conjuncts, in any order, over a cross join of two subplans:
//
//	filter(k = k_right, a + 1 = z, v > 2) . join cross (l, r)
//
// A key equates an expression reading only the left input's columns with
// one reading only the right input's (under the cross join's names, so a
// colliding right column is read suffixed). Most keys are plain columns,
// same-name pairs often (the inner join would drop the right one:
// ccj.key_column), of every comparable type pair, float64 ones included
// (ccj.float); some are computed and total, some partial (ccj.total), a few
// non-deterministic (ccj.deterministic). The other conjuncts are total or
// partial (ccj.rest). Sometimes the left input is itself a cross join, as
// for three tables in one FROM clause.
func (g *gen) sqlJoin(depth int) frame {
	// The filter takes one level of the depth budget, the join one more
	// and the limit boundJoin may put under it a third.
	jd := depth - 1
	var left frame
	if jd >= 4 && g.r.Intn(5) == 0 {
		left = g.joinAs(g.scan(), g.scan(), plan.CrossJoin, jd-2)
	} else {
		left = g.node(g.upTo(jd - 2))
	}
	right := g.node(g.upTo(jd - 2))
	if g.r.Intn(3) == 0 {
		right = g.scan()
	}
	j := g.joinAs(left, right, plan.CrossJoin, jd)
	jn, ok := j.res.(*plan.JoinNode)
	if !ok || jn.How != plan.CrossJoin {
		return j // the generator fell back (or bounded the join away)
	}
	fields := j.schema().Fields()
	nl := jn.Left.Schema().Len()
	ls, rs := scopeOf(fields[:nl]), scopeOf(fields[nl:])
	suffix := jn.EffectiveSuffix()
	nkeys := 1
	switch x := g.r.Intn(100); {
	case x < 15:
		nkeys = 3
	case x < 45:
		nkeys = 2
	}
	var preds []plan.Expr
	for i := 0; i < nkeys; i++ {
		if key := g.sqlKey(ls, rs, suffix); key != nil {
			preds = append(preds, key)
		}
	}
	all := g.ctx(j, anyMode)
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		m := boundedTotal
		switch x := g.r.Intn(100); {
		case x < 8:
			m = anyMode
		case x < 50:
			m = extTotal
		}
		preds = append(preds, g.predicate(all, m))
	}
	if g.r.Intn(100) < 40 {
		if d := g.sidesDisjunction(ls, rs); d != nil {
			preds = append(preds, d)
		}
	}
	if len(preds) == 0 {
		preds = append(preds, g.predicate(all, boundedTotal))
	}
	g.r.Shuffle(len(preds), func(a, b int) { preds[a], preds[b] = preds[b], preds[a] })
	return g.finish(&plan.FilterNode{Input: j.raw, Predicates: preds}, j.rows, j)
}

// sidesDisjunction builds TPC-H Q7's shape over a join's two sides (the
// left scope ls and the right one rs, under the join's output names): two
// or three arms, each the and of conjuncts reading one left column or one
// right column alone — `(n1 = "A" and n2 = "B") or (n1 = "B" and n2 =
// "A")` — for or_implied to derive each column's disjunction (oi.*). Most
// conjuncts are `column = literal` (the is_in form) or another comparison
// with a literal, and an arm sometimes lacks one side. One disjunction in
// fourteen puts nd_tick of an int64 left column in every arm (oi.deterministic:
// the derived disjunction would call it first), often alone, so that which
// rows pass depends on the call counter; about one in eight a partial
// conjunct on the left column in every arm, after a right one that is
// often partial too (oi.total). It returns nil when
// a side has no comparable column.
func (g *gen) sidesDisjunction(ls, rs *scope) plan.Expr {
	comparable := func(sc *scope) []plan.Field {
		var out []plan.Field
		for _, f := range sc.fields {
			if _, ok := plan.JoinKeyType(f.Type, f.Type); ok {
				out = append(out, f)
			}
		}
		return out
	}
	lf, rf := comparable(ls), comparable(rs)
	if len(lf) == 0 || len(rf) == 0 {
		return nil
	}
	fl, fr := lf[g.r.Intn(len(lf))], rf[g.r.Intn(len(rf))]
	flavor := g.r.Intn(100)
	nd := flavor < 7
	if nd && fl.Type != plan.Int64 {
		nd = false
		for _, f := range lf {
			if f.Type == plan.Int64 {
				fl, nd = f, true
				break
			}
		}
	}
	partial := !nd && flavor >= 7 && flavor < 19
	var disj plan.Expr
	for arm, n := 0, 2+g.r.Intn(2); arm < n; arm++ {
		var conj plan.Expr
		and := func(e plan.Expr) {
			if conj == nil {
				conj = e
			} else {
				conj = call(plan.FuncAnd, conj, e)
			}
		}
		switch {
		case nd:
			and(g.ndTickBound(fl))
			if g.r.Intn(2) == 0 {
				and(g.sideConjunct(fr))
			}
		case partial:
			// A right conjunct first, often partial too: the filter then
			// raises its error before the left one's, which the derived
			// disjunction, evaluated first, would raise instead.
			if g.r.Intn(100) < 80 {
				e := g.partialConjunct(fr)
				if e == nil || g.r.Intn(2) == 0 {
					e = g.sideConjunct(fr)
				}
				and(e)
			}
			if e := g.partialConjunct(fl); e != nil {
				and(e)
			} else {
				and(g.sideConjunct(fl))
			}
		default:
			for _, f := range []plan.Field{fl, fr} {
				if g.r.Intn(100) < 12 {
					continue // this arm lacks the side
				}
				e := g.sideConjunct(f)
				if g.r.Intn(100) < 15 {
					e = call(plan.FuncAnd, e, g.sideConjunct(f))
				}
				and(e)
			}
			if conj == nil {
				and(g.sideConjunct(fl))
			}
		}
		if disj == nil {
			disj = conj
		} else {
			disj = call(plan.FuncOr, disj, conj)
		}
	}
	return disj
}

// ndTickBound is nd_tick(f) compared with a small bound, f an int64
// column: which rows pass depends on the call counter, so an evaluation
// that advances the counter first changes them.
func (g *gen) ndTickBound(f plan.Field) plan.Expr {
	fn := []plan.Func{plan.FuncEq, plan.FuncLt, plan.FuncLe}[g.r.Intn(3)]
	return call(fn, udfCall(udfNdTick, col(f.Name)), lit(plan.Int64Value(int64(g.r.Intn(8)))))
}

// partialConjunct is a partial expression of the column f alone compared
// with a literal (it raises on typical data), or nil when f offers none.
func (g *gen) partialConjunct(f plan.Field) plan.Expr {
	t := plan.Int64
	if f.Type.IsInteger() {
		t = f.Type
	}
	if e := g.partialExpr(ectx{sc: scopeOf([]plan.Field{f}), mode: anyMode}, t); e != nil {
		return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(t)))
	}
	return nil
}

// sideConjunct is one conjunct reading the column f alone: mostly `f =
// literal` or another comparison with a non-null literal, sometimes a
// partial one (partialConjunct) or nd_tick of f (ndTickBound).
func (g *gen) sideConjunct(f plan.Field) plan.Expr {
	switch x := g.r.Intn(100); {
	case x < 50:
	case x < 90:
		if e := g.colLitComparison(ectx{sc: scopeOf([]plan.Field{f}), mode: extTotal}); e != nil {
			return e
		}
	case x < 97:
		if e := g.partialConjunct(f); e != nil {
			return e
		}
	default:
		if f.Type == plan.Int64 {
			return g.ndTickBound(f)
		}
	}
	v := g.literal(f.Type)
	for v.IsNull() {
		v = g.literal(f.Type)
	}
	return call(plan.FuncEq, col(f.Name), lit(v))
}

// sqlKey builds one key equality between the left scope ls and the right
// scope rs (the cross join's right columns, suffix their collision
// suffix), or nil when no column pair compares.
func (g *gen) sqlKey(ls, rs *scope, suffix string) plan.Expr {
	type pair struct{ l, r plan.Field }
	var same, other, floats []pair
	for _, lf := range ls.fields {
		for _, rf := range rs.fields {
			t, ok := plan.JoinKeyType(lf.Type, rf.Type)
			switch {
			case !ok:
			case rf.Name == lf.Name+suffix:
				same = append(same, pair{lf, rf})
			case t == plan.Float64:
				floats = append(floats, pair{lf, rf})
			default:
				other = append(other, pair{lf, rf})
			}
		}
	}
	var p pair
	switch x := g.r.Intn(100); {
	case len(same) > 0 && (x < 45 || len(other)+len(floats) == 0):
		p = same[g.r.Intn(len(same))]
	case len(floats) > 0 && (x < 60 || len(other) == 0):
		p = floats[g.r.Intn(len(floats))]
	case len(other) > 0:
		p = other[g.r.Intn(len(other))]
	default:
		return nil
	}
	l, r := g.keySide(ls, p.l), g.keySide(rs, p.r)
	if g.r.Intn(10) < 3 {
		return call(plan.FuncEq, r, l)
	}
	return call(plan.FuncEq, l, r)
}

// keySide is one side of a key equality over its scope, starting from the
// column f: the column itself most of the time, else a total computed
// value, a partial one (which really raises on the generated data) or a
// non-deterministic one, of f's type.
func (g *gen) keySide(sc *scope, f plan.Field) plan.Expr {
	c := ectx{sc: sc, mode: extTotal}
	switch x := g.r.Intn(100); {
	case x < 74:
	case x < 92:
		if e := g.expr(c, f.Type, 1); len(plan.Columns(e)) > 0 {
			return e
		}
	case x < 97:
		if e := g.partialExpr(c, f.Type); e != nil {
			return e
		}
	default:
		if f.Type == plan.Int64 {
			return udfCall(udfNdTick, col(f.Name))
		}
	}
	return col(f.Name)
}

// unequalJoin joins a small input with a larger one: the first n rows of a
// table (a limit, sometimes under a filter or a projection) with a whole
// table, a projection or a sort of it, the small side on the left two
// times in three. Most are inner joins, whose left build build_side may
// choose when the row bounds prove the left smaller (bs.estimate); the
// rest are other kinds it must leave alone (bs.kind).
func (g *gen) unequalJoin(depth int) frame {
	// Room for the limit boundJoin may put under the join, and the join.
	avail := depth - 2
	big := g.scan()
	for _, t := range g.tables {
		if t != g.nested && t.Rows() > big.rows && g.r.Intn(2) == 0 {
			big = g.scanOf(t)
		}
	}
	small, used := g.scan(), 0
	if avail >= 1 && g.r.Intn(3) > 0 {
		n := int64(g.r.Intn(max(big.rows, 1)))
		in := small
		if avail >= 2 && g.r.Intn(4) == 0 {
			in = g.filter(in)
			used++
		}
		small = g.finish(&plan.LimitNode{Input: in.raw, N: n}, min(in.rows, int(n)), in)
		used++
	}
	switch g.r.Intn(4) {
	case 0:
		if used < avail {
			small = g.project(small)
		}
	case 1:
		if avail >= 1 {
			big = g.sort(big)
		}
	case 2:
		if avail >= 1 {
			big = g.project(big)
		}
	}
	how := plan.InnerJoin
	if g.r.Intn(100) < 30 {
		how = []plan.JoinKind{plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}[g.r.Intn(5)]
	}
	if g.r.Intn(3) == 0 {
		return g.joinAs(big, small, how, depth)
	}
	return g.joinAs(small, big, how, depth)
}

// semiOverInner builds a semi or anti join over an inner join, what SQL's
// `WHERE k IN (SELECT ...)` over `FROM a, b` becomes (semi_pushdown's sp.*
// cells):
//
//	join semi on=[k = x]
//	  join inner on=[...]
//	    a
//	    b
//	  s
//
// Its left keys read one input of the inner join most of the time — left
// or right, plain columns or computed ones, some partial or
// non-deterministic (sp.side, sp.keys) — and sometimes both (a coalesce of
// a left and a right column: sp.side). The right input is a subplan, a scan
// or a filter, which may raise (sp.right_input); a share of the joins draw
// options: validate, a residual, nulls_equal (sp.options).
func (g *gen) semiOverInner(depth int) frame {
	// The semi join takes one level, the inner join one more and the
	// limit boundJoin may put under either a third.
	jd := depth - 1
	left := g.node(g.upTo(jd - 2))
	if g.r.Intn(3) == 0 {
		left = g.scan()
	}
	var right frame
	if g.r.Intn(2) == 0 {
		right = g.scan()
	} else {
		right = g.node(g.upTo(jd - 2))
	}
	inner := g.joinAs(left, right, plan.InnerJoin, jd)
	ij, ok := inner.res.(*plan.JoinNode)
	if !ok || ij.How != plan.InnerJoin {
		return inner
	}
	layout, ok := plan.LayoutOf(ij)
	if !ok {
		return inner
	}
	var sub frame
	switch g.r.Intn(4) {
	case 0:
		sub = g.scan()
	case 1:
		sub = g.filter(g.scan())
	default:
		sub = g.node(g.upTo(jd - 2))
	}
	out := inner.schema().Fields()
	var sides [2][]plan.Field
	for i, f := range out {
		sides[layout.Columns[i].Side] = append(sides[layout.Columns[i].Side], f)
	}
	ss := newScope(sub.schema())
	if len(ss.fields) == 0 {
		return inner
	}
	var lk, rk []plan.Expr
	nkeys := 1
	if g.r.Intn(5) == 0 {
		nkeys = 2
	}
	side := 0
	if g.r.Intn(5) < 2 {
		side = 1
	}
	for i := 0; i < nkeys; i++ {
		rf := ss.fields[g.r.Intn(len(ss.fields))]
		var cands [2][]plan.Field
		for s := range sides {
			for _, f := range sides[s] {
				if _, ok := plan.JoinKeyType(f.Type, rf.Type); ok {
					cands[s] = append(cands[s], f)
				}
			}
		}
		if len(cands[side]) == 0 {
			continue
		}
		f := cands[side][g.r.Intn(len(cands[side]))]
		l := g.keySide(scopeOf(sides[side]), f)
		switch g.r.Intn(8) {
		case 0, 1:
			// A partial key that really raises on the generated data.
			if e := g.partialExpr(ectx{sc: scopeOf(sides[side]), mode: extTotal}, f.Type); e != nil {
				l = e
			}
		case 2:
			// A key reading both inputs: coalesce of a column of each.
			for _, o := range cands[1-side] {
				if o.Type == f.Type {
					l = call(plan.FuncCoalesce, col(f.Name), col(o.Name))
					break
				}
			}
		}
		lk, rk = append(lk, l), append(rk, g.keySide(ss, rf))
	}
	if len(lk) == 0 {
		return inner
	}
	how := plan.SemiJoin
	if g.r.Intn(5) < 2 {
		how = plan.AntiJoin
	}
	raw := &plan.JoinNode{Left: inner.raw, Right: sub.raw, How: how, LeftOn: lk, RightOn: rk}
	if g.r.Intn(4) == 0 {
		g.joinOptions(raw, inner, sub)
	}
	if out, err := g.tryFinish(raw, inner.rows, inner, sub); err == nil {
		return out
	}
	raw = &plan.JoinNode{Left: inner.raw, Right: sub.raw, How: how, LeftOn: lk, RightOn: rk}
	return g.finish(raw, inner.rows, inner, sub)
}

// joinChain builds a left-deep chain of three or four inputs, the first two
// joined by a cross join and each later one by an inner join on plain
// column keys with one or more earlier inputs (always the first two for
// the last input, so a connected order usually exists):
//
//	join inner on=[a = x, k = y] (join cross (t1, t2), t3)
//
// what `FROM t1, t2, t3 WHERE ...` becomes after collapse_cross_join.
// Each input is a scan (under a limit that keeps the chain within
// MaxJoinRows), often under a filter that may raise (a partial conjunct
// that really raises on the generated data: jo.errors) or calls nd_tick
// or nd_seq (jo.deterministic); two such inputs make join_order refuse. An input
// whose names collide with the chain's suffixed ones is renamed.
func (g *gen) joinChain(depth int) frame {
	n := 3
	if depth >= 5 && g.r.Intn(3) == 0 {
		n = 4
	}
	perInput := 2
	for p := perInput + 1; ; p++ {
		prod := 1
		for i := 0; i < n; i++ {
			prod *= p
		}
		if prod > g.cfg.MaxJoinRows {
			break
		}
		perInput = p
	}
	ins := make([]frame, n)
	// Sometimes inputs 2 and 3, which the new order swaps, both call
	// nd_tick (pair 0) or both may raise (pair 1).
	pair := g.r.Intn(6)
	for i := range ins {
		in := g.scan()
		if in.rows > perInput {
			in = g.finish(&plan.LimitNode{Input: in.raw, N: int64(perInput)}, perInput, in)
		}
		c := g.ctx(in, anyMode)
		x := g.r.Intn(100)
		if pair <= 1 && (i == 1 || i == 2) {
			x = 30 // nd_tick
			if pair == 1 {
				x = 0 // partial
			}
		}
		switch {
		case x < 30:
			t := plan.Int64
			if f, ok := g.pickCol(c.sc, t); ok && pair == 1 && g.r.Intn(2) == 0 {
				// Raises on every non-null row: the two inputs' errors
				// differ when their columns' names do.
				e := call(plan.FuncDiv, col(f.Name), lit(plan.Int64Value(0)))
				in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{call(plan.FuncGt, e, lit(plan.Int64Value(0)))}}, in.rows, in)
			} else if e := g.partialExpr(c, t); e != nil {
				in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(t)))}}, in.rows, in)
			}
		case x < 55:
			// nd_tick is declared total, so only jo.deterministic stops it;
			// nd_seq is not, so jo.errors would too.
			f, ok := g.pickCol(c.sc, plan.Int64)
			y := g.r.Intn(3)
			if pair == 0 {
				y = 0
			}
			switch {
			case ok && y == 0:
				in = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{&plan.Alias{Expr: udfCall(udfNdTick, col(f.Name)), Name: "nd"}}}, in.rows, in)
			case ok && y == 1:
				parity := call(plan.FuncMod, udfCall(udfNdTick, col(f.Name)), lit(plan.Int64Value(2)))
				in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{call(plan.FuncEq, parity, lit(plan.Int64Value(0)))}}, in.rows, in)
			default:
				in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{g.ndPredicate(c)}}, in.rows, in)
			}
		case x < 70:
			in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{g.predicate(c, extTotal)}}, in.rows, in)
		}
		ins[i] = in
	}
	cur := ins[0]
	owner := make([]int, cur.schema().Len()) // the input each chain column comes from
	// name: each chain column's name in its input; pairs: the key pairs,
	// as (input, name in it) twice.
	name := make([]string, cur.schema().Len())
	for i, f := range cur.schema().Fields() {
		name[i] = f.Name
	}
	var pairs []chainKeyPair
	for k := 1; k < n; k++ {
		right := ins[k]
		raw := &plan.JoinNode{Left: cur.raw, Right: right.raw, How: plan.CrossJoin}
		if k > 1 {
			fields := cur.schema().Fields()
			rfs := right.schema().Fields()
			for t := 0; t < k; t++ {
				if t >= 2 && g.r.Intn(2) == 0 && len(raw.LeftOn) > 0 {
					continue
				}
				if t < 2 && k < n-1 && g.r.Intn(2) == 0 {
					continue
				}
				var lcs []plan.Field
				for i, f := range fields {
					if owner[i] == t {
						lcs = append(lcs, f)
					}
				}
				if len(lcs) == 0 {
					continue
				}
				lf := lcs[g.r.Intn(len(lcs))]
				var rcs []plan.Field
				for _, rf := range rfs {
					if _, ok := plan.JoinKeyType(lf.Type, rf.Type); ok {
						rcs = append(rcs, rf)
					}
				}
				if len(rcs) == 0 {
					continue
				}
				rf := rcs[g.r.Intn(len(rcs))]
				raw.LeftOn = append(raw.LeftOn, col(lf.Name))
				raw.RightOn = append(raw.RightOn, col(rf.Name))
				if i := cur.schema().Index(lf.Name); i >= 0 {
					pairs = append(pairs, chainKeyPair{a: owner[i], an: name[i], b: k, bn: rf.Name})
				}
			}
			if len(raw.LeftOn) > 0 {
				raw.How = plan.InnerJoin
			}
		}
		rows := cur.rows * max(right.rows, 1)
		out, err := g.tryFinish(raw, rows, cur, right)
		if err != nil {
			// A name collision: rename the input's columns apart.
			p := "c" + strconv.Itoa(k) + "_"
			right = g.renamed(right, p)
			rk := make([]plan.Expr, len(raw.RightOn))
			for i, e := range raw.RightOn {
				rk[i] = col(p + e.(*plan.Column).Name)
			}
			raw = &plan.JoinNode{Left: cur.raw, Right: right.raw, How: raw.How, LeftOn: raw.LeftOn, RightOn: rk}
			out = g.finish(raw, rows, cur, right)
			if out.raw != raw {
				return cur
			}
			for i := range pairs {
				if pairs[i].b == k {
					pairs[i].bn = p + pairs[i].bn
				}
			}
		}
		ins[k] = right
		j, ok := out.res.(*plan.JoinNode)
		if !ok {
			return out
		}
		layout, ok := plan.LayoutOf(j)
		if !ok {
			return out
		}
		next := make([]int, len(layout.Columns))
		nextName := make([]string, len(layout.Columns))
		for i, c := range layout.Columns {
			if c.Side == plan.SideLeft {
				next[i], nextName[i] = owner[c.Ordinal], name[c.Ordinal]
			} else {
				next[i], nextName[i] = k, right.schema().Field(c.Ordinal).Name
			}
		}
		owner, name, cur = next, nextName, out
	}
	if len(pairs) > 0 && g.r.Intn(3) == 0 {
		p := pairs[g.r.Intn(len(pairs))]
		if g.r.Intn(2) == 0 {
			p.a, p.b, p.an, p.bn = p.b, p.a, p.bn, p.an
		}
		// Most often the pair of a non-deterministic input, which then
		// reduces the other: evaluated a second time for the semi join,
		// it would give other rows (jo.reduce refuses).
		for _, q := range pairs {
			for _, r := range []chainKeyPair{q, {a: q.b, an: q.bn, b: q.a, bn: q.an}} {
				if ins[r.a].res != nil && !plan.IsDeterministicPlan(ins[r.a].res) && g.r.Intn(4) > 0 {
					p = r
				}
			}
		}
		if u, ok := g.chainReduction(cur, ins, owner, name, p); ok {
			return u
		}
	}
	return cur
}

// chainKeyPair is a key pair of a generated chain: column an of input a
// equals column bn of input b (names in the inputs' own schemas).
type chainKeyPair struct {
	a, b   int
	an, bn string
}

// chainReduction returns the union of the chain's column of input b's key
// and that column of the semi join of input b against input a on the
// chain's key pair an = bn: the
// plan evaluates a semi join of one chain input against another on a
// key pair of the chain, which join_order then numbers in place of the
// whole input (jo.reduce), as TPC-H Q2 in SQL style, whose subquery's
// semi join reduces the outer chain's partsupp.
func (g *gen) chainReduction(chain frame, ins []frame, owner []int, name []string, p chainKeyPair) (frame, bool) {
	at := -1
	for i := range owner {
		if owner[i] == p.b && name[i] == p.bn {
			at = i
		}
	}
	if at < 0 {
		return frame{}, false
	}
	semi, err := g.tryFinish(&plan.JoinNode{Left: ins[p.b].raw, Right: ins[p.a].raw, How: plan.SemiJoin,
		LeftOn: []plan.Expr{col(p.bn)}, RightOn: []plan.Expr{col(p.an)}}, ins[p.b].rows, ins[p.b], ins[p.a])
	if err != nil {
		return frame{}, false
	}
	cn := chain.schema().Field(at).Name
	left, err := g.tryFinish(&plan.ProjectNode{Input: chain.raw, Exprs: []plan.Expr{alias(col(cn), "u")}}, chain.rows, chain)
	if err != nil {
		return frame{}, false
	}
	right, err := g.tryFinish(&plan.ProjectNode{Input: semi.raw, Exprs: []plan.Expr{alias(col(p.bn), "u")}}, semi.rows, semi)
	if err != nil {
		return frame{}, false
	}
	u, err := g.tryFinish(&plan.UnionNode{Inputs: []plan.Node{left.raw, right.raw}}, left.rows+right.rows, left, right)
	if err != nil {
		return frame{}, false
	}
	return u, true
}

// renamed projects in's columns under the prefix p (`a as c2_a`).
func (g *gen) renamed(in frame, p string) frame {
	var exprs []plan.Expr
	for _, f := range in.schema().Fields() {
		exprs = append(exprs, &plan.Alias{Expr: col(f.Name), Name: p + f.Name})
	}
	return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// joinOverAggregate builds an inner join whose right input is an aggregate
// (sometimes under a filter or a with_columns) keyed on one of its group
// keys, what a SQL front end makes of a correlated subquery (TPC-H Q17;
// semi_reduction's sr.* cells):
//
//	join inner on=[w = k]
//	  join inner (l, r)          (or a scan, a subplan, a non-deterministic with_columns)
//	  aggregate keys=[k] aggs=[...]
//	    t
//
// The aggregates are the generator's own, partial ones included (sr.rows);
// the left key comes from an input the key column is followed down to, or
// from a with_columns of nd_tick (sr.source).
func (g *gen) joinOverAggregate(depth int) frame {
	jd := depth - 1
	var left frame
	switch g.r.Intn(5) {
	case 0:
		left = g.scan()
	case 1:
		left = g.joinAs(g.scan(), g.scan(), plan.InnerJoin, max(jd-1, 2))
	case 2, 3:
		in := g.scan()
		sc := newScope(in.schema())
		if ints := intCols(sc); len(ints) > 0 {
			name := g.freshName(map[string]bool{}, sc)
			left = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{
				alias(udfCall(udfNdTick, &plan.Cast{Expr: col(ints[0].Name), To: plan.Int64}), name)}}, in.rows, in)
		} else {
			left = in
		}
	default:
		left = g.node(g.upTo(jd - 2))
	}
	var right frame
	if g.r.Intn(2) == 0 {
		right = g.scan()
	} else {
		right = g.node(g.upTo(jd - 3))
	}
	agg := g.aggregate(right)
	an, ok := agg.res.(*plan.AggregateNode)
	if !ok || len(an.Keys) == 0 {
		return g.joinAs(left, agg, plan.InnerJoin, jd)
	}
	top := agg
	switch g.r.Intn(5) {
	case 0:
		top = g.filter(agg)
	case 1:
		top = g.withColumns(agg, false)
	case 2:
		// A projection over a with_columns, a partial expression first
		// (pf.inline refuses to inline a partial value after it).
		wc := g.withColumns(agg, false)
		c := g.ctx(wc, anyMode)
		if pe := g.partialExpr(c, plan.Int64); pe != nil {
			exprs := []plan.Expr{alias(pe, g.freshName(map[string]bool{}, c.sc))}
			for _, f := range wc.schema().Fields() {
				exprs = append(exprs, col(f.Name))
			}
			top = g.finish(&plan.ProjectNode{Input: wc.raw, Exprs: exprs}, wc.rows, wc)
		} else {
			top = wc
		}
	}
	gk := an.Schema().Field(g.r.Intn(len(an.Keys)))
	if _, ok := top.schema().Lookup(gk.Name); !ok {
		return g.joinAs(left, top, plan.InnerJoin, jd)
	}
	var cands []plan.Field
	for _, f := range left.schema().Fields() {
		if _, ok := plan.JoinKeyType(f.Type, gk.Type); ok {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return g.joinAs(left, top, plan.InnerJoin, jd)
	}
	lf := cands[g.r.Intn(len(cands))]
	if left.res != nil {
		// Prefer the nd_tick column when the left input has one.
		if wc, ok := left.res.(*plan.WithColumnsNode); ok && g.r.Intn(4) > 0 {
			if f, ok := left.schema().Lookup(plan.OutputName(wc.Exprs[len(wc.Exprs)-1])); ok {
				if _, ok := plan.JoinKeyType(f.Type, gk.Type); ok {
					lf = f
				}
			}
		}
	}
	raw := &plan.JoinNode{Left: left.raw, Right: top.raw, How: plan.InnerJoin,
		LeftOn: []plan.Expr{col(lf.Name)}, RightOn: []plan.Expr{col(gk.Name)}, NullsEqual: g.r.Intn(6) == 0}
	rows := left.rows * max(top.rows, 1)
	if out, err := g.tryFinish(raw, rows, left, top); err == nil {
		return out
	}
	for _, sfx := range []string{"_j", "_2", "_x"} {
		raw.Suffix = sfx
		if out, err := g.tryFinish(raw, rows, left, top); err == nil {
			return out
		}
	}
	return g.joinAs(left, top, plan.InnerJoin, jd)
}
