package rules

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

var tABC = mustTable("abc", field("a", plan.Int64), field("b", plan.Int64), field("c", plan.Int64))

// chain alternates with_columns and filters over one scan, n nodes above
// it. With movable=false each with_columns computes a partial expression,
// so every filter stops right away; with movable=true each with_columns is
// total and every filter sinks to the scan (the quadratic trap for a naive
// pushdown: filter i crosses i with_columns).
func chain(n int, movable bool) plan.Node {
	f := scan(tABC)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			if movable {
				f = f.WithColumns(lit(int64(i)).Alias("b"))
			} else {
				f = f.WithColumns(col("b").Add(lit(int64(i))).Alias("b"))
			}
		} else {
			f = f.Filter(col("a").Gt(lit(int64(i))))
		}
	}
	return f.Node()
}

func wideTable(n int) *plan.Table {
	fields := make([]plan.Field, n)
	for i := range fields {
		fields[i] = field("c"+strconv.Itoa(i), plan.Int64)
	}
	return mustTable("wide"+strconv.Itoa(n), fields...)
}

// wide selects n columns, half renamed, under a filter, over an n-column
// with_columns over an n-column scan.
func wide(n int) plan.Node {
	tbl := wideTable(n)
	with := make([]plan.E, n)
	sel := make([]plan.E, n)
	for i := 0; i < n; i++ {
		name := "c" + strconv.Itoa(i)
		with[i] = col(name).Alias("w" + strconv.Itoa(i))
		if i%2 == 0 {
			sel[i] = col("w" + strconv.Itoa(i))
		} else {
			sel[i] = col(name).Alias("r" + strconv.Itoa(i))
		}
	}
	top := make([]plan.E, n/2)
	for i := range top {
		top[i] = col(plan.OutputName(sel[i].Expr()))
	}
	return scan(tbl).WithColumns(with...).Select(sel...).Filter(col("r1").Gt(lit(0))).Select(top...).Node()
}

func benchOptimize(b *testing.B, n plan.Node) {
	r, err := plan.Resolve(n)
	if err != nil {
		b.Fatal(err)
	}
	size := plan.Size(r)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Optimize(r, DefaultFlags()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/node")
}

// TestAllocationsLinear checks the optimizer's allocations per plan node
// stay flat from 1,000 to 100,000 nodes: a deterministic stand-in for the
// timing ratio, which a loaded machine makes noisy.
func TestAllocationsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, movable := range []bool{false, true} {
		var perNode []float64
		for _, n := range []int{1000, 10000, 100000} {
			r, err := plan.Resolve(chain(n, movable))
			if err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(1, func() {
				if _, err := Optimize(r, DefaultFlags()); err != nil {
					t.Fatal(err)
				}
			})
			perNode = append(perNode, allocs/float64(n))
		}
		t.Logf("movable=%v allocations per node at 1k, 10k, 100k: %.1f %.1f %.1f", movable, perNode[0], perNode[1], perNode[2])
		if perNode[2] > 1.2*perNode[0] {
			t.Errorf("movable=%v: allocations per node grow: %v", movable, perNode)
		}
	}
}

// TestPruningWideRequirementLinear: a node that adds every input column to
// the requirement (distinct without a subset, a passthrough host operator
// that does not say what it reads) costs allocations independent of the
// width, not one copy of the growing requirement per column.
func TestPruningWideRequirementLinear(t *testing.T) {
	passthrough := &plan.ExtensionDef{Name: "pt", Inputs: 1, Properties: []plan.ExtensionProperty{plan.ColumnPassthrough}}
	for _, tc := range []struct {
		name string
		over func(plan.Frame) plan.Frame
	}{
		{"distinct", func(f plan.Frame) plan.Frame { return f.Distinct() }},
		{"extension", func(f plan.Frame) plan.Frame { return f.Extension(passthrough) }},
	} {
		var allocs []float64
		for _, n := range []int{500, 2000} {
			in, err := plan.Resolve(tc.over(scan(wideTable(n))).Select(col("c0")).Node())
			if err != nil {
				t.Fatal(err)
			}
			allocs = append(allocs, testing.AllocsPerRun(1, func() {
				if _, err := Optimize(in, flagsOn(FlagProjectionPruning)); err != nil {
					t.Fatal(err)
				}
			}))
		}
		if allocs[1] > 2*allocs[0] {
			t.Errorf("%s: %.0f allocations at 500 columns, %.0f at 2,000", tc.name, allocs[0], allocs[1])
		}
	}
}

func BenchmarkChain(b *testing.B) {
	for _, movable := range []bool{false, true} {
		for _, n := range []int{100, 1000, 10000, 100000} {
			b.Run(fmt.Sprintf("movable=%v/n=%d", movable, n), func(b *testing.B) { benchOptimize(b, chain(n, movable)) })
		}
	}
}

// BenchmarkSteps5000 is the shape of Polars issue 27911: 5,000 chained
// with_columns and filters.
func BenchmarkSteps5000(b *testing.B) { benchOptimize(b, chain(5000, false)) }

func BenchmarkWide(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchOptimize(b, wide(n)) })
	}
}

// TestChain100k optimizes the 100,000-node chains once in verify mode, in
// each tier: no stack overflow, the schema is preserved, and the movable
// chain collapses as expected.
func TestChain100k(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, tier := range Tiers() {
		for _, movable := range []bool{false, true} {
			flags := Builtin().TierFlags(tier)
			flags.Verify = true
			n := chain(100000, movable)
			res, err := Optimize(n, flags)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Counters
			switch {
			case movable && tier == TierBounded:
				// 50,000 filters sink to the scan (comparisons are partial
				// in the bounded tier, so they do not fuse); 49,999 dead
				// with_columns go.
				if c.Get("pushedFilters") != 50000 || c.Get("fusedFilters") != 0 || c.Get("droppedNodes") != 49999 {
					t.Errorf("bounded movable chain counters: %s", c)
				}
				if plan.Size(res.Plan) != 50002 {
					t.Errorf("bounded movable chain: %d nodes left, want 50002", plan.Size(res.Plan))
				}
			case movable:
				// The standard tier's comparisons are total: the 50,000
				// filters that reach the scan fuse into one, under the
				// last with_columns.
				if c.Get("pushedFilters") != 50000 || c.Get("fusedFilters") != 49999 || c.Get("droppedNodes") != 49999 {
					t.Errorf("standard movable chain counters: %s", c)
				}
				if plan.Size(res.Plan) != 3 {
					t.Errorf("standard movable chain: %d nodes left, want 3", plan.Size(res.Plan))
				}
			case c.Get("pushedFilters") != 0 || c.Get("fusedFilters") != 0:
				t.Errorf("%s partial chain counters: %s", tier, c)
			}
			flags.Verify = false
			again, err := Optimize(res.Plan, flags)
			if err != nil {
				t.Fatal(err)
			}
			if !plan.Equal(again.Plan, res.Plan) {
				t.Errorf("%s movable=%v: not idempotent", tier, movable)
			}
		}
	}
}
