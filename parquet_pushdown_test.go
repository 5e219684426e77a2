package dfopt_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// TestParquetPushdownEndToEnd: the optimizer offers a filter's conjuncts to
// a Parquet source, which classifies the column-literal comparisons Inexact
// (cell pp.scan) and prunes row groups by their statistics; the optimized
// plan reads fewer row groups and fewer columns and returns bit for bit the
// rows the unoptimized plan returns.
func TestParquetPushdownEndToEnd(t *testing.T) {
	const n, group = 4000, 500 // 8 row groups, id ascending
	id, x, s := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for i := 0; i < n; i++ {
		id[i] = plan.Int64Value(int64(i))
		switch {
		case i%13 == 0:
			x[i] = plan.NullValue(plan.Float64)
		case i%7 == 0:
			x[i] = plan.Float64Value(math.NaN())
		default:
			x[i] = plan.Float64Value(float64(i) / 4)
		}
		s[i] = plan.StringValue(string(rune('a' + i%5)))
	}
	tbl, err := plan.NewTable("events", plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64},
		plan.Field{Name: "x", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "s", Type: plan.String, Nullable: true}), [][]plan.Value{id, x, s})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "events.parquet")
	writeGroups(t, path, tbl, group)
	src, err := dfparquet.OpenFile("events", path)
	if err != nil {
		t.Fatal(err)
	}

	// id >= 3100 holds in the last two row groups of eight. (One conjunct:
	// in the bounded tier a comparison counts as partial, so an Inexact
	// conjunct is pushed only when no other conjunct of its filter stays
	// above to meet fewer rows — cell pp.split.)
	p := plan.Scan(src).
		Filter(plan.Col("id").Ge(plan.Lit(3100))).
		Select(plan.Col("id"), plan.Col("x")).Node()
	res, err := rules.Optimize(p, rules.DefaultFlags())
	if err != nil {
		t.Fatal(err)
	}
	var scan *plan.ScanNode
	plan.WalkNodes(res.Plan, func(n plan.Node) bool {
		if sc, ok := n.(*plan.ScanNode); ok {
			scan = sc
		}
		return true
	})
	if len(scan.Pushed) != 1 || scan.Pushed[0].Support != plan.Inexact {
		t.Fatalf("the source did not take the conjuncts as Inexact:\n%s", plan.Explain(res.Plan))
	}
	if !scan.Projected || len(scan.Columns) != 2 || res.Counters.Get("scanProjections") != 1 {
		t.Fatalf("the scan was not narrowed to [id x]:\n%s", plan.Explain(res.Plan))
	}

	collect := func(root plan.Node) ([][]plan.Value, int64) {
		before := src.Stats().RowGroupsRead
		r, err := exec.Collect(context.Background(), root, exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		cols, err := r.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return cols, src.Stats().RowGroupsRead - before
	}
	want, wantGroups := collect(p)
	got, gotGroups := collect(res.Plan)
	if wantGroups != n/group || gotGroups != 2 {
		t.Errorf("row groups read: unoptimized %d (want %d), optimized %d (want 2)", wantGroups, n/group, gotGroups)
	}
	if len(got) != len(want) || len(got[0]) != len(want[0]) || len(want[0]) == 0 {
		t.Fatalf("shapes differ: %d x %d vs %d x %d", len(got), len(got[0]), len(want), len(want[0]))
	}
	for c := range want {
		for r := range want[c] {
			if !got[c][r].Identical(want[c][r]) {
				t.Fatalf("column %d row %d: optimized %v, unoptimized %v", c, r, got[c][r], want[c][r])
			}
		}
	}
	t.Logf("%d rows; row groups read: %d unoptimized, %d optimized", len(want[0]), wantGroups, gotGroups)
}

// writeGroups writes tbl to a Parquet file with row groups of the given
// size and statistics on.
func writeGroups(t *testing.T, path string, tbl *plan.Table, group int64) {
	t.Helper()
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(group), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dfparquet.AddPageChecksums(path); err != nil {
		t.Fatal(err)
	}
}
