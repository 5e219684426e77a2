package kernel

import (
	"errors"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/nest"
	"github.com/dfopt/dfopt/plan"
)

// gather builds an array of n rows of type t whose row i is row at[i] of
// source which[i]. which nil means source 0 for every row; which[i] < 0
// means a null row; at nil means row i. A scalar source is read at its one
// row whatever at says.
//
// It is the general assembly loop behind coalesce() (first non-null source)
// and, for strings, if() and the gathering of a branch's rows; fixed-width
// and bool columns have tighter loops (take, mergeIf, blendIf). compute.Take
// would serve the take only, at 7-10 µs per call, and Arrow has no if_else
// or coalesce kernel (go-deps.md §1.1).
func gather(mem memory.Allocator, t plan.Type, n int, srcs []view, which []int8, at []int32) (arrow.Array, error) {
	needValid := false
	for i := range srcs {
		if srcs[i].valid != nil {
			needValid = true
		}
	}
	if which != nil && !needValid {
		for _, w := range which {
			if w < 0 {
				needValid = true
				break
			}
		}
	}
	var vbuf *memory.Buffer
	var bm []byte
	if needValid {
		vbuf, bm = newBitmap(mem, n)
	}
	src := func(i int) (s *view, j int, ok bool) {
		k := 0
		if which != nil {
			if which[i] < 0 {
				return nil, 0, false
			}
			k = int(which[i])
		}
		s = &srcs[k]
		j = i
		if at != nil {
			j = int(at[i])
		}
		if s.scalar {
			j = 0
		}
		return s, j, true
	}
	nulls := 0
	switch t.Physical() {
	case plan.Int32:
		buf, out := newFixed[int32](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []int32 { return v.i32 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int64:
		buf, out := newFixed[int64](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []int64 { return v.i64 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Float64:
		buf, out := newFixed[float64](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []float64 { return v.f64 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int8:
		buf, out := newFixed[int8](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []int8 { return v.i8 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int16:
		buf, out := newFixed[int16](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []int16 { return v.i16 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint8:
		buf, out := newFixed[uint8](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []uint8 { return v.u8 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint16:
		buf, out := newFixed[uint16](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []uint16 { return v.u16 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint32:
		buf, out := newFixed[uint32](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []uint32 { return v.u32 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint64:
		buf, out := newFixed[uint64](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []uint64 { return v.u64 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Float32:
		buf, out := newFixed[float32](mem, n)
		nulls = gatherFixed(out, bm, srcs, func(v *view) []float32 { return v.f32 }, which, at)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Bool:
		buf, out := newBitmap(mem, n)
		for i := 0; i < n; i++ {
			s, j, ok := src(i)
			if !ok || !s.isValid(j) {
				nulls++
				continue
			}
			if bm != nil {
				bm[i>>3] |= 1 << (i & 7)
			}
			if s.boolAt(j) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return makeArray(t, n, nulls, vbuf, buf), nil
	default: // plan.String
		total := 0
		for i := 0; i < n; i++ {
			if s, j, ok := src(i); ok && s.isValid(j) {
				total += int(s.offs[j+1] - s.offs[j])
			}
		}
		if total > math.MaxInt32 {
			// A scalar repeated n times can exceed Arrow's int32 offsets.
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, errStringTooLong
		}
		obuf, offs := newFixed[int32](mem, n+1)
		dbuf, data := newBytes(mem, total)
		pos := 0
		for i := 0; i < n; i++ {
			offs[i] = int32(pos)
			s, j, ok := src(i)
			if !ok || !s.isValid(j) {
				nulls++
				continue
			}
			if bm != nil {
				bm[i>>3] |= 1 << (i & 7)
			}
			pos += copy(data[pos:], s.data[s.offs[j]:s.offs[j+1]])
		}
		offs[n] = int32(pos)
		return makeArray(t, n, nulls, vbuf, obuf, dbuf), nil
	}
}

// errStringTooLong reports a string result beyond the 2 GiB that Arrow's
// int32 offsets can address.
var errStringTooLong = errors.New("the string result exceeds 2 GiB, the limit of Arrow's utf8 layout")

// gatherFixed is gather's loop for fixed-width values; it returns the null
// count and sets the validity bits in bm when bm is not nil.
func gatherFixed[T numeric](out []T, bm []byte, srcs []view, vals func(*view) []T, which []int8, at []int32) int {
	n := len(out)
	if which == nil && len(srcs) == 1 && srcs[0].valid == nil && !srcs[0].scalar {
		// A take with no nulls: the tight loop.
		v := vals(&srcs[0])
		if at == nil {
			copy(out, v[:n])
			return 0
		}
		for i, j := range at[:n] {
			out[i] = v[j]
		}
		return 0
	}
	vs := make([][]T, len(srcs))
	for k := range srcs {
		vs[k] = vals(&srcs[k])
	}
	nulls := 0
	for i := 0; i < n; i++ {
		k := 0
		if which != nil {
			if which[i] < 0 {
				nulls++
				continue
			}
			k = int(which[i])
		}
		s := &srcs[k]
		j := i
		if at != nil {
			j = int(at[i])
		}
		if s.scalar {
			j = 0
		}
		if !s.isValid(j) {
			nulls++
			continue
		}
		out[i] = vs[k][j]
		if bm != nil {
			bm[i>>3] |= 1 << (i & 7)
		}
	}
	return nulls
}

// take returns rows idx of one source (a gather with a single source), the
// column copy behind an if branch's sub-input. Fixed-width and bool columns
// get a branch-free loop that gathers values and validity bits together;
// strings go through gather.
func take(mem memory.Allocator, t plan.Type, src *view, idx []int32) (arrow.Array, error) {
	if t.IsNested() {
		return nest.Take(mem, src.nested, idx)
	}
	n := len(idx)
	var vbuf *memory.Buffer
	var bm []byte
	if src.valid != nil {
		vbuf, bm = newBitmap(mem, n)
	}
	switch t.Physical() {
	case plan.Int32:
		buf, out := newFixed[int32](mem, n)
		takeFixed(out, bm, src.i32, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Int64:
		buf, out := newFixed[int64](mem, n)
		takeFixed(out, bm, src.i64, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Float64:
		buf, out := newFixed[float64](mem, n)
		takeFixed(out, bm, src.f64, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Int8:
		buf, out := newFixed[int8](mem, n)
		takeFixed(out, bm, src.i8, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Int16:
		buf, out := newFixed[int16](mem, n)
		takeFixed(out, bm, src.i16, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Uint8:
		buf, out := newFixed[uint8](mem, n)
		takeFixed(out, bm, src.u8, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Uint16:
		buf, out := newFixed[uint16](mem, n)
		takeFixed(out, bm, src.u16, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Uint32:
		buf, out := newFixed[uint32](mem, n)
		takeFixed(out, bm, src.u32, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Uint64:
		buf, out := newFixed[uint64](mem, n)
		takeFixed(out, bm, src.u64, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Float32:
		buf, out := newFixed[float32](mem, n)
		takeFixed(out, bm, src.f32, src, idx)
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	case plan.Bool:
		buf, out := newBitmap(mem, n)
		takeBits(out, src.bits, src.boff, idx)
		if bm != nil {
			takeBits(bm, src.valid, src.voff, idx)
		}
		return makeArray(t, n, countNulls(bm, n), vbuf, buf), nil
	}
	if vbuf != nil {
		vbuf.Release()
	}
	return gather(mem, t, n, []view{*src}, nil, idx)
}

// takeFixed gathers values (and validity bits into bm when it is not nil).
func takeFixed[T numeric](out []T, bm []byte, v []T, src *view, idx []int32) {
	for i, j := range idx[:len(out)] {
		out[i] = v[j]
	}
	if bm != nil {
		takeBits(bm, src.valid, src.voff, idx)
	}
}

// takeBits sets bit i of dst to bit off+idx[i] of src, without branches.
func takeBits(dst, src []byte, off int, idx []int32) {
	for i, j := range idx {
		k := off + int(j)
		dst[i>>3] |= (src[k>>3] >> (k & 7) & 1) << (i & 7)
	}
}

// mergeIf assembles if()'s result from its two branch results: the then
// branch for rows tIdx, the else branch for rows eIdx. A branch result is
// either full (one value per row of the input, read at the row itself),
// partial (one value per row it took, in order) or a scalar. Fixed-width and
// bool results are scattered branch by branch in tight loops; strings, whose
// output is written in row order, go through gather.
func mergeIf(mem memory.Allocator, t plan.Type, n int, tv, ev *view, tIdx, eIdx []int32, tFull, eFull bool) (arrow.Array, error) {
	if t == plan.String {
		which := make([]int8, n)
		at := make([]int32, n)
		for k, i := range tIdx {
			at[i] = int32(k)
			if tFull {
				at[i] = i
			}
		}
		for k, i := range eIdx {
			which[i] = 1
			at[i] = int32(k)
			if eFull {
				at[i] = i
			}
		}
		return gather(mem, t, n, []view{*tv, *ev}, which, at)
	}
	var vbuf *memory.Buffer
	var bm []byte
	if tv.valid != nil || ev.valid != nil {
		vbuf, bm = newBitmap(mem, n)
		scatterValidity(bm, tv, tIdx, tFull)
		scatterValidity(bm, ev, eIdx, eFull)
	}
	nulls := countNulls(bm, n)
	switch t.Physical() {
	case plan.Int32:
		buf, out := newFixed[int32](mem, n)
		scatterFixed(out, tv.i32, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.i32, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int64:
		buf, out := newFixed[int64](mem, n)
		scatterFixed(out, tv.i64, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.i64, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Float64:
		buf, out := newFixed[float64](mem, n)
		scatterFixed(out, tv.f64, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.f64, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int8:
		buf, out := newFixed[int8](mem, n)
		scatterFixed(out, tv.i8, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.i8, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int16:
		buf, out := newFixed[int16](mem, n)
		scatterFixed(out, tv.i16, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.i16, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint8:
		buf, out := newFixed[uint8](mem, n)
		scatterFixed(out, tv.u8, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.u8, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint16:
		buf, out := newFixed[uint16](mem, n)
		scatterFixed(out, tv.u16, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.u16, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint32:
		buf, out := newFixed[uint32](mem, n)
		scatterFixed(out, tv.u32, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.u32, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Uint64:
		buf, out := newFixed[uint64](mem, n)
		scatterFixed(out, tv.u64, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.u64, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Float32:
		buf, out := newFixed[float32](mem, n)
		scatterFixed(out, tv.f32, tv.scalar, tIdx, tFull)
		scatterFixed(out, ev.f32, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	default: // plan.Bool
		buf, out := newBitmap(mem, n)
		scatterBits(out, tv.bits, tv.boff, tv.scalar, tIdx, tFull)
		scatterBits(out, ev.bits, ev.boff, ev.scalar, eIdx, eFull)
		return makeArray(t, n, nulls, vbuf, buf), nil
	}
}

// scatterFixed writes a branch's values to its rows idx.
func scatterFixed[T numeric](out, v []T, scalar bool, idx []int32, full bool) {
	switch {
	case scalar:
		s := v[0]
		for _, i := range idx {
			out[i] = s
		}
	case full:
		for _, i := range idx {
			out[i] = v[i]
		}
	default:
		v = v[:len(idx)]
		for k, i := range idx {
			out[i] = v[k]
		}
	}
}

// scatterBits writes a branch's bits (values or validity) to its rows idx.
func scatterBits(out, src []byte, off int, scalar bool, idx []int32, full bool) {
	switch {
	case scalar:
		if src[0]&1 != 0 {
			for _, i := range idx {
				out[i>>3] |= 1 << (i & 7)
			}
		}
	case full:
		for _, i := range idx {
			k := off + int(i)
			out[i>>3] |= (src[k>>3] >> (k & 7) & 1) << (i & 7)
		}
	default:
		for j, i := range idx {
			k := off + j
			out[i>>3] |= (src[k>>3] >> (k & 7) & 1) << (i & 7)
		}
	}
}

// scatterValidity writes a branch's validity to its rows idx (all valid
// when the branch has no nulls).
func scatterValidity(bm []byte, v *view, idx []int32, full bool) {
	if v.valid == nil {
		for _, i := range idx {
			bm[i>>3] |= 1 << (i & 7)
		}
		return
	}
	scatterBits(bm, v.valid, v.voff, v.scalar, idx, full)
}

// blendIf assembles if()'s result when both branch results cover every row
// (or are scalars): row i is the then value where takes has bit i, else the
// else value. Fixed-width values are selected with a bit mask rather than a
// branch (conditions are often unpredictable), validity and bool values a
// byte at a time; strings go through gather.
func blendIf(mem memory.Allocator, t plan.Type, n int, tv, ev *view, takes []byte) (arrow.Array, error) {
	if t == plan.String || isNarrow(t) {
		which := make([]int8, n)
		for i := range which {
			which[i] = int8(1 - takes[i>>3]>>(i&7)&1)
		}
		return gather(mem, t, n, []view{*tv, *ev}, which, nil)
	}
	var vbuf *memory.Buffer
	nulls := 0
	if tv.valid != nil || ev.valid != nil {
		var bm []byte
		vbuf, bm = newBitmap(mem, n)
		tb, eb := validityBytes(tv, n), validityBytes(ev, n)
		blendBytes(bm, tb, eb, takes)
		nulls = countNulls(bm, n)
	}
	switch t.Physical() {
	case plan.Int32:
		buf, out := newFixed[int32](mem, n)
		blendFixed(u32s(out), u32s(tv.i32), u32s(ev.i32), tv.scalar, ev.scalar, takes)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Int64:
		buf, out := newFixed[int64](mem, n)
		blendFixed(u64s(out), u64s(tv.i64), u64s(ev.i64), tv.scalar, ev.scalar, takes)
		return makeArray(t, n, nulls, vbuf, buf), nil
	case plan.Float64:
		buf, out := newFixed[float64](mem, n)
		blendFixed(u64s(out), u64s(tv.f64), u64s(ev.f64), tv.scalar, ev.scalar, takes)
		return makeArray(t, n, nulls, vbuf, buf), nil
	default: // plan.Bool
		buf, out := newBitmap(mem, n)
		blendBytes(out, valueBytes(tv, n), valueBytes(ev, n), takes)
		return makeArray(t, n, nulls, vbuf, buf), nil
	}
}

// blendFixed sets out[i] to t[i] where takes has bit i, else e[i] (index 0
// of a scalar), by masking bits: out = t&m | e&^m with m all ones or zeros.
func blendFixed[U uint32 | uint64](out, t, e []U, tScalar, eScalar bool, takes []byte) {
	tm, em := -1, -1
	if tScalar {
		tm = 0
	}
	if eScalar {
		em = 0
	}
	for i := range out {
		m := -U(takes[i>>3] >> (i & 7) & 1)
		out[i] = t[i&tm]&m | e[i&em]&^m
	}
}

// blendBytes selects bitmap bytes: out = t&takes | e&^takes.
func blendBytes(out, t, e, takes []byte) {
	for i := range out {
		out[i] = t[i]&takes[i] | e[i]&^takes[i]
	}
}

// validityBytes is a view's validity as n bits from bit 0 (all ones when it
// has no nulls, all ones or zeros for a scalar).
func validityBytes(v *view, n int) []byte {
	if v.valid != nil && !v.scalar {
		return alignedBits(v.valid, v.voff, n)
	}
	out := make([]byte, (n+7)/8)
	if v.valid == nil {
		memory.Set(out, 0xff)
	}
	return out
}

// valueBytes is a bool view's values as n bits from bit 0 (a scalar
// repeated).
func valueBytes(v *view, n int) []byte {
	if !v.scalar {
		return alignedBits(v.bits, v.boff, n)
	}
	out := make([]byte, (n+7)/8)
	if v.boolAt(0) {
		memory.Set(out, 0xff)
	}
	return out
}

// u64s and u32s view numeric slices as their bits.
func u64s[T int64 | float64](s []T) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func u32s(s []int32) []uint32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
