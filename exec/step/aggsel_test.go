package step

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// selTable has 8 rows; row 7 is the one the tests' filter (r < 7) drops,
// and its values would change an outcome if the aggregate met it: z = 0
// (a / z raises), i = MaxInt64 (sum(i) overflows), flag "Z" (a group of
// its own); j overflows on kept rows.
func selTable(t *testing.T, rows int) *plan.Table {
	t.Helper()
	s := plan.StringValue
	f := plan.Float64Value
	null := plan.NullValue
	all := [][]plan.Value{
		{i64(0), i64(1), i64(2), i64(3), i64(4), i64(5), i64(6), i64(7)},
		{s("A"), s("B"), null(plan.String), s("A"), s("B"), s(""), null(plan.String), s("Z")},
		{s("F"), s("O"), s("F"), s("F"), s("O"), s("O"), s("F"), s("O")},
		{s("long key"), s("k"), s("long key"), s("k"), s("other"), s("k"), s("k"), s("zz")},
		{i64(3), i64(1), i64(3), i64(2), i64(1), i64(3), i64(2), i64(9)},
		{f(1.5), f(math.Copysign(0, -1)), f(math.Float64frombits(0x7ff4000000000001)), f(2), f(1e308), f(1e308), f(-1e308), f(3)},
		{f(0.25), f(0.5), f(0), f(1), f(0.125), f(0.75), f(0.5), f(0.5)},
		{f(1), null(plan.Float64), f(2), f(3), null(plan.Float64), f(4), f(5), f(6)},
		{i64(1), i64(math.MaxInt64 - 10), i64(5), i64(2), i64(3), i64(4), i64(5), i64(math.MaxInt64)},
		{i64(1), i64(2), i64(3), i64(4), i64(5), i64(6), i64(7), i64(0)},
		{i64(1), i64(math.MaxInt64 - 1), i64(2), i64(3), i64(5), i64(4), i64(5), i64(0)},
	}
	for c := range all {
		all[c] = all[c][:rows]
	}
	tb, err := plan.NewTable("s", plan.MustSchema(
		plan.Field{Name: "r", Type: plan.Int64},
		plan.Field{Name: "flag", Type: plan.String, Nullable: true},
		plan.Field{Name: "status", Type: plan.String},
		plan.Field{Name: "name", Type: plan.String},
		plan.Field{Name: "k", Type: plan.Int64},
		plan.Field{Name: "x", Type: plan.Float64},
		plan.Field{Name: "d", Type: plan.Float64},
		plan.Field{Name: "y", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "i", Type: plan.Int64},
		plan.Field{Name: "z", Type: plan.Int64},
		plan.Field{Name: "j", Type: plan.Int64},
	), all)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestAggregateSelected: an aggregate over a filter that keeps most rows
// reads the filter's selection (selectedInput) exactly when its keys are
// columns and its arguments cannot raise, and gives the rows, bits and
// errors of gathering the kept rows first.
func TestAggregateSelected(t *testing.T) {
	x, d := col("x"), col("d")
	cases := []struct {
		name     string
		rows     int
		keys     []plan.E
		aggs     []plan.E
		selected bool
	}{
		{"Q1's shape: two flags, fused float sums and means", 8, []plan.E{col("flag"), col("status")}, []plan.E{
			x.Sum().Alias("sx"), x.Mul(lit(1.0).Sub(d)).Sum().Alias("sdp"), x.Mean().Alias("mx"),
			d.Mean().Alias("md"), plan.Len().Alias("n"), x.Count().Alias("c"),
		}, true},
		{"arguments holding earlier ones read their columns", 8, []plan.E{col("status")}, []plan.E{
			x.Mul(lit(1.0).Sub(d)).Sum().Alias("dp"), x.Mul(lit(1.0).Sub(d)).Mul(lit(1.0).Add(d)).Sum().Alias("ch"),
			x.Mul(lit(1.0).Sub(d)).Mean().Alias("mdp"), x.Mul(lit(1.0).Sub(d)).Max().Alias("xdp"),
			lit(1.0).Sub(d).Mul(x.Mul(lit(1.0).Sub(d))).Sum().Alias("both"),
		}, true},
		{"a long string key is gathered", 8, []plan.E{col("name")}, []plan.E{x.Sum().Alias("sx"), d.Sum().Alias("sd")}, true},
		{"an integer key", 8, []plan.E{col("k")}, []plan.E{x.Sum().Alias("sx"), plan.Len().Alias("n")}, true},
		{"a nullable argument and other aggregates are gathered", 8, []plan.E{col("flag")}, []plan.E{
			col("y").Sum().Alias("sy"), col("y").Mean().Alias("my"), x.Min().Alias("mn"), col("name").Max().Alias("mx"),
			x.First().Alias("f"), col("name").NUnique().Alias("u"), col("y").Count().Alias("c"),
		}, true},
		{"an integer sum that overflows only on the dropped row", 8, []plan.E{col("status")}, []plan.E{col("i").Sum().Alias("si")}, true},
		{"an integer sum that overflows on kept rows", 8, []plan.E{col("status")}, []plan.E{x.Sum().Alias("sx"), col("j").Sum().Alias("sj")}, true},
		{"an argument that can raise is not read through the selection", 8, []plan.E{col("flag")}, []plan.E{
			col("i").Div(col("z")).Sum().Alias("q"), x.Sum().Alias("sx"),
		}, false},
		{"a computed key is not", 8, []plan.E{col("k").Add(lit(int64(1))).Alias("k1")}, []plan.E{x.Sum().Alias("sx")}, false},
		// An empty filter output is compact, not a selection.
		{"no rows", 0, []plan.E{col("flag"), col("status")}, []plan.E{x.Sum().Alias("sx"), x.Mean().Alias("mx"), plan.Len().Alias("n")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			T := selTable(t, c.rows)
			filtered := plan.Scan(T).Filter(col("r").Lt(lit(int64(7))))
			n := filtered.GroupBy(c.keys...).Agg(c.aggs...).Node()
			// Whether the aggregate reads the selection.
			resolved, err := plan.Resolve(n)
			if err != nil {
				t.Fatal(err)
			}
			e := env(t)
			tables := NewTables()
			defer tables.Release()
			agg := resolved.(*plan.AggregateNode)
			in := evalFrame(t, e, tables, agg.Children()[0])
			base, _, ok := e.selectedInput(agg, in)
			if ok {
				base.Release()
			}
			in.Release()
			if ok != c.selected {
				t.Fatalf("read through the selection: %v, want %v", ok, c.selected)
			}
			got, want := outcomeBothWays(t, n, &aggregateSelection)
			if got != want {
				t.Errorf("through the selection:\n%s\ngathered:\n%s", got, want)
			}
			t.Log(got)
		})
	}
}

// TestShareArgs: an argument holding an earlier argument (whole or as a
// subexpression, at any depth) reads its column; others are left alone.
func TestShareArgs(t *testing.T) {
	x, d := col("x"), col("d")
	dp := x.Mul(lit(1.0).Sub(d))
	aggs := []plan.Expr{
		dp.Sum().Alias("a").Expr(), dp.Mul(lit(1.0).Add(d)).Sum().Alias("b").Expr(), dp.Mean().Alias("c").Expr(),
		x.Sum().Alias("e").Expr(), lit(2.0).Mul(d).Sum().Alias("f").Expr(), plan.Len().Alias("n").Expr(),
		lit(3.0).Add(lit(2.0).Mul(d)).Sum().Alias("g").Expr(),
	}
	rewritten, keep := shareArgs(aggs)
	want := []string{"", `col("\x00arg0") * (1.0 + d)`, `col("\x00arg0")`, "", "", "", `3.0 + col("\x00arg4")`}
	for i, w := range want {
		got := ""
		if rewritten[i] != nil {
			got = rewritten[i].String()
		}
		if got != w {
			t.Errorf("argument %d rewritten to %q, want %q", i, got, w)
		}
	}
	if keep[0] != "\x00arg0" || keep[4] != "\x00arg4" || keep[1] != "" || keep[3] != "" {
		t.Errorf("kept %q", keep)
	}
	if r, k := shareArgs(aggs[3:6]); r != nil || k != nil {
		t.Errorf("no argument holds another, got %q %q", r, k)
	}
}
