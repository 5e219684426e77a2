package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// The templates below build multi-node shapes that a legality cell of
// docs/legality.md is about, with both the variants that let the rule fire and
// the counterexamples that must stop it.

// fusion builds with_columns(x = v, ...) then a select that references x
// zero, one or two times, among other entries (pf.inline, pr.with_columns).
// v is bounded-total, partial, non-deterministic (nd_seq) or never-raising;
// sometimes the same with_columns also replaces a column v reads (name
// capture, Polars #26456).
func (g *gen) fusion(depth int) frame {
	if depth < 2 {
		return g.withColumns(g.node(depth-1), false)
	}
	if g.r.Intn(5) == 0 {
		return g.fusionOrder(depth)
	}
	in := g.node(depth - 2)
	c := g.ctx(in, anyMode)
	sc := c.sc
	var v plan.Expr
	var nd *plan.UDF // the non-deterministic UDF v calls, if any
	t := g.colType(sc)
	switch x := g.r.Intn(100); {
	case x < 45:
		if g.r.Intn(2) == 0 {
			t = plan.Int64
		}
		v = g.expr(c.with(boundedTotal), t, 2)
	case x < 70:
		if e := g.partialExpr(c, t); e != nil {
			v = e
		} else {
			v = g.expr(c, t, g.exprDepth())
		}
	case x < 82:
		// nd_seq is partial, so pf.inline alone keeps it in place; nd_tick
		// is total, so only pf.deterministic does (with a counter call
		// evaluated before the reference, inlining reorders the calls).
		t = plan.Int64
		nd = udfNdSeq
		if g.r.Intn(2) == 0 {
			nd = udfNdTick
		}
		v = udfCall(nd, g.expr(c.with(extTotal), plan.Int64, 1))
	case x < 87:
		// A window value: the with_columns owns the window, so nothing
		// inlines through it (pf.holder).
		wc := c
		wc.over = true
		v, t = g.windowEntry(wc)
	default:
		v = g.expr(c.with(extTotal), t, g.exprDepth())
	}
	used := map[string]bool{}
	x := g.freshName(used, sc)
	used[x] = true
	wexprs := []plan.Expr{alias(v, x)}
	if g.r.Intn(12) == 0 {
		// A value before x that nothing reads and that raises: pruning
		// must keep it (pr.with_columns); before x, it does not stop x
		// from inlining.
		d := g.freshName(used, sc)
		used[d] = true
		wexprs = append([]plan.Expr{alias(g.raising(c), d)}, wexprs...)
	}
	if cols := plan.Columns(v); len(cols) > 0 && g.r.Intn(5) == 0 {
		f, _ := sc.lookup(cols[0])
		wexprs = append(wexprs, alias(lit(g.literal(f.Type)), cols[0]))
		used[cols[0]] = true
	}
	wc := g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: wexprs}, in.rows, in)
	if wc.raw == in.raw {
		return wc
	}
	// The select: references to x, and other entries before or after,
	// which do not read x (the references decide how often x is read).
	psc := newScope(wc.schema())
	pc := ectx{sc: psc.without(x), mode: g.nodeMode()}
	pused := map[string]bool{}
	var refs []plan.Expr
	switch r := g.r.Intn(100); {
	case r < 6:
	case r < 84:
		refs = append(refs, g.refExpr(x, t, false))
	case r < 92:
		refs = append(refs, g.refExpr(x, t, true))
	default:
		refs = append(refs, g.refExpr(x, t, false), g.refExpr(x, t, false))
	}
	var before, after []plan.Expr
	if nd == udfNdTick && g.r.Intn(2) == 0 {
		if f, ok := g.pickCol(psc, plan.Int64); ok && f.Name != x {
			before = append(before, udfCall(udfNdTick, col(f.Name)))
		} else {
			before = append(before, udfCall(udfNdTick, lit(plan.Int64Value(0))))
		}
	}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		var e plan.Expr
		if f, ok := g.anyCol(pc.sc); ok && g.r.Intn(2) == 0 {
			e = col(f.Name)
		} else if g.r.Intn(3) == 0 {
			e = g.partialExpr(pc, plan.Int64)
		}
		if e == nil {
			e = g.expr(pc, g.colType(pc.sc), 2)
		}
		if g.r.Intn(2) == 0 {
			before = append(before, e)
		} else {
			after = append(after, e)
		}
	}
	var exprs []plan.Expr
	for _, group := range [][]plan.Expr{before, refs, after} {
		for _, e := range group {
			name := plan.OutputName(e)
			if pused[name] {
				name = g.freshName(pused, psc)
				e = alias(e, name)
			}
			pused[name] = true
			exprs = append(exprs, e)
		}
	}
	if len(exprs) == 0 {
		exprs = []plan.Expr{col(psc.fields[0].Name)}
	}
	return g.finish(&plan.ProjectNode{Input: wc.raw, Exprs: exprs}, wc.rows, wc)
}

