package parquet

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// The Parquet scan decodes column chunks itself, straight into one
// contiguous Arrow array per column, instead of going through pqarrow's
// record reader. pqarrow hands out 64K-row batches that the executor then
// had to concatenate (a second copy of every value), and it rebuilt
// dictionary-encoded string columns one value at a time through a
// builder; both were a third of the time of a scan-bound query. Here every
// (row group, column) pair is a unit of work that writes its rows into its
// own range of the output, so units run in parallel (exec.Options.Parallelism)
// without any copy or lock; validity bitmaps, booleans and strings are
// decoded per unit and placed afterwards. The rows, their order and the
// bits are those of the file, whatever the parallelism. When units fail,
// the error reported is the one of the first failing unit in file order
// (row group, then column), which a sequential read would meet first.

// pqBatch is how many rows a unit decodes between two context checks.
const pqBatch = 1 << 16

// pqColumn is one column a scan decodes.
type pqColumn struct {
	leaf   int // the column's leaf index in the file (= field index: flat schemas)
	name   string
	typ    plan.Type
	dt     arrow.DataType
	maxDef int16
	// src is the file the page decoder streams the column's chunks from
	// (nil: it asks the file.Reader for a page reader of each chunk).
	src io.ReaderAt
}

// pqUnit is what decoding one column of one row group produced besides the
// fixed-width values it wrote in place.
type pqUnit struct {
	valid []byte // validity from bit 0 (nullable columns only)
	nulls int
	bits  []byte  // bool values from bit 0
	offs  []int32 // string offsets, from 0
	data  []byte  // string bytes
	err   error
}

// pqColumns describes the columns idx of the file for decoding, checking
// that each is a flat column of the physical type its dfopt type needs.
func pqColumns(rdr *file.Reader, s plan.Schema, idx []int) ([]pqColumn, error) {
	ps := rdr.MetaData().Schema
	out := make([]pqColumn, len(idx))
	for i, j := range idx {
		f := s.Field(j)
		if j >= ps.NumColumns() {
			return nil, fmt.Errorf("column %q: the file has %d leaf columns", f.Name, ps.NumColumns())
		}
		d := ps.Column(j)
		dt, err := kernel.ArrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		want := map[plan.Type]parquet.Type{plan.Bool: parquet.Types.Boolean, plan.Int32: parquet.Types.Int32,
			plan.Int64: parquet.Types.Int64, plan.Float64: parquet.Types.Double, plan.String: parquet.Types.ByteArray,
			plan.Date: parquet.Types.Int32, plan.Datetime: parquet.Types.Int64, plan.Duration: parquet.Types.Int64,
			plan.Int8: parquet.Types.Int32, plan.Int16: parquet.Types.Int32, plan.Uint8: parquet.Types.Int32,
			plan.Uint16: parquet.Types.Int32, plan.Uint32: parquet.Types.Int32, plan.Uint64: parquet.Types.Int64,
			plan.Float32: parquet.Types.Float}[f.Type]
		if d.PhysicalType() != want || d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
			return nil, fmt.Errorf("column %q: stored as %s (definition level %d, repetition level %d), which a %s column cannot be read from",
				f.Name, d.PhysicalType(), d.MaxDefinitionLevel(), d.MaxRepetitionLevel(), f.Type)
		}
		out[i] = pqColumn{leaf: j, name: f.Name, typ: f.Type, dt: dt, maxDef: d.MaxDefinitionLevel()}
	}
	return out, nil
}

// readRowGroups decodes the columns cols of the row groups groups (in file
// order) into one batch under schema, every buffer from mem.
func readRowGroups(ctx context.Context, rdr *file.Reader, schema *arrow.Schema, cols []pqColumn, groups []int,
	mem memory.Allocator, par ops.Parallel) (rec arrow.RecordBatch, err error) {
	md := rdr.MetaData()
	starts := make([]int, len(groups)+1)
	for i, g := range groups {
		starts[i+1] = starts[i] + int(md.RowGroup(g).NumRows())
		if starts[i+1] > math.MaxInt32 {
			return nil, fmt.Errorf("the row groups read hold more than %d rows", math.MaxInt32)
		}
	}
	rows := starts[len(groups)]
	// The fixed-width values are decoded in place into these buffers.
	bufs := fixedWidthBuffers(mem, cols, rows)
	defer releaseBuffers(bufs)
	units := make([]pqUnit, len(groups)*len(cols))
	runErr := par.Run(len(units), func(u int) {
		gi, c := u/len(cols), u%len(cols)
		units[u] = decodeUnit(ctx, rdr, groups[gi], cols[c], bufs[c], starts[gi], starts[gi+1])
	})
	if runErr != nil {
		return nil, runErr
	}
	return assembleBatch(mem, par, schema, cols, bufs, units, groups, starts, rows)
}

