package step

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Frame is a node's output: its rows under its resolved schema. The rows
// are logical: each column is either compact (one array value per row) or
// a gather — an array plus a row index vector (row i is arr[idx[i]], and -1
// is a null). Filters, sorts, limits, joins and distinct only compose index
// vectors; a column's values are gathered when an expression reads them
// (only the columns it reads) or when something needs whole batches (union,
// extensions, Materialize). Columns that nothing reads are therefore never
// copied until the end, and a chain of row-dropping nodes costs one gather
// per column. The representation is invisible in results: the rows, their
// order, their bits and every error are those of materializing at every
// node (which is what the eager chain does, through Materialize).
//
// A flat Frame holds its columns itself (cols); a lazy one (store != nil,
// see lazy.go) is the first n columns of a store shared with the frames it
// was built from, each in the rows of its own row space, brought to the
// frame's rows (sp) when read, so that a filter, a sort or a with_columns
// appending columns costs what it reads and adds, not the frame's width.
//
// A Frame is immutable once built and owns one reference to each of its
// arrays (a lazy one: to its store); Share hands out another reference,
// Release drops them. A Frame may therefore be read from several
// goroutines at once.
type Frame struct {
	schema plan.Schema
	rows   int
	cols   []fcol
	// store, n, sp: a lazy frame's columns, width and rows.
	store *colStore
	n     int
	sp    *space
	// rec, when set, is a compact batch of exactly cols, in order, under
	// the schema's names (the record FromRecord wrapped): expressions read
	// it as it is, and Materialize may return it, instead of building a
	// batch of their own.
	rec arrow.RecordBatch
}

// fcol is one column of a frame.
type fcol struct {
	arr arrow.Array
	idx *gatherIdx // nil: arr is compact
	// seq, when set, stands for arr (which is nil): a row_index column,
	// whose values off, off+1, ... are computed from the rows read instead
	// of being stored, so numbering a large input writes nothing and
	// gathering its numbers through a join's rows reads only those rows.
	seq *seqBase
}

// seqBase is the int64 column off, off+1, ..., off+n-1 (no nulls), held
// as its first value and length; rowIndex checked that the last value fits.
type seqBase struct {
	off int64
	n   int
}

// withIdx returns the column's base read through idx (nil: compact).
func (c fcol) withIdx(idx *gatherIdx) fcol {
	return fcol{arr: c.arr, idx: idx, seq: c.seq}
}

// gatherIdx is a row index vector shared by the columns gathered alike.
// Under a memory limit acct counts its bytes in the budget while any
// column of any frame refers to it (a slice of it shares its acct, since
// it keeps the whole vector alive); without a limit acct is nil.
type gatherIdx struct {
	rows []int32
	acct *idxAcct
}

// idxAcct is the budget share of one index vector: bytes, counted until
// the last column referring to the vector is released.
type idxAcct struct {
	b     *memlimit.Budget
	bytes int64
	refs  atomic.Int64
}

// retain adds a column's reference; it is a no-op on nil.
func (a *idxAcct) retain() {
	if a != nil {
		a.refs.Add(1)
	}
}

// release drops a column's reference, giving the bytes back to the budget
// with the last one; it is a no-op on nil.
func (a *idxAcct) release() {
	if a != nil && a.refs.Add(-1) == 0 {
		a.b.Release(a.bytes)
	}
}

// retain adds a reference to the column's array and index vector.
func (c fcol) retain() {
	if c.arr != nil {
		c.arr.Retain()
	}
	if c.idx != nil {
		c.idx.acct.retain()
	}
}

// release drops the column's references.
func (c fcol) release() {
	if c.arr != nil {
		c.arr.Release()
	}
	if c.idx != nil {
		c.idx.acct.release()
	}
}

// FromRecord wraps a compact batch (retaining its columns) under schema s,
// checking that the columns fit it (count, types, length, no null in a
// non-nullable field). The caller keeps its reference to rec.
func (e *Env) FromRecord(s plan.Schema, rec arrow.RecordBatch) (*Frame, error) {
	if err := CheckColumns(s, rec.Columns(), rec.NumRows()); err != nil {
		return nil, e.Internal("%v", err)
	}
	f := &Frame{schema: s, rows: int(rec.NumRows()), cols: make([]fcol, rec.NumCols())}
	for i, a := range rec.Columns() {
		a.Retain()
		f.cols[i] = fcol{arr: a}
	}
	if sameNames(rec.Schema(), s) {
		rec.Retain()
		f.rec = rec
	}
	return f, nil
}

// sameNames reports whether as names the columns of s, in order.
func sameNames(as *arrow.Schema, s plan.Schema) bool {
	if as.NumFields() != s.Len() {
		return false
	}
	for i := 0; i < s.Len(); i++ {
		if as.Field(i).Name != s.Field(i).Name {
			return false
		}
	}
	return true
}

// Schema returns the frame's schema.
func (f *Frame) Schema() plan.Schema { return f.schema }

