package eagertest

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// Adversarial tables for random plans: every type, nulls, NaNs with
// payloads, both zeros, infinities, the integer extremes, duplicates, and
// strings that parse (or nearly parse) as other types.
var (
	tAdv = table("adv",
		cl("i", plan.Int64, i64(0), i64(-1), i64(math.MinInt64), i64(math.MaxInt64), nI64, i64(1), i64(2), i64(2)),
		nn("j", plan.Int32, i32(0), i32(-1), i32(math.MinInt32), i32(math.MaxInt32), i32(5), i32(1), i32(2), i32(2)),
		cl("f", plan.Float64, f64(nanA), f64(negZero), f64(0), f64(math.Inf(1)), f64(math.Inf(-1)), nF64, f64(1.5), f64(nanB)),
		cl("s", plan.String, str(""), str("a"), nStr, str("héllo"), str("1"), str("-0.0"), str("NaN"), str("true")),
		cl("b", plan.Bool, plan.BoolValue(true), plan.BoolValue(false), null(plan.Bool), plan.BoolValue(true),
			plan.BoolValue(false), null(plan.Bool), plan.BoolValue(true), plan.BoolValue(true)),
	)
	// tNarrow holds the narrower numeric types at their edges (each
	// type's minimum and maximum, 0 and -1 for the unsigned casts, float32
	// NaNs, -0.0 and infinities).
	tNarrow = table("narrow",
		cl("i8", plan.Int8, plan.Int8Value(math.MinInt8), plan.Int8Value(math.MaxInt8), plan.Int8Value(-1), null(plan.Int8), plan.Int8Value(0), plan.Int8Value(2)),
		cl("i16", plan.Int16, plan.Int16Value(math.MinInt16), plan.Int16Value(-1), plan.Int16Value(math.MaxInt16), plan.Int16Value(3), null(plan.Int16), plan.Int16Value(0)),
		cl("u8", plan.Uint8, plan.Uint8Value(0), plan.Uint8Value(math.MaxUint8), plan.Uint8Value(1), plan.Uint8Value(128), plan.Uint8Value(2), null(plan.Uint8)),
		nn("u32", plan.Uint32, plan.Uint32Value(math.MaxUint32), plan.Uint32Value(0), plan.Uint32Value(1<<31), plan.Uint32Value(7), plan.Uint32Value(1), plan.Uint32Value(2)),
		cl("u64", plan.Uint64, plan.Uint64Value(math.MaxUint64), null(plan.Uint64), plan.Uint64Value(0), plan.Uint64Value(1<<63), plan.Uint64Value(5), plan.Uint64Value(1)),
		cl("h", plan.Float32, plan.Float32Value(float32(math.Inf(1))), plan.Float32Value(float32(negZero)), plan.Float32Value(math.Float32frombits(0x7fc0beef)),
			plan.Float32Value(math.MaxFloat32), null(plan.Float32), plan.Float32Value(0.1)),
	)
	tAdv2 = table("adv2",
		nn("i", plan.Int64, i64(2), i64(0), i64(7), i64(-1)),
		cl("x", plan.Float64, f64(2), f64(negZero), nF64, f64(nanB)),
		nn("s", plan.String, str("a"), str(""), str("zz"), str("1")),
	)
	// tTemporal holds date, datetime and duration columns at the
	// calendar's edges (the epoch and the day before, leap days, month
	// ends, the ends of each range) and list and struct columns (empty,
	// null and all-null lists, int64 extremes whose sums overflow, float32
	// NaNs and -0.0, a null struct and a struct of nulls).
	tTemporal = table("tmp",
		nn("k", plan.Int64, i64(1), i64(2), i64(1), i64(3), i64(2), i64(1)),
		cl("d", plan.Date, plan.DateValue(0), plan.DateValue(-1), plan.DateValue(11016), null(plan.Date), plan.DateValue(math.MinInt32), plan.DateValue(math.MaxInt32)),
		cl("m", plan.Datetime, plan.DatetimeValue(0), plan.DatetimeValue(-1), null(plan.Datetime), plan.DatetimeValue(19782*plan.MicrosPerDay+1),
			plan.DatetimeValue(math.MinInt64), plan.DatetimeValue(math.MaxInt64)),
		cl("u", plan.Duration, plan.DurationValue(plan.MicrosPerDay), plan.DurationValue(-1), plan.DurationValue(math.MaxInt64), null(plan.Duration),
			plan.DurationValue(0), plan.DurationValue(math.MinInt64)),
		cl("l", listI64, plan.ListValue(listI64, nil), null(listI64), plan.ListValue(listI64, []plan.Value{i64(math.MaxInt64), i64(1)}),
			plan.ListValue(listI64, []plan.Value{nI64, nI64}), plan.ListValue(listI64, []plan.Value{i64(3), nI64, i64(-7)}), plan.ListValue(listI64, []plan.Value{i64(2)})),
		cl("g", listF32, plan.ListValue(listF32, []plan.Value{plan.Float32Value(math.Float32frombits(0x7fc00001)), plan.Float32Value(1.5)}),
			plan.ListValue(listF32, []plan.Value{plan.Float32Value(float32(negZero))}), null(listF32), plan.ListValue(listF32, nil),
			plan.ListValue(listF32, []plan.Value{null(plan.Float32)}), plan.ListValue(listF32, []plan.Value{plan.Float32Value(-2), plan.Float32Value(float32(math.Inf(1)))})),
		cl("st", structAD, plan.StructValue(structAD, []plan.Value{plan.Int16Value(-1), plan.DateValue(11016)}), null(structAD),
			plan.StructValue(structAD, []plan.Value{null(plan.Int16), null(plan.Date)}), plan.StructValue(structAD, []plan.Value{plan.Int16Value(math.MaxInt16), plan.DateValue(0)}),
			plan.StructValue(structAD, []plan.Value{plan.Int16Value(0), null(plan.Date)}), null(structAD)),
	)
	randTables = []*plan.Table{tAdv, tAdv, tAdv2, tNarrow, tT, tD, tF, tN, tTemporal, tTemporal}
)

