package kernel

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

const signBit = uint64(1) << 63

// negAbs evaluates neg and abs. Integers are checked (MinInt has no
// negation); floats only touch the sign bit, so a NaN keeps its payload:
// neg flips the sign bit (of NaN too), abs clears it.
func (x *evalCtx) negAbs(e *plan.Call, in *input, a datum) (datum, error) {
	if a.isNullScalar() {
		return nullDatum(a.typ), nil
	}
	v := viewOf(a)
	n := in.n
	neg := e.Fn == plan.FuncNeg
	switch a.typ {
	case plan.Int32:
		buf, out, _ := outFixed[int32](x.mem, n, a)
		return negAbsInt(x, e, in, &v, neg, buf, out, int32(math.MinInt32))
	case plan.Int64:
		buf, out, _ := outFixed[int64](x.mem, n, a)
		return negAbsInt(x, e, in, &v, neg, buf, out, int64(math.MinInt64))
	case plan.Int8:
		buf, out, _ := outFixed[int8](x.mem, n, a)
		return negAbsInt(x, e, in, &v, neg, buf, out, int8(math.MinInt8))
	case plan.Int16:
		buf, out, _ := outFixed[int16](x.mem, n, a)
		return negAbsInt(x, e, in, &v, neg, buf, out, int16(math.MinInt16))
	case plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64:
		if !neg { // abs of an unsigned value is the value
			return retained(a), nil
		}
	case plan.Float64:
		buf, out, _ := outFixed[float64](x.mem, n, a)
		negAbsFloat(out, v.f64, neg)
		valid := shareValidity(x.mem, &v)
		return freshDatum(plan.Float64, makeArray(plan.Float64, n, v.nulls, valid, buf)), nil
	case plan.Float32:
		buf, out, _ := outFixed[float32](x.mem, n, a)
		src := v.f32[:len(out)]
		for i := range out {
			b := math.Float32bits(src[i])
			if neg {
				b ^= 1 << 31
			} else {
				b &^= 1 << 31
			}
			out[i] = math.Float32frombits(b)
		}
		valid := shareValidity(x.mem, &v)
		return freshDatum(plan.Float32, makeArray(plan.Float32, n, v.nulls, valid, buf)), nil
	}
	return datum{}, internalError(e, fmt.Sprintf("%s of %s", e.Fn, a.typ))
}

// negAbsInt is a checked neg/abs: compute's checked negate raises on MinInt
// too, but at 7-10 µs per call; here the overflow test (a & -a is negative
// only for MinInt; branch-free abs is negative only for MinInt) is folded
// into one accumulated word and resolved against validity only if it fires.
// out may be a's own buffer: neg and abs map MinInt, and only MinInt, to
// MinInt, so the failing rows are found in the output.
func negAbsInt[T integer](x *evalCtx, e *plan.Call, in *input, v *view, neg bool, buf *memory.Buffer, out []T, minv T) (datum, error) {
	n := in.n
	a := nums[T](v)[:n]
	out = out[:n]
	var acc T
	if neg {
		for i := range out {
			r := -a[i]
			acc |= a[i] & r
			out[i] = r
		}
	} else {
		shift := int(8*unsafe.Sizeof(minv)) - 1
		for i := range out {
			m := a[i] >> shift
			r := (a[i] ^ m) - m
			acc |= r
			out[i] = r
		}
	}
	if acc < 0 {
		for i := 0; i < n; i++ {
			if out[i] == minv && v.isValid(i) {
				buf.Release()
				return datum{}, x.fail(plan.Overflow, e, in, i,
					fmt.Sprintf("%s overflow: %s(%d)", v.typ, e.Fn, minv), nil)
			}
		}
	}
	valid := shareValidity(x.mem, v)
	return freshDatum(v.typ, makeArray(v.typ, n, v.nulls, valid, buf)), nil
}

// negAbsFloat flips (neg) or clears (abs) the sign bit and nothing else, on
// the bits, so a NaN keeps its payload whatever the compiler emits for a
// float negation (compute's negate/abs would cost 7-10 µs per call).
func negAbsFloat(out, a []float64, neg bool) {
	a = a[:len(out)]
	if neg {
		for i := range out {
			out[i] = math.Float64frombits(math.Float64bits(a[i]) ^ signBit)
		}
		return
	}
	for i := range out {
		out[i] = math.Float64frombits(math.Float64bits(a[i]) &^ signBit)
	}
}
