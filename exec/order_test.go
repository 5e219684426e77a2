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

// TestRowIndexReadThroughNodes reads row_index numbers through the nodes
// that carry a column without reading it (filters, sorts, slices, joins
// whose unmatched rows give nulls, aggregates through a gather, guards,
// a second numbering), since the executor computes a number from the
// rows read instead of storing the column; under a memory limit too, where
// frames stay flat.
func TestRowIndexReadThroughNodes(t *testing.T) {
	T := tableT(t)
	numbered := plan.Scan(T).WithRowIndex("i", 10)
	ni := func(vals ...any) col {
		out := make([]plan.Value, len(vals))
		for j, v := range vals {
			if v == nil {
				out[j] = plan.NullValue(plan.Int64)
			} else {
				out[j] = plan.Int64Value(int64(v.(int)))
			}
		}
		return col{"i", out}
	}
	big := lt(int64(math.MaxInt64 - 14))
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"filter on the numbers", numbered.Filter(c("i").Gt(lt(int64(12)))).Node(),
			want{cols: append([]col{idx(13, 14, 15)}, rowsT(3, 4, 5)...)}},
		{"filter, then the numbers only", numbered.Filter(c("k").Gt(lt(int64(1)))).Select(c("i")).Node(),
			want{cols: []col{idx(11, 14, 15)}}},
		{"sort descending, head", numbered.Sort(plan.SortKey{Expr: &plan.Column{Name: "i"}, Desc: true}).Head(2).Select(c("i")).Node(),
			want{cols: []col{idx(15, 14)}}},
		{"sort on another key", numbered.SortBy("s").Select(c("i")).Node(),
			want{cols: []col{idx(12, 14, 10, 13, 11, 15)}}},
		{"sort on a column, then the numbers", numbered.SortBy("k", "i").Select(c("i")).Node(),
			want{cols: []col{idx(13, 10, 12, 11, 14, 15)}}},
		{"sort on the numbers, then a column never needed", numbered.SortBy("i", "s").Select(c("i")).Node(),
			want{cols: []col{idx(10, 11, 12, 13, 14, 15)}}},
		{"sort whose first key raises", numbered.Sort(plan.SortKey{Expr: c("k").Div(lt(int64(0))).Expr()}, plan.SortKey{Expr: &plan.Column{Name: "i"}}).Node(),
			want{errKind: plan.DivideByZero}},
		{"slice of the compact column", numbered.Tail(3).Head(2).Select(c("i")).Node(),
			want{cols: []col{idx(13, 14)}}},
		{"arithmetic on the numbers", numbered.Select(c("i").Add(lt(int64(1))).Alias("i")).Node(),
			want{cols: []col{idx(11, 12, 13, 14, 15, 16)}}},
		{"left join: unmatched rows number null", plan.Scan(T).Select(c("k")).
			JoinOn(plan.Scan(T).Filter(c("k").Eq(lt(int64(2)))).WithRowIndex("i", 10).Select(c("k"), c("i")), plan.LeftJoin, "k").Node(),
			want{cols: []col{{"k", ints(1, 2, 2, 1, nil, 2, 2, 3)}, ni(nil, 10, 11, nil, nil, 10, 11, nil)}, hits: 1}},
		{"inner join probing the numbered side", plan.Scan(T).Filter(c("k").Eq(lt(int64(3)))).Select(c("k")).
			JoinOn(numbered.Select(c("k"), c("i")), plan.InnerJoin, "k").Node(),
			want{cols: []col{{"k", ints(3)}, idx(15)}, hits: 1}},
		{"aggregate through a filter", numbered.Filter(c("k").Gt(lt(int64(1)))).GroupBy(c("k")).Agg(c("i").Sum().Alias("i")).Node(),
			want{cols: []col{{"k", ints(2, 3)}, ni(25, 15)}}},
		{"a second numbering", numbered.Filter(c("k").Eq(lt(int64(1)))).WithRowIndex("j", 0).Select(c("j"), c("i")).Node(),
			want{cols: []col{{"j", idx(0, 1).vals}, idx(10, 12)}}},
		{"guard: the numbers pass a range test", plan.FromNode(&plan.GuardNode{Input: numbered.Node(),
			Exprs: []plan.Expr{c("i").Add(lt(int64(math.MaxInt64 - 15))).Expr()}}).Select(c("i")).Node(),
			want{cols: []col{idx(10, 11, 12, 13, 14, 15)}}},
		{"guard: a number fails a range test", plan.FromNode(&plan.GuardNode{Input: numbered.Node(),
			Exprs: []plan.Expr{c("i").Add(big).Expr()}}).Node(),
			want{errKind: plan.Overflow}},
		{"guard: a number fails after a filter", plan.FromNode(&plan.GuardNode{Input: numbered.Filter(c("k").Gt(lt(int64(2)))).Node(),
			Exprs: []plan.Expr{c("i").Add(big).Expr()}}).Node(),
			want{errKind: plan.Overflow}},
		{"guard: a number divides", plan.FromNode(&plan.GuardNode{Input: plan.Scan(T).WithRowIndex("i", 0).Node(),
			Exprs: []plan.Expr{lt(int64(6)).Div(c("i")).Expr()}}).Node(),
			want{errKind: plan.DivideByZero}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.plan, tc.want)
			checkWith(t, tc.plan, tc.want, Options{Parallelism: 1, MemoryLimit: 1 << 30})
		})
	}
}
