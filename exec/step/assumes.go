package step

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// CheckAssumptions checks the facts a scan's plan relies on
// (plan.ScanNode.Assumes, written by the optimizer's range proofs) against
// rec, rows its source yielded, whose columns are those of read: the
// driver reads every assumed column (ReadColumns) and every row
// (ReadsEveryRow), whether or not the plan uses them, so that a false fact
// fails the collect whatever the plan reads. The first value that breaks one, in assumption order
// then row order, is a source_error naming the source, the column, the
// fact and the value (plan.AssumptionError): a source that states wrong
// facts fails the collect instead of making the answer wrong. The check is
// one pass over each assumed column, comparisons only.
func CheckAssumptions(n *plan.ScanNode, read plan.Schema, rec arrow.RecordBatch) error {
	if len(n.Assumes) == 0 {
		return nil
	}
	name := SourceLabel(n.Source)
	for _, a := range n.Assumes {
		i := read.Index(a.Column)
		if i < 0 || i >= int(rec.NumCols()) {
			continue
		}
		row, why := violation(a, rec.Column(i))
		if why != "" {
			return plan.AssumptionError(name, a, why, row)
		}
	}
	return nil
}

// violation returns the first row of col that breaks a, and why.
func violation(a plan.Assumption, col arrow.Array) (int64, string) {
	switch c := col.(type) {
	case *array.Int64:
		if a.Min.Type() != plan.Int64 {
			return -1, ""
		}
		lo, hi := a.Min.Int(), a.Max.Int()
		vals := c.Int64Values()
		for r, v := range vals {
			if (v < lo || v > hi) && c.IsValid(r) {
				return int64(r), a.Violation(plan.Int64Value(v))
			}
		}
	case *array.Int32:
		if a.Min.Type() != plan.Int32 {
			return -1, ""
		}
		lo, hi := a.Min.Int(), a.Max.Int()
		vals := c.Int32Values()
		for r, v := range vals {
			if (int64(v) < lo || int64(v) > hi) && c.IsValid(r) {
				return int64(r), a.Violation(plan.Int32Value(v))
			}
		}
	case *array.Float64:
		if a.Min.Type() != plan.Float64 {
			return -1, ""
		}
		lo, hi := a.Min.Float(), a.Max.Float()
		vals := c.Float64Values()
		for r, v := range vals {
			// v != v is NaN: outside no range, but not NaN-free.
			bad := v < lo || v > hi || (v != v && a.NaNFree)
			if bad && c.IsValid(r) {
				return int64(r), a.Violation(plan.Float64Value(v))
			}
		}
	}
	return -1, ""
}
