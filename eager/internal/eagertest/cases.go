package eagertest

import (
	"math"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// Case is one plan with its expected outcome: rows (bitwise, in order)
// or an error (kind, expression, maybe the first failing row).
type Case struct {
	Name string
	Node plan.Node
	Want [][]plan.Value
	Err  *WantErr
	// noMethods skips the DataFrame method chain, which evaluates each step
	// at once: where a resolve-time error sits above an evaluation error,
	// only a whole-plan evaluation (FromPlan, exec) reports the former.
	NoMethods bool
	// noExec skips the executor comparison (extensions it does not know).
	NoExec bool
}

// The rows of tT, by index.
var (
	r0 = row(i64(1), i64(10), str("x"))
	r1 = row(i64(2), i64(20), str(""))
	r2 = row(i64(1), i64(30), str("héllo"))
	r3 = row(nI64, i64(40), nStr)
	r4 = row(i64(2), nI64, str("x"))
)

func filterCases() []Case {
	return []Case{
		{Name: "filter/gt", Node: scan(tT).Filter(col("a").Gt(lit(15))).Node(), Want: [][]plan.Value{r1, r2, r3}},
		{Name: "filter/null-predicate-drops", Node: scan(tT).Filter(col("k").Eq(lit(1))).Node(), Want: [][]plan.Value{r0, r2}},
		{Name: "filter/two-conjuncts", Node: scan(tT).Filter(col("k").Eq(lit(2)), col("a").IsNotNull()).Node(), Want: [][]plan.Value{r1}},
		{Name: "filter/empty-input", Node: scan(tT).Slice(0, 0).Filter(col("a").Gt(lit(0))).Node(), Want: [][]plan.Value{}},
		{Name: "filter/all-null-column", Node: scan(tN).Filter(col("z").IsNull()).Node(),
			Want: [][]plan.Value{row(nI64, i32(1)), row(nI64, i32(2)), row(nI64, i32(1))}},
		{Name: "filter/null-literal-keeps-nothing", Node: scan(tT).Filter(plan.Null(plan.Bool)).Node(), Want: [][]plan.Value{}},
		// The second conjunct raises at row 1 although the first is false there.
		{Name: "filter/no-short-circuit", Node: scan(tD).Filter(col("b").Ne(lit(0)), col("a").Div(col("b")).Gt(lit(0))).Node(),
			Err: errAt(plan.DivideByZero, "a / b", 1)},
		{Name: "filter/overflow", Node: scan(tD).Slice(2, 1).Filter(col("a").Div(col("b")).Gt(lit(0))).Node(),
			Err: errAt(plan.Overflow, "a / b", 0)},
		{Name: "filter/not-bool", Node: scan(tT).Filter(col("a")).Node(), Err: errOf(plan.TypeError, "a")},
		{Name: "filter/unknown-column", Node: scan(tT).Filter(col("zz").Gt(lit(1))).Node(), Err: errOf(plan.UnknownColumn, "zz")},
		{Name: "filter/second-predicate-type-error", Node: scan(tT).Filter(col("a").Gt(lit(1)), col("s").Add(lit(1)).Gt(lit(1))).Node(),
			Err: errOf(plan.TypeError, `s + 1`)},
		{Name: "filter/window", Node: scan(tT).Filter(col("a").Sum().Over(col("k")).Gt(lit(1))).Node(),
			Err: errOf(plan.InvalidPlan, "sum(a).over(k)")},
		{Name: "filter/aggregate", Node: scan(tT).Filter(col("a").Sum().Gt(lit(1))).Node(), Err: errOf(plan.InvalidPlan, "sum(a)")},
		{Name: "filter/no-predicates", Node: scan(tT).Filter().Node(), Err: errOf(plan.InvalidPlan, "")},
	}
}

func projectCases() []Case {
	return []Case{
		{Name: "project/exprs-and-broadcast-literal", Node: scan(tT).Select(col("a").Mul(lit(2)).Alias("b"), lit(1), col("s")).Node(),
			Want: [][]plan.Value{
				row(i64(20), i64(1), str("x")), row(i64(40), i64(1), str("")), row(i64(60), i64(1), str("héllo")),
				row(i64(80), i64(1), nStr), row(nI64, i64(1), str("x"))}},
		{Name: "project/no-exprs-keeps-height", Node: scan(tT).Select().Node(),
			Want: [][]plan.Value{row(), row(), row(), row(), row()}},
		{Name: "project/str-len-code-points", Node: scan(tT).Select(col("s").StrLen()).Node(),
			Want: [][]plan.Value{row(i64(1)), row(i64(0)), row(i64(5)), row(nI64), row(i64(1))}},
		{Name: "project/non-nullable-stays", Node: scan(tN).Select(col("m").Add(lit(int32(1))).Alias("m1"), col("z").Add(col("m")).Alias("zm")).Node(),
			Want: [][]plan.Value{row(i32(2), nI64), row(i32(3), nI64), row(i32(2), nI64)}},
		{Name: "project/duplicate-name", Node: scan(tT).Select(col("a"), col("a").Add(lit(1))).Node(),
			Err: errOf(plan.DuplicateColumn, "a")},
		{Name: "project/duplicate-quoted-name", Node: scan(tT).Select(col("a").Alias("x y"), col("k").Alias("x y")).Node(),
			Err: errOf(plan.DuplicateColumn, `"x y"`)},
		{Name: "project/overflow-first-row", Node: scan(tD).Select(col("a").Mul(lit(2))).Node(),
			Err: errAt(plan.Overflow, "a * 2", 2)},
		{Name: "project/first-expr-error-wins", Node: scan(tD).Select(col("a").Div(col("b")).Alias("q"), col("a").Mul(lit(2)).Alias("m")).Node(),
			Err: errAt(plan.DivideByZero, "a / b", 1)},
		{Name: "project/if-branch-sees-its-rows", Node: scan(tD).Select(plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(0)).Alias("q")).Node(),
			Err: errAt(plan.Overflow, "a / b", 2)},
		{Name: "project/type-error", Node: scan(tT).Select(col("s").Neg()).Node(), Err: errOf(plan.TypeError, "-s")},
		{Name: "project/aggregate-outside-window", Node: scan(tT).Select(col("a").Sum()).Node(), Err: errOf(plan.InvalidPlan, "sum(a)")},
	}
}

