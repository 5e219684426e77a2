package eager_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/plan"
)

// Value shorthands.
func i64(v int64) plan.Value      { return plan.Int64Value(v) }
func i32(v int32) plan.Value      { return plan.Int32Value(v) }
func f64(v float64) plan.Value    { return plan.Float64Value(v) }
func str(v string) plan.Value     { return plan.StringValue(v) }
func bl(v bool) plan.Value        { return plan.BoolValue(v) }
func null(t plan.Type) plan.Value { return plan.NullValue(t) }

var (
	nI64 = null(plan.Int64)
	nStr = null(plan.String)
	nF64 = null(plan.Float64)
)

// Expression shorthands.
func col(n string) plan.E { return plan.Col(n) }
func lit(v any) plan.E    { return plan.Lit(v) }

// exprs unwraps fluent expressions.
func exprs(es ...plan.E) []plan.Expr {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = e.Expr()
	}
	return out
}

// NaNs with payloads, and signed zeros, to check that bits pass through.
var (
	nanA    = math.Float64frombits(0x7ff8_0000_dead_beef)
	nanB    = math.Float64frombits(0xfff8_0000_0000_0001)
	negZero = math.Copysign(0, -1)
)

// colSpec is a column of a test table.
type colSpec struct {
	name     string
	typ      plan.Type
	nullable bool
	vals     []plan.Value
}

// cl is a nullable column; nn a non-nullable one.
func cl(name string, t plan.Type, vals ...plan.Value) colSpec {
	return colSpec{name: name, typ: t, nullable: true, vals: vals}
}

func nn(name string, t plan.Type, vals ...plan.Value) colSpec {
	return colSpec{name: name, typ: t, vals: vals}
}

// table builds an in-memory plan table.
func table(name string, cols ...colSpec) *plan.Table {
	fields := make([]plan.Field, len(cols))
	data := make([][]plan.Value, len(cols))
	for i, c := range cols {
		fields[i] = plan.Field{Name: c.name, Type: c.typ, Nullable: c.nullable}
		data[i] = c.vals
	}
	t, err := plan.NewTable(name, plan.MustSchema(fields...), data)
	if err != nil {
		panic(fmt.Sprintf("test table %s: %v", name, err))
	}
	return t
}

// row is one expected row.
func row(vals ...plan.Value) []plan.Value { return vals }

// rowsOf reads every row of a frame.
func rowsOf(t testing.TB, df *eager.DataFrame) [][]plan.Value {
	t.Helper()
	rows, err := df.Rows()
	if err != nil {
		t.Fatalf("rows: %v", err)
	}
	return rows
}

// diffRows describes the first difference between two row sets, by bits,
// or returns "".
func diffRows(got, want [][]plan.Value) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d:\n got %s\nwant %s", len(got), len(want), fmtRows(got), fmtRows(want))
	}
	for r := range got {
		if len(got[r]) != len(want[r]) {
			return fmt.Sprintf("row %d has %d values, want %d", r, len(got[r]), len(want[r]))
		}
		for c := range got[r] {
			if !got[r][c].Identical(want[r][c]) {
				return fmt.Sprintf("row %d column %d: got %s (%s), want %s (%s)\n got %s\nwant %s", r, c,
					got[r][c], bits(got[r][c]), want[r][c], bits(want[r][c]), fmtRows(got), fmtRows(want))
			}
		}
	}
	return ""
}

func bits(v plan.Value) string {
	if v.Type() == plan.Float64 && !v.IsNull() {
		return fmt.Sprintf("%#x", math.Float64bits(v.Float()))
	}
	return v.Type().String()
}

func fmtRows(rows [][]plan.Value) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		vs := make([]string, len(r))
		for j, v := range r {
			vs[j] = v.String()
		}
		parts[i] = "(" + strings.Join(vs, ", ") + ")"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checked returns a checked allocator and asserts at cleanup that
// everything allocated from it was released.
func checked(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// wantErr is an expected error: kind and expression text (the identity),
// and optionally the first failing row (row < 0: not checked).
type wantErr struct {
	kind plan.ErrorKind
	expr string
	row  int64
}

func errOf(kind plan.ErrorKind, expr string) *wantErr {
	return &wantErr{kind: kind, expr: expr, row: -1}
}

func errAt(kind plan.ErrorKind, expr string, row int64) *wantErr {
	return &wantErr{kind: kind, expr: expr, row: row}
}

// checkErr reports whether err is the expected error.
func checkErr(t *testing.T, what string, err error, want *wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s `%s`", what, want.kind, want.expr)
	}
	pe, ok := plan.AsError(err)
	if !ok {
		t.Fatalf("%s: error %T %v is not a *plan.Error", what, err, err)
	}
	if pe.Kind != want.kind || pe.Expr != want.expr {
		t.Fatalf("%s: got %s `%s` (%v), want %s `%s`", what, pe.Kind, pe.Expr, err, want.kind, want.expr)
	}
	if want.row >= 0 && pe.Row != want.row {
		t.Fatalf("%s: first failing row %d, want %d (%v)", what, pe.Row, want.row, err)
	}
}

// sameError reports whether two errors are the same error (kind and
// expression).
func sameError(t *testing.T, what string, got, want error) {
	t.Helper()
	g, ok1 := plan.AsError(got)
	w, ok2 := plan.AsError(want)
	if !ok1 || !ok2 {
		t.Fatalf("%s: errors %v / %v are not both *plan.Error", what, got, want)
	}
	if !g.Same(w) {
		t.Fatalf("%s: got %s `%s` (%v), want %s `%s` (%v)", what, g.Kind, g.Expr, got, w.Kind, w.Expr, want)
	}
}

var bg = context.Background()