// The list and struct types of tTemporal.
var (
	listI64  = plan.MustListOf(plan.Int64)
	listF32  = plan.MustListOf(plan.Float32)
	structAD = plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Int16}, plan.StructField{Name: "d", Type: plan.Date})
)

// planGen draws random plans from one source of randomness.
type planGen struct {
	r    *rand.Rand
	next int // for fresh output names
}

// GenPlan generates random plans over the adversarial tables: mostly
// well-typed chains of every node kind (windows, joins of every kind,
// unions, extensions, pushed and projected scans), with a share of
// ill-typed expressions and invalid parameters. The shrinker offers a
// node's inputs (each a smaller valid plan) as candidates.
func GenPlan() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		g := &planGen{r: p.Rng}
		steps := 1 + p.Rng.Intn(2+p.MaxSize/25)
		return gopter.NewGenResult(g.chain(steps), shrinkPlan)
	}
}

func shrinkPlan(v any) gopter.Shrink {
	n, ok := v.(plan.Node)
	if !ok || n == nil {
		return gopter.NoShrink
	}
	var cands []any
	for _, c := range n.Children() {
		if c != nil {
			cands = append(cands, c)
		}
	}
	i := 0
	return func() (any, bool) {
		if i >= len(cands) {
			return nil, false
		}
		i++
		return cands[i-1], true
	}
}

func (g *planGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *planGen) name() string {
	g.next++
	return fmt.Sprintf("c%d", g.next)
}

// chain builds a scan and steps operations on top of it.
func (g *planGen) chain(steps int) plan.Node {
	n := g.scan()
	for i := 0; i < steps; i++ {
		s, ok := schemaOf(n)
		if !ok {
			break // already ill-typed: keep it as a failing case
		}
		n = g.op(n, s)
	}
	return n
}

// schemaOf resolves a partial plan (test-side, to know what to generate).
func schemaOf(n plan.Node) (plan.Schema, bool) {
	r, err := plan.Resolve(n)
	if err != nil {
		return plan.Schema{}, false
	}
	return r.Schema(), true
}

