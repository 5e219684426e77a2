package eager_test

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// planCase is one plan with its expected outcome: rows (bitwise, in order)
// or an error (kind, expression, maybe the first failing row).
type planCase struct {
	name string
	node plan.Node
	want [][]plan.Value
	err  *wantErr
	// noMethods skips the DataFrame method chain, which evaluates each step
	// at once: where a resolve-time error sits above an evaluation error,
	// only a whole-plan evaluation (FromPlan, exec) reports the former.
	noMethods bool
	// noExec skips the executor comparison (extensions it does not know).
	noExec bool
}

// The rows of tT, by index.
var (
	r0 = row(i64(1), i64(10), str("x"))
	r1 = row(i64(2), i64(20), str(""))
	r2 = row(i64(1), i64(30), str("héllo"))
	r3 = row(nI64, i64(40), nStr)
	r4 = row(i64(2), nI64, str("x"))
)

func filterCases() []planCase {
	return []planCase{
		{name: "filter/gt", node: scan(tT).Filter(col("a").Gt(lit(15))).Node(), want: [][]plan.Value{r1, r2, r3}},
		{name: "filter/null-predicate-drops", node: scan(tT).Filter(col("k").Eq(lit(1))).Node(), want: [][]plan.Value{r0, r2}},
		{name: "filter/two-conjuncts", node: scan(tT).Filter(col("k").Eq(lit(2)), col("a").IsNotNull()).Node(), want: [][]plan.Value{r1}},
		{name: "filter/empty-input", node: scan(tT).Slice(0, 0).Filter(col("a").Gt(lit(0))).Node(), want: [][]plan.Value{}},
		{name: "filter/all-null-column", node: scan(tN).Filter(col("z").IsNull()).Node(),
			want: [][]plan.Value{row(nI64, i32(1)), row(nI64, i32(2)), row(nI64, i32(1))}},
		{name: "filter/null-literal-keeps-nothing", node: scan(tT).Filter(plan.Null(plan.Bool)).Node(), want: [][]plan.Value{}},
		// The second conjunct raises at row 1 although the first is false there.
		{name: "filter/no-short-circuit", node: scan(tD).Filter(col("b").Ne(lit(0)), col("a").Div(col("b")).Gt(lit(0))).Node(),
			err: errAt(plan.DivideByZero, "a / b", 1)},
		{name: "filter/overflow", node: scan(tD).Slice(2, 1).Filter(col("a").Div(col("b")).Gt(lit(0))).Node(),
			err: errAt(plan.Overflow, "a / b", 0)},
		{name: "filter/not-bool", node: scan(tT).Filter(col("a")).Node(), err: errOf(plan.TypeError, "a")},
		{name: "filter/unknown-column", node: scan(tT).Filter(col("zz").Gt(lit(1))).Node(), err: errOf(plan.UnknownColumn, "zz")},
		{name: "filter/second-predicate-type-error", node: scan(tT).Filter(col("a").Gt(lit(1)), col("s").Add(lit(1)).Gt(lit(1))).Node(),
			err: errOf(plan.TypeError, `s + 1`)},
		{name: "filter/window", node: scan(tT).Filter(col("a").Sum().Over(col("k")).Gt(lit(1))).Node(),
			err: errOf(plan.InvalidPlan, "sum(a).over(k) > 1")},
		{name: "filter/aggregate", node: scan(tT).Filter(col("a").Sum().Gt(lit(1))).Node(), err: errOf(plan.InvalidPlan, "sum(a)")},
		{name: "filter/no-predicates", node: scan(tT).Filter().Node(), err: errOf(plan.InvalidPlan, "")},
	}
}

