package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
)

// TestCheckParquetPlan: `dfopt check` runs every way over a plan that reads
// a Parquet file (the eager way reads it through arrow-go's reader) and
// finds them agreeing, with the conjunct pushed into the scan.
func TestCheckParquetPlan(t *testing.T) {
	dir := t.TempDir()
	vals := make([]plan.Value, 10)
	fs := make([]plan.Value, 10)
	for i := range vals {
		vals[i] = plan.Int64Value(int64(i))
		fs[i] = plan.Float64Value(float64(i) / 2)
	}
	fs[3] = plan.Float64Value(math.NaN())
	fs[4] = plan.NullValue(plan.Float64)
	tbl, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64}, plan.Field{Name: "f", Type: plan.Float64, Nullable: true}),
		[][]plan.Value{vals, fs})
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteTable(filepath.Join(dir, "t.parquet"), tbl, 3); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plan.json")
	doc := `{"format": "dfopt-plan/1", "tables": {"t": {"parquet": "t.parquet"}},
	  "plan": {"op": "project", "exprs": [{"col": "f"}],
	    "input": {"op": "filter", "predicates": [{"fn": "ge", "args": [{"col": "k"}, {"lit": 6, "type": "int64"}]}],
	      "input": {"op": "scan", "table": "t"}}},
	  "expect": {"counters": {"pushedFilters": 1}, "error": null}}`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("check", file)
	if code != exitOK || !strings.HasPrefix(out, "ok "+file) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
