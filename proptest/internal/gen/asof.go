package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The as-of template: asof_join and temporal_group (docs/semantics.md),
// in the shapes their cells are about.
//
//	filter(w > 1) . asof_join(sort[k] . l, sort[k] . r)   (pp.asof_join allows)
//	filter(w > 1) . asof_join(l, r)                       (refuses: l may be unsorted)
//	filter(i == 0) . asof_join(row_index(i) . sort[k desc] . l, sort[k] . r)
//	                                                      (refuses: below, the filter
//	                                                      leaves one left row, sorted)
//	limit 1 . asof_join(row_index(i) . sort[k desc] . l, sort[k] . r)  (lp.asof_join refuses)
//	limit 2 . asof_join(sort[k] . l, r)                   (lp.asof_join)
//	project(z) . asof_join(l, r)                          (pr.asof_join)
//	filter . temporal_group(sort[t] . in)                 (pp.temporal_group, a barrier)
//
// An input is sorted on its key most of the time, and left as drawn
// otherwise, so that the nodes' order check raises invalid_input on some
// plans (unsorted data is the error path the executor must not trust).

// asofKey reports whether t may be an as-of key, and its family (integers
// compare with each other; dates and datetimes with their own type).
func asofKey(t plan.Type) (plan.Type, bool) {
	switch t {
	case plan.Int32, plan.Int64:
		return plan.Int64, true
	case plan.Date, plan.Datetime:
		return t, true
	}
	return 0, false
}

// sortedOn puts sort [key] over in (nulls first or last), a third of the
// time with a second, partial key (a tie-breaker that keeps the input
// provably sorted on key, and that no conjunct may cross: pp.sort).
func (g *gen) sortedOn(in frame, key string) frame {
	keys := []plan.SortKey{{Expr: col(key), NullsLast: g.r.Intn(2) == 0}}
	if g.r.Intn(3) == 0 {
		c := g.ctx(in, anyMode)
		if e := g.partialExpr(c, g.colType(c.sc)); e != nil {
			keys = append(keys, plan.SortKey{Expr: e, Desc: g.r.Intn(2) == 0})
		}
	}
	return g.finish(&plan.SortNode{Input: in.raw, Keys: keys}, in.rows, in)
}

// asofTolerances are the tolerances an integer key draws; temporal keys
// draw these counts of days (dates) or of the units below (datetimes).
var asofTolerances = []int64{0, 1, 2, 5, 100}

var datetimeUnits = []int64{1, 1_000_000, plan.MicrosPerDay}