func (g *planGen) scan() plan.Node {
	t := randTables[g.r.Intn(len(randTables))]
	n := plan.Scan(t).Node().(*plan.ScanNode)
	if !g.chance(0.25) {
		return n
	}
	c := *n
	names := t.Schema().Names()
	if g.chance(0.6) {
		c.Projected = true
		for _, name := range names {
			if g.chance(0.6) {
				c.Columns = append(c.Columns, name)
			}
		}
		g.r.Shuffle(len(c.Columns), func(i, j int) { c.Columns[i], c.Columns[j] = c.Columns[j], c.Columns[i] })
	}
	if g.chance(0.5) {
		support := plan.Exact
		if g.chance(0.3) {
			support = plan.Inexact
		}
		c.Pushed = []plan.PushedPredicate{{Expr: g.expr(t.Schema(), plan.Bool, 2), Support: support}}
	}
	return &c
}

// op adds one operation over n, whose schema is s.
func (g *planGen) op(n plan.Node, s plan.Schema) plan.Node {
	f := plan.FromNode(n)
	switch g.r.Intn(13) {
	case 0, 1:
		k := 1 + g.r.Intn(2)
		preds := make([]plan.E, k)
		for i := range preds {
			preds[i] = plan.Wrap(g.expr(s, plan.Bool, 3))
		}
		return f.Filter(preds...).Node()
	case 2:
		return f.Select(g.outputs(s, 1+g.r.Intn(3), false)...).Node()
	case 3:
		return f.WithColumns(g.outputs(s, 1+g.r.Intn(2), true)...).Node()
	case 4:
		k := 1 + g.r.Intn(2)
		keys := make([]plan.SortKey, k)
		for i := range keys {
			keys[i] = plan.SortKey{Expr: g.expr(s, g.anyType(), 2), Desc: g.chance(0.5), NullsLast: g.chance(0.5)}
		}
		return f.Sort(keys...).Node()
	case 5:
		if g.chance(0.5) {
			return f.Head(int64(g.r.Intn(7)) - boolInt(g.chance(0.03))).Node()
		}
		return f.Slice(int64(g.r.Intn(7))-boolInt(g.chance(0.03)), int64(g.r.Intn(7))).Node()
	case 6, 7:
		return g.aggregate(f, s)
	case 8, 9:
		return g.join(f, s)
	case 10:
		other := n
		if g.chance(0.5) {
			other = f.Filter(plan.Wrap(g.expr(s, plan.Bool, 2))).Node()
		}
		return f.Union(plan.FromNode(other)).Node()
	case 11:
		var subset []string
		for _, name := range s.Names() {
			if g.chance(0.3) {
				subset = append(subset, name)
			}
		}
		if g.chance(0.05) {
			subset = append(subset, "nope")
		}
		return f.Distinct(subset...).Node()
	default:
		return f.Extension(testops.Identity).Node()
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// outputs draws projection or with_columns entries, some with over(),
// mostly aliased to fresh names (or, for with_columns, to existing ones).
func (g *planGen) outputs(s plan.Schema, k int, replace bool) []plan.E {
	out := make([]plan.E, k)
	for i := range out {
		var e plan.Expr
		if g.chance(0.25) {
			e = g.window(s)
		} else {
			e = g.expr(s, g.anyType(), 3)
		}
		switch {
		case g.chance(0.1):
			// unaliased: the output name is derived (and may collide)
		case replace && s.Len() > 0 && g.chance(0.4):
			e = &plan.Alias{Expr: e, Name: s.Field(g.r.Intn(s.Len())).Name}
		default:
			e = &plan.Alias{Expr: e, Name: g.name()}
		}
		out[i] = plan.Wrap(e)
	}
	return out
}

// window draws agg(x).over(keys) possibly inside arithmetic.
func (g *planGen) window(s plan.Schema) plan.Expr {
	agg := g.aggCall(s)
	k := 1 + g.r.Intn(2)
	if g.chance(0.1) {
		k = 0 // one partition of every row
	}
	keys := make([]plan.Expr, k)
	for i := range keys {
		keys[i] = g.expr(s, g.anyType(), 1)
	}
	var order []plan.SortKey
	if g.chance(0.4) {
		agg = g.windowCall(s)
		if g.chance(0.75) {
			order = make([]plan.SortKey, 1+g.r.Intn(2))
			for i := range order {
				order[i] = plan.SortKey{Expr: g.expr(s, g.anyType(), 1), Desc: g.chance(0.5), NullsLast: g.chance(0.5)}
			}
		}
	}
	var e plan.Expr = &plan.Over{Agg: agg, PartitionBy: keys, OrderBy: order}
	if g.chance(0.3) {
		e = &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{e}}
	}
	return e
}

// windowCall draws a window function call over a row expression: cum_sum
// of a number, a narrower one a quarter of the time (integer sums near the
// int64 and uint64 extremes overflow), cum_count,
// row_number, rank (dense or min), cum_min, cum_max, shift (lag, lead, 0
// or the int64 extremes, with or without a default literal).
func (g *planGen) windowCall(s plan.Schema) plan.Expr {
	fns := []plan.Func{plan.FuncCumSum, plan.FuncCumCount, plan.FuncCumMin, plan.FuncCumMax, plan.FuncRowNumber, plan.FuncRank, plan.FuncShift}
	fn := fns[g.r.Intn(len(fns))]
	if fn == plan.FuncRowNumber {
		return &plan.Call{Fn: fn}
	}
	t := g.anyType()
	if fn == plan.FuncCumSum && !g.chance(0.05) {
		t = []plan.Type{plan.Int32, plan.Int64, plan.Float64}[g.r.Intn(3)]
		if g.chance(0.25) {
			t = narrowTypes[g.r.Intn(len(narrowTypes))] // int64, uint64 or float64 sums
		}
	}
	args := []plan.Expr{g.expr(s, t, 1)}
	switch fn {
	case plan.FuncRank:
		m := []string{"dense", "min"}[g.r.Intn(2)]
		if g.chance(0.05) {
			m = "average" // a method dfopt does not have: a type error
		}
		args = append(args, &plan.Literal{Value: plan.StringValue(m)})
	case plan.FuncShift:
		n := []int64{1, 2, -1, -2, 0, math.MaxInt64, math.MinInt64}[g.r.Intn(7)]
		args = append(args, &plan.Literal{Value: plan.Int64Value(n)})
		if g.chance(0.5) {
			args = append(args, &plan.Literal{Value: g.value(t)})
		}
	}
	return &plan.Call{Fn: fn, Args: args}
}

// aggCall draws an aggregate call over a row expression.
func (g *planGen) aggCall(s plan.Schema) plan.Expr {
	fns := []plan.Func{plan.FuncSum, plan.FuncMean, plan.FuncMin, plan.FuncMax, plan.FuncCount, plan.FuncLen, plan.FuncFirst, plan.FuncLast,
		plan.FuncNUnique, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd, plan.FuncAny, plan.FuncAll, plan.FuncArgMin, plan.FuncArgMax}
	fn := fns[g.r.Intn(len(fns))]
	if fn == plan.FuncLen {
		return &plan.Call{Fn: fn}
	}
	t := g.anyType()
	switch fn {
	case plan.FuncSum, plan.FuncMean, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd:
		if !g.chance(0.05) {
			t = []plan.Type{plan.Int32, plan.Int64, plan.Float64}[g.r.Intn(3)]
		}
	case plan.FuncAny, plan.FuncAll:
		if !g.chance(0.05) {
			t = plan.Bool
		}
	}
	args := []plan.Expr{g.expr(s, t, 2)}
	switch {
	case fn == plan.FuncQuantile:
		args = append(args, &plan.Literal{Value: plan.Float64Value([]float64{0, 0.5, 0.75, 1}[g.r.Intn(4)])})
	case (fn == plan.FuncVar || fn == plan.FuncStd) && g.chance(0.5):
		args = append(args, &plan.Literal{Value: plan.Int64Value(int64(g.r.Intn(3)))})
	}
	return &plan.Call{Fn: fn, Args: args}
}

func (g *planGen) aggregate(f plan.Frame, s plan.Schema) plan.Node {
	nk := g.r.Intn(3)
	keys := make([]plan.E, nk)
	for i := range keys {
		e := g.expr(s, g.anyType(), 1)
		if _, isCol := e.(*plan.Column); !isCol || g.chance(0.5) {
			e = &plan.Alias{Expr: e, Name: g.name()}
		}
		keys[i] = plan.Wrap(e)
	}
	na := 1 + g.r.Intn(3)
	aggs := make([]plan.E, na)
	for i := range aggs {
		var e plan.Expr = &plan.Alias{Expr: g.aggCall(s), Name: g.name()}
		if g.chance(0.03) {
			e = g.expr(s, plan.Int64, 1) // not an aggregate
		}
		aggs[i] = plan.Wrap(e)
	}
	return f.GroupBy(keys...).Agg(aggs...).Node()
}

func (g *planGen) join(f plan.Frame, ls plan.Schema) plan.Node {
	right := g.chain(g.r.Intn(2))
	rs, ok := schemaOf(right)
	kinds := plan.JoinKinds()
	how := kinds[g.r.Intn(len(kinds))]
	if !ok || how == plan.CrossJoin {
		return f.CrossJoin(plan.FromNode(right)).Node()
	}
	var lk, rk []plan.E
	for _, lf := range ls.Fields() {
		for _, rf := range rs.Fields() {
			if _, ok := plan.JoinKeyType(lf.Type, rf.Type); ok && len(lk) < 2 && g.chance(0.4) {
				var l, r plan.Expr = &plan.Column{Name: lf.Name}, &plan.Column{Name: rf.Name}
				if g.chance(0.2) {
					l = g.expr(ls, lf.Type, 2)
				}
				lk, rk = append(lk, plan.Wrap(l)), append(rk, plan.Wrap(r))
			}
		}
	}
	if len(lk) == 0 && g.chance(0.9) {
		return f.CrossJoin(plan.FromNode(right)).Node()
	}
	j := f.Join(plan.FromNode(right), how, lk, rk)
	if g.chance(0.2) {
		j = j.WithSuffix("_" + g.name())
	}
	return j.Node()
}

var allTypes = []plan.Type{plan.Bool, plan.Int32, plan.Int64, plan.Float64, plan.String}

// narrowTypes are the narrower numeric types, drawn now and then.
var narrowTypes = []plan.Type{plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64, plan.Float32}

func (g *planGen) anyType() plan.Type {
	if g.chance(0.1) {
		return narrowTypes[g.r.Intn(len(narrowTypes))]
	}
	return allTypes[g.r.Intn(len(allTypes))]
}

// expr draws an expression of type t (usually) over s.
func (g *planGen) expr(s plan.Schema, t plan.Type, depth int) plan.Expr {
	if g.chance(0.02) {
		return g.illTyped(s)
	}
	if depth <= 0 || g.chance(0.3) {
		return g.leaf(s, t)
	}
	d := depth - 1
	switch t {
	case plan.Bool:
		switch g.r.Intn(7) {
		case 0:
			ot := g.anyType()
			fns := []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}
			return call(fns[g.r.Intn(len(fns))], g.expr(s, ot, d), g.expr(s, ot, d))
		case 1:
			return call([]plan.Func{plan.FuncAnd, plan.FuncOr}[g.r.Intn(2)], g.expr(s, plan.Bool, d), g.expr(s, plan.Bool, d))
		case 2:
			return call(plan.FuncNot, g.expr(s, plan.Bool, d))
		case 3:
			return call([]plan.Func{plan.FuncIsNull, plan.FuncIsNotNull}[g.r.Intn(2)], g.expr(s, g.anyType(), d))
		case 4:
			return call(plan.FuncIsNaN, g.expr(s, plan.Float64, d))
		case 5:
			if g.chance(0.5) {
				return g.strTest(s, d)
			}
			if e := g.columnFunc(s, t, d); e != nil && g.chance(0.6) {
				return e
			}
			return g.cast(s, t, d)
		default:
			return g.cond(s, t, d)
		}
	case plan.String:
		if g.chance(0.25) {
			return g.strFunc(s, d)
		}
		switch g.r.Intn(3) {
		case 0:
			return call(plan.FuncConcat, g.expr(s, plan.String, d), g.expr(s, plan.String, d))
		case 1:
			return g.cast(s, t, d)
		default:
			return g.cond(s, t, d)
		}
	}
	// numeric
	switch g.r.Intn(8) {
	case 0, 1, 2:
		fns := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}
		return call(fns[g.r.Intn(len(fns))], g.expr(s, t, d), g.expr(s, t, d))
	case 3:
		return call([]plan.Func{plan.FuncNeg, plan.FuncAbs}[g.r.Intn(2)], g.expr(s, t, d))
	case 4:
		if t == plan.Int64 {
			if g.chance(0.5) {
				return call(plan.FuncStrLen, g.expr(s, plan.String, d))
			}
			names := []string{"inc_wrap", "checked_double", "nd_seq"}
			u, _ := udfs.Lookup(names[g.r.Intn(len(names))])
			return &plan.UDFCall{UDF: u, Args: []plan.Expr{g.expr(s, plan.Int64, d)}}
		}
		return g.cast(s, t, d)
	case 5:
		if t == plan.Int32 && g.chance(0.3) {
			return g.calendarField(s, d)
		}
		if e := g.columnFunc(s, t, d); e != nil && g.chance(0.6) {
			return e
		}
		return g.cast(s, t, d)
	default:
		return g.cond(s, t, d)
	}
}

