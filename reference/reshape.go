package reference

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// hstack places the inputs side by side (docs/semantics.md, hstack): every
// input must have the first one's height, checked in input order.
func hstack(n *plan.HStackNode, ins []*Result) (*Result, error) {
	for i := 1; i < len(ins); i++ {
		if ins[i].Rows != ins[0].Rows {
			return nil, &plan.Error{Kind: plan.InvalidInput, Row: -1,
				Msg: fmt.Sprintf("hstack: input %d has %d rows, input 0 has %d", i, ins[i].Rows, ins[0].Rows)}
		}
	}
	var cols [][]plan.Value
	for _, in := range ins {
		cols = append(cols, in.Columns...)
	}
	return &Result{Schema: n.Schema(), Rows: ins[0].Rows, Columns: cols}, nil
}

// sortOrder orders two key values as `sort [key]` does: nulls first, then
// the values in sort's order.
func sortOrder(a, b plan.Value) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return -1
	case b.IsNull():
		return 1
	}
	return compareOrdered(a, b)
}

// mergeSorted merges two inputs sorted on the key (docs/semantics.md,
// merge_sorted): the left input's keys are checked row after row, then the
// right's; then two cursors walk the inputs, the right row going first only
// when its key orders strictly before the left one's.
func mergeSorted(n *plan.MergeSortedNode, left, right *Result) (*Result, error) {
	ki := n.Left.Schema().Index(n.Key)
	if ki < 0 || ki >= len(left.Columns) || ki >= len(right.Columns) {
		return nil, fmt.Errorf("%w: merge_sorted: no key column %q", ErrInternal, n.Key)
	}
	name := plan.QuoteName(n.Key)
	for _, side := range []struct {
		name string
		in   *Result
	}{{"left", left}, {"right", right}} {
		keys := side.in.Columns[ki]
		for r := 1; r < side.in.Rows; r++ {
			if sortOrder(keys[r-1], keys[r]) > 0 {
				return nil, &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
					Msg: fmt.Sprintf("merge_sorted: %s input is not sorted on %s: row %d (%s = %s) follows row %d (%s = %s)",
						side.name, name, r, name, keys[r], r-1, name, keys[r-1])}
			}
		}
	}
	s := n.Schema()
	cols := make([][]plan.Value, s.Len())
	for c := range cols {
		cols[c] = make([]plan.Value, 0, left.Rows+right.Rows)
	}
	take := func(in *Result, r int) {
		for c := range cols {
			cols[c] = append(cols[c], in.Columns[c][r])
		}
	}
	i, j := 0, 0
	for i < left.Rows || j < right.Rows {
		if i < left.Rows && (j >= right.Rows || sortOrder(right.Columns[ki][j], left.Columns[ki][i]) >= 0) {
			take(left, i)
			i++
		} else {
			take(right, j)
			j++
		}
	}
	return &Result{Schema: s, Rows: left.Rows + right.Rows, Columns: cols}, nil
}

// unpivot turns the on columns into rows (docs/semantics.md, unpivot):
// for each input row in order, one row per on column in on order, with
// the index values, the column's name and its value.
func unpivot(n *plan.UnpivotNode, in *Result) (*Result, error) {
	s := n.Schema()
	inSchema := n.Input.Schema()
	index := n.IndexColumns()
	cols := make([][]plan.Value, s.Len())
	for r := 0; r < in.Rows; r++ {
		for _, on := range n.On {
			c := 0
			for _, name := range index {
				cols[c] = append(cols[c], in.Columns[inSchema.Index(name)][r])
				c++
			}
			cols[c] = append(cols[c], plan.StringValue(on))
			cols[c+1] = append(cols[c+1], in.Columns[inSchema.Index(on)][r])
		}
	}
	for c := range cols {
		if cols[c] == nil {
			cols[c] = []plan.Value{}
		}
	}
	return &Result{Schema: s, Rows: in.Rows * len(n.On), Columns: cols}, nil
}
