package kernel

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// numeric constrains the Go types behind dfopt's fixed-width numeric columns,
// so one generic loop serves every width.
type numeric interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// integer constrains the Go types behind dfopt's signed integer columns.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// uinteger constrains the Go types behind dfopt's unsigned integer columns.
type uinteger interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// float constrains the Go types behind dfopt's float columns.
type float interface {
	~float32 | ~float64
}

// newFixed allocates an output values buffer of n elements of T from mem and
// returns it with a typed view of its bytes. Arrow's builders would append
// value by value; kernels write the slice directly instead.
func newFixed[T numeric](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * size)
	if n == 0 {
		return buf, nil
	}
	b := buf.Bytes()
	return buf, unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// newBitmap allocates a zeroed bitmap of n bits from mem.
func newBitmap(mem memory.Allocator, n int) (*memory.Buffer, []byte) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	b := buf.Bytes()
	clear(b)
	return buf, b
}

// newBytes allocates a byte buffer of n bytes from mem.
func newBytes(mem memory.Allocator, n int) (*memory.Buffer, []byte) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	return buf, buf.Bytes()
}

// makeArray assembles an array of plan type t from buffers it takes over
// (validity first, possibly nil; then the values buffers of the layout). The
// caller's references to the buffers are released.
func makeArray(t plan.Type, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	dt, err := ArrowType(t)
	if err != nil {
		// Unreachable: every caller passes one of the five plan types.
		dt = arrow.Null
	}
	if nulls == 0 && bufs[0] != nil {
		bufs[0].Release()
		bufs[0] = nil
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	arr := array.MakeFromData(data)
	data.Release()
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return arr
}

// b2u converts a bool to 0/1; the compiler turns it into a SETcc, so packing
// comparison results into bitmaps stays branch-free.
func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// bitAt reports bit i (counted from bit offset off) of bm.
func bitAt(bm []byte, off, i int) bool {
	j := off + i
	return bm[j>>3]&(1<<(j&7)) != 0
}

// alignedBits returns n bits of bm starting at bit offset off as a bitmap
// starting at bit 0: the same bytes when off is a multiple of 8, else a
// shifted copy (temporary Go memory, never returned to callers).
func alignedBits(bm []byte, off, n int) []byte {
	if off%8 == 0 {
		return bm[off/8 : off/8+int(bitutil.BytesForBits(int64(n)))]
	}
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.CopyBitmap(bm, off, n, out, 0)
	return out
}

// countNulls returns how many of the first n bits of a validity bitmap
// (starting at bit 0) are clear.
func countNulls(valid []byte, n int) int {
	if valid == nil {
		return 0
	}
	return n - bitutil.CountSetBits(valid, 0, n)
}
