package ops

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/nest"
	"github.com/dfopt/dfopt/exec/internal/phys"
)

// Take is hand-written because arrow/compute's take costs ~20 ns/row on
// int64 (and ~110 on strings) plus ~10 µs per call, has no "-1 means null"
// index, and would need its indices boxed into an Arrow array; the typed
// gathers below run at a few ns/row.

// Take gathers rows of arr by index into a new array: out[j] = arr[idx[j]],
// and idx[j] == -1 yields a null (the null-extended side of a join, an
// empty group's first value). Any other index outside [0, arr.Len()) is an
// error. The result has arr's type and is allocated from mem.
func Take(mem memory.Allocator, arr arrow.Array, idx []int32) (arrow.Array, error) {
	return TakeParallel(mem, arr, idx, Parallel{})
}

// TakeParallel is Take with the output rows split over goroutines as p
// says. Each partition writes its own rows of the result (partitions own
// whole bytes of a bitmap); the result and the error (the first bad index
// in row order) are Take's.
func TakeParallel(mem memory.Allocator, arr arrow.Array, idx []int32, p Parallel) (arrow.Array, error) {
	if arr == nil {
		return nil, fmt.Errorf("take: nil array")
	}
	if err := checkRows(len(idx)); err != nil {
		return nil, fmt.Errorf("take: %w", err)
	}
	switch a := arr.(type) {
	case *array.List, *array.Struct:
		return nest.Take(mem, a, idx)
	case *array.Int64:
		return takeFixed(mem, a, a.Int64Values(), idx, p)
	case *array.Int32:
		return takeFixed(mem, a, a.Int32Values(), idx, p)
	case *array.Float64:
		return takeFixed(mem, a, a.Float64Values(), idx, p)
	case *array.Date32:
		v, _ := phys.Int32(a)
		return takeFixed(mem, a, v, idx, p)
	case *array.Timestamp, *array.Duration:
		v, _ := phys.Int64(a)
		return takeFixed(mem, a, v, idx, p)
	case *array.Boolean:
		return takeBool(mem, a, idx, p)
	case *array.String:
		if p.On() && len(p.Split(len(idx))) > 1 {
			return takeStringParallel(mem, a, idx, p)
		}
		return takeString(mem, a, idx)
	}
	return narrowTake(mem, arr, idx, p)
}

// Broadcast spreads one value per group back over the rows: row i gets
// perGroup[ids[i]]. It is how a window (over()) result reaches its rows,
// and it is Take under the name the window operator means.
func Broadcast(mem memory.Allocator, perGroup arrow.Array, ids []int32) (arrow.Array, error) {
	out, err := Take(mem, perGroup, ids)
	if err != nil {
		return nil, fmt.Errorf("broadcast: %w", err)
	}
	return out, nil
}

