package rules

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// renameChain is with_columns(c as x0, x0 as x1, ..., x{n-2} as x{n-1}) .
// select(x0, ..., x{n-1}) over a table with columns c, x0, ..., x{n-1}:
// value j reads x{j-1}, which value j-1 assigns, so pf.capture lets it
// inline only once value j-1 has left — one value per full pass, the shape
// that made projection fusion quadratic.
func renameChain(n int) plan.Node {
	fields := []plan.Field{field("c", plan.Int64)}
	for i := 0; i < n; i++ {
		fields = append(fields, field("x"+strconv.Itoa(i), plan.Int64))
	}
	tbl := mustTable("chain"+strconv.Itoa(n), fields...)
	with := make([]plan.E, n)
	sel := make([]plan.E, n)
	for i := 0; i < n; i++ {
		src := "c"
		if i > 0 {
			src = "x" + strconv.Itoa(i-1)
		}
		with[i] = col(src).Alias("x" + strconv.Itoa(i))
		sel[i] = col("x" + strconv.Itoa(i))
	}
	return scan(tbl).WithColumns(with...).Select(sel...).Node()
}

// TestRenameChainInlinesEveryValue: every value of the chain inlines, each
// reading the input's column of the name it reads.
func TestRenameChainInlinesEveryValue(t *testing.T) {
	res, err := Optimize(renameChain(50), verified(flagsOn(FlagProjectionFusion)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Counters.Get("fusedProjections") != 50 {
		t.Fatalf("fusedProjections = %d, want 50", res.Counters.Get("fusedProjections"))
	}
	p, ok := res.Plan.(*plan.ProjectNode)
	if !ok {
		t.Fatalf("root %s, want the project", res.Plan.Label())
	}
	if _, ok := p.Input.(*plan.ScanNode); !ok {
		t.Fatalf("the with_columns is still there:\n%s", plan.Explain(res.Plan))
	}
	if got := p.Exprs[7].String(); got != "x6 as x7" {
		t.Errorf("exprs[7] = %s, want x6 as x7", got)
	}
}

// BenchmarkFusionChain: projection fusion's time per value must stay flat
// from 250 to 4,000 values (it grew linearly with a full pass per inlined
// value).
func BenchmarkFusionChain(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		b.Run(fmt.Sprintf("values=%d", n), func(b *testing.B) {
			r, err := plan.Resolve(renameChain(n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Optimize(r, flagsOn(FlagProjectionFusion)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
		})
	}
}

// TestFusionChainAllocationsLinear: projection fusion's allocations per
// value stay flat from 250 to 2,000 values on the rename chain — a
// deterministic stand-in for BenchmarkFusionChain's time per value (a full
// pass per inlined value allocated in proportion to the values left).
func TestFusionChainAllocationsLinear(t *testing.T) {
	var perValue []float64
	for _, n := range []int{250, 2000} {
		r, err := plan.Resolve(renameChain(n))
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := Optimize(r, flagsOn(FlagProjectionFusion)); err != nil {
				t.Fatal(err)
			}
		})
		perValue = append(perValue, allocs/float64(n))
	}
	t.Logf("allocations per value at 250 and 2,000 values: %.1f %.1f", perValue[0], perValue[1])
	if perValue[1] > 1.2*perValue[0] {
		t.Errorf("allocations per value grow with the with_columns: %v", perValue)
	}
}
