package reference

import (
	"github.com/dfopt/dfopt/plan"
)

// checkAssumes checks the facts a scan's plan relies on (plan.ScanNode's
// Assumes, docs/semantics.md, scan) against every row the reference reads
// from its source, before any pushed conjunct: every non-null value of an
// assumed column that is not NaN lies in [Min, Max] (floats compare by
// IEEE), and no value is NaN when the assumption says so. The first value
// that breaks one, in assumption order then row order, is a source_error
// naming the source. It is written from the document, not from the
// executor's check.
func checkAssumes(n *plan.ScanNode, src *Result) error {
	for _, a := range n.Assumes {
		j := src.Schema.Index(a.Column)
		if j < 0 {
			continue
		}
		for row, v := range src.Columns[j] {
			if v.IsNull() {
				continue
			}
			why := ""
			switch v.Type() {
			case plan.Int32, plan.Int64:
				if v.Int() < a.Min.Int() || v.Int() > a.Max.Int() {
					why = "holds a value outside its stated range"
				}
			case plan.Float64:
				f := v.Float()
				switch {
				case f != f:
					if a.NaNFree {
						why = "holds NaN"
					}
				case f < a.Min.Float() || f > a.Max.Float():
					why = "holds a value outside its stated range"
				}
			}
			if why != "" {
				return plan.AssumptionError(sourceLabel(n.Source), a, why+" ("+v.String()+")", int64(row))
			}
		}
	}
	return nil
}

// sourceLabel is a source's name, defending against a Name that panics.
func sourceLabel(s plan.Source) (name string) {
	if s == nil {
		return "<no source>"
	}
	defer func() {
		if recover() != nil {
			name = "<source>"
		}
	}()
	return s.Name()
}
