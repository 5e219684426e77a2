package gen

import (
	"math"
	"slices"

	"github.com/dfopt/dfopt/plan"
)

// mode is the totality class an expression generator must stay within.
type mode uint8

const (
	// anyMode allows partial expressions, and biases toward ones that really
	// raise on the generated data.
	anyMode mode = iota
	// extTotal allows only expressions that never raise (the extended
	// totality tier): comparisons, logic, null tests, float arithmetic,
	// str_len, concat, non-strict casts, if/coalesce and declared-total UDFs
	// over such operands.
	extTotal
	// boundedTotal allows only what the bounded tier proves total: column
	// references, literals and the declared-total inc_wrap over them.
	boundedTotal
)

// scope is the input schema an expression is generated against, indexed by
// type.
type scope struct {
	fields []plan.Field
	byType [8][]int
}

func newScope(s plan.Schema) *scope { return scopeOf(s.Fields()) }

// scopeOf indexes fields by type.
func scopeOf(fields []plan.Field) *scope {
	sc := &scope{fields: fields}
	for i, f := range fields {
		if int(f.Type) < len(sc.byType) {
			sc.byType[f.Type] = append(sc.byType[f.Type], i)
		}
	}
	return sc
}

// without returns the scope without the column name.
func (sc *scope) without(name string) *scope {
	return scopeOf(slices.DeleteFunc(slices.Clone(sc.fields), func(f plan.Field) bool { return f.Name == name }))
}

// lookup returns the column name.
func (sc *scope) lookup(name string) (plan.Field, bool) {
	for _, f := range sc.fields {
		if f.Name == name {
			return f, true
		}
	}
	return plan.Field{}, false
}

// hasName reports whether the scope holds a column name.
func (sc *scope) hasName(name string) bool {
	_, ok := sc.lookup(name)
	return ok
}

// has reports whether the scope holds a column of type t.
func (sc *scope) has(t plan.Type) bool { return int(t) < len(sc.byType) && len(sc.byType[t]) > 0 }

// ectx is the context an expression is generated in.
type ectx struct {
	sc   *scope
	mode mode
	over bool // over() allowed (project and with_columns entries)
	nd   bool // nd_seq allowed
}

func (c ectx) with(m mode) ectx { c.mode = m; return c }

func (c ectx) noOver() ectx { c.over = false; return c }

// pickCol returns a random column of type t.
func (g *gen) pickCol(sc *scope, t plan.Type) (plan.Field, bool) {
	if !sc.has(t) {
		return plan.Field{}, false
	}
	idx := sc.byType[t]
	return sc.fields[idx[g.r.Intn(len(idx))]], true
}

// anyCol returns a random column of any type.
func (g *gen) anyCol(sc *scope) (plan.Field, bool) {
	if len(sc.fields) == 0 {
		return plan.Field{}, false
	}
	i := g.r.Intn(len(sc.fields))
	for k := range sc.fields {
		// Lists and structs are read only by the nested template
		// (nested.go): never a generic operand or key.
		if f := sc.fields[(i+k)%len(sc.fields)]; !f.Type.IsNested() {
			return f, true
		}
	}
	return plan.Field{}, false
}

// numericTypes and allTypes are the type pools of the generators.
var (
	numericTypes = []plan.Type{plan.Int32, plan.Int64, plan.Float64}
	// allTypes weighs the five non-temporal types double, so about a
	// quarter of the columns and expressions are temporal.
	allTypes = []plan.Type{plan.Bool, plan.Int32, plan.Int64, plan.Float64, plan.String,
		plan.Bool, plan.Int32, plan.Int64, plan.Float64, plan.String, plan.Date, plan.Datetime, plan.Duration}
)

func (g *gen) anyType() plan.Type {
	if g.r.Intn(12) == 0 {
		return narrowTypes[g.r.Intn(len(narrowTypes))]
	}
	return allTypes[g.r.Intn(len(allTypes))]
}

