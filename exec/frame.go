package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// frame is a node's output. Its rows are logical: each column is either
// compact (one array value per row) or a gather — an array plus a row index
// vector (row i is arr[idx[i]], and -1 is a null). Filters, sorts, limits,
// joins and distinct only compose index vectors; a column's values are
// gathered when an expression reads them (only the columns it reads) or
// when a node that needs whole batches (union, extension, the root) takes
// the frame. Columns that nothing reads are therefore never copied until
// the end, and a chain of row-dropping nodes costs one gather per column.
// The representation is invisible in results: the rows, their order, their
// bits and every error are those of materializing at every node.
type frame struct {
	schema plan.Schema
	rows   int
	cols   []fcol
}

// fcol is one column of a frame.
type fcol struct {
	arr arrow.Array
	idx *gatherIdx // nil: arr is compact
}

// gatherIdx is a row index vector shared by the columns gathered alike.
type gatherIdx struct{ rows []int32 }

// frameOf wraps a compact batch (retaining its columns) under schema s.
func frameOf(s plan.Schema, rec arrow.RecordBatch) (*frame, error) {
	if err := checkColumns(s, rec.Columns(), rec.NumRows()); err != nil {
		return nil, internalError("%v", err)
	}
	f := &frame{schema: s, rows: int(rec.NumRows()), cols: make([]fcol, rec.NumCols())}
	for i, a := range rec.Columns() {
		a.Retain()
		f.cols[i] = fcol{arr: a}
	}
	return f, nil
}

// retain adds a reference to every column.
func (f *frame) retain() {
	for _, c := range f.cols {
		c.arr.Retain()
	}
}

// release drops the frame's references.
func (f *frame) release() {
	if f == nil {
		return
	}
	for _, c := range f.cols {
		c.arr.Release()
	}
	f.cols = nil
}

// withSchema returns a frame sharing f's columns (retained) under s.
func (f *frame) withSchema(s plan.Schema) *frame {
	f.retain()
	return &frame{schema: s, rows: f.rows, cols: append([]fcol(nil), f.cols...)}
}

// col returns the named column (not retained).
func (f *frame) col(name string) (fcol, error) {
	i := f.schema.Index(name)
	if i < 0 || i >= len(f.cols) {
		return fcol{}, internalError("input has no column %q", name)
	}
	return f.cols[i], nil
}

// gather returns the frame of rows idx of f (-1 gives a row of nulls): each
// column's index vector is composed with idx, without copying values.
func (f *frame) gather(s plan.Schema, idx []int32) *frame {
	out := &frame{schema: s, rows: len(idx), cols: make([]fcol, len(f.cols))}
	fresh := &gatherIdx{rows: idx}
	composed := map[*gatherIdx]*gatherIdx{}
	for i, c := range f.cols {
		c.arr.Retain()
		if c.idx == nil {
			out.cols[i] = fcol{arr: c.arr, idx: fresh}
			continue
		}
		g, ok := composed[c.idx]
		if !ok {
			rows := make([]int32, len(idx))
			base := c.idx.rows
			for j, r := range idx {
				if r < 0 {
					rows[j] = -1
				} else {
					rows[j] = base[r]
				}
			}
			g = &gatherIdx{rows: rows}
			composed[c.idx] = g
		}
		out.cols[i] = fcol{arr: c.arr, idx: g}
	}
	return out
}

// slice returns rows [offset, offset+length) of f, clamped, sharing buffers
// and index vectors.
func (f *frame) slice(s plan.Schema, offset, length int64) *frame {
	n := int64(f.rows)
	offset = max(0, min(offset, n))
	end := n
	if length >= 0 && length < n-offset {
		end = offset + length
	}
	out := &frame{schema: s, rows: int(end - offset), cols: make([]fcol, len(f.cols))}
	sliced := map[*gatherIdx]*gatherIdx{}
	for i, c := range f.cols {
		if c.idx == nil {
			out.cols[i] = fcol{arr: array.NewSlice(c.arr, offset, end)}
			continue
		}
		g, ok := sliced[c.idx]
		if !ok {
			g = &gatherIdx{rows: c.idx.rows[offset:end]}
			sliced[c.idx] = g
		}
		c.arr.Retain()
		out.cols[i] = fcol{arr: c.arr, idx: g}
	}
	return out
}

// value returns the compact form of a column (a new reference).
func (c *collector) value(col fcol) (arrow.Array, error) {
	if col.idx == nil {
		col.arr.Retain()
		return col.arr, nil
	}
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	out, err := ops.Take(c.mem, col.arr, col.idx.rows)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}

// batch returns a compact record of the named columns of f (in the given
// order, duplicates removed), with f's row count: the input an expression
// evaluation reads.
func (c *collector) batch(f *frame, names []string) (arrow.RecordBatch, error) {
	seen := make(map[string]bool, len(names))
	fields := make([]plan.Field, 0, len(names))
	cols := make([]arrow.Array, 0, len(names))
	defer func() { releaseAll(cols) }()
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		fc, err := f.col(name)
		if err != nil {
			return nil, err
		}
		a, err := c.value(fc)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
		fld, _ := f.schema.Lookup(name)
		fields = append(fields, fld)
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return nil, internalError("%v", err)
	}
	as, err := arrowSchemaOf(s)
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(as, cols, int64(f.rows)), nil
}

// exprBatch is the compact batch of the columns exprs read.
func (c *collector) exprBatch(f *frame, exprs []plan.Expr) (arrow.RecordBatch, error) {
	var names []string
	for _, e := range exprs {
		names = append(names, plan.Columns(e)...)
	}
	return c.batch(f, names)
}

// materialize gathers every column of f into one compact batch under the
// Arrow form of f's schema, checking it against the schema.
func (c *collector) materialize(f *frame) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(f.cols))
	defer func() { releaseAll(cols) }()
	for _, fc := range f.cols {
		a, err := c.value(fc)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return conform(f.schema, cols, int64(f.rows))
}

// isPlainColumn returns the column an expression merely references
// (possibly under an alias), which can pass through without evaluation.
func isPlainColumn(e plan.Expr) (string, bool) {
	col, ok := plan.Unalias(e).(*plan.Column)
	if !ok {
		return "", false
	}
	return col.Name, true
}
