package kernel

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// Value shorthands for the tables.
func i64(v int64) plan.Value      { return plan.Int64Value(v) }
func i32(v int32) plan.Value      { return plan.Int32Value(v) }
func f64(v float64) plan.Value    { return plan.Float64Value(v) }
func str(v string) plan.Value     { return plan.StringValue(v) }
func bl(v bool) plan.Value        { return plan.BoolValue(v) }
func null(t plan.Type) plan.Value { return plan.NullValue(t) }

// Expression shorthands.
func col(n string) plan.E { return plan.Col(n) }
func lit(v any) plan.E    { return plan.Lit(v) }

// nanPayload is a quiet NaN with a non-default payload, to check that bits
// pass through.
var nanPayload = math.Float64frombits(0x7ff8_0000_dead_beef)

// negNaN is nanPayload with the sign bit set.
var negNaN = math.Float64frombits(0xfff8_0000_dead_beef)

// column is a named column of plan values for building test batches.
type column struct {
	name string
	typ  plan.Type
	vals []plan.Value
}

func colOf(name string, t plan.Type, vals ...plan.Value) column {
	return column{name: name, typ: t, vals: vals}
}

// mkBatch builds a record batch from columns (all the same length).
func mkBatch(t testing.TB, mem memory.Allocator, cols ...column) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	n := -1
	for i, c := range cols {
		dt, err := ArrowType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		fields[i] = arrow.Field{Name: c.name, Type: dt, Nullable: true}
		arrs[i], err = ArrayFromValues(mem, c.typ, c.vals)
		if err != nil {
			t.Fatalf("column %s: %v", c.name, err)
		}
		if n >= 0 && len(c.vals) != n {
			t.Fatalf("column %s has %d rows, want %d", c.name, len(c.vals), n)
		}
		n = len(c.vals)
	}
	if n < 0 {
		n = 0
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// valuesOf reads an array back as plan values.
func valuesOf(t testing.TB, a arrow.Array) []plan.Value {
	t.Helper()
	out := make([]plan.Value, a.Len())
	for i := range out {
		v, err := ValueAt(a, i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// showValues renders values with float bits, for failure messages.
func showValues(vs []plan.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = showValue(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func showValue(v plan.Value) string {
	if v.Type() == plan.Float64 && !v.IsNull() {
		return fmt.Sprintf("%s(0x%016x)", v, math.Float64bits(v.Float()))
	}
	return v.String() + ":" + v.Type().String()
}

// evalValues evaluates e over the batch and returns the values or the error.
func evalValues(t testing.TB, mem memory.Allocator, e plan.Expr, rec arrow.RecordBatch, offset int64) ([]plan.Value, error) {
	t.Helper()
	ev := &Evaluator{Mem: mem}
	out, err := ev.Eval(plan.WithCallCounter(context.Background()), e, rec, offset)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	if out.Len() != int(rec.NumRows()) {
		t.Fatalf("%s: %d rows out of %d", e, out.Len(), rec.NumRows())
	}
	return valuesOf(t, out), nil
}
