package exec

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/step"
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
	// Memory describes the collect under Options.MemoryLimit (all zero
	// without a limit).
	Memory MemoryStats
}

// MemoryStats is what a collect under a memory limit held and spilled.
type MemoryStats struct {
	// Peak is the most memory the limit's accounting saw counted at once,
	// in bytes (see Options.MemoryLimit for what it counts).
	Peak int64
	// SpillFiles and SpillBytes count the spill files the collect wrote
	// and their bytes; 0 when nothing spilled.
	SpillFiles int64
	SpillBytes int64
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
	rec, err := r.record()
	if err != nil {
		return plan.Value{}, err
	}
	v, err := step.Cell(rec, col, row)
	if err != nil {
		return plan.Value{}, fmt.Errorf("result: %w", err)
	}
	return v, nil
}

// Row returns one row as plan values, in column order.
func (r *Result) Row(row int) ([]plan.Value, error) {
	rec, err := r.record()
	if err != nil {
		return nil, err
	}
	out, err := step.Row(rec, row)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return out, nil
}

// Rows returns every row as plan values (for printing and tests; it boxes
// every cell, so it is meant for small results). A released result is an
// error, not an empty result: its rows are gone, not absent.
func (r *Result) Rows() ([][]plan.Value, error) {
	rec, err := r.record()
	if err != nil {
		return nil, err
	}
	out, err := step.Rows(rec)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return out, nil
}

// Columns returns every column as plan values.
func (r *Result) Columns() ([][]plan.Value, error) {
	rec, err := r.record()
	if err != nil {
		return nil, err
	}
	out, err := step.Columns(rec)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return out, nil
}

// errReleased is the error of every accessor of a released (or nil)
// result.
var errReleased = errors.New("result: released (Release was called) or nil")

// record is the result's batch, or an error once released.
func (r *Result) record() (arrow.RecordBatch, error) {
	if r == nil || r.Record == nil {
		return nil, errReleased
	}
	return r.Record, nil
}
