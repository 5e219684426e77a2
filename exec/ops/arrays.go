package ops

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// This file holds the low-level helpers every kernel shares: reading the
// validity bitmap of a (possibly sliced) array without an interface call per
// row, and building result arrays directly in allocator memory (a builder
// would copy every value a second time).

// maxRows is the largest input a kernel accepts: row indices are int32.
const maxRows = math.MaxInt32

// validity reads the validity of rows of one array. A nil bitmap means every
// row is valid.
type validity struct {
	bits []byte
	off  int
}

// validityOf returns the validity view of a; arrays without nulls get the
// all-valid view even when they carry a bitmap.
func validityOf(a arrow.Array) validity {
	if a.NullN() == 0 {
		return validity{}
	}
	return validity{bits: a.NullBitmapBytes(), off: a.Data().Offset()}
}

// all reports whether every row is valid.
func (v validity) all() bool { return v.bits == nil }

// valid reports whether row i is valid.
func (v validity) valid(i int) bool {
	if v.bits == nil {
		return true
	}
	j := v.off + i
	return v.bits[j>>3]&(1<<(j&7)) != 0
}

// eachValid calls fn for runs [lo, hi) of valid rows among the first n,
// in row order: the whole range when there is no bitmap, else word by
// word (runs of up to 64 rows), so a reduction's inner loop tests no
// validity bit.
func (v validity) eachValid(n int, fn func(lo, hi int)) {
	if v.bits == nil {
		fn(0, n)
		return
	}
	for base := 0; base < n; base += 64 {
		end := min(base+64, n)
		var w uint64
		if (v.off+base)%8 == 0 && end-base == 64 {
			b := v.bits[(v.off+base)/8:]
			w = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		} else {
			for i := base; i < end; i++ {
				if v.valid(i) {
					w |= 1 << (i - base)
				}
			}
		}
		for w != 0 {
			lo := bits.TrailingZeros64(w)
			run := bits.TrailingZeros64(^(w >> lo))
			if lo+run > 64 {
				run = 64 - lo
			}
			fn(base+lo, base+lo+run)
			if lo+run >= 64 {
				break
			}
			w &^= (1<<run - 1) << lo
		}
	}
}

// null reports whether row i is null.
func (v validity) null(i int) bool { return !v.valid(i) }

// checkRows rejects inputs whose row indices would not fit int32.
func checkRows(n int) error {
	if n > maxRows {
		return fmt.Errorf("%d rows: the kernels handle at most %d rows per call", n, maxRows)
	}
	return nil
}

// newBuffer allocates a zeroed buffer of n bytes from mem.
func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	b := buf.Bytes()
	clear(b)
	return buf
}

// bitmap is a validity bitmap under construction.
type bitmap struct {
	buf   *memory.Buffer
	bits  []byte
	nulls int
}

// newBitmap allocates an all-null bitmap for n rows.
func newBitmap(mem memory.Allocator, n int) *bitmap {
	buf := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	return &bitmap{buf: buf, bits: buf.Bytes(), nulls: n}
}

// set marks row i valid (each row at most once).
func (b *bitmap) set(i int) {
	b.bits[i>>3] |= 1 << (i & 7)
	b.nulls--
}

// fixedWidth are the value types stored in a single fixed-width buffer.
type fixedWidth interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// fixedOut is a fixed-width result array under construction: vals is the
// allocator memory the kernel fills.
type fixedOut[T fixedWidth] struct {
	buf  *memory.Buffer
	vals []T
}

// newFixedOut allocates n zeroed values.
func newFixedOut[T fixedWidth](mem memory.Allocator, n int) fixedOut[T] {
	var zero T
	buf := newBuffer(mem, n*int(unsafe.Sizeof(zero)))
	return fixedOut[T]{buf: buf, vals: arrow.GetData[T](buf.Bytes())[:n]}
}

// newFixedOutDirty allocates n values without clearing them (an allocator
// need not zero): for kernels that write every value. Clearing 80 MB that
// is then overwritten cost a tenth of a gather-heavy query.
func newFixedOutDirty[T fixedWidth](mem memory.Allocator, n int) fixedOut[T] {
	var zero T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	return fixedOut[T]{buf: buf, vals: arrow.GetData[T](buf.Bytes())[:n]}
}

// finish turns the values and an optional validity bitmap (nil = all valid)
// into an array of type dt and releases the builder's references.
func (o fixedOut[T]) finish(dt arrow.DataType, valid *bitmap) arrow.Array {
	return finishArray(dt, len(o.vals), valid, o.buf)
}

// finishArray assembles an array from its buffers (validity first, nil when
// every row is valid) and drops this function's references to them.
func finishArray(dt arrow.DataType, n int, valid *bitmap, bufs ...*memory.Buffer) arrow.Array {
	var vbuf *memory.Buffer
	nulls := 0
	if valid != nil {
		if valid.nulls == 0 {
			valid.buf.Release()
		} else {
			vbuf, nulls = valid.buf, valid.nulls
		}
	}
	all := append([]*memory.Buffer{vbuf}, bufs...)
	data := array.NewData(dt, n, all, nil, nulls, 0)
	for _, b := range all {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// stringParts returns a string array's offsets (one per row plus one,
// already shifted by the array's data offset) and its whole value buffer, so
// row i is data[offs[i]:offs[i+1]].
func stringParts(a *array.String) (offs []int32, data []byte) {
	offs = a.ValueOffsets()
	if bufs := a.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return offs, data
}

// boolParts returns a boolean array's value bitmap and bit offset.
func boolParts(a *array.Boolean) (bits []byte, off int) {
	bufs := a.Data().Buffers()
	if len(bufs) > 1 && bufs[1] != nil {
		bits = bufs[1].Bytes()
	}
	return bits, a.Data().Offset()
}

// bitAt reads bit off+i of a bitmap.
func bitAt(bits []byte, off, i int) bool {
	j := off + i
	return bits[j>>3]&(1<<(j&7)) != 0
}

// typeName names an Arrow type in errors.
func typeName(a arrow.Array) string {
	if a == nil {
		return "<nil>"
	}
	return a.DataType().String()
}