// assembleBatch assembles the decoded units (group-major: unit g*len(cols)+c
// is column c of the g-th group read, row group groupIDs[g]) into one
// record batch of rows rows, reporting the first unit's decoding error.
func assembleBatch(mem memory.Allocator, par ops.Parallel, schema *arrow.Schema, cols []pqColumn, bufs []*memory.Buffer,
	units []pqUnit, groupIDs []int, starts []int, rows int) (arrow.RecordBatch, error) {
	for u := range units {
		if units[u].err != nil {
			g, c := u/len(cols), u%len(cols)
			return nil, fmt.Errorf("row group %d, column %q: %w", groupIDs[g], cols[c].name, units[u].err)
		}
	}
	arrs := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c, col := range cols {
		per := make([]*pqUnit, len(groupIDs))
		for g := range groupIDs {
			per[g] = &units[g*len(cols)+c]
		}
		a, err := assembleColumn(mem, par, col, bufs[c], per, starts)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", col.name, err)
		}
		arrs[c] = a
	}
	return array.NewRecordBatch(schema, arrs, int64(rows)), nil
}

// fixedWidthBuffers allocates, per column of a fixed width, the buffer
// its values for rows rows are decoded into in place (nil for the others).
func fixedWidthBuffers(mem memory.Allocator, cols []pqColumn, rows int) []*memory.Buffer {
	bufs := make([]*memory.Buffer, len(cols))
	for c, col := range cols {
		if w := fixedWidth(col.typ); w > 0 {
			bufs[c] = memory.NewResizableBuffer(mem)
			bufs[c].Resize(rows * w)
		}
	}
	return bufs
}

// releaseBuffers releases every non-nil buffer of bufs.
func releaseBuffers(bufs []*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

// fixedWidth is the byte width of a type decoded in place (0 for the
// others).
func fixedWidth(t plan.Type) int {
	switch t {
	case plan.Int32, plan.Date, plan.Float32:
		return 4
	case plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32:
		return 4 // decoded as Parquet's INT32, narrowed when assembled
	case plan.Int64, plan.Float64, plan.Datetime, plan.Duration, plan.Uint64:
		return 8
	}
	return 0
}

// decodeUnit decodes column col of row group g, rows [lo, hi) of the
// output (the group's first hi-lo rows): fixed-width values into buf, the
// rest into the returned unit. The page decoder (pagedecode.go) does it
// where it can, arrow-go's column chunk reader otherwise.
func decodeUnit(ctx context.Context, rdr *file.Reader, g int, col pqColumn, buf *memory.Buffer, lo, hi int) (u pqUnit) {
	defer recoverUnit(&u)
	var region []byte
	if w := fixedWidth(col.typ); w > 0 {
		region = buf.Bytes()[lo*w : hi*w]
	}
	if fu, ok := decodeFast(ctx, rdr, g, col, region, hi-lo); ok {
		return fu
	}
	return decodeUnitReader(ctx, rdr, g, col, buf, lo, hi)
}

// recoverUnit turns a panic of arrow-go's page or column chunk reader on
// a corrupted chunk (some malformed page headers make it panic) into the
// unit's error, which names the row group and column; deferred by every
// unit, which may run on a worker goroutine of its own.
func recoverUnit(u *pqUnit) {
	if r := recover(); r != nil {
		*u = pqUnit{err: fmt.Errorf("the Parquet reader failed on a malformed chunk: %v", r)}
	}
}

// decodeUnitReader is decodeUnit through arrow-go's column chunk reader:
// the way for what the page decoder (decodeFast) gives up, and the
// reference its tests compare it with.
func decodeUnitReader(ctx context.Context, rdr *file.Reader, g int, col pqColumn, buf *memory.Buffer, lo, hi int) (u pqUnit) {
	cr, err := rdr.RowGroup(g).Column(col.leaf)
	if err != nil {
		u.err = err
		return u
	}
	defer cr.Close()
	rows := hi - lo
	if col.maxDef > 0 {
		u.valid = make([]byte, bitutil.BytesForBits(int64(rows)))
	}
	switch r := cr.(type) {
	case *file.Int32ColumnChunkReader:
		u.err = decodeFixed(ctx, r.ReadBatch, arrow.Int32Traits.CastFromBytes(buf.Bytes())[lo:hi], col.maxDef, &u)
	case *file.Int64ColumnChunkReader:
		u.err = decodeFixed(ctx, r.ReadBatch, arrow.Int64Traits.CastFromBytes(buf.Bytes())[lo:hi], col.maxDef, &u)
	case *file.Float64ColumnChunkReader:
		u.err = decodeFixed(ctx, r.ReadBatch, arrow.Float64Traits.CastFromBytes(buf.Bytes())[lo:hi], col.maxDef, &u)
	case *file.Float32ColumnChunkReader:
		u.err = decodeFixed(ctx, r.ReadBatch, arrow.Float32Traits.CastFromBytes(buf.Bytes())[lo:hi], col.maxDef, &u)
	case *file.BooleanColumnChunkReader:
		vals := make([]bool, rows)
		if u.err = decodeFixed(ctx, r.ReadBatch, vals, col.maxDef, &u); u.err == nil {
			u.bits = make([]byte, bitutil.BytesForBits(int64(rows)))
			for i, v := range vals {
				if v {
					bitutil.SetBit(u.bits, i)
				}
			}
		}
	case *file.ByteArrayColumnChunkReader:
		u.err = decodeStrings(ctx, r, rows, col.maxDef, &u)
	default:
		u.err = fmt.Errorf("unexpected column reader %T", cr)
	}
	return u
}

// decodeFixed reads len(dst) rows with read (a column chunk reader's
// ReadBatch) into dst, spreading the values over the rows whose definition
// level says they are present (a Parquet reader packs the non-null values)
// and recording validity in u.
func decodeFixed[T any](ctx context.Context, read func(int64, []T, []int16, []int16) (int64, int, error),
	dst []T, maxDef int16, u *pqUnit) error {
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, min(len(dst), pqBatch))
	}
	for pos := 0; pos < len(dst); {
		if err := ctx.Err(); err != nil {
			return err
		}
		want := min(len(dst)-pos, pqBatch)
		var lv []int16
		if defs != nil {
			lv = defs[:want]
		}
		n, vals, err := read(int64(want), dst[pos:pos+want], lv, nil)
		if err != nil {
			return err
		}
		if n <= 0 {
			return fmt.Errorf("the column chunk ends after %d of its %d rows", pos, len(dst))
		}
		if defs == nil {
			if vals != int(n) {
				return fmt.Errorf("a required column read %d values for %d rows", vals, n)
			}
		} else {
			spread(dst[pos:pos+int(n)], vals, lv[:n], maxDef, u, pos)
		}
		pos += int(n)
	}
	return nil
}