// refExpr is an expression reading column x (of type t) once, or twice when
// twice is set.
func (g *gen) refExpr(x string, t plan.Type, twice bool) plan.Expr {
	ref := col(x)
	if twice {
		switch {
		case t.IsNumeric():
			return call(plan.FuncAdd, ref, col(x))
		case t == plan.String:
			return call(plan.FuncConcat, ref, col(x))
		}
		return call(plan.FuncEq, ref, col(x))
	}
	switch x := g.r.Intn(100); {
	case x < 48:
		return ref
	case x < 68:
		return alias(ref, "r")
	case x < 78 && t == plan.Int64:
		// A declared-total UDF around the reference.
		return alias(udfCall(udfIncWrap, ref), "r")
	}
	switch {
	case t.IsNumeric():
		return call(plan.FuncAdd, ref, lit(zeroValue(t)))
	case t == plan.String:
		return call(plan.FuncConcat, ref, lit(plan.StringValue("!")))
	case t == plan.Bool:
		return call(plan.FuncNot, ref)
	}
	return call(plan.FuncIsNull, ref)
}

// dead builds a projection (or with_columns) some of whose outputs nothing
// above reads: an outer select of a subset of its outputs, or an aggregate
// over a subset (pr.project, pr.with_columns, pr.aggregate).
func (g *gen) dead(depth int) frame {
	if depth < 2 {
		return g.project(g.node(depth - 1))
	}
	in := g.node(depth - 2)
	var mid frame
	if g.r.Intn(3) == 0 {
		// A third of these own a window, which pruning keeps (pr.window).
		mid = g.withColumns(in, g.r.Intn(3) == 0)
	} else {
		mid = g.finish(&plan.ProjectNode{Input: in.raw, Exprs: g.projectEntries(in, false)}, in.rows, in)
	}
	names := mid.schema().Names()
	if len(names) == 0 {
		return mid
	}
	perm := g.r.Perm(len(names))
	n := 1 + g.r.Intn(max(1, len(names)-1))
	if g.r.Intn(3) == 0 {
		// An aggregate reading only a subset.
		key := names[perm[0]]
		var keys []plan.Expr
		if g.r.Intn(2) == 0 {
			keys = []plan.Expr{col(key)}
		}
		var aggs []plan.Expr
		used := map[string]bool{key: true}
		for _, j := range perm[1:min(len(perm), 1+n)] {
			name := g.freshName(used, nil)
			used[name] = true
			aggs = append(aggs, alias(call(plan.FuncCount, col(names[j])), name))
		}
		if len(aggs) == 0 {
			aggs = []plan.Expr{alias(call(plan.FuncLen), "n")}
		}
		rows := mid.rows
		if keys == nil {
			rows = 1
		}
		return g.finish(&plan.AggregateNode{Input: mid.raw, Keys: keys, Aggs: aggs}, rows, mid)
	}
	exprs := make([]plan.Expr, 0, n)
	for _, j := range perm[:n] {
		exprs = append(exprs, col(names[j]))
	}
	return g.finish(&plan.ProjectNode{Input: mid.raw, Exprs: exprs}, mid.rows, mid)
}