// NumRows returns the number of rows.
func (f *Frame) NumRows() int { return f.rows }

// retain adds a reference to every column (and to the record), or to the
// store of a lazy frame.
func (f *Frame) retain() {
	if f.store != nil {
		f.store.refs.Add(1)
		return
	}
	for _, c := range f.cols {
		c.retain()
	}
	if f.rec != nil {
		f.rec.Retain()
	}
}

// Release drops the frame's references. It is safe on nil and more than
// once.
func (f *Frame) Release() {
	if f == nil {
		return
	}
	if f.store != nil {
		f.store.release()
		f.store = nil
	}
	for _, c := range f.cols {
		c.release()
	}
	f.cols = nil
	if f.rec != nil {
		f.rec.Release()
		f.rec = nil
	}
}

// Share returns a new frame sharing f's columns (retained) under s (a
// schema with f's column names and types: a memo serving a stored result,
// or a node that passes its input through under its own schema).
func (f *Frame) Share(s plan.Schema) *Frame {
	f.retain()
	if f.store != nil {
		return &Frame{schema: s, rows: f.rows, store: f.store, n: f.n, sp: f.sp}
	}
	return &Frame{schema: s, rows: f.rows, cols: append([]fcol(nil), f.cols...), rec: f.rec}
}

// width returns the number of columns the frame holds.
func (f *Frame) width() int {
	if f.store != nil {
		return f.n
	}
	return len(f.cols)
}

// col returns the named column (not retained).
func (e *Env) col(f *Frame, name string) (fcol, error) {
	i := f.schema.Index(name)
	if i < 0 || i >= f.width() {
		return fcol{}, e.Internal("input has no column %q", name)
	}
	if f.store != nil {
		return e.colAt(f, i)
	}
	return f.cols[i], nil
}

// gather returns the frame of rows idx of f (-1 gives a row of nulls): each
// column's index vector is composed with idx, without copying values (the
// composition split over goroutines as e's partitioning says). Under a
// memory limit the composed vectors are reserved before they are
// allocated (resource_exhausted when they do not fit) and idx
// itself, which the caller allocated, is counted from now on when a
// compact column keeps it. A lazy f is flattened first.
func (e *Env) gather(f *Frame, s plan.Schema, idx []int32) (*Frame, error) {
	if f.store != nil {
		flat, err := e.flat(f)
		if err != nil {
			return nil, err
		}
		defer flat.Release()
		f = flat
	}
	composed := map[*gatherIdx]*gatherIdx{}
	fresh := &gatherIdx{rows: idx}
	if e.budget != nil {
		for _, c := range f.cols {
			if c.idx != nil {
				composed[c.idx] = nil
			}
		}
		need := 4 * int64(len(idx)) * int64(len(composed))
		if err := e.reserve(need, "the row index vectors of the node's output"); err != nil {
			return nil, err
		}
		for _, c := range f.cols {
			if c.idx == nil {
				fresh.acct = &idxAcct{b: e.budget, bytes: 4 * int64(len(idx))}
				e.budget.Force(fresh.acct.bytes)
				break
			}
		}
	}
	out := &Frame{schema: s, rows: len(idx), cols: make([]fcol, len(f.cols))}
	for i, c := range f.cols {
		if c.idx == nil {
			out.cols[i] = c.withIdx(fresh)
			out.cols[i].retain()
			continue
		}
		g := composed[c.idx]
		if g == nil {
			rows := composeRows(c.idx.rows, idx, e.par)
			g = &gatherIdx{rows: rows}
			if e.budget != nil {
				g.acct = &idxAcct{b: e.budget, bytes: 4 * int64(len(idx))}
			}
			composed[c.idx] = g
		}
		out.cols[i] = c.withIdx(g)
		out.cols[i].retain()
	}
	return out, nil
}

// reorder returns the rows idx of f (-1 = a row of nulls) under s as a
// flat frame, sharing the input when idx is the identity (see gather).
func (e *Env) reorder(f *Frame, s plan.Schema, idx []int32) (*Frame, error) {
	if isIdentity(idx, f.rows) {
		if f.store != nil {
			out, err := e.flat(f)
			if err != nil {
				return nil, err
			}
			out.schema = s
			return out, nil
		}
		return f.Share(s), nil
	}
	return e.gather(f, s, idx)
}

// isIdentity reports whether idx is exactly 0, 1, ..., n-1.
func isIdentity(idx []int32, n int) bool {
	if len(idx) != n {
		return false
	}
	for i, j := range idx {
		if int(j) != i {
			return false
		}
	}
	return true
}