// spread moves the vals packed values at the front of dst to the rows
// whose level is maxDef (backwards, so in place), zeroes the others, and
// records validity in u from row pos. The levels are arrow-go's (int16) or
// the page decoder's own (uint32, 0 or 1).
func spread[T any, L int16 | uint32](dst []T, vals int, lv []L, maxDef L, u *pqUnit, pos int) {
	if vals == len(dst) {
		bitutil.SetBitsTo(u.valid, int64(pos), int64(len(dst)), true)
		return
	}
	var zero T
	j := vals - 1
	for i := len(dst) - 1; i >= 0; i-- {
		if lv[i] == maxDef {
			dst[i] = dst[j]
			j--
			bitutil.SetBit(u.valid, pos+i)
		} else {
			dst[i] = zero
			u.nulls++
		}
	}
}

// decodeStrings reads rows strings into u.offs and u.data, copying each
// value out of its page as soon as it is decoded.
func decodeStrings(ctx context.Context, r *file.ByteArrayColumnChunkReader, rows int, maxDef int16, u *pqUnit) error {
	u.offs = make([]int32, rows+1)
	scratch := make([]parquet.ByteArray, min(rows, pqBatch))
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, len(scratch))
	}
	data := make([]byte, 0, rows*4)
	for pos := 0; pos < rows; {
		if err := ctx.Err(); err != nil {
			return err
		}
		want := min(rows-pos, pqBatch)
		var lv []int16
		if defs != nil {
			lv = defs[:want]
		}
		n, vals, err := r.ReadBatchInPage(int64(want), scratch[:want], lv, nil)
		if err != nil {
			return err
		}
		if n <= 0 {
			return fmt.Errorf("the column chunk ends after %d of its %d rows", pos, rows)
		}
		if defs == nil && vals != int(n) {
			return fmt.Errorf("a required column read %d values for %d rows", vals, n)
		}
		j := 0
		for i := 0; i < int(n); i++ {
			if defs == nil || lv[i] == maxDef {
				data = append(data, scratch[j]...)
				j++
				if defs != nil {
					bitutil.SetBit(u.valid, pos+i)
				}
			} else {
				u.nulls++
			}
			if len(data) > math.MaxInt32 {
				return fmt.Errorf("more than %d bytes of strings exceed the 2 GiB string array limit", math.MaxInt32)
			}
			u.offs[pos+i+1] = int32(len(data))
		}
		pos += int(n)
	}
	u.data = data
	return nil
}