// colType returns the type of a random column of the scope (so that
// generated operands usually read data), or a random type.
func (g *gen) colType(sc *scope) plan.Type {
	if f, ok := g.anyCol(sc); ok && g.r.Intn(4) != 0 {
		return f.Type
	}
	return g.anyType()
}

// leaf returns a column of type t, a literal, or (outside the bounded-total
// mode) a cast of another column to t.
func (g *gen) leaf(c ectx, t plan.Type) plan.Expr {
	if f, ok := g.pickCol(c.sc, t); ok && g.r.Intn(100) < 75 {
		return col(f.Name)
	}
	if c.mode != boundedTotal && g.r.Intn(100) < 30 {
		if f, ok := g.anyCol(c.sc); ok && f.Type != t && plan.CanCast(f.Type, t) {
			return g.cast(c, col(f.Name), f.Type, t)
		}
	}
	return lit(g.literal(t))
}

// cast wraps e (of type from) in a cast to t, strict only when the mode
// allows a raising cast.
func (g *gen) cast(c ectx, e plan.Expr, from, to plan.Type) plan.Expr {
	strict := g.r.Intn(2) == 0
	if c.mode != anyMode && plan.CastCanFail(from, to) {
		strict = false
	}
	return &plan.Cast{Expr: e, To: to, Strict: strict}
}

// expr generates an expression of type t over the scope, nested at most
// depth deep, within the context's mode.
func (g *gen) expr(c ectx, t plan.Type, depth int) plan.Expr {
	if depth <= 0 || g.r.Intn(100) < 25 {
		return g.leaf(c, t)
	}
	if c.mode == boundedTotal {
		if t == plan.Int64 && g.r.Intn(3) == 0 {
			return udfCall(udfIncWrap, g.expr(c, plan.Int64, depth-1))
		}
		return g.leaf(c, t)
	}
	if c.over && c.mode == anyMode && g.r.Intn(100) < 10 {
		return g.overExpr(c, t)
	}
	switch t {
	case plan.Bool:
		return g.boolExpr(c, depth)
	case plan.String:
		return g.strExpr(c, depth)
	case plan.Date, plan.Datetime, plan.Duration:
		return g.temporalExpr(c, t, depth)
	default:
		return g.numExpr(c, t, depth)
	}
}

// operandTypes returns the operand types of an arithmetic call producing t.
func (g *gen) operandTypes(t plan.Type) (plan.Type, plan.Type) {
	if isNarrow(t) || (t.IsNumeric() && g.r.Intn(8) == 0) {
		return g.promotingPair(t)
	}
	switch t {
	case plan.Int64:
		switch g.r.Intn(5) {
		case 0:
			return plan.Int32, plan.Int64
		case 1:
			return plan.Int64, plan.Int32
		}
		return plan.Int64, plan.Int64
	case plan.Float64:
		switch g.r.Intn(4) {
		case 0:
			return plan.Float64, numericTypes[g.r.Intn(2)]
		case 1:
			return numericTypes[g.r.Intn(2)], plan.Float64
		}
		return plan.Float64, plan.Float64
	}
	return t, t
}

var arithFuncs = []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}