func withColumnsCases() []Case {
	return []Case{
		{Name: "with_columns/replace-and-append", Node: scan(tT).WithColumns(col("a").Add(lit(1)).Alias("a"), col("k").Alias("z")).Node(),
			Want: [][]plan.Value{
				row(i64(1), i64(11), str("x"), i64(1)), row(i64(2), i64(21), str(""), i64(2)), row(i64(1), i64(31), str("héllo"), i64(1)),
				row(nI64, i64(41), nStr, nI64), row(i64(2), nI64, str("x"), i64(2))}},
		{Name: "with_columns/simultaneous-swap", Node: scan(tT).WithColumns(col("a").Alias("k"), col("k").Alias("a")).Node(),
			Want: [][]plan.Value{
				row(i64(10), i64(1), str("x")), row(i64(20), i64(2), str("")), row(i64(30), i64(1), str("héllo")),
				row(i64(40), nI64, nStr), row(nI64, i64(2), str("x"))}},
		{Name: "with_columns/duplicate", Node: scan(tT).WithColumns(col("a"), col("a").Mul(lit(2))).Node(),
			Err: errOf(plan.DuplicateColumn, "a")},
		{Name: "with_columns/nd_seq-counts-rows", Node: scan(tT).WithColumns(ndSeq(col("a")).Alias("z")).Select(col("z")).Node(),
			Want: [][]plan.Value{row(i64(10)), row(i64(21)), row(i64(32)), row(i64(43)), row(nI64)}},
		{Name: "with_columns/udf-error", Node: scan(tBig).WithColumns(UDF("checked_double", col("a")).Alias("z")).Node(),
			Err: errAt(plan.UDFError, "checked_double(a)", 0)},
	}
}

