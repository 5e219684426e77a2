package tpch

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/bench"
	"github.com/dfopt/dfopt/internal/cputime"
)

// BenchmarkSF1Parquet collects the dataframe-style Q1, Q3, Q6, Q7, Q10, Q11,
// Q12, Q13, Q17, Q19 and Q22, optimized, over the SF1 Parquet files of
// $DFOPT_TPCH_SF1 (dfopt bench without --memory): every collect decodes the
// files again, so a profile shows the Parquet scan, e.g.
//
//	DFOPT_TPCH_SF1=DIR go test ./bench/tpch -run '^$' -bench 'SF1Parquet/q6$' \
//	    -benchtime 5x -cpu 1 -cpuprofile q6.prof
//
// Besides wall time it reports cpu-ns/op, the process's CPU time per
// collect, which other processes competing for the cores do not inflate
// (benchstat compares it like sec/op). Skipped unless the variable names
// a directory holding the eight tables.
func BenchmarkSF1Parquet(b *testing.B) {
	dir := os.Getenv(sf1Env)
	if dir == "" {
		b.Skipf("$%s is not set (generate the data with: dfopt gen-tpch -sf 1 -out DIR)", sf1Env)
	}
	for _, q := range []string{"q1", "q3", "q6", "q7", "q10", "q11", "q12", "q13", "q17", "q19", "q22"} {
		b.Run(q, func(b *testing.B) {
			suite, err := bench.Load(context.Background(), []string{"queries/" + q + ".json"}, bench.Options{DataDir: dir})
			if err != nil {
				b.Fatal(err)
			}
			defer suite.Close()
			query := suite.Queries[0]
			runtime.GC()
			cpu0, cpuOK := cputime.Process()
			for b.Loop() {
				res, _, err := query.Once(context.Background(), memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
			if cpu1, ok := cputime.Process(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
