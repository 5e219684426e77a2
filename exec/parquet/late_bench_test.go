package parquet

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkParquetFilteredScan collects a TPC-H Q6-like query over a
// Parquet file of 1,048,576 rows in 8 row groups (d: int64 "days" in
// [0, 2555), q: float64 in [1, 50], p: float64, s: string of 7 values):
// sum(p) where d in [365, 730) and q < 24, and the same with s read too,
// the conjuncts pushed into the scan as the optimizer pushes them (Inexact,
// kept in the filter above). The rows are spread so that every group has
// some passing rows; the pass rate is about 7%. It measures the scan with
// the filter above and the aggregate, as a query pays them; cpu-ns/op is the process's CPU time
// per collect (user and system, every thread).
func BenchmarkParquetFilteredScan(b *testing.B) {
	const n, groups = 1 << 20, 8
	d, q, p, s := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	modes := []string{"MAIL", "SHIP", "AIR", "RAIL", "TRUCK", "FOB", "REG AIR"}
	x := uint64(88172645463325252)
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		d[i] = plan.Int64Value(int64(x % 2555))
		q[i] = plan.Float64Value(float64(1 + (x>>12)%50))
		p[i] = plan.Float64Value(float64((x>>20)%10000000) / 100)
		s[i] = plan.StringValue(modes[(x>>40)%7])
	}
	tbl := mustTable(b, "t", []plan.Field{{Name: "d", Type: plan.Int64}, {Name: "q", Type: plan.Float64},
		{Name: "p", Type: plan.Float64}, {Name: "s", Type: plan.String}}, d, q, p, s)
	path := filepath.Join(b.TempDir(), "t.parquet")
	if err := WriteTable(path, tbl, n/groups); err != nil {
		b.Fatal(err)
	}
	src, err := OpenFile("t", path)
	if err != nil {
		b.Fatal(err)
	}
	preds := []plan.E{c("d").Ge(lt(int64(365))), c("d").Lt(lt(int64(730))), c("q").Lt(lt(24.0))}
	for _, cols := range [][]string{{"d", "q", "p"}, {"d", "q", "p", "s"}} {
		node := plan.FromNode(pushedScan(src, cols, plan.Inexact, preds...)).Filter(preds...)
		root := node.Agg(c("p").Sum().Alias("sum")).Node()
		if len(cols) == 4 {
			root = node.GroupBy(c("s")).Agg(c("p").Sum().Alias("sum")).Node()
		}
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("columns=%d/parallelism=%d", len(cols), par), func(b *testing.B) {
				cpu0, _ := cputime.Process()
				for range b.N {
					res, err := exec.Collect(context.Background(), root, exec.Options{Parallelism: par})
					if err != nil {
						b.Fatal(err)
					}
					res.Release()
				}
				if cpu1, ok := cputime.Process(); ok {
					// CPU time is the figure to compare on a shared
					// machine, where the wall time grows with the load.
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
