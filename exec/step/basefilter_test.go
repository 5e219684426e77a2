package step

import (
	"fmt"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// evalFrame evaluates a resolved plan post-order and returns its frame
// (the caller releases it).
func evalFrame(t *testing.T, e *Env, tables *Tables, n plan.Node) *Frame {
	t.Helper()
	if s, ok := n.(*plan.ScanNode); ok {
		f, err := ScanTable(e, tables, s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var ins []*Frame
	defer func() { ReleaseFrames(ins) }()
	for _, c := range n.Children() {
		ins = append(ins, evalFrame(t, e, tables, c))
	}
	f, err := Eval(e, n, ins)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dims: fact f(k: 0, 1, 2, 1, 5) joined to dimension d(k: 0, 1, 2, 3;
// name: n0, n1, null, n3; z: 1, 1, 1, 0). Row 3 of d (z = 0) is
// referenced by no fact row, and fact row 4 (k = 5) matches nothing.
func dims(t *testing.T) (*plan.Table, *plan.Table) {
	t.Helper()
	s := func(v string) plan.Value { return plan.StringValue(v) }
	f, err := plan.NewTable("f", plan.MustSchema(plan.Field{Name: "fk", Type: plan.Int64}),
		[][]plan.Value{{i64(0), i64(1), i64(2), i64(1), i64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := plan.NewTable("d", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64},
		plan.Field{Name: "name", Type: plan.String, Nullable: true}, plan.Field{Name: "z", Type: plan.Int64}),
		[][]plan.Value{{i64(0), i64(1), i64(2), i64(3)}, {s("n0"), s("n1"), plan.NullValue(plan.String), s("n3")},
			{i64(1), i64(1), i64(1), i64(0)}})
	if err != nil {
		t.Fatal(err)
	}
	return f, d
}

// TestFilterOnBase: which filters are evaluated on the base rows of an
// index vector, and that they keep exactly the rows the plain filter
// keeps (inner and left joins, the null side included). A case that must
// not qualify (integer arithmetic can raise on the unreferenced d row with
// z = 0; a non-deterministic UDF; columns of both sides) fails if the
// qualification is too lax.
func TestFilterOnBase(t *testing.T) {
	F, D := dims(t)
	nd, _ := plan.BuiltinUDFs().Lookup("nd_tick")
	for _, c := range []struct {
		name string
		how  plan.JoinKind
		pred plan.E
		base bool
		rows []int32
	}{
		{"inner: string equality", plan.InnerJoin, col("name").Eq(lit("n1")), true, []int32{1, 3}},
		{"inner: is_null", plan.InnerJoin, col("name").IsNull(), true, []int32{2}},
		{"inner: float arithmetic", plan.InnerJoin, col("z").Cast(plan.Float64).Div(lit(0.0)).Gt(lit(1.0)), true, []int32{0, 1, 2, 3}},
		{"left: the null side reads nulls", plan.LeftJoin, col("name").IsNull(), true, []int32{2, 4}},
		{"left: a comparison drops the null side", plan.LeftJoin, col("z").Eq(lit(1)), true, []int32{0, 1, 2, 3}},
		{"integer division may raise", plan.InnerJoin, lit(1).Div(col("z")).Gt(lit(0)), false, []int32{0, 1, 2, 3}},
		{"non-deterministic", plan.InnerJoin, plan.CallUDF(nd, col("z")).Gt(lit(-1)), false, []int32{0, 1, 2, 3}},
		{"both sides", plan.InnerJoin, col("fk").Eq(col("z")), false, []int32{1, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env(t)
			tables := NewTables()
			defer tables.Release()
			j, err := plan.Resolve(plan.Scan(F).Join(plan.Scan(D), c.how, []plan.E{col("fk")}, []plan.E{col("k")}).Node())
			if err != nil {
				t.Fatal(err)
			}
			fr := evalFrame(t, e, tables, j)
			defer fr.Release()
			filt, err := plan.Resolve(plan.Scan(F).Join(plan.Scan(D), c.how, []plan.E{col("fk")}, []plan.E{col("k")}).Filter(c.pred).Node())
			if err != nil {
				t.Fatal(err)
			}
			preds := filt.(*plan.FilterNode).Predicates
			rows, ok, err := e.filterOnBase(preds, fr)
			if err != nil {
				t.Fatal(err)
			}
			if ok != c.base {
				t.Fatalf("evaluated on the base: %v, want %v", ok, c.base)
			}
			out, err := e.filter(filt.(*plan.FilterNode), fr)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			rec, err := e.Materialize(out)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if ok && fmt.Sprint(rows) != fmt.Sprint(c.rows) {
				t.Errorf("base rows %v, want %v", rows, c.rows)
			}
			all, err := e.Materialize(fr)
			if err != nil {
				t.Fatal(err)
			}
			defer all.Release()
			joined, err := Rows(all)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]plan.Value
			for _, r := range c.rows {
				want = append(want, joined[r])
			}
			if got, err := Rows(rec); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("filter kept %v (%v), want rows %v: %v", got, err, c.rows, want)
			}
		})
	}
}