func windowCases() []Case {
	return []Case{
		{Name: "window/sum-over-keys-with-null", Node: scan(tT).WithColumns(col("a").Sum().Over(col("k")).Alias("sa")).Node(),
			Want: [][]plan.Value{
				append(r0, i64(40)), append(r1, i64(20)), append(r2, i64(40)), append(r3, i64(40)), append(r4, i64(20))}},
		{Name: "window/len-over-named-len", Node: scan(tT).Select(plan.Len().Over(col("k")), col("a")).Node(),
			Want: [][]plan.Value{row(i64(2), i64(10)), row(i64(2), i64(20)), row(i64(2), i64(30)), row(i64(1), i64(40)), row(i64(2), nI64)}},
		{Name: "window/replaces-in-place", Node: scan(tT).WithColumns(col("a").Max().Over(col("k"))).Node(),
			Want: [][]plan.Value{
				row(i64(1), i64(30), str("x")), row(i64(2), i64(20), str("")), row(i64(1), i64(30), str("héllo")),
				row(nI64, i64(40), nStr), row(i64(2), i64(20), str("x"))}},
		{Name: "window/nan-and-zero-keys", Node: scan(tF).Select(col("g").Count().Over(col("x")).Alias("c")).Node(),
			Want: [][]plan.Value{row(i64(2)), row(i64(2)), row(i64(2)), row(i64(1)), row(i64(1)), row(i64(2)), row(i64(1)), row(i64(1))}},
		{Name: "window/two-overs-and-arith", Node: scan(tT).Select(col("a").Sum().Over(col("k")).Sub(col("a").Min().Over(col("k"))).Alias("d")).Node(),
			Want: [][]plan.Value{row(i64(30)), row(i64(0)), row(i64(30)), row(i64(0)), row(i64(0))}},
		// The error names the temporary, as the executor's resolved plan does.
		{Name: "window/error-names-over-as-written", Node: scan(tD).WithColumns(col("a").Min().Over(col("b")).Sub(lit(1)).Alias("z")).Node(),
			Err: errAt(plan.Overflow, "min(a).over(b) - 1", 2)},
		{Name: "window/input-column-named-like-a-temporary", Node: scan(tW).Select(col("__over_0").Min().Over(col("k")).Sub(lit(1)).Alias("z")).Node(),
			Err: errOf(plan.Overflow, "min(__over_0).over(k) - 1")},
		// Window functions (docs/semantics.md, Window functions and ordered
		// windows): k=1 holds rows 0 (a 10) and 2 (30), k=2 rows 1 (20) and
		// 4 (null), k=null row 3 (40).
		{Name: "window/cum-sum-ordered-desc-nulls-first", Node: scan(tT).Select(col("a").CumSum().OverOrdered([]plan.E{col("k")}, plan.Desc(col("a"))).Alias("c")).Node(),
			Want: [][]plan.Value{row(i64(40)), row(i64(20)), row(i64(30)), row(i64(40)), row(nI64)}},
		{Name: "window/rank-min", Node: scan(tT).Select(col("a").Rank("min").Over(col("k")).Alias("r")).Node(),
			Want: [][]plan.Value{row(i64(1)), row(i64(1)), row(i64(2)), row(i64(1)), row(nI64)}},
		{Name: "window/shift-lead-default", Node: scan(tT).Select(col("a").ShiftOr(-1, lit(int64(0))).Over(col("k")).Alias("n")).Node(),
			Want: [][]plan.Value{row(i64(30)), row(nI64), row(i64(0)), row(i64(0)), row(i64(0))}},
		{Name: "window/arg-max-over", Node: scan(tT).Select(col("a").ArgMax().Over(col("k")).Alias("m")).Node(),
			Want: [][]plan.Value{row(i64(1)), row(i64(0)), row(i64(1)), row(i64(0)), row(i64(0))}},
		{Name: "window/order-by-on-an-aggregate", Node: scan(tT).Select(col("a").Sum().OverOrdered([]plan.E{col("k")}, plan.Asc(col("a")))).Node(),
			Err: errOf(plan.InvalidPlan, "sum(a).over(k, order_by=[a])")},
		{Name: "window/cum-sum-outside-over", Node: scan(tT).Select(col("a").CumSum()).Node(),
			Err: errOf(plan.InvalidPlan, "cum_sum(a)")},
		{Name: "window/sum-overflow", Node: scan(tBig).WithColumns(col("a").Sum().Over(col("k")).Alias("s")).Node(),
			Err: errAt(plan.Overflow, "sum(a)", 0)},
		{Name: "window/argument-error-before-keys", Node: scan(tD).Select(col("a").Div(col("b")).Sum().Over(col("a").Mul(lit(2))).Alias("z")).Node(),
			Err: errOf(plan.DivideByZero, "a / b")},
		{Name: "window/nested", Node: scan(tT).Select(col("a").Sum().Over(col("a").Sum().Over(col("k")))).Node(),
			Err: errOf(plan.InvalidPlan, "sum(a).over(k)")},
		// No partition key: one partition of every row.
		{Name: "window/no-partition", Node: scan(tT).Select(col("a").Sum().Over()).Node(),
			Want: [][]plan.Value{row(i64(100)), row(i64(100)), row(i64(100)), row(i64(100)), row(i64(100))}},
		{Name: "window/no-partition-ordered", Node: scan(tT).Select(col("a").CumSum().OverOrdered(nil, plan.Desc(col("a"))).Alias("c")).Node(),
			Want: [][]plan.Value{row(i64(100)), row(i64(90)), row(i64(70)), row(i64(40)), row(nI64)}},
	}
}

