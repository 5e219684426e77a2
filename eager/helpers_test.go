package eager_test

import (
	"context"
	"math"
	"testing"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/plan"
)

// Value and expression shorthands for the tests of this package (the shared
// case table has its own in internal/eagertest).
func i64(v int64) plan.Value      { return plan.Int64Value(v) }
func f64(v float64) plan.Value    { return plan.Float64Value(v) }
func str(v string) plan.Value     { return plan.StringValue(v) }
func null(t plan.Type) plan.Value { return plan.NullValue(t) }
func col(n string) plan.E         { return plan.Col(n) }
func lit(v any) plan.E            { return plan.Lit(v) }

var negZero = math.Copysign(0, -1)

// exprs unwraps fluent expressions.
func exprs(es ...plan.E) []plan.Expr {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = e.Expr()
	}
	return out
}

// rowsOf reads every row of a frame.
func rowsOf(t testing.TB, df *eager.DataFrame) [][]plan.Value {
	t.Helper()
	rows, err := df.Rows()
	if err != nil {
		t.Fatalf("rows: %v", err)
	}
	return rows
}

// mustTable builds an in-memory table.
func mustTable(t testing.TB, name string, fields []plan.Field, cols ...[]plan.Value) *plan.Table {
	t.Helper()
	tb, err := plan.NewTable(name, plan.MustSchema(fields...), cols)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

var bg = context.Background()

// mathNaNPayload is a quiet NaN with a payload.
var mathNaNPayload = math.Float64frombits(0x7ff8_0000_0000_0bad)
