package kernel

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// arith evaluates add, sub, mul, div and mod over borrowed operands, at
// least one an array. Operands are promoted to the common type first; an
// integer operation is checked in that width (int32 in int32). A checked
// operation is not performed on a row where either operand is null: such a
// row is null, never an error.
func (x *evalCtx) arith(e *plan.Call, in *input, a0, b0 datum) (datum, error) {
	if a0.typ.IsTemporal() || b0.typ.IsTemporal() {
		return x.temporalArith(e, in, a0, b0)
	}
	t, ok := plan.Promote(a0.typ, b0.typ)
	if !ok {
		return datum{}, internalError(e, fmt.Sprintf("arithmetic on %s and %s", a0.typ, b0.typ))
	}
	if a0.isNullScalar() || b0.isNullScalar() {
		return nullDatum(t), nil
	}
	a, b := a0, b0 // borrowed from the caller, or converted here
	if a0.typ != t {
		a = x.promoted(a0, t)
		defer a.release()
	}
	if b0.typ != t {
		b = x.promoted(b0, t)
		defer b.release()
	}
	va, vb := viewOf(a), viewOf(b)
	valid, nulls := andValidity(x.mem, in.n, &va, &vb)
	switch t {
	case plan.Int32:
		buf, out, inPlace := outFixed[int32](x.mem, in.n, a, b)
		return intArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace, math.MinInt32)
	case plan.Int64:
		buf, out, inPlace := outFixed[int64](x.mem, in.n, a, b)
		return intArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace, math.MinInt64)
	case plan.Int8:
		buf, out, inPlace := outFixed[int8](x.mem, in.n, a, b)
		return intArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace, math.MinInt8)
	case plan.Int16:
		buf, out, inPlace := outFixed[int16](x.mem, in.n, a, b)
		return intArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace, math.MinInt16)
	case plan.Uint8:
		buf, out, inPlace := outFixed[uint8](x.mem, in.n, a, b)
		return uintArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace)
	case plan.Uint16:
		buf, out, inPlace := outFixed[uint16](x.mem, in.n, a, b)
		return uintArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace)
	case plan.Uint32:
		buf, out, inPlace := outFixed[uint32](x.mem, in.n, a, b)
		return uintArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace)
	case plan.Uint64:
		buf, out, inPlace := outFixed[uint64](x.mem, in.n, a, b)
		return uintArith(x, e, in, t, &va, &vb, valid, nulls, buf, out, inPlace)
	case plan.Float32:
		buf, out, _ := outFixed[float32](x.mem, in.n, a, b)
		return float32Arith(x, e, in, &va, &vb, valid, nulls, buf, out), nil
	default:
		buf, out, _ := outFixed[float64](x.mem, in.n, a, b)
		return floatArith(x, e, in, &va, &vb, valid, nulls, buf, out), nil
	}
}

// outFixed returns the values buffer for a numeric result of n rows: the
// buffer of an operand that is an intermediate result nothing else holds
// (the kernels read each row's operands before writing its result, so they
// may overwrite an operand in place), or a new one. Reusing saves
// allocating and zeroing a buffer per nested operation. inPlace reports
// the reuse.
func outFixed[T numeric](mem memory.Allocator, n int, ds ...datum) (buf *memory.Buffer, out []T, inPlace bool) {
	var z T
	size := int(unsafe.Sizeof(z))
	for _, d := range ds {
		if !d.tmp || d.arr == nil || d.arr.Len() != n || d.arr.Data().Offset() != 0 {
			continue
		}
		buf := d.arr.Data().Buffers()[1]
		if buf == nil || buf.Len() < n*size || len(d.arr.Data().Buffers()) != 2 {
			continue
		}
		if v := viewOf(d); len(nums[T](&v)) == n {
			buf.Retain()
			return buf, nums[T](&v), true
		}
	}
	buf, out = newFixed[T](mem, n)
	return buf, out, false
}

