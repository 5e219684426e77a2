package bench

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/dfopt/dfopt/rules"
)

// handQueryFiles lists bench/queries/hand: Q2 and Q6 written with their
// filters first by hand, the yardstick of error_guards
// (docs/adr/0004-error-guards.md).
func handQueryFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("queries", "hand", "*.json"))
	if err != nil || len(files) != 2 {
		tb.Fatalf("want the two hand-written queries, got %v (%v)", files, err)
	}
	return files
}

var (
	guardSuiteOnce sync.Once
	guardSuite     *Suite
	guardSuiteErr  error
)

// BenchmarkGuardedVsHand times Q2 and Q6 in memory against the same
// queries written with the filters first by hand, side by side: each
// iteration is one round running every (query, form) once, in turn, so
// the forms share the machine's load (run it with -cpu 1 for one thread
// and -benchtime Nx for N rounds). form=written is the query as written
// under the default flags; form=guarded is the same with range_proofs
// off, so that error_guards alone moves the filters (a guard checks a's
// range where the with_columns was); form=hand is the hand-pushed file
// under the same flags as guarded; form=unguarded is the query as
// written with error_guards off as well (the filters stay above the
// with_columns). Before every timed run the benchmark evicts the CPU
// caches (evictCaches), so no form runs on columns the form before it
// left in cache: without it, whichever form ran second in a round read
// warm columns and looked up to 1.5x faster. It reports, per query and form, the
// median wall-clock and process CPU milliseconds of the rounds, and the
// guards of the optimized plan.
func BenchmarkGuardedVsHand(b *testing.B) {
	data := benchData(b)
	guardSuiteOnce.Do(func() {
		files := append([]string{filepath.Join("queries", "q2.json"), filepath.Join("queries", "q6.json")}, handQueryFiles(b)...)
		guardSuite, guardSuiteErr = Load(context.Background(), files, Options{DataDir: data, Memory: true})
	})
	if guardSuiteErr != nil {
		b.Skipf("loading the queries: %v", guardSuiteErr)
	}
	byName := map[string]*Query{}
	for _, q := range guardSuite.Queries {
		byName[q.Name] = q
	}
	type run struct {
		label     string
		q         Query
		wall, cpu []float64
		guards    int
		rows      int
	}
	var runs []*run
	for _, c := range []struct{ label, name, hand string }{{"Q2", "q2", "q2h"}, {"Q6", "q6", "q6h"}} {
		for _, form := range []string{"written", "guarded", "hand", "unguarded"} {
			name := c.name
			if form == "hand" {
				name = c.hand
			}
			q := *byName[name]
			if form != "written" {
				// Without the rule (an older registry) there is nothing
				// to turn off.
				_ = q.Flags.Set("range_proofs", false)
			}
			if form == "unguarded" {
				if err := q.Flags.Set(rules.FlagErrorGuards, false); err != nil {
					b.Fatal(err)
				}
			}
			runs = append(runs, &run{label: c.label + "-" + form, q: q})
		}
	}
	ctx := context.Background()
	once := func(r *run) (float64, float64) {
		res, s, err := r.q.Once(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.rows, r.guards = res.NumRows(), s.Counters.Get("guards")
		res.Release()
		return float64(s.Total.Microseconds()) / 1000, float64(s.CPU.Microseconds()) / 1000
	}
	for _, r := range runs {
		once(r) // warm-up
	}
	for b.Loop() {
		for _, r := range runs {
			evictCaches()
			w, c := once(r)
			r.wall, r.cpu = append(r.wall, w), append(r.cpu, c)
		}
	}
	for _, r := range runs {
		b.ReportMetric(medianMs(r.wall), r.label+"-wall-ms")
		b.ReportMetric(medianMs(r.cpu), r.label+"-cpu-ms")
		b.ReportMetric(float64(r.guards), r.label+"-guards")
	}
	for i := 0; i+3 < len(runs); i += 4 {
		for _, r := range runs[i+1 : i+4] {
			if r.rows != runs[i].rows {
				b.Errorf("%s: %d rows, %s: %d", runs[i].label, runs[i].rows, r.label, r.rows)
			}
		}
	}
}

// evictionBuffer, allocated on first use, is larger than the last-level
// cache of any machine the benchmark runs on; writing it pushes the
// previous run's columns out.
var evictionBuffer []byte

// evictCaches writes one byte per cache line of evictionBuffer, so that
// every timed run starts from the same cold cache.
func evictCaches() {
	if evictionBuffer == nil {
		evictionBuffer = make([]byte, 256<<20)
	}
	for i := 0; i < len(evictionBuffer); i += 64 {
		evictionBuffer[i]++
	}
}

// medianMs returns the median of xs (0 for none).
func medianMs(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