// shared builds plans that hold one subtree S twice: union(S, S), a
// self-join, union(join(S, S), join(S, S)), or S beside a variant of itself.
// S is made non-deterministic (nd_seq) a third of the time: such an S must
// not be shared (ss.deterministic).
func (g *gen) shared(depth int) frame {
	shape := g.r.Intn(100)
	// overhead is the number of nodes the shape puts above s (a limit under
	// a join included).
	overhead := 1
	switch {
	case shape < 25:
	case shape < 55:
		overhead = 2
	case shape < 80:
		overhead = 3
	default:
		overhead = 3
	}
	nd := g.r.Intn(3) == 0
	if nd {
		overhead++
	}
	if depth < overhead {
		shape, nd, overhead = 0, false, 1
	}
	s := g.node(depth - overhead)
	if nd {
		s = g.nondeterministic(s)
	}
	switch {
	case shape < 25:
		return g.unionOf([]frame{s, s})
	case shape < 55:
		return g.selfJoin(s, depth)
	case shape < 80:
		j := g.selfJoin(s, depth-1)
		if j.raw == s.raw {
			return g.unionOf([]frame{s, s})
		}
		if g.r.Intn(2) == 0 {
			if pair, ok := g.probeClassPair(j); ok {
				return pair
			}
		}
		return g.unionOf([]frame{j, j})
	default:
		if g.cfg.TwinShare > 0 && g.r.Float64() < g.cfg.TwinShare {
			if tw, ok := g.twin(s); ok {
				return g.unionOf([]frame{s, tw})
			}
		}
		if g.r.Intn(2) == 0 {
			return g.unionOf([]frame{s, g.variant(s)})
		}
		return g.selfJoinOf(s, g.variant(s), depth)
	}
}

// probeClassPair returns, for j a keyed join without a residual, the union
// of the inner join of j's inputs on j's keys projected to the left input's
// columns and their semi join on the same keys: two joins of one probe
// class (equal inputs and keys, the same nulls_equal), whose pairs the
// executor computes once and shares (the semi join takes the distinct left
// rows of the inner pairs).
func (g *gen) probeClassPair(j frame) (frame, bool) {
	jn, ok := j.raw.(*plan.JoinNode)
	jr, rok := j.res.(*plan.JoinNode)
	if !ok || !rok || jn.How == plan.CrossJoin || len(jn.LeftOn) == 0 || jn.Residual != nil {
		return frame{}, false
	}
	l := frame{raw: jn.Left, res: jr.Left, rows: j.rows, depth: j.depth - 1}
	r := frame{raw: jn.Right, res: jr.Right, rows: j.rows, depth: j.depth - 1}
	join := func(how plan.JoinKind) (frame, error) {
		return g.tryFinish(&plan.JoinNode{Left: jn.Left, Right: jn.Right, How: how, LeftOn: jn.LeftOn,
			RightOn: jn.RightOn, NullsEqual: jn.NullsEqual, BuildLeft: how == plan.InnerJoin && g.r.Intn(2) == 0}, j.rows, l, r)
	}
	inner, err := join(plan.InnerJoin)
	if err != nil {
		return frame{}, false
	}
	semi, err := join(plan.SemiJoin)
	if err != nil {
		return frame{}, false
	}
	var cols []plan.Expr
	for _, f := range jr.Left.Schema().Fields() {
		cols = append(cols, col(f.Name))
	}
	proj, err := g.tryFinish(&plan.ProjectNode{Input: inner.raw, Exprs: cols}, j.rows, inner)
	if err != nil {
		return frame{}, false
	}
	inputs := []frame{proj, semi}
	if g.r.Intn(2) == 0 {
		inputs[0], inputs[1] = semi, proj // the semi join evaluated first
	}
	u, err := g.tryFinish(&plan.UnionNode{Inputs: []plan.Node{inputs[0].raw, inputs[1].raw}}, 2*j.rows, inputs...)
	if err != nil {
		return frame{}, false
	}
	return u, true
}

// twin returns s over twin tables: for each table s scans, a new table
// with its name, schema, row count and pushdown policy but values of its
// own (Config.TwinShare). The twin has s's fingerprint and is not
// plan.Equal to it, since sources compare by identity.
func (g *gen) twin(s frame) (frame, bool) {
	remap := map[*plan.Table]*plan.Table{}
	scanned := planutil.ScannedTables(s.raw)
	for _, t := range g.tables {
		if !scanned[t] {
			continue
		}
		tw, err := plan.NewTable(t.Name(), t.Schema(), g.columns(t.Schema().Fields(), t.Rows()))
		if err != nil {
			return frame{}, false
		}
		tw = planutil.WithPolicyOf(tw, t)
		remap[t] = tw
	}
	if len(remap) == 0 {
		return frame{}, false
	}
	raw := planutil.RebindScans(s.raw, remap)
	res, err := plan.Resolve(raw)
	if err != nil {
		return frame{}, false
	}
	for _, t := range g.tables {
		if tw, ok := remap[t]; ok {
			g.tables = append(g.tables, tw)
		}
	}
	return frame{raw: raw, res: res, rows: s.rows, depth: s.depth}, true
}

