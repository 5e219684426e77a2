package reference_test

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// The node cases: expected outputs worked out by hand from the operator
// section of docs/semantics.md.

func ext(t testing.TB, name string) *plan.ExtensionDef {
	d, ok := testops.Registry().Lookup(name)
	if !ok {
		t.Fatalf("no built-in extension %q", name)
	}
	return d
}

func ints(vs ...int64) []plan.Value {
	out := make([]plan.Value, len(vs))
	for i, v := range vs {
		out[i] = i64(v)
	}
	return out
}

func strs(vs ...string) []plan.Value {
	out := make([]plan.Value, len(vs))
	for i, v := range vs {
		out[i] = str(v)
	}
	return out
}

var aggregateCases = register(func(t testing.TB) []tcase {
	sumT := func(vals ...int64) *plan.Table { return table(t, "s", c("a", plan.Int64, ints(vals...)...)) }
	nI, nF, nS := null(plan.Int64), null(plan.Float64), null(plan.String)
	fT := table(t, "f",
		c("k", plan.Int64, i64(1), i64(1), i64(2), i64(2), i64(3), i64(3)),
		c("x", plan.Float64, f64(0), f64(negZero), bits(quietNaN), f64(1), f64(negZero), nF),
		c("y", plan.Float64, bits(sNaN), nF, bits(negNaN), bits(sNaN), f64(2), f64(3)),
		c("s", plan.String, str("b"), str("B"), str("a"), nS, nS, nS),
		c("i", plan.Int32, i32(math.MaxInt32), i32(math.MaxInt32), i32(1), i32(2), null(plan.Int32), null(plan.Int32)))
	keyT := table(t, "g",
		c("k", plan.Float64, f64(0), f64(negZero), bits(sNaN), bits(negNaN), nF, nF),
		c("v", plan.Int64, ints(1, 2, 3, 4, 5, 6)...))
	empty := table(t, "e", c("a", plan.Int64), c("s", plan.String))
	agg := func(tab *plan.Table, keys []plan.E, aggs ...plan.E) plan.Node {
		return plan.Scan(tab).GroupBy(keys...).Agg(aggs...).Node()
	}
	return []tcase{
		{name: "sum is exact: [Max, 1, -1]", plan: agg(sumT(maxI64, 1, -1), nil, col("a").Sum()), want: [][]plan.Value{{i64(maxI64)}}},
		{name: "sum is exact: [Max, -1, 1]", plan: agg(sumT(maxI64, -1, 1), nil, col("a").Sum()), want: [][]plan.Value{{i64(maxI64)}}},
		{name: "sum is exact: [Min, -1, 1, Max, Max, -Max]", plan: agg(sumT(minI64, -1, 1, maxI64, maxI64, -maxI64), nil, col("a").Sum()),
			want: [][]plan.Value{{i64(-1)}}},
		{name: "sum overflows when the exact total does not fit", plan: agg(sumT(maxI64, 1), nil, col("a").Sum().Alias("s")),
			err: plan.Overflow, expr: "sum(a)"},
		{name: "sum overflows below MinInt64", plan: agg(sumT(minI64, 2, -3), nil, col("a").Sum()),
			err: plan.Overflow, expr: "sum(a)"},
		{name: "float reductions in row order, the NaN rule, -0.0 and min/max by the total order",
			plan: agg(fT, []plan.E{col("k")}, col("x").Sum().Alias("sx"), col("y").Sum().Alias("sy"), col("x").Min().Alias("mn"),
				col("x").Max().Alias("mx"), col("y").Mean().Alias("my"), col("s").Min().Alias("smin"), col("s").Max().Alias("smax"),
				col("i").Sum().Alias("si"), col("i").Mean().Alias("mi"), col("i").Max().Alias("imax")),
			want: [][]plan.Value{
				ints(1, 2, 3),
				{f64(0), bits(quietNaN), f64(negZero)}, // 0 + -0 = 0; the quiet NaN first; a lone -0.0
				{bits(sNaN), bits(negNaNq), f64(5)},    // a lone NaN keeps its bits; negNaN + sNaN is negNaN, quieted
				{f64(negZero), f64(1), f64(negZero)},   // -0.0 < +0.0; NaN above everything
				{f64(0), bits(quietNaN), f64(negZero)}, // the NaN is the max
				{bits(sNaNq), bits(negNaNq), f64(2.5)}, // mean is sum / count, with the NaN rule
				{str("B"), str("a"), nS},               // bytes: "B" < "b"
				{str("b"), str("a"), nS},
				{i64(2 * math.MaxInt32), i64(3), nI}, // int32 sums to int64
				{f64(math.MaxInt32), f64(1.5), nF},
				{i32(math.MaxInt32), i32(2), null(plan.Int32)},
			}},
		{name: "count, len, first, last with nulls", plan: agg(fT, []plan.E{col("k")}, col("y").Count(), plan.Len(),
			col("y").First().Alias("f"), col("s").Last().Alias("l")),
			want: [][]plan.Value{ints(1, 2, 3), ints(1, 2, 2), ints(2, 2, 2), {bits(sNaN), bits(negNaN), f64(2)}, {str("B"), nS, nS}}},
		{name: "group keys: NaNs together, -0.0 with +0.0, nulls together, first row's bits",
			plan: agg(keyT, []plan.E{col("k")}, col("v").Sum(), plan.Len()),
			want: [][]plan.Value{{f64(0), bits(sNaN), nF}, ints(3, 7, 11), ints(2, 2, 2)}},
		{name: "no keys over empty input: one row, count and len 0, the rest null", plan: agg(empty, nil,
			col("a").Count(), plan.Len(), col("a").Sum().Alias("s"), col("a").Mean().Alias("m"), col("s").Min().Alias("mn"),
			col("s").First().Alias("f"), col("a").Last().Alias("l")),
			want: [][]plan.Value{ints(0), ints(0), {nI}, {nF}, {nS}, {nS}, {nI}}},
		{name: "n_unique: keys' equality, a null is one value", plan: agg(fT, []plan.E{col("k")}, col("x").NUnique().Alias("ux"),
			col("s").NUnique().Alias("us")),
			want: [][]plan.Value{ints(1, 2, 3), ints(1, 2, 2), ints(2, 2, 1)}},
		{name: "median and quantile: total order, NaNs last in row order, interpolation under the NaN rule",
			plan: agg(fT, []plan.E{col("k")}, col("x").Median().Alias("mx"), col("y").Median().Alias("my"), col("i").Quantile(1).Alias("qi"),
				col("i").Quantile(0.25).Alias("qq")),
			want: [][]plan.Value{ints(1, 2, 3),
				{f64(0), bits(quietNaN), f64(negZero)}, // -0 + 0.5 * (0 - -0) is +0; 1 + 0.5 * (NaN - 1) is the NaN
				{bits(sNaN), bits(negNaNq), f64(2.5)},  // a lone NaN keeps its bits; [negNaN, sNaN] interpolates to negNaN quieted
				{f64(math.MaxInt32), f64(2), nF},       // q = 1: the largest
				{f64(math.MaxInt32), f64(1.25), nF}}},  // 1 + 0.25 * (2 - 1)
		{name: "var and std: two passes, the NaN rule, null when n <= ddof",
			plan: agg(fT, []plan.E{col("k")}, col("i").Var().Alias("vi"), col("y").VarDdof(0).Alias("vy"), col("x").Std().Alias("sx")),
			want: [][]plan.Value{ints(1, 2, 3),
				{f64(0), f64(0.5), nF},                  // ddof 1: [1, 2] is 0.5; a group of no value is null
				{bits(sNaNq), bits(negNaNq), f64(0.25)}, // the mean's NaN, quieted, runs through
				{f64(0), bits(quietNaN), nF}}},          // one value with ddof 1 is null
		{name: "any and all ignore nulls: an all-null group is false and true",
			plan: agg(fT, []plan.E{col("k")}, col("s").Gt(lit("a")).Any().Alias("an"), col("s").Gt(lit("a")).All().Alias("al")),
			want: [][]plan.Value{ints(1, 2, 3), {bl(true), bl(false), bl(false)}, {bl(false), bl(false), bl(true)}}},
		{name: "no keys over empty input: n_unique 0, any false, all true, median and var null", plan: agg(empty, nil,
			col("s").NUnique().Alias("u"), col("a").Gt(lit(0)).Any().Alias("an"), col("a").Gt(lit(0)).All().Alias("al"),
			col("a").Median().Alias("m"), col("a").VarDdof(0).Alias("v")),
			want: [][]plan.Value{ints(0), {bl(false)}, {bl(true)}, {nF}, {nF}}},
		{name: "keys over empty input: no row", plan: agg(empty, []plan.E{col("s")}, col("a").Count()),
			want: [][]plan.Value{{}, {}}},
		{name: "keys, then each aggregate's argument and reduction in list order", plan: agg(table(t, "o",
			c("a", plan.Int64, ints(maxI64, 1)...), c("b", plan.Int64, ints(0, 0)...)), nil,
			col("a").Sum(), col("a").Div(col("b")).Sum().Alias("q")),
			err: plan.Overflow, expr: "sum(a)"},
		{name: "a failing key is evaluated before any aggregate", plan: agg(table(t, "o",
			c("a", plan.Int64, ints(maxI64, 1)...), c("b", plan.Int64, ints(0, 0)...)), []plan.E{col("a").Div(col("b"))},
			col("a").Sum().Alias("s")),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "window: the partition's aggregate broadcast to its rows", plan: plan.Scan(table(t, "w",
			c("k", plan.Int64, i64(1), i64(2), i64(1), nI, nI), c("v", plan.Int64, ints(1, 2, 3, 4, 5)...))).
			WithColumns(col("v").Sum().Over(col("k")).Alias("s"), plan.Len().Over(col("k")), col("v").First().Over(col("k")).Alias("f")).Node(),
			want: [][]plan.Value{{i64(1), i64(2), i64(1), nI, nI}, ints(1, 2, 3, 4, 5), ints(4, 2, 4, 9, 9), ints(2, 1, 2, 2, 2), ints(1, 2, 1, 4, 4)}},
		{name: "window: an over() in an untaken if() branch still raises", plan: plan.Scan(sumT(maxI64, 1)).
			Select(plan.If(lit(false), col("a").Sum().Over(col("a").Gt(lit(0))), lit(0))).Node(),
			err: plan.Overflow, expr: "sum(a)"},
		{name: "window: an error above the window names the over() as written, not the lifted column", plan: plan.Scan(sumT(1, 2)).
			Select(col("a").Sum().Over(col("a")).Div(lit(0))).Node(),
			err: plan.DivideByZero, expr: "sum(a).over(a) / 0"},
		{name: "window: the argument before the partition keys", plan: plan.Scan(table(t, "w",
			c("a", plan.Int64, ints(1, 2)...), c("b", plan.Int64, ints(0, 0)...))).
			Select(col("a").Div(col("b")).Sum().Over(col("a").Add(lit(int64(maxI64))))).Node(),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "window: a reduction error names the call without its alias", plan: plan.Scan(sumT(maxI64, 1)).
			Select(plan.Wrap(&plan.Over{Agg: &plan.Alias{Expr: col("a").Sum().Expr(), Name: "s"}, PartitionBy: []plan.Expr{lit(1).Expr()}})).Node(),
			err: plan.Overflow, expr: "sum(a)"},
		{name: "window: over()s in list order", plan: plan.Scan(table(t, "w",
			c("a", plan.Int64, ints(maxI64, 2)...), c("b", plan.Int64, ints(0, 0)...))).
			Select(col("a").Sum().Over(col("b")).Alias("s"), col("a").Div(col("b")).Count().Over(col("b")).Alias("c")).Node(),
			err: plan.Overflow, expr: "sum(a)"},
	}
})

