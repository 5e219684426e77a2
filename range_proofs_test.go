package dfopt_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// lyingSource is a host source (an Arrow source) that states facts of its
// own about its columns, true or not.
type lyingSource struct {
	*exec.ArrowSource
	facts map[string]plan.ColumnFacts
}

func (s *lyingSource) ColumnFacts(column string) (plan.ColumnFacts, bool) {
	f, ok := s.facts[column]
	return f, ok
}

// rangeTable is a: int64 and b: int64 with the given values.
func rangeTable(t *testing.T, name string, a, b []int64) *plan.Table {
	t.Helper()
	av, bv := make([]plan.Value, len(a)), make([]plan.Value, len(b))
	for i := range a {
		av[i], bv[i] = plan.Int64Value(a[i]), plan.Int64Value(b[i])
	}
	tbl, err := plan.NewTable(name, plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64}),
		[][]plan.Value{av, bv})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// million states a in [-10^6, 10^6].
var million = map[string]plan.ColumnFacts{"a": {HasRange: true, Min: plan.Int64Value(-1_000_000), Max: plan.Int64Value(1_000_000)}}

// proofPlan is select(a * 2 + 1 as y, b).filter(b > 0) over src: the filter
// moves below the projection only when a * 2 + 1 is proven total.
func proofPlan(src plan.Source) plan.Node {
	return plan.Scan(src).
		Select(plan.Col("a").Mul(plan.Lit(2)).Add(plan.Lit(1)).Alias("y"), plan.Col("b")).
		Filter(plan.Col("b").Gt(plan.Lit(0))).Node()
}

// optimizeProofPlan optimizes proofPlan(src) in the standard tier and
// checks that the proof moved the filter and made the scan assume a's
// range.
func optimizeProofPlan(t *testing.T, src plan.Source) plan.Node {
	t.Helper()
	res, err := rules.Optimize(proofPlan(src), rules.DefaultFlags())
	if err != nil {
		t.Fatal(err)
	}
	text := plan.Explain(res.Plan)
	if !strings.Contains(text, "assumes=[a in [-1000000, 1000000]]") || !strings.HasPrefix(text, "project") {
		t.Fatalf("the proof did not hold or did not move the filter:\n%s", text)
	}
	return res.Plan
}

// TestRangeProofLyingSource: a host source states that a lies in [-10^6,
// 10^6] but holds 2^62 on a row where b = 0. Unoptimized, a * 2 overflows
// there; the optimizer, trusting the facts, moves the filter b > 0 below
// the projection, which would drop that row and succeed — a wrong answer.
// The executor checks the facts the plan relied on while it scans and
// fails with a source_error naming the source, the column, the fact and
// the value; so does the reference interpreter, independently. The liar
// embeds an exec.ArrowSource, whose own computed facts would excuse the
// check (step.Checks): the exemption goes by the source's concrete type,
// so the facts the wrapper states are checked.
func TestRangeProofLyingSource(t *testing.T) {
	data := rangeTable(t, "host", []int64{5, 1 << 62, -7}, []int64{1, 0, 2})
	rec, err := kernel.TableRecord(memory.DefaultAllocator, data)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	arrowSrc, err := exec.NewArrowSource("host", rec)
	if err != nil {
		t.Fatal(err)
	}
	defer arrowSrc.Release()
	liar := &lyingSource{ArrowSource: arrowSrc, facts: million}

	// Unoptimized: the overflow.
	_, err = exec.Collect(context.Background(), proofPlan(liar), exec.Options{})
	var pe *plan.Error
	if !errors.As(err, &pe) || pe.Kind != plan.Overflow {
		t.Fatalf("unoptimized: got %v, want overflow", err)
	}
	// Optimized: the source's lie, named.
	opt := optimizeProofPlan(t, liar)
	_, err = exec.Collect(context.Background(), opt, exec.Options{})
	if !errors.As(err, &pe) || pe.Kind != plan.SourceError || pe.Expr != "host" {
		t.Fatalf("optimized: got %v, want a source_error naming host", err)
	}
	for _, want := range []string{"column a", "4611686018427387904", "above the stated maximum 1000000", "a in [-1000000, 1000000]"} {
		if !strings.Contains(pe.Error(), want) {
			t.Errorf("the error %q does not say %q", pe.Error(), want)
		}
	}
	if pe.Row != 1 {
		t.Errorf("the error names row %d, want 1", pe.Row)
	}
	t.Logf("optimized collect: %v", pe)

	// The same lie from an in-memory table (plan.Table.WithStatedFacts),
	// through the executor and the reference interpreter.
	table := data.WithStatedFacts(million)
	opt = optimizeProofPlan(t, table)
	_, err = exec.Collect(context.Background(), opt, exec.Options{})
	if !errors.As(err, &pe) || pe.Kind != plan.SourceError || pe.Expr != "host" || !strings.Contains(pe.Error(), "column a") {
		t.Fatalf("optimized, in-memory: got %v, want a source_error naming host and column a", err)
	}
	_, err = reference.Collect(context.Background(), opt, reference.Options{})
	var re *plan.Error
	if !errors.As(err, &re) || !re.Same(pe) {
		t.Fatalf("reference: got %v, want the executor's %v", err, pe)
	}
}

