package exec

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// idx is the int64 column 'i' holding the given numbers.
func idx(vals ...int64) col {
	out := make([]plan.Value, len(vals))
	for i, v := range vals {
		out[i] = plan.Int64Value(v)
	}
	return col{"i", out}
}

func TestTailReverseRowIndex(t *testing.T) {
	T, E := tableT(t), emptyT(t)
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"tail", plan.Scan(T).Tail(2).Node(), want{cols: rowsT(4, 5)}},
		{"tail 0", plan.Scan(T).Tail(0).Node(), want{cols: rowsT()}},
		{"tail past the start", plan.Scan(T).Tail(100).Node(), want{cols: rowsT(0, 1, 2, 3, 4, 5)}},
		{"tail of empty", plan.Scan(E).Tail(3).Node(), want{cols: rowsT()}},
		{"tail after filter", plan.Scan(T).Filter(c("k").Eq(lt(1))).Tail(1).Node(), want{cols: rowsT(2)}},
		{"negative tail", plan.Scan(T).Tail(-1).Node(), want{errKind: plan.InvalidPlan}},
		{"reverse", plan.Scan(T).Reverse().Node(), want{cols: rowsT(5, 4, 3, 2, 1, 0)}},
		{"reverse of empty", plan.Scan(E).Reverse().Node(), want{cols: rowsT()}},
		{"reverse twice", plan.Scan(T).Reverse().Reverse().Node(), want{cols: rowsT(0, 1, 2, 3, 4, 5)}},
		{"reverse after sort", plan.Scan(T).SortBy("k").Reverse().Node(), want{cols: rowsT(5, 4, 1, 2, 0, 3)}},
		{"row_index", plan.Scan(T).WithRowIndex("i", 0).Node(),
			want{cols: append([]col{idx(0, 1, 2, 3, 4, 5)}, rowsT(0, 1, 2, 3, 4, 5)...)}},
		{"row_index with offset after filter", plan.Scan(T).Filter(c("k").Gt(lt(1))).WithRowIndex("i", 10).Node(),
			want{cols: append([]col{idx(10, 11, 12)}, rowsT(1, 4, 5)...)}},
		{"row_index of empty", plan.Scan(E).WithRowIndex("i", 3).Node(), want{cols: append([]col{idx()}, rowsT()...)}},
		{"row_index after reverse", plan.Scan(T).Reverse().WithRowIndex("i", 0).Tail(2).Node(),
			want{cols: append([]col{idx(4, 5)}, rowsT(1, 0)...)}},
		{"row_index at the top of int64", plan.Scan(T).Head(1).WithRowIndex("i", math.MaxInt64).Node(),
			want{cols: append([]col{idx(math.MaxInt64)}, rowsT(0)...)}},
		{"row_index overflows", plan.Scan(T).WithRowIndex("i", math.MaxInt64-2).Node(),
			want{errKind: plan.Overflow, errExpr: "row_index"}},
		{"row_index duplicate name", plan.Scan(T).WithRowIndex("k", 0).Node(), want{errKind: plan.DuplicateColumn, errExpr: "k"}},
		{"row_index empty name", plan.Scan(T).WithRowIndex("", 0).Node(), want{errKind: plan.InvalidPlan}},
		{"row_index negative offset", plan.Scan(T).WithRowIndex("i", -1).Node(), want{errKind: plan.InvalidPlan}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}
