package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The simplify templates of the standard tier: filters and projections
// whose expressions hold what simplify rewrites (its sx.* cells), with the
// refusals close by.
//
//	filter [3 > a, a / b > 1 and false, not(not(p)), true, b < 2 * 3]
//	project [a + (1 / 0 + null(int64)) as x, if(true, 1, null(int64)) as y, coalesce(nd_seq(0), 0) as z]
//
// Constants of every type: literal arithmetic with extreme values (which
// overflows or divides by zero: sx.raise refuses, and when the constant is
// nullable its mutant — a folded null — hides the error), casts of literal
// strings (strict ones that fail), coalesce and if of literals and typed
// nulls (nullable constants that fold to a non-null value: sx.field
// refuses in a projection), checked_double of a literal, float arithmetic
// with NaN payloads and -0.0 (the fold must keep the bits), and nd_seq
// under coalesce (sx.deterministic refuses; its mutant freezes the
// counter). Comparisons with the literal or the constant on the left
// (sx.flip), and the boolean identities around total, partial,
// non-deterministic, nullable and non-nullable operands (sx.neutral,
// sx.absorb, sx.not_not), `true` conjuncts (sx.filter_true), and
// disjunctions whose arms share a conjunct (sx.factor_or).

// simplifyShape takes a share of the filter, project and with_columns
// moves for the simplify templates and builds one; ok is false when move m
// stays the generator's own. It draws from the random source only for
// those moves.
func (g *gen) simplifyShape(m move, depth int) (frame, bool) {
	if g.nodesLeft <= 0 || depth < 1 {
		return frame{}, false
	}
	switch m {
	case mFilter:
		if g.r.Intn(100) < 15 {
			if depth >= 2 && g.r.Intn(100) < 30 {
				// Over a sort, whose keys may raise: the flipped and
				// simplified conjuncts meet pp.sort.
				return g.simplifyFilter(g.sort(g.node(depth - 2))), true
			}
			return g.simplifyFilter(g.filterChild(depth)), true
		}
	case mProject, mWithColumns:
		if g.r.Intn(100) < 25 {
			return g.simplifyProjection(m, g.node(depth-1)), true
		}
	}
	return frame{}, false
}

// simplifyFilter puts a filter of one to three simplify conjuncts over in
// (sometimes with one ordinary conjunct).
func (g *gen) simplifyFilter(in frame) frame {
	c := g.ctx(in, anyMode)
	c.nd = g.r.Intn(4) == 0
	n := 1 + g.r.Intn(3)
	preds := make([]plan.Expr, 0, n+1)
	for len(preds) < n {
		preds = append(preds, g.sxPredicate(c))
	}
	if g.r.Intn(4) == 0 {
		preds = append(preds, g.predicate(c, g.predMode()))
	}
	g.r.Shuffle(len(preds), func(i, j int) { preds[i], preds[j] = preds[j], preds[i] })
	return g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
}

// simplifyProjection puts a project (m == mProject) or with_columns over
// in whose entries hold simplify's shapes, with some of the input's
// columns passed through.
func (g *gen) simplifyProjection(m move, in frame) frame {
	c := g.ctx(in, anyMode)
	c.nd = g.r.Intn(4) == 0
	sc := c.sc
	used := map[string]bool{}
	var exprs []plan.Expr
	if m == mProject {
		for _, f := range sc.fields {
			if g.r.Intn(2) == 0 {
				used[f.Name] = true
				exprs = append(exprs, col(f.Name))
			}
		}
	}
	k := 1 + g.r.Intn(3)
	for i := 0; i < k; i++ {
		var e plan.Expr
		switch x := g.r.Intn(100); {
		case x < 30:
			e = g.sxPredicate(c)
		case x < 45:
			e = g.sxIf(c, g.colType(sc))
		case x < 75:
			t := g.anyType()
			e = g.sxConst(c, t, 2)
			if f, ok := g.pickCol(sc, t); ok && g.r.Intn(2) == 0 && t != plan.Bool {
				e = g.sxCombine(t, col(f.Name), e)
			}
		default:
			e = g.sxConst(c, g.anyType(), 2)
		}
		shadow := m == mWithColumns && g.r.Intn(100) < 40
		name := g.entryName(used, sc, shadow)
		used[name] = true
		exprs = append(exprs, named(e, name))
	}
	if m == mProject {
		return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	}
	return g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// sxCombine joins a column (or any expression) x of type t with the
// constant k: arithmetic, concat or coalesce, either way round.
func (g *gen) sxCombine(t plan.Type, x, k plan.Expr) plan.Expr {
	a, b := x, k
	if g.r.Intn(3) == 0 {
		a, b = k, x
	}
	switch t {
	case plan.String:
		return call(plan.FuncConcat, a, b)
	case plan.Bool:
		return call(plan.FuncAnd, a, b)
	}
	if g.r.Intn(4) == 0 || t.IsTemporal() {
		return call(plan.FuncCoalesce, a, b)
	}
	fns := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv}
	return call(fns[g.r.Intn(len(fns))], a, b)
}

