package kernel

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// boolBytes returns a bool datum's values and validity as byte-aligned
// bitmaps covering n rows (a scalar as a constant byte). valid is nil when
// nothing is null.
type boolBytes struct {
	vals, valid []byte
	cv, cvalid  byte // the constant bytes of a scalar
	scalar      bool
}

func boolBytesOf(v *view, n int) boolBytes {
	if v.scalar {
		b := boolBytes{scalar: true, cvalid: 0xff}
		if v.valid != nil {
			b.cvalid = 0
		}
		if v.boolAt(0) {
			b.cv = 0xff
		}
		return b
	}
	b := boolBytes{vals: alignedBits(v.bits, v.boff, n)}
	if v.valid != nil {
		b.valid = alignedBits(v.valid, v.voff, n)
	}
	return b
}

func (b *boolBytes) at(i int) (val, valid byte) {
	if b.scalar {
		return b.cv, b.cvalid
	}
	val = b.vals[i]
	valid = 0xff
	if b.valid != nil {
		valid = b.valid[i]
	}
	return val, valid
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
	validBuf, valid := newBitmap(x.mem, n)
	and := e.Fn == plan.FuncAnd
	for i := range out {
		av, am := A.at(i)
		bv, bm := B.at(i)
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

// not inverts the value bits and keeps the validity.
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

// isNull evaluates is_null (or is_not_null): never null. Over an array with
// no nulls the answer is a constant, returned as a scalar.
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
// included), never null.
func (x *evalCtx) isNaN(a datum) (datum, error) {
	v := viewOf(a)
	n := v.n
	buf, out := newBitmap(x.mem, n)
	f := v.f64[:n]
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
