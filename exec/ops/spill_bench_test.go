package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/plan"
)

// spreadKeys is n int64 keys: values drawn from [0, distinct) by next,
// multiplied by a large odd constant so that they spread over the int64
// range (a hash table, not a direct map) while equal values stay equal.
func spreadKeys(n int, next func() int64) arrow.Array {
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int64(uint64(next()) * 0x9E3779B97F4A7C15))
	}
	return b.NewArray()
}

// BenchmarkJoinSpill is the join of a 20,000-row probe side with a
// 1,000,000-row build side (8 MB of int64 keys, each key on two rows),
// in memory, under a limit the in-memory join fits (the accounting's
// cost), and under a limit of a tenth of the build side's bytes (the
// grace hash join, spilling to a temporary directory); two workers. The
// pairs are the same in all three (TestPropJoinSpilled); ns/op is per
// join.
func BenchmarkJoinSpill(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	build := spreadKeys(1_000_000, func() int64 { return rng.Int64N(500_000) })
	defer build.Release()
	probe := spreadKeys(20_000, func() int64 { return rng.Int64N(1_000_000) })
	defer probe.Release()
	buildBytes := int64(build.Len()) * 8
	par := Parallel{Workers: 2}
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		for _, mode := range []struct {
			name  string
			limit int64
		}{{"memory", 0}, {"limit_fits", 1 << 30}, {"limit_tenth", buildBytes / 10}} {
			b.Run(fmt.Sprintf("%s/%s", joinName(kind), mode.name), func(b *testing.B) {
				var files, bytes int64
				for b.Loop() {
					var s *Spill
					if mode.limit > 0 {
						bud := memlimit.New(mode.limit, b.TempDir())
						s = &Spill{Ctx: context.Background(), Mem: bud.Allocator(memory.DefaultAllocator), Budget: bud}
					}
					_, _, held, err := JoinIndicesLimited(s, kind, []arrow.Array{probe}, []arrow.Array{build}, par)
					if err != nil {
						b.Fatal(err)
					}
					if s != nil {
						s.Budget.Release(held)
						files, bytes = s.Budget.Spilled()
						if err := s.Budget.Cleanup(); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(files), "spill-files")
				b.ReportMetric(float64(bytes), "spill-bytes")
			})
		}
	}
}

// BenchmarkGroupSpill groups 1,000,000 rows into 100,000 groups (int64
// keys that hash) and sums a float column per group, in memory and under
// a limit of a tenth of the in-memory grouping's bound.
func BenchmarkGroupSpill(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	keys := spreadKeys(1_000_000, func() int64 { return rng.Int64N(100_000) })
	defer keys.Release()
	vals := benchFloat64(1_000_000, 0)
	defer vals.Release()
	par := Parallel{Workers: 2}
	bound := GroupBound([]arrow.Array{keys}, par)
	for _, mode := range []struct {
		name  string
		limit int64
	}{{"memory", 0}, {"limit_fits", 1 << 30}, {"limit_tenth", bound / 10}} {
		b.Run(mode.name, func(b *testing.B) {
			var files, bytes int64
			for b.Loop() {
				var s *Spill
				mem := memory.Allocator(benchMem)
				if mode.limit > 0 {
					bud := memlimit.New(mode.limit, b.TempDir())
					s = &Spill{Ctx: context.Background(), Mem: bud.Allocator(benchMem), Budget: bud}
					mem = s.Mem
				}
				g, err := GroupLimited(s, []arrow.Array{keys}, par, true)
				if err != nil {
					b.Fatal(err)
				}
				out, err := g.Aggregate(mem, Plain(plan.FuncSum), "sum(f)", vals, par)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
				g.Close()
				if s != nil {
					files, bytes = s.Budget.Spilled()
					if err := s.Budget.Cleanup(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(files), "spill-files")
			b.ReportMetric(float64(bytes), "spill-bytes")
		})
	}
}