// nondeterministic makes s non-deterministic: the nd_tag operator over it,
// or nd_seq in a with_columns or a filter over it.
func (g *gen) nondeterministic(s frame) frame {
	c := g.ctx(s, anyMode)
	c.nd = true
	if g.r.Intn(3) == 0 && s.schema().Index("tag") < 0 {
		// A non-deterministic operator (ss.extension.deterministic).
		return g.finish(&plan.ExtensionNode{Def: extNdTag, Inputs: []plan.Node{s.raw}}, s.rows, s)
	}
	if g.r.Intn(2) == 0 {
		return g.finish(&plan.FilterNode{Input: s.raw, Predicates: []plan.Expr{g.ndPredicate(c)}}, s.rows, s)
	}
	name := g.freshName(map[string]bool{}, c.sc)
	e := alias(udfCall(udfNdSeq, g.expr(c.with(extTotal), plan.Int64, 1)), name)
	return g.finish(&plan.WithColumnsNode{Input: s.raw, Exprs: []plan.Expr{e}}, s.rows, s)
}

// selfJoin joins s with itself within the depth budget.
func (g *gen) selfJoin(s frame, depth int) frame { return g.selfJoinOf(s, s, depth) }

func (g *gen) selfJoinOf(l, r frame, depth int) frame {
	how := joinKinds[g.r.Intn(len(joinKinds)-1)] // no cross: keys make it a self-join
	return g.joinAs(l, r, how, depth)
}

// filterChain builds filter(outer) over filter(inner), the inner filter
// sometimes over a renaming projection (ff.total_outer, pp.split, and the
// pp.split counterexample filter(a / b > 1, k = 1) over a rename of k).
// The outer conjuncts are all bounded-total half of the time, so fusion
// may fire.
func (g *gen) filterChain(depth int) frame {
	if depth < 2 {
		return g.filter(g.node(depth - 1))
	}
	switch x := g.r.Intn(100); {
	case x < 30:
		return g.guarded(depth)
	case x < 40 && depth >= 3:
		if f, ok := g.guardPair(depth); ok {
			return f
		}
	}
	var in frame
	switch x := g.r.Intn(100); {
	case x < 33 && depth >= 3:
		in = g.renames(g.node(depth - 3))
	case x < 48:
		// Both filters' conjuncts may reach the source (pp.scan.merge).
		in = g.pushdownScan()
		if z, ok := g.zoneScan(); ok && g.r.Intn(3) == 0 {
			in = z
		}
		if f, ok := g.zoneSkip(in); ok {
			return f
		}
	default:
		in = g.node(depth - 2)
	}
	inner := g.filter(in)
	c := g.ctx(inner, anyMode)
	m := boundedTotal
	switch x := g.r.Intn(100); {
	case x < 12:
		m = extTotal
	case x < 26:
		m = anyMode
	}
	if m == boundedTotal && !c.sc.has(plan.Bool) {
		// Without a bool column a bounded-total conjunct is a literal,
		// mostly true, which simplify drops with its filter: the outer
		// filter would no longer be there to fuse.
		m = extTotal
	}
	n := 1 + g.r.Intn(2)
	preds := make([]plan.Expr, n)
	for i := range preds {
		preds[i] = g.predicate(c, m)
	}
	return g.finish(&plan.FilterNode{Input: inner.raw, Predicates: preds}, inner.rows, inner)
}

// zoneScan reads a zone-map table, if there is one.
func (g *gen) zoneScan() (frame, bool) {
	var zones []*plan.Table
	for _, t := range g.tables {
		if t.ZoneRows() > 0 {
			zones = append(zones, t)
		}
	}
	if len(zones) == 0 {
		return frame{}, false
	}
	return g.scanOf(zones[g.r.Intn(len(zones))]), true
}

