package kernel

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/dfopt/dfopt/plan"
)

// block is how many rows a comparison decides into a []bool scratch before
// packing them into the output bitmap: big enough to amortise the loop
// set-up, small enough to stay in L1.
const block = 2048

// compare evaluates eq, ne, lt, le, gt and ge. Numbers compare in their
// promoted type with IEEE semantics (NaN is unequal to everything, -0.0 ==
// 0.0), strings by bytes, booleans with false < true. compute's comparisons
// are fast per element but cost 7-10 µs per call and cannot order booleans
// (go-deps.md §1.2), so these are our own loops: one tight compare loop per
// operator into a scratch []bool, then an 8-bools-to-a-byte pack.
func (x *evalCtx) compare(e *plan.Call, a0, b0 datum) (datum, error) {
	t := a0.typ
	if a0.typ != b0.typ {
		var ok bool
		if t, ok = plan.Promote(a0.typ, b0.typ); !ok {
			return datum{}, internalError(e, fmt.Sprintf("compare %s and %s", a0.typ, b0.typ))
		}
	}
	if a0.isNullScalar() || b0.isNullScalar() {
		return nullDatum(plan.Bool), nil
	}
	a := x.promoted(a0, t)
	defer a.release()
	b := x.promoted(b0, t)
	defer b.release()
	va, vb := viewOf(a), viewOf(b)
	op := e.Fn
	if va.scalar {
		// s op b == b flip(op) s: only the right operand is ever a scalar.
		va, vb = vb, va
		op = op.Mirrored()
	}
	n := va.n
	valid, nulls := andValidity(x.mem, n, &va, &vb)
	buf, out := newBitmap(x.mem, n)
	if t == plan.Bool {
		cmpBool(op, out, &va, &vb, n)
	} else {
		// Partitions own whole bytes of out (their rows are multiples of 8).
		x.rows(n, func(lo, hi int) {
			o := out[lo>>3:]
			switch t.Physical() {
			case plan.Int32:
				cmpNum(op, o, va.i32[lo:hi], rest(vb.i32, lo, vb.scalar), vb.scalar)
			case plan.Int64:
				cmpNum(op, o, va.i64[lo:hi], rest(vb.i64, lo, vb.scalar), vb.scalar)
			case plan.Float64:
				cmpNum(op, o, va.f64[lo:hi], rest(vb.f64, lo, vb.scalar), vb.scalar)
			case plan.Int8:
				cmpNum(op, o, va.i8[lo:hi], rest(vb.i8, lo, vb.scalar), vb.scalar)
			case plan.Int16:
				cmpNum(op, o, va.i16[lo:hi], rest(vb.i16, lo, vb.scalar), vb.scalar)
			case plan.Uint8:
				cmpNum(op, o, va.u8[lo:hi], rest(vb.u8, lo, vb.scalar), vb.scalar)
			case plan.Uint16:
				cmpNum(op, o, va.u16[lo:hi], rest(vb.u16, lo, vb.scalar), vb.scalar)
			case plan.Uint32:
				cmpNum(op, o, va.u32[lo:hi], rest(vb.u32, lo, vb.scalar), vb.scalar)
			case plan.Uint64:
				cmpNum(op, o, va.u64[lo:hi], rest(vb.u64, lo, vb.scalar), vb.scalar)
			case plan.Float32:
				cmpNum(op, o, va.f32[lo:hi], rest(vb.f32, lo, vb.scalar), vb.scalar)
			case plan.String:
				cmpStr(op, out, &va, &vb, lo, hi)
			}
		})
	}
	return arrayDatum(plan.Bool, makeArray(plan.Bool, n, nulls, valid, buf)), nil
}

// rest is the values of an operand from row lo on (a scalar's one value
// stays as it is).
func rest[T any](vals []T, lo int, scalar bool) []T {
	if scalar {
		return vals
	}
	return vals[lo:]
}

// packBools packs 0/1 bytes into bits, LSB first, eight at a time with the
// multiply trick (each byte's bit lands in the top byte at its own place).
func packBools(out []byte, t []bool) {
	full := len(t) &^ 7
	if full > 0 {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t))), len(t))
		for i := 0; i < full; i += 8 {
			w := binary.LittleEndian.Uint64(raw[i : i+8])
			out[i>>3] = byte((w * 0x0102040810204080) >> 56)
		}
	}
	if full < len(t) {
		var m byte
		for i := full; i < len(t); i++ {
			m |= b2u(t[i]) << (i - full)
		}
		out[full>>3] = m
	}
}