func projectCases() []planCase {
	return []planCase{
		{name: "project/exprs-and-broadcast-literal", node: scan(tT).Select(col("a").Mul(lit(2)).Alias("b"), lit(1), col("s")).Node(),
			want: [][]plan.Value{
				row(i64(20), i64(1), str("x")), row(i64(40), i64(1), str("")), row(i64(60), i64(1), str("héllo")),
				row(i64(80), i64(1), nStr), row(nI64, i64(1), str("x"))}},
		{name: "project/no-exprs-keeps-height", node: scan(tT).Select().Node(),
			want: [][]plan.Value{row(), row(), row(), row(), row()}},
		{name: "project/str-len-code-points", node: scan(tT).Select(col("s").StrLen()).Node(),
			want: [][]plan.Value{row(i64(1)), row(i64(0)), row(i64(5)), row(nI64), row(i64(1))}},
		{name: "project/non-nullable-stays", node: scan(tN).Select(col("m").Add(lit(int32(1))).Alias("m1"), col("z").Add(col("m")).Alias("zm")).Node(),
			want: [][]plan.Value{row(i32(2), nI64), row(i32(3), nI64), row(i32(2), nI64)}},
		{name: "project/duplicate-name", node: scan(tT).Select(col("a"), col("a").Add(lit(1))).Node(),
			err: errOf(plan.DuplicateColumn, "a")},
		{name: "project/duplicate-quoted-name", node: scan(tT).Select(col("a").Alias("x y"), col("k").Alias("x y")).Node(),
			err: errOf(plan.DuplicateColumn, `"x y"`)},
		{name: "project/overflow-first-row", node: scan(tD).Select(col("a").Mul(lit(2))).Node(),
			err: errAt(plan.Overflow, "a * 2", 2)},
		{name: "project/first-expr-error-wins", node: scan(tD).Select(col("a").Div(col("b")).Alias("q"), col("a").Mul(lit(2)).Alias("m")).Node(),
			err: errAt(plan.DivideByZero, "a / b", 1)},
		{name: "project/if-branch-sees-its-rows", node: scan(tD).Select(plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(0)).Alias("q")).Node(),
			err: errAt(plan.Overflow, "a / b", 2)},
		{name: "project/type-error", node: scan(tT).Select(col("s").Neg()).Node(), err: errOf(plan.TypeError, "-s")},
		{name: "project/aggregate-outside-window", node: scan(tT).Select(col("a").Sum()).Node(), err: errOf(plan.InvalidPlan, "sum(a)")},
	}
}

func withColumnsCases() []planCase {
	return []planCase{
		{name: "with_columns/replace-and-append", node: scan(tT).WithColumns(col("a").Add(lit(1)).Alias("a"), col("k").Alias("z")).Node(),
			want: [][]plan.Value{
				row(i64(1), i64(11), str("x"), i64(1)), row(i64(2), i64(21), str(""), i64(2)), row(i64(1), i64(31), str("héllo"), i64(1)),
				row(nI64, i64(41), nStr, nI64), row(i64(2), nI64, str("x"), i64(2))}},
		{name: "with_columns/simultaneous-swap", node: scan(tT).WithColumns(col("a").Alias("k"), col("k").Alias("a")).Node(),
			want: [][]plan.Value{
				row(i64(10), i64(1), str("x")), row(i64(20), i64(2), str("")), row(i64(30), i64(1), str("héllo")),
				row(i64(40), nI64, nStr), row(nI64, i64(2), str("x"))}},
		{name: "with_columns/duplicate", node: scan(tT).WithColumns(col("a"), col("a").Mul(lit(2))).Node(),
			err: errOf(plan.DuplicateColumn, "a")},
		{name: "with_columns/nd_seq-counts-rows", node: scan(tT).WithColumns(ndSeq(col("a")).Alias("z")).Select(col("z")).Node(),
			want: [][]plan.Value{row(i64(10)), row(i64(21)), row(i64(32)), row(i64(43)), row(nI64)}},
		{name: "with_columns/udf-error", node: scan(tBig).WithColumns(udf("checked_double", col("a")).Alias("z")).Node(),
			err: errAt(plan.UDFError, "checked_double(a)", 0)},
	}
}

