package exec

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// nestedT is a table of five rows with a struct s{a: int64, b: string}
// (a struct of values, one of nulls, a null struct, one with a null
// field) and a scalar k.
func nestedT(t *testing.T) *plan.Table {
	t.Helper()
	st := plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Int64}, plan.StructField{Name: "b", Type: plan.String})
	sv := func(a, b plan.Value) plan.Value { return plan.StructValue(st, []plan.Value{a, b}) }
	i, s := plan.Int64Value, plan.StringValue
	na, nb := plan.NullValue(plan.Int64), plan.NullValue(plan.String)
	return mustTable(t, "n", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: false}, {Name: "s", Type: st, Nullable: true}},
		ints(1, 2, 3, 4, 5), []plan.Value{sv(i(10), s("x")), sv(na, nb), plan.NullValue(st), sv(i(-4), nb), sv(i(7), s(""))})
}

func TestUnnest(t *testing.T) {
	n := plan.Scan(nestedT(t))
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"in place, a null struct gives nulls", n.Unnest("s").Node(), want{cols: []col{{"k", ints(1, 2, 3, 4, 5)},
			{"a", ints(10, nil, nil, -4, 7)}, {"b", strs("x", nil, nil, nil, "")}}}},
		{"after a filter and a sort", n.Filter(c("k").Gt(lt(int64(1)))).Sort(plan.Desc(c("k"))).Unnest("s").Select(c("b"), c("k")).Node(),
			want{cols: []col{{"b", strs("", nil, nil, nil)}, {"k", ints(5, 4, 3, 2)}}}},
		{"fields read above", n.Unnest("s").Filter(c("a").Gt(lt(int64(0)))).Node(),
			want{cols: []col{{"k", ints(1, 5)}, {"a", ints(10, 7)}, {"b", strs("x", "")}}}},
		{"over a slice", n.Slice(3, 2).Unnest("s").Node(),
			want{cols: []col{{"k", ints(4, 5)}, {"a", ints(-4, 7)}, {"b", strs(nil, "")}}}},
		{"not a struct", n.Unnest("k").Node(), want{errKind: plan.TypeError, errExpr: "k"}},
		{"clash", n.WithColumns(c("k").Alias("a")).Unnest("s").Node(), want{errKind: plan.InvalidPlan, errExpr: "a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}

// listT is a table of six rows with lists l (int64) and m (string):
// lists of values, empty, null, holding nulls; the lists of a row have
// equal lengths (a null or empty list counting 1) except in row 5.
func listT(t *testing.T) *plan.Table {
	t.Helper()
	lt, mt := plan.MustListOf(plan.Int64), plan.MustListOf(plan.String)
	i, s := plan.Int64Value, plan.StringValue
	l := func(vs ...plan.Value) plan.Value { return plan.ListValue(lt, vs) }
	m := func(vs ...plan.Value) plan.Value { return plan.ListValue(mt, vs) }
	ni, ns := plan.NullValue(plan.Int64), plan.NullValue(plan.String)
	return mustTable(t, "lt", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: false}, {Name: "l", Type: lt, Nullable: true},
		{Name: "m", Type: mt, Nullable: true}}, ints(1, 2, 3, 4, 5, 6),
		[]plan.Value{l(i(1), i(2)), l(), plan.NullValue(lt), l(ni, i(5), i(6)), l(i(7)), l(i(8), i(9))},
		[]plan.Value{m(s("a"), s("b")), plan.NullValue(mt), m(s("x")), m(s("p"), ns, s("q")), m(), m(s("z"))})
}

func TestExplode(t *testing.T) {
	n := plan.Scan(listT(t))
	five := n.Head(5)
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"one column: empty and null lists give one null row", n.Explode("l").Select(c("k"), c("l")).Node(), want{cols: []col{
			{"k", ints(1, 1, 2, 3, 4, 4, 4, 5, 6, 6)}, {"l", ints(1, 2, nil, nil, nil, 5, 6, 7, 8, 9)}}}},
		{"two columns zipped", five.Explode("l", "m").Node(), want{cols: []col{
			{"k", ints(1, 1, 2, 3, 4, 4, 4, 5)}, {"l", ints(1, 2, nil, nil, nil, 5, 6, 7)},
			{"m", strs("a", "b", nil, "x", "p", nil, "q", nil)}}}},
		{"listed out of order, columns stay in place", five.Explode("m", "l").Select(c("l"), c("m")).Node(), want{cols: []col{
			{"l", ints(1, 2, nil, nil, nil, 5, 6, 7)}, {"m", strs("a", "b", nil, "x", "p", nil, "q", nil)}}}},
		{"over a filter and a sort", n.Filter(c("k").Gt(lt(int64(3)))).Sort(plan.Desc(c("k"))).Explode("l").Select(c("l"), c("k")).Node(),
			want{cols: []col{{"l", ints(8, 9, 7, nil, 5, 6)}, {"k", ints(6, 6, 5, 4, 4, 4)}}}},
		{"over a slice, read above", n.Slice(3, 2).Explode("m").Filter(c("m").IsNotNull()).Select(c("k"), c("m")).Node(),
			want{cols: []col{{"k", ints(4, 4)}, {"m", strs("p", "q")}}}},
		{"over no rows", n.Filter(c("k").Gt(lt(int64(9)))).Explode("l", "m").Node(), want{cols: []col{
			{"k", ints()}, {"l", ints()}, {"m", strs()}}}},
		{"unequal lengths", n.Explode("l", "m").Node(), want{errKind: plan.InvalidInput}},
		{"unequal lengths under a limit", n.Explode("l", "m").Head(1).Node(), want{errKind: plan.InvalidInput}},
		{"not a list", n.Explode("k").Node(), want{errKind: plan.TypeError, errExpr: "k"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}