// calendarDays are dates (days since 1970-01-01) where calendar steps turn:
// month ends, leap days (2000-02-29, 2024-02-29), the day before the
// epoch, and the ends of date32's range.
var calendarDays = []int32{0, -1, 11016, 11017, 11046, 19782, 19753, 10987, math.MinInt32, math.MaxInt32, 2932896}

// calendarField draws year, month or day of truncate or offset_by of a
// date or datetime chosen by a condition between two such dates (so the
// kernel sees arrays, nulls where the condition's operands are null, and
// temporal_out_of_range at the range ends).
func (g *planGen) calendarField(s plan.Schema, d int) plan.Expr {
	dt := g.chance(0.5)
	val := func() plan.Expr {
		day := calendarDays[g.r.Intn(len(calendarDays))]
		if dt {
			us := int64(day) * plan.MicrosPerDay
			if day < plan.MinDatetimeDay || day > plan.MaxDatetimeDay {
				us = []int64{math.MinInt64, math.MaxInt64}[g.r.Intn(2)]
			}
			return &plan.Literal{Value: plan.DatetimeValue(us + int64(g.r.Intn(3))*1_800_000_001)}
		}
		return &plan.Literal{Value: plan.DateValue(day)}
	}
	x := call(plan.FuncIf, g.expr(s, plan.Bool, d), val(), val())
	fn, steps := plan.FuncOffsetBy, []string{"1mo", "-1mo", "1y", "1q2w", "-1d", "13mo", "1h"}
	if g.chance(0.5) {
		fn, steps = plan.FuncTruncate, []string{"1mo", "1q", "1y", "1w", "3d", "2h", "1y1d"}
	}
	step := call(fn, x, &plan.Literal{Value: plan.StringValue(steps[g.r.Intn(len(steps))])})
	return call([]plan.Func{plan.FuncYear, plan.FuncMonth, plan.FuncDay}[g.r.Intn(3)], step)
}

