package reference

import (
	"github.com/dfopt/dfopt/plan"
)

// unnest (docs/semantics.md, unnest): row by row, each listed struct
// column gives one value per field in field order, null for every field
// when the struct itself is null; every other column is copied as it is.
func unnest(n *plan.UnnestNode, in *Result) (*Result, error) {
	inSchema := n.Input.Schema()
	listed := map[string]bool{}
	for _, c := range n.Columns {
		listed[c] = true
	}
	s := n.Schema()
	cols := make([][]plan.Value, s.Len())
	for c := range cols {
		cols[c] = make([]plan.Value, 0, in.Rows)
	}
	for r := 0; r < in.Rows; r++ {
		out := 0
		for i, f := range inSchema.Fields() {
			v := in.Columns[i][r]
			if !listed[f.Name] {
				cols[out] = append(cols[out], v)
				out++
				continue
			}
			vals := v.Elems()
			for j, sf := range f.Type.StructFields() {
				if v.IsNull() || j >= len(vals) {
					cols[out] = append(cols[out], plan.NullValue(sf.Type))
				} else {
					cols[out] = append(cols[out], vals[j])
				}
				out++
			}
		}
	}
	return &Result{Schema: s, Rows: in.Rows, Columns: cols}, nil
}
