package parquet

import (
	"context"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/internal/exectest"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// The helpers shared with package exec's tests (exec/internal/exectest).
var (
	checked         = exectest.Checked
	mustTable       = exectest.MustTable
	ints            = exectest.Ints
	floats          = exectest.Floats
	strs            = exectest.Strs
	readAll         = exectest.ReadAll
	sameValues      = exectest.SameValues
	render          = exectest.Render
	tieTable        = exectest.TieTable
	hinted          = exectest.Hinted
	pushedScan      = exectest.PushedScan
	writeParquetRaw = exectest.WriteParquetRaw
	c               = plan.Col
	lt              = plan.Lit
)

// col is an expected output column.
type col struct {
	name string
	vals []plan.Value
}

// want describes an expected outcome of a collect: columns (and no memo
// hit), or an error of kind errKind (naming errExpr unless it is empty).
type want struct {
	cols    []col
	errKind plan.ErrorKind
	errExpr string
}

// check collects n with a checked allocator and compares the outcome,
// sequentially and in 8-row partitions over 3 goroutines; a failure must
// be the same row of the same node both ways.
func check(t *testing.T, n plan.Node, w want) {
	t.Helper()
	seq := checkWith(t, n, w, exec.Options{Parallelism: 1})
	par := checkWith(t, n, w, exec.Options{Parallelism: 3, PartitionRows: 1})
	if s, ok := plan.AsError(seq); ok {
		if p, _ := plan.AsError(par); p == nil || p.Row != s.Row || p.Node != s.Node {
			t.Fatalf("parallel error %v, sequential %v", par, seq)
		}
	}
}

// checkWith is check under the given options (its Mem is replaced); it
// returns the collect's error.
func checkWith(t *testing.T, n plan.Node, w want, opts exec.Options) error {
	t.Helper()
	opts.Mem = checked(t)
	res, err := exec.Collect(context.Background(), n, opts)
	if w.errKind != "" {
		if err == nil {
			res.Release()
			t.Fatalf("collect succeeded, want a %s error", w.errKind)
		}
		pe, ok := plan.AsError(err)
		if !ok {
			t.Fatalf("error %v (%T) is not a *plan.Error", err, err)
		}
		if pe.Kind != w.errKind || (w.errExpr != "" && pe.Expr != w.errExpr) {
			t.Fatalf("error %v: kind %s expr %q, want %s %q", err, pe.Kind, pe.Expr, w.errKind, w.errExpr)
		}
		return err
	}
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	defer res.Release()
	compare(t, res, w.cols)
	if res.MemoHits != 0 {
		t.Errorf("memo hits = %d, want 0", res.MemoHits)
	}
	return nil
}

// compare checks names and values bit for bit, and that the Arrow schema
// of the record is the plan schema.
func compare(t *testing.T, res *exec.Result, cols []col) {
	t.Helper()
	var wantNames []string
	for _, c := range cols {
		wantNames = append(wantNames, c.name)
	}
	if names := res.Schema.Names(); strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Fatalf("columns %v, want %v", names, wantNames)
	}
	as, err := kernel.ArrowSchema(res.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Record.Schema().Equal(as) {
		t.Fatalf("record schema %s, want %s", res.Record.Schema(), as)
	}
	got, err := res.Columns()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cols {
		if !sameValues(got[i], c.vals) {
			t.Errorf("column %s = %s, want %s", c.name, render(got[i]), render(c.vals))
		}
	}
}

// collectColumns collects n and returns its columns.
func collectColumns(t *testing.T, n plan.Node, opts exec.Options) [][]plan.Value {
	t.Helper()
	opts.Mem = checked(t)
	res, err := exec.Collect(context.Background(), n, opts)
	if err != nil {
		t.Fatalf("collect %s: %v", plan.Explain(n), err)
	}
	defer res.Release()
	cols, err := res.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return cols
}
