package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The standard tier's crossings of predicate_pushdown: shapes whose cells
// (docs/legality.md, "standard tier") both allow and refuse, with data that
// makes each mutant visible. Conjuncts below a keyed aggregate or a
// distinct must see a group's rows alike, which a float64 key of -0.0 and
// 0.0 tests (pp.aggregate.keys, pp.distinct.keys); a conjunct moving into a
// join input must leave the keys' errors alone (pp.join.keys); and a
// conjunct copied along an inner join's keys must mean the same on both
// sides (pp.join.key_equivalence).

// signedZero is a float64 expression that is -0.0 on the rows where the
// numeric column c is negative and 0.0 where it is not (NaN on ±Inf and
// NaN): a key whose groups hold both zeros.
func signedZero(c plan.Field) plan.Expr {
	var e plan.Expr = col(c.Name)
	if c.Type != plan.Float64 {
		e = &plan.Cast{Expr: e, To: plan.Float64}
	}
	return call(plan.FuncMul, e, lit(plan.Float64Value(0)))
}

// zeroConjunct is a conjunct on the float64 column z: one that tells -0.0
// from 0.0 (1.0 / z > 0.0, or its cast to string), one that cannot (a
// comparison, a NaN or null test), or a partial one (a strict cast to an
// integer fails on NaN).
func (g *gen) zeroConjunct(z string) plan.Expr {
	switch g.r.Intn(8) {
	case 0, 1:
		return call(plan.FuncGt, call(plan.FuncDiv, lit(plan.Float64Value(1)), col(z)), lit(plan.Float64Value(0)))
	case 2:
		s := "0.0"
		if g.r.Intn(2) == 0 {
			s = "-0.0"
		}
		return call(plan.FuncEq, &plan.Cast{Expr: col(z), To: plan.String}, lit(plan.StringValue(s)))
	case 3:
		return call(plan.FuncIsNaN, col(z))
	case 4:
		return call(plan.FuncGt, &plan.Cast{Expr: col(z), To: plan.Int64, Strict: true}, lit(plan.Int64Value(-1)))
	default:
		return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], col(z), lit(plan.Float64Value(0)))
	}
}

// standardCrossings builds one of the standard tier's crossing shapes, each
// within the depth budget (the nodes it puts above its inputs: three, or
// four for keyEquivalence).
func (g *gen) standardCrossings(depth int) frame {
	if depth < 3 {
		return g.node(depth)
	}
	if g.r.Intn(10) == 0 {
		return g.joinOptionCrossing(depth)
	}
	switch x := g.r.Intn(6); {
	case x < 3:
		return g.zeroKeyed(depth)
	case x == 2 || depth < 4:
		return g.guardedJoinKey(depth)
	default:
		return g.keyEquivalence(depth)
	}
}

// zeroKeyed groups (or deduplicates) by a key holding both -0.0 and 0.0,
// then filters on it:
//
//	filter(1.0 / z > 0.0, ...) . group_by(z, ...).agg(count(c) as n) . with_columns(cast(c, float64) * 0.0 as z)
//	filter(1.0 / z > 0.0) . distinct(z) . with_columns(c * 0.0 as z) . sort(c)
//
// The group of z takes the bits of its first row; below the aggregate,
// only the rows of one sign pass, and the key changes sign
// (pp.aggregate.keys, pp.distinct.keys). Sometimes an aggregate that can
// raise (pp.aggregate.total), a conjunct on the aggregate's output or
// outside the subset (pp.aggregate, pp.distinct) joins in. A third of the
// time the input is sorted on c first, so that the group's first row is
// its most negative one: -0.0 whenever c has a negative value.
func (g *gen) zeroKeyed(depth int) frame {
	// sorted: the input sorted on the key's source first, so that the
	// first row of z's group is a negative one (-0.0) whenever the source
	// has one, and a conjunct telling the zeros apart keeps another row
	// below the aggregate or distinct.
	sorted := depth >= 4 && g.r.Intn(3) == 0
	d := depth - 3
	if sorted {
		d--
	}
	in := g.node(d)
	sc := newScope(in.schema())
	var num []plan.Field
	for _, f := range sc.fields {
		// An unsigned source is never negative: no -0.0.
		if f.Type.IsNumeric() && (f.Type.IsSigned() || !f.Type.IsInteger()) {
			num = append(num, f)
		}
	}
	if len(num) == 0 {
		return g.filter(g.distinct(in))
	}
	src := num[g.r.Intn(len(num))]
	if sorted {
		in = g.finish(&plan.SortNode{Input: in.raw, Keys: []plan.SortKey{{Expr: col(src.Name), NullsLast: true}}}, in.rows, in)
	}
	z := g.freshName(map[string]bool{}, sc)
	in = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: []plan.Expr{alias(signedZero(src), z)}}, in.rows, in)
	sc = newScope(in.schema())
	other, hasOther := g.anyCol(sc.without(z))
	preds := []plan.Expr{g.zeroConjunct(z)}
	if sorted && g.r.Intn(4) > 0 {
		// 1.0 / z > 0.0: false on the -0.0 the group keeps, true below.
		preds[0] = call(plan.FuncGt, call(plan.FuncDiv, lit(plan.Float64Value(1)), col(z)), lit(plan.Float64Value(0)))
	}
	var top frame
	if g.r.Intn(2) == 0 {
		keys := []plan.Expr{col(z)}
		if hasOther && g.r.Intn(3) == 0 {
			keys = append(keys, col(other.Name))
		}
		agg := alias(call(plan.FuncCount, col(src.Name)), "n")
		switch g.r.Intn(4) {
		case 0:
			agg = alias(call(plan.FuncLen), "n")
		case 1:
			// An integer sum can overflow: pp.aggregate.total refuses.
			agg = alias(g.aggCallOf(ectx{sc: sc, mode: anyMode}, plan.FuncSum, src.Type), "n")
		}
		top = g.finish(&plan.AggregateNode{Input: in.raw, Keys: keys, Aggs: []plan.Expr{agg}}, in.rows, in)
		if g.r.Intn(4) == 0 {
			preds = append(preds, call(plan.FuncGt, col("n"), lit(plan.Int64Value(1))))
		}
	} else {
		subset := []string{z}
		switch x := g.r.Intn(6); {
		case x == 0:
			subset = nil
		case x == 1 && hasOther:
			subset = append(subset, other.Name)
		}
		top = g.finish(&plan.DistinctNode{Input: in.raw, Subset: subset}, in.rows, in)
		if hasOther && g.r.Intn(4) == 0 {
			preds = append(preds, g.colLitComparison(ectx{sc: newScope(top.schema()), mode: extTotal}))
		}
	}
	g.r.Shuffle(len(preds), func(i, j int) { preds[i], preds[j] = preds[j], preds[i] })
	return g.finish(&plan.FilterNode{Input: top.raw, Predicates: preds}, top.rows, top)
}

