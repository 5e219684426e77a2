package kernel

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sharedValidity views the operands of a function that is null wherever
// any operand is (concat and the string maps) and returns their views with
// the result's validity and null count; ok is false when an operand is a
// null scalar, which makes every row null.
func (x *evalCtx) sharedValidity(args []datum, n int) (vs []view, vbuf *memory.Buffer, nulls int, ok bool) {
	for _, a := range args {
		if a.isNullScalar() {
			return nil, nil, 0, false
		}
	}
	vs = make([]view, len(args))
	ptrs := make([]*view, len(args))
	for i, a := range args {
		vs[i] = viewOf(a)
		ptrs[i] = &vs[i]
	}
	vbuf, nulls = andValidity(x.mem, n, ptrs...)
	return vs, vbuf, nulls, true
}

// andValidity returns the validity of a result that is null wherever any of
// the operand views is null, and its null count. Scalars are non-null here
// (a null scalar operand is handled before any kernel runs). With one
// nullable operand starting at bit 0 its buffer is shared, not copied.
func andValidity(mem memory.Allocator, n int, vs ...*view) (*memory.Buffer, int) {
	var nullable []*view
	for _, v := range vs {
		if v.valid != nil && !v.scalar {
			nullable = append(nullable, v)
		}
	}
	switch len(nullable) {
	case 0:
		return nil, 0
	case 1:
		return shareValidity(mem, nullable[0]), nullable[0].nulls
	}
	buf, bm := newBitmap(mem, n)
	first := nullable[0]
	bitutil.BitmapAnd(first.valid, nullable[1].valid, int64(first.voff), int64(nullable[1].voff), bm, 0, int64(n))
	for _, v := range nullable[2:] {
		other := alignedBits(v.valid, v.voff, n)
		for i := range bm {
			bm[i] &= other[i]
		}
	}
	return buf, countNulls(bm, n)
}

// unsafeString views bytes as a string without copying; the bytes must not
// change while the string is in use (Arrow buffers are immutable once built).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
