package step

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
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
// offset (docs/semantics.md, row_index). The column is not written: it is
// held as its first number and length (seqBase), and a reader gets the
// numbers of the rows it reads (seqValue), so numbering a 6-million-row
// input that a join then narrows to a few thousand rows costs those rows.
// A number past the int64 range is an overflow at the first such row,
// raised before anything is built.
func (e *Env) rowIndex(n *plan.RowIndexNode, in *Frame) (*Frame, error) {
	rows := in.rows
	if rows > 0 && n.Offset > math.MaxInt64-int64(rows-1) {
		first := math.MaxInt64 - n.Offset + 1
		return nil, &plan.Error{Kind: plan.Overflow, Expr: "row_index", Row: first,
			Msg: fmt.Sprintf("row_index: row %d's number passes the int64 range (offset %d)", first, n.Offset)}
	}
	flat, err := e.flat(in)
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	cols := make([]fcol, 0, len(flat.cols)+1)
	cols = append(cols, fcol{seq: &seqBase{off: n.Offset, n: rows}})
	for _, c := range flat.cols {
		c.retain()
		cols = append(cols, c)
	}
	return &Frame{schema: n.Schema(), rows: rows, cols: cols}, nil
}

// seqValue materializes a row_index column in its rows: row i is off+i of
// a compact one, off+idx[i] of a gathered one (null where idx[i] is -1).
func (e *Env) seqValue(col fcol) (arrow.Array, error) {
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	rows := col.seq.n
	var idx []int32
	if col.idx != nil {
		idx = col.idx.rows
		rows = len(idx)
	}
	nulls := 0
	for _, r := range idx {
		if r < 0 {
			nulls++
		}
	}
	if e.budget != nil {
		need := 8 * int64(rows)
		if nulls > 0 {
			need += int64(bitutil.BytesForBits(int64(rows)))
		}
		if err := e.budget.Fits(need, "a gathered column"); err != nil {
			return nil, e.exhausted(err)
		}
	}
	buf := memory.NewResizableBuffer(e.Mem)
	buf.Resize(8 * rows)
	vals := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	off := col.seq.off
	// The closures cannot panic (indices within vals and idx).
	if idx == nil {
		_ = e.par.For(rows, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				vals[i] = off + int64(i)
			}
		})
	} else {
		_ = e.par.For(rows, func(lo, hi int) {
			for i, r := range idx[lo:hi] {
				vals[lo+i] = off + int64(max(r, 0))
			}
		})
	}
	var valid *memory.Buffer
	if nulls > 0 {
		valid = memory.NewResizableBuffer(e.Mem)
		valid.Resize(int(bitutil.BytesForBits(int64(rows))))
		bits := valid.Bytes()
		for i, r := range idx {
			bitutil.SetBitTo(bits, i, r >= 0)
		}
	}
	data := array.NewData(arrow.PrimitiveTypes.Int64, rows, []*memory.Buffer{valid, buf}, nil, nulls, 0)
	out := array.NewInt64Data(data)
	data.Release()
	buf.Release()
	if valid != nil {
		valid.Release()
	}
	return out, nil
}
