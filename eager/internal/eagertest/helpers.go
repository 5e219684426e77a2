// Package eagertest holds the table of plan cases the eager package's tests
// and the executor cross-check (internal/execcheck) share, with the helpers
// that compare outcomes bit for bit. It is test support: nothing outside
// eager's tests imports it.
package eagertest

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// Value shorthands.
func i64(v int64) plan.Value      { return plan.Int64Value(v) }
func i32(v int32) plan.Value      { return plan.Int32Value(v) }
func f64(v float64) plan.Value    { return plan.Float64Value(v) }
func str(v string) plan.Value     { return plan.StringValue(v) }
func null(t plan.Type) plan.Value { return plan.NullValue(t) }
func nullI32() plan.Value         { return null(plan.Int32) }

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

// NaNs with payloads (one with the sign bit set) and the negative zero, to
// check that bits pass through.
var (
	nanA    = math.Float64frombits(0x7ff8_0000_dead_beef)
	nanB    = math.Float64frombits(0xfff8_0000_0000_0001)
	negZero = math.Copysign(0, -1)
)

var errBad = errors.New("bad output schema")

var udfs = plan.BuiltinUDFs()

// UDF calls a built-in UDF (plan.BuiltinUDFs) by name.
func UDF(name string, args ...plan.E) plan.E {
	u, ok := udfs.Lookup(name)
	if !ok {
		panic("no udf " + name)
	}
	return plan.CallUDF(u, args...)
}

func ndSeq(e plan.E) plan.E { return UDF("nd_seq", e) }

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

// table builds an in-memory plan table; the tables are fixed, so a failure
// is a bug in this file.
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

// gs is a one-column result of int64 values.
func gs(vals ...int64) [][]plan.Value {
	out := make([][]plan.Value, len(vals))
	for i, v := range vals {
		out[i] = row(i64(v))
	}
	return out
}

// scan starts a plan over a table.
func scan(t *plan.Table) plan.Frame { return plan.Scan(t) }

// DiffRows describes the first difference between two row sets, comparing
// values bitwise (plan.Value.Identical), or returns "".
func DiffRows(got, want [][]plan.Value) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d:\n got %s\nwant %s", len(got), len(want), FormatRows(got), FormatRows(want))
	}
	for r := range got {
		if len(got[r]) != len(want[r]) {
			return fmt.Sprintf("row %d has %d values, want %d", r, len(got[r]), len(want[r]))
		}
		for c := range got[r] {
			if !got[r][c].Identical(want[r][c]) {
				return fmt.Sprintf("row %d column %d: got %s (%s), want %s (%s)\n got %s\nwant %s", r, c,
					got[r][c], bits(got[r][c]), want[r][c], bits(want[r][c]), FormatRows(got), FormatRows(want))
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

// FormatRows renders rows for failure messages.
func FormatRows(rows [][]plan.Value) string {
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

// Checked returns a checked allocator and asserts at cleanup that
// everything allocated from it was released.
func Checked(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// WantErr is an expected error: kind and expression text (the identity),
// and the first failing row when Row >= 0.
type WantErr struct {
	Kind plan.ErrorKind
	Expr string
	Row  int64
}

func errOf(kind plan.ErrorKind, expr string) *WantErr {
	return &WantErr{Kind: kind, Expr: expr, Row: -1}
}

func errAt(kind plan.ErrorKind, expr string, row int64) *WantErr {
	return &WantErr{Kind: kind, Expr: expr, Row: row}
}

// CheckErr fails t unless err is the expected error.
func CheckErr(t testing.TB, what string, err error, want *WantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s `%s`", what, want.Kind, want.Expr)
	}
	pe, ok := plan.AsError(err)
	if !ok {
		t.Fatalf("%s: error %T %v is not a *plan.Error", what, err, err)
	}
	if pe.Kind != want.Kind || pe.Expr != want.Expr {
		t.Fatalf("%s: got %s `%s` (%v), want %s `%s`", what, pe.Kind, pe.Expr, err, want.Kind, want.Expr)
	}
	if want.Row >= 0 && pe.Row != want.Row {
		t.Fatalf("%s: first failing row %d, want %d (%v)", what, pe.Row, want.Row, err)
	}
}

// SameError fails t unless both errors are *plan.Error values with equal
// kind and expression.
func SameError(t testing.TB, what string, got, want error) {
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