// sxPredicate is one bool expression of simplify's shapes.
func (g *gen) sxPredicate(c ectx) plan.Expr {
	if g.r.Intn(100) < 14 {
		return g.sxFactorOr(c)
	}
	switch x := g.r.Intn(100); {
	case x < 25:
		return g.sxComparison(c)
	case x < 60:
		return g.sxIdentity(c)
	case x < 66:
		return call(plan.FuncNot, call(plan.FuncNot, g.sxOperand(c)))
	case x < 72:
		return g.sxIf(c, plan.Bool)
	case x < 82:
		return lit(plan.BoolValue(true))
	default:
		return g.sxConst(c, plan.Bool, 2)
	}
}

// sxFactorOr is a disjunction of two or three arms that all hold one
// conjunct (sx.factor_or, in a filter): `(x and c) or (c and y)`. The
// common conjunct and the others are sxOperand's, total, partial or
// non-deterministic, the common one at a random place in each arm, so
// that a partial common conjunct sometimes follows a partial one in the
// first arm (refused: factored, it would raise first) and sometimes leads
// it (allowed). Sometimes one arm holds the common conjunct alone
// (nothing is factored: the arm would be left empty). A quarter of the
// time the first arm is `r and c` with r and c raising on every row, so
// that the refusal shows: factored, c would raise before r.
func (g *gen) sxFactorOr(c ectx) plan.Expr {
	operand := func() plan.Expr {
		if g.r.Intn(2) == 0 {
			if e := g.partialExpr(c, plan.Int64); e != nil {
				return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(plan.Int64)))
			}
		}
		return g.sxOperand(c)
	}
	common := operand()
	arms := 2 + g.r.Intn(2)
	lone := -1
	if g.r.Intn(8) == 0 {
		lone = g.r.Intn(arms)
	}
	// raising: the first arm is `r and c` with r and c two different
	// conjuncts raising on every row where their column is not null, so
	// that the written filter raises r's error and a factored c would
	// raise its own first (refused: r, before c, is partial).
	var first plan.Expr
	if g.r.Intn(4) == 0 {
		r, rc := g.raisingConjunct(c), g.raisingConjunct(c)
		if !plan.ExprEqual(r, rc) {
			first, common, lone = r, rc, -1
		}
	}
	var disj plan.Expr
	for i := 0; i < arms; i++ {
		if i == 0 && first != nil {
			disj = call(plan.FuncAnd, first, common)
			continue
		}
		var conj []plan.Expr
		if i != lone {
			for j := 1 + g.r.Intn(2); j > 0; j-- {
				conj = append(conj, operand())
			}
		}
		at := g.r.Intn(len(conj) + 1)
		conj = append(conj[:at], append([]plan.Expr{common}, conj[at:]...)...)
		arm := conj[0]
		for _, x := range conj[1:] {
			arm = call(plan.FuncAnd, arm, x)
		}
		if disj == nil {
			disj = arm
		} else {
			disj = call(plan.FuncOr, disj, arm)
		}
	}
	return disj
}

// raisingConjunct is a comparison of an expression raising on every row
// (where its column is not null) with a literal: g.raising's.
func (g *gen) raisingConjunct(c ectx) plan.Expr {
	return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], g.raising(c), lit(g.literal(plan.Int64)))
}

// sxComparison compares a column or expression with a literal or a
// constant, the literal side on the left more often than not.
func (g *gen) sxComparison(c ectx) plan.Expr {
	t := g.colType(c.sc)
	var x plan.Expr
	if f, ok := g.pickCol(c.sc, t); ok && g.r.Intn(3) != 0 {
		x = col(f.Name)
	} else {
		x = g.expr(c.noOver().with(g.predMode()), t, 1)
	}
	var k plan.Expr
	if g.r.Intn(2) == 0 {
		k = lit(g.literal(t))
	} else {
		k = g.sxConst(c, t, 2)
	}
	fn := cmpFuncs[g.r.Intn(len(cmpFuncs))]
	if g.r.Intn(3) != 0 {
		return call(fn, k, x)
	}
	return call(fn, x, k)
}

