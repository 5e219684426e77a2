package exec

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// The test table T:
//
//	row  k     v      s
//	0    1     1.5    "a"
//	1    2     NaN    "b"
//	2    1     -0.0   null
//	3    null  2.0    "a"
//	4    2     null   ""
//	5    3     0.0    "c"
var (
	tK = ints(1, 2, 1, nil, 2, 3)
	tV = floats(1.5, nanA, negZero, 2.0, nil, 0.0)
	tS = strs("a", "b", nil, "a", "", "c")
)

func tableT(t testing.TB) *plan.Table {
	return mustTable(t, "t", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true},
		{Name: "v", Type: plan.Float64, Nullable: true}, {Name: "s", Type: plan.String, Nullable: true}}, tK, tV, tS)
}

func emptyT(t testing.TB) *plan.Table {
	return mustTable(t, "e", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true},
		{Name: "v", Type: plan.Float64, Nullable: true}, {Name: "s", Type: plan.String, Nullable: true}}, ints(), floats(), strs())
}

// rowsT is T restricted to rows, as expected columns.
func rowsT(rows ...int) []col {
	return []col{{"k", pick(tK, rows...)}, {"v", pick(tV, rows...)}, {"s", pick(tS, rows...)}}
}

var (
	c  = plan.Col
	lt = plan.Lit
)