func windowCases() []planCase {
	return []planCase{
		{name: "window/sum-over-keys-with-null", node: scan(tT).WithColumns(col("a").Sum().Over(col("k")).Alias("sa")).Node(),
			want: [][]plan.Value{
				append(r0, i64(40)), append(r1, i64(20)), append(r2, i64(40)), append(r3, i64(40)), append(r4, i64(20))}},
		{name: "window/len-over-named-len", node: scan(tT).Select(plan.Len().Over(col("k")), col("a")).Node(),
			want: [][]plan.Value{row(i64(2), i64(10)), row(i64(2), i64(20)), row(i64(2), i64(30)), row(i64(1), i64(40)), row(i64(2), nI64)}},
		{name: "window/replaces-in-place", node: scan(tT).WithColumns(col("a").Max().Over(col("k"))).Node(),
			want: [][]plan.Value{
				row(i64(1), i64(30), str("x")), row(i64(2), i64(20), str("")), row(i64(1), i64(30), str("héllo")),
				row(nI64, i64(40), nStr), row(i64(2), i64(20), str("x"))}},
		{name: "window/nan-and-zero-keys", node: scan(tF).Select(col("g").Count().Over(col("x")).Alias("c")).Node(),
			want: [][]plan.Value{row(i64(2)), row(i64(2)), row(i64(2)), row(i64(1)), row(i64(1)), row(i64(2)), row(i64(1)), row(i64(1))}},
		{name: "window/two-overs-and-arith", node: scan(tT).Select(col("a").Sum().Over(col("k")).Sub(col("a").Min().Over(col("k"))).Alias("d")).Node(),
			want: [][]plan.Value{row(i64(30)), row(i64(0)), row(i64(30)), row(i64(0)), row(i64(0))}},
		// The error names the temporary, as the executor's resolved plan does.
		{name: "window/error-names-temporary", node: scan(tD).WithColumns(col("a").Min().Over(col("b")).Sub(lit(1)).Alias("z")).Node(),
			err: errAt(plan.Overflow, "__over_0 - 1", 2)},
		{name: "window/temporary-skips-taken-name", node: scan(tW).Select(col("__over_0").Min().Over(col("k")).Sub(lit(1)).Alias("z")).Node(),
			err: errOf(plan.Overflow, "__over_1 - 1")},
		{name: "window/sum-overflow", node: scan(tBig).WithColumns(col("a").Sum().Over(col("k")).Alias("s")).Node(),
			err: errAt(plan.Overflow, "sum(a)", 1)},
		{name: "window/argument-error-before-keys", node: scan(tD).Select(col("a").Div(col("b")).Sum().Over(col("a").Mul(lit(2))).Alias("z")).Node(),
			err: errOf(plan.DivideByZero, "a / b")},
		{name: "window/nested", node: scan(tT).Select(col("a").Sum().Over(col("a").Sum().Over(col("k")))).Node(),
			err: errOf(plan.InvalidPlan, "sum(a).over(k)")},
		{name: "window/no-partition", node: scan(tT).Select(col("a").Sum().Over()).Node(),
			err: errOf(plan.InvalidPlan, "sum(a).over()")},
	}
}

func sortCases() []planCase {
	return []planCase{
		{name: "sort/float-total-order-nulls-first", node: scan(tF).Sort(plan.Asc(col("x"))).Select(col("g")).Node(),
			want: gs(5, 7, 2, 3, 4, 8, 1, 6)},
		{name: "sort/desc-nulls-last", node: scan(tF).Sort(plan.SortKey{Expr: col("x").Expr(), Desc: true, NullsLast: true}).Select(col("g")).Node(),
			want: gs(1, 6, 8, 4, 3, 2, 7, 5)},
		{name: "sort/two-keys-stable", node: scan(tT).Sort(plan.Asc(col("k")), plan.Desc(col("a"))).Node(),
			want: [][]plan.Value{r3, r2, r0, r4, r1}},
		{name: "sort/string-bytes", node: scan(tT).Sort(plan.SortKey{Expr: col("s").Expr(), NullsLast: true}).Select(col("a")).Node(),
			want: [][]plan.Value{row(i64(20)), row(i64(30)), row(i64(10)), row(nI64), row(i64(40))}},
		{name: "sort/empty", node: scan(tT).Head(0).SortBy("a").Node(), want: [][]plan.Value{}},
		{name: "sort/key-error", node: scan(tD).Sort(plan.Asc(col("a").Div(col("b")))).Node(), err: errAt(plan.DivideByZero, "a / b", 1)},
		{name: "sort/no-keys", node: scan(tT).Sort().Node(), err: errOf(plan.InvalidPlan, "")},
		{name: "sort/unknown", node: scan(tT).SortBy("q").Node(), err: errOf(plan.UnknownColumn, "q")},
	}
}