// Slice returns rows [offset, offset+length) of f under s, clamped to f
// (a negative length means "to the end"), sharing buffers and index
// vectors: limit and slice. A lazy f gives a lazy frame of a child space
// holding the range.
func (f *Frame) Slice(s plan.Schema, offset, length int64) *Frame {
	n := int64(f.rows)
	offset = max(0, min(offset, n))
	end := n
	if length >= 0 && length < n-offset {
		end = offset + length
	}
	if f.store != nil {
		if offset == 0 && end == n {
			return f.Share(s)
		}
		sel := make([]int32, end-offset)
		for i := range sel {
			sel[i] = int32(offset) + int32(i)
		}
		st, w, sp := lazyOf(f, 0)
		return &Frame{schema: s, rows: len(sel), store: st, n: w, sp: sp.child(sel)}
	}
	out := &Frame{schema: s, rows: int(end - offset), cols: make([]fcol, len(f.cols))}
	sliced := map[*gatherIdx]*gatherIdx{}
	for i, c := range f.cols {
		switch {
		case c.idx == nil && c.seq != nil:
			out.cols[i] = fcol{seq: &seqBase{off: c.seq.off + offset, n: int(end - offset)}}
			continue
		case c.idx == nil:
			out.cols[i] = fcol{arr: array.NewSlice(c.arr, offset, end)}
			continue
		}
		g, ok := sliced[c.idx]
		if !ok {
			g = &gatherIdx{rows: c.idx.rows[offset:end], acct: c.idx.acct}
			sliced[c.idx] = g
		}
		out.cols[i] = c.withIdx(g)
		out.cols[i].retain()
	}
	return out
}

// value returns the compact form of a column (a new reference).
func (e *Env) value(col fcol) (arrow.Array, error) {
	if col.seq != nil {
		return e.seqValue(col)
	}
	if col.idx == nil {
		col.arr.Retain()
		return col.arr, nil
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	if e.budget != nil {
		if err := e.budget.Fits(ops.TakeBytes(col.arr, col.idx.rows), "a gathered column"); err != nil {
			return nil, e.exhausted(err)
		}
	}
	out, err := ops.TakeParallel(e.Mem, col.arr, col.idx.rows, e.par)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// batch returns a compact record of the named columns of f (in the given
// order, duplicates removed), with f's row count: the input an expression
// evaluation reads.
func (e *Env) batch(f *Frame, names []string) (arrow.RecordBatch, error) {
	seen := make(map[string]bool, len(names))
	fields := make([]arrow.Field, 0, len(names))
	cols := make([]arrow.Array, 0, len(names))
	defer func() { releaseAll(cols) }()
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		fc, err := e.col(f, name)
		if err != nil {
			return nil, err
		}
		a, err := e.value(fc)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
		fld, _ := f.schema.Lookup(name)
		dt, err := kernel.ArrowType(fld.Type)
		if err != nil {
			return nil, e.Internal("column %q: %v", name, err)
		}
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: fld.Nullable})
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(f.rows)), nil
}

// exprBatch is a compact batch holding the columns exprs read (found by
// name): the frame's own record when it has one, else a batch of just those
// columns.
func (e *Env) exprBatch(f *Frame, exprs []plan.Expr) (arrow.RecordBatch, error) {
	if f.rec != nil {
		f.rec.Retain()
		return f.rec, nil
	}
	var names []string
	for _, x := range exprs {
		names = append(names, plan.Columns(x)...)
	}
	return e.batch(f, names)
}

// Materialize gathers every column of f into one compact batch under the
// Arrow form of f's schema (kernel.ArrowSchema), checking it against the
// schema. The caller releases the batch; f is left as it was.
func (e *Env) Materialize(f *Frame) (arrow.RecordBatch, error) {
	if f.rec != nil && sameArrow(f.rec.Schema(), f.schema) {
		f.rec.Retain()
		return f.rec, nil
	}
	fcols := f.cols
	if f.store != nil {
		var err error
		if fcols, err = e.flatCols(f); err != nil {
			return nil, err
		}
	}
	cols := make([]arrow.Array, 0, len(fcols))
	defer func() { releaseAll(cols) }()
	for _, fc := range fcols {
		a, err := e.value(fc)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return e.conform(f.schema, cols, int64(f.rows))
}

// materializeAll materializes frames in order.
func (e *Env) materializeAll(fs []*Frame) ([]arrow.RecordBatch, error) {
	recs := make([]arrow.RecordBatch, 0, len(fs))
	for _, f := range fs {
		r, err := e.Materialize(f)
		if err != nil {
			releaseBatches(recs)
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// sameArrow reports whether as is the Arrow form of s (kernel.ArrowSchema:
// the names, types and nullability, no metadata), without building it.
func sameArrow(as *arrow.Schema, s plan.Schema) bool {
	if !sameNames(as, s) || as.HasMetadata() {
		return false
	}
	for i := 0; i < s.Len(); i++ {
		f, af := s.Field(i), as.Field(i)
		dt, err := kernel.ArrowType(f.Type)
		if err != nil || af.Nullable != f.Nullable || af.HasMetadata() || !arrow.TypeEqual(af.Type, dt) {
			return false
		}
	}
	return true
}