func sortCases() []Case {
	return []Case{
		{Name: "sort/float-total-order-nulls-first", Node: scan(tF).Sort(plan.Asc(col("x"))).Select(col("g")).Node(),
			Want: gs(5, 7, 2, 3, 4, 8, 1, 6)},
		{Name: "sort/desc-nulls-last", Node: scan(tF).Sort(plan.SortKey{Expr: col("x").Expr(), Desc: true, NullsLast: true}).Select(col("g")).Node(),
			Want: gs(1, 6, 8, 4, 3, 2, 7, 5)},
		{Name: "sort/two-keys-stable", Node: scan(tT).Sort(plan.Asc(col("k")), plan.Desc(col("a"))).Node(),
			Want: [][]plan.Value{r3, r2, r0, r4, r1}},
		{Name: "sort/string-bytes", Node: scan(tT).Sort(plan.SortKey{Expr: col("s").Expr(), NullsLast: true}).Select(col("a")).Node(),
			Want: [][]plan.Value{row(i64(20)), row(i64(30)), row(i64(10)), row(nI64), row(i64(40))}},
		{Name: "sort/empty", Node: scan(tT).Head(0).SortBy("a").Node(), Want: [][]plan.Value{}},
		{Name: "sort/key-error", Node: scan(tD).Sort(plan.Asc(col("a").Div(col("b")))).Node(), Err: errAt(plan.DivideByZero, "a / b", 1)},
		{Name: "sort/no-keys", Node: scan(tT).Sort().Node(), Err: errOf(plan.InvalidPlan, "")},
		{Name: "sort/unknown", Node: scan(tT).SortBy("q").Node(), Err: errOf(plan.UnknownColumn, "q")},
	}
}