// gs is a one-column result of g values.
func gs(vals ...int64) [][]plan.Value {
	out := make([][]plan.Value, len(vals))
	for i, v := range vals {
		out[i] = row(i64(v))
	}
	return out
}

func sliceCases() []planCase {
	return []planCase{
		{name: "limit/2", node: scan(tT).Head(2).Node(), want: [][]plan.Value{r0, r1}},
		{name: "limit/0", node: scan(tT).Head(0).Node(), want: [][]plan.Value{}},
		{name: "limit/past-end", node: scan(tT).Head(100).Node(), want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{name: "limit/negative", node: scan(tT).Head(-1).Node(), err: errOf(plan.InvalidPlan, "")},
		{name: "slice/clamped", node: scan(tT).Slice(3, 10).Node(), want: [][]plan.Value{r3, r4}},
		{name: "slice/past-end", node: scan(tT).Slice(10, 2).Node(), want: [][]plan.Value{}},
		{name: "slice/of-slice", node: scan(tT).Slice(1, 3).Slice(1, 1).Node(), want: [][]plan.Value{r2}},
		{name: "slice/negative-offset", node: scan(tT).Slice(-1, 1).Node(), err: errOf(plan.InvalidPlan, "")},
		{name: "slice/negative-len", node: scan(tT).Slice(0, -1).Node(), err: errOf(plan.InvalidPlan, "")},
	}
}

func aggregateCases() []planCase {
	return []planCase{
		{name: "aggregate/every-function", node: scan(tT).GroupBy(col("k")).Agg(
			col("a").Sum().Alias("sum"), col("a").Count().Alias("count"), plan.Len(), col("s").First().Alias("first"),
			col("s").Last().Alias("last"), col("a").Mean().Alias("mean"), col("s").Min().Alias("min"), col("a").Max().Alias("max")).Node(),
			want: [][]plan.Value{
				row(i64(1), i64(40), i64(2), i64(2), str("x"), str("héllo"), f64(20), str("héllo"), i64(30)),
				row(i64(2), i64(20), i64(1), i64(2), str(""), str("x"), f64(20), str(""), i64(20)),
				row(nI64, i64(40), i64(1), i64(1), nStr, nStr, f64(40), nStr, i64(40))}},
		{name: "aggregate/keyless-over-empty", node: scan(tT).Slice(0, 0).Agg(col("a").Count(), plan.Len(), col("a").Sum().Alias("s"), col("s").First().Alias("f")).Node(),
			want: [][]plan.Value{row(i64(0), i64(0), nI64, nStr)}},
		{name: "aggregate/keyed-over-empty", node: scan(tT).Slice(0, 0).GroupBy(col("k")).Agg(col("a").Sum()).Node(), want: [][]plan.Value{}},
		{name: "aggregate/keyless", node: scan(tT).Agg(col("a").Sum(), col("s").Max()).Node(), want: [][]plan.Value{row(i64(100), str("x"))}},
		// The ±0 group's key is its first row's -0.0; the NaN group's is nanA.
		{name: "aggregate/float-keys-first-bits", node: scan(tF).GroupBy(col("x")).Agg(plan.Len()).Node(),
			want: [][]plan.Value{
				row(f64(nanA), i64(2)), row(f64(negZero), i64(2)), row(f64(1), i64(1)), row(nF64, i64(1)),
				row(f64(math.Inf(-1)), i64(1)), row(f64(math.Inf(1)), i64(1))}},
		{name: "aggregate/min-max-float-total-order", node: scan(tF).Agg(col("x").Min().Alias("lo"), col("x").Max().Alias("hi")).Node(),
			want: [][]plan.Value{row(f64(math.Inf(-1)), f64(nanA))}},
		{name: "aggregate/all-null-group-key", node: scan(tN).GroupBy(col("z")).Agg(col("m").Sum(), col("z").Count().Alias("c")).Node(),
			want: [][]plan.Value{row(nI64, i64(4), i64(0))}},
		{name: "aggregate/computed-key", node: scan(tT).GroupBy(col("k").Mul(lit(2)).Alias("kk")).Agg(plan.Len()).Node(),
			want: [][]plan.Value{row(i64(2), i64(2)), row(i64(4), i64(2)), row(nI64, i64(1))}},
		{name: "aggregate/sum-overflow", node: scan(tBig).GroupBy(col("k")).Agg(col("a").Sum()).Node(), err: errAt(plan.Overflow, "sum(a)", 1)},
		{name: "aggregate/key-error-before-agg", node: scan(tD).GroupBy(col("a").Mul(lit(2)).Alias("a2")).Agg(col("a").Div(col("b")).Sum()).Node(),
			err: errOf(plan.Overflow, "a * 2")},
		{name: "aggregate/duplicate-name", node: scan(tT).GroupBy(col("k")).Agg(col("a").Sum(), col("a").Max()).Node(),
			err: errOf(plan.DuplicateColumn, "a")},
		{name: "aggregate/key-agg-duplicate", node: scan(tT).GroupBy(col("a")).Agg(col("a").Sum()).Node(),
			err: errOf(plan.DuplicateColumn, "a")},
		{name: "aggregate/not-an-aggregate", node: scan(tT).Agg(col("a").Add(lit(1))).Node(), err: errOf(plan.InvalidPlan, "a + 1")},
		{name: "aggregate/window-in-key", node: scan(tT).GroupBy(col("a").Sum().Over(col("k"))).Agg(plan.Len()).Node(),
			err: errOf(plan.InvalidPlan, "sum(a).over(k)")},
	}
}

func joinCases() []planCase {
	lr := func(k plan.JoinKind) plan.Node {
		return scan(tL).Join(scan(tR), k, []plan.E{col("lk")}, []plan.E{col("rk")}).Node()
	}
	L := func(k int64, v string) []plan.Value { return []plan.Value{i64(k), str(v)} }
	cat := func(a, b []plan.Value) []plan.Value { return append(append([]plan.Value{}, a...), b...) }
	nl := []plan.Value{nI64, nStr}
	return []planCase{
		{name: "join/inner", node: lr(plan.InnerJoin), want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r"))}},
		{name: "join/left", node: lr(plan.LeftJoin), want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(row(nI64, str("c")), nl),
			cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r")), cat(L(3, "e"), nl)}},
		{name: "join/right", node: lr(plan.RightJoin), want: [][]plan.Value{
			cat(L(2, "b"), L(2, "p")), cat(L(2, "d"), L(2, "p")), cat(nl, L(4, "q")), cat(L(2, "b"), L(2, "r")), cat(L(2, "d"), L(2, "r")),
			cat(nl, row(nI64, str("s"))), cat(L(1, "a"), L(1, "t"))}},
		{name: "join/full", node: lr(plan.FullJoin), want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(row(nI64, str("c")), nl),
			cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r")), cat(L(3, "e"), nl), cat(nl, L(4, "q")), cat(nl, row(nI64, str("s")))}},
		{name: "join/semi", node: lr(plan.SemiJoin), want: [][]plan.Value{L(1, "a"), L(2, "b"), L(2, "d")}},
		{name: "join/anti", node: lr(plan.AntiJoin), want: [][]plan.Value{row(nI64, str("c")), L(3, "e")}},
		{name: "join/cross", node: scan(tL).Head(2).CrossJoin(scan(tR).Head(2)).Node(), want: [][]plan.Value{
			cat(L(1, "a"), L(2, "p")), cat(L(1, "a"), L(4, "q")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(4, "q"))}},
		{name: "join/cross-empty-right", node: scan(tL).CrossJoin(scan(tR).Head(0)).Node(), want: [][]plan.Value{}},
		{name: "join/inner-drops-same-name-key", node: scan(tA).JoinOn(scan(tB), plan.InnerJoin, "k").Node(), want: [][]plan.Value{
			row(i64(1), str("a1"), str("b1")), row(i64(3), str("a3"), str("b3"))}},
		{name: "join/right-keeps-both-keys", node: scan(tA).JoinOn(scan(tB), plan.RightJoin, "k").Node(), want: [][]plan.Value{
			row(i64(3), str("a3"), i64(3), str("b3")), row(i64(1), str("a1"), i64(1), str("b1")), row(nI64, nStr, i64(9), str("b9"))}},
		{name: "join/custom-suffix", node: scan(tA).JoinOn(scan(tB), plan.FullJoin, "k").WithSuffix("_b").Select(col("k_b"), col("v_b")).Node(),
			want: [][]plan.Value{row(i64(1), str("b1")), row(nI64, nStr), row(i64(3), str("b3")), row(i64(9), str("b9"))}},
		{name: "join/suffix-collision", node: scan(tC).JoinOn(scan(tB), plan.InnerJoin, "k").Node(), err: errOf(plan.DuplicateColumn, "v_right")},
		{name: "join/mixed-numeric-keys", node: scan(tI).Join(scan(tG), plan.InnerJoin, []plan.E{col("ik")}, []plan.E{col("fk")}).Node(),
			want: [][]plan.Value{row(i32(1), f64(1)), row(i32(0), f64(0)), row(i32(0), f64(negZero))}},
		{name: "join/nan-keys-match", node: scan(tG).Join(scan(tG).Select(col("fk").Alias("gk")), plan.SemiJoin, []plan.E{col("fk")}, []plan.E{col("gk")}).Node(),
			want: [][]plan.Value{row(f64(0)), row(f64(1)), row(f64(nanA)), row(f64(negZero))}},
		{name: "join/computed-keys", node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk").Add(lit(1))}, []plan.E{col("rk")}).Node(),
			want: [][]plan.Value{cat(L(1, "a"), L(2, "p")), cat(L(1, "a"), L(2, "r")), cat(L(3, "e"), L(4, "q"))}},
		{name: "join/key-count-mismatch", node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk"), col("lv")}, []plan.E{col("rk")}).Node(),
			err: errOf(plan.InvalidPlan, "")},
		{name: "join/no-keys", node: scan(tL).Join(scan(tR), plan.LeftJoin, nil, nil).Node(), err: errOf(plan.InvalidPlan, "")},
		{name: "join/key-types", node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("rv")}).Node(),
			err: errOf(plan.TypeError, "lk = rv")},
		{name: "join/right-key-unknown", node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("lk")}).Node(),
			err: errOf(plan.UnknownColumn, "lk")},
		{name: "join/left-key-error-first", node: scan(tD).Join(scan(tD).Select(col("a").Alias("c")), plan.InnerJoin,
			[]plan.E{col("a").Div(col("b"))}, []plan.E{col("c").Mul(lit(2))}).Node(), err: errOf(plan.DivideByZero, "a / b")},
		{name: "join/right-key-error", node: scan(tL).Join(scan(tD), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("a").Mul(lit(2))}).Node(),
			err: errOf(plan.Overflow, "a * 2")},
	}
}