// numExpr generates a numeric expression of type t.
func (g *gen) numExpr(c ectx, t plan.Type, depth int) plan.Expr {
	sub := c.noOver()
	intArith := t != plan.Float64 && c.mode != anyMode // integer arithmetic may raise
	for {
		switch x := g.r.Intn(100); {
		case x < 40:
			if intArith {
				continue
			}
			fn := arithFuncs[g.r.Intn(len(arithFuncs))]
			lt, rt := g.operandTypes(t)
			left := g.expr(sub, lt, depth-1)
			var right plan.Expr
			if c.mode == anyMode && (fn == plan.FuncDiv || fn == plan.FuncMod || fn == plan.FuncMul) && g.r.Intn(2) == 0 {
				// A bare column divisor or factor: the data's zeros and
				// extremes make the call really raise.
				right = g.leaf(sub, rt)
			} else {
				right = g.expr(sub, rt, depth-1)
			}
			return call(fn, left, right)
		case x < 52:
			if intArith {
				continue
			}
			fn := plan.FuncNeg
			if g.r.Intn(2) == 0 || t.IsUnsigned() {
				fn = plan.FuncAbs // neg of an unsigned type does not type
			}
			return call(fn, g.expr(sub, t, depth-1))
		case x < 60:
			if t == plan.Int32 {
				return g.fieldExpr(sub, depth)
			}
			if t != plan.Int64 {
				continue
			}
			if g.r.Intn(3) == 0 {
				return call(plan.FuncStrLenBytes, g.expr(sub, plan.String, depth-1))
			}
			return call(plan.FuncStrLen, g.expr(sub, plan.String, depth-1))
		case x < 68:
			return call(plan.FuncIf, g.expr(sub, plan.Bool, depth-1), g.expr(sub, t, depth-1), g.expr(sub, t, depth-1))
		case x < 76:
			return g.coalesce(sub, t, depth)
		case x < 86:
			from := castSource(g.colType(c.sc), t)
			return g.cast(c, g.expr(sub, from, depth-1), from, t)
		default:
			if t == plan.Int32 && g.r.Intn(2) == 0 {
				return g.fieldExpr(sub, depth)
			}
			if t != plan.Int64 {
				continue
			}
			return g.udfExpr(sub, depth)
		}
	}
}

// udfExpr calls one of the built-in int64 UDFs, within the mode.
func (g *gen) udfExpr(c ectx, depth int) plan.Expr {
	u := udfIncWrap
	if c.mode == anyMode {
		switch g.r.Intn(3) {
		case 0:
			u = udfCheckedDouble
		case 1:
			if c.nd {
				u = udfNdSeq
			}
		}
	}
	return udfCall(u, g.expr(c, plan.Int64, depth-1))
}

func (g *gen) coalesce(c ectx, t plan.Type, depth int) plan.Expr {
	n := 1 + g.r.Intn(3)
	args := make([]plan.Expr, n)
	for i := range args {
		args[i] = g.expr(c, t, depth-1)
	}
	return call(plan.FuncCoalesce, args...)
}

var cmpFuncs = []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}

// comparison generates `left op right` of comparable operand types, the
// left side usually reading a column and the right side usually a literal.
func (g *gen) comparison(c ectx, depth int) plan.Expr {
	lt := g.colType(c.sc)
	rt := lt
	if lt.IsNumeric() && g.r.Intn(3) == 0 {
		rt = g.comparableWith(lt)
	}
	left := g.expr(c, lt, depth-1)
	var right plan.Expr
	if g.r.Intn(100) < 60 {
		right = lit(g.literal(rt))
	} else {
		right = g.expr(c, rt, depth-1)
	}
	return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], left, right)
}

// boolExpr generates a bool expression.
func (g *gen) boolExpr(c ectx, depth int) plan.Expr {
	sub := c.noOver()
	for {
		switch x := g.r.Intn(100); {
		case x < 32:
			return g.comparison(sub, depth)
		case x < 36:
			return g.strTest(sub, depth)
		case x < 38:
			return g.isIn(sub, depth)
		case x < 40:
			return g.between(sub, depth)
		case x < 55:
			fn := plan.FuncAnd
			if g.r.Intn(2) == 0 {
				fn = plan.FuncOr
			}
			return call(fn, g.expr(sub, plan.Bool, depth-1), g.expr(sub, plan.Bool, depth-1))
		case x < 62:
			return call(plan.FuncNot, g.expr(sub, plan.Bool, depth-1))
		case x < 74:
			fn := plan.FuncIsNull
			if g.r.Intn(2) == 0 {
				fn = plan.FuncIsNotNull
			}
			return call(fn, g.expr(sub, g.colType(c.sc), depth-1))
		case x < 82:
			ft := plan.Float64
			if g.r.Intn(6) == 0 {
				ft = plan.Float32
			}
			return call(plan.FuncIsNaN, g.expr(sub, ft, depth-1))
		case x < 88:
			return call(plan.FuncIf, g.expr(sub, plan.Bool, depth-1), g.expr(sub, plan.Bool, depth-1), g.expr(sub, plan.Bool, depth-1))
		case x < 93:
			return g.coalesce(sub, plan.Bool, depth)
		default:
			from := g.colType(c.sc)
			if from == plan.Bool || !plan.CanCast(from, plan.Bool) {
				continue
			}
			return g.cast(c, g.expr(sub, from, depth-1), from, plan.Bool)
		}
	}
}

