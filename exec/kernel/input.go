package kernel

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// input is the set of rows an expression evaluates over: the whole batch,
// or, inside an if branch, the rows that take the branch. Those are either a
// subset of the parent's rows (the columns it reads are gathered lazily, so
// a branch reading one column of a wide batch copies one column) or all the
// parent's rows with the others masked as null (see evalOnRows).
type input struct {
	n      int
	batch  arrow.RecordBatch // the root only
	parent *input
	sel    []int32 // the parent rows this input holds, in order (subsets only)
	mask   []byte  // the parent rows that are not masked (masked inputs only)
	// foldRow is the row whose failure an all-literal computation reports:
	// the first row the input really holds.
	foldRow int
	cols    map[string]arrow.Array
	owned   bool // whether cols holds references this input must release
}

func rootInput(batch arrow.RecordBatch) *input {
	return &input{n: int(batch.NumRows()), batch: batch, cols: map[string]arrow.Array{}}
}

// subset returns the input holding the parent rows sel, in order.
func (in *input) subset(sel []int32) *input {
	return &input{n: len(sel), parent: in, sel: sel, cols: map[string]arrow.Array{}, owned: true}
}

// masked returns an input with the parent's rows where every column is null
// outside mask (a bitmap of the parent's n rows from bit 0); first is the
// first row mask keeps.
func (in *input) masked(mask []byte, first int) *input {
	return &input{n: in.n, parent: in, mask: mask, foldRow: first, cols: map[string]arrow.Array{}, owned: true}
}

// column returns the named column over this input's rows, borrowed (valid
// until the input is released) and its plan type.
func (in *input) column(x *evalCtx, name string) (arrow.Array, plan.Type, error) {
	if a, ok := in.cols[name]; ok {
		t, err := PlanType(a.DataType())
		return a, t, err
	}
	var a arrow.Array
	if in.parent == nil {
		idx := in.batch.Schema().FieldIndices(name)
		if len(idx) == 0 {
			return nil, plan.Invalid, fmt.Errorf("column %q not in the batch", name)
		}
		a = in.batch.Column(idx[0])
		if a.Len() != in.n {
			return nil, plan.Invalid, fmt.Errorf("column %q has %d rows in a batch of %d", name, a.Len(), in.n)
		}
	} else {
		pa, t, err := in.parent.column(x, name)
		if err != nil {
			return nil, plan.Invalid, err
		}
		if in.mask != nil {
			a = maskColumn(x.mem, pa, in.mask)
		} else {
			pv := viewOf(arrayDatum(t, pa))
			if a, err = take(x.mem, t, &pv, in.sel); err != nil {
				return nil, plan.Invalid, fmt.Errorf("column %q: %w", name, err)
			}
		}
	}
	t, err := PlanType(a.DataType())
	if err != nil {
		if in.owned {
			a.Release()
		}
		return nil, plan.Invalid, fmt.Errorf("column %q: %w", name, err)
	}
	in.cols[name] = a
	return a, t, nil
}

// origRow maps row i of this input to the row of the batch Eval was given.
func (in *input) origRow(i int) int64 {
	for in.parent != nil {
		if in.sel != nil {
			i = int(in.sel[i])
		}
		in = in.parent
	}
	return int64(i)
}

// release drops the columns a subset gathered.
func (in *input) release() {
	if !in.owned {
		return
	}
	for name, a := range in.cols {
		a.Release()
		delete(in.cols, name)
	}
}

// maskColumn returns a with every row outside mask also null. The values
// buffers are shared; only the validity bitmap is new.
func maskColumn(mem memory.Allocator, a arrow.Array, mask []byte) arrow.Array {
	n := a.Len()
	data := a.Data()
	off := data.Offset()
	valid := make([]byte, len(mask))
	copy(valid, mask)
	if a.NullN() > 0 {
		av := alignedBits(a.NullBitmapBytes(), off, n)
		for i := range valid {
			valid[i] &= av[i]
		}
	}
	nulls := countNulls(valid, n)
	vbuf, vb := newBitmap(mem, off+n)
	bitutil.CopyBitmap(valid, 0, n, vb, off)
	bufs := append([]*memory.Buffer{vbuf}, data.Buffers()[1:]...)
	nd := array.NewData(data.DataType(), n, bufs, data.Children(), nulls, off)
	vbuf.Release()
	out := array.MakeFromData(nd)
	nd.Release()
	return out
}
