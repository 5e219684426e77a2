package eager_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/plan"
)

// TestLongChain evaluates a 3,000-node chain (deep recursion in both
// passes) and checks its result.
func TestLongChain(t *testing.T) {
	mem := eagertest.Checked(t)
	tb := mustTable(t, "c", []plan.Field{{Name: "a", Type: plan.Int64}}, []plan.Value{i64(0), i64(5)})
	f := plan.Scan(tb)
	for i := 0; i < 1500; i++ {
		f = f.WithColumns(col("a").Add(lit(1)).Alias("a")).Filter(col("a").Gt(lit(0)))
	}
	df, err := eager.FromPlan(bg, f.Node(), eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	if d := eagertest.DiffRows(rowsOf(t, df), [][]plan.Value{{i64(1500)}, {i64(1505)}}); d != "" {
		t.Fatal(d)
	}
}

// smallPlan is a typical oracle case: a few steps over a few rows.
func smallPlan(t testing.TB) plan.Node {
	tb := mustTable(t, "s", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "a", Type: plan.Int64, Nullable: true}},
		[]plan.Value{i64(1), i64(2), i64(1), null(plan.Int64), i64(2), i64(3), i64(1), i64(2)},
		[]plan.Value{i64(10), i64(20), i64(30), i64(40), null(plan.Int64), i64(60), i64(70), i64(80)})
	return plan.Scan(tb).Filter(col("a").Gt(lit(15))).
		WithColumns(col("a").Mul(lit(2)).Alias("b"), col("a").Sum().Over(col("k")).Alias("w")).
		Sort(plan.Desc(col("b"))).Head(5).
		GroupBy(col("k")).Agg(col("b").Sum().Alias("s"), plan.Len()).Node()
}

// BenchmarkFromPlanSmall measures one eager evaluation of smallPlan (the
// oracle's third way on small data).
func BenchmarkFromPlanSmall(b *testing.B) {
	n := smallPlan(b)
	for b.Loop() {
		df, err := eager.FromPlan(bg, n, eager.Options{})
		if err != nil {
			b.Fatal(err)
		}
		df.Release()
	}
}

// BenchmarkFilterSelect100k measures a filter and a projection over 100,000
// rows through the DataFrame methods.
func BenchmarkFilterSelect100k(b *testing.B) {
	const rows = 100_000
	ks := make([]plan.Value, rows)
	as := make([]plan.Value, rows)
	for i := range ks {
		ks[i], as[i] = i64(int64(i%97)), i64(int64(i))
	}
	tb := mustTable(b, "big", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "a", Type: plan.Int64}}, ks, as)
	df, err := eager.FromTable(bg, tb, eager.Options{Mem: memory.DefaultAllocator})
	if err != nil {
		b.Fatal(err)
	}
	defer df.Release()
	pred := exprs(col("k").Lt(lit(50)))
	proj := exprs(col("a").Mul(lit(3)).Alias("x"), col("k"))
	for b.Loop() {
		f, err := df.Filter(pred...)
		if err != nil {
			b.Fatal(err)
		}
		p, err := f.Select(proj...)
		if err != nil {
			b.Fatal(err)
		}
		p.Release()
		f.Release()
	}
}
