package tpch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/bench"
)

// BenchmarkSF1 collects each TPC-H plan file, optimized, over the SF1
// tables of $DFOPT_TPCH_SF1 read once into memory (dfopt bench --memory):
// one sub-benchmark per file, df/qN for the dataframe style and sql/qN for
// the SQL style, so one query can be profiled alone, e.g.
//
//	DFOPT_TPCH_SF1=DIR go test ./bench/tpch -run '^$' -bench 'SF1/df/q17$' \
//	    -benchtime 5x -cpu 1 -cpuprofile q17.prof
//
// Skipped unless the variable names a directory holding the eight tables.
func BenchmarkSF1(b *testing.B) {
	dir := os.Getenv(sf1Env)
	if dir == "" {
		b.Skipf("$%s is not set (generate the data with: dfopt gen-tpch -sf 1 -out DIR)", sf1Env)
	}
	var files []string
	for _, pattern := range []string{"queries/*.json", "queries/sql/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		style := "df"
		if filepath.Base(filepath.Dir(f)) == "sql" {
			style = "sql"
		}
		b.Run(style+"/"+bench.QueryName(f), func(b *testing.B) {
			// The tables are read into memory before the timing starts
			// (b.Loop runs this function once), and only for the files
			// the -bench pattern selects.
			suite, err := bench.Load(context.Background(), []string{f}, bench.Options{DataDir: dir, Memory: true})
			if err != nil {
				b.Fatal(err)
			}
			defer suite.Close()
			q := suite.Queries[0]
			runtime.GC()
			for b.Loop() {
				res, _, err := q.Once(context.Background(), memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
		})
	}
}
