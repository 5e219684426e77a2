package reference

import (
	"fmt"

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

// explode (docs/semantics.md, explode): every input row is checked first,
// in order: the listed columns' lists must have equal lengths, a null or
// empty list counting as 1. Then each row gives n rows: output row t of
// the row holds element t of each list (null for a null or empty list)
// and the row's other values.
func explode(n *plan.ExplodeNode, in *Result) (*Result, error) {
	inSchema := n.Input.Schema()
	idx := make([]int, len(n.Columns))
	for j, c := range n.Columns {
		idx[j] = inSchema.Index(c)
	}
	length := func(v plan.Value) int {
		if v.IsNull() || len(v.Elems()) == 0 {
			return 1
		}
		return len(v.Elems())
	}
	for r := 0; r < in.Rows; r++ {
		first := length(in.Columns[idx[0]][r])
		for j := 1; j < len(idx); j++ {
			if l := length(in.Columns[idx[j]][r]); l != first {
				return nil, &plan.Error{Kind: plan.InvalidInput, Row: int64(r),
					Msg: fmt.Sprintf("explode: row %d: %s has %d elements, %s has %d", r,
						plan.QuoteName(n.Columns[0]), first, plan.QuoteName(n.Columns[j]), l)}
			}
		}
	}
	s := n.Schema()
	cols := make([][]plan.Value, s.Len())
	for c := range cols {
		cols[c] = []plan.Value{}
	}
	rows := 0
	for r := 0; r < in.Rows; r++ {
		count := length(in.Columns[idx[0]][r])
		for t := 0; t < count; t++ {
			for c, f := range inSchema.Fields() {
				v := in.Columns[c][r]
				if n.Exploded(f.Name) {
					elems := v.Elems()
					if t < len(elems) {
						v = elems[t]
					} else {
						v = plan.NullValue(f.Type.Elem())
					}
				}
				cols[c] = append(cols[c], v)
			}
			rows++
		}
	}
	return &Result{Schema: s, Rows: rows, Columns: cols}, nil
}
