package exec_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/bench"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkAsof collects the as-of benchmark's queries over two tables of
// 1,000,000 rows each (bench.AsofRecords, the data bench/compare/asof.js
// gives Polars): an as-of join backward on t, the same by g, a nearest
// one with a tolerance, and group_by_dynamic over left.t (every 1000:
// 10,000 windows of about 100 rows) and rolling (period 100). One
// goroutine (Parallelism 1), as Polars runs with POLARS_MAX_THREADS=1.
func BenchmarkAsof(b *testing.B) {
	left, right := bench.AsofRecords(memory.DefaultAllocator, 1_000_000)
	defer left.Release()
	defer right.Release()
	ls, err := exec.NewArrowSource("left", left)
	if err != nil {
		b.Fatal(err)
	}
	defer ls.Release()
	rs, err := exec.NewArrowSource("right", right)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Release()
	for _, q := range asofQueries(plan.Scan(ls), plan.Scan(rs)) {
		n, err := plan.Resolve(q.plan.Node())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				res, err := exec.Collect(context.Background(), n, exec.Options{Parallelism: 1})
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
			// The process's CPU time per collect (garbage collection
			// included): unlike ns/op it does not grow when other processes
			// compete for the cores.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// asofQueries are BenchmarkAsof's queries over the left and right tables.
func asofQueries(l, r plan.Frame) []struct {
	name string
	plan plan.Frame
} {
	x := plan.Col("x")
	return []struct {
		name string
		plan plan.Frame
	}{
		{"asof_backward", l.JoinAsof(r, plan.AsofOptions{LeftOn: "t"})},
		{"asof_backward_by", l.JoinAsof(r, plan.AsofOptions{LeftOn: "t", LeftBy: []string{"g"}})},
		{"asof_nearest_tolerance", l.JoinAsof(r, plan.AsofOptions{LeftOn: "t", Strategy: plan.AsofNearest, Tolerance: plan.Lit(int64(3))})},
		{"group_by_dynamic", l.GroupByDynamic("t", plan.Lit(int64(1000)), plan.WindowOptions{}, x.Sum().Alias("s"), plan.Len())},
		{"rolling", l.Rolling("t", plan.Lit(int64(100)), plan.WindowOptions{}, x.Sum().Alias("s"))},
	}
}

// TestAsofBenchChecks prints, per query of BenchmarkAsof, the row count
// and the sum of its last column (nulls skipped), the figures
// bench/compare/asof.js prints for Polars, so that the two engines are
// seen to compute the same answers. It runs only when DFOPT_ASOF_CHECKS is
// set (1,000,000-row tables); it fails when a query fails.
func TestAsofBenchChecks(t *testing.T) {
	if os.Getenv("DFOPT_ASOF_CHECKS") == "" {
		t.Skip("set DFOPT_ASOF_CHECKS=1 to run")
	}
	left, right := bench.AsofRecords(memory.DefaultAllocator, 1_000_000)
	defer left.Release()
	defer right.Release()
	ls, err := exec.NewArrowSource("left", left)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Release()
	rs, err := exec.NewArrowSource("right", right)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Release()
	for _, q := range asofQueries(plan.Scan(ls), plan.Scan(rs)) {
		res, err := exec.Collect(context.Background(), q.plan.Node(), exec.Options{})
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		cols, err := res.Columns()
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		sum := 0.0
		for _, v := range cols[len(cols)-1] {
			switch {
			case v.IsNull():
			case v.Type() == plan.Float64:
				sum += v.Float()
			default:
				sum += float64(v.Int())
			}
		}
		t.Logf("dfopt %s rows=%d check=%.1f", q.name, res.NumRows(), sum)
		res.Release()
	}
}

// cpuTime is the process's user + system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