// sxOperand is the x of a boolean identity: total (a comparison with a
// literal, a null test, a bool column, nullable or not), partial (a
// comparison of an expression that raises on the generated data) or, when
// the context allows, non-deterministic.
func (g *gen) sxOperand(c ectx) plan.Expr {
	switch x := g.r.Intn(100); {
	case x < 20:
		if f, ok := g.pickCol(c.sc, plan.Bool); ok {
			return col(f.Name)
		}
	case x < 35:
		if f, ok := g.anyCol(c.sc); ok {
			return call(plan.FuncIsNull, col(f.Name))
		}
	case x < 60:
		t := plan.Int64
		if g.r.Intn(3) == 0 {
			t = plan.Int32
		}
		if e := g.partialExpr(c, t); e != nil {
			return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(t)))
		}
	case x < 70:
		if c.nd {
			e := g.ndPredicate(c)
			if g.r.Intn(2) == 0 {
				// is_null of a non-deterministic call: never null, so
				// absorbing it keeps the nullability.
				if cmp, ok := e.(*plan.Call); ok && len(cmp.Args) > 0 {
					return call(plan.FuncIsNull, cmp.Args[0])
				}
			}
			return e
		}
	}
	if e := g.colLitComparison(c); e != nil {
		return e
	}
	return g.boolExpr(c.noOver().with(extTotal), 1)
}

// sxIdentity is x and/or a bool literal, either way round: neutral
// (`x and true`), absorbing (`x or true`) or a null literal (no identity).
func (g *gen) sxIdentity(c ectx) plan.Expr {
	x := g.sxOperand(c)
	fn := plan.FuncAnd
	if g.r.Intn(2) == 0 {
		fn = plan.FuncOr
	}
	var v plan.Value
	switch y := g.r.Intn(100); {
	case y < 45:
		v = plan.BoolValue(fn == plan.FuncAnd) // neutral
	case y < 90:
		v = plan.BoolValue(fn == plan.FuncOr) // absorbing
	default:
		v = plan.NullValue(plan.Bool)
	}
	var k plan.Expr = lit(v)
	if g.r.Intn(5) == 0 {
		k = g.sxBoolConst(c, v) // a constant that folds to it
	}
	if g.r.Intn(2) == 0 {
		return call(fn, k, x)
	}
	return call(fn, x, k)
}

// sxBoolConst is a constant that folds to v.
func (g *gen) sxBoolConst(c ectx, v plan.Value) plan.Expr {
	if v.IsNull() {
		return call(plan.FuncEq, lit(plan.NullValue(plan.Int64)), lit(plan.Int64Value(1)))
	}
	if v.Bool() {
		return call(plan.FuncLt, lit(plan.Int64Value(1)), lit(plan.Int64Value(2)))
	}
	return call(plan.FuncNot, lit(plan.BoolValue(true)))
}

// sxIf is if() of a literal condition (or a constant that folds to one)
// over branches of type t: of one type and nullability (sx.if allows), of
// two integer types (the if() has their common type: sx.if refuses the
// narrower branch), or with a typed null (the if() is nullable).
func (g *gen) sxIf(c ectx, t plan.Type) plan.Expr {
	v := plan.BoolValue(g.r.Intn(2) == 0)
	if g.r.Intn(6) == 0 {
		v = plan.NullValue(plan.Bool)
	}
	var cond plan.Expr = lit(v)
	if g.r.Intn(4) == 0 {
		cond = g.sxBoolConst(c, v)
	}
	branch := func() plan.Expr {
		if t == plan.Bool {
			return g.sxOperand(c)
		}
		return g.expr(c.noOver().with(anyMode), t, 1)
	}
	a, b := branch(), branch()
	switch x := g.r.Intn(100); {
	case x < 25 && (t == plan.Int64 || t == plan.Int32):
		// One branch of the other integer type.
		other := plan.Int32
		if t == plan.Int32 {
			other = plan.Int64
		}
		b = g.expr(c.noOver().with(anyMode), other, 1)
	case x < 45:
		b = lit(plan.NullValue(t))
	}
	if g.r.Intn(2) == 0 {
		a, b = b, a
	}
	return call(plan.FuncIf, cond, a, b)
}

// Extreme literals for constants that overflow.
var sxExtreme = []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, -1, 0, 2}