// guardedJoinKey joins on a left key that raises where a guard is false
// and filters on the guard:
//
//	filter(b != 0) . join(l, r, left_on=[a / b], right_on=[k])
//
// Moved into l, the guard would keep the key from meeting the rows where
// it raises (pp.join.keys refuses); other conjuncts move as the join's
// kind allows (pp.join.preserved and the null-supplying sides).
func (g *gen) guardedJoinKey(depth int) frame {
	left, right := g.node(depth-3), g.node(g.upTo(depth-3))
	ls, rs := newScope(left.schema()), newScope(right.schema())
	num, ok := g.pickCol(ls, plan.Int64)
	if !ok {
		num, ok = g.pickCol(ls, plan.Int32)
	}
	guard, gok := g.pickCol(ls, num.Type)
	rk, rok := g.pickCol(rs, plan.Int64)
	if !rok {
		rk, rok = g.pickCol(rs, plan.Int32)
	}
	if !ok || !gok || !rok {
		return g.filter(g.join(left, right, depth))
	}
	fn := []plan.Func{plan.FuncDiv, plan.FuncMod}[g.r.Intn(2)]
	lk := call(fn, col(num.Name), col(guard.Name))
	how := []plan.JoinKind{plan.InnerJoin, plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin, plan.RightJoin}[g.r.Intn(6)]
	left, right = g.boundJoin(left, right)
	j := g.finish(&plan.JoinNode{Left: left.raw, Right: right.raw, How: how, LeftOn: []plan.Expr{lk}, RightOn: []plan.Expr{col(rk.Name)}},
		left.rows*right.rows+left.rows+right.rows, left, right)
	if _, isJoin := j.raw.(*plan.JoinNode); !isJoin {
		return g.filter(j)
	}
	preds := []plan.Expr{call(plan.FuncNe, col(guard.Name), lit(zeroValue(guard.Type)))}
	if g.r.Intn(3) == 0 {
		if e := g.colLitComparison(ectx{sc: newScope(j.schema()), mode: extTotal}); e != nil {
			preds = append(preds, e)
		}
	}
	return g.finish(&plan.FilterNode{Input: j.raw, Predicates: preds}, j.rows, j)
}