// cmpNum compares a numeric array with an array or a scalar (b[0]), block by
// block.
func cmpNum[T numeric](op plan.Func, out []byte, a, b []T, bScalar bool) {
	var scratch [block]bool
	n := len(a)
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		t := scratch[:hi-lo]
		if bScalar {
			cmpNumAS(op, t, a[lo:hi], b[0])
		} else {
			cmpNumAA(op, t, a[lo:hi], b[lo:hi])
		}
		packBools(out[lo>>3:], t)
	}
}

func cmpNumAA[T numeric](op plan.Func, t []bool, a, b []T) {
	a, b = a[:len(t)], b[:len(t)]
	switch op {
	case plan.FuncEq:
		for i := range t {
			t[i] = a[i] == b[i]
		}
	case plan.FuncNe:
		for i := range t {
			t[i] = a[i] != b[i]
		}
	case plan.FuncLt:
		for i := range t {
			t[i] = a[i] < b[i]
		}
	case plan.FuncLe:
		for i := range t {
			t[i] = a[i] <= b[i]
		}
	case plan.FuncGt:
		for i := range t {
			t[i] = a[i] > b[i]
		}
	case plan.FuncGe:
		for i := range t {
			t[i] = a[i] >= b[i]
		}
	}
}

func cmpNumAS[T numeric](op plan.Func, t []bool, a []T, s T) {
	a = a[:len(t)]
	switch op {
	case plan.FuncEq:
		for i := range t {
			t[i] = a[i] == s
		}
	case plan.FuncNe:
		for i := range t {
			t[i] = a[i] != s
		}
	case plan.FuncLt:
		for i := range t {
			t[i] = a[i] < s
		}
	case plan.FuncLe:
		for i := range t {
			t[i] = a[i] <= s
		}
	case plan.FuncGt:
		for i := range t {
			t[i] = a[i] > s
		}
	case plan.FuncGe:
		for i := range t {
			t[i] = a[i] >= s
		}
	}
}

// cmpTable maps a three-way comparison (-1, 0, 1, offset by one) to each
// operator's answer.
var cmpTable = map[plan.Func][3]bool{
	plan.FuncEq: {false, true, false},
	plan.FuncNe: {true, false, true},
	plan.FuncLt: {true, false, false},
	plan.FuncLe: {true, true, false},
	plan.FuncGt: {false, false, true},
	plan.FuncGe: {false, true, true},
}

// cmpStr compares rows [from, to) of strings by bytes (Go's string order),
// reading both sides straight from the offsets and data buffers, into out
// (the whole result bitmap; from is a multiple of 8). Equality tests use
// ==, which compares lengths before bytes.
func cmpStr(op plan.Func, out []byte, va, vb *view, from, to int) {
	tbl := cmpTable[op]
	eq := op == plan.FuncEq || op == plan.FuncNe
	ne := op == plan.FuncNe
	var scratch [block]bool
	for lo := from; lo < to; lo += block {
		hi := min(lo+block, to)
		t := scratch[:hi-lo]
		switch {
		case eq && vb.scalar:
			s := vb.str(0)
			for i := range t {
				t[i] = (va.str(lo+i) == s) != ne
			}
		case eq:
			for i := range t {
				t[i] = (va.str(lo+i) == vb.str(lo+i)) != ne
			}
		case vb.scalar:
			s := vb.str(0)
			for i := range t {
				t[i] = tbl[strings.Compare(va.str(lo+i), s)+1]
			}
		default:
			for i := range t {
				t[i] = tbl[strings.Compare(va.str(lo+i), vb.str(lo+i))+1]
			}
		}
		packBools(out[lo>>3:], t)
	}
}

// cmpBool compares booleans a byte (eight rows) at a time with bit logic,
// false < true.
func cmpBool(op plan.Func, out []byte, va, vb *view, n int) {
	a := alignedBits(va.bits, va.boff, n)
	var bs []byte
	var sb byte
	if vb.scalar {
		if vb.boolAt(0) {
			sb = 0xff
		}
	} else {
		bs = alignedBits(vb.bits, vb.boff, n)
	}
	for i := range out {
		y := sb
		if bs != nil {
			y = bs[i]
		}
		x := a[i]
		var r byte
		switch op {
		case plan.FuncEq:
			r = ^(x ^ y)
		case plan.FuncNe:
			r = x ^ y
		case plan.FuncLt:
			r = ^x & y
		case plan.FuncLe:
			r = ^x | y
		case plan.FuncGt:
			r = x &^ y
		case plan.FuncGe:
			r = x | ^y
		}
		out[i] = r
	}
}