var joinCases = register(func(t testing.TB) []tcase {
	nI, nS := null(plan.Int64), null(plan.String)
	L := plan.Scan(table(t, "l", c("k", plan.Int64, i64(1), i64(2), nI, i64(2), i64(3)),
		c("v", plan.String, strs("l0", "l1", "l2", "l3", "l4")...)))
	R := plan.Scan(table(t, "r", c("k", plan.Int64, i64(2), i64(1), i64(2), nI, i64(4)),
		c("v", plan.String, strs("r0", "r1", "r2", "r3", "r4")...)))
	join := func(how plan.JoinKind) plan.Node { return L.JoinOn(R, how, "k").Node() }
	return []tcase{
		{name: "inner: left order, then matches in right order; the equal-named right key is dropped", plan: join(plan.InnerJoin),
			names: []string{"k", "v", "v_right"},
			want:  [][]plan.Value{ints(1, 2, 2, 2, 2), strs("l0", "l1", "l1", "l3", "l3"), strs("r1", "r0", "r2", "r0", "r2")}},
		{name: "left: unmatched left rows once with nulls", plan: join(plan.LeftJoin),
			names: []string{"k", "v", "v_right"},
			want: [][]plan.Value{{i64(1), i64(2), i64(2), nI, i64(2), i64(2), i64(3)},
				strs("l0", "l1", "l1", "l2", "l3", "l3", "l4"),
				{str("r1"), str("r0"), str("r2"), nS, str("r0"), str("r2"), nS}}},
		{name: "right: right order, then matching left rows in left order; the key merged into the right's", plan: join(plan.RightJoin),
			names: []string{"v", "k", "v_right"},
			want: [][]plan.Value{{str("l1"), str("l3"), str("l0"), str("l1"), str("l3"), nS, nS},
				{i64(2), i64(2), i64(1), i64(2), i64(2), nI, i64(4)},
				strs("r0", "r0", "r1", "r2", "r2", "r3", "r4")}},
		{name: "right keep: both keys", plan: L.JoinOn(R, plan.RightJoin, "k").WithJoinOptions(plan.JoinOptions{Coalesce: plan.CoalesceKeep}).Node(),
			names: []string{"k", "v", "k_right", "v_right"},
			want: [][]plan.Value{{i64(2), i64(2), i64(1), i64(2), i64(2), nI, nI},
				{str("l1"), str("l3"), str("l0"), str("l1"), str("l3"), nS, nS},
				{i64(2), i64(2), i64(1), i64(2), i64(2), nI, i64(4)},
				strs("r0", "r0", "r1", "r2", "r2", "r3", "r4")}},
		{name: "full coalesce: the left key, or the right one on unmatched right rows", plan: L.JoinOn(R, plan.FullJoin, "k").WithJoinOptions(plan.JoinOptions{Coalesce: plan.CoalesceMerge}).Node(),
			names: []string{"k", "v", "v_right"},
			want: [][]plan.Value{{i64(1), i64(2), i64(2), nI, i64(2), i64(2), i64(3), nI, i64(4)},
				{str("l0"), str("l1"), str("l1"), str("l2"), str("l3"), str("l3"), str("l4"), nS, nS},
				{str("r1"), str("r0"), str("r2"), nS, str("r0"), str("r2"), nS, str("r3"), str("r4")}}},
		{name: "inner nulls_equal: null keys pair up", plan: L.JoinOn(R, plan.InnerJoin, "k").WithJoinOptions(plan.JoinOptions{NullsEqual: true}).Node(),
			names: []string{"k", "v", "v_right"},
			want:  [][]plan.Value{{i64(1), i64(2), i64(2), nI, i64(2), i64(2)}, strs("l0", "l1", "l1", "l2", "l3", "l3"), strs("r1", "r0", "r2", "r3", "r0", "r2")}},
		{name: "validate m:1: the right input repeats k = 2", plan: L.JoinOn(R, plan.LeftJoin, "k").WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateManyToOne}).Node(),
			err: plan.ValidationError, expr: "k"},
		{name: "validate 1:1 checks the left input first", plan: L.Join(R, plan.LeftJoin, []plan.E{col("k")}, []plan.E{col("k").Add(lit(0))}).
			WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateOneToOne}).Node(),
			err: plan.ValidationError, expr: "k"},
		{name: "validate m:1 names the right key list as written", plan: L.Join(R, plan.LeftJoin, []plan.E{col("k"), col("v")}, []plan.E{col("k").Add(lit(0)), col("k").Cast(plan.String)}).
			WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateManyToOne}).Node(),
			err: plan.ValidationError, expr: "k + 0, cast(k, string)"},
		{name: "validate 1:m: null keys are no duplicates", plan: L.Filter(col("v").Ne(lit("l1"))).JoinOn(R, plan.SemiJoin, "k").WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateOneToMany}).Node(),
			want: [][]plan.Value{ints(1, 2), strs("l0", "l3")}},
		{name: "anti residual: a pair counts where the residual is true", plan: L.JoinOn(R, plan.AntiJoin, "k").WithJoinOptions(plan.JoinOptions{Residual: col("v_right").Ne(lit("r0"))}).Node(),
			want: [][]plan.Value{{nI, i64(3)}, strs("l2", "l4")}},
		{name: "semi residual: null does not count", plan: L.JoinOn(R, plan.SemiJoin, "k").WithJoinOptions(plan.JoinOptions{Residual: col("v_right").Eq(lit("r2")).And(plan.Null(plan.Bool))}).Node(),
			want: [][]plan.Value{{}, {}}},
		{name: "semi residual: evaluated over every key-matched pair", plan: L.JoinOn(R, plan.SemiJoin, "k").WithJoinOptions(plan.JoinOptions{Residual: col("k").Div(col("k_right").Sub(lit(1))).Gt(lit(0))}).Node(),
			err: plan.DivideByZero, expr: "k / (k_right - 1)"},
		{name: "diagonal union: first-appearance order, nulls where missing", plan: L.Select(col("v")).UnionDiagonal(R).Node(),
			names: []string{"v", "k"},
			want: [][]plan.Value{strs("l0", "l1", "l2", "l3", "l4", "r0", "r1", "r2", "r3", "r4"),
				{nI, nI, nI, nI, nI, i64(2), i64(1), i64(2), nI, i64(4)}}},
		{name: "full: the left join, then unmatched right rows", plan: join(plan.FullJoin),
			names: []string{"k", "v", "k_right", "v_right"},
			want: [][]plan.Value{{i64(1), i64(2), i64(2), nI, i64(2), i64(2), i64(3), nI, nI},
				{str("l0"), str("l1"), str("l1"), str("l2"), str("l3"), str("l3"), str("l4"), nS, nS},
				{i64(1), i64(2), i64(2), nI, i64(2), i64(2), nI, nI, i64(4)},
				{str("r1"), str("r0"), str("r2"), nS, str("r0"), str("r2"), nS, str("r3"), str("r4")}}},
		{name: "semi: matched left rows", plan: join(plan.SemiJoin),
			want: [][]plan.Value{ints(1, 2, 2), strs("l0", "l1", "l3")}},
		{name: "anti: unmatched left rows, null keys included", plan: join(plan.AntiJoin),
			want: [][]plan.Value{{nI, i64(3)}, strs("l2", "l4")}},
		{name: "cross: every left row with every right row", plan: L.Slice(0, 2).CrossJoin(R.Slice(3, 2)).Node(),
			names: []string{"k", "v", "k_right", "v_right"},
			want:  [][]plan.Value{ints(1, 1, 2, 2), strs("l0", "l0", "l1", "l1"), {nI, i64(4), nI, i64(4)}, strs("r3", "r4", "r3", "r4")}},
		{name: "join keys: NaNs match, -0.0 matches +0.0, mixed types promote", plan: plan.Scan(table(t, "a",
			c("f", plan.Float64, bits(sNaN), f64(negZero), f64(1)), c("i", plan.Int32, i32(1), i32(2), i32(3)))).
			Join(plan.Scan(table(t, "b", c("g", plan.Float64, f64(0), bits(goNaN), f64(1)), c("j", plan.Int64, i64(2), i64(1), i64(4)))),
				plan.InnerJoin, []plan.E{col("f"), col("i")}, []plan.E{col("g"), col("j")}).Node(),
			want: [][]plan.Value{{bits(sNaN), f64(negZero)}, {i32(1), i32(2)}, {bits(goNaN), f64(0)}, ints(1, 2)}},
		{name: "join keys: int64 and float64 compare as float64", plan: plan.Scan(table(t, "a", c("i", plan.Int64, i64(1<<53+1)))).
			Join(plan.Scan(table(t, "b", c("f", plan.Float64, f64(1<<53)))), plan.InnerJoin, []plan.E{col("i")}, []plan.E{col("f")}).Node(),
			want: [][]plan.Value{ints(1<<53 + 1), {f64(1 << 53)}}},
		{name: "join: a suffix for colliding names", plan: L.JoinOn(R, plan.InnerJoin, "k").WithSuffix("_r").Node(),
			names: []string{"k", "v", "v_r"},
			want:  [][]plan.Value{ints(1, 2, 2, 2, 2), strs("l0", "l1", "l1", "l3", "l3"), strs("r1", "r0", "r2", "r0", "r2")}},
		{name: "join: a computed key keeps the right key column", plan: L.Join(R, plan.InnerJoin,
			[]plan.E{col("k").Add(lit(1))}, []plan.E{col("k")}).Node(),
			names: []string{"k", "v", "k_right", "v_right"},
			want:  [][]plan.Value{ints(1, 1, 3), strs("l0", "l0", "l4"), ints(2, 2, 4), strs("r0", "r2", "r4")}},
		{name: "join: the left keys before the right keys", plan: plan.Scan(table(t, "a", c("a", plan.Int64, ints(1)...), c("b", plan.Int64, ints(0)...))).
			Join(plan.Scan(table(t, "b", c("c", plan.Int64, ints(maxI64)...))), plan.InnerJoin,
				[]plan.E{col("a").Div(col("b"))}, []plan.E{col("c").Add(lit(1))}).Node(),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "join: left keys in list order", plan: plan.Scan(table(t, "a", c("a", plan.Int64, ints(maxI64)...), c("b", plan.Int64, ints(0)...))).
			Join(plan.Scan(table(t, "b", c("c", plan.Int64, ints(1)...), c("d", plan.Int64, ints(1)...))), plan.InnerJoin,
				[]plan.E{col("a").Add(lit(1)), col("a").Div(col("b"))}, []plan.E{col("c"), col("d")}).Node(),
			err: plan.Overflow, expr: "a + 1"},
	}
})

