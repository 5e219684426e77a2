package eager

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// DataFrame is a materialized table: one Arrow record batch and its plan
// schema (names, types and nullability; the record's Arrow schema is
// kernel.ArrowSchema of it). Every operation evaluates at once and returns a
// new frame; none modifies or consumes its receiver. Release it when done.
type DataFrame struct {
	s      *Session
	schema plan.Schema
	rec    arrow.RecordBatch
}

// newFrame builds a frame under schema from cols (borrowed: the frame
// retains them), checking that they fit: one column per field, each of its
// field's type and rows long, no null in a non-nullable field. A misfit is
// a bug of the eager chain (or of a host's data) and an invalid_plan error.
func (s *Session) newFrame(schema plan.Schema, cols []arrow.Array, rows int64) (*DataFrame, error) {
	if err := step.CheckColumns(schema, cols, rows); err != nil {
		return nil, internalError("%v", err)
	}
	as, err := kernel.ArrowSchema(schema)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return &DataFrame{s: s, schema: schema, rec: array.NewRecordBatch(as, cols, rows)}, nil
}

// live reports an error for a nil or released frame, so that no misuse
// panics.
func (df *DataFrame) live() error {
	if df == nil || df.rec == nil || df.s == nil {
		return internalError("use of a nil or released DataFrame")
	}
	return nil
}

// Session returns the evaluation the frame belongs to.
func (df *DataFrame) Session() *Session {
	if df == nil {
		return nil
	}
	return df.s
}

// Schema returns the frame's schema: names, types and nullability, equal
// to what plan.Resolve computes for the equivalent plan.
func (df *DataFrame) Schema() plan.Schema {
	if df == nil {
		return plan.Schema{}
	}
	return df.schema
}

// Record returns the frame's record batch, borrowed: valid until the frame
// is released (Retain it to keep it longer). Nil after Release.
func (df *DataFrame) Record() arrow.RecordBatch {
	if df == nil {
		return nil
	}
	return df.rec
}

// NumRows returns the number of rows (0 for a released frame).
func (df *DataFrame) NumRows() int {
	if df.live() != nil {
		return 0
	}
	return int(df.rec.NumRows())
}

// NumCols returns the number of columns.
func (df *DataFrame) NumCols() int { return df.Schema().Len() }

// Value reads one cell as a plan value (floats keep their bits).
func (df *DataFrame) Value(col, row int) (plan.Value, error) {
	if err := df.live(); err != nil {
		return plan.Value{}, err
	}
	v, err := step.Cell(df.rec, col, row)
	if err != nil {
		return plan.Value{}, fmt.Errorf("eager: %w", err)
	}
	return v, nil
}

// Row reads one row as plan values.
func (df *DataFrame) Row(row int) ([]plan.Value, error) {
	if err := df.live(); err != nil {
		return nil, err
	}
	out, err := step.Row(df.rec, row)
	if err != nil {
		return nil, fmt.Errorf("eager: %w", err)
	}
	return out, nil
}

// Rows reads every row as plan values.
func (df *DataFrame) Rows() ([][]plan.Value, error) {
	if err := df.live(); err != nil {
		return nil, err
	}
	out, err := step.Rows(df.rec)
	if err != nil {
		return nil, fmt.Errorf("eager: %w", err)
	}
	return out, nil
}

// Columns reads every column as plan values, column by column.
func (df *DataFrame) Columns() ([][]plan.Value, error) {
	if err := df.live(); err != nil {
		return nil, err
	}
	out, err := step.Columns(df.rec)
	if err != nil {
		return nil, fmt.Errorf("eager: %w", err)
	}
	return out, nil
}

// Release frees the frame's record. It is safe to call more than once; the
// frame is unusable afterwards (operations on it return an error).
func (df *DataFrame) Release() {
	if df == nil || df.rec == nil {
		return
	}
	df.rec.Release()
	df.rec = nil
}

// String renders the schema and row count, for people.
func (df *DataFrame) String() string {
	if df.live() != nil {
		return "DataFrame<released>"
	}
	return fmt.Sprintf("DataFrame%s (%d rows)", df.schema, df.rec.NumRows())
}
