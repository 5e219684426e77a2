package exec

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/internal/exectest"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// checked returns a checked allocator that the test asserts is back at
// zero when it ends (exectest.Checked).
var checked = exectest.Checked

// releaseAll releases every non-nil array.
func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// col is an expected output column.
type col struct {
	name string
	vals []plan.Value
}

// want describes an expected outcome: columns, or an error.
type want struct {
	cols    []col
	errKind plan.ErrorKind
	errExpr string // checked when errKind is set and errExpr != ""
	hits    int
}

// forcedParallel splits every node of more than 8 rows into 8-row
// partitions over 3 goroutines.
var forcedParallel = Options{Parallelism: 3, PartitionRows: 1}

// check collects n with a checked allocator and compares the outcome,
// sequentially and with forcedParallel.
func check(t *testing.T, n plan.Node, w want) {
	t.Helper()
	seq := checkWith(t, n, w, Options{Parallelism: 1})
	par := checkWith(t, n, w, forcedParallel)
	if s, ok := plan.AsError(seq); ok {
		if p, _ := plan.AsError(par); p == nil || p.Row != s.Row || p.Node != s.Node {
			t.Fatalf("parallel error %v, sequential %v", par, seq)
		}
	}
}

// checkWith is check under the given options (its Mem is replaced); it
// returns the collect's error.
func checkWith(t *testing.T, n plan.Node, w want, opts Options) error {
	t.Helper()
	mem := checked(t)
	opts.Mem = mem
	res, err := Collect(context.Background(), n, opts)
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
	if res.MemoHits != w.hits {
		t.Errorf("memo hits = %d, want %d", res.MemoHits, w.hits)
	}
	return nil
}

// compare checks names and values bit for bit, and that the Arrow schema of
// the record is the plan schema.
func compare(t *testing.T, res *Result, cols []col) {
	t.Helper()
	names := res.Schema.Names()
	var wantNames []string
	for _, c := range cols {
		wantNames = append(wantNames, c.name)
	}
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
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

// Helpers shared with exec/parquet's tests (exec/internal/exectest).
var (
	render   = exectest.Render
	tieTable = exectest.TieTable
	hinted   = exectest.Hinted
)

// pick returns vals at the given rows (-1 gives a null of the column type).
func pick(vals []plan.Value, rows ...int) []plan.Value {
	out := make([]plan.Value, len(rows))
	for i, r := range rows {
		if r < 0 {
			out[i] = plan.NullValue(vals[0].Type())
		} else {
			out[i] = vals[r]
		}
	}
	return out
}

func repeat(v plan.Value, n int) []plan.Value {
	out := make([]plan.Value, n)
	for i := range out {
		out[i] = v
	}
	return out
}

var nanA = math.Float64frombits(0x7ff8000000000001) // math.NaN()
var nanB = math.Float64frombits(0x7ff8000000000abc) // another payload
var negZero = math.Copysign(0, -1)
