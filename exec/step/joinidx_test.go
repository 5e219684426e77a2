package step

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestJoinThroughIndex: a join whose left keys are a wide gather of a
// small table (the dimension side of an earlier join) matches the small
// table's key rows and expands the pairs (keysThroughIndex) exactly when
// the join qualifies, with the rows, order and errors of joining the
// gathered keys. The dimension d has 4 rows with a null key; the fact f
// has 24 rows, some matching no d row (a left join's null rows in the
// gather).
func TestJoinThroughIndex(t *testing.T) {
	s := plan.StringValue
	null := plan.NullValue
	var fk []plan.Value
	for i := range 24 {
		fk = append(fk, i64(int64([]int{0, 1, 2, 3, 1, 9}[i%6])))
	}
	f, err := plan.NewTable("f", plan.MustSchema(plan.Field{Name: "fk", Type: plan.Int64}), [][]plan.Value{fk})
	if err != nil {
		t.Fatal(err)
	}
	d, err := plan.NewTable("d", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64},
		plan.Field{Name: "g", Type: plan.Int64, Nullable: true}, plan.Field{Name: "name", Type: plan.String}),
		[][]plan.Value{{i64(0), i64(1), i64(2), i64(3)}, {i64(7), null(plan.Int64), i64(8), i64(7)},
			{s("n0"), s("n1"), s("n2"), s("n3")}})
	if err != nil {
		t.Fatal(err)
	}
	// x: xg 7 twice (a left row matches two), 5 matching no left row, a
	// null; xv matches d's names on two rows.
	x, err := plan.NewTable("x", plan.MustSchema(plan.Field{Name: "xg", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "xv", Type: plan.String}),
		[][]plan.Value{{i64(7), i64(5), null(plan.Int64), i64(7)}, {s("n0"), s("b"), s("c"), s("n3")}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		first   plan.JoinKind
		second  plan.JoinKind
		leftOn  []plan.E
		rightOn []plan.E
		through bool
	}{
		{"inner after inner", plan.InnerJoin, plan.InnerJoin, []plan.E{col("g")}, []plan.E{col("xg")}, true},
		{"left after left (null rows)", plan.LeftJoin, plan.LeftJoin, []plan.E{col("g")}, []plan.E{col("xg")}, true},
		{"semi", plan.LeftJoin, plan.SemiJoin, []plan.E{col("g")}, []plan.E{col("xg")}, true},
		{"anti", plan.LeftJoin, plan.AntiJoin, []plan.E{col("g")}, []plan.E{col("xg")}, true},
		{"two keys", plan.InnerJoin, plan.InnerJoin, []plan.E{col("g"), col("name")}, []plan.E{col("xg"), col("xv")}, true},
		{"a computed key", plan.InnerJoin, plan.InnerJoin, []plan.E{col("g").Add(lit(int64(0)))}, []plan.E{col("xg")}, false},
		{"a key of the wide side", plan.InnerJoin, plan.InnerJoin, []plan.E{col("fk")}, []plan.E{col("xg")}, false},
		{"a right join", plan.InnerJoin, plan.RightJoin, []plan.E{col("g")}, []plan.E{col("xg")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wide := plan.Scan(f).Join(plan.Scan(d), c.first, []plan.E{col("fk")}, []plan.E{col("k")})
			n := wide.Join(plan.Scan(x), c.second, c.leftOn, c.rightOn).Node()
			resolved, err := plan.Resolve(n)
			if err != nil {
				t.Fatal(err)
			}
			e := env(t)
			tables := NewTables()
			defer tables.Release()
			j := resolved.(*plan.JoinNode)
			in := evalFrame(t, e, tables, j.Left)
			_, _, ok := e.keysThroughIndex(j, j.How, in)
			in.Release()
			if ok != c.through {
				t.Fatalf("through the index: %v, want %v", ok, c.through)
			}
			got, want := outcomeBothWays(t, n, &joinThroughIndex)
			if got != want {
				t.Errorf("through the index:\n%s\ngathered:\n%s", got, want)
			}
			t.Log(got)
		})
	}
}
