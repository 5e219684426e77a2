package exec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// ColumnFacts returns the exact facts of the column named column
// (plan.FactsReporter), computed from the source's data when it was made:
// its null count, and for an int32, int64 or float64 column the range of
// its non-null non-NaN values and whether it holds a NaN — what
// plan.ComputeFacts gives for the same values.
func (s *ArrowSource) ColumnFacts(column string) (plan.ColumnFacts, bool) {
	f, ok := s.facts[column]
	return f, ok
}

// arrowFacts computes the facts of every column of batches (whose schema
// is schema).
func arrowFacts(schema plan.Schema, batches []arrow.RecordBatch) map[string]plan.ColumnFacts {
	out := make(map[string]plan.ColumnFacts, schema.Len())
	for i, field := range schema.Fields() {
		f := plan.ColumnFacts{HasNullCount: true, NaNFree: field.Type == plan.Float64}
		var ilo, ihi int64
		var flo, fhi float64
		ok := true
		for _, b := range batches {
			if i >= int(b.NumCols()) {
				ok = false
				break
			}
			col := b.Column(i)
			f.NullCount += int64(col.NullN())
			switch c := col.(type) {
			case *array.Int64:
				for r, v := range c.Int64Values() {
					if c.IsValid(r) {
						if !f.HasRange || v < ilo {
							ilo = v
						}
						if !f.HasRange || v > ihi {
							ihi = v
						}
						f.HasRange = true
					}
				}
			case *array.Int32:
				for r, v := range c.Int32Values() {
					if c.IsValid(r) {
						if !f.HasRange || int64(v) < ilo {
							ilo = int64(v)
						}
						if !f.HasRange || int64(v) > ihi {
							ihi = int64(v)
						}
						f.HasRange = true
					}
				}
			case *array.Float64:
				for r, v := range c.Float64Values() {
					switch {
					case !c.IsValid(r):
					case math.IsNaN(v):
						f.NaNFree = false
					default:
						if !f.HasRange || v < flo {
							flo = v
						}
						if !f.HasRange || v > fhi {
							fhi = v
						}
						f.HasRange = true
					}
				}
			}
		}
		if !ok {
			continue
		}
		if f.HasRange {
			switch field.Type {
			case plan.Int64:
				f.Min, f.Max = plan.Int64Value(ilo), plan.Int64Value(ihi)
			case plan.Int32:
				f.Min, f.Max = plan.Int32Value(int32(ilo)), plan.Int32Value(int32(ihi))
			case plan.Float64:
				// -0.0 and +0.0 are one bound (IEEE comparison).
				f.Min, f.Max = plan.Float64Value(flo+0), plan.Float64Value(fhi+0)
			}
		}
		out[field.Name] = f
	}
	return out
}
