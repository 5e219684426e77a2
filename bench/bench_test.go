package bench

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The query benchmarks run the plan files of bench/queries over a dataset
// generated once per process into a temporary directory:
//
//	DFOPT_BENCH_ROWS  rows of table t (default 1,000,000)
//	DFOPT_BENCH_DATA  use this directory's t.parquet and d.parquet instead
//	                  (for example bench/data, made by dfopt gen-bench)
//
// Each query has four sub-benchmarks, mode=memory|parquet × opt=on|off, so
// benchstat can compare modes, flags and commits:
//
//	go test -run '^$' -bench . -count 10 -cpu 1 ./bench > new.txt
//	benchstat old.txt new.txt
//
// If the data cannot be generated the benchmarks skip.
const defaultBenchRows = 1_000_000

var (
	benchDataOnce sync.Once
	benchDataDir  string
	benchDataTemp string // removed by TestMain
	benchDataErr  error

	benchSuitesMu sync.Mutex
	benchSuites   = map[bool]*Suite{} // by memory mode; live until the process exits
)

// benchData returns the benchmark dataset's directory, generating it on
// first use.
func benchData(b *testing.B) string {
	b.Helper()
	benchDataOnce.Do(func() {
		if dir := os.Getenv("DFOPT_BENCH_DATA"); dir != "" {
			benchDataDir = dir
			_, benchDataErr = os.Stat(filepath.Join(dir, TFile))
			return
		}
		dir, err := os.MkdirTemp("", "dfopt-bench")
		if err != nil {
			benchDataErr = err
			return
		}
		benchDataTemp, benchDataDir = dir, dir
		_, benchDataErr = Generate(context.Background(), dir, GenOptions{Rows: envInt("DFOPT_BENCH_ROWS", defaultBenchRows)})
	})
	if benchDataErr != nil {
		b.Skipf("no benchmark data: %v", benchDataErr)
	}
	return benchDataDir
}

// benchSuite loads the queries once per mode and process.
func benchSuite(b *testing.B, memory bool) *Suite {
	b.Helper()
	data := benchData(b)
	benchSuitesMu.Lock()
	defer benchSuitesMu.Unlock()
	if s, ok := benchSuites[memory]; ok {
		return s
	}
	s, err := Load(context.Background(), queryFiles(b), Options{DataDir: data, Memory: memory})
	if err != nil {
		b.Skipf("loading the queries: %v", err)
	}
	benchSuites[memory] = s
	return s
}

// benchQuery times optimize+collect of one query in the four modes.
func benchQuery(b *testing.B, name string) {
	for _, mode := range []struct {
		label         string
		memory, noOpt bool
	}{
		{"mode=memory/opt=on", true, false},
		{"mode=parquet/opt=on", false, false},
		{"mode=memory/opt=off", true, true},
		{"mode=parquet/opt=off", false, true},
	} {
		b.Run(mode.label, func(b *testing.B) {
			s := benchSuite(b, mode.memory)
			var q Query
			for _, c := range s.Queries {
				if c.Name == name {
					q = *c
				}
			}
			if q.Plan == nil {
				b.Fatalf("no query %s", name)
			}
			q.NoOpt = mode.noOpt
			ctx := context.Background()
			rows := 0
			for b.Loop() {
				res, _, err := q.Once(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				rows = res.NumRows()
				res.Release()
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}

// BenchmarkQ1 is t.filter(a > 900000).select(id, a).
func BenchmarkQ1(b *testing.B) { benchQuery(b, "q1") }

// BenchmarkQ1s is Q1 with the more selective a > 990000.
func BenchmarkQ1s(b *testing.B) { benchQuery(b, "q1s") }

// BenchmarkQ2 is t.with_columns(c = a*2+1).filter(k < 10).select(id, c).
func BenchmarkQ2(b *testing.B) { benchQuery(b, "q2") }

// BenchmarkQ3 is t.sort(a desc).head(100).
func BenchmarkQ3(b *testing.B) { benchQuery(b, "q3") }

// BenchmarkQ4 is t.group_by(k).agg(sum(a), mean(b), len()).
func BenchmarkQ4(b *testing.B) { benchQuery(b, "q4") }

// BenchmarkQ5 is t.join(d, on k).filter(name == "n7").select(id, name, a).
func BenchmarkQ5(b *testing.B) { benchQuery(b, "q5") }

// BenchmarkQ6 is the ten-step with_columns/filter chain.
func BenchmarkQ6(b *testing.B) { benchQuery(b, "q6") }

// BenchmarkQ7 is t.select(id, k, a).head(100), a head over the id-ordered
// file: optimized, the scan reads one row group (limit_pushdown's hint).
func BenchmarkQ7(b *testing.B) { benchQuery(b, "q7") }

// BenchmarkQ8 is t.join(d, on k).filter(k < 100, a > 900000, name != "n7")
// .select(id, k, name, a): the filter written above the join.
func BenchmarkQ8(b *testing.B) { benchQuery(b, "q8") }

// BenchmarkQ8p is Q8 with its filters pushed into both inputs by hand:
// join_pushdown makes Q8 this plan.
func BenchmarkQ8p(b *testing.B) { benchQuery(b, "q8p") }