// keyEquivalence filters an inner join on a key column, so that the
// conjunct may also filter the other input by its partner
// (pp.join.key_equivalence): the pair is two columns of one type most of
// the time; sometimes the inputs get a constant key that only promotion
// matches (2^53 + 1 on the left, 2^53 as a float64 on the right, filtered
// by k > 2^53) or zeros of two signs (0.0 and -0.0, filtered by
// 1.0 / k > 0.0), where a copy would drop the match.
func (g *gen) keyEquivalence(depth int) frame {
	left, right := g.node(depth-4), g.node(g.upTo(depth-4))
	var lk, rk string
	var conj plan.Expr
	switch g.r.Intn(4) {
	case 0:
		lk, rk = "k", "k"
		left = g.finish(&plan.WithColumnsNode{Input: left.raw, Exprs: []plan.Expr{alias(lit(plan.Int64Value(1<<53+1)), lk)}}, left.rows, left)
		right = g.finish(&plan.WithColumnsNode{Input: right.raw, Exprs: []plan.Expr{alias(lit(plan.Float64Value(1<<53)), rk)}}, right.rows, right)
		conj = call(plan.FuncGt, col(lk), lit(plan.Int64Value(1<<53)))
	case 1:
		lk, rk = "k", "k"
		left = g.finish(&plan.WithColumnsNode{Input: left.raw, Exprs: []plan.Expr{alias(lit(plan.Float64Value(0)), lk)}}, left.rows, left)
		right = g.finish(&plan.WithColumnsNode{Input: right.raw, Exprs: []plan.Expr{alias(lit(plan.Float64Value(math.Copysign(0, -1))), rk)}}, right.rows, right)
		conj = g.zeroConjunct(lk)
	default:
		ls, rs := newScope(left.schema()), newScope(right.schema())
		var pairs [][2]plan.Field
		for _, lf := range ls.fields {
			for _, rf := range rs.fields {
				if _, ok := plan.JoinKeyType(lf.Type, rf.Type); ok && (lf.Type == rf.Type || g.r.Intn(4) == 0) {
					pairs = append(pairs, [2]plan.Field{lf, rf})
				}
			}
		}
		if len(pairs) == 0 {
			return g.filter(g.joinAs(left, right, plan.InnerJoin, depth))
		}
		p := pairs[g.r.Intn(len(pairs))]
		lk, rk = p[0].Name, p[1].Name
		if p[0].Type == plan.Float64 && g.r.Intn(2) == 0 {
			conj = g.zeroConjunct(lk)
		} else {
			conj = g.colLitComparison(ectx{sc: scopeOf([]plan.Field{p[0]}), mode: extTotal})
		}
	}
	left, right = g.boundJoin(left, right)
	j := g.finish(&plan.JoinNode{Left: left.raw, Right: right.raw, How: plan.InnerJoin, LeftOn: []plan.Expr{col(lk)}, RightOn: []plan.Expr{col(rk)}},
		left.rows*right.rows+left.rows+right.rows, left, right)
	if _, isJoin := j.raw.(*plan.JoinNode); !isJoin || conj == nil || j.schema().Index(lk) < 0 {
		return g.filter(j)
	}
	return g.finish(&plan.FilterNode{Input: j.raw, Predicates: []plan.Expr{conj}}, j.rows, j)
}

// joinOptionCrossing filters a keyed join carrying options on one of its
// columns:
//
//	filter(a > 3) . join(l, r, on=[k = k], validate=1:m)
//	filter(a > 3) . join(l, r, on=[k = k], how=semi, residual=[a / b > 0])
//
// Half validate one or both inputs (whose keys repeat, so the join often
// raises and a filter moved into a checked input could remove the
// duplicate: pp.join.validate), half are semi or anti joins with a
// residual, partial half the time (a filter moved into the left input
// would keep the residual from meeting the pairs where it raises:
// pp.join.residual).
func (g *gen) joinOptionCrossing(depth int) frame {
	left, right := g.node(depth-3), g.node(g.upTo(depth-3))
	lk, rk := g.joinKeys(left, right)
	if len(lk) == 0 {
		return g.filter(g.join(left, right, depth))
	}
	left, right = g.boundJoin(left, right)
	j := &plan.JoinNode{Left: left.raw, Right: right.raw, LeftOn: lk, RightOn: rk}
	if g.r.Intn(2) == 0 {
		j.How = []plan.JoinKind{plan.InnerJoin, plan.InnerJoin, plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.SemiJoin, plan.AntiJoin}[g.r.Intn(7)]
		j.Validate = []plan.JoinValidate{plan.ValidateOneToOne, plan.ValidateOneToMany, plan.ValidateManyToOne}[g.r.Intn(3)]
		j.NullsEqual = g.r.Intn(3) == 0
	} else {
		j.How = []plan.JoinKind{plan.SemiJoin, plan.AntiJoin}[g.r.Intn(2)]
		g.residual(j, left, right, g.r.Intn(10) < 7)
		j.NullsEqual = g.r.Intn(4) == 0
	}
	jf, err := g.tryFinish(j, left.rows*right.rows+left.rows+right.rows, left, right)
	if err != nil {
		return g.filter(g.join(left, right, depth))
	}
	conj := g.colLitComparison(ectx{sc: newScope(jf.schema()), mode: extTotal})
	if conj == nil {
		return g.filter(jf)
	}
	return g.finish(&plan.FilterNode{Input: jf.raw, Predicates: []plan.Expr{conj}}, jf.rows, jf)
}