// strExpr generates a string expression.
func (g *gen) strExpr(c ectx, depth int) plan.Expr {
	sub := c.noOver()
	switch x := g.r.Intn(100); {
	case x < 15:
		return g.strFunc(sub, depth)
	case x < 40:
		n := 1 + g.r.Intn(3)
		args := make([]plan.Expr, n)
		for i := range args {
			args[i] = g.expr(sub, plan.String, depth-1)
		}
		return call(plan.FuncConcat, args...)
	case x < 52:
		return call(plan.FuncIf, g.expr(sub, plan.Bool, depth-1), g.expr(sub, plan.String, depth-1), g.expr(sub, plan.String, depth-1))
	case x < 64:
		return g.coalesce(sub, plan.String, depth)
	default:
		from := g.colType(c.sc)
		return g.cast(c, g.expr(sub, from, depth-1), from, plan.String)
	}
}

// partialExpr generates a numeric or string expression of type t that
// raises on typical generated data: division or remainder by a column (which
// holds zeros), a product with a column or an extreme literal (overflow with
// MaxInt64 data), neg/abs of a column (MinInt64), a strict cast of a string
// or float column to an integer, checked_double. It returns nil when the
// scope offers no suitable column.
func (g *gen) partialExpr(c ectx, t plan.Type) plan.Expr {
	sub := c.noOver().with(anyMode)
	for tries := 0; tries < 4; tries++ {
		switch g.r.Intn(5) {
		case 0, 1:
			if !t.IsInteger() {
				continue
			}
			d, ok := g.pickCol(c.sc, t)
			if !ok {
				continue
			}
			fn := []plan.Func{plan.FuncDiv, plan.FuncMod, plan.FuncMul}[g.r.Intn(3)]
			return call(fn, g.leaf(sub, t), col(d.Name))
		case 2:
			if !t.IsSigned() { // neg and abs of an unsigned type cannot raise
				continue
			}
			f, ok := g.pickCol(c.sc, t)
			if !ok {
				continue
			}
			fn := plan.FuncNeg
			if g.r.Intn(2) == 0 {
				fn = plan.FuncAbs
			}
			return call(fn, col(f.Name))
		case 3:
			if !t.IsInteger() {
				continue
			}
			from := plan.String
			if g.r.Intn(3) == 0 {
				from = plan.Float64
			}
			f, ok := g.pickCol(c.sc, from)
			if !ok {
				continue
			}
			return &plan.Cast{Expr: col(f.Name), To: t, Strict: true}
		default:
			if t != plan.Int64 {
				continue
			}
			f, ok := g.pickCol(c.sc, plan.Int64)
			if !ok {
				continue
			}
			return udfCall(udfCheckedDouble, col(f.Name))
		}
	}
	return nil
}

// predicate generates one filter conjunct in mode m: bounded-total
// conjuncts are bool columns and literals, extended-total ones never raise,
// and in anyMode a third of the conjuncts compare a really-raising
// expression (see partialExpr).
func (g *gen) predicate(c ectx, m mode) plan.Expr {
	c = c.with(m).noOver()
	switch m {
	case boundedTotal:
		if f, ok := g.pickCol(c.sc, plan.Bool); ok && g.r.Intn(100) < 85 {
			return col(f.Name)
		}
		if g.r.Intn(4) == 0 {
			return lit(g.literal(plan.Bool))
		}
		return lit(plan.BoolValue(true))
	case anyMode:
		if g.r.Intn(3) == 0 {
			t := plan.Int64
			if g.r.Intn(3) == 0 {
				t = plan.Int32
			}
			if e := g.partialExpr(c, t); e != nil {
				return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(g.literal(t)))
			}
		}
		if c.nd && g.r.Intn(8) == 0 {
			return g.ndPredicate(c)
		}
	}
	if g.r.Intn(100) < 25 {
		if e := g.colLitComparison(c); e != nil {
			return e
		}
	}
	return g.boolExpr(c, g.exprDepth())
}