// columnFunc draws, when s has temporal, list or struct columns, a
// function of type t over one of them: for int32 a calendar field of a
// date or datetime column (shifted by a duration column now and then, so
// temporal_out_of_range at the ends); for int64 list.len, list.sum (which
// overflows on the int64 extremes) or list.get of a list<int64>; for a
// float64 list.sum of a list<float32>; for int16 a struct field; for bool
// a comparison of a temporal column with a literal, list.contains or
// is_null of a list or struct. nil when s has no such column.
func (g *planGen) columnFunc(s plan.Schema, t plan.Type, d int) plan.Expr {
	pick := func(ok func(plan.Type) bool) (plan.Expr, plan.Type) {
		var cands []plan.Field
		for _, f := range s.Fields() {
			if ok(f.Type) {
				cands = append(cands, f)
			}
		}
		if len(cands) == 0 {
			return nil, plan.Invalid
		}
		f := cands[g.r.Intn(len(cands))]
		return &plan.Column{Name: f.Name}, f.Type
	}
	isDay := func(x plan.Type) bool { return x == plan.Date || x == plan.Datetime }
	switch t {
	case plan.Int32:
		x, xt := pick(isDay)
		if x == nil {
			return nil
		}
		if u, _ := pick(func(y plan.Type) bool { return y == plan.Duration }); u != nil && g.chance(0.3) {
			x = call([]plan.Func{plan.FuncAdd, plan.FuncSub}[g.r.Intn(2)], x, u)
		}
		fns := []plan.Func{plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday}
		if xt == plan.Datetime {
			fns = append(fns, plan.FuncHour, plan.FuncSecond)
		}
		return call(fns[g.r.Intn(len(fns))], x)
	case plan.Int64:
		l, _ := pick(func(y plan.Type) bool { return y.IsList() && y.Elem() == plan.Int64 })
		if l == nil {
			return nil
		}
		switch g.r.Intn(3) {
		case 0:
			return call(plan.FuncListLen, l)
		case 1:
			return call(plan.FuncListSum, l)
		}
		return call(plan.FuncListGet, l, g.expr(s, plan.Int64, d))
	case plan.Float64:
		l, _ := pick(func(y plan.Type) bool { return y.IsList() && y.Elem().IsFloat() })
		if l == nil {
			return nil
		}
		return call(plan.FuncListSum, l)
	case plan.Int16:
		st, _ := pick(func(y plan.Type) bool {
			return y.IsStruct() && y.FieldIndex("a") >= 0 && y.StructFields()[y.FieldIndex("a")].Type == plan.Int16
		})
		if st == nil {
			return nil
		}
		return call(plan.FuncStructField, st, &plan.Literal{Value: plan.StringValue("a")})
	case plan.Bool:
		switch g.r.Intn(3) {
		case 0:
			x, xt := pick(func(y plan.Type) bool { return y.IsTemporal() })
			if x == nil {
				return nil
			}
			var v plan.Value
			switch xt {
			case plan.Date:
				v = plan.DateValue(calendarDays[g.r.Intn(len(calendarDays))])
			case plan.Datetime:
				v = plan.DatetimeValue(int64(calendarDays[g.r.Intn(len(calendarDays))]) * 1_000_000)
			default:
				v = plan.DurationValue(int64(g.r.Intn(3)-1) * plan.MicrosPerDay)
			}
			fns := []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}
			return call(fns[g.r.Intn(len(fns))], x, &plan.Literal{Value: v})
		case 1:
			l, lt := pick(func(y plan.Type) bool { return y.IsList() })
			if l == nil {
				return nil
			}
			return call(plan.FuncListContains, l, &plan.Literal{Value: g.value(lt.Elem())})
		}
		x, _ := pick(func(y plan.Type) bool { return y.IsNested() })
		if x == nil {
			return nil
		}
		return call([]plan.Func{plan.FuncIsNull, plan.FuncIsNotNull}[g.r.Intn(2)], x)
	}
	return nil
}