// TestRangeProofTruthfulSources: with facts that hold — computed by an
// in-memory table, stated truthfully by a host, read from Parquet
// statistics — the optimized plan moves the filter and returns the
// unoptimized plan's rows.
func TestRangeProofTruthfulSources(t *testing.T) {
	data := rangeTable(t, "t", []int64{5, 1_000_000, -1_000_000, 0}, []int64{1, 0, 2, -3})
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeGroups(t, path, data, 2)
	pq, err := parquet.OpenFile("t", path)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := pq.ColumnFacts("a"); !ok || !f.HasRange || f.Min.Int() != -1_000_000 || f.Max.Int() != 1_000_000 ||
		!f.HasNullCount || f.NullCount != 0 {
		t.Fatalf("parquet facts of a: %v %v", f, ok)
	}
	want, err := exec.Collect(context.Background(), proofPlan(data), exec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRows, _ := want.Rows()
	want.Release()
	for _, src := range []plan.Source{data, data.WithStatedFacts(million), pq} {
		opt := optimizeProofPlan(t, src)
		got, err := exec.Collect(context.Background(), opt, exec.Options{})
		if err != nil {
			t.Fatalf("%T: %v", src, err)
		}
		rows, _ := got.Rows()
		got.Release()
		if len(rows) != len(wantRows) {
			t.Fatalf("%T: %d rows, want %d", src, len(rows), len(wantRows))
		}
		for i := range rows {
			for j := range rows[i] {
				if !rows[i][j].Identical(wantRows[i][j]) {
					t.Errorf("%T: row %d column %d: %v, want %v", src, i, j, rows[i][j], wantRows[i][j])
				}
			}
		}
	}
}

// TestParquetFloatFacts: a float column's statistics give its range but
// never prove it free of NaN, so a strict cast to int stays partial.
func TestParquetFloatFacts(t *testing.T) {
	xs := []plan.Value{plan.Float64Value(-0.0), plan.Float64Value(2.5), plan.Float64Value(math.NaN()), plan.NullValue(plan.Float64)}
	tbl, err := plan.NewTable("f", plan.MustSchema(plan.Field{Name: "x", Type: plan.Float64, Nullable: true}), [][]plan.Value{xs})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.parquet")
	writeGroups(t, path, tbl, 2)
	pq, err := parquet.OpenFile("f", path)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := pq.ColumnFacts("x")
	if ok && f.NaNFree {
		t.Fatalf("parquet facts claim no NaN: %v", f)
	}
	if ok && f.HasRange && (f.Min.Float() > 0 || f.Max.Float() < 2.5) {
		t.Fatalf("parquet facts %v do not cover [-0.0, 2.5]", f)
	}
	t.Logf("parquet facts of x: %v (%v)", f, ok)
	p := plan.Scan(pq).Select(plan.Col("x").Cast(plan.Int64).Alias("y")).Node()
	res, err := rules.Optimize(p, rules.DefaultFlags())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plan.Explain(res.Plan), "assumes") {
		t.Fatalf("a cast of a float column that may hold NaN was proven:\n%s", plan.Explain(res.Plan))
	}
}