// topK gives the sort at the top of n, or under its projection, a limit
// of k rows (a top-k sort, as limit_pushdown writes it).
func topK(n plan.Node, k int64) plan.Node {
	switch x := n.(type) {
	case *plan.SortNode:
		return &plan.SortNode{Input: x.Input, Keys: x.Keys, HasLimit: true, Limit: k}
	case *plan.ProjectNode:
		return &plan.ProjectNode{Input: topK(x.Input, k), Exprs: x.Exprs}
	}
	return n
}

var rowCases = register(func(t testing.TB) []tcase {
	nF, nI := null(plan.Float64), null(plan.Int64)
	sortT := plan.Scan(table(t, "s",
		c("f", plan.Float64, f64(1), bits(quietNaN), f64(negZero), nF, f64(0), f64(math.Inf(-1)), bits(negNaN)),
		c("id", plan.Int64, ints(0, 1, 2, 3, 4, 5, 6)...)))
	sorted := func(desc, last bool) plan.Node {
		return sortT.Sort(plan.SortKey{Expr: col("f").Expr(), Desc: desc, NullsLast: last}).Select(col("id")).Node()
	}
	five := plan.Scan(table(t, "five", c("a", plan.Int64, ints(0, 1, 2, 3, 4)...)))
	distT := plan.Scan(table(t, "d",
		c("k", plan.Float64, f64(0), f64(negZero), bits(sNaN), bits(negNaN), nF, nF),
		c("v", plan.Int64, ints(1, 1, 2, 2, 3, 3)...)))
	return []tcase{
		{name: "sort: ascending, nulls first, floats by the total order, stable", plan: sorted(false, false),
			want: [][]plan.Value{ints(3, 5, 2, 4, 0, 1, 6)}},
		{name: "sort: descending does not move nulls", plan: sorted(true, false),
			want: [][]plan.Value{ints(3, 1, 6, 0, 4, 2, 5)}},
		{name: "sort: nulls last", plan: sorted(false, true), want: [][]plan.Value{ints(5, 2, 4, 0, 1, 6, 3)}},
		{name: "sort: descending, nulls last", plan: sorted(true, true), want: [][]plan.Value{ints(1, 6, 0, 4, 2, 5, 3)}},
		{name: "sort: several keys, ties stable", plan: plan.Scan(table(t, "m",
			c("k", plan.String, strs("b", "a", "b", "a", "B")...), c("j", plan.Bool, bl(true), bl(true), bl(false), bl(true), bl(false)),
			c("id", plan.Int64, ints(0, 1, 2, 3, 4)...))).
			Sort(plan.Asc(col("k")), plan.Desc(col("j"))).Select(col("id")).Node(),
			want: [][]plan.Value{ints(4, 1, 3, 0, 2)}},
		{name: "sort: a key expression raises", plan: five.Sort(plan.Asc(lit(int64(1)).Div(col("a")))).Node(),
			err: plan.DivideByZero, expr: "1 / a"},
		{name: "sort: a top-k sort keeps the first k rows of the stable order", plan: topK(sorted(false, false), 3),
			want: [][]plan.Value{ints(3, 5, 2)}},
		{name: "sort: a top-k sort keeps tied rows in input order", plan: topK(plan.Scan(table(t, "m",
			c("k", plan.String, strs("b", "a", "b", "a", "B")...), c("id", plan.Int64, ints(0, 1, 2, 3, 4)...))).
			Sort(plan.Asc(col("k"))).Select(col("id")).Node(), 3),
			want: [][]plan.Value{ints(4, 1, 3)}},
		{name: "sort: a top-k sort of 0 rows still evaluates its keys", plan: topK(five.Sort(plan.Asc(lit(int64(1)).Div(col("a")))).Node(), 0),
			err: plan.DivideByZero, expr: "1 / a"},
		{name: "sort: a top-k sort beyond the input keeps every row", plan: topK(five.Sort(plan.Desc(col("a"))).Node(), maxI64),
			want: [][]plan.Value{ints(4, 3, 2, 1, 0)}},
		{name: "scan: a max-rows hint nothing bounds is ignored", plan: &plan.ScanNode{Source: five.Node().(*plan.ScanNode).Source,
			SourceSchema: five.Node().(*plan.ScanNode).SourceSchema, HasMaxRows: true, MaxRows: 1},
			want: [][]plan.Value{ints(0, 1, 2, 3, 4)}},
		{name: "scan: under its limit, a max-rows hint gives the limit's rows", plan: &plan.LimitNode{N: 2, Input: &plan.ScanNode{
			Source: five.Node().(*plan.ScanNode).Source, SourceSchema: five.Node().(*plan.ScanNode).SourceSchema, HasMaxRows: true, MaxRows: 2}},
			want: [][]plan.Value{ints(0, 1)}},
		{name: "limit", plan: five.Head(2).Node(), want: [][]plan.Value{ints(0, 1)}},
		{name: "limit 0", plan: five.Head(0).Node(), want: [][]plan.Value{{}}},
		{name: "limit beyond the input", plan: five.Head(maxI64).Node(), want: [][]plan.Value{ints(0, 1, 2, 3, 4)}},
		{name: "slice clamped to the input", plan: five.Slice(3, 10).Node(), want: [][]plan.Value{ints(3, 4)}},
		{name: "slice past the end", plan: five.Slice(10, 1).Node(), want: [][]plan.Value{{}}},
		{name: "slice with the largest length", plan: five.Slice(1, maxI64).Node(), want: [][]plan.Value{ints(1, 2, 3, 4)}},
		{name: "distinct: the first row of each key", plan: distT.Distinct().Node(),
			want: [][]plan.Value{{f64(0), bits(sNaN), nF}, ints(1, 2, 3)}},
		{name: "distinct: a subset", plan: distT.Distinct("v").Node(),
			want: [][]plan.Value{{f64(0), bits(sNaN), nF}, ints(1, 2, 3)}},
		{name: "union: inputs in order", plan: five.Head(2).Union(five.Slice(4, 1), five.Slice(0, 0)).Node(),
			want: [][]plan.Value{ints(0, 1, 4)}},
		{name: "filter: a row survives iff every conjunct is valid and true", plan: plan.Scan(table(t, "f",
			c("a", plan.Int64, i64(1), nI, i64(3), i64(4)), c("p", plan.Bool, bl(true), bl(true), null(plan.Bool), bl(true)))).
			Filter(col("p"), col("a").Gt(lit(0))).Node(),
			want: [][]plan.Value{ints(1, 4), {bl(true), bl(true)}}},
		{name: "filter: every conjunct over all rows", plan: five.Filter(col("a").Gt(lit(10)), lit(int64(1)).Div(col("a")).Gt(lit(0))).Node(),
			err: plan.DivideByZero, expr: "1 / a"},
		{name: "with_columns: simultaneous, replacing in place and appending", plan: plan.Scan(table(t, "w",
			c("a", plan.Int64, ints(1, 2)...), c("b", plan.Int64, ints(10, 20)...))).
			WithColumns(col("b").Alias("a"), col("a").Alias("b"), col("a").Add(col("b")).Alias("c")).Node(),
			names: []string{"a", "b", "c"},
			want:  [][]plan.Value{ints(10, 20), ints(1, 2), ints(11, 22)}},
		{name: "project: a literal broadcasts", plan: five.Head(3).Select(lit("x"), col("a")).Node(),
			names: []string{"literal", "a"},
			want:  [][]plan.Value{strs("x", "x", "x"), ints(0, 1, 2)}},
	}
})