// assembleColumn builds one output column from its units (one per row
// group, in order; starts are their first output rows).
func assembleColumn(mem memory.Allocator, par ops.Parallel, col pqColumn, buf *memory.Buffer, per []*pqUnit, starts []int) (arrow.Array, error) {
	rows := starts[len(starts)-1]
	nulls := 0
	for _, u := range per {
		nulls += u.nulls
	}
	var valid *memory.Buffer
	if nulls > 0 {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(rows))))
		for gi, u := range per {
			bitutil.CopyBitmap(u.valid, 0, starts[gi+1]-starts[gi], valid.Bytes(), starts[gi])
		}
		defer valid.Release()
	}
	var buffers []*memory.Buffer
	switch col.typ {
	case plan.Int32, plan.Int64, plan.Float64, plan.Date, plan.Datetime, plan.Duration, plan.Float32:
		buffers = []*memory.Buffer{valid, buf}
	case plan.Uint32, plan.Uint64:
		buffers = []*memory.Buffer{valid, buf} // Parquet's INT32 and INT64 hold the unsigned bits
	case plan.Int8, plan.Int16, plan.Uint8, plan.Uint16:
		// INT32 values (INT(8) and INT(16) logical types): narrowed.
		nb := narrowInt32(mem, col.typ, arrow.Int32Traits.CastFromBytes(buf.Bytes())[:rows])
		defer nb.Release()
		buffers = []*memory.Buffer{valid, nb}
	case plan.Bool:
		vals := memory.NewResizableBuffer(mem)
		defer vals.Release()
		vals.Resize(int(bitutil.BytesForBits(int64(rows))))
		for gi, u := range per {
			bitutil.CopyBitmap(u.bits, 0, starts[gi+1]-starts[gi], vals.Bytes(), starts[gi])
		}
		buffers = []*memory.Buffer{valid, vals}
	case plan.String:
		base := make([]int, len(per)+1)
		for gi, u := range per {
			base[gi+1] = base[gi] + len(u.data)
		}
		if base[len(per)] > math.MaxInt32 {
			return nil, fmt.Errorf("more than %d bytes of strings exceed the 2 GiB string array limit", math.MaxInt32)
		}
		offs := memory.NewResizableBuffer(mem)
		defer offs.Release()
		offs.Resize((rows + 1) * 4)
		data := memory.NewResizableBuffer(mem)
		defer data.Release()
		data.Resize(base[len(per)])
		o, d := arrow.Int32Traits.CastFromBytes(offs.Bytes()), data.Bytes()
		if err := par.Run(len(per), func(gi int) {
			u, b := per[gi], int32(base[gi])
			dst := o[starts[gi]:starts[gi+1]] // the next unit (or the end) writes the closing offset
			for i := range dst {
				dst[i] = u.offs[i] + b
			}
			copy(d[base[gi]:], u.data)
		}); err != nil {
			return nil, err
		}
		o[rows] = int32(base[len(per)])
		buffers = []*memory.Buffer{valid, offs, data}
	default:
		return nil, fmt.Errorf("unsupported type %s", col.typ)
	}
	nd := array.NewData(col.dt, rows, buffers, nil, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// narrowInt32 converts decoded INT32 values to the width of t (int8,
// int16, uint8 or uint16) in a new buffer.
func narrowInt32(mem memory.Allocator, t plan.Type, vals []int32) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	switch t {
	case plan.Int8:
		b.Resize(len(vals))
		out := arrow.Int8Traits.CastFromBytes(b.Bytes())
		for i, v := range vals {
			out[i] = int8(v)
		}
	case plan.Uint8:
		b.Resize(len(vals))
		out := b.Bytes()
		for i, v := range vals {
			out[i] = uint8(v)
		}
	case plan.Int16:
		b.Resize(2 * len(vals))
		out := arrow.Int16Traits.CastFromBytes(b.Bytes())
		for i, v := range vals {
			out[i] = int16(v)
		}
	default: // uint16
		b.Resize(2 * len(vals))
		out := arrow.Uint16Traits.CastFromBytes(b.Bytes())
		for i, v := range vals {
			out[i] = uint16(v)
		}
	}
	return b
}
