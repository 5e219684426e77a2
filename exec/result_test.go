package exec

import (
	"context"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func resultTable(t *testing.T) *plan.Table {
	return mustTable(t, "fmt", []plan.Field{{Name: "i", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}, {Name: "b", Type: plan.Bool}},
		ints(1, nil, -300, 4), floats(0.1, math.Inf(1), negZero, nanA), strs("plain", "with, comma", `"q"`, nil),
		[]plan.Value{plan.BoolValue(true), plan.BoolValue(false), plan.BoolValue(true), plan.BoolValue(false)})
}

func TestResultAccess(t *testing.T) {
	res, err := Collect(context.Background(), plan.Scan(resultTable(t)).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	row, err := res.Row(2)
	if err != nil {
		t.Fatal(err)
	}
	if !sameValues(row, []plan.Value{plan.Int64Value(-300), plan.Float64Value(negZero), plan.StringValue(`"q"`), plan.BoolValue(true)}) {
		t.Errorf("row 2 = %v", row)
	}
	if _, err := res.Value(9, 0); err == nil {
		t.Error("Value outside the result succeeded")
	}
	rows, err := res.Rows()
	if err != nil || len(rows) != 4 {
		t.Errorf("Rows: %d rows, %v", len(rows), err)
	}
}

// A released result has lost its rows: every accessor says so instead of
// answering as if the result were empty.
func TestResultReleased(t *testing.T) {
	res, err := Collect(context.Background(), plan.Scan(resultTable(t)).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	res.Release()
	if rows, err := res.Rows(); err == nil {
		t.Errorf("Rows after Release = %v, nil error; want an error", rows)
	}
	if _, err := res.Row(0); err == nil {
		t.Error("Row after Release succeeded")
	}
	if _, err := res.Columns(); err == nil {
		t.Error("Columns after Release succeeded")
	}
	var none *Result
	if _, err := none.Rows(); err == nil {
		t.Error("Rows of a nil result succeeded")
	}
	res.Release() // a second Release is harmless
}