var extensionCases = register(func(t testing.TB) []tcase {
	nI := null(plan.Int64)
	in := plan.Scan(table(t, "x", c("a", plan.Int64, i64(1), nI, i64(3)), c("s", plan.String, strs("x", "y", "z")...)))
	full := plan.Scan(table(t, "y", c("a", plan.Int64, ints(1, 2, 3, 4, 5)...)))
	F, T := bl(false), bl(true)
	nd := plan.CallUDF(udf(t, "nd_seq"), col("a"))
	return []tcase{
		{name: "identity", plan: in.Extension(ext(t, "identity")).Node(),
			want: [][]plan.Value{{i64(1), nI, i64(3)}, strs("x", "y", "z")}},
		{name: "passthrough_tag", plan: in.Extension(ext(t, "passthrough_tag")).Node(),
			names: []string{"a", "s", "tag"},
			want:  [][]plan.Value{{i64(1), nI, i64(3)}, strs("x", "y", "z"), {F, T, F}}},
		{name: "checked_tag raises at a null first column", plan: in.Extension(ext(t, "checked_tag")).Node(),
			err: plan.UDFError, expr: "checked_tag"},
		{name: "checked_tag without nulls", plan: full.Extension(ext(t, "checked_tag")).Node(),
			want: [][]plan.Value{ints(1, 2, 3, 4, 5), {F, F, F, F, F}}},
		{name: "swap_pairs", plan: full.Extension(ext(t, "swap_pairs")).Node(),
			want: [][]plan.Value{ints(2, 1, 4, 3, 5)}},
		{name: "nd_tag numbers the rows with the call counter", plan: full.Head(3).Extension(ext(t, "nd_tag")).Node(),
			want: [][]plan.Value{ints(1, 2, 3), ints(0, 1, 2)}},
		{name: "null_first", plan: in.Extension(ext(t, "null_first")).Node(),
			want: [][]plan.Value{{nI, nI, nI}, strs("x", "y", "z")}},
		{name: "lag_first", plan: in.Extension(ext(t, "lag_first")).Node(),
			want: [][]plan.Value{{nI, i64(1), nI}, strs("x", "y", "z")}},
		{name: "built-ins over an input with no column", plan: full.Select().Extension(ext(t, "passthrough_tag")).
			Extension(ext(t, "identity")).Node(),
			names: []string{"tag"}, want: [][]plan.Value{{F, F, F, F, F}}},
		{name: "checked_tag over an input with no column never raises", plan: full.Select().Extension(ext(t, "checked_tag")).Node(),
			want: [][]plan.Value{{F, F, F, F, F}}},
		{name: "null_first and lag_first over an input with no column", plan: full.Head(2).Select().Extension(ext(t, "null_first")).
			Extension(ext(t, "lag_first")).Extension(ext(t, "nd_tag")).Node(),
			want: [][]plan.Value{ints(0, 1)}},
		{name: "swap_pairs over an even count", plan: full.Head(4).Extension(ext(t, "swap_pairs")).Node(),
			want: [][]plan.Value{ints(2, 1, 4, 3)}},
		{name: "nd_seq: one counter per collect, per row, expressions in list order", plan: full.Select(nd, nd.Alias("b")).Node(),
			want: [][]plan.Value{ints(1, 3, 5, 7, 9), ints(6, 8, 10, 12, 14)}},
		{name: "nd_seq: a null row advances the counter; the addition wraps", plan: plan.Scan(table(t, "z",
			c("a", plan.Int64, nI, i64(maxI64), i64(maxI64)))).Select(nd).Node(),
			want: [][]plan.Value{{nI, i64(minI64), i64(minI64 + 1)}}},
		{name: "nd_seq: each filter conjunct over all rows", plan: plan.Scan(table(t, "z", c("a", plan.Int64, ints(0, 0, 0)...))).
			Filter(nd.Gt(lit(1)), nd.Gt(lit(4))).Node(),
			want: [][]plan.Value{ints(0)}},
		{name: "nd_seq: a subtree used twice is evaluated twice", plan: func() plan.Node {
			s := plan.Scan(table(t, "z", c("a", plan.Int64, ints(0, 0)...))).Select(nd)
			return s.Union(s).Node()
		}(), want: [][]plan.Value{ints(0, 1, 2, 3)}},
		{name: "nd_tag after nd_seq shares the counter", plan: full.Head(2).Select(nd).Extension(ext(t, "nd_tag")).Node(),
			want: [][]plan.Value{ints(1, 3), ints(2, 3)}},
	}
})

