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
