package reference_test

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
)

// BenchmarkCollect measures the reference way alone on the oracle
// benchmark's pool: generated plans of the default configuration (tables
// of up to 64 rows), resolved beforehand as the oracle does.
func BenchmarkCollect(b *testing.B) {
	const pool = 512
	plans := make([]plan.Node, pool)
	for i := range plans {
		p := proptest.Generate(proptest.CaseSeed(1, i), proptest.DefaultConfig()).Plan
		if in, err := plan.Resolve(p); err == nil {
			p = in
		}
		plans[i] = p
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = reference.Collect(ctx, plans[i%pool], reference.Options{})
	}
}