func unionCases() []planCase {
	return []planCase{
		{name: "union/two", node: scan(tT).Head(2).Union(scan(tT).Slice(4, 1)).Node(), want: [][]plan.Value{r0, r1, r4}},
		{name: "union/nullability-or", node: scan(tNN).Union(scan(tT).Head(1)).Node(),
			want: [][]plan.Value{row(i64(5), i64(50), str("z")), r0}},
		{name: "union/non-nullable-stays", node: scan(tNN).Union(scan(tNN)).Node(),
			want: [][]plan.Value{row(i64(5), i64(50), str("z")), row(i64(5), i64(50), str("z"))}},
		{name: "union/width", node: scan(tT).Union(scan(tD)).Node(), err: errOf(plan.TypeError, "")},
		{name: "union/name", node: scan(tT).Union(scan(tT).Select(col("k"), col("a").Alias("b"), col("s"))).Node(), err: errOf(plan.TypeError, "b")},
		{name: "union/type", node: scan(tT).Union(scan(tT).Select(col("k"), col("a").Cast(plan.Float64), col("s"))).Node(), err: errOf(plan.TypeError, "a")},
		{name: "union/first-input-error-first", node: scan(tD).Select(col("a").Mul(lit(2)).Alias("x")).Union(scan(tD).Select(col("a").Div(col("b")).Alias("x"))).Node(),
			err: errOf(plan.Overflow, "a * 2")},
		{name: "union/nd_seq-continues", node: scan(tT).Select(ndSeq(col("a")).Alias("z")).Union(scan(tT).Select(ndSeq(col("a")).Alias("z"))).Node(),
			want: [][]plan.Value{row(i64(10)), row(i64(21)), row(i64(32)), row(i64(43)), row(nI64),
				row(i64(15)), row(i64(26)), row(i64(37)), row(i64(48)), row(nI64)}},
	}
}

