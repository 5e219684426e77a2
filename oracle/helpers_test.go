package oracle

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// testTable builds the table t(a int64, b int64, f float64, s string):
//
//	a   b  f     s
//	1   1  0.0   "x"
//	2   0  -0.0  ""
//	3   2  NaN   null
//	-4  1  Inf   "y"
func testTable(t *testing.T) *plan.Table {
	t.Helper()
	schema := plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "f", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "s", Type: plan.String, Nullable: true},
	)
	i := plan.Int64Value
	fl := plan.Float64Value
	str := plan.StringValue
	tab, err := plan.NewTable("t", schema, [][]plan.Value{
		{i(1), i(2), i(3), i(-4)},
		{i(1), i(0), i(2), i(1)},
		{fl(0), fl(math.Copysign(0, -1)), fl(math.NaN()), fl(math.Inf(1))},
		{str("x"), str(""), plan.NullValue(plan.String), str("y")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// fakeExecutor wraps exec and tampers with the outcome of one call (calls
// count from 1: Check collects the optimized way first, then the
// unoptimized one).
type fakeExecutor struct {
	call   int
	target int
	tamper func(o *Outcome, err error) (Outcome, error)
}

func (f *fakeExecutor) Name() string { return "fake" }

func (f *fakeExecutor) Collect(ctx context.Context, root plan.Node) (Outcome, error) {
	f.call++
	o, err := ExecExecutor{}.Collect(ctx, root)
	if f.call == f.target || f.target == 0 {
		return f.tamper(&o, err)
	}
	return o, err
}

// setCell returns a tamper function that replaces one cell.
func setCell(col, row int, v plan.Value) func(*Outcome, error) (Outcome, error) {
	return func(o *Outcome, err error) (Outcome, error) {
		if err != nil {
			return *o, err
		}
		cols := make([][]plan.Value, len(o.Columns))
		for c := range cols {
			cols[c] = append([]plan.Value(nil), o.Columns[c]...)
		}
		cols[col][row] = v
		o.Columns = cols
		return *o, nil
	}
}

var errNotPlan = errors.New("not a plan error")