func sliceCases() []Case {
	return []Case{
		{Name: "limit/2", Node: scan(tT).Head(2).Node(), Want: [][]plan.Value{r0, r1}},
		{Name: "limit/0", Node: scan(tT).Head(0).Node(), Want: [][]plan.Value{}},
		{Name: "limit/past-end", Node: scan(tT).Head(100).Node(), Want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{Name: "limit/negative", Node: scan(tT).Head(-1).Node(), Err: errOf(plan.InvalidPlan, "")},
		{Name: "slice/clamped", Node: scan(tT).Slice(3, 10).Node(), Want: [][]plan.Value{r3, r4}},
		{Name: "slice/past-end", Node: scan(tT).Slice(10, 2).Node(), Want: [][]plan.Value{}},
		{Name: "slice/of-slice", Node: scan(tT).Slice(1, 3).Slice(1, 1).Node(), Want: [][]plan.Value{r2}},
		{Name: "slice/negative-offset", Node: scan(tT).Slice(-1, 1).Node(), Err: errOf(plan.InvalidPlan, "")},
		{Name: "slice/negative-len", Node: scan(tT).Slice(2, -1).Node(), Want: [][]plan.Value{r2, r3, r4}},
		{Name: "slice/negative-len-past-end", Node: scan(tT).Slice(9, -3).Node(), Want: [][]plan.Value{}},
	}
}

func aggregateCases() []Case {
	return []Case{
		{Name: "aggregate/every-function", Node: scan(tT).GroupBy(col("k")).Agg(
			col("a").Sum().Alias("sum"), col("a").Count().Alias("count"), plan.Len(), col("s").First().Alias("first"),
			col("s").Last().Alias("last"), col("a").Mean().Alias("mean"), col("s").Min().Alias("min"), col("a").Max().Alias("max")).Node(),
			Want: [][]plan.Value{
				row(i64(1), i64(40), i64(2), i64(2), str("x"), str("héllo"), f64(20), str("héllo"), i64(30)),
				row(i64(2), i64(20), i64(1), i64(2), str(""), str("x"), f64(20), str(""), i64(20)),
				row(nI64, i64(40), i64(1), i64(1), nStr, nStr, f64(40), nStr, i64(40))}},
		{Name: "aggregate/keyless-over-empty", Node: scan(tT).Slice(0, 0).Agg(col("a").Count(), plan.Len(), col("a").Sum().Alias("s"), col("s").First().Alias("f")).Node(),
			Want: [][]plan.Value{row(i64(0), i64(0), nI64, nStr)}},
		{Name: "aggregate/keyed-over-empty", Node: scan(tT).Slice(0, 0).GroupBy(col("k")).Agg(col("a").Sum()).Node(), Want: [][]plan.Value{}},
		{Name: "aggregate/keyless", Node: scan(tT).Agg(col("a").Sum(), col("s").Max()).Node(), Want: [][]plan.Value{row(i64(100), str("x"))}},
		// The ±0 group's key is its first row's -0.0; the NaN group's is nanA.
		{Name: "aggregate/float-keys-first-bits", Node: scan(tF).GroupBy(col("x")).Agg(plan.Len()).Node(),
			Want: [][]plan.Value{
				row(f64(nanA), i64(2)), row(f64(negZero), i64(2)), row(f64(1), i64(1)), row(nF64, i64(1)),
				row(f64(math.Inf(-1)), i64(1)), row(f64(math.Inf(1)), i64(1))}},
		{Name: "aggregate/min-max-float-total-order", Node: scan(tF).Agg(col("x").Min().Alias("lo"), col("x").Max().Alias("hi")).Node(),
			Want: [][]plan.Value{row(f64(math.Inf(-1)), f64(nanA))}},
		{Name: "aggregate/all-null-group-key", Node: scan(tN).GroupBy(col("z")).Agg(col("m").Sum(), col("z").Count().Alias("c")).Node(),
			Want: [][]plan.Value{row(nI64, i64(4), i64(0))}},
		{Name: "aggregate/computed-key", Node: scan(tT).GroupBy(col("k").Mul(lit(2)).Alias("kk")).Agg(plan.Len()).Node(),
			Want: [][]plan.Value{row(i64(2), i64(2)), row(i64(4), i64(2)), row(nI64, i64(1))}},
		{Name: "aggregate/sum-overflow", Node: scan(tBig).GroupBy(col("k")).Agg(col("a").Sum()).Node(), Err: errAt(plan.Overflow, "sum(a)", 0)},
		{Name: "aggregate/key-error-before-agg", Node: scan(tD).GroupBy(col("a").Mul(lit(2)).Alias("a2")).Agg(col("a").Div(col("b")).Sum()).Node(),
			Err: errOf(plan.Overflow, "a * 2")},
		{Name: "aggregate/duplicate-name", Node: scan(tT).GroupBy(col("k")).Agg(col("a").Sum(), col("a").Max()).Node(),
			Err: errOf(plan.DuplicateColumn, "a")},
		{Name: "aggregate/key-agg-duplicate", Node: scan(tT).GroupBy(col("a")).Agg(col("a").Sum()).Node(),
			Err: errOf(plan.DuplicateColumn, "a")},
		{Name: "aggregate/not-an-aggregate", Node: scan(tT).Agg(col("a").Add(lit(1))).Node(), Err: errOf(plan.InvalidPlan, "a + 1")},
		{Name: "aggregate/window-in-key", Node: scan(tT).GroupBy(col("a").Sum().Over(col("k"))).Agg(plan.Len()).Node(),
			Err: errOf(plan.InvalidPlan, "sum(a).over(k)")},
	}
}

func joinCases() []Case {
	lr := func(k plan.JoinKind) plan.Node {
		return scan(tL).Join(scan(tR), k, []plan.E{col("lk")}, []plan.E{col("rk")}).Node()
	}
	lrOpts := func(k plan.JoinKind, o plan.JoinOptions) plan.Node {
		return scan(tL).Join(scan(tR), k, []plan.E{col("lk")}, []plan.E{col("rk")}).WithJoinOptions(o).Node()
	}
	L := func(k int64, v string) []plan.Value { return []plan.Value{i64(k), str(v)} }
	cat := func(a, b []plan.Value) []plan.Value { return append(append([]plan.Value{}, a...), b...) }
	nl := []plan.Value{nI64, nStr}
	return []Case{
		{Name: "join/inner", Node: lr(plan.InnerJoin), Want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r"))}},
		{Name: "join/left", Node: lr(plan.LeftJoin), Want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(row(nI64, str("c")), nl),
			cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r")), cat(L(3, "e"), nl)}},
		{Name: "join/right", Node: lr(plan.RightJoin), Want: [][]plan.Value{
			cat(L(2, "b"), L(2, "p")), cat(L(2, "d"), L(2, "p")), cat(nl, L(4, "q")), cat(L(2, "b"), L(2, "r")), cat(L(2, "d"), L(2, "r")),
			cat(nl, row(nI64, str("s"))), cat(L(1, "a"), L(1, "t"))}},
		{Name: "join/full", Node: lr(plan.FullJoin), Want: [][]plan.Value{
			cat(L(1, "a"), L(1, "t")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(2, "r")), cat(row(nI64, str("c")), nl),
			cat(L(2, "d"), L(2, "p")), cat(L(2, "d"), L(2, "r")), cat(L(3, "e"), nl), cat(nl, L(4, "q")), cat(nl, row(nI64, str("s")))}},
		{Name: "join/semi", Node: lr(plan.SemiJoin), Want: [][]plan.Value{L(1, "a"), L(2, "b"), L(2, "d")}},
		{Name: "join/anti", Node: lr(plan.AntiJoin), Want: [][]plan.Value{row(nI64, str("c")), L(3, "e")}},
		{Name: "join/cross", Node: scan(tL).Head(2).CrossJoin(scan(tR).Head(2)).Node(), Want: [][]plan.Value{
			cat(L(1, "a"), L(2, "p")), cat(L(1, "a"), L(4, "q")), cat(L(2, "b"), L(2, "p")), cat(L(2, "b"), L(4, "q"))}},
		{Name: "join/cross-empty-right", Node: scan(tL).CrossJoin(scan(tR).Head(0)).Node(), Want: [][]plan.Value{}},
		{Name: "join/inner-drops-same-name-key", Node: scan(tA).JoinOn(scan(tB), plan.InnerJoin, "k").Node(), Want: [][]plan.Value{
			row(i64(1), str("a1"), str("b1")), row(i64(3), str("a3"), str("b3"))}},
		{Name: "join/right-merges-into-the-right-key", Node: scan(tA).JoinOn(scan(tB), plan.RightJoin, "k").Node(), Want: [][]plan.Value{
			row(str("a3"), i64(3), str("b3")), row(str("a1"), i64(1), str("b1")), row(nStr, i64(9), str("b9"))}},
		{Name: "join/right-keep-keeps-both-keys", Node: scan(tA).JoinOn(scan(tB), plan.RightJoin, "k").WithJoinOptions(plan.JoinOptions{Coalesce: plan.CoalesceKeep}).Node(), Want: [][]plan.Value{
			row(i64(3), str("a3"), i64(3), str("b3")), row(i64(1), str("a1"), i64(1), str("b1")), row(nI64, nStr, i64(9), str("b9"))}},
		{Name: "join/full-coalesce", Node: scan(tA).JoinOn(scan(tB), plan.FullJoin, "k").WithJoinOptions(plan.JoinOptions{Coalesce: plan.CoalesceMerge}).Select(col("k"), col("v_right")).Node(),
			Want: [][]plan.Value{row(i64(1), str("b1")), row(i64(2), nStr), row(i64(3), str("b3")), row(i64(9), str("b9"))}},
		{Name: "join/nulls-equal", Node: lrOpts(plan.SemiJoin, plan.JoinOptions{NullsEqual: true}), Want: [][]plan.Value{L(1, "a"), L(2, "b"), row(nI64, str("c")), L(2, "d")}},
		{Name: "join/validate", Node: lrOpts(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateManyToOne}), Err: errOf(plan.ValidationError, "rk")},
		{Name: "join/anti-residual", Node: lrOpts(plan.AntiJoin, plan.JoinOptions{Residual: col("rv").Eq(lit("p"))}), Want: [][]plan.Value{L(1, "a"), row(nI64, str("c")), L(3, "e")}},
		{Name: "union/diagonal", Node: scan(tL).Select(col("lv")).UnionDiagonal(scan(tL).Head(1)).Node(), Want: [][]plan.Value{
			row(str("a"), nI64), row(str("b"), nI64), row(str("c"), nI64), row(str("d"), nI64), row(str("e"), nI64), row(str("a"), i64(1))}},
		{Name: "join/custom-suffix", Node: scan(tA).JoinOn(scan(tB), plan.FullJoin, "k").WithSuffix("_b").Select(col("k_b"), col("v_b")).Node(),
			Want: [][]plan.Value{row(i64(1), str("b1")), row(nI64, nStr), row(i64(3), str("b3")), row(i64(9), str("b9"))}},
		{Name: "join/suffix-collision", Node: scan(tC).JoinOn(scan(tB), plan.InnerJoin, "k").Node(), Err: errOf(plan.DuplicateColumn, "v_right")},
		{Name: "join/mixed-numeric-keys", Node: scan(tI).Join(scan(tG), plan.InnerJoin, []plan.E{col("ik")}, []plan.E{col("fk")}).Node(),
			Want: [][]plan.Value{row(i32(1), f64(1)), row(i32(0), f64(0)), row(i32(0), f64(negZero))}},
		{Name: "join/nan-keys-match", Node: scan(tG).Join(scan(tG).Select(col("fk").Alias("gk")), plan.SemiJoin, []plan.E{col("fk")}, []plan.E{col("gk")}).Node(),
			Want: [][]plan.Value{row(f64(0)), row(f64(1)), row(f64(nanA)), row(f64(negZero))}},
		{Name: "join/computed-keys", Node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk").Add(lit(1))}, []plan.E{col("rk")}).Node(),
			Want: [][]plan.Value{cat(L(1, "a"), L(2, "p")), cat(L(1, "a"), L(2, "r")), cat(L(3, "e"), L(4, "q"))}},
		{Name: "join/key-count-mismatch", Node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk"), col("lv")}, []plan.E{col("rk")}).Node(),
			Err: errOf(plan.InvalidPlan, "")},
		{Name: "join/no-keys", Node: scan(tL).Join(scan(tR), plan.LeftJoin, nil, nil).Node(), Err: errOf(plan.InvalidPlan, "")},
		{Name: "join/key-types", Node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("rv")}).Node(),
			Err: errOf(plan.TypeError, "rv")},
		{Name: "join/right-key-unknown", Node: scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("lk")}).Node(),
			Err: errOf(plan.UnknownColumn, "lk")},
		{Name: "join/left-key-error-first", Node: scan(tD).Join(scan(tD).Select(col("a").Alias("c")), plan.InnerJoin,
			[]plan.E{col("a").Div(col("b"))}, []plan.E{col("c").Mul(lit(2))}).Node(), Err: errOf(plan.DivideByZero, "a / b")},
		{Name: "join/right-key-error", Node: scan(tL).Join(scan(tD), plan.InnerJoin, []plan.E{col("lk")}, []plan.E{col("a").Mul(lit(2))}).Node(),
			Err: errOf(plan.Overflow, "a * 2")},
	}
}

