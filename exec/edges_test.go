package exec

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func TestEdgeData(t *testing.T) {
	nulls := mustTable(t, "nulls", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true}},
		ints(nil, nil, nil), floats(nil, nil, nil))
	R := mustTable(t, "r", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "x", Type: plan.Int64, Nullable: true}},
		ints(1, nil), ints(10, 20))
	RE := mustTable(t, "re", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "x", Type: plan.Int64, Nullable: true}}, ints(), ints())
	T := tableT(t)
	n3 := ints(nil, nil, nil)
	f3 := floats(nil, nil, nil)
	cases := []struct {
		name string
		plan plan.Node
		want want
	}{
		{"group by an all-null key", plan.Scan(nulls).GroupBy(c("k")).Agg(plan.Len().Alias("n"), c("f").Sum().Alias("s"), c("f").Count().Alias("c")).Node(),
			want{cols: []col{{"k", ints(nil)}, {"n", ints(3)}, {"s", floats(nil)}, {"c", ints(0)}}}},
		{"all-null aggregates without keys", plan.Scan(nulls).Agg(c("f").Min().Alias("mn"), c("f").Mean().Alias("m"), c("k").First().Alias("fi")).Node(),
			want{cols: []col{{"mn", floats(nil)}, {"m", floats(nil)}, {"fi", ints(nil)}}}},
		{"distinct all-null", plan.Scan(nulls).Distinct().Node(), want{cols: []col{{"k", ints(nil)}, {"f", floats(nil)}}}},
		{"sort all-null", plan.Scan(nulls).Sort(plan.Asc(c("f"))).Node(), want{cols: []col{{"k", n3}, {"f", f3}}}},
		{"null keys match nothing", plan.Scan(nulls).JoinOn(plan.Scan(R), plan.InnerJoin, "k").Node(),
			want{cols: []col{{"k", ints()}, {"f", floats()}, {"x", ints()}}}},
		{"null keys left join", plan.Scan(nulls).JoinOn(plan.Scan(R), plan.LeftJoin, "k").Node(),
			want{cols: []col{{"k", n3}, {"f", f3}, {"x", n3}}}},
		{"null keys anti join keeps all", plan.Scan(nulls).JoinOn(plan.Scan(R), plan.AntiJoin, "k").Node(),
			want{cols: []col{{"k", n3}, {"f", f3}}}},
		{"empty right left join", plan.Scan(T).Select(c("k")).JoinOn(plan.Scan(RE), plan.LeftJoin, "k").Node(),
			want{cols: []col{{"k", tK}, {"x", ints(nil, nil, nil, nil, nil, nil)}}}},
		{"empty right inner join", plan.Scan(T).Select(c("k")).JoinOn(plan.Scan(RE), plan.InnerJoin, "k").Node(),
			want{cols: []col{{"k", ints()}, {"x", ints()}}}},
		{"empty right cross join", plan.Scan(T).Select(c("k")).CrossJoin(plan.Scan(RE)).Node(),
			want{cols: []col{{"k", ints()}, {"k_right", ints()}, {"x", ints()}}}},
		{"window over an all-null key", plan.Scan(nulls).WithColumns(plan.Len().Over(c("k")).Alias("n")).Node(),
			want{cols: []col{{"k", n3}, {"f", f3}, {"n", ints(3, 3, 3)}}}},
		{"window over empty input", plan.Scan(emptyT(t)).WithColumns(plan.Len().Over(c("k")).Alias("n")).Node(),
			want{cols: append(rowsT(), col{"n", ints()})}},
		{"limit then aggregate", plan.Scan(T).Head(0).Agg(plan.Len().Alias("n")).Node(), want{cols: []col{{"n", ints(0)}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, tc.want) })
	}
}
