package step

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// The readers of a result's cells as plan values (floats keep their bits),
// behind exec.Result and eager.DataFrame alike. They box every cell, so
// they are meant for small results: JSON output, tests, the oracle.

// Cell reads the cell at column col, row row of rec.
func Cell(rec arrow.RecordBatch, col, row int) (plan.Value, error) {
	if col < 0 || col >= int(rec.NumCols()) || row < 0 || row >= int(rec.NumRows()) {
		return plan.Value{}, fmt.Errorf("cell (%d, %d) outside %d columns x %d rows", col, row, rec.NumCols(), rec.NumRows())
	}
	v, err := kernel.ValueAt(rec.Column(col), row)
	if err != nil {
		return plan.Value{}, fmt.Errorf("column %d row %d: %w", col, row, err)
	}
	return v, nil
}

// Row reads one row of rec, in column order.
func Row(rec arrow.RecordBatch, row int) ([]plan.Value, error) {
	out := make([]plan.Value, rec.NumCols())
	for c := range out {
		v, err := Cell(rec, c, row)
		if err != nil {
			return nil, err
		}
		out[c] = v
	}
	return out, nil
}

// Rows reads every row of rec.
func Rows(rec arrow.RecordBatch) ([][]plan.Value, error) {
	out := make([][]plan.Value, rec.NumRows())
	for r := range out {
		row, err := Row(rec, r)
		if err != nil {
			return nil, err
		}
		out[r] = row
	}
	return out, nil
}

// Columns reads every column of rec, column by column.
func Columns(rec arrow.RecordBatch) ([][]plan.Value, error) {
	out := make([][]plan.Value, rec.NumCols())
	for c := range out {
		col := make([]plan.Value, rec.NumRows())
		for r := range col {
			v, err := Cell(rec, c, r)
			if err != nil {
				return nil, err
			}
			col[r] = v
		}
		out[c] = col
	}
	return out, nil
}