// TakeRecord gathers rows of every column of rec by index (-1 gives a row
// of nulls); the result has rec's schema and len(idx) rows.
func TakeRecord(mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer releaseAll(cols)
	for i := range cols {
		c, err := Take(mem, rec.Column(i), idx)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.Schema().Field(i).Name, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// badIndex is the error for an index outside [-1, n).
func badIndex(j int, i int32, n int) error {
	return fmt.Errorf("take: index %d at position %d is out of range for %d rows", i, j, n)
}

// minRunCopy is the shortest run of consecutive indices a gather copies
// as one block (copy, a memmove); a shorter run is gathered row by row,
// which costs less than a call for a handful of values.
const minRunCopy = 8

// isRunStart is the cheap test for a run at j worth a block copy: the
// index minRunCopy-1 rows on is minRunCopy-1 higher (rarely true of a
// random or a sparse selection, so those pay one compare per row; runEnd
// then checks every index of the run).
func isRunStart(idx []int32, j, hi int) bool {
	return j+minRunCopy <= hi && int(idx[j+minRunCopy-1]) == int(idx[j])+minRunCopy-1
}

// runEnd returns the end of the run of consecutive in-range indices that
// starts at idx[j] (which must be in [0, n)): the least e in (j, hi] such
// that idx[e] != idx[e-1]+1 or idx[e] is not below n, or hi. A filter's
// selection at high selectivity is mostly long runs, which the gathers copy
// as blocks instead of row by row; the result is the same array either way.
func runEnd(idx []int32, j, hi, n int) int {
	e := j + 1
	next := idx[j] + 1 // idx[j] < n <= MaxInt32, so no overflow
	for e < hi && idx[e] == next && int(next) < n {
		e++
		next++
	}
	return e
}

// takeFixed gathers a fixed-width column. (Copying runs of consecutive
// indices as blocks, as takeString does, gains nothing here: finding a
// run reads every index, which is what gathering a fixed-width value
// costs.)
func takeFixed[T fixedWidth](mem memory.Allocator, a arrow.Array, vals []T, idx []int32, p Parallel) (arrow.Array, error) {
	n := len(vals)
	out := newFixedOutDirty[T](mem, len(idx))
	dst := out.vals
	var anyNeg atomic.Bool
	bad, err := p.First(len(idx), func(lo, hi int) int {
		neg := false
		for j := lo; j < hi; j++ {
			i := idx[j]
			if uint32(i) < uint32(n) {
				dst[j] = vals[i]
			} else if i == -1 {
				dst[j] = 0 // under a null
				neg = true
			} else {
				return j
			}
		}
		if neg {
			anyNeg.Store(true)
		}
		return -1
	})
	if err != nil || bad >= 0 {
		out.buf.Release()
		if err != nil {
			return nil, err
		}
		return nil, badIndex(bad, idx[bad], n)
	}
	valid, err := takeValidity(mem, a, idx, anyNeg.Load(), p)
	if err != nil {
		out.buf.Release()
		return nil, err
	}
	return out.finish(a.DataType(), valid), nil
}

// takeValidity builds the result validity of a gather: nil when every
// gathered row is valid.
func takeValidity(mem memory.Allocator, a arrow.Array, idx []int32, anyNeg bool, p Parallel) (*bitmap, error) {
	v := validityOf(a)
	if v.all() && !anyNeg {
		return nil, nil
	}
	bm := newBitmap(mem, len(idx))
	var valid atomic.Int64
	err := p.For(len(idx), func(lo, hi int) {
		k := 0
		for j := lo; j < hi; j++ {
			if i := idx[j]; i >= 0 && v.valid(int(i)) {
				bm.bits[j>>3] |= 1 << (j & 7)
				k++
			}
		}
		valid.Add(int64(k))
	})
	if err != nil {
		bm.buf.Release()
		return nil, err
	}
	bm.nulls = len(idx) - int(valid.Load())
	return bm, nil
}

// takeBool gathers a boolean column (values are a bitmap too).
func takeBool(mem memory.Allocator, a *array.Boolean, idx []int32, p Parallel) (arrow.Array, error) {
	n := a.Len()
	bits, off := boolParts(a)
	vals := newBitmap(mem, len(idx))
	var anyNeg atomic.Bool
	bad, err := p.First(len(idx), func(lo, hi int) int {
		for j := lo; j < hi; j++ {
			i := idx[j]
			if uint32(i) < uint32(n) {
				if bitAt(bits, off, int(i)) {
					vals.bits[j>>3] |= 1 << (j & 7)
				}
			} else if i == -1 {
				anyNeg.Store(true)
			} else {
				return j
			}
		}
		return -1
	})
	if err != nil || bad >= 0 {
		vals.buf.Release()
		if err != nil {
			return nil, err
		}
		return nil, badIndex(bad, idx[bad], n)
	}
	valid, err := takeValidity(mem, a, idx, anyNeg.Load(), p)
	if err != nil {
		vals.buf.Release()
		return nil, err
	}
	return finishArray(a.DataType(), len(idx), valid, vals.buf), nil
}

// takeString gathers a string column in one pass, copying each row's bytes
// into a buffer sized from the input's average length and grown when
// needed (a sizing pass would read every random row's offsets twice).
func takeString(mem memory.Allocator, a *array.String, idx []int32) (arrow.Array, error) {
	n := a.Len()
	offs, data := stringParts(a)
	obuf := newFixedOut[int32](mem, len(idx)+1)
	oo := obuf.vals
	dbuf := memory.NewResizableBuffer(mem)
	if n > 0 {
		avg := int(offs[n]-offs[0])/n + 1
		dbuf.Reserve(min(len(idx)*avg, math.MaxInt32))
	}
	dst := dbuf.Buf()
	pos := 0
	anyNeg := false
	fail := func(err error) (arrow.Array, error) {
		obuf.buf.Release()
		dbuf.Release()
		return nil, err
	}
	for j := 0; j < len(idx); {
		i := idx[j]
		if uint32(i) >= uint32(n) {
			if i != -1 {
				return fail(badIndex(j, i, n))
			}
			oo[j] = int32(pos)
			anyNeg = true
			j++
			continue
		}
		// A run of consecutive rows is one block of bytes (runEnd); a
		// short one is copied row by row.
		e := j + 1
		if isRunStart(idx, j, len(idx)) {
			e = runEnd(idx, j, len(idx), n)
		}
		b0, b1 := offs[i], offs[int(i)+e-j]
		if size := int(b1 - b0); pos+size > len(dst) {
			if pos+size > math.MaxInt32 {
				return fail(fmt.Errorf("take: more than %d bytes of strings exceed the 2 GiB string array limit", math.MaxInt32))
			}
			dbuf.Reserve(min(max(2*len(dst), pos+size), math.MaxInt32))
			dst = dbuf.Buf()
		}
		if e == j+1 {
			oo[j] = int32(pos)
			pos += copy(dst[pos:], data[b0:b1])
			j = e
			continue
		}
		delta := int32(pos) - b0
		for k, o := range offs[i : int(i)+e-j] {
			oo[j+k] = o + delta
		}
		pos += copy(dst[pos:], data[b0:b1])
		j = e
	}
	oo[len(idx)] = int32(pos)
	dbuf.Resize(pos)
	valid, err := takeValidity(mem, a, idx, anyNeg, Parallel{})
	if err != nil {
		return fail(err)
	}
	return finishArray(a.DataType(), len(idx), valid, obuf.buf, dbuf), nil
}

// takeStringParallel gathers a string column in two parallel passes: each
// partition sizes its rows, then, at its offset in one exactly sized
// buffer, copies them. A bad index or a result beyond the 2 GiB utf8 limit
// is left to takeString, so the error is the one met first in row order.
func takeStringParallel(mem memory.Allocator, a *array.String, idx []int32, p Parallel) (arrow.Array, error) {
	n := a.Len()
	offs, data := stringParts(a)
	parts := p.Split(len(idx))
	sizes := make([]int, len(parts))
	bad := make([]bool, len(parts))
	neg := make([]bool, len(parts))
	if err := p.Run(len(parts), func(k int) {
		size := 0
		for _, i := range idx[parts[k].Lo:parts[k].Hi] {
			if uint32(i) < uint32(n) {
				size += int(offs[i+1] - offs[i])
			} else if i == -1 {
				neg[k] = true
			} else {
				bad[k] = true
				return
			}
		}
		sizes[k] = size
	}); err != nil {
		return nil, err
	}
	base := make([]int, len(parts)+1)
	anyNeg := false
	for k := range parts {
		if bad[k] {
			return takeString(mem, a, idx)
		}
		anyNeg = anyNeg || neg[k]
		base[k+1] = base[k] + sizes[k]
	}
	if base[len(parts)] > math.MaxInt32 {
		return takeString(mem, a, idx)
	}
	obuf := newFixedOutDirty[int32](mem, len(idx)+1)
	dbuf := memory.NewResizableBuffer(mem)
	dbuf.Resize(base[len(parts)])
	oo, dst := obuf.vals, dbuf.Bytes()
	if err := p.Run(len(parts), func(k int) {
		pos := base[k]
		for j, hi := parts[k].Lo, parts[k].Hi; j < hi; {
			i := idx[j]
			if i < 0 {
				oo[j] = int32(pos)
				j++
				continue
			}
			e := j + 1
			if isRunStart(idx, j, hi) {
				e = runEnd(idx, j, hi, n)
			}
			b0, b1 := offs[i], offs[int(i)+e-j]
			delta := int32(pos) - b0
			for k, o := range offs[i : int(i)+e-j] {
				oo[j+k] = o + delta
			}
			pos += copy(dst[pos:], data[b0:b1])
			j = e
		}
	}); err != nil {
		obuf.buf.Release()
		dbuf.Release()
		return nil, err
	}
	oo[len(idx)] = int32(base[len(parts)])
	valid, err := takeValidity(mem, a, idx, anyNeg, p)
	if err != nil {
		obuf.buf.Release()
		dbuf.Release()
		return nil, err
	}
	return finishArray(a.DataType(), len(idx), valid, obuf.buf, dbuf), nil
}

// TakeBytes bounds the bytes Take(mem, arr, idx) allocates (what it asks
// the allocator for: every buffer is a multiple of 64 bytes, as
// memory.Buffer reserves them), computed without allocating: the check a
// caller under a memory limit makes before a gather. For strings it sums
// the selected values' lengths.
func TakeBytes(arr arrow.Array, idx []int32) int64 {
	n := int64(len(idx))
	valid := round64((n + 7) / 8)
	switch a := arr.(type) {
	case *array.Int64, *array.Float64:
		return valid + round64(8*n)
	case *array.Int32, *array.Date32:
		return valid + round64(4*n)
	case *array.Boolean:
		return 2 * valid
	case *array.String:
		offs := a.ValueOffsets()
		data := int64(0)
		for _, i := range idx {
			if i >= 0 && int(i) < a.Len() {
				data += int64(offs[i+1] - offs[i])
			}
		}
		return valid + round64(4*(n+1)) + round64(data)
	}
	return valid + round64(8*n)
}

// ArrayBytes bounds the bytes of a gather of every row of a (in any
// order): what a kernel that copies a column may ask the allocator for.
func ArrayBytes(a arrow.Array) int64 {
	n := int64(a.Len())
	valid := round64((n + 7) / 8)
	switch a.DataType().ID() {
	case arrow.INT32, arrow.DATE32:
		return valid + round64(4*n)
	case arrow.BOOL:
		return 2 * valid
	case arrow.STRING:
		return valid + round64(4*(n+1)) + round64(stringBytes(a))
	}
	return valid + round64(8*n)
}

// round64 rounds a buffer size up to memory.Buffer's multiple of 64.
func round64(n int64) int64 { return (n + 63) &^ 63 }