// colLitComparison is `column op literal` (or `literal op column`) with a
// non-null literal: the conjunct a table with a pushdown policy accepts
// (plan.IsColumnLiteralComparison, cell pp.scan). It never raises, and it
// reads one column, so it crosses every node that keeps that column. It
// returns nil when the scope has no column.
func (g *gen) colLitComparison(c ectx) plan.Expr {
	f, ok := g.anyCol(c.sc)
	if !ok {
		return nil
	}
	t := f.Type
	if t.IsNumeric() && g.r.Intn(4) == 0 {
		t = g.comparableWith(t)
	}
	v := g.literal(t)
	for v.IsNull() {
		v = g.literal(t)
	}
	fn := cmpFuncs[g.r.Intn(len(cmpFuncs))]
	if g.r.Intn(5) == 0 {
		return call(fn, lit(v), col(f.Name))
	}
	return call(fn, col(f.Name), lit(v))
}

// ndPredicate compares nd_seq of an int64 expression: a non-deterministic
// conjunct (nothing may duplicate or share it).
func (g *gen) ndPredicate(c ectx) plan.Expr {
	arg := g.expr(c.noOver().with(extTotal), plan.Int64, 1)
	e := udfCall(udfNdSeq, arg)
	if g.r.Intn(2) == 0 {
		e = call(plan.FuncMod, e, lit(plan.Int64Value(2)))
		return call(plan.FuncEq, e, lit(plan.Int64Value(0)))
	}
	return call(cmpFuncs[g.r.Intn(len(cmpFuncs))], e, lit(plan.Int64Value(int64(g.r.Intn(8)))))
}

// aggFor picks an aggregate whose result has type t (min, max, first and
// last yield every type) and the operand type it takes (Invalid: any type;
// for len: none).
func (g *gen) aggFor(t plan.Type) (plan.Func, plan.Type) {
	type opt struct {
		fn  plan.Func
		arg plan.Type
	}
	var opts []opt
	switch t {
	case plan.Int64:
		opts = []opt{{plan.FuncSum, plan.Int64}, {plan.FuncSum, plan.Int32}, {plan.FuncCount, plan.Invalid}, {plan.FuncLen, plan.Invalid},
			{plan.FuncNUnique, plan.Invalid}, {plan.FuncArgMin, plan.Invalid}, {plan.FuncArgMax, plan.Invalid}}
		if g.r.Intn(4) == 0 {
			opts = append(opts, opt{plan.FuncSum, []plan.Type{plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32}[g.r.Intn(5)]})
		}
	case plan.Float64:
		opts = []opt{{plan.FuncSum, plan.Float64}, {plan.FuncMean, numericTypes[g.r.Intn(3)]},
			{statAggs[g.r.Intn(len(statAggs))], numericTypes[g.r.Intn(3)]}}
	case plan.Bool:
		opts = []opt{{plan.FuncAny, plan.Bool}, {plan.FuncAll, plan.Bool}}
	}
	for _, fn := range []plan.Func{plan.FuncMin, plan.FuncMax, plan.FuncFirst, plan.FuncLast} {
		opts = append(opts, opt{fn, t})
	}
	o := opts[g.r.Intn(len(opts))]
	return o.fn, o.arg
}

// aggCallOf builds an aggregate call of fn over a row expression of type
// arg (Invalid: a column of any type).
func (g *gen) aggCallOf(c ectx, fn plan.Func, arg plan.Type) plan.Expr {
	if fn == plan.FuncLen {
		return call(plan.FuncLen)
	}
	if arg == plan.Invalid {
		arg = g.colType(c.sc)
	}
	depth := 0
	if g.r.Intn(3) == 0 {
		depth = 1 + g.r.Intn(2)
	}
	x := g.expr(c.noOver(), arg, depth)
	switch fn {
	case plan.FuncQuantile:
		qs := []float64{0, 0.25, 0.5, 1.0 / 3, 0.9, 1}
		return call(fn, x, lit(plan.Float64Value(qs[g.r.Intn(len(qs))])))
	case plan.FuncVar, plan.FuncStd:
		if g.r.Intn(2) == 0 {
			return call(fn, x, lit(plan.Int64Value(int64(g.r.Intn(3)))))
		}
	}
	return call(fn, x)
}