var scanCases = register(func(t testing.TB) []tcase {
	tab := table(t, "t", c("a", plan.Int64, ints(1, 2, 3, 0)...), c("b", plan.Int64, ints(5, 6, 7, 8)...))
	scan := func(pushed []plan.PushedPredicate, projected bool, cols ...string) plan.Node {
		n := plan.Scan(tab).Node().(*plan.ScanNode)
		cp := *n
		cp.Pushed, cp.Projected, cp.Columns = pushed, projected, cols
		return &cp
	}
	pp := func(e plan.E, s plan.PredicateSupport) plan.PushedPredicate {
		return plan.PushedPredicate{Expr: e.Expr(), Support: s}
	}
	return []tcase{
		{name: "scan: an Exact conjunct filters", plan: scan([]plan.PushedPredicate{pp(col("a").Gt(lit(1)), plan.Exact)}, false),
			want: [][]plan.Value{ints(2, 3), ints(6, 7)}},
		{name: "scan: an Inexact conjunct is a hint only", plan: scan([]plan.PushedPredicate{pp(col("a").Gt(lit(1)), plan.Inexact)}, false),
			want: [][]plan.Value{ints(1, 2, 3, 0), ints(5, 6, 7, 8)}},
		{name: "scan: every Exact conjunct over every source row", plan: scan([]plan.PushedPredicate{
			pp(col("a").Gt(lit(5)), plan.Exact), pp(col("b").Div(col("a")).Gt(lit(0)), plan.Exact)}, false),
			err: plan.DivideByZero, expr: "b / a"},
		{name: "scan: projected columns, read after the conjuncts", plan: scan([]plan.PushedPredicate{pp(col("a").Lt(lit(3)), plan.Exact)}, true, "b"),
			want: [][]plan.Value{ints(5, 6, 8)}},
		{name: "scan: no column still yields the row count", plan: func() plan.Node {
			return plan.FromNode(scan(nil, true)).Agg(plan.Len()).Node()
		}(), want: [][]plan.Value{ints(4)}},
	}
})

func TestAggregatesAndWindows(t *testing.T) { runCases(t, aggregateCases(t)) }
func TestJoins(t *testing.T)                { runCases(t, joinCases(t)) }
func TestRowOperators(t *testing.T)         { runCases(t, rowCases(t)) }
func TestExtensions(t *testing.T)           { runCases(t, extensionCases(t)) }
func TestScans(t *testing.T)                { runCases(t, scanCases(t)) }