func call(fn plan.Func, args ...plan.Expr) plan.Expr { return &plan.Call{Fn: fn, Args: args} }

func (g *planGen) cast(s plan.Schema, t plan.Type, d int) plan.Expr {
	return &plan.Cast{Expr: g.expr(s, g.anyType(), d), To: t, Strict: g.chance(0.6)}
}

func (g *planGen) cond(s plan.Schema, t plan.Type, d int) plan.Expr {
	if g.chance(0.5) {
		return call(plan.FuncIf, g.expr(s, plan.Bool, d), g.expr(s, t, d), g.expr(s, t, d))
	}
	return call(plan.FuncCoalesce, g.expr(s, t, d), g.expr(s, t, d))
}

// leaf is a column of type t when there is one, else a literal.
func (g *planGen) leaf(s plan.Schema, t plan.Type) plan.Expr {
	var cands []string
	for _, f := range s.Fields() {
		if f.Type == t {
			cands = append(cands, f.Name)
		}
	}
	if len(cands) > 0 && g.chance(0.7) {
		return &plan.Column{Name: cands[g.r.Intn(len(cands))]}
	}
	return &plan.Literal{Value: g.value(t)}
}

func (g *planGen) value(t plan.Type) plan.Value {
	if g.chance(0.1) {
		return plan.NullValue(t)
	}
	switch t {
	case plan.Bool:
		return plan.BoolValue(g.chance(0.5))
	case plan.Int32:
		return plan.Int32Value([]int32{0, 1, -1, 2, math.MinInt32, math.MaxInt32}[g.r.Intn(6)])
	case plan.Int64:
		return plan.Int64Value([]int64{0, 1, -1, 2, 3, math.MinInt64, math.MaxInt64}[g.r.Intn(7)])
	case plan.Float64:
		return plan.Float64Value([]float64{0, negZero, 1.5, -2, nanA, math.Inf(1), math.Inf(-1), 1e300}[g.r.Intn(8)])
	case plan.Float32:
		return plan.Float32Value([]float32{0, float32(negZero), 1.5, math.MaxFloat32, float32(math.Inf(-1)), math.Float32frombits(0xffc00001)}[g.r.Intn(6)])
	case plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64:
		lo, hi, _ := plan.IntRange(t)
		switch g.r.Intn(4) {
		case 0:
			v, _ := plan.IntValue(t, lo)
			return v
		case 1:
			v, _ := plan.UintValue(t, hi)
			return v
		}
		v, _ := plan.IntValue(t, int64(g.r.Intn(3)))
		return v
	}
	return plan.StringValue([]string{"", "a", "1", "héllo", "-0.0", "x", "\xffÉß", " %_ "}[g.r.Intn(8)])
}

