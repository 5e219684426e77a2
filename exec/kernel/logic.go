package kernel

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// boolBytes is a bool operand as byte-aligned value and validity bitmaps.
// A scalar (or an absent validity) is a one-byte slice read through a zero
// index mask, so the kernels index every operand the same way, without a
// branch per byte.
type boolBytes struct {
	vals, valid         []byte
	valsMask, validMask int
}

var allValid = []byte{0xff}

func boolBytesOf(v *view, n int) boolBytes {
	if v.scalar {
		b := boolBytes{vals: []byte{0}, valid: allValid}
		if v.valid != nil {
			b.valid = []byte{0}
		}
		if v.boolAt(0) {
			b.vals[0] = 0xff
		}
		return b
	}
	b := boolBytes{vals: alignedBits(v.bits, v.boff, n), valid: allValid, valsMask: -1}
	if v.valid != nil {
		b.valid, b.validMask = alignedBits(v.valid, v.voff, n), -1
	}
	return b
}

// kleene evaluates and/or with Kleene logic, eight rows per byte: a row of
// "and" is valid when both sides are valid or either is a valid false (then
// false); "or" likewise with true. compute has and_kleene/or_kleene, but at
// 7-10 µs per call and with no scalar broadcast; this is a few bit ops per
// byte.
func (x *evalCtx) kleene(e *plan.Call, a, b datum) (datum, error) {
	va, vb := viewOf(a), viewOf(b)
	if va.scalar {
		va, vb = vb, va // both operators are commutative
	}
	n := va.n
	A, B := boolBytesOf(&va, n), boolBytesOf(&vb, n)
	buf, out := newBitmap(x.mem, n)
	and := e.Fn == plan.FuncAnd
	if va.valid == nil && vb.valid == nil {
		for i := range out {
			if and {
				out[i] = A.vals[i&A.valsMask] & B.vals[i&B.valsMask]
			} else {
				out[i] = A.vals[i&A.valsMask] | B.vals[i&B.valsMask]
			}
		}
		return arrayDatum(plan.Bool, makeArray(plan.Bool, n, 0, nil, buf)), nil
	}
	validBuf, valid := newBitmap(x.mem, n)
	for i := range out {
		av, am := A.vals[i&A.valsMask], A.valid[i&A.validMask]
		bv, bm := B.vals[i&B.valsMask], B.valid[i&B.validMask]
		if and {
			out[i] = av & bv
			valid[i] = (am & bm) | (am &^ av) | (bm &^ bv)
		} else {
			out[i] = av | bv
			valid[i] = (am & bm) | (am & av) | (bm & bv)
		}
	}
	nulls := countNulls(valid, n)
	return arrayDatum(plan.Bool, makeArray(plan.Bool, n, nulls, validBuf, buf)), nil
}

// not inverts the value bits a byte at a time and shares the validity
// (compute's not costs 7-10 µs per call and copies the validity).
func (x *evalCtx) not(a datum) (datum, error) {
	v := viewOf(a)
	n := v.n
	src := alignedBits(v.bits, v.boff, n)
	buf, out := newBitmap(x.mem, n)
	for i := range out {
		out[i] = ^src[i]
	}
	valid := shareValidity(x.mem, &v)
	return arrayDatum(plan.Bool, makeArray(plan.Bool, n, v.nulls, valid, buf)), nil
}

// isNull evaluates is_null (or is_not_null): never null. It reads the
// validity bitmap a byte at a time (compute's is_null costs 7-10 µs per call
// and cannot answer with a constant); over an array with no nulls the answer
// is a constant, returned as a scalar.
func (x *evalCtx) isNull(wantNull bool, a datum) (datum, error) {
	v := viewOf(a)
	if v.valid == nil {
		return scalarDatum(plan.BoolValue(!wantNull)), nil
	}
	n := v.n
	src := alignedBits(v.valid, v.voff, n)
	buf, out := newBitmap(x.mem, n)
	if wantNull {
		for i := range out {
			out[i] = ^src[i]
		}
	} else {
		copy(out, src)
	}
	return arrayDatum(plan.Bool, makeArray(plan.Bool, n, 0, nil, buf)), nil
}

// isNaN evaluates is_nan: true for a valid NaN, false otherwise (null
// included), never null. compute's is_nan is null on null input; this one
// masks the NaN bits with the validity instead.
func (x *evalCtx) isNaN(a datum) (datum, error) {
	v := viewOf(a)
	n := v.n
	buf, out := newBitmap(x.mem, n)
	f := v.f64
	if v.typ == plan.Float32 {
		f = make([]float64, n)
		for i, y := range v.f32[:n] {
			f[i] = float64(y)
		}
	}
	f = f[:n]
	var scratch [block]bool
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		t := scratch[:hi-lo]
		for i := range t {
			t[i] = math.IsNaN(f[lo+i])
		}
		packBools(out[lo>>3:], t)
	}
	if v.valid != nil {
		valid := alignedBits(v.valid, v.voff, n)
		for i := range out {
			out[i] &= valid[i]
		}
	}
	return arrayDatum(plan.Bool, makeArray(plan.Bool, n, 0, nil, buf)), nil
}