// sxConst is a constant of type t (no column), nested at most depth deep.
func (g *gen) sxConst(c ectx, t plan.Type, depth int) plan.Expr {
	if depth <= 0 || g.r.Intn(100) < 15 {
		return lit(g.literal(t))
	}
	sub := func(t plan.Type) plan.Expr { return g.sxConst(c, t, depth-1) }
	x := g.r.Intn(100)
	if x < 6 && c.nd && t == plan.Int64 {
		// Non-deterministic: coalesce keeps it not nullable, so the
		// mutant's fold goes through sx.field.
		return call(plan.FuncCoalesce, udfCall(udfNdSeq, lit(plan.Int64Value(int64(g.r.Intn(3))))), lit(plan.Int64Value(0)))
	}
	if x < 16 {
		// Nullable constants: a typed null joins in, or a non-strict cast,
		// or a UDF (whose result is always nullable).
		switch g.r.Intn(4) {
		case 0:
			return call(plan.FuncIf, g.sxBoolConst(c, plan.BoolValue(g.r.Intn(2) == 0)), sub(t), lit(plan.NullValue(t)))
		case 1:
			if t.IsNumeric() {
				return call(plan.FuncAdd, sub(t), lit(plan.NullValue(t)))
			}
		case 2:
			if t == plan.Int64 {
				return udfCall(udfCheckedDouble, lit(plan.Int64Value(sxExtreme[g.r.Intn(len(sxExtreme))])))
			}
		}
		if !plan.CanCast(plan.String, t) {
			return lit(g.literal(t))
		}
		return &plan.Cast{Expr: lit(g.sxString(t)), To: t, Strict: false}
	}
	switch t {
	case plan.Int64, plan.Int32:
		switch g.r.Intn(6) {
		case 0:
			v := sxExtreme[g.r.Intn(len(sxExtreme))]
			var l plan.Value = plan.Int64Value(v)
			if t == plan.Int32 {
				l = plan.Int32Value(int32(v))
			}
			fns := []plan.Func{plan.FuncAdd, plan.FuncMul, plan.FuncDiv, plan.FuncMod, plan.FuncSub}
			return call(fns[g.r.Intn(len(fns))], lit(l), sub(t))
		case 1:
			return &plan.Cast{Expr: lit(g.sxString(t)), To: t, Strict: true}
		case 2:
			return call(plan.FuncNeg, sub(t))
		case 3:
			return call(plan.FuncCoalesce, lit(plan.NullValue(t)), sub(t))
		case 4:
			if t == plan.Int32 {
				return &plan.Cast{Expr: sub(plan.Int64), To: plan.Int32, Strict: g.r.Intn(2) == 0}
			}
			return &plan.Cast{Expr: sub(plan.Int32), To: plan.Int64, Strict: true}
		}
		fns := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}
		return call(fns[g.r.Intn(len(fns))], sub(t), sub(t))
	case plan.Float64:
		switch g.r.Intn(5) {
		case 0:
			return &plan.Cast{Expr: lit(g.sxString(t)), To: t, Strict: g.r.Intn(2) == 0}
		case 1:
			return call(plan.FuncNeg, sub(t))
		case 2:
			return &plan.Cast{Expr: sub(plan.Int64), To: plan.Float64, Strict: true}
		}
		fns := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}
		return call(fns[g.r.Intn(len(fns))], sub(t), sub(t))
	case plan.String:
		if g.r.Intn(2) == 0 {
			from := []plan.Type{plan.Int64, plan.Float64, plan.Bool}[g.r.Intn(3)]
			return &plan.Cast{Expr: sub(from), To: plan.String, Strict: true}
		}
		return call(plan.FuncConcat, sub(t), sub(t))
	case plan.Bool:
		switch g.r.Intn(5) {
		case 0:
			return call(plan.FuncIsNull, sub(g.anyType()))
		case 1:
			return call(plan.FuncIsNaN, sub(plan.Float64))
		case 2:
			fn := plan.FuncAnd
			if g.r.Intn(2) == 0 {
				fn = plan.FuncOr
			}
			return call(fn, sub(plan.Bool), sub(plan.Bool))
		case 3:
			return call(plan.FuncNot, sub(plan.Bool))
		}
		u := []plan.Type{plan.Int64, plan.Float64, plan.String}[g.r.Intn(3)]
		return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], sub(u), sub(u))
	}
	return lit(g.literal(t))
}

// sxString is a string literal that a cast to t may or may not parse.
func (g *gen) sxString(t plan.Type) plan.Value {
	var good []string
	switch t {
	case plan.Int64:
		good = []string{"12", "-3", "9223372036854775807"}
	case plan.Int32:
		good = []string{"12", "-3", "2147483647"}
	case plan.Float64:
		good = []string{"1.5", "-0.0", "NaN", "Inf", "1e-400"}
	case plan.Bool:
		good = []string{"true", "false"}
	case plan.Date:
		good = []string{"2000-02-29", "1970-01-01", "+5881580-07-11"}
	case plan.Datetime:
		good = []string{"2000-02-29T23:59:59.999999", "1970-01-01T00:00:00"}
	default:
		good = []string{"s"}
	}
	bad := []string{"x", "", "1e400", "99999999999999999999", "2147483648"}
	if g.r.Intn(3) == 0 {
		return plan.StringValue(bad[g.r.Intn(len(bad))])
	}
	return plan.StringValue(good[g.r.Intn(len(good))])
}