// nums returns a view's values as []T (T matching the view's type).
func nums[T numeric](v *view) []T {
	var z T
	switch any(z).(type) {
	case int32:
		return any(v.i32).([]T)
	case int64:
		return any(v.i64).([]T)
	case float64:
		return any(v.f64).([]T)
	case int8:
		return any(v.i8).([]T)
	case int16:
		return any(v.i16).([]T)
	case uint8:
		return any(v.u8).([]T)
	case uint16:
		return any(v.u16).([]T)
	case uint32:
		return any(v.u32).([]T)
	case uint64:
		return any(v.u64).([]T)
	case float32:
		return any(v.f32).([]T)
	}
	return nil
}

// is32 reports whether T is narrower than 64 bits (int8, int16, int32):
// its products are formed exactly in int64.
func is32[T integer]() bool {
	var z T
	return unsafe.Sizeof(z) < 8
}

// intArith runs the checked integer kernel for e.Fn into out. Each kernel
// computes rows from a start row on, nulls included (the value under a null
// is unspecified), and stops at the first row whose raw operands fail,
// before writing it (so the operands of that row are intact even when out
// overwrites one of them). If that row is valid it is the error; if it is
// null the kernel resumes after it. The hot loops carry no validity test.
//
// Rows before a partition's stop hold results, and out may be either
// operand's buffer, so no operand is read at such a row once the kernel
// has run: the failing row's operands are read at that row only (it is
// never written), and div and mod look for a zero divisor only among the
// rows their run has not written (see below).
func intArith[T integer](x *evalCtx, e *plan.Call, in *input, t plan.Type, va, vb *view, valid *memory.Buffer, nulls int,
	buf *memory.Buffer, out []T, inPlace bool, minv T) (datum, error) {
	n := in.n
	a, b := nums[T](va), nums[T](vb)
	as, bs := va.scalar, vb.scalar
	mod := e.Fn == plan.FuncMod
	// acc computes rows [lo, lo+len(o)) into o and reports a suspect row;
	// early computes rows [lo, hi) into out and stops at the first failing
	// row (see runChecked).
	var acc func(o []T, lo int) bool
	var early func(lo, hi int) int
	switch e.Fn {
	case plan.FuncAdd:
		switch {
		case as:
			acc = func(o []T, lo int) bool { return addAccAS(o, b[lo:], a[0]) }
			early = func(lo, hi int) int { return lo + addAS(out[lo:hi], b[lo:], a[0]) }
		case bs:
			acc = func(o []T, lo int) bool { return addAccAS(o, a[lo:], b[0]) }
			early = func(lo, hi int) int { return lo + addAS(out[lo:hi], a[lo:], b[0]) }
		default:
			acc = func(o []T, lo int) bool { return addAccAA(o, a[lo:], b[lo:]) }
			early = func(lo, hi int) int { return lo + addAA(out[lo:hi], a[lo:], b[lo:]) }
		}
	case plan.FuncSub:
		switch {
		case as:
			acc = func(o []T, lo int) bool { return subAccSA(o, a[0], b[lo:]) }
			early = func(lo, hi int) int { return lo + subSA(out[lo:hi], a[0], b[lo:]) }
		case bs:
			acc = func(o []T, lo int) bool { return subAccAS(o, a[lo:], b[0]) }
			early = func(lo, hi int) int { return lo + subAS(out[lo:hi], a[lo:], b[0]) }
		default:
			acc = func(o []T, lo int) bool { return subAccAA(o, a[lo:], b[lo:]) }
			early = func(lo, hi int) int { return lo + subAA(out[lo:hi], a[lo:], b[lo:]) }
		}
	case plan.FuncMul:
		switch {
		case as:
			acc = func(o []T, lo int) bool { return mulAccAS(o, b[lo:], a[0]) }
			early = func(lo, hi int) int { return lo + mulAS(out[lo:hi], b[lo:], a[0]) }
		case bs:
			acc = func(o []T, lo int) bool { return mulAccAS(o, a[lo:], b[0]) }
			early = func(lo, hi int) int { return lo + mulAS(out[lo:hi], a[lo:], b[0]) }
		default:
			acc = func(o []T, lo int) bool { return mulAccAA(o, a[lo:], b[lo:]) }
			early = func(lo, hi int) int { return lo + mulAA(out[lo:hi], a[lo:], b[lo:]) }
		}
	}
	// run computes rows [i, hi) and returns the first failing one, or hi.
	run := func(i, hi int) int {
		if acc != nil {
			return runChecked(out[:hi], i, acc, early, inPlace)
		}
		// div, mod: the zero-divisor guard is a branch anyway, so the
		// stopping loop is the fast one.
		switch {
		case as:
			return i + divSA(out[i:hi], a[0], b[i:], minv, mod)
		case bs:
			return i + divAS(out[i:hi], a[i:], b[0], minv, mod)
		default:
			return i + divAA(out[i:hi], a[i:], b[i:], minv, mod)
		}
	}
	operands := func(i int) (int, int) {
		ia, ib := i, i
		if as {
			ia = 0
		}
		if bs {
			ib = 0
		}
		return ia, ib
	}
	// A division's error depends on its rows as a set (docs/semantics.md):
	// when some row divides by zero, divide_by_zero wins over an overflow
	// (MinInt / -1) on an earlier row, and names the first zero divisor.
	// A partition that stops therefore looks for its first zero divisor
	// from its stop on (the stop itself, or a later row after an
	// overflow), among the rows its run has not written: out may be b's
	// own buffer (a temporary divisor such as `b + 0`), and a written row
	// holds a quotient, not its divisor (a quotient of 0 would pass for a
	// zero divisor). Its earlier rows need no look: a valid zero divisor
	// there would have stopped the run.
	var zero *firstRow // nil unless e divides
	if e.Fn == plan.FuncDiv || e.Fn == plan.FuncMod {
		zero = &firstRow{row: -1}
	}
	// Partitions stop at their first valid failing row: the lowest over
	// all of them is the row a sequential run fails at.
	i := x.firstStop(n, func(lo, hi int) int {
		for i := run(lo, hi); i < hi; i = run(i+1, hi) {
			ia, ib := operands(i)
			if !va.isValid(ia) || !vb.isValid(ib) {
				out[i] = 0 // a null row: its value is unspecified
				continue
			}
			if zero != nil {
				for j := i; j < hi; j++ {
					if ja, jb := operands(j); b[jb] == 0 && va.isValid(ja) && vb.isValid(jb) {
						zero.found(j)
						break
					}
				}
			}
			return i
		}
		return -1
	})
	if i >= 0 && zero != nil && zero.row >= 0 {
		i = zero.row // divide_by_zero wins (zero.row >= i: a zero divisor stops a run)
	}
	if i >= 0 {
		ia, ib := operands(i)
		kind, msg := intFailure(e.Fn, t, a[ia], b[ib])
		buf.Release()
		if valid != nil {
			valid.Release()
		}
		return datum{}, x.fail(kind, e, in, i, msg, nil)
	}
	return freshDatum(t, makeArray(t, n, nulls, valid, buf)), nil
}

