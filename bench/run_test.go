package bench

import (
	"context"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/internal/cputime"
)

// expected is a query's answer computed directly from the formulas (RowT),
// with no plan, optimizer or executor involved.
type expected struct {
	rows int64
	ints map[string]int64   // exact integer column sums
	flts map[string]float64 // float column sums (exact unless approx)
	// approx lists float columns compared with a relative tolerance, because
	// their values come from a division whose summation order the executor
	// chooses (mean).
	approx map[string]bool
}

// direct computes every query's expected answer over rows [0, n).
func direct(n int64) map[string]expected {
	out := map[string]expected{}
	rows := make([]TRow, n)
	for i := range rows {
		rows[i] = RowT(int64(i))
	}
	filterIDA := func(min int64) expected {
		e := expected{ints: map[string]int64{}}
		for _, r := range rows {
			if r.A > min {
				e.rows++
				e.ints["id"] += r.ID
				e.ints["a"] += r.A
			}
		}
		return e
	}
	out["q1"] = filterIDA(900000)
	out["q1s"] = filterIDA(990000)

	q2 := expected{ints: map[string]int64{}}
	for _, r := range rows {
		if r.K < 10 {
			q2.rows++
			q2.ints["id"] += r.ID
			q2.ints["c"] += r.A*2 + 1
		}
	}
	out["q2"] = q2

	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return rows[idx[x]].A > rows[idx[y]].A })
	q3 := expected{ints: map[string]int64{}, flts: map[string]float64{}}
	var f0 fsum
	for _, i := range idx[:min(100, len(idx))] {
		q3.rows++
		q3.ints["id"] += rows[i].ID
		q3.ints["k"] += rows[i].K
		q3.ints["a"] += rows[i].A
		f0.add(rows[i].F[0])
	}
	q3.flts["f0"] = f0.result()
	out["q3"] = q3

	type group struct {
		sumA, cnt, nb int64
		sumB          float64
	}
	groups := map[int64]*group{}
	for _, r := range rows {
		g := groups[r.K]
		if g == nil {
			g = &group{}
			groups[r.K] = g
		}
		g.sumA += r.A
		g.cnt++
		if !r.BNull {
			g.sumB += r.B
			g.nb++
		}
	}
	q4 := expected{rows: int64(len(groups)), ints: map[string]int64{}, flts: map[string]float64{}, approx: map[string]bool{"mean_b": true}}
	var means fsum
	for k, g := range groups {
		q4.ints["k"] += k
		q4.ints["sum_a"] += g.sumA
		q4.ints["cnt"] += g.cnt
		means.add(g.sumB / float64(g.nb))
	}
	q4.flts["mean_b"] = means.result()
	out["q4"] = q4

	q5 := expected{ints: map[string]int64{}}
	for _, r := range rows {
		if r.K == 7 {
			q5.rows++
			q5.ints["id"] += r.ID
			q5.ints["a"] += r.A
		}
	}
	out["q5"] = q5

	out["q9"] = q5 // Q5's answer, written as SQL's FROM t, d WHERE t.k = d.k AND name = 'n7'

	q8 := expected{ints: map[string]int64{}}
	for _, r := range rows {
		if r.K < 100 && r.A > 900000 && r.K != 7 {
			q8.rows++
			q8.ints["id"] += r.ID
			q8.ints["k"] += r.K
			q8.ints["a"] += r.A
		}
	}
	out["q8"] = q8
	out["q8p"] = q8

	q6 := expected{ints: map[string]int64{}, flts: map[string]float64{}}
	var x4s fsum
	for _, r := range rows {
		if r.K >= 500 || r.S == "s3" || r.A <= -500000 || r.ID%3 != 0 || r.BNull {
			continue
		}
		x4 := (float64(r.A*3) + r.B) * 0.5
		if !(x4 > 0) {
			continue
		}
		q6.rows++
		q6.ints["id"] += r.ID
		q6.ints["k"] += r.K
		x4s.add(x4)
	}
	q6.flts["x4"] = x4s.result()
	out["q6"] = q6

	q7 := expected{ints: map[string]int64{}}
	for _, r := range rows[:min(100, len(rows))] {
		q7.rows++
		q7.ints["id"] += r.ID
		q7.ints["k"] += r.K
		q7.ints["a"] += r.A
	}
	out["q7"] = q7
	return out
}

// check compares a measured result with the direct computation.
func (e expected) check(t *testing.T, r QueryResult) {
	t.Helper()
	if r.Rows != e.rows {
		t.Errorf("%s: %d rows, want %d", r.Name, r.Rows, e.rows)
	}
	sums := map[string]ColumnSum{}
	for _, c := range r.Checksum {
		sums[c.Name] = c
	}
	for name, want := range e.ints {
		c, ok := sums[name]
		if !ok || c.Float || c.Int.Cmp(big.NewInt(want)) != 0 {
			t.Errorf("%s: sum(%s) = %v, want %d", r.Name, name, c, want)
		}
	}
	for name, want := range e.flts {
		c, ok := sums[name]
		if !ok || !c.Float {
			t.Errorf("%s: no float sum for %s", r.Name, name)
			continue
		}
		if e.approx[name] {
			if math.Abs(c.Sum-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s: sum(%s) = %v, want about %v", r.Name, name, c.Sum, want)
			}
		} else if math.Float64bits(c.Sum) != math.Float64bits(want) {
			t.Errorf("%s: sum(%s) = %v, want exactly %v", r.Name, name, c.Sum, want)
		}
	}
}