// zoneSkip builds, half of the time over a scan of a zone-map table, a
// comparison the table takes Inexact over a filter it takes Exact:
//
//	filter(k = 1) . filter(p)          the Exact conjunct is total: k = 1 joins
//	filter(k = 1) . filter(a / b > 0)  it can raise: k = 1 must stay above
//
// (cell pp.scan.skip allows, then refuses). It reports false for any
// other input.
func (g *gen) zoneSkip(in frame) (frame, bool) {
	sc, ok := in.raw.(*plan.ScanNode)
	if !ok || g.r.Intn(2) == 0 {
		return frame{}, false
	}
	if t, ok := sc.Source.(*plan.Table); !ok || t.ZoneRows() == 0 {
		return frame{}, false
	}
	c := g.ctx(in, anyMode)
	pred := g.predicate(c, boundedTotal)
	if g.r.Intn(2) == 0 {
		if e := g.partialExpr(c.with(anyMode).noOver(), plan.Int64); e != nil {
			pred = call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(plan.Int64)))
		}
	}
	inner := g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{pred}}, in.rows, in)
	cmp := g.colLitComparison(g.ctx(inner, anyMode))
	if cmp == nil {
		return frame{}, false
	}
	return g.finish(&plan.FilterNode{Input: inner.raw, Predicates: []plan.Expr{cmp}}, inner.rows, inner), true
}

// guardPair builds a guard and the partial filter it protects, the guard
// reading a copy of the divisor that the conjunct cannot follow below:
//
//	filter(a / b > 0) . filter(x != 0) . select(*, b as x)
//
// The guard stops at the projection (it reads the rename x,
// pp.project.shadow), so the partial filter stops at the guard (pp.filter)
// and does not fuse into it (ff.total_outer); either mutant evaluates
// a / b on the rows with b = 0 the guard removes. It reports false when
// the input has no int64 column.
//
// A third of the time the guard reads b itself, directly over a scan of a
// table that accepts pushed conjuncts: the guard goes into the source,
// and the partial filter must not join it there (pp.scan.merge).
func (g *gen) guardPair(depth int) (frame, bool) {
	direct := g.r.Intn(3) == 0
	var in frame
	if direct {
		in = g.pushdownScan()
	} else {
		in = g.node(depth - 3)
	}
	sc := newScope(in.schema())
	b, ok := g.pickCol(sc, plan.Int64)
	if !ok {
		return frame{}, false
	}
	zero := lit(plan.Int64Value(0))
	below, x := in, b.Name
	if !direct {
		used := map[string]bool{}
		exprs := make([]plan.Expr, 0, len(sc.fields)+1)
		for _, f := range sc.fields {
			used[f.Name] = true
			exprs = append(exprs, col(f.Name))
		}
		x = g.freshName(used, sc)
		exprs = append(exprs, alias(col(b.Name), x))
		below = g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
		if below.raw == in.raw {
			return frame{}, false
		}
	}
	guard := g.finish(&plan.FilterNode{Input: below.raw, Predicates: []plan.Expr{call(plan.FuncNe, col(x), zero)}}, below.rows, below)
	a := lit(plan.Int64Value(1))
	if f, ok := g.pickCol(sc, plan.Int64); ok {
		a = col(f.Name)
	}
	fn := []plan.Func{plan.FuncDiv, plan.FuncMod}[g.r.Intn(2)]
	pred := call(plan.FuncGt, call(fn, a, col(b.Name)), zero)
	return g.finish(&plan.FilterNode{Input: guard.raw, Predicates: []plan.Expr{pred}}, guard.rows, guard), true
}

