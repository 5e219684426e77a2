package exec

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// BenchmarkCollectMemoryLimit collects the inner join of a 20,000-row
// probe side with a 1,000,000-row build side (int64 keys that hash, each
// on two rows; an id and a float per row: 24 MB) and projects four
// columns: without a limit, under a limit the in-memory join fits (the
// accounting's cost), and under a limit of a tenth of the build side's
// bytes (the join spills).
func BenchmarkCollectMemoryLimit(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	big, bigBytes := limitSide(b, rng, "big", 1_000_000, 500_000, 0)
	small, _ := limitSide(b, rng, "small", 20_000, 1_000_000, 0)
	n := plan.Scan(small).Join(plan.Scan(big), plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("k")}).
		Select(c("id"), c("k"), c("id_right"), c("f_right")).Node()
	for _, mode := range []struct {
		name  string
		limit int64
	}{{"no_limit", 0}, {"limit_fits", 1 << 30}, {"limit_tenth", bigBytes / 10}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			var st MemoryStats
			for b.Loop() {
				res, err := Collect(context.Background(), n, Options{MemoryLimit: mode.limit, SpillDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				st = res.Memory
				res.Release()
			}
			b.ReportMetric(float64(st.Peak), "peak-bytes")
			b.ReportMetric(float64(st.SpillBytes), "spill-bytes")
		})
	}
}
