package rules

import (
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/plan"
)

// growing is the chain of issue "linear on wide and growing plans": steps
// alternating with_columns(a as c_i), which adds a column, and
// filter(a > k), over a one-column table, as feature-engineering pipelines
// grow their schema.
func growing(steps int) plan.Node {
	f := scan(mustTable("g", field("a", plan.Int64)))
	for i := 0; i < steps; i++ {
		if i%2 == 0 {
			f = f.WithColumns(col("a").Alias("c" + strconv.Itoa(i)))
		} else {
			f = f.Filter(col("a").Gt(lit(int64(-i))))
		}
	}
	return f.Node()
}

// BenchmarkGrowingChain reports the optimizer's time per node on the
// growing chain at 500, 5,000 and 50,000 steps (Resolve included: the
// schemas are what grows).
func BenchmarkGrowingChain(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			p := growing(n)
			b.ReportAllocs()
			c0, ok := cputime.Process()
			for b.Loop() {
				if _, err := Optimize(p, DefaultFlags()); err != nil {
					b.Fatal(err)
				}
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

// BenchmarkWideSchema is the 10,000-column plan of that issue: one
// with_columns, a filter, and a select of every column.
func BenchmarkWideSchema(b *testing.B) {
	const n = 10000
	tbl := wideTable(n)
	var with, sel []plan.E
	for i := 0; i < n; i++ {
		with = append(with, col("c"+strconv.Itoa(i)).Alias("w"+strconv.Itoa(i)))
		sel = append(sel, col("w"+strconv.Itoa(i)))
	}
	p := scan(tbl).WithColumns(with...).Filter(col("c0").Gt(lit(int64(0)))).Select(sel...).Node()
	b.ReportAllocs()
	c0, ok := cputime.Process()
	for b.Loop() {
		if _, err := Optimize(p, DefaultFlags()); err != nil {
			b.Fatal(err)
		}
	}
	if c1, _ := cputime.Process(); ok {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// growingPartial is the growing chain whose with_columns also compute a
// dead partial column: with_columns(a * 2 as c_i, a as d_i) and filter(a >
// k), then a select of a and every d_i, so that range_proofs, error_guards
// and projection_pruning all have work at every step.
func growingPartial(steps int) plan.Node {
	f := scan(mustTable("g", field("a", plan.Int64)))
	sel := []plan.E{col("a")}
	for i := 0; i < steps; i++ {
		if i%2 == 0 {
			d := "d" + strconv.Itoa(i)
			f = f.WithColumns(col("a").Mul(lit(int64(2))).Alias("c"+strconv.Itoa(i)), col("a").Alias(d))
			sel = append(sel, col(d))
		} else {
			f = f.Filter(col("a").Gt(lit(int64(-i))))
		}
	}
	return f.Select(sel...).Node()
}

// BenchmarkGrowingPartialChain reports the optimizer's time per node on
// growingPartial at 500, 2,000 and 5,000 steps, under the default flags
// and with range_proofs off (error_guards then does the work).
func BenchmarkGrowingPartialChain(b *testing.B) {
	for _, proofs := range []bool{true, false} {
		for _, n := range []int{500, 2000, 5000} {
			b.Run("range_proofs="+strconv.FormatBool(proofs)+"/"+strconv.Itoa(n), func(b *testing.B) {
				p := growingPartial(n)
				flags := DefaultFlags()
				if err := flags.Set(FlagRangeProofs, proofs); err != nil {
					b.Fatal(err)
				}
				c0, ok := cputime.Process()
				for b.Loop() {
					if _, err := Optimize(p, flags); err != nil {
						b.Fatal(err)
					}
				}
				if c1, _ := cputime.Process(); ok {
					b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/node")
				}
			})
		}
	}
}

// BenchmarkGrowingPartialReads is a chain of n with_columns each defining
// one column d_i = a, under one with_columns computing d_i * 2 for every
// i: n partial expressions, each asking range_proofs for the facts of a
// column defined at another depth. Each question walks down to its
// column's definition, so this plan costs time quadratic in n (with
// small constants: no map entry is written on the way).
func BenchmarkGrowingPartialReads(b *testing.B) {
	for _, n := range []int{500, 2000, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			f := scan(mustTable("g", field("a", plan.Int64)))
			var top []plan.E
			for i := 0; i < n; i++ {
				d := "d" + strconv.Itoa(i)
				f = f.WithColumns(col("a").Alias(d))
				top = append(top, col(d).Mul(lit(int64(2))).Alias("e"+strconv.Itoa(i)))
			}
			p := f.WithColumns(top...).Node()
			c0, ok := cputime.Process()
			for b.Loop() {
				if _, err := Optimize(p, DefaultFlags()); err != nil {
					b.Fatal(err)
				}
			}
			if c1, _ := cputime.Process(); ok {
				b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/node")
			}
		})
	}
}

// BenchmarkGrowingTwins is the growing chain joined with itself and
// narrowed to one column of each side: every node of the chain is a twin
// whose copies are asked for different columns, so projection_pruning's
// arm twin_pruning finds n twin classes and prunes twice (one pass to learn
// the unions, one that confirms them). The time per node must stay flat
// from 500 to 50,000 steps.
func BenchmarkGrowingTwins(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := plan.FromNode(growing(n))
			p := s.JoinOn(s, plan.InnerJoin, "a").Select(col("c0"), col("c2_right")).Node()
			c0, ok := cputime.Process()
			for b.Loop() {
				if _, err := Optimize(p, DefaultFlags()); err != nil {
					b.Fatal(err)
				}
			}
			if c1, _ := cputime.Process(); ok {
				b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/float64(2*n), "cpu-ns/node")
			}
		})
	}
}