// asof builds an as-of join over two subplans within depth levels and,
// most of the time, a filter, a limit or a projection over it.
func (g *gen) asof(depth int) frame {
	if depth < 1 {
		return g.scan()
	}
	// Levels: the join, a sort under it and a node over it when the depth
	// allows, the inputs within the rest.
	wrap := depth >= 3 && g.r.Intn(100) < 85
	// desc: the left input sorted descending and numbered, filtered
	// above the join to its first row (one more level: the row_index).
	desc := wrap && depth >= 4 && g.r.Intn(6) == 0
	// over: what goes over the join when it is wrapped (below 70: a
	// filter, whose left input is then sorted more often, so that
	// pp.asof_join allows as often as it refuses; below 90: a limit;
	// else a projection).
	over := g.r.Intn(100)
	avail := depth - 1
	if wrap {
		avail--
	}
	if desc {
		avail--
	}
	sortable := avail >= 1
	d := avail
	if sortable {
		d--
	}
	left, right := g.node(d), g.node(d)
	if g.r.Intn(2) == 0 {
		left = g.nodeOf(mFusion, d) // keeps the fusion template's share
	}
	if g.r.Intn(3) == 0 {
		right = g.nodeOf(mFusion, d)
	}
	ls, rs := left.schema(), right.schema()
	type pair struct{ l, r plan.Field }
	var keys []pair
	for _, lf := range ls.Fields() {
		lfam, ok := asofKey(lf.Type)
		if !ok {
			continue
		}
		for _, rf := range rs.Fields() {
			if rfam, ok := asofKey(rf.Type); ok && rfam == lfam {
				keys = append(keys, pair{lf, rf})
			}
		}
	}
	if len(keys) == 0 {
		return g.orderNode(left)
	}
	k := keys[g.r.Intn(len(keys))]
	index := "" // the left row_index's name (desc)
	switch {
	case desc:
		// Not provably sorted (pp.asof_join refuses), and unsorted
		// wherever two left keys differ: the join raises invalid_input,
		// unless the filter above moves below and leaves one left row.
		left = g.finish(&plan.SortNode{Input: left.raw, Keys: []plan.SortKey{{Expr: col(k.l.Name), Desc: true, NullsLast: true}}}, left.rows, left)
		index = g.freshName(nil, scopeOf(append(left.schema().Fields(), right.schema().Fields()...)))
		left = g.finish(&plan.RowIndexNode{Input: left.raw, Name: index}, left.rows, left)
		right = g.sortedOn(right, k.r.Name)
		ls = left.schema()
	case sortable && (g.r.Intn(3) > 0 || wrap && over < 70 && g.r.Intn(2) == 0):
		left = g.sortedOn(left, k.l.Name)
	}
	if !desc && sortable && g.r.Intn(4) > 0 {
		right = g.sortedOn(right, k.r.Name)
	}
	n := &plan.AsOfJoinNode{Left: left.raw, Right: right.raw, LeftOn: k.l.Name, RightOn: k.r.Name,
		Strategy: plan.AsofStrategy(g.r.Intn(3)), ExcludeExact: g.r.Intn(4) == 0}
	if !desc && g.r.Intn(3) == 0 {
		for _, lf := range ls.Fields() {
			if lf.Name == k.l.Name {
				continue
			}
			for _, rf := range rs.Fields() {
				if _, ok := plan.JoinKeyType(lf.Type, rf.Type); ok && rf.Name != k.r.Name && (lf.Name == rf.Name || g.r.Intn(3) == 0) {
					n.LeftBy, n.RightBy = []string{lf.Name}, []string{rf.Name}
					break
				}
			}
			if n.LeftBy != nil {
				break
			}
		}
	}
	if g.r.Intn(3) == 0 {
		tol := asofTolerances[g.r.Intn(len(asofTolerances))]
		switch k.l.Type {
		case plan.Date:
			n.Tolerance = &plan.Literal{Value: plan.DurationValue(tol * plan.MicrosPerDay)}
		case plan.Datetime:
			n.Tolerance = &plan.Literal{Value: plan.DurationValue(tol * datetimeUnits[g.r.Intn(len(datetimeUnits))])}
		default:
			n.Tolerance = &plan.Literal{Value: plan.Int64Value(tol)}
		}
	}
	if g.r.Intn(4) == 0 {
		n.Suffix = "_r"
	}
	j, err := g.tryFinish(n, left.rows, left, right)
	if err != nil {
		g.fallbacks++
		g.lastErr = err
		return left
	}
	if !wrap {
		return j
	}
	if index != "" && g.r.Intn(3) == 0 {
		// A limit of the descending left's rows: lp.asof_join refuses
		// (below, head(1) would leave one left row, sorted).
		return g.finish(&plan.LimitNode{Input: j.raw, N: reshapeLimits[g.r.Intn(len(reshapeLimits))]}, j.rows, j)
	}
	if index != "" && j.schema().Index(index) >= 0 {
		var pred plan.Expr = call(plan.FuncEq, col(index), lit(plan.Int64Value(0)))
		if g.r.Intn(4) == 0 {
			pred = call(plan.FuncLt, col(index), lit(plan.Int64Value(2)))
		}
		return g.finish(&plan.FilterNode{Input: j.raw, Predicates: []plan.Expr{pred}}, j.rows, j)
	}
	switch {
	case over < 70:
		// A conjunct on left columns (pp.asof_join's candidates), or on any.
		c := g.ctx(j, anyMode)
		if g.r.Intn(10) > 0 {
			c = g.ctx(left, anyMode)
		}
		m := g.predMode()
		if g.r.Intn(5) > 0 {
			m = boundedTotal
		}
		return g.finish(&plan.FilterNode{Input: j.raw, Predicates: []plan.Expr{g.predicate(c, m)}}, j.rows, j)
	case over < 90:
		return g.limit(j)
	}
	return g.project(j)
}