func unionCases() []Case {
	return []Case{
		{Name: "union/two", Node: scan(tT).Head(2).Union(scan(tT).Slice(4, 1)).Node(), Want: [][]plan.Value{r0, r1, r4}},
		{Name: "union/nullability-or", Node: scan(tNN).Union(scan(tT).Head(1)).Node(),
			Want: [][]plan.Value{row(i64(5), i64(50), str("z")), r0}},
		{Name: "union/non-nullable-stays", Node: scan(tNN).Union(scan(tNN)).Node(),
			Want: [][]plan.Value{row(i64(5), i64(50), str("z")), row(i64(5), i64(50), str("z"))}},
		{Name: "union/width", Node: scan(tT).Union(scan(tD)).Node(), Err: errOf(plan.TypeError, "")},
		{Name: "union/name", Node: scan(tT).Union(scan(tT).Select(col("k"), col("a").Alias("b"), col("s"))).Node(), Err: errOf(plan.TypeError, "b")},
		{Name: "union/type", Node: scan(tT).Union(scan(tT).Select(col("k"), col("a").Cast(plan.String), col("s"))).Node(), Err: errOf(plan.TypeError, "a")},
		{Name: "union/promotes", Node: scan(tT).Head(1).Union(scan(tT).Head(1).Select(col("k"), col("a").Cast(plan.Float64), col("s"))).Node(),
			Want: [][]plan.Value{row(i64(1), plan.Float64Value(10), str("x")), row(i64(1), plan.Float64Value(10), str("x"))}},
		{Name: "union/first-input-error-first", Node: scan(tD).Select(col("a").Mul(lit(2)).Alias("x")).Union(scan(tD).Select(col("a").Div(col("b")).Alias("x"))).Node(),
			Err: errOf(plan.Overflow, "a * 2")},
		{Name: "union/nd_seq-continues", Node: scan(tT).Select(ndSeq(col("a")).Alias("z")).Union(scan(tT).Select(ndSeq(col("a")).Alias("z"))).Node(),
			Want: [][]plan.Value{row(i64(10)), row(i64(21)), row(i64(32)), row(i64(43)), row(nI64),
				row(i64(15)), row(i64(26)), row(i64(37)), row(i64(48)), row(nI64)}},
	}
}

