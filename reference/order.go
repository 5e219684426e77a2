package reference

import (
	"fmt"
	"math"

	"github.com/dfopt/dfopt/plan"
)

// tail keeps the last n rows, in input order (docs/semantics.md, tail):
// one pass over the rows remembering the positions of the last n seen in a
// ring, then those positions read oldest first.
func tail(n *plan.TailNode, in *Result) *Result {
	keep := int(min(max(n.N, 0), int64(in.Rows)))
	ring := make([]int, keep)
	seen := 0
	for r := 0; r < in.Rows && keep > 0; r++ {
		ring[r%keep] = r
		seen++
	}
	rows := make([]int, 0, keep)
	for i := 0; i < keep; i++ {
		rows = append(rows, ring[(seen+i)%keep])
	}
	return takeRows(n.Schema(), in, rows)
}

// reverse yields the rows last first (docs/semantics.md, reverse).
func reverse(n *plan.ReverseNode, in *Result) *Result {
	rows := make([]int, 0, in.Rows)
	for r := in.Rows - 1; r >= 0; r-- {
		rows = append(rows, r)
	}
	return takeRows(n.Schema(), in, rows)
}

// rowIndex prepends the column numbering the rows offset, offset+1, ...
// (docs/semantics.md, row_index), one row at a time: the first row whose
// number passes the int64 range raises overflow.
func rowIndex(n *plan.RowIndexNode, in *Result) (*Result, error) {
	idx := make([]plan.Value, in.Rows)
	next := n.Offset
	for r := 0; r < in.Rows; r++ {
		if r > 0 {
			if next == math.MaxInt64 {
				return nil, &plan.Error{Kind: plan.Overflow, Expr: "row_index", Row: int64(r),
					Msg: fmt.Sprintf("row_index: row %d's number passes the int64 range (offset %d)", r, n.Offset)}
			}
			next++
		}
		idx[r] = plan.Int64Value(next)
	}
	cols := append([][]plan.Value{idx}, in.Columns...)
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: cols}, nil
}