// renames projects in to all its columns, some renamed (col(a) as x) and
// some kept by identity.
func (g *gen) renames(in frame) frame {
	sc := newScope(in.schema())
	used := map[string]bool{}
	exprs := make([]plan.Expr, 0, len(sc.fields))
	for _, f := range sc.fields {
		if g.r.Intn(100) < 40 {
			name := g.freshName(used, sc)
			used[name] = true
			exprs = append(exprs, alias(col(f.Name), name))
			continue
		}
		used[f.Name] = true
		exprs = append(exprs, col(f.Name))
	}
	return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// fusionOrder builds the shapes whose outcome projection fusion changes only
// through the order of evaluation, each with data on which that order shows
// (values that raise on every non-null row, a counter):
//
//   - pf.inline: with_columns(x = v raising E1 [, z = w raising E2]) then a
//     select reading x after an entry raising E3: inlined, E3 (or, with z
//     left behind, E2) would be raised instead of E1;
//   - origins: with_columns(x = total v) then a select reading x inside an
//     expression that raises: inlined, the error must still name x (the
//     inlined v records x as its origin), not v;
//   - pf.deterministic: with_columns(x = nd_tick(..)) then a select calling
//     nd_tick before reading x: inlined, the calls would swap counters.
func (g *gen) fusionOrder(depth int) frame {
	in := g.node(depth - 2)
	c := g.ctx(in, anyMode)
	used := map[string]bool{}
	fresh := func(sc *scope) string {
		n := g.freshName(used, sc)
		used[n] = true
		return n
	}
	x := fresh(c.sc)
	kind := g.r.Intn(3)
	var v plan.Expr
	switch kind {
	case 0:
		v = g.raising(c)
	case 1:
		v = lit(plan.Int64Value(math.MaxInt64))
		if f, ok := g.pickCol(c.sc, plan.Int64); ok {
			v = col(f.Name)
			if g.r.Intn(3) == 0 {
				v = udfCall(udfIncWrap, v)
			}
		}
	default:
		arg := lit(plan.Int64Value(0))
		if f, ok := g.pickCol(c.sc, plan.Int64); ok {
			arg = col(f.Name)
		}
		v = udfCall(udfNdTick, arg)
	}
	wexprs := []plan.Expr{alias(v, x)}
	if kind == 0 && g.r.Intn(3) == 0 {
		wexprs = append(wexprs, alias(g.raising(c), fresh(c.sc)))
	}
	wc := g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: wexprs}, in.rows, in)
	if wc.raw == in.raw {
		return wc
	}
	psc := newScope(wc.schema())
	pc := ectx{sc: psc, mode: anyMode}
	var exprs []plan.Expr
	switch kind {
	case 0:
		if g.r.Intn(3) > 0 {
			exprs = append(exprs, alias(g.raising(pc), fresh(psc)))
		}
		ref := col(x)
		if g.r.Intn(2) == 0 {
			ref = alias(ref, fresh(psc))
		}
		exprs = append(exprs, ref)
	case 1:
		var wrap plan.Expr
		switch g.r.Intn(3) {
		case 0:
			wrap = call(plan.FuncDiv, col(x), lit(plan.Int64Value(0)))
		case 1:
			wrap = call(plan.FuncMod, col(x), lit(plan.Int64Value(0)))
		default:
			wrap = call(plan.FuncMul, col(x), lit(plan.Int64Value(math.MaxInt64)))
		}
		exprs = append(exprs, alias(wrap, fresh(psc)))
	default:
		arg := lit(plan.Int64Value(0))
		if f, ok := g.pickCol(psc, plan.Int64); ok && f.Name != x {
			arg = col(f.Name)
		}
		exprs = append(exprs, alias(udfCall(udfNdTick, arg), fresh(psc)), col(x))
	}
	return g.finish(&plan.ProjectNode{Input: wc.raw, Exprs: exprs}, wc.rows, wc)
}

// raising is an int64 expression that raises on every row (a literal
// operand) or on every row where a column is not null: a division or
// remainder by zero, checked_double of MaxInt64, neg of MinInt64.
func (g *gen) raising(c ectx) plan.Expr {
	f, ok := g.pickCol(c.sc, plan.Int64)
	switch g.r.Intn(4) {
	case 0:
		if ok {
			return call(plan.FuncDiv, col(f.Name), lit(plan.Int64Value(0)))
		}
	case 1:
		if ok {
			return call(plan.FuncMod, col(f.Name), lit(plan.Int64Value(0)))
		}
	case 2:
		return udfCall(udfCheckedDouble, lit(plan.Int64Value(math.MaxInt64)))
	}
	return call(plan.FuncNeg, lit(plan.Int64Value(math.MinInt64)))
}

