package bench

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// Optimizer latency on deep and wide plans (rules.Optimize only, no data):
// the targets (docs/performance.md) are a 5,000-step chain under 50 ms, a
// 50,000-step chain under 10x that, and a 5,000-expression select under
// 20 ms. The input=raw sub-benchmarks start from the unresolved plan, as a
// user's optimize does (Optimize resolves it first); input=resolved isolates
// the rules.

// emptyT is table t's schema with no rows: the optimizer needs no data.
func emptyT(tb testing.TB) *plan.Table {
	tb.Helper()
	schema := planSchema(tb, TSchema())
	t, err := plan.NewTable("t", schema, make([][]plan.Value, schema.Len()))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// chainPlan is a with_columns/filter chain of the given number of steps
// (one node each) over t, in the style of Q6, then select(id, a). Steps
// cycle through four shapes, reusing eight w and eight v columns so that
// the schema stays narrow:
//
//	w{m} = a * j            (int64)
//	filter k < 1000 - j%500
//	v{m} = f0 * float(j)    (float64)
//	filter v{m} > -1.0
//
// With movable, the with_columns hold plain column copies and literals
// (total in the bounded tier) and every filter compares a source column, so
// every filter sinks to the scan and every with_columns dies: the most
// work for predicate_pushdown and projection_pruning.
func chainPlan(tb testing.TB, steps int, movable bool) plan.Node {
	c, l := plan.Col, plan.Lit
	f := plan.Scan(emptyT(tb))
	for j := 0; j < steps; j++ {
		m := strconv.Itoa((j / 4) % 8)
		switch {
		case movable && j%2 == 0:
			f = f.WithColumns(c("f"+strconv.Itoa(j%12)).Alias("w"+m), l(float64(j)).Alias("v"+m))
		case movable:
			f = f.Filter(c("a").Gt(l(int64(-j))))
		case j%4 == 0:
			f = f.WithColumns(c("a").Mul(l(int64(j))).Alias("w" + m))
		case j%4 == 1:
			f = f.Filter(c("k").Lt(l(int64(1000 - j%500))))
		case j%4 == 2:
			f = f.WithColumns(c("f0").Mul(l(float64(j))).Alias("v" + m))
		default:
			f = f.Filter(c("v" + m).Gt(l(-1.0)))
		}
	}
	return f.Select(c("id"), c("a")).Node()
}

// selectPlan selects n computed expressions over t:
// e{j} = f{j%12} * float(j) + a.
func selectPlan(tb testing.TB, n int) plan.Node {
	c, l := plan.Col, plan.Lit
	exprs := make([]plan.E, n)
	for j := range exprs {
		exprs[j] = c("f" + strconv.Itoa(j%12)).Mul(l(float64(j))).Add(c("a")).Alias("e" + strconv.Itoa(j))
	}
	return plan.Scan(emptyT(tb)).Select(exprs...).Node()
}

func benchOptimize(b *testing.B, root plan.Node) {
	for _, input := range []string{"raw", "resolved"} {
		b.Run("input="+input, func(b *testing.B) {
			n := root
			if input == "resolved" {
				var err error
				if n, err = plan.Resolve(root); err != nil {
					b.Fatal(err)
				}
			}
			flags := rules.DefaultFlags()
			for b.Loop() {
				if _, err := rules.Optimize(n, flags); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(plan.Size(root)), "ns/node")
		})
	}
}

// BenchmarkOptimizeChain optimizes with_columns/filter chains of 1,000,
// 5,000 and 50,000 steps (Polars' optimizer took 47-64 ms on 1,000 steps
// and 0.7-1.4 s on 5,000 on this machine).
func BenchmarkOptimizeChain(b *testing.B) {
	for _, movable := range []bool{false, true} {
		for _, steps := range []int{1000, 5000, 50000} {
			root := chainPlan(b, steps, movable)
			shape := "q6like"
			if movable {
				shape = "movable"
			}
			b.Run(fmt.Sprintf("shape=%s/steps=%d", shape, steps), func(b *testing.B) { benchOptimize(b, root) })
		}
	}
}

// BenchmarkOptimizeSelect optimizes a select of 5,000 computed
// expressions (Polars: 34 ms).
func BenchmarkOptimizeSelect(b *testing.B) {
	root := selectPlan(b, 5000)
	b.Run("exprs=5000", func(b *testing.B) { benchOptimize(b, root) })
}

// TestLatencyPlans checks that the latency benchmarks' plans resolve and
// optimize to what their comments say (no timing here).
func TestLatencyPlans(t *testing.T) {
	tests := []struct {
		name string
		root plan.Node
		// check inspects the optimized plan's counters and size.
		check func(rules.Counters, int) error
	}{
		{"q6like chain", chainPlan(t, 5000, false), func(c rules.Counters, size int) error {
			// Every function is partial in the bounded tier: nothing moves
			// or dies; only the scan narrows. In the standard tier
			// projection_pruning turns each dead with_columns computing
			// a * j into a guard of its error (pr.with_columns.guard), so
			// no filter has anything to cross: 1,250 nodes change kind and
			// the plan keeps its 5,000 steps.
			if c.Get("pushedFilters") != 0 || c.Get("scanProjections") != 1 || c.Get("guardedFilters") != 0 ||
				c.Get("prunedProjections") != 1250 || size != 5000+2 {
				return fmt.Errorf("counters %s, %d nodes", c, size)
			}
			return nil
		}},
		{"movable chain", chainPlan(t, 5000, true), func(c rules.Counters, size int) error {
			// 2,500 filters reach the scan, 2,500 with_columns die.
			if c.Get("pushedFilters") != 2500 || c.Get("droppedNodes") != 2500 {
				return fmt.Errorf("counters %s, %d nodes", c, size)
			}
			return nil
		}},
		{"select", selectPlan(t, 5000), func(c rules.Counters, size int) error {
			if size != 2 || c.Get("scanProjections") != 1 {
				return fmt.Errorf("counters %s, %d nodes", c, size)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rules.Optimize(tc.root, rules.DefaultFlags())
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.check(res.Counters, plan.Size(res.Plan)); err != nil {
				t.Error(err)
			}
			if !res.Plan.Schema().Equal(mustResolve(t, tc.root).Schema()) {
				t.Error("the optimized schema differs")
			}
		})
	}
}

func mustResolve(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	r, err := plan.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
