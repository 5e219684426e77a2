package oracle

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/proptest"
)

// BenchmarkCheck measures one four-way check of a generated plan over the
// default configuration (tables of up to 64 rows), generation excluded.
func BenchmarkCheck(b *testing.B) { benchmarkCheck(b, false) }

// BenchmarkCheckThreeWays is BenchmarkCheck without the reference way
// (Case.NoReference): the difference is what the fourth way costs.
func BenchmarkCheckThreeWays(b *testing.B) { benchmarkCheck(b, true) }

func benchmarkCheck(b *testing.B, noReference bool) {
	const pool = 512
	cases := make([]Case, pool)
	for i := range cases {
		cases[i] = Case{Plan: proptest.Generate(proptest.CaseSeed(1, i), proptest.DefaultConfig()).Plan, NoReference: noReference}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Check(ctx, cases[i%pool]); !r.Agree() {
			b.Fatalf("case %d: %s", i%pool, r.Summary())
		}
	}
}
