package reference_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// Value shorthands.
var (
	i64  = plan.Int64Value
	i32  = plan.Int32Value
	f64  = plan.Float64Value
	str  = plan.StringValue
	bl   = plan.BoolValue
	null = plan.NullValue
)

func bits(b uint64) plan.Value { return plan.Float64Value(math.Float64frombits(b)) }

var (
	negZero = math.Copysign(0, -1)
	inf     = math.Inf(1)
	// sNaN is a signalling NaN with a payload; quieting sets bit 51.
	sNaN     = uint64(0x7ff0000000000abc)
	sNaNq    = uint64(0x7ff8000000000abc)
	negNaN   = uint64(0xfff0000000000def)
	negNaNq  = uint64(0xfff8000000000def)
	goNaN    = math.Float64bits(math.NaN())
	quietNaN = uint64(0x7ff8000000000123)
)

// column is one column of a test table.
type column struct {
	name string
	typ  plan.Type
	vals []plan.Value
}

func c(name string, typ plan.Type, vals ...plan.Value) column {
	return column{name: name, typ: typ, vals: vals}
}

// table builds an inline table (every column nullable).
func table(t testing.TB, name string, cols ...column) *plan.Table {
	t.Helper()
	fields := make([]plan.Field, len(cols))
	data := make([][]plan.Value, len(cols))
	for i, cl := range cols {
		fields[i] = plan.Field{Name: cl.name, Type: cl.typ, Nullable: true}
		data[i] = cl.vals
	}
	tab, err := plan.NewTable(name, plan.MustSchema(fields...), data)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// tcase is one table-driven case: a plan and either the columns it must
// yield or the error (kind and expression text) it must raise.
type tcase struct {
	name string
	plan plan.Node
	// want holds the expected columns (cell by cell, bit for bit); names,
	// when set, the expected column names.
	want  [][]plan.Value
	names []string
	// err and expr are the expected error, when err is set.
	err  plan.ErrorKind
	expr string
	// execBug names the known executor bug (see knownExecBug) that makes
	// exec disagree with this case.
	execBug string
}

// run collects the case's plan with the reference and checks it.
func (tc tcase) run(t *testing.T) {
	t.Helper()
	res, err := reference.Collect(context.Background(), tc.plan, reference.Options{})
	if tc.err != "" {
		pe, ok := plan.AsError(err)
		switch {
		case err == nil:
			t.Fatalf("want %s in `%s`, got success:\n%s", tc.err, tc.expr, showResult(res))
		case !ok:
			t.Fatalf("want %s in `%s`, got a non-plan error %v", tc.err, tc.expr, err)
		case pe.Kind != tc.err || pe.Expr != tc.expr:
			t.Fatalf("want %s in `%s`, got %s in `%s` (%v)", tc.err, tc.expr, pe.Kind, pe.Expr, pe)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if tc.names != nil {
		if got := res.Schema.Names(); strings.Join(got, ",") != strings.Join(tc.names, ",") {
			t.Errorf("columns %v, want %v", got, tc.names)
		}
	}
	if len(res.Columns) != len(tc.want) {
		t.Fatalf("%d columns, want %d:\n%s", len(res.Columns), len(tc.want), showResult(res))
	}
	for i, w := range tc.want {
		got := res.Columns[i]
		if len(got) != len(w) || res.Rows != len(w) {
			t.Fatalf("column %d: %d values (rows %d), want %d:\n%s", i, len(got), res.Rows, len(w), showResult(res))
		}
		for r := range w {
			if !got[r].Identical(w[r]) {
				t.Errorf("column %d (%s) row %d: got %s, want %s", i, res.Schema.Field(i).Name, r, show(got[r]), show(w[r]))
			}
		}
	}
}

func show(v plan.Value) string {
	if !v.IsNull() && v.Type() == plan.Float64 {
		return fmt.Sprintf("%s (0x%016x)", v, math.Float64bits(v.Float()))
	}
	return v.String() + " (" + v.Type().String() + ")"
}

func showResult(r *reference.Result) string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d rows\n", r.Schema, r.Rows)
	for i, cl := range r.Columns {
		parts := make([]string, len(cl))
		for k, v := range cl {
			parts[k] = show(v)
		}
		fmt.Fprintf(&b, "  %s: %s\n", r.Schema.Field(i).Name, strings.Join(parts, ", "))
	}
	return b.String()
}

// runCases runs every case as a subtest.
func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// allCases collects every table of cases, for the comparison with exec.
var allCases []func(testing.TB) []tcase

func register(f func(testing.TB) []tcase) func(testing.TB) []tcase {
	allCases = append(allCases, f)
	return f
}
