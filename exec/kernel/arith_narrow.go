package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// uintArith is the checked kernel of add, sub, mul, div and mod over one
// of the unsigned types (docs/semantics.md, Numeric types): a result below
// 0 or above the type's maximum overflows, a zero divisor is
// divide_by_zero (which wins over nothing: unsigned division cannot
// overflow). Each partition computes its rows with one stopping loop
// (operands read at a row before the row is written, so out may be an
// operand's buffer) and reports its first failing valid row; a null row
// is 0 and never fails.
func uintArith[T uinteger](x *evalCtx, e *plan.Call, in *input, t plan.Type, va, vb *view, valid *memory.Buffer, nulls int,
	buf *memory.Buffer, out []T, inPlace bool) (datum, error) {
	n := in.n
	a, b := nums[T](va), nums[T](vb)
	ia := func(i int) int {
		if va.scalar {
			return 0
		}
		return i
	}
	ib := func(i int) int {
		if vb.scalar {
			return 0
		}
		return i
	}
	fn := e.Fn
	zero := &firstRow{row: -1}
	// step computes row i; false when it fails.
	step := func(i int) bool {
		p, q := a[ia(i)], b[ib(i)]
		switch fn {
		case plan.FuncAdd:
			r := p + q
			if r < p {
				return false
			}
			out[i] = r
		case plan.FuncSub:
			if q > p {
				return false
			}
			out[i] = p - q
		case plan.FuncMul:
			hi, lo := bits.Mul64(uint64(p), uint64(q))
			if hi != 0 || lo != uint64(T(lo)) {
				return false
			}
			out[i] = T(lo)
		case plan.FuncDiv:
			if q == 0 {
				return false
			}
			out[i] = p / q
		default: // mod
			if q == 0 {
				return false
			}
			out[i] = p % q
		}
		return true
	}
	// fast computes rows [lo, hi) of an array-array add, sub or mul with
	// no branch per row and reports whether none overflowed (nulls
	// included); a partition that did is redone by the stopping loop,
	// which needs intact operands, so only into a fresh buffer.
	var fast func(lo, hi int) bool
	if !inPlace && !va.scalar && !vb.scalar {
		switch fn {
		case plan.FuncAdd:
			fast = func(lo, hi int) bool { return uaddAA(out[lo:hi], a[lo:hi], b[lo:hi]) }
		case plan.FuncSub:
			fast = func(lo, hi int) bool { return usubAA(out[lo:hi], a[lo:hi], b[lo:hi]) }
		}
	}
	i := x.firstStop(n, func(lo, hi int) int {
		if fast != nil && fast(lo, hi) {
			return -1
		}
		for i := lo; i < hi; i++ {
			if step(i) {
				continue
			}
			if !va.isValid(ia(i)) || !vb.isValid(ib(i)) {
				out[i] = 0 // a null row: its value is unspecified
				continue
			}
			if fn == plan.FuncDiv || fn == plan.FuncMod {
				zero.found(i)
			}
			return i
		}
		return -1
	})
	if i >= 0 {
		p, q := a[ia(i)], b[ib(i)]
		kind, msg := plan.Overflow, fmt.Sprintf("%s overflow: %d %s %d", t, p, arithSym[fn], q)
		if zero.row >= 0 {
			kind, msg = plan.DivideByZero, fmt.Sprintf("division by zero: %d %s 0", p, arithSym[fn])
		}
		buf.Release()
		if valid != nil {
			valid.Release()
		}
		return datum{}, x.fail(kind, e, in, i, msg, nil)
	}
	return freshDatum(t, makeArray(t, n, nulls, valid, buf)), nil
}

// arithSym spells the arithmetic functions in messages.
var arithSym = map[plan.Func]string{plan.FuncAdd: "+", plan.FuncSub: "-", plan.FuncMul: "*", plan.FuncDiv: "/", plan.FuncMod: "%"}

// float32Arith is IEEE binary32 arithmetic with the NaN rule of
// docs/semantics.md (the left NaN operand, quieted); mod is math.Mod of
// the values widened to float64, narrowed back (exact). It never raises.
func float32Arith(x *evalCtx, e *plan.Call, in *input, va, vb *view, valid *memory.Buffer, nulls int, buf *memory.Buffer, out []float32) datum {
	n := in.n
	a, b := va.f32, vb.f32
	fn := e.Fn
	x.rows(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ia, ib := i, i
			if va.scalar {
				ia = 0
			}
			if vb.scalar {
				ib = 0
			}
			p, q := a[ia], b[ib]
			var r float32
			switch fn {
			case plan.FuncAdd:
				r = p + q
			case plan.FuncSub:
				r = p - q
			case plan.FuncMul:
				r = p * q
			case plan.FuncDiv:
				r = p / q
			default:
				out[i] = ieee.Narrow64(math.Mod(ieee.Widen32(p), ieee.Widen32(q)))
				continue
			}
			if r != r {
				r = ieee.PickNaN32(p, q, r)
			}
			out[i] = r
		}
	})
	return freshDatum(plan.Float32, makeArray(plan.Float32, n, nulls, valid, buf))
}

// uaddAA adds without stopping and reports whether no row wrapped.
func uaddAA[T uinteger](out, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	var bad T
	for i := range out {
		r := a[i] + b[i]
		if r < a[i] {
			bad = 1
		}
		out[i] = r
	}
	return bad == 0
}

// usubAA subtracts without stopping and reports whether no row went
// below zero.
func usubAA[T uinteger](out, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	var bad T
	for i := range out {
		if b[i] > a[i] {
			bad = 1
		}
		out[i] = a[i] - b[i]
	}
	return bad == 0
}