// statAggs are the float64 aggregates of a number beyond sum and mean.
var statAggs = []plan.Func{plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd}

// aggCall generates one aggregate call for an aggregate node.
func (g *gen) aggCall(c ectx) plan.Expr {
	switch x := g.r.Intn(100); {
	case x < 19:
		t := numericTypes[g.r.Intn(3)]
		if f, ok := g.anyCol(c.sc); ok && f.Type.IsNumeric() {
			t = f.Type
		}
		return g.aggCallOf(c, plan.FuncSum, t)
	case x < 29:
		return g.aggCallOf(c, plan.FuncMean, g.aggNumType())
	case x < 39:
		return g.aggCallOf(c, statAggs[g.r.Intn(len(statAggs))], g.aggNumType())
	case x < 44:
		fn := plan.FuncAny
		if g.r.Intn(2) == 0 {
			fn = plan.FuncAll
		}
		return g.aggCallOf(c, fn, plan.Bool)
	case x < 59:
		fn := plan.FuncMin
		if g.r.Intn(2) == 0 {
			fn = plan.FuncMax
		}
		return g.aggCallOf(c, fn, plan.Invalid)
	case x < 72:
		fn := plan.FuncFirst
		if g.r.Intn(2) == 0 {
			fn = plan.FuncLast
		}
		return g.aggCallOf(c, fn, plan.Invalid)
	case x < 82:
		return g.aggCallOf(c, plan.FuncCount, plan.Invalid)
	case x < 86:
		return g.aggCallOf(c, plan.FuncNUnique, plan.Invalid)
	case x < 90:
		fn := plan.FuncArgMin
		if g.r.Intn(2) == 0 {
			fn = plan.FuncArgMax
		}
		return g.aggCallOf(c, fn, plan.Invalid)
	default:
		return call(plan.FuncLen)
	}
}

// overExpr generates agg(...).over(keys) of type t, or (two times in five)
// a window function of type t over keys and, mostly, order keys; one time
// in eight without any partition key.
func (g *gen) overExpr(c ectx, t plan.Type) plan.Expr {
	var agg plan.Expr
	var order []plan.SortKey
	if g.r.Intn(5) < 2 {
		agg = g.windowCall(c, t)
		if g.r.Intn(4) != 0 {
			order = g.windowOrder(c)
		}
	} else {
		fn, arg := g.aggFor(t)
		agg = g.aggCallOf(c, fn, arg)
	}
	n := 1 + g.r.Intn(2)
	if g.r.Intn(8) == 0 {
		n = 0 // over() or over(order_by=[...]): one partition of every row
	}
	keys := make([]plan.Expr, 0, n)
	for i := 0; i < n; i++ {
		if f, ok := g.anyCol(c.sc); ok && g.r.Intn(100) < 85 {
			keys = append(keys, col(f.Name))
			continue
		}
		keys = append(keys, g.expr(c.noOver().with(extTotal), g.colType(c.sc), 1))
	}
	return &plan.Over{Agg: agg, PartitionBy: keys, OrderBy: order}
}

// shiftDistances are shift's n: lags and leads within small partitions,
// 0, and the extremes of int64 (no row is that far).
var shiftDistances = []int64{1, 1, 2, -1, -1, -3, 0, math.MaxInt64, math.MinInt64}

// cumSumNarrowInts are the narrower integer types whose cum_sum is int64.
var cumSumNarrowInts = []plan.Type{plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32}

