package step

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// CheckAssumptions checks the facts a scan's plan relies on
// (plan.ScanNode.Assumes, written by the optimizer's range proofs) that the
// evaluation must check (checks, from Checks: those no computed fact
// implies) against rec, rows its source yielded, whose columns are those
// of read: the driver reads every checked column (ReadColumns) and every
// row (ReadsEveryRow), whether or not the plan uses them, so that a false
// fact fails the collect whatever the plan reads. The first value that
// breaks one, in assumption order then row order, is a source_error naming
// the source, the column, the fact and the value (plan.AssumptionError): a
// source that states wrong facts fails the collect instead of making the
// answer wrong. The check is one branch-free pass over each checked column
// (anyOutside), comparisons only; only a column that fails it is searched
// for its first offending row.
func CheckAssumptions(n *plan.ScanNode, checks []plan.Assumption, read plan.Schema, rec arrow.RecordBatch) error {
	if len(checks) == 0 {
		return nil
	}
	name := SourceLabel(n.Source)
	for _, a := range checks {
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
		if lo <= hi && !anyOutside(vals, lo, hi) {
			return -1, "" // the common case: one branch-free pass
		}
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
		if lo <= hi && !anyOutside32(vals, int32(lo), int32(hi)) {
			return -1, ""
		}
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
		if lo <= hi && !anyOutsideFloat(vals, lo, hi) {
			return -1, ""
		}
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

// anyOutside32 is anyOutside for int32 values.
func anyOutside32(vals []int32, lo, hi int32) bool {
	ulo := uint32(lo)
	var m0, m1, m2, m3 uint32
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		m0 = max(m0, uint32(vals[i])-ulo)
		m1 = max(m1, uint32(vals[i+1])-ulo)
		m2 = max(m2, uint32(vals[i+2])-ulo)
		m3 = max(m3, uint32(vals[i+3])-ulo)
	}
	for ; i < len(vals); i++ {
		m0 = max(m0, uint32(vals[i])-ulo)
	}
	return max(m0, m1, m2, m3) > uint32(hi-lo)
}

// anyOutsideFloat reports whether some value (null slots included) lies
// outside [lo, hi] or is NaN: the running minimum and maximum decide, and
// a NaN (which they propagate) sends the caller to its row-by-row search,
// which knows whether the assumption forbids NaN.
func anyOutsideFloat(vals []float64, lo, hi float64) bool {
	if len(vals) == 0 {
		return false
	}
	mn, mx := vals[0], vals[0]
	for _, v := range vals {
		mn, mx = min(mn, v), max(mx, v)
	}
	// A NaN makes both NaN, and NaN compares false.
	return !(mn >= lo && mx <= hi)
}
