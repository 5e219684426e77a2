package exec

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// rename is T's column name under a new name.
func rename(c col, name string) col { return col{name, c.vals} }

func TestHStackMergeSortedUnpivot(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	// S is sorted on k (nulls first): k = [null, 1, 1, 2, 5].
	S := mustTable(t, "s", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "v", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}}, ints(nil, 1, 1, 2, 5), floats(10.0, 11.0, 12.0, 13.0, 14.0), strs("p", "q", "r", "s", "t"))
	// U is sorted on k: k = [1, 2, 2, 7].
	U := mustTable(t, "u", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: false}, {Name: "v", Type: plan.Float64, Nullable: false},
		{Name: "s", Type: plan.String, Nullable: false}}, ints(1, 2, 2, 7), floats(20.0, 21.0, 22.0, 23.0), strs("w", "x", "y", "z"))
	st, su := plan.Scan(S), plan.Scan(U)
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"hstack", plan.Scan(T).Select(c("k")).HStack(plan.Scan(T).Select(c("s").Alias("s2"), c("v"))).Node(),
			want{cols: []col{rowsT(0, 1, 2, 3, 4, 5)[0], rename(rowsT(0, 1, 2, 3, 4, 5)[2], "s2"), rowsT(0, 1, 2, 3, 4, 5)[1]}, hits: 1}},
		{"hstack of three after filters", plan.Scan(T).Filter(c("k").Gt(lt(int64(1)))).Select(c("k")).
			HStack(plan.Scan(T).Filter(c("k").Gt(lt(int64(1)))).Select(c("v").Alias("v2")), plan.Scan(T).Head(3).Select(c("s"))).Node(),
			want{cols: []col{{"k", ints(2, 2, 3)}, {"v2", pick(tV, 1, 4, 5)}, {"s", pick(tS, 0, 1, 2)}}, hits: 2}},
		{"hstack of empties", plan.Scan(E).Select(c("k")).HStack(plan.Scan(E).Select(c("s").Alias("t"))).Node(),
			want{cols: []col{{"k", ints()}, {"t", strs()}}, hits: 1}},
		{"hstack heights differ", plan.Scan(T).Select(c("k")).HStack(plan.Scan(T).Head(2).Select(c("s").Alias("s2"))).Node(),
			want{errKind: plan.InvalidInput}},
		{"hstack duplicate name", plan.Scan(T).HStack(plan.Scan(T).Select(c("s"))).Node(), want{errKind: plan.DuplicateColumn, errExpr: "s"}},
		{"hstack of one", plan.Scan(T).HStack().Node(), want{errKind: plan.InvalidPlan}},

		{"merge_sorted", st.MergeSorted(su, "k").Node(), want{cols: []col{
			{"k", ints(nil, 1, 1, 1, 2, 2, 2, 5, 7)}, {"v", floats(10.0, 11.0, 12.0, 20.0, 13.0, 21.0, 22.0, 14.0, 23.0)},
			{"s", strs("p", "q", "r", "w", "s", "x", "y", "t", "z")}}}},
		{"merge_sorted right first on the key", su.MergeSorted(st, "k").Node(), want{cols: []col{
			{"k", ints(nil, 1, 1, 1, 2, 2, 2, 5, 7)}, {"v", floats(10.0, 20.0, 11.0, 12.0, 21.0, 22.0, 13.0, 14.0, 23.0)},
			{"s", strs("p", "w", "q", "r", "x", "y", "s", "t", "z")}}}},
		{"merge_sorted on strings", st.Sort(plan.Asc(c("s"))).MergeSorted(su.Sort(plan.Asc(c("s"))), "s").Select(c("s")).Node(),
			want{cols: []col{{"s", strs("p", "q", "r", "s", "t", "w", "x", "y", "z")}}}},
		{"merge_sorted with empty", st.MergeSorted(plan.Scan(E), "k").Select(c("k")).Node(), want{cols: []col{{"k", ints(nil, 1, 1, 2, 5)}}}},
		{"merge_sorted sorted floats", plan.Scan(T).SortBy("v").MergeSorted(plan.Scan(T).SortBy("v"), "v").Select(c("s")).Node(),
			want{cols: []col{{"s", strs("", "", nil, nil, "c", "c", "a", "a", "a", "a", "b", "b")}}, hits: 1}},
		{"merge_sorted left unsorted", plan.Scan(T).MergeSorted(plan.Scan(E), "k").Node(), want{errKind: plan.InvalidInput, errExpr: "k"}},
		{"merge_sorted right unsorted", st.MergeSorted(su.Reverse(), "k").Node(), want{errKind: plan.InvalidInput, errExpr: "k"}},
		{"merge_sorted -0.0 after +0.0 is unsorted", plan.Scan(T).Filter(c("k").Gt(lt(int64(0)))).Select(c("v")).Slice(2, 1).
			MergeSorted(plan.Scan(T).Select(c("v")).Slice(5, 1).Union(plan.Scan(T).Select(c("v")).Slice(2, 1)), "v").Node(),
			want{errKind: plan.InvalidInput, errExpr: "v"}},
		{"merge_sorted unknown key", st.MergeSorted(su, "zz").Node(), want{errKind: plan.UnknownColumn, errExpr: "zz"}},
		{"merge_sorted schemas differ", st.MergeSorted(su.Select(c("k")), "k").Node(), want{errKind: plan.TypeError}},

		{"unpivot", plan.Scan(T).Head(2).Unpivot([]string{"k", "k"}, nil, "", "").Node(), want{errKind: plan.DuplicateColumn, errExpr: "k"}},
		{"unpivot row-major", plan.Scan(T).Head(3).WithColumns(c("k").Alias("k2")).Unpivot([]string{"k", "k2"}, []string{"s"}, "", "").Node(),
			want{cols: []col{{"s", strs("a", "a", "b", "b", nil, nil)}, {"variable", strs("k", "k2", "k", "k2", "k", "k2")},
				{"value", ints(1, 1, 2, 2, 1, 1)}}}},
		{"unpivot default index and names", plan.Scan(T).Slice(3, 2).WithColumns(c("k").Alias("k2")).Unpivot([]string{"k2", "k"}, nil, "var", "val").Node(),
			want{cols: []col{{"v", pick(tV, 3, 3, 4, 4)}, {"s", pick(tS, 3, 3, 4, 4)}, {"var", strs("k2", "k", "k2", "k")},
				{"val", ints(nil, nil, 2, 2)}}}},
		{"unpivot of empty", plan.Scan(E).Unpivot([]string{"k"}, nil, "", "").Node(),
			want{cols: []col{{"v", floats()}, {"s", strs()}, {"variable", strs()}, {"value", ints()}}}},
		{"unpivot types differ", plan.Scan(T).Unpivot([]string{"k", "s"}, nil, "", "").Node(), want{errKind: plan.TypeError, errExpr: "s"}},
		{"unpivot promotes", plan.Scan(T).Head(1).Unpivot([]string{"k", "v"}, []string{"s"}, "", "").Node(),
			want{cols: []col{{"s", strs("a", "a")}, {"variable", strs("k", "v")}, {"value", floats(1.0, 1.5)}}}},
		{"unpivot no on", plan.Scan(T).Unpivot(nil, nil, "", "").Node(), want{errKind: plan.InvalidPlan}},
		{"unpivot value name is an index column", plan.Scan(T).Unpivot([]string{"k"}, nil, "", "s").Node(), want{errKind: plan.DuplicateColumn, errExpr: "s"}},
		{"unpivot same names", plan.Scan(T).Unpivot([]string{"k"}, nil, "x", "x").Node(), want{errKind: plan.DuplicateColumn, errExpr: "x"}},
		{"unpivot unknown", plan.Scan(T).Unpivot([]string{"q"}, nil, "", "").Node(), want{errKind: plan.UnknownColumn, errExpr: "q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

func TestUnpivotPromotes(t *testing.T) {
	P := mustTable(t, "p", []plan.Field{{Name: "i", Type: plan.Int32, Nullable: false}, {Name: "l", Type: plan.Int64, Nullable: true},
		{Name: "f", Type: plan.Float64, Nullable: false}, {Name: "s", Type: plan.String, Nullable: false}},
		[]plan.Value{plan.Int32Value(1), plan.Int32Value(-2)}, ints(nil, 5), floats(0.5, 1.5), strs("a", "b"))
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"int32 and int64", plan.Scan(P).Unpivot([]string{"i", "l"}, []string{"s"}, "", "").Node(),
			want{cols: []col{{"s", strs("a", "a", "b", "b")}, {"variable", strs("i", "l", "i", "l")}, {"value", ints(1, nil, -2, 5)}}}},
		{"ints and a float", plan.Scan(P).Unpivot([]string{"l", "f", "i"}, []string{"s"}, "", "").Node(),
			want{cols: []col{{"s", strs("a", "a", "a", "b", "b", "b")}, {"variable", strs("l", "f", "i", "l", "f", "i")},
				{"value", floats(nil, 0.5, 1.0, 5.0, 1.5, -2.0)}}}},
		{"no common type", plan.Scan(P).Unpivot([]string{"i", "s"}, nil, "", "").Node(), want{errKind: plan.TypeError, errExpr: "s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}
