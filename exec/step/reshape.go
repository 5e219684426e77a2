package step

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// hstack places its inputs side by side (docs/semantics.md, hstack): the
// heights are checked in input order against the first input's, then the
// output shares every input's columns (no value is copied).
func (e *Env) hstack(n *plan.HStackNode, in []*Frame) (*Frame, error) {
	rows := in[0].rows
	for i, f := range in[1:] {
		if f.rows != rows {
			return nil, &plan.Error{Kind: plan.InvalidInput, Row: -1,
				Msg: fmt.Sprintf("hstack: input %d has %d rows, input 0 has %d", i+1, f.rows, rows)}
		}
	}
	var cols []fcol
	for _, f := range in {
		flat, err := e.flat(f)
		if err != nil {
			for _, c := range cols {
				c.release()
			}
			return nil, err
		}
		for _, c := range flat.cols {
			c.retain()
			cols = append(cols, c)
		}
		flat.Release()
	}
	return &Frame{schema: n.Schema(), rows: rows, cols: cols}, nil
}

// mergeSorted merges two inputs sorted on the key (docs/semantics.md,
// merge_sorted): the keys are verified (left input first, every row in
// order) and merged into a row order over the inputs' concatenation, left
// first on ties, which the output then follows.
func (e *Env) mergeSorted(n *plan.MergeSortedNode, l, r *Frame) (*Frame, error) {
	key := func(f *Frame) (arrow.Array, error) {
		fc, err := e.col(f, n.Key)
		if err != nil {
			return nil, err
		}
		return e.value(fc)
	}
	lk, err := key(l)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	rk, err := key(r)
	if err != nil {
		return nil, err
	}
	defer rk.Release()
	work := 4 * int64(l.rows+r.rows)
	if err := e.reserve(work, "the merge's row order"); err != nil {
		return nil, err
	}
	perm, err := ops.MergeSortedIndices(e.Mem, lk, rk)
	e.release(work)
	if err != nil {
		var u *ops.UnsortedError
		if !errors.As(err, &u) {
			return nil, e.Internal("%v", err)
		}
		side, k := "left", lk
		if u.Right {
			side, k = "right", rk
		}
		prev, _ := kernel.ValueAt(k, u.Row-1)
		cur, _ := kernel.ValueAt(k, u.Row)
		name := plan.QuoteName(n.Key)
		return nil, &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(u.Row),
			Msg: fmt.Sprintf("merge_sorted: %s input is not sorted on %s: row %d (%s = %s) follows row %d (%s = %s)",
				side, name, u.Row, name, cur, u.Row-1, name, prev)}
	}
	as, err := e.arrowSchemaOf(n.Schema())
	if err != nil {
		return nil, err
	}
	recs, err := e.materializeAll([]*Frame{l, r})
	if err != nil {
		return nil, err
	}
	defer releaseBatches(recs)
	all, err := ops.ConcatRecords(e.Mem, as, recs)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	defer all.Release()
	f, err := e.FromRecord(n.Schema(), all)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return e.selectRows(f, n.Schema(), perm)
}

// unpivot turns the on columns into rows, row-major (docs/semantics.md,
// unpivot): output row i*k + j is input row i and on column j. The index
// columns are gathered (row i*k + j reads row i), the variable column
// repeats the on names, and the value column takes from the on columns
// laid end to end (row i*k + j reads j*n + i).
func (e *Env) unpivot(n *plan.UnpivotNode, in *Frame) (*Frame, error) {
	k, rows := len(n.On), in.rows
	total := int64(k) * int64(rows)
	if total > int64(1<<31-1) {
		return nil, &plan.Error{Kind: plan.ResourceExhausted, Row: -1,
			Msg: fmt.Sprintf("unpivot: %d rows by %d columns exceed the executor's %d rows per node", rows, k, int64(1<<31-1))}
	}
	work := 8 * total
	if err := e.reserve(work, "the unpivot's row maps"); err != nil {
		return nil, err
	}
	defer e.release(work)
	byRow := make([]int32, total)
	byCol := make([]int32, total)
	// The closure cannot panic (indices within the slices).
	_ = e.par.For(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 0; j < k; j++ {
				byRow[i*k+j] = int32(i)
				byCol[i*k+j] = int32(j*rows + i)
			}
		}
	})
	out := n.Schema()
	index := n.IndexColumns()
	flat, err := e.flat(in)
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	sub := &Frame{schema: in.schema, rows: rows}
	for _, c := range index {
		fc, err := e.col(flat, c)
		if err != nil {
			return nil, err
		}
		sub.cols = append(sub.cols, fc)
	}
	idxFrame, err := e.gather(sub, out, byRow)
	if err != nil {
		return nil, err
	}
	defer idxFrame.Release()
	variable := e.unpivotVariable(n.On, rows)
	ons := make([]arrow.Array, 0, k)
	defer func() { releaseAll(ons) }()
	for _, c := range n.On {
		fc, err := e.col(flat, c)
		if err != nil {
			variable.Release()
			return nil, err
		}
		a, err := e.value(fc)
		if err != nil {
			variable.Release()
			return nil, err
		}
		ons = append(ons, a)
	}
	laid, err := array.Concatenate(ons, e.Mem)
	if err != nil {
		variable.Release()
		return nil, e.Internal("unpivot: %v", err)
	}
	value, err := ops.TakeParallel(e.Mem, laid, byCol, e.par)
	laid.Release()
	if err != nil {
		variable.Release()
		return nil, e.Internal("unpivot: %v", err)
	}
	cols := make([]fcol, 0, len(index)+2)
	for _, c := range idxFrame.cols {
		c.retain()
		cols = append(cols, c)
	}
	cols = append(cols, fcol{arr: variable}, fcol{arr: value})
	return &Frame{schema: out, rows: int(total), cols: cols}, nil
}

// unpivotVariable is an unpivot's variable column: the on column names in
// turn, row after row. The values repeat one pattern (the names
// concatenated), so the offsets are computed and the data is the pattern
// copied rows times, without a per-value append; a column whose data
// would pass the int32 offsets of a string array is built by a builder,
// which reports that as it does for any string column.
func (e *Env) unpivotVariable(on []string, rows int) arrow.Array {
	k := len(on)
	pattern := strings.Join(on, "")
	size := len(pattern)
	if int64(size)*int64(rows) > math.MaxInt32 {
		vb := array.NewStringBuilder(e.Mem)
		defer vb.Release()
		for i := 0; i < rows; i++ {
			for _, c := range on {
				vb.Append(c)
			}
		}
		return vb.NewArray()
	}
	prefix := make([]int32, k)
	for j := 1; j < k; j++ {
		prefix[j] = prefix[j-1] + int32(len(on[j-1]))
	}
	total := k * rows
	offBuf := memory.NewResizableBuffer(e.Mem)
	offBuf.Resize(4 * (total + 1))
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	// The closure cannot panic (indices within offs).
	_ = e.par.For(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			base := int32(i * size)
			for j, p := range prefix {
				offs[i*k+j] = base + p
			}
		}
	})
	offs[total] = int32(size * rows)
	dataBuf := memory.NewResizableBuffer(e.Mem)
	dataBuf.Resize(size * rows)
	data := dataBuf.Bytes()
	for n := copy(data, pattern); n < len(data); {
		n += copy(data[n:], data[:n])
	}
	d := array.NewData(arrow.BinaryTypes.String, total, []*memory.Buffer{nil, offBuf, dataBuf}, nil, 0, 0)
	out := array.NewStringData(d)
	d.Release()
	offBuf.Release()
	dataBuf.Release()
	return out
}