// firstRow is the lowest row partitions report concurrently (-1: none).
type firstRow struct {
	mu  sync.Mutex
	row int
}

// found reports row j.
func (f *firstRow) found(j int) {
	f.mu.Lock()
	if f.row < 0 || j < f.row {
		f.row = j
	}
	f.mu.Unlock()
}

// checkedBlock is how many rows a checked kernel computes into a scratch
// block before copying them out.
const checkedBlock = 512

// runChecked drives a checked add, sub or mul from row start: block by
// block, the branch-free accumulating loop (it tests for overflow once per
// block, not once per row) computes the block; a suspect block is redone by the
// stopping loop, which writes rows up to the first failing one and returns
// its index. The redo needs the block's operands intact: when out is an
// operand's own buffer (inPlace) the accumulating loop writes into scratch,
// copied out once the block is known good.
func runChecked[T integer](out []T, start int, acc func(o []T, lo int) bool, early func(lo, hi int) int, inPlace bool) int {
	var scratch []T
	if inPlace {
		scratch = make([]T, checkedBlock)
	}
	for lo := start; lo < len(out); lo += checkedBlock {
		hi := min(lo+checkedBlock, len(out))
		o := out[lo:hi]
		if inPlace {
			o = scratch[:hi-lo]
		}
		if !acc(o, lo) {
			if inPlace {
				copy(out[lo:hi], o)
			}
			continue
		}
		if k := early(lo, hi); k < hi {
			return k
		}
	}
	return len(out)
}

