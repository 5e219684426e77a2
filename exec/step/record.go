package step

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// arrowSchemaOf returns the Arrow schema of a resolved node's output.
func (e *Env) arrowSchemaOf(s plan.Schema) (*arrow.Schema, error) {
	as, err := kernel.ArrowSchema(s)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return as, nil
}

// conform checks that cols fit schema s (count, Arrow type, length, no null
// in a non-nullable field) and builds the batch under the Arrow form of s.
// It does not take ownership of cols: the caller releases them.
func (e *Env) conform(s plan.Schema, cols []arrow.Array, rows int64) (arrow.RecordBatch, error) {
	if err := CheckColumns(s, cols, rows); err != nil {
		return nil, e.Internal("%v", err)
	}
	as, err := e.arrowSchemaOf(s)
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(as, cols, rows), nil
}

// CheckColumns reports how cols fail to fit schema s with rows rows — one
// column per field, each of its field's type and rows long, no null in a
// non-nullable field — or nil. Every batch that enters an evaluation (a
// source's, an extension's, a host's record) and every node's output is
// held to it.
func CheckColumns(s plan.Schema, cols []arrow.Array, rows int64) error {
	if len(cols) != s.Len() {
		return fmt.Errorf("%d columns for a schema of %d", len(cols), s.Len())
	}
	for i, c := range cols {
		f := s.Field(i)
		if c == nil {
			return fmt.Errorf("column %q is missing", f.Name)
		}
		t, err := kernel.PlanType(c.DataType())
		if err != nil {
			return fmt.Errorf("column %q: %w", f.Name, err)
		}
		if t != f.Type {
			return fmt.Errorf("column %q is %s, want %s", f.Name, t, f.Type)
		}
		if int64(c.Len()) != rows {
			return fmt.Errorf("column %q has %d rows, want %d", f.Name, c.Len(), rows)
		}
		if !f.Nullable && c.NullN() > 0 {
			return fmt.Errorf("column %q is declared non-nullable but holds %d nulls", f.Name, c.NullN())
		}
	}
	return nil
}

// releaseAll releases every non-nil array.
func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// releaseBatches releases every non-nil batch.
func releaseBatches(recs []arrow.RecordBatch) {
	for _, r := range recs {
		if r != nil {
			r.Release()
		}
	}
}

// ReleaseFrames releases every frame (nil ones included).
func ReleaseFrames(fs []*Frame) {
	for _, f := range fs {
		f.Release()
	}
}