// guarded builds a filter over a node whose outcome depends on the rows the
// filter removes, with data on which that shows: the filter keeps only the
// rows where an int64 column a is null, and the node below computes a / 0
// or a % 0 (an error on every other row) or a window sum, so that moving
// the filter below the node makes an error vanish or a sum shrink:
//
//	filter(is_null(a)) . sort(a / 0)                       pp.sort
//	filter(is_null(a)) . with_columns(a % 0 as x)          pp.with_columns
//	filter(is_null(a)) . select(.., a / 0 as x)            pp.project
//	filter(is_null(a)) . with_columns(sum(b).over(k) as w) pp.window
//	filter(a % 0 == 0) . union(s, s with a / 0 as a)       pp.union: pushed
//	                                                       into the first
//	                                                       input it raises
//	                                                       before the second
//	                                                       input's own error
//	filter(is_null(a)) . distinct(k)                       pp.distinct: below,
//	                                                       another row is
//	                                                       first per k
//	filter(false) . aggregate(keys=[], count(a))           pp.aggregate: a
//	                                                       global aggregate
//	                                                       of no rows is one
//	                                                       row
func (g *gen) guarded(depth int) frame {
	shape := g.r.Intn(8)
	below := depth - 2
	if shape == 4 {
		below = depth - 3 // filter . union(in, project(in)): three levels
	}
	in := g.node(below)
	sc := newScope(in.schema())
	f, ok := g.pickCol(sc, plan.Int64)
	if !ok {
		return g.filter(in)
	}
	a := f.Name
	zero := lit(plan.Int64Value(0))
	div := func(fn plan.Func) plan.Expr { return call(fn, col(a), zero) }
	used := map[string]bool{}
	isNull := call(plan.FuncIsNull, col(a))
	var mid frame
	pred := isNull
	switch shape {
	case 5:
		// distinct on another column (k, low-cardinality, when there is
		// one), keeping the first row of each.
		key, ok := sc.lookup("k")
		if !ok || key.Name == a {
			key, ok = g.anyCol(sc.without(a))
		}
		if !ok {
			return g.filter(in)
		}
		mid = g.finish(&plan.DistinctNode{Input: in.raw, Subset: []string{key.Name}}, in.rows, in)
	case 6:
		// A global aggregate, under a conjunct that reads no column (the
		// only kind that can move below it), false or null on its one row.
		aggs := []plan.Expr{alias(call(plan.FuncCount, col(a)), g.freshName(used, nil))}
		if g.r.Intn(2) == 0 {
			aggs = append(aggs, alias(call(plan.FuncLen), g.freshName(map[string]bool{plan.OutputName(aggs[0]): true}, nil)))
		}
		mid = g.finish(&plan.AggregateNode{Input: in.raw, Aggs: aggs}, 1, in)
		pred = lit(plan.BoolValue(false))
		if g.r.Intn(3) == 0 {
			pred = lit(plan.NullValue(plan.Bool))
		}
	case 0:
		mid = g.finish(&plan.SortNode{Input: in.raw, Keys: []plan.SortKey{{Expr: div(plan.FuncDiv)}}}, in.rows, in)
	case 1:
		mid = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{alias(div(plan.FuncMod), g.freshName(used, sc))}}, in.rows, in)
	case 2:
		exprs := make([]plan.Expr, 0, len(sc.fields)+1)
		for _, fl := range sc.fields {
			used[fl.Name] = true
			exprs = append(exprs, col(fl.Name))
		}
		exprs = append(exprs, alias(div(plan.FuncDiv), g.freshName(used, sc)))
		mid = g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	case 3, 7:
		key, _ := g.anyCol(sc)
		sum := &plan.Over{Agg: call(plan.FuncSum, col(a)), PartitionBy: []plan.Expr{col(key.Name)}}
		if g.r.Intn(2) == 0 {
			sum = &plan.Over{Agg: call(plan.FuncCount, col(a)), PartitionBy: []plan.Expr{col(key.Name)}}
		}
		mid = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{alias(sum, g.freshName(used, sc))}}, in.rows, in)
	default:
		exprs := make([]plan.Expr, len(sc.fields))
		for i, fl := range sc.fields {
			exprs[i] = col(fl.Name)
			if fl.Name == a {
				exprs[i] = alias(div(plan.FuncDiv), a)
			}
		}
		second := g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
		if second.raw == in.raw {
			return g.filter(in)
		}
		mid = g.unionOf([]frame{in, second})
		pred = call(plan.FuncEq, div(plan.FuncMod), zero)
	}
	if mid.raw == in.raw {
		return g.filter(in)
	}
	return g.finish(&plan.FilterNode{Input: mid.raw, Predicates: []plan.Expr{pred}}, mid.rows, mid)
}