// addAccAA is addAA without stopping: it folds the overflow test into one
// accumulated word (negative when some row overflowed) so the loop has no
// branch; the caller redoes a suspect block with addAA.
func addAccAA[T integer](out, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	var acc T
	for i := range out {
		r := a[i] + b[i]
		acc |= (a[i] ^ r) & (b[i] ^ r)
		out[i] = r
	}
	return acc < 0
}

func addAccAS[T integer](out, a []T, s T) bool {
	a = a[:len(out)]
	var acc T
	for i := range out {
		r := a[i] + s
		acc |= (a[i] ^ r) & (s ^ r)
		out[i] = r
	}
	return acc < 0
}

func subAccAA[T integer](out, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	var acc T
	for i := range out {
		r := a[i] - b[i]
		acc |= (a[i] ^ b[i]) & (a[i] ^ r)
		out[i] = r
	}
	return acc < 0
}

func subAccAS[T integer](out, a []T, s T) bool {
	a = a[:len(out)]
	var acc T
	for i := range out {
		r := a[i] - s
		acc |= (a[i] ^ s) & (a[i] ^ r)
		out[i] = r
	}
	return acc < 0
}

func subAccSA[T integer](out []T, s T, b []T) bool {
	b = b[:len(out)]
	var acc T
	for i := range out {
		r := s - b[i]
		acc |= (s ^ b[i]) & (s ^ r)
		out[i] = r
	}
	return acc < 0
}

func mulAccAA[T integer](out, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	var acc int64
	if is32[T]() {
		for i := range out {
			r := int64(a[i]) * int64(b[i])
			acc |= r ^ int64(T(r))
			out[i] = T(r)
		}
		return acc != 0
	}
	for i := range out {
		hi, lo := mul64(int64(a[i]), int64(b[i]))
		acc |= hi ^ (lo >> 63)
		out[i] = T(lo)
	}
	return acc != 0
}

func mulAccAS[T integer](out, a []T, s T) bool {
	a = a[:len(out)]
	y := int64(s)
	var acc int64
	if is32[T]() {
		for i := range out {
			r := int64(a[i]) * y
			acc |= r ^ int64(T(r))
			out[i] = T(r)
		}
		return acc != 0
	}
	for i := range out {
		hi, lo := mul64(int64(a[i]), y)
		acc |= hi ^ (lo >> 63)
		out[i] = T(lo)
	}
	return acc != 0
}

// intFailure names the failure of x op y (a row a kernel stopped at).
func intFailure[T integer](fn plan.Func, t plan.Type, x, y T) (plan.ErrorKind, string) {
	sym := map[plan.Func]string{plan.FuncAdd: "+", plan.FuncSub: "-", plan.FuncMul: "*", plan.FuncDiv: "/", plan.FuncMod: "%"}[fn]
	if (fn == plan.FuncDiv || fn == plan.FuncMod) && y == 0 {
		return plan.DivideByZero, fmt.Sprintf("division by zero: %d %s 0", x, sym)
	}
	return plan.Overflow, fmt.Sprintf("%s overflow: %d %s %d", t, x, sym, y)
}

// addAA is a checked add: compute's checked add runs at 11 ns/element
// (go-deps.md §1.5). This is the stopping form: it tests the sign of each
// result against both operands' (overflow iff it differs from both) and
// returns the first overflowing row, unwritten, or len(out). runChecked
// uses it only on blocks the accumulating form found suspect.
func addAA[T integer](out, a, b []T) int {
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		r := a[i] + b[i]
		if (a[i]^r)&(b[i]^r) < 0 {
			return i
		}
		out[i] = r
	}
	return len(out)
}

// addAS is addAA against a broadcast scalar, without materialising it.
func addAS[T integer](out, a []T, s T) int {
	a = a[:len(out)]
	for i := range out {
		r := a[i] + s
		if (a[i]^r)&(s^r) < 0 {
			return i
		}
		out[i] = r
	}
	return len(out)
}

// subAA is a checked subtract (overflow when the operands' signs differ and
// the result's sign differs from the minuend's), for the same reason as addAA.
func subAA[T integer](out, a, b []T) int {
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		r := a[i] - b[i]
		if (a[i]^b[i])&(a[i]^r) < 0 {
			return i
		}
		out[i] = r
	}
	return len(out)
}