// illTyped draws a likely ill-typed expression: an unknown column, or a
// function over arguments of random types, or an aggregate outside its
// place.
func (g *planGen) illTyped(s plan.Schema) plan.Expr {
	switch g.r.Intn(3) {
	case 0:
		return &plan.Column{Name: "missing"}
	case 1:
		return g.aggCall(s)
	}
	fns := plan.Funcs()
	fn := fns[g.r.Intn(len(fns))]
	lo, hi := fn.Arity()
	n := lo
	if hi != lo {
		n = lo + g.r.Intn(2)
	}
	args := make([]plan.Expr, n)
	for i := range args {
		args[i] = g.leaf(s, g.anyType())
	}
	return &plan.Call{Fn: fn, Args: args}
}

// patterns are the literal patterns of the string tests and replace.
var patterns = []string{"", "a", "é", "\xc3", "%", "_", "%a%", "a%", "_%", "%!%", "!", "a_"}

func (g *planGen) pattern(s plan.Schema, d int) plan.Expr {
	if g.chance(0.7) {
		return &plan.Literal{Value: plan.StringValue(patterns[g.r.Intn(len(patterns))])}
	}
	return g.expr(s, plan.String, d)
}

// strTest draws a string test, is_in or between (docs/semantics.md,
// Strings; Sets and ranges).
func (g *planGen) strTest(s plan.Schema, d int) plan.Expr {
	switch g.r.Intn(5) {
	case 0:
		fns := []plan.Func{plan.FuncStartsWith, plan.FuncEndsWith, plan.FuncContains}
		return call(fns[g.r.Intn(len(fns))], g.expr(s, plan.String, d), g.pattern(s, d))
	case 1:
		if g.chance(0.3) {
			return call(plan.FuncLike, g.expr(s, plan.String, d), g.pattern(s, d), &plan.Literal{Value: plan.StringValue("!")})
		}
		return call(plan.FuncLike, g.expr(s, plan.String, d), g.pattern(s, d))
	case 2, 3:
		t := g.anyType()
		args := []plan.Expr{g.expr(s, t, d)}
		for n := g.r.Intn(5); n > 0; n-- {
			args = append(args, &plan.Literal{Value: g.value(t)})
		}
		return call(plan.FuncIsIn, args...)
	}
	t := g.anyType()
	return call(plan.FuncBetween, g.expr(s, t, d), g.expr(s, t, d), g.expr(s, t, d))
}

// strFunc draws a string-valued string function.
func (g *planGen) strFunc(s plan.Schema, d int) plan.Expr {
	str := g.expr(s, plan.String, d)
	switch g.r.Intn(5) {
	case 0:
		return call([]plan.Func{plan.FuncLower, plan.FuncUpper}[g.r.Intn(2)], str)
	case 1:
		return call(plan.FuncSubstring, str, g.expr(s, plan.Int64, d), g.expr(s, plan.Int32, d))
	case 2:
		return call([]plan.Func{plan.FuncReplace, plan.FuncReplaceAll}[g.r.Intn(2)], str, g.pattern(s, d), g.pattern(s, d))
	case 3:
		return call(plan.FuncStrip, str)
	}
	return call(plan.FuncStrip, str, g.pattern(s, d))
}
