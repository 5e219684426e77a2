package exec

import (
	"context"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/plan"
)

// growingChain alternates with_columns(a as c_i), which adds a column, and
// filter(a > -i) over a three-row table: the executor's per-node work must
// not grow with the width of the schema above it.
func growingChain(tb testing.TB, steps int) plan.Node {
	tbl := mustTable(tb, "g", []plan.Field{{Name: "a", Type: plan.Int64}}, []plan.Value{plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3)})
	f := plan.Scan(tbl)
	for i := 0; i < steps; i++ {
		if i%2 == 0 {
			f = f.WithColumns(plan.Col("a").Alias("c" + strconv.Itoa(i)))
		} else {
			f = f.Filter(plan.Col("a").Gt(plan.Lit(int64(-i))))
		}
	}
	return f.Node()
}

// BenchmarkCollectGrowingChain reports the unoptimized collect's time per
// node on the growing chain at 500, 5,000 and 50,000 steps.
func BenchmarkCollectGrowingChain(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			p, err := plan.Resolve(growingChain(b, n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			c0, ok := cputime.Process()
			for b.Loop() {
				res, err := Collect(context.Background(), p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
			if c1, _ := cputime.Process(); ok {
				// CPU time (all threads, the collector's included) does
				// not grow when other processes compete for the cores.
				b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/node")
			}
		})
	}
}

// BenchmarkCollectWideSchema collects the 10,000-column plan of the
// optimizer's BenchmarkWideSchema (one with_columns copying every column,
// a filter, a select of every copy) over a 3-row table, unoptimized.
func BenchmarkCollectWideSchema(b *testing.B) {
	const n = 10000
	fields := make([]plan.Field, n)
	cols := make([][]plan.Value, n)
	var with, sel []plan.E
	for i := range fields {
		name := "c" + strconv.Itoa(i)
		fields[i] = plan.Field{Name: name, Type: plan.Int64}
		cols[i] = []plan.Value{plan.Int64Value(1), plan.Int64Value(int64(i)), plan.Int64Value(3)}
		with = append(with, plan.Col(name).Alias("w"+strconv.Itoa(i)))
		sel = append(sel, plan.Col("w"+strconv.Itoa(i)))
	}
	tbl := mustTable(b, "wide", fields, cols...)
	p, err := plan.Resolve(plan.Scan(tbl).WithColumns(with...).Filter(plan.Col("c1").Gt(plan.Lit(int64(0)))).Select(sel...).Node())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	c0, ok := cputime.Process()
	for b.Loop() {
		res, err := Collect(context.Background(), p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		res.Release()
	}
	if c1, _ := cputime.Process(); ok {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