// subAS is subAA against a broadcast subtrahend.
func subAS[T integer](out, a []T, s T) int {
	a = a[:len(out)]
	for i := range out {
		r := a[i] - s
		if (a[i]^s)&(a[i]^r) < 0 {
			return i
		}
		out[i] = r
	}
	return len(out)
}

// subSA is subAA with a broadcast minuend.
func subSA[T integer](out []T, s T, b []T) int {
	b = b[:len(out)]
	for i := range out {
		r := s - b[i]
		if (s^b[i])&(s^r) < 0 {
			return i
		}
		out[i] = r
	}
	return len(out)
}

// mulAA is a checked multiply: int32 products are formed exactly in int64,
// int64 products through the 128-bit bits.Mul64 with a signed correction of
// the high word; overflow is when the high word is not the sign extension
// of the low one. compute's checked multiply costs 6.4 ns/element.
func mulAA[T integer](out, a, b []T) int {
	a, b = a[:len(out)], b[:len(out)]
	if is32[T]() {
		for i := range out {
			r := int64(a[i]) * int64(b[i])
			if r != int64(T(r)) {
				return i
			}
			out[i] = T(r)
		}
		return len(out)
	}
	for i := range out {
		hi, lo := mul64(int64(a[i]), int64(b[i]))
		if hi != lo>>63 {
			return i
		}
		out[i] = T(lo)
	}
	return len(out)
}

// mulAS is mulAA against a broadcast scalar.
func mulAS[T integer](out, a []T, s T) int {
	a = a[:len(out)]
	y := int64(s)
	if is32[T]() {
		for i := range out {
			r := int64(a[i]) * y
			if r != int64(T(r)) {
				return i
			}
			out[i] = T(r)
		}
		return len(out)
	}
	for i := range out {
		hi, lo := mul64(int64(a[i]), y)
		if hi != lo>>63 {
			return i
		}
		out[i] = T(lo)
	}
	return len(out)
}

// mul64 returns the signed 128-bit product of x and y as high and low words:
// the unsigned product's high word corrected for negative operands.
func mul64(x, y int64) (hi, lo int64) {
	h, l := bits.Mul64(uint64(x), uint64(y))
	return int64(h) - (x>>63)&y - (y>>63)&x, int64(l)
}

// divAA is a checked integer divide or remainder: Go's / and % panic on a
// zero divisor, and compute's checked divide returns MinInt for MinInt / -1
// with no error (go-deps.md §8.2); the loop stops at either. Go truncates
// toward zero and gives the remainder the dividend's sign, as semantics.md
// requires.
func divAA[T integer](out, a, b []T, minv T, mod bool) int {
	a, b = a[:len(out)], b[:len(out)]
	if mod {
		for i := range out {
			x, y := a[i], b[i]
			if y == 0 || (y == -1 && x == minv) {
				return i
			}
			out[i] = x % y
		}
		return len(out)
	}
	for i := range out {
		x, y := a[i], b[i]
		if y == 0 || (y == -1 && x == minv) {
			return i
		}
		out[i] = x / y
	}
	return len(out)
}

// divAS is divAA by a broadcast divisor: one test of the divisor, then a
// plain loop.
func divAS[T integer](out, a []T, s T, minv T, mod bool) int {
	a = a[:len(out)]
	switch {
	case s == 0:
		return 0
	case s == -1:
		for i := range out {
			if a[i] == minv {
				return i
			}
			if mod {
				out[i] = 0
			} else {
				out[i] = -a[i]
			}
		}
	case mod:
		for i := range out {
			out[i] = a[i] % s
		}
	default:
		for i := range out {
			out[i] = a[i] / s
		}
	}
	return len(out)
}

// divSA is divAA with a broadcast dividend.
func divSA[T integer](out []T, s T, b []T, minv T, mod bool) int {
	b = b[:len(out)]
	for i := range out {
		y := b[i]
		if y == 0 || (y == -1 && s == minv) {
			return i
		}
		if mod {
			out[i] = s % y
		} else {
			out[i] = s / y
		}
	}
	return len(out)
}

