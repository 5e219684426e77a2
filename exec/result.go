package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// Result is the outcome of a successful collect.
type Result struct {
	// Record holds the rows, in one batch whose Arrow schema is
	// kernel.ArrowSchema(Schema): same names, types and nullability.
	Record arrow.RecordBatch
	// Schema is the resolved schema of the plan's root.
	Schema plan.Schema
	// MemoHits counts the subtree results the memo served (see the package
	// documentation for the exact rule).
	MemoHits int
}

// Release frees the result's buffers; the Result must not be used after.
func (r *Result) Release() {
	if r != nil && r.Record != nil {
		r.Record.Release()
		r.Record = nil
	}
}

// NumRows returns the number of rows.
func (r *Result) NumRows() int {
	if r == nil || r.Record == nil {
		return 0
	}
	return int(r.Record.NumRows())
}

// Value returns the cell at column col, row row as a plan value (floats keep
// their bits).
func (r *Result) Value(col, row int) (plan.Value, error) {
	if r == nil || r.Record == nil {
		return plan.Value{}, fmt.Errorf("result: released or empty")
	}
	if col < 0 || col >= int(r.Record.NumCols()) || row < 0 || row >= int(r.Record.NumRows()) {
		return plan.Value{}, fmt.Errorf("result: cell (%d, %d) outside %d columns x %d rows", col, row, r.Record.NumCols(), r.Record.NumRows())
	}
	return kernel.ValueAt(r.Record.Column(col), row)
}

// Row returns one row as plan values, in column order.
func (r *Result) Row(row int) ([]plan.Value, error) {
	if r == nil || r.Record == nil {
		return nil, fmt.Errorf("result: released or empty")
	}
	out := make([]plan.Value, r.Record.NumCols())
	for c := range out {
		v, err := r.Value(c, row)
		if err != nil {
			return nil, err
		}
		out[c] = v
	}
	return out, nil
}

// Rows returns every row as plan values (for JSON output and tests; it
// boxes every cell, so it is meant for small results).
func (r *Result) Rows() ([][]plan.Value, error) {
	out := make([][]plan.Value, r.NumRows())
	for i := range out {
		row, err := r.Row(i)
		if err != nil {
			return nil, err
		}
		out[i] = row
	}
	return out, nil
}

// Columns returns every column as plan values.
func (r *Result) Columns() ([][]plan.Value, error) {
	if r == nil || r.Record == nil {
		return nil, fmt.Errorf("result: released or empty")
	}
	out := make([][]plan.Value, r.Record.NumCols())
	for c := range out {
		col := make([]plan.Value, r.Record.NumRows())
		for i := range col {
			v, err := kernel.ValueAt(r.Record.Column(c), i)
			if err != nil {
				return nil, err
			}
			col[i] = v
		}
		out[c] = col
	}
	return out, nil
}