// temporalEvery are the every values of an int64 index; a datetime index
// draws them in datetimeUnits.
var temporalEvery = []int64{1, 2, 3, 5, 10, 100}

// temporal builds a temporal_group (group_by_dynamic or rolling) over a
// subplan within depth levels and, half the time, a filter, a limit or a
// projection over it.
func (g *gen) temporal(depth int) frame {
	if depth < 1 {
		return g.scan()
	}
	// Levels: the node, a sort and a null filter under it and a node over
	// it when the depth allows, the input within the rest.
	wrap := depth >= 3 && g.r.Intn(2) == 0
	avail := depth - 1
	if wrap {
		avail--
	}
	sortable := avail >= 1
	filterable := avail >= 2
	d := avail
	if sortable {
		d--
	}
	if filterable {
		d--
	}
	in := g.node(d)
	if g.r.Intn(2) == 0 {
		in = g.nodeOf(mFusion, d) // keeps the fusion template's share
	}
	sc := g.ctx(in, anyMode).sc
	var idx []plan.Field
	for _, f := range sc.fields {
		if f.Type == plan.Int64 || f.Type == plan.Datetime {
			idx = append(idx, f)
		}
	}
	if len(idx) == 0 {
		return g.orderNode(in)
	}
	ix := idx[g.r.Intn(len(idx))]
	if sortable && g.r.Intn(4) > 0 {
		in = g.sortedOn(in, ix.Name)
		if filterable && g.r.Intn(2) == 0 {
			// Over the sort (the index stays sorted): drop null indexes,
			// and sometimes rows by another conjunct.
			var preds []plan.Expr
			if ix.Nullable {
				preds = append(preds, plan.Col(ix.Name).IsNotNull().Expr())
			}
			if len(preds) == 0 || g.r.Intn(2) == 0 {
				preds = append(preds, g.predicate(g.ctx(in, anyMode), g.predMode()))
			}
			in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
		}
	}
	unit := int64(1)
	lit := func(v int64) plan.Expr {
		if ix.Type == plan.Datetime {
			return &plan.Literal{Value: plan.DurationValue(v * unit)}
		}
		return &plan.Literal{Value: plan.Int64Value(v)}
	}
	if ix.Type == plan.Datetime {
		unit = datetimeUnits[g.r.Intn(len(datetimeUnits))]
	}
	every := temporalEvery[g.r.Intn(len(temporalEvery))]
	n := &plan.TemporalGroupNode{Input: in.raw, Index: ix.Name, Mode: plan.TemporalMode(g.r.Intn(2)),
		Closed: plan.WindowClosed(g.r.Intn(5))}
	rows := in.rows
	switch n.Mode {
	case plan.TemporalDynamic:
		n.Every = lit(every)
		switch g.r.Intn(4) {
		case 0:
			n.Period = lit(2 * every)
			rows *= 3
		case 1:
			n.Period = lit(max(every/2, 1))
		}
		n.LabelKind = plan.WindowLabel(g.r.Intn(3))
	default:
		n.Period = lit(every)
	}
	if g.r.Intn(3) == 0 {
		n.Offset = lit([]int64{-3, -1, 0, 1, 2}[g.r.Intn(5)])
	}
	used := map[string]bool{ix.Name: true}
	if g.r.Intn(2) == 0 {
		if f, ok := g.anyCol(sc); ok && f.Name != ix.Name {
			n.By = []string{f.Name}
			used[f.Name] = true
		}
	}
	c := g.ctx(in, anyMode)
	if g.r.Intn(3) == 0 {
		c.mode = extTotal
	}
	for i := 1 + g.r.Intn(2); i > 0; i-- {
		name := g.freshName(used, sc)
		used[name] = true
		n.Aggs = append(n.Aggs, alias(g.aggCall(c), name))
	}
	out := g.finish(n, rows, in)
	if out.raw != n || !wrap {
		return out
	}
	switch x := g.r.Intn(100); {
	case x < 50:
		return g.filter(out)
	case x < 75:
		return g.limit(out)
	}
	return g.project(out)
}
