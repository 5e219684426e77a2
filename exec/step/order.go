package step

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// tail keeps the last n rows of in, in input order (docs/semantics.md,
// tail): a slice of the input's rows, sharing its buffers, so the node
// itself allocates nothing per row.
func (e *Env) tail(n *plan.TailNode, in *Frame) *Frame {
	keep := min(max(n.N, 0), int64(in.rows))
	return in.Slice(n.Schema(), int64(in.rows)-keep, keep)
}

// reverse yields in's rows last first (docs/semantics.md, reverse) by
// composing the reversed row order into the columns, no value copied.
func (e *Env) reverse(n *plan.ReverseNode, in *Frame) (*Frame, error) {
	rows := in.rows
	if rows <= 1 {
		return in.Share(n.Schema()), nil
	}
	work := 4 * int64(rows)
	if err := e.reserve(work, "the reverse's row order"); err != nil {
		return nil, err
	}
	idx := make([]int32, rows)
	// The closure cannot panic (indices within idx).
	_ = e.par.For(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			idx[i] = int32(rows - 1 - i)
		}
	})
	e.release(work)
	return e.selectRows(in, n.Schema(), idx)
}

// rowIndex prepends the int64 column numbering in's rows from the node's
// offset (docs/semantics.md, row_index). Row k's number is offset + k
// whichever goroutine writes it, so a parallel fill numbers rows in the
// input's order; a number past the int64 range is an overflow at the first
// such row, raised before anything is allocated.
func (e *Env) rowIndex(n *plan.RowIndexNode, in *Frame) (*Frame, error) {
	rows := in.rows
	if rows > 0 && n.Offset > math.MaxInt64-int64(rows-1) {
		first := math.MaxInt64 - n.Offset + 1
		return nil, &plan.Error{Kind: plan.Overflow, Expr: "row_index", Row: first,
			Msg: fmt.Sprintf("row_index: row %d's number passes the int64 range (offset %d)", first, n.Offset)}
	}
	buf := memory.NewResizableBuffer(e.Mem)
	buf.Resize(8 * rows)
	vals := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	off := n.Offset
	// The closure cannot panic (indices within vals).
	_ = e.par.For(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			vals[i] = off + int64(i)
		}
	})
	data := array.NewData(arrow.PrimitiveTypes.Int64, rows, []*memory.Buffer{nil, buf}, nil, 0, 0)
	idxCol := array.NewInt64Data(data)
	data.Release()
	buf.Release()
	flat, err := e.flat(in)
	if err != nil {
		idxCol.Release()
		return nil, err
	}
	defer flat.Release()
	cols := make([]fcol, 0, len(flat.cols)+1)
	cols = append(cols, fcol{arr: idxCol})
	for _, c := range flat.cols {
		c.retain()
		cols = append(cols, c)
	}
	return &Frame{schema: n.Schema(), rows: rows, cols: cols}, nil
}