// TestAssumptionsMeetEveryRow: a false fact written by hand on a scan
// (plan files may state ScanNode.Assumes) fails every collect the same
// way, whatever the plan reads: (a) a column projection pruning drops,
// (b) a column a projected scan leaves out, (c) a row past the max-rows
// hint limit_pushdown gives. The facts are checked against every row the
// source holds, from an in-memory table and from a host source alike, by
// the optimized executor, the unoptimized one and the reference.
func TestAssumptionsMeetEveryRow(t *testing.T) {
	data := rangeTable(t, "host", []int64{1, 2, 100}, []int64{7, 8, 9})
	rec, err := kernel.TableRecord(memory.DefaultAllocator, data)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	arrowSrc, err := exec.NewArrowSource("host", rec)
	if err != nil {
		t.Fatal(err)
	}
	defer arrowSrc.Release()
	lie := []plan.Assumption{{Column: "a", Min: plan.Int64Value(0), Max: plan.Int64Value(5)}}
	scan := func(src plan.Source, columns ...string) *plan.ScanNode {
		s := plan.Scan(src).Node().(*plan.ScanNode)
		s.Assumes = lie
		if columns != nil {
			s.Projected, s.Columns = true, columns
		}
		return s
	}
	cases := []struct {
		name string
		plan func(src plan.Source) plan.Node
		// optimized is what the optimized plan must show.
		optimized string
	}{
		{"a pruned column", func(src plan.Source) plan.Node {
			return plan.FromNode(scan(src)).Select(plan.Col("b")).Node()
		}, "columns=[b]"},
		{"b unread column", func(src plan.Source) plan.Node { return scan(src, "b") }, "columns=[b]"},
		{"c max-rows hint", func(src plan.Source) plan.Node {
			return plan.FromNode(scan(src)).Head(1).Node()
		}, "max_rows=1"},
	}
	for _, tc := range cases {
		for _, src := range []plan.Source{data, arrowSrc} {
			t.Run(tc.name+" "+reflect.TypeOf(src).String(), func(t *testing.T) {
				res, err := rules.Optimize(tc.plan(src), rules.DefaultFlags())
				if err != nil {
					t.Fatal(err)
				}
				if text := plan.Explain(res.Plan); !strings.Contains(text, tc.optimized) {
					t.Fatalf("the optimized plan does not show %q:\n%s", tc.optimized, text)
				}
				// The reference reads the same rows from the table.
				_, ref := reference.Collect(context.Background(), tc.plan(data), reference.Options{})
				var want *plan.Error
				if !errors.As(ref, &want) || want.Kind != plan.SourceError || want.Row != 2 {
					t.Fatalf("reference: got %v, want a source_error at row 2", ref)
				}
				for way, p := range map[string]plan.Node{"unoptimized": tc.plan(src), "optimized": res.Plan} {
					_, err := exec.Collect(context.Background(), p, exec.Options{})
					var pe *plan.Error
					if !errors.As(err, &pe) || !pe.Same(want) || pe.Row != 2 || !strings.Contains(pe.Error(), "column a") {
						t.Errorf("%s: got %v, want the reference's %v", way, err, want)
					}
				}
			})
		}
	}
}

// TestScanAssumptionIsTheFact: a scan that already assumes something of a
// column (a plan file's hand-written fact) proves with that assumption,
// not with what its source states: the assumption is what every
// evaluation checks, and range_proofs adds no second fact about the
// column. Here the host lies (a in [-10^6, 10^6], a holding 2^62 where
// b = 0) and the scan assumes only a's type range, which holds: a proof
// from the host's facts would move the filter below a * 2 + 1, check
// nothing that fails, and lose the overflow. The optimized plan must
// overflow as the unoptimized one does.
func TestScanAssumptionIsTheFact(t *testing.T) {
	data := rangeTable(t, "host", []int64{5, 1 << 62, -7}, []int64{1, 0, 2})
	rec, err := kernel.TableRecord(memory.DefaultAllocator, data)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	arrowSrc, err := exec.NewArrowSource("host", rec)
	if err != nil {
		t.Fatal(err)
	}
	defer arrowSrc.Release()
	for _, src := range []plan.Source{&lyingSource{ArrowSource: arrowSrc, facts: million}, data.WithStatedFacts(million)} {
		scan := plan.Scan(src).Node().(*plan.ScanNode)
		scan.Assumes = []plan.Assumption{{Column: "a", Min: plan.Int64Value(math.MinInt64), Max: plan.Int64Value(math.MaxInt64)}}
		p := plan.FromNode(scan).
			Select(plan.Col("a").Mul(plan.Lit(2)).Add(plan.Lit(1)).Alias("y"), plan.Col("b")).
			Filter(plan.Col("b").Gt(plan.Lit(0))).Node()
		res, err := rules.Optimize(p, rules.DefaultFlags())
		if err != nil {
			t.Fatal(err)
		}
		if text := plan.Explain(res.Plan); !strings.HasPrefix(text, "filter") {
			t.Errorf("%T: the filter moved below the projection on the source's facts:\n%s", src, text)
		}
		_, err = exec.Collect(context.Background(), res.Plan, exec.Options{})
		var pe *plan.Error
		if !errors.As(err, &pe) || pe.Kind != plan.Overflow {
			t.Errorf("%T: optimized: got %v, want overflow", src, err)
		}
	}
}