func distinctCases() []planCase {
	return []planCase{
		{name: "distinct/subset", node: scan(tT).Distinct("k").Node(), want: [][]plan.Value{r0, r1, r3}},
		{name: "distinct/two-columns", node: scan(tT).Distinct("s", "k").Node(), want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{name: "distinct/string", node: scan(tT).Distinct("s").Node(), want: [][]plan.Value{r0, r1, r2, r3}},
		{name: "distinct/all-columns-nan-zero-null", node: scan(tDup).Distinct().Node(),
			want: [][]plan.Value{row(i64(1), f64(0)), row(nI64, f64(nanA)), row(i64(2), f64(0))}},
		{name: "distinct/float", node: scan(tF).Distinct("x").Select(col("g")).Node(), want: gs(1, 2, 4, 5, 7, 8)},
		{name: "distinct/no-columns", node: scan(tT).Select().Distinct().Node(), want: [][]plan.Value{row()}},
		{name: "distinct/no-columns-empty", node: scan(tT).Head(0).Select().Distinct().Node(), want: [][]plan.Value{}},
		{name: "distinct/unknown", node: scan(tT).Distinct("k", "zz").Node(), err: errOf(plan.UnknownColumn, "zz")},
		{name: "distinct/twice", node: scan(tT).Distinct("k", "k").Node(), err: errOf(plan.DuplicateColumn, "k")},
	}
}

func scanCases() []planCase {
	pushed := func(support plan.PredicateSupport, e plan.E, cols ...string) plan.Node {
		n := scan(tT).Node().(*plan.ScanNode)
		c := *n
		c.Pushed = []plan.PushedPredicate{{Expr: e.Expr(), Support: support}}
		if cols != nil {
			c.Projected, c.Columns = true, cols
		}
		return &c
	}
	projected := func(t *plan.Table, cols ...string) plan.Node {
		n := scan(t).Node().(*plan.ScanNode)
		c := *n
		c.Projected, c.Columns = true, cols
		return &c
	}
	dPushed := func(e plan.E) plan.Node {
		n := scan(tD).Node().(*plan.ScanNode)
		c := *n
		c.Pushed = []plan.PushedPredicate{{Expr: col("b").Ne(lit(0)).Expr(), Support: plan.Exact}, {Expr: e.Expr(), Support: plan.Exact}}
		return &c
	}
	return []planCase{
		{name: "scan/projected-reorders", node: projected(tT, "s", "k"),
			want: [][]plan.Value{row(str("x"), i64(1)), row(str(""), i64(2)), row(str("héllo"), i64(1)), row(nStr, nI64), row(str("x"), i64(2))}},
		{name: "scan/no-columns-keeps-height", node: plan.FromNode(projected(tT)).Select(lit(1)).Node(), want: gs(1, 1, 1, 1, 1)},
		{name: "scan/pushed-exact-applied", node: pushed(plan.Exact, col("a").Gt(lit(15)), "k"), want: [][]plan.Value{row(i64(2)), row(i64(1)), row(nI64)}},
		{name: "scan/pushed-inexact-ignored", node: pushed(plan.Inexact, col("a").Gt(lit(15))), want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{name: "scan/pushed-no-short-circuit", node: dPushed(col("a").Div(col("b")).Gt(lit(0))), err: errOf(plan.DivideByZero, "a / b")},
		{name: "scan/pushed-not-bool", node: pushed(plan.Exact, col("a")), err: errOf(plan.TypeError, "a")},
		{name: "scan/projected-unknown", node: projected(tT, "k", "q r"), err: errOf(plan.UnknownColumn, `"q r"`)},
		{name: "scan/projected-twice", node: projected(tT, "k", "k"), err: errOf(plan.DuplicateColumn, "")},
		{name: "scan/no-source", node: &plan.ScanNode{}, err: errOf(plan.InvalidPlan, "")},
	}
}

func extensionCases() []planCase {
	return []planCase{
		{name: "extension/identity", node: scan(tT).Extension(plan.IdentityExtension).Head(2).Node(), want: [][]plan.Value{r0, r1}},
		{name: "extension/no-declaration", node: &plan.ExtensionNode{Inputs: []plan.Node{scan(tT).Node()}}, err: errOf(plan.InvalidPlan, "")},
		{name: "extension/arity", node: scan(tT).Extension(plan.IdentityExtension, scan(tT)).Node(), err: errOf(plan.InvalidPlan, "")},
		{name: "extension/unregistered", node: scan(tT).Extension(&plan.ExtensionDef{Name: "nowhere", Inputs: 1}).Node(),
			err: errOf(plan.InvalidPlan, "nowhere")},
		{name: "extension/output-schema-error", node: scan(tT).Extension(&plan.ExtensionDef{Name: "bad", Inputs: 1,
			OutputSchema: func([]plan.Schema) (plan.Schema, error) { return plan.Schema{}, errBad }}).Node(), err: errOf(plan.InvalidPlan, "")},
	}
}

// orderCases pin the order of evaluation and of checks across nodes.
func orderCases() []planCase {
	return []planCase{
		// A resolve error anywhere beats an evaluation error below it.
		{name: "order/resolve-before-evaluate", node: scan(tD).Filter(col("a").Div(col("b")).Gt(lit(0))).Select(col("zz")).Node(),
			err: errOf(plan.UnknownColumn, "zz"), noMethods: true},
		// Children resolve left before right.
		{name: "order/left-resolve-error-first", node: scan(tT).Select(col("q1")).Join(scan(tT).Select(col("q2")), plan.InnerJoin,
			[]plan.E{col("q1")}, []plan.E{col("q2")}).Node(), err: errOf(plan.UnknownColumn, "q1")},
		// Children evaluate left before right.
		{name: "order/left-evaluates-first", node: scan(tD).Select(col("a").Div(col("b")).Alias("x")).CrossJoin(
			scan(tD).Select(col("a").Mul(lit(2)).Alias("y"))).Node(), err: errOf(plan.DivideByZero, "a / b")},
		{name: "order/deep-chain", node: scan(tT).Filter(col("a").IsNotNull()).WithColumns(col("a").Mul(lit(2)).Alias("a2")).
			Sort(plan.Desc(col("a2"))).Head(3).GroupBy(col("k")).Agg(col("a2").Sum().Alias("s")).SortBy("k").Node(),
			want: [][]plan.Value{row(nI64, i64(80)), row(i64(1), i64(60)), row(i64(2), i64(40))}},
		{name: "order/missing-input", node: &plan.FilterNode{Predicates: exprs(lit(true))}, err: errOf(plan.InvalidPlan, "")},
	}
}

// allCases is every table above.
func allCases() []planCase {
	var out []planCase
	for _, f := range []func() []planCase{filterCases, projectCases, withColumnsCases, windowCases, sortCases, sliceCases,
		aggregateCases, joinCases, unionCases, distinctCases, scanCases, extensionCases, orderCases} {
		out = append(out, f()...)
	}
	return out
}