func TestScanFilterProject(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	allNull := mustTable(t, "n", []plan.Field{{Name: "x", Type: plan.Int64, Nullable: true}}, ints(nil, nil, nil))
	projected := &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Projected: true, Columns: []string{"s", "k"}}
	noColumns := &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Projected: true, Columns: []string{}}
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"scan", plan.Scan(T).Node(), want{cols: rowsT(0, 1, 2, 3, 4, 5)}},
		{"scan empty", plan.Scan(E).Node(), want{cols: rowsT()}},
		{"scan projected", projected, want{cols: []col{{"s", tS}, {"k", tK}}}},
		{"scan with no column keeps the height", plan.FromNode(noColumns).Select(lt(1).Alias("one")).Node(),
			want{cols: []col{{"one", repeat(plan.Int64Value(1), 6)}}}},
		{"filter", plan.Scan(T).Filter(c("k").Gt(lt(1))).Node(), want{cols: rowsT(1, 4, 5)}},
		{"filter conjuncts (NaN, -0.0, null fail)", plan.Scan(T).Filter(c("k").Ge(lt(1)), c("v").Gt(lt(0.0))).Node(), want{cols: rowsT(0)}},
		{"filter keeps nothing", plan.Scan(T).Filter(c("k").Gt(lt(10))).Node(), want{cols: rowsT()}},
		{"filter on empty", plan.Scan(E).Filter(c("k").Gt(lt(1))).Node(), want{cols: rowsT()}},
		{"filter all-null column", plan.Scan(allNull).Filter(c("x").IsNull()).Node(), want{cols: []col{{"x", ints(nil, nil, nil)}}}},
		{"filter error", plan.Scan(T).Filter(c("k").Div(lt(0)).Gt(lt(1))).Node(), want{errKind: plan.DivideByZero, errExpr: "k / 0"}},
		{"filter: a false conjunct does not mask a later error",
			plan.Scan(T).Filter(lt(false), c("k").Div(lt(0)).Gt(lt(1))).Node(), want{errKind: plan.DivideByZero, errExpr: "k / 0"}},
		{"project", plan.Scan(T).Select(c("k"), lt(7).Alias("seven"), c("s").Alias("t")).Node(),
			want{cols: []col{{"k", tK}, {"seven", repeat(plan.Int64Value(7), 6)}, {"t", tS}}}},
		{"project literals keeps the height", plan.Scan(T).Select(lt("x").Alias("x")).Node(),
			want{cols: []col{{"x", repeat(plan.StringValue("x"), 6)}}}},
		{"project literal over empty", plan.Scan(E).Select(lt("x").Alias("x")).Node(), want{cols: []col{{"x", strs()}}}},
		{"with_columns replaces in place and appends", plan.Scan(T).WithColumns(c("k").Mul(lt(10)).Alias("k"), lt(true).Alias("z")).Node(),
			want{cols: []col{{"k", ints(10, 20, 10, nil, 20, 30)}, {"v", tV}, {"s", tS}, {"z", repeat(plan.BoolValue(true), 6)}}}},
		{"with_columns is simultaneous", plan.Scan(T).WithColumns(c("k").Add(lt(1)).Alias("k"), c("k").Alias("old")).Node(),
			want{cols: []col{{"k", ints(2, 3, 2, nil, 3, 4)}, {"v", tV}, {"s", tS}, {"old", tK}}}},
		{"unknown column", plan.Scan(T).Filter(c("nope").Gt(lt(1))).Node(), want{errKind: plan.UnknownColumn}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestSortLimitSlice(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	key := func(e plan.E, desc, nullsLast bool) plan.SortKey {
		return plan.SortKey{Expr: e.Expr(), Desc: desc, NullsLast: nullsLast}
	}
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		// total order: null, -0.0, 0.0, 1.5, 2.0, NaN
		{"sort floats", plan.Scan(T).Sort(key(c("v"), false, false)).Node(), want{cols: rowsT(4, 2, 5, 0, 3, 1)}},
		{"sort floats desc (nulls still first)", plan.Scan(T).Sort(key(c("v"), true, false)).Node(), want{cols: rowsT(4, 1, 3, 0, 5, 2)}},
		{"sort stable nulls_last", plan.Scan(T).Sort(key(c("k"), false, true)).Node(), want{cols: rowsT(0, 2, 1, 4, 5, 3)}},
		{"sort desc nulls_last", plan.Scan(T).Sort(key(c("k"), true, true)).Node(), want{cols: rowsT(5, 1, 4, 0, 2, 3)}},
		{"sort two keys", plan.Scan(T).Sort(key(c("k"), false, false), key(c("s"), true, false)).Node(), want{cols: rowsT(3, 2, 0, 1, 4, 5)}},
		{"sort by expression", plan.Scan(T).Sort(key(c("k").Neg(), false, false)).Node(), want{cols: rowsT(3, 5, 1, 4, 0, 2)}},
		{"sort empty", plan.Scan(E).Sort(key(c("k"), false, false)).Node(), want{cols: rowsT()}},
		{"sort key error", plan.Scan(T).Sort(key(c("k").Div(lt(0)), false, false)).Node(), want{errKind: plan.DivideByZero}},
		{"limit", plan.Scan(T).Head(2).Node(), want{cols: rowsT(0, 1)}},
		{"limit 0", plan.Scan(T).Head(0).Node(), want{cols: rowsT()}},
		{"limit past the end", plan.Scan(T).Head(100).Node(), want{cols: rowsT(0, 1, 2, 3, 4, 5)}},
		{"top-k", plan.Scan(T).Sort(key(c("v"), true, false)).Head(3).Node(), want{cols: rowsT(4, 1, 3)}},
		{"top-k ties stay stable", plan.Scan(T).Sort(key(c("k"), false, true)).Head(3).Node(), want{cols: rowsT(0, 2, 1)}},
		{"top-k past the end", plan.Scan(T).Sort(key(c("k"), false, true)).Head(10).Node(), want{cols: rowsT(0, 2, 1, 4, 5, 3)}},
		{"slice", plan.Scan(T).Slice(2, 3).Node(), want{cols: rowsT(2, 3, 4)}},
		{"slice clamped", plan.Scan(T).Slice(5, 10).Node(), want{cols: rowsT(5)}},
		{"slice past the end", plan.Scan(T).Slice(10, 1).Node(), want{cols: rowsT()}},
		{"slice to the end", plan.Scan(T).Slice(3, -1).Node(), want{cols: rowsT(3, 4, 5)}},
		{"slice to the end of a filter", plan.Scan(T).Filter(c("k").Gt(lt(1))).Slice(1, -7).Node(), want{cols: rowsT(4, 5)}},
		{"negative limit", plan.Scan(T).Head(-1).Node(), want{errKind: plan.InvalidPlan}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestAggregate(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	keys := mustTable(t, "f", []plan.Field{{Name: "f", Type: plan.Float64, Nullable: true}, {Name: "i", Type: plan.Int64}},
		floats(nanA, negZero, 0.0, nanB, nil, 0.0, nil), []plan.Value{plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3),
			plan.Int64Value(4), plan.Int64Value(5), plan.Int64Value(6), plan.Int64Value(7)})
	big := mustTable(t, "b", []plan.Field{{Name: "x", Type: plan.Int64}},
		[]plan.Value{plan.Int64Value(1 << 62), plan.Int64Value(1 << 62)})
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"group by k", plan.Scan(T).GroupBy(c("k")).Agg(c("v").Sum().Alias("sv"), c("v").Count().Alias("c"), plan.Len().Alias("n"), c("s").First().Alias("f")).Node(),
			want{cols: []col{{"k", ints(1, 2, nil, 3)}, {"sv", floats(1.5, nanA, 2.0, 0.0)}, {"c", ints(2, 1, 1, 1)},
				{"n", ints(2, 2, 1, 1)}, {"f", strs("a", "b", "a", "c")}}}},
		{"group by NaN and zero keys (first row's bits)", plan.Scan(keys).GroupBy(c("f")).Agg(plan.Len().Alias("n"), c("i").Sum().Alias("si")).Node(),
			want{cols: []col{{"f", floats(nanA, negZero, nil)}, {"n", ints(2, 3, 2)}, {"si", ints(5, 11, 12)}}}},
		{"group by expression", plan.Scan(T).GroupBy(c("k").Mul(lt(0)).Alias("z")).Agg(plan.Len().Alias("n")).Node(),
			want{cols: []col{{"z", ints(0, nil)}, {"n", ints(5, 1)}}}},
		{"no keys", plan.Scan(T).Agg(c("k").Sum().Alias("sk"), c("v").Min().Alias("mn"), c("v").Max().Alias("mx"), c("s").Last().Alias("l")).Node(),
			want{cols: []col{{"sk", ints(9)}, {"mn", floats(negZero)}, {"mx", floats(nanA)}, {"l", strs("c")}}}},
		{"no keys over empty input", plan.Scan(E).Agg(c("v").Count().Alias("c"), plan.Len().Alias("n"), c("k").Sum().Alias("s"), c("k").Min().Alias("m"), c("v").Mean().Alias("avg")).Node(),
			want{cols: []col{{"c", ints(0)}, {"n", ints(0)}, {"s", ints(nil)}, {"m", ints(nil)}, {"avg", floats(nil)}}}},
		{"keys over empty input", plan.Scan(E).GroupBy(c("k")).Agg(plan.Len().Alias("n")).Node(),
			want{cols: []col{{"k", ints()}, {"n", ints()}}}},
		{"sum overflow", plan.Scan(big).Agg(c("x").Sum()).Node(), want{errKind: plan.Overflow, errExpr: "sum(x)"}},
		{"n_unique, median, var, std by k", plan.Scan(T).GroupBy(c("k")).Agg(c("s").NUnique().Alias("u"), c("v").Median().Alias("med"),
			c("k").VarDdof(0).Alias("var0"), c("v").Std().Alias("sd"), c("v").Quantile(0.25).Alias("q")).Node(),
			want{cols: []col{{"k", ints(1, 2, nil, 3)}, {"u", ints(2, 2, 1, 1)}, {"med", floats(0.75, nanA, 2.0, 0.0)},
				{"var0", floats(0.0, 0.0, nil, 0.0)}, {"sd", floats(math.Sqrt(1.125), nil, nil, nil)}, {"q", floats(0.375, nanA, 2.0, 0.0)}}}},
		{"any and all ignore nulls", plan.Scan(T).GroupBy(c("k")).Agg(c("v").Gt(lt(1.0)).Any().Alias("any"), c("v").Gt(lt(1.0)).All().Alias("all")).Node(),
			want{cols: []col{{"k", ints(1, 2, nil, 3)}, {"any", boolVals(true, false, true, false)}, {"all", boolVals(false, false, true, false)}}}},
		{"new aggregates over empty input", plan.Scan(E).Agg(c("s").NUnique().Alias("u"), c("v").IsNull().Any().Alias("any"),
			c("v").IsNull().All().Alias("all"), c("v").Median().Alias("med"), c("k").VarDdof(0).Alias("var")).Node(),
			want{cols: []col{{"u", ints(0)}, {"any", boolVals(false)}, {"all", boolVals(true)}, {"med", floats(nil)}, {"var", floats(nil)}}}},
		{"argument error", plan.Scan(T).GroupBy(c("k")).Agg(c("k").Div(lt(0)).Sum().Alias("x")).Node(), want{errKind: plan.DivideByZero, errExpr: "k / 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestWindow(t *testing.T) {
	T := tableT(t)
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"with_columns over", plan.Scan(T).WithColumns(c("v").Sum().Over(c("k")).Alias("sv")).Node(),
			want{cols: append(rowsT(0, 1, 2, 3, 4, 5), col{"sv", floats(1.5, nanA, 1.5, 2.0, nanA, 0.0)})}},
		{"project over", plan.Scan(T).Select(c("k"), plan.Len().Over(c("k")).Alias("n")).Node(),
			want{cols: []col{{"k", tK}, {"n", ints(2, 2, 2, 1, 2, 1)}}}},
		{"over inside an expression, replacing a column", plan.Scan(T).WithColumns(c("v").Count().Over(c("k")).Add(lt(1)).Alias("k")).Node(),
			want{cols: []col{{"k", ints(3, 2, 3, 2, 2, 2)}, {"v", tV}, {"s", tS}}}},
		{"two windows", plan.Scan(T).Select(c("s").First().Over(c("k")).Alias("f"), c("k").Max().Over(c("s")).Alias("m")).Node(),
			want{cols: []col{{"f", strs("a", "b", "a", "a", "b", "c")}, {"m", ints(1, 2, 1, 1, 2, 3)}}}},
		{"median and quantile over", plan.Scan(T).Select(c("v").Median().Over(c("k")).Alias("m"), c("v").Quantile(0.25).Over(c("k")).Alias("q"),
			c("k").IsNull().Any().Over(c("s")).Alias("a")).Node(),
			want{cols: []col{{"m", floats(0.75, nanA, 0.75, 2.0, nanA, 0.0)}, {"q", floats(0.375, nanA, 0.375, 2.0, nanA, 0.0)},
				{"a", boolVals(true, false, false, true, false, false)}}}},
		{"window key error", plan.Scan(T).WithColumns(c("v").Sum().Over(c("k").Div(lt(0))).Alias("x")).Node(),
			want{errKind: plan.DivideByZero}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestJoin(t *testing.T) {
	L := mustTable(t, "l", []plan.Field{{Name: "id", Type: plan.Int64, Nullable: true}, {Name: "lv", Type: plan.String, Nullable: true}},
		ints(1, 2, 2, nil, 3), strs("a", "b", "c", "d", "e"))
	R := mustTable(t, "r", []plan.Field{{Name: "id", Type: plan.Int64, Nullable: true}, {Name: "rv", Type: plan.Int64, Nullable: true}},
		ints(2, 1, 2, nil, 4), ints(10, 20, 30, 40, 50))
	R32 := mustTable(t, "r32", []plan.Field{{Name: "j", Type: plan.Int32, Nullable: true}},
		[]plan.Value{plan.Int32Value(3), plan.Int32Value(1), plan.NullValue(plan.Int32)})
	F1 := mustTable(t, "f1", []plan.Field{{Name: "f", Type: plan.Float64, Nullable: true}, {Name: "x", Type: plan.Int64, Nullable: true}},
		floats(nanA, negZero, 1.0, nil), ints(1, 2, 3, 4))
	F2 := mustTable(t, "f2", []plan.Field{{Name: "f", Type: plan.Float64, Nullable: true}, {Name: "x", Type: plan.Int64, Nullable: true}},
		floats(0.0, nanB, nil), ints(10, 20, 30))
	E := mustTable(t, "le", []plan.Field{{Name: "id", Type: plan.Int64, Nullable: true}, {Name: "lv", Type: plan.String, Nullable: true}}, ints(), strs())
	lid, lv, rid, rv := ints(1, 2, 2, nil, 3), strs("a", "b", "c", "d", "e"), ints(2, 1, 2, nil, 4), ints(10, 20, 30, 40, 50)
	join := func(how plan.JoinKind) plan.Node { return plan.Scan(L).JoinOn(plan.Scan(R), how, "id").Node() }
	joinOpts := func(how plan.JoinKind, o plan.JoinOptions) plan.Node {
		return plan.Scan(L).JoinOn(plan.Scan(R), how, "id").WithJoinOptions(o).Node()
	}
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"inner", join(plan.InnerJoin), want{cols: []col{{"id", pick(lid, 0, 1, 1, 2, 2)}, {"lv", pick(lv, 0, 1, 1, 2, 2)}, {"rv", pick(rv, 1, 0, 2, 0, 2)}}}},
		{"left", join(plan.LeftJoin), want{cols: []col{{"id", pick(lid, 0, 1, 1, 2, 2, 3, 4)}, {"lv", pick(lv, 0, 1, 1, 2, 2, 3, 4)},
			{"rv", pick(rv, 1, 0, 2, 0, 2, -1, -1)}}}},
		{"right", join(plan.RightJoin), want{cols: []col{{"lv", pick(lv, 1, 2, 0, 1, 2, -1, -1)},
			{"id", pick(rid, 0, 0, 1, 2, 2, 3, 4)}, {"rv", pick(rv, 0, 0, 1, 2, 2, 3, 4)}}}},
		{"right keep", joinOpts(plan.RightJoin, plan.JoinOptions{Coalesce: plan.CoalesceKeep}), want{cols: []col{{"id", pick(lid, 1, 2, 0, 1, 2, -1, -1)}, {"lv", pick(lv, 1, 2, 0, 1, 2, -1, -1)},
			{"id_right", pick(rid, 0, 0, 1, 2, 2, 3, 4)}, {"rv", pick(rv, 0, 0, 1, 2, 2, 3, 4)}}}},
		{"full coalesce", joinOpts(plan.FullJoin, plan.JoinOptions{Coalesce: plan.CoalesceMerge}), want{cols: []col{{"id", append(pick(lid, 0, 1, 1, 2, 2, 3, 4), pick(rid, 3, 4)...)}, {"lv", pick(lv, 0, 1, 1, 2, 2, 3, 4, -1, -1)},
			{"rv", pick(rv, 1, 0, 2, 0, 2, -1, -1, 3, 4)}}}},
		{"full", join(plan.FullJoin), want{cols: []col{{"id", pick(lid, 0, 1, 1, 2, 2, 3, 4, -1, -1)}, {"lv", pick(lv, 0, 1, 1, 2, 2, 3, 4, -1, -1)},
			{"id_right", pick(rid, 1, 0, 2, 0, 2, -1, -1, 3, 4)}, {"rv", pick(rv, 1, 0, 2, 0, 2, -1, -1, 3, 4)}}}},
		{"inner nulls_equal pairs the null keys", joinOpts(plan.InnerJoin, plan.JoinOptions{NullsEqual: true}), want{cols: []col{{"id", pick(lid, 0, 1, 1, 2, 2, 3)},
			{"lv", pick(lv, 0, 1, 1, 2, 2, 3)}, {"rv", pick(rv, 1, 0, 2, 0, 2, 3)}}}},
		{"anti nulls_equal drops the null key", joinOpts(plan.AntiJoin, plan.JoinOptions{NullsEqual: true}), want{cols: []col{{"id", pick(lid, 4)}, {"lv", pick(lv, 4)}}}},
		{"validate m:1 raises on the right duplicate", joinOpts(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateManyToOne}),
			want{errKind: plan.ValidationError, errExpr: "id"}},
		{"validate 1:m raises on the left duplicate", joinOpts(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany}),
			want{errKind: plan.ValidationError, errExpr: "id"}},
		{"validate 1:m ignores null keys", plan.Scan(L).Filter(c("lv").Ne(lt("b"))).JoinOn(plan.Scan(R), plan.LeftJoin, "id").WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateOneToMany}).Select(c("lv")).Node(),
			want{cols: []col{{"lv", strs("a", "c", "c", "d", "e")}}}},
		{"validate 1:m counts null keys under nulls_equal", plan.Scan(L).Union(plan.Scan(L).Filter(c("id").IsNull())).Filter(c("lv").Ne(lt("b"))).JoinOn(plan.Scan(R), plan.LeftJoin, "id").
			WithJoinOptions(plan.JoinOptions{Validate: plan.ValidateOneToMany, NullsEqual: true}).Node(),
			want{errKind: plan.ValidationError, errExpr: "id"}},
		{"semi residual", joinOpts(plan.SemiJoin, plan.JoinOptions{Residual: plan.E.Gt(c("rv"), lt(25))}), want{cols: []col{{"id", pick(lid, 1, 2)}, {"lv", pick(lv, 1, 2)}}}},
		{"anti residual", joinOpts(plan.AntiJoin, plan.JoinOptions{Residual: plan.E.Gt(c("rv"), lt(25))}), want{cols: []col{{"id", pick(lid, 0, 3, 4)}, {"lv", pick(lv, 0, 3, 4)}}}},
		{"residual reads the suffixed right key", joinOpts(plan.SemiJoin, plan.JoinOptions{Residual: c("id_right").Eq(c("id"))}), want{cols: []col{{"id", pick(lid, 0, 1, 2)}, {"lv", pick(lv, 0, 1, 2)}}}},
		{"residual null does not count", joinOpts(plan.AntiJoin, plan.JoinOptions{Residual: plan.Null(plan.Bool)}), want{cols: []col{{"id", lid}, {"lv", lv}}}},
		{"residual error on a matched pair", joinOpts(plan.SemiJoin, plan.JoinOptions{Residual: lt(1).Div(c("rv").Sub(lt(30))).Gt(lt(0))}),
			want{errKind: plan.DivideByZero}},
		{"residual never meets an unmatched pair", joinOpts(plan.SemiJoin, plan.JoinOptions{Residual: lt(1).Div(c("rv").Sub(lt(50))).Ne(lt(-100))}),
			want{cols: []col{{"id", pick(lid, 0, 1, 2)}, {"lv", pick(lv, 0, 1, 2)}}}},
		{"diagonal union", plan.Scan(L).UnionDiagonal(plan.Scan(R)).Node(), want{cols: []col{{"id", append(append([]plan.Value(nil), lid...), rid...)},
			{"lv", append(append([]plan.Value(nil), lv...), pick(lv, -1, -1, -1, -1, -1)...)}, {"rv", append(pick(rv, -1, -1, -1, -1, -1), rv...)}}}},
		{"semi", join(plan.SemiJoin), want{cols: []col{{"id", pick(lid, 0, 1, 2)}, {"lv", pick(lv, 0, 1, 2)}}}},
		{"anti keeps null keys", join(plan.AntiJoin), want{cols: []col{{"id", pick(lid, 3, 4)}, {"lv", pick(lv, 3, 4)}}}},
		{"cross", plan.Scan(L).Head(2).CrossJoin(plan.Scan(R).Head(2)).Node(), want{cols: []col{{"id", pick(lid, 0, 0, 1, 1)},
			{"lv", pick(lv, 0, 0, 1, 1)}, {"id_right", pick(rid, 0, 1, 0, 1)}, {"rv", pick(rv, 0, 1, 0, 1)}}}},
		{"suffix", plan.Scan(L).JoinOn(plan.Scan(R), plan.FullJoin, "id").WithSuffix("_r").Node(), want{cols: []col{
			{"id", pick(lid, 0, 1, 1, 2, 2, 3, 4, -1, -1)}, {"lv", pick(lv, 0, 1, 1, 2, 2, 3, 4, -1, -1)},
			{"id_r", pick(rid, 1, 0, 2, 0, 2, -1, -1, 3, 4)}, {"rv", pick(rv, 1, 0, 2, 0, 2, -1, -1, 3, 4)}}}},
		{"expression key keeps the right key", plan.Scan(L).Join(plan.Scan(R), plan.InnerJoin, []plan.E{c("id")}, []plan.E{c("id").Add(lt(0))}).Node(),
			want{cols: []col{{"id", pick(lid, 0, 1, 1, 2, 2)}, {"lv", pick(lv, 0, 1, 1, 2, 2)}, {"id_right", pick(rid, 1, 0, 2, 0, 2)}, {"rv", pick(rv, 1, 0, 2, 0, 2)}}}},
		{"int64 with int32 keys", plan.Scan(L).Join(plan.Scan(R32), plan.LeftJoin, []plan.E{c("id")}, []plan.E{c("j")}).Node(),
			want{cols: []col{{"id", lid}, {"lv", lv}, {"j", []plan.Value{plan.Int32Value(1), plan.NullValue(plan.Int32), plan.NullValue(plan.Int32),
				plan.NullValue(plan.Int32), plan.Int32Value(3)}}}}},
		{"NaN and -0.0 keys", plan.Scan(F1).JoinOn(plan.Scan(F2), plan.InnerJoin, "f").Node(),
			want{cols: []col{{"f", floats(nanA, negZero)}, {"x", ints(1, 2)}, {"x_right", ints(20, 10)}}}},
		{"empty left", plan.FromNode(plan.Scan(E).Node()).JoinOn(plan.Scan(R), plan.LeftJoin, "id").Node(),
			want{cols: []col{{"id", ints()}, {"lv", strs()}, {"rv", ints()}}}},
		{"empty left full join", plan.Scan(E).JoinOn(plan.Scan(R), plan.FullJoin, "id").Node(),
			want{cols: []col{{"id", ints(nil, nil, nil, nil, nil)}, {"lv", strs(nil, nil, nil, nil, nil)}, {"id_right", rid}, {"rv", rv}}}},
		{"key error", plan.Scan(L).Join(plan.Scan(R), plan.InnerJoin, []plan.E{c("id").Div(lt(0))}, []plan.E{c("id")}).Node(),
			want{errKind: plan.DivideByZero, errExpr: "id / 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestUnionDistinctExtension(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	dup := mustTable(t, "d", []plan.Field{{Name: "f", Type: plan.Float64, Nullable: true}, {Name: "s", Type: plan.String, Nullable: true}},
		floats(0.0, nanA, negZero, nanB, nil, 0.0, nil), strs("x", "y", "x", "y", "z", "w", "z"))
	unknown := &plan.ExtensionDef{Name: "no_such_op", Inputs: 1}
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"union", plan.Scan(T).Head(2).Union(plan.Scan(T).Slice(4, 2), plan.Scan(E)).Node(), want{cols: rowsT(0, 1, 4, 5), hits: 1}},
		{"union of empties", plan.Scan(E).Union(plan.Scan(E)).Node(), want{cols: rowsT(), hits: 1}},
		{"distinct subset", plan.Scan(T).Distinct("k").Node(), want{cols: rowsT(0, 1, 3, 5)}},
		{"distinct all columns (NaN and zero keys)", plan.Scan(dup).Distinct().Node(),
			want{cols: []col{{"f", floats(0.0, nanA, nil, 0.0)}, {"s", strs("x", "y", "z", "w")}}}},
		{"distinct float subset", plan.Scan(dup).Distinct("f").Node(),
			want{cols: []col{{"f", floats(0.0, nanA, nil)}, {"s", strs("x", "y", "z")}}}},
		{"distinct empty", plan.Scan(E).Distinct().Node(), want{cols: rowsT()}},
		{"identity extension", plan.Scan(T).Extension(testops.Identity).Filter(c("k").Eq(lt(1))).Node(), want{cols: rowsT(0, 2)}},
		{"unknown extension", plan.Scan(T).Extension(unknown).Node(), want{errKind: plan.InvalidPlan, errExpr: "no_such_op"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

// boolVals builds bool values (nil for a null).
func boolVals(vs ...any) []plan.Value {
	out := make([]plan.Value, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = plan.NullValue(plan.Bool)
		} else {
			out[i] = plan.BoolValue(v.(bool))
		}
	}
	return out
}