// floatArith is IEEE arithmetic with no error: compute's float divide
// raises on x / 0 where IEEE gives ±Inf or NaN, and compute has no mod
// (go-deps.md §1.1-1.2). mod is math.Mod (the dividend's sign; x % 0 = NaN).
//
// NaN results are pinned down so they do not depend on the machine code:
// when an operand is NaN the result is the left NaN operand, quieted (what
// x86 does when the operands stay in source order, but the Go compiler may
// swap the operands of a commutative instruction, and array-scalar and
// scalar-array loops must agree bit for bit with array-array ones).
func floatArith(x *evalCtx, e *plan.Call, in *input, va, vb *view, valid *memory.Buffer, nulls int, buf *memory.Buffer, out []float64) datum {
	n := in.n
	a, b := va.f64, vb.f64
	x.rows(n, func(lo, hi int) {
		o := out[lo:hi]
		switch {
		case e.Fn == plan.FuncMod:
			for i := lo; i < hi; i++ {
				ia, ib := i, i
				if va.scalar {
					ia = 0
				}
				if vb.scalar {
					ib = 0
				}
				out[i] = math.Mod(a[ia], b[ib])
			}
		case va.scalar:
			floatSA(e.Fn, o, a[0], b[lo:])
		case vb.scalar:
			floatAS(e.Fn, o, a[lo:], b[0])
		default:
			floatAA(e.Fn, o, a[lo:], b[lo:])
		}
	})
	return freshDatum(plan.Float64, makeArray(plan.Float64, n, nulls, valid, buf))
}

func floatAA(fn plan.Func, out, a, b []float64) {
	a, b = a[:len(out)], b[:len(out)]
	switch fn {
	case plan.FuncAdd:
		for i := range out {
			r := a[i] + b[i]
			if r != r {
				r = ieee.PickNaN(a[i], b[i], r)
			}
			out[i] = r
		}
	case plan.FuncSub:
		for i := range out {
			r := a[i] - b[i]
			if r != r {
				r = ieee.PickNaN(a[i], b[i], r)
			}
			out[i] = r
		}
	case plan.FuncMul:
		for i := range out {
			r := a[i] * b[i]
			if r != r {
				r = ieee.PickNaN(a[i], b[i], r)
			}
			out[i] = r
		}
	case plan.FuncDiv:
		for i := range out {
			r := a[i] / b[i]
			if r != r {
				r = ieee.PickNaN(a[i], b[i], r)
			}
			out[i] = r
		}
	}
}

func floatAS(fn plan.Func, out, a []float64, s float64) {
	a = a[:len(out)]
	switch fn {
	case plan.FuncAdd:
		for i := range out {
			r := a[i] + s
			if r != r {
				r = ieee.PickNaN(a[i], s, r)
			}
			out[i] = r
		}
	case plan.FuncSub:
		for i := range out {
			r := a[i] - s
			if r != r {
				r = ieee.PickNaN(a[i], s, r)
			}
			out[i] = r
		}
	case plan.FuncMul:
		for i := range out {
			r := a[i] * s
			if r != r {
				r = ieee.PickNaN(a[i], s, r)
			}
			out[i] = r
		}
	case plan.FuncDiv:
		for i := range out {
			r := a[i] / s
			if r != r {
				r = ieee.PickNaN(a[i], s, r)
			}
			out[i] = r
		}
	}
}

func floatSA(fn plan.Func, out []float64, s float64, b []float64) {
	b = b[:len(out)]
	switch fn {
	case plan.FuncAdd:
		for i := range out {
			r := s + b[i]
			if r != r {
				r = ieee.PickNaN(s, b[i], r)
			}
			out[i] = r
		}
	case plan.FuncSub:
		for i := range out {
			r := s - b[i]
			if r != r {
				r = ieee.PickNaN(s, b[i], r)
			}
			out[i] = r
		}
	case plan.FuncMul:
		for i := range out {
			r := s * b[i]
			if r != r {
				r = ieee.PickNaN(s, b[i], r)
			}
			out[i] = r
		}
	case plan.FuncDiv:
		for i := range out {
			r := s / b[i]
			if r != r {
				r = ieee.PickNaN(s, b[i], r)
			}
			out[i] = r
		}
	}
}