func distinctCases() []Case {
	return []Case{
		{Name: "distinct/subset", Node: scan(tT).Distinct("k").Node(), Want: [][]plan.Value{r0, r1, r3}},
		{Name: "distinct/two-columns", Node: scan(tT).Distinct("s", "k").Node(), Want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{Name: "distinct/string", Node: scan(tT).Distinct("s").Node(), Want: [][]plan.Value{r0, r1, r2, r3}},
		{Name: "distinct/all-columns-nan-zero-null", Node: scan(tDup).Distinct().Node(),
			Want: [][]plan.Value{row(i64(1), f64(0)), row(nI64, f64(nanA)), row(i64(2), f64(0))}},
		{Name: "distinct/float", Node: scan(tF).Distinct("x").Select(col("g")).Node(), Want: gs(1, 2, 4, 5, 7, 8)},
		{Name: "distinct/no-columns", Node: scan(tT).Select().Distinct().Node(), Want: [][]plan.Value{row()}},
		{Name: "distinct/no-columns-empty", Node: scan(tT).Head(0).Select().Distinct().Node(), Want: [][]plan.Value{}},
		{Name: "distinct/unknown", Node: scan(tT).Distinct("k", "zz").Node(), Err: errOf(plan.UnknownColumn, "zz")},
		{Name: "distinct/twice", Node: scan(tT).Distinct("k", "k").Node(), Err: errOf(plan.DuplicateColumn, "k")},
	}
}

func scanCases() []Case {
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
	return []Case{
		{Name: "scan/projected-reorders", Node: projected(tT, "s", "k"),
			Want: [][]plan.Value{row(str("x"), i64(1)), row(str(""), i64(2)), row(str("héllo"), i64(1)), row(nStr, nI64), row(str("x"), i64(2))}},
		{Name: "scan/no-columns-keeps-height", Node: plan.FromNode(projected(tT)).Select(lit(1)).Node(), Want: gs(1, 1, 1, 1, 1)},
		{Name: "scan/pushed-exact-applied", Node: pushed(plan.Exact, col("a").Gt(lit(15)), "k"), Want: [][]plan.Value{row(i64(2)), row(i64(1)), row(nI64)}},
		{Name: "scan/pushed-inexact-ignored", Node: pushed(plan.Inexact, col("a").Gt(lit(15))), Want: [][]plan.Value{r0, r1, r2, r3, r4}},
		{Name: "scan/pushed-no-short-circuit", Node: dPushed(col("a").Div(col("b")).Gt(lit(0))), Err: errOf(plan.DivideByZero, "a / b")},
		{Name: "scan/pushed-not-bool", Node: pushed(plan.Exact, col("a")), Err: errOf(plan.TypeError, "a")},
		{Name: "scan/projected-unknown", Node: projected(tT, "k", "q r"), Err: errOf(plan.UnknownColumn, `"q r"`)},
		{Name: "scan/projected-twice", Node: projected(tT, "k", "k"), Err: errOf(plan.DuplicateColumn, "")},
		{Name: "scan/no-source", Node: &plan.ScanNode{}, Err: errOf(plan.InvalidPlan, "")},
	}
}

func extensionCases() []Case {
	return []Case{
		{Name: "extension/identity", Node: scan(tT).Extension(testops.Identity).Head(2).Node(), Want: [][]plan.Value{r0, r1}},
		{Name: "extension/no-declaration", Node: &plan.ExtensionNode{Inputs: []plan.Node{scan(tT).Node()}}, Err: errOf(plan.InvalidPlan, "")},
		{Name: "extension/arity", Node: scan(tT).Extension(testops.Identity, scan(tT)).Node(), Err: errOf(plan.InvalidPlan, "")},
		{Name: "extension/unregistered", Node: scan(tT).Extension(&plan.ExtensionDef{Name: "nowhere", Inputs: 1}).Node(),
			Err: errOf(plan.InvalidPlan, "nowhere")},
		{Name: "extension/output-schema-error", Node: scan(tT).Extension(&plan.ExtensionDef{Name: "bad", Inputs: 1,
			OutputSchema: func([]plan.Schema) (plan.Schema, error) { return plan.Schema{}, errBad }}).Node(), Err: errOf(plan.InvalidPlan, "")},
	}
}

// orderCases pin the order of evaluation and of checks across nodes.
func orderCases() []Case {
	return []Case{
		// A resolve error anywhere beats an evaluation error below it.
		{Name: "order/resolve-before-evaluate", Node: scan(tD).Filter(col("a").Div(col("b")).Gt(lit(0))).Select(col("zz")).Node(),
			Err: errOf(plan.UnknownColumn, "zz"), NoMethods: true},
		// Children resolve left before right.
		{Name: "order/left-resolve-error-first", Node: scan(tT).Select(col("q1")).Join(scan(tT).Select(col("q2")), plan.InnerJoin,
			[]plan.E{col("q1")}, []plan.E{col("q2")}).Node(), Err: errOf(plan.UnknownColumn, "q1")},
		// Children evaluate left before right.
		{Name: "order/left-evaluates-first", Node: scan(tD).Select(col("a").Div(col("b")).Alias("x")).CrossJoin(
			scan(tD).Select(col("a").Mul(lit(2)).Alias("y"))).Node(), Err: errOf(plan.DivideByZero, "a / b")},
		{Name: "order/deep-chain", Node: scan(tT).Filter(col("a").IsNotNull()).WithColumns(col("a").Mul(lit(2)).Alias("a2")).
			Sort(plan.Desc(col("a2"))).Head(3).GroupBy(col("k")).Agg(col("a2").Sum().Alias("s")).SortBy("k").Node(),
			Want: [][]plan.Value{row(nI64, i64(80)), row(i64(1), i64(60)), row(i64(2), i64(40))}},
		{Name: "order/missing-input", Node: &plan.FilterNode{Predicates: exprs(lit(true))}, Err: errOf(plan.InvalidPlan, "")},
	}
}

// AllCases returns every case of the tables above.
func AllCases() []Case {
	var out []Case
	for _, f := range []func() []Case{filterCases, projectCases, withColumnsCases, windowCases, sortCases, sliceCases,
		aggregateCases, joinCases, unionCases, distinctCases, scanCases, extensionCases, orderCases} {
		out = append(out, f()...)
	}
	return out
}