// windowCall generates a window function call of type t: cum_sum (of an
// int64, int32 or a narrower integer for int64, of a float64 or float32
// for float64, of a uint64 for uint64; overflowing where the data holds
// extremes),
// cum_count, row_number, rank (dense or min, of any column, so ties,
// nulls and NaNs), cum_min, cum_max and shift (with or without a
// default literal).
func (g *gen) windowCall(c ectx, t plan.Type) plan.Expr {
	arg := func(at plan.Type) plan.Expr {
		if at == plan.Invalid {
			at = g.colType(c.sc)
		}
		depth := 0
		if g.r.Intn(4) == 0 {
			depth = 1
		}
		return g.expr(c.noOver(), at, depth)
	}
	var opts []plan.Func
	switch t {
	case plan.Int64:
		opts = []plan.Func{plan.FuncCumSum, plan.FuncCumSum, plan.FuncCumCount, plan.FuncCumCount, plan.FuncRowNumber, plan.FuncRowNumber,
			plan.FuncRank, plan.FuncRank}
	case plan.Float64, plan.Uint64:
		opts = []plan.Func{plan.FuncCumSum, plan.FuncCumSum}
	}
	opts = append(opts, plan.FuncCumMin, plan.FuncCumMax, plan.FuncShift, plan.FuncShift)
	switch fn := opts[g.r.Intn(len(opts))]; fn {
	case plan.FuncCumSum:
		at := t
		switch x := g.r.Intn(6); {
		case t == plan.Int64 && x < 2:
			at = plan.Int32
		case t == plan.Int64 && x == 2:
			at = cumSumNarrowInts[g.r.Intn(len(cumSumNarrowInts))]
		case t == plan.Float64 && x == 0:
			at = plan.Float32
		}
		return call(fn, arg(at))
	case plan.FuncCumCount:
		return call(fn, arg(plan.Invalid))
	case plan.FuncRowNumber:
		return call(fn)
	case plan.FuncRank:
		m := "dense"
		if g.r.Intn(2) == 0 {
			m = "min"
		}
		return call(fn, arg(plan.Invalid), lit(plan.StringValue(m)))
	case plan.FuncShift:
		n := lit(plan.Int64Value(shiftDistances[g.r.Intn(len(shiftDistances))]))
		if g.r.Intn(2) == 0 {
			return call(fn, arg(t), n, lit(g.literal(t)))
		}
		return call(fn, arg(t), n)
	default:
		return call(fn, arg(t))
	}
}

// windowOrder generates one or two order keys, mostly columns (whose small
// value domains make ties), with random directions and null placements.
func (g *gen) windowOrder(c ectx) []plan.SortKey {
	n := 1 + g.r.Intn(2)
	keys := make([]plan.SortKey, n)
	for i := range keys {
		var e plan.Expr
		if f, ok := g.anyCol(c.sc); ok && g.r.Intn(100) < 85 {
			e = col(f.Name)
		} else {
			e = g.expr(c.noOver().with(extTotal), g.colType(c.sc), 1)
		}
		keys[i] = plan.SortKey{Expr: e, Desc: g.r.Intn(2) == 0, NullsLast: g.r.Intn(2) == 0}
	}
	return keys
}

// windowEntry generates an expression that certainly contains over(): the
// window itself, or the window combined with a column.
func (g *gen) windowEntry(c ectx) (plan.Expr, plan.Type) {
	t := []plan.Type{plan.Int64, plan.Int64, plan.Float64, g.anyType()}[g.r.Intn(4)]
	w := g.overExpr(c, t)
	if (t == plan.Int64 || t == plan.Float64) && g.r.Intn(3) == 0 {
		if f, ok := g.pickCol(c.sc, t); ok {
			return call(plan.FuncSub, col(f.Name), w), t
		}
	}
	return w, t
}

// aggNumType is the operand type of a float aggregate (mean, median,
// quantile, var, std): the older three mostly, a narrower type now and then.
func (g *gen) aggNumType() plan.Type {
	if g.r.Intn(6) == 0 {
		return narrowTypes[g.r.Intn(len(narrowTypes))]
	}
	return numericTypes[g.r.Intn(3)]
}