// TestQueriesAgainstFormulas runs every query in every mode on a small
// generated dataset and checks row counts and checksums against a direct
// computation over the formulas; the four modes must also agree bit for bit.
func TestQueriesAgainstFormulas(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	data := testData(t)
	want := direct(testRows)
	files := queryFiles(t)
	var reference []QueryResult
	for _, mode := range []Options{
		{Runs: 2, DataDir: data, Mem: mem},
		{Runs: 1, DataDir: data, Mem: mem, Memory: true},
		{Runs: 1, DataDir: data, Mem: mem, NoOpt: true},
		{Runs: 1, DataDir: data, Mem: mem, Memory: true, NoOpt: true},
		{Runs: 1, DataDir: data, Mem: mem, Flags: map[string]bool{"predicate_pushdown": false}},
	} {
		var called int
		mode.OnResult = func(QueryResult) { called++ }
		results, err := Run(context.Background(), files, mode)
		if err != nil {
			t.Fatalf("mode %+v: %v", mode, err)
		}
		if len(results) != len(files) || called != len(files) {
			t.Fatalf("%d results, %d callbacks for %d files", len(results), called, len(files))
		}
		for i, r := range results {
			if len(r.Samples) != mode.Runs {
				t.Errorf("%s: %d samples, want %d", r.Name, len(r.Samples), mode.Runs)
			}
			if r.Min() > r.Median() || r.Median() > r.Max() || r.Min() <= 0 {
				t.Errorf("%s: min %v median %v max %v", r.Name, r.Min(), r.Median(), r.Max())
			}
			if _, ok := cputime.Process(); ok && r.CPUMedian() <= 0 {
				t.Errorf("%s: CPU median %v", r.Name, r.CPUMedian())
			}
			if mode.NoOpt != (r.OptimizeMedian() == 0) {
				t.Errorf("%s: optimize median %v with NoOpt=%v", r.Name, r.OptimizeMedian(), mode.NoOpt)
			}
			e, ok := want[r.Name]
			if !ok {
				t.Fatalf("no expectation for query %s", r.Name)
			}
			e.check(t, r)
			if reference == nil {
				continue
			}
			if r.Rows != reference[i].Rows || r.Checksum.String() != reference[i].Checksum.String() {
				t.Errorf("%s in mode %+v: %d rows %s, default mode %d rows %s", r.Name, mode,
					r.Rows, r.Checksum, reference[i].Rows, reference[i].Checksum)
			}
		}
		if reference == nil {
			reference = results
		}
	}
}

// TestOptimizerFires checks what the rules do on the queries: every query
// but Q3 (which returns all 17 columns) reads fewer columns than the table
// has. (In the bounded tier every built-in function is partial, so no
// filter of these queries moves and no dead entry is pruned; see
// docs/performance.md.)
func TestOptimizerFires(t *testing.T) {
	results, err := Run(context.Background(), queryFiles(t), Options{Runs: 1, DataDir: testData(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		c := r.Counters
		if projected := c.Get("scanProjections") > 0 && c.Get("droppedColumns") > 0; projected == (r.Name == "q3") {
			t.Errorf("%s: counters %s", r.Name, c)
		}
	}
}

// TestLoadErrors: a missing file, a missing data directory and an unknown
// flag fail Load with messages that name them.
func TestLoadErrors(t *testing.T) {
	files := queryFiles(t)
	tests := []struct {
		name  string
		files []string
		opts  Options
		want  string
	}{
		{"missing file", []string{"queries/nope.json"}, Options{}, "nope.json"},
		{"missing data", files[:1], Options{DataDir: t.TempDir()}, "t.parquet"},
		{"missing data in memory", files[:1], Options{DataDir: t.TempDir(), Memory: true}, "t.parquet"},
		{"unknown flag", files[:1], Options{DataDir: testData(t), Flags: map[string]bool{"warp_drive": true}}, "warp_drive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(context.Background(), tc.files, tc.opts)
			if err == nil {
				s.Close()
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestMemoryReadsOnce: in memory mode, one file shared by several queries
// is read once, and its batch is one contiguous chunk per column.
func TestMemoryReadsOnce(t *testing.T) {
	s, err := Load(context.Background(), queryFiles(t), Options{DataDir: testData(t), Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.loaded) != 2 {
		t.Errorf("%d files loaded, want 2 (t and d)", len(s.loaded))
	}
	for path, rec := range s.loaded {
		if strings.HasSuffix(path, TFile) && rec.NumRows() != testRows {
			t.Errorf("%s: %d rows", path, rec.NumRows())
		}
	}
}

// TestFullSize checks the published row counts on the full 10,000,000-row
// dataset: directly from the formulas, and, when bench/data holds the
// generated files (dfopt gen-bench -out bench/data), through the queries.
// It takes a while, so it runs only with DFOPT_BENCH_FULL=1.
func TestFullSize(t *testing.T) {
	if os.Getenv("DFOPT_BENCH_FULL") == "" {
		t.Skip("set DFOPT_BENCH_FULL=1 to check the 10M-row counts")
	}
	want := direct(DefaultRows)
	for name, rows := range map[string]int64{"q1": 499_882, "q6": 816_396} {
		if want[name].rows != rows {
			t.Errorf("direct %s: %d rows, want %d", name, want[name].rows, rows)
		}
	}
	data := filepath.Join("data", TFile)
	if _, err := os.Stat(data); err != nil {
		t.Skipf("no %s: %v", data, err)
	}
	results, err := Run(context.Background(), queryFiles(t), Options{Runs: 1, Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		want[r.Name].check(t, r)
		t.Logf("%s rows=%d %s", r.Name, r.Rows, r.Checksum)
	}
}
