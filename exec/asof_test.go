package exec

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// The as-of test tables:
//
//	L: t = [1, 5, 10, null, 12], g = [a, b, a, a, b]
//	R: t = [2, 5, 7, 7, 11], g = [a, a, a, b, b], v = [10, 20, 30, 40, 50]
func asofTables(t *testing.T) (l, r, unsorted *plan.Table) {
	l = mustTable(t, "l", []plan.Field{{Name: "t", Type: plan.Int64, Nullable: true}, {Name: "g", Type: plan.String}},
		ints(1, 5, 10, nil, 12), strs("a", "b", "a", "a", "b"))
	r = mustTable(t, "r", []plan.Field{{Name: "t", Type: plan.Int64}, {Name: "g", Type: plan.String}, {Name: "v", Type: plan.Int64}},
		ints(2, 5, 7, 7, 11), strs("a", "a", "a", "b", "b"), ints(10, 20, 30, 40, 50))
	unsorted = mustTable(t, "u", []plan.Field{{Name: "t", Type: plan.Int64}, {Name: "g", Type: plan.String}},
		ints(5, 1, 7), strs("a", "b", "a"))
	return l, r, unsorted
}

func TestAsofJoin(t *testing.T) {
	L, R, U := asofTables(t)
	lcols := []col{{"t", ints(1, 5, 10, nil, 12)}, {"g", strs("a", "b", "a", "a", "b")}}
	out := func(g, v []plan.Value) want {
		return want{cols: append(append([]col(nil), lcols...), col{"g_right", g}, col{"v", v})}
	}
	asof := func(o plan.AsofOptions) plan.Node {
		o.LeftOn = "t"
		return plan.Scan(L).JoinAsof(plan.Scan(R), o).Node()
	}
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"backward", asof(plan.AsofOptions{}), out(strs(nil, "a", "b", nil, "b"), ints(nil, 20, 40, nil, 50))},
		{"forward", asof(plan.AsofOptions{Strategy: plan.AsofForward}), out(strs("a", "a", "b", nil, nil), ints(10, 20, 50, nil, nil))},
		{"nearest", asof(plan.AsofOptions{Strategy: plan.AsofNearest}), out(strs("a", "a", "b", nil, "b"), ints(10, 20, 50, nil, 50))},
		{"backward without exact matches", asof(plan.AsofOptions{ExcludeExact: true}), out(strs(nil, "a", "b", nil, "b"), ints(nil, 10, 40, nil, 50))},
		{"forward without exact matches", asof(plan.AsofOptions{Strategy: plan.AsofForward, ExcludeExact: true}),
			out(strs("a", "a", "b", nil, nil), ints(10, 30, 50, nil, nil))},
		{"backward with tolerance", asof(plan.AsofOptions{Tolerance: lt(int64(2))}), out(strs(nil, "a", nil, nil, "b"), ints(nil, 20, nil, nil, 50))},
		{"nearest with tolerance 0", asof(plan.AsofOptions{Strategy: plan.AsofNearest, Tolerance: lt(int64(0))}),
			out(strs(nil, "a", nil, nil, nil), ints(nil, 20, nil, nil, nil))},
		{"backward by g", asof(plan.AsofOptions{LeftBy: []string{"g"}}),
			want{cols: append(append([]col(nil), lcols...), col{"v", ints(nil, nil, 30, nil, 50)})}},
		{"nearest by g", asof(plan.AsofOptions{LeftBy: []string{"g"}, Strategy: plan.AsofNearest}),
			want{cols: append(append([]col(nil), lcols...), col{"v", ints(10, 40, 30, nil, 50)})}},
		{"unsorted left", plan.Scan(U).JoinAsof(plan.Scan(R), plan.AsofOptions{LeftOn: "t"}).Node(),
			want{errKind: plan.InvalidInput, errExpr: "t"}},
		{"unsorted right", plan.Scan(L).JoinAsof(plan.Scan(U), plan.AsofOptions{LeftOn: "t"}).Node(),
			want{errKind: plan.InvalidInput, errExpr: "t"}},
		{"sorted within groups", plan.Scan(U).JoinAsof(plan.Scan(R), plan.AsofOptions{LeftOn: "t", LeftBy: []string{"g"}}).Node(),
			want{cols: []col{{"t", ints(5, 1, 7)}, {"g", strs("a", "b", "a")}, {"v", ints(20, nil, 30)}}}},
		{"sorted after a sort", plan.Scan(U).SortBy("t").JoinAsof(plan.Scan(R), plan.AsofOptions{LeftOn: "t"}).Node(),
			want{cols: []col{{"t", ints(1, 5, 7)}, {"g", strs("b", "a", "a")}, {"g_right", strs(nil, "a", "b")}, {"v", ints(nil, 20, 40)}}}},
		{"key types differ", plan.Scan(L).JoinAsof(plan.Scan(R), plan.AsofOptions{LeftOn: "t", RightOn: "g"}).Node(),
			want{errKind: plan.TypeError}},
		{"negative tolerance", asof(plan.AsofOptions{Tolerance: lt(int64(-1))}), want{errKind: plan.InvalidPlan}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestTemporalGroup(t *testing.T) {
	// t = [1, 2, 3, 7, 8, 20], g = [a, b, a, a, b, a], x = [1, 2, 3, 4, 5, 6]
	T := mustTable(t, "w", []plan.Field{{Name: "t", Type: plan.Int64}, {Name: "g", Type: plan.String}, {Name: "x", Type: plan.Int64, Nullable: true}},
		ints(1, 2, 3, 7, 8, 20), strs("a", "b", "a", "a", "b", "a"), ints(1, 2, 3, 4, 5, 6))
	U := mustTable(t, "u", []plan.Field{{Name: "t", Type: plan.Int64, Nullable: true}}, ints(3, 1))
	N := mustTable(t, "n", []plan.Field{{Name: "t", Type: plan.Int64, Nullable: true}}, ints(1, nil))
	sum, ln := c("x").Sum().Alias("s"), plan.Len()
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"dynamic every 5", plan.Scan(T).GroupByDynamic("t", lt(int64(5)), plan.WindowOptions{}, sum, ln).Node(),
			want{cols: []col{{"t", ints(0, 5, 20)}, {"s", ints(6, 9, 6)}, {"len", ints(3, 2, 1)}}}},
		{"dynamic label right, period 10", plan.Scan(T).GroupByDynamic("t", lt(int64(5)),
			plan.WindowOptions{Period: lt(int64(10)), Label: plan.LabelRight}, sum).Node(),
			want{cols: []col{{"t", ints(5, 10, 15, 25, 30)}, {"s", ints(6, 15, 9, 6, 6)}}}},
		{"dynamic by g, datapoint", plan.Scan(T).GroupByDynamic("t", lt(int64(5)),
			plan.WindowOptions{By: []string{"g"}, Label: plan.LabelDatapoint}, sum).Node(),
			want{cols: []col{{"g", strs("a", "a", "a", "b", "b")}, {"t", ints(1, 7, 20, 2, 8)}, {"s", ints(4, 4, 6, 2, 5)}}}},
		{"rolling period 5", plan.Scan(T).Rolling("t", lt(int64(5)), plan.WindowOptions{}, sum, ln).Node(),
			want{cols: []col{{"t", ints(1, 2, 3, 7, 8, 20)}, {"s", ints(1, 3, 6, 7, 9, 6)}, {"len", ints(1, 2, 3, 2, 2, 1)}}}},
		{"rolling by g, closed left", plan.Scan(T).Rolling("t", lt(int64(5)), plan.WindowOptions{By: []string{"g"}, Closed: plan.ClosedLeft}, sum, ln).Node(),
			want{cols: []col{{"g", strs("a", "b", "a", "a", "b", "a")}, {"t", ints(1, 2, 3, 7, 8, 20)},
				{"s", ints(nil, nil, 1, 3, nil, nil)}, {"len", ints(0, 0, 1, 1, 0, 0)}}}},
		{"unsorted index", plan.Scan(U).GroupByDynamic("t", lt(int64(5)), plan.WindowOptions{}, plan.Len()).Node(),
			want{errKind: plan.InvalidInput, errExpr: "t"}},
		{"null index", plan.Scan(N).Rolling("t", lt(int64(5)), plan.WindowOptions{}, plan.Len()).Node(),
			want{errKind: plan.InvalidInput, errExpr: "t"}},
		{"index near the top of int64", plan.Scan(mustTable(t, "m", []plan.Field{{Name: "t", Type: plan.Int64}}, ints(1<<62+1<<61+1<<60))).
			Rolling("t", lt(int64(1)<<60), plan.WindowOptions{}, plan.Len()).Node(),
			want{errKind: plan.Overflow, errExpr: "t"}},
		{"every 0", plan.Scan(T).GroupByDynamic("t", lt(int64(0)), plan.WindowOptions{}, plan.Len()).Node(), want{errKind: plan.InvalidPlan}},
		{"string index", plan.Scan(T).GroupByDynamic("g", lt(int64(1)), plan.WindowOptions{}, plan.Len()).Node(), want{errKind: plan.TypeError}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}
