// Package ieee holds the one statement of dfopt's NaN propagation rule
// (docs/semantics.md), shared by the expression kernels and the
// aggregates so the two cannot drift apart.
package ieee

import "math"

// quietBit is a float64's quiet-NaN bit.
const quietBit = uint64(1) << 51

// PickNaN returns the NaN a float operation on a and b gives, where r is
// the machine's answer and itself NaN: the left NaN operand quieted, else
// the right, else r (a NaN made from numbers, such as Inf - Inf). Hardware
// and compilers may put either operand of a commutative instruction first,
// so without it the surviving payload would depend on the machine code.
func PickNaN(a, b, r float64) float64 {
	switch {
	case a != a:
		return math.Float64frombits(math.Float64bits(a) | quietBit)
	case b != b:
		return math.Float64frombits(math.Float64bits(b) | quietBit)
	}
	return r
}

// Add is a + b with PickNaN's rule for a NaN result.
func Add(a, b float64) float64 {
	r := a + b
	if r == r {
		return r
	}
	return PickNaN(a, b, r)
}

// Sub is a - b with PickNaN's rule for a NaN result.
func Sub(a, b float64) float64 {
	r := a - b
	if r == r {
		return r
	}
	return PickNaN(a, b, r)
}

// Mul is a * b with PickNaN's rule for a NaN result.
func Mul(a, b float64) float64 {
	r := a * b
	if r == r {
		return r
	}
	return PickNaN(a, b, r)
}

// Div is a / b with PickNaN's rule for a NaN result.
func Div(a, b float64) float64 {
	r := a / b
	if r == r {
		return r
	}
	return PickNaN(a, b, r)
}

// PickNaN32 is PickNaN in binary32: the left NaN operand quieted (bit 22
// set), else the right one, else r (a NaN the operation made).
func PickNaN32(a, b, r float32) float32 {
	switch {
	case a != a:
		return math.Float32frombits(math.Float32bits(a) | 1<<22)
	case b != b:
		return math.Float32frombits(math.Float32bits(b) | 1<<22)
	}
	return r
}

// Widen32 converts a float32 to float64 exactly, a NaN by its bits (sign,
// and the 23 fraction bits as the top of the 52): the hardware conversion
// would quiet a signalling NaN (docs/semantics.md, Numeric types).
func Widen32(f float32) float64 {
	if f == f {
		return float64(f)
	}
	b := math.Float32bits(f)
	return math.Float64frombits(uint64(b>>31)<<63 | 0x7ff<<52 | uint64(b&0x7fffff)<<29)
}

// Narrow64 converts a float64 to the nearest float32 (ties to even); a
// NaN becomes the quiet NaN with its sign and the top 22 payload bits.
func Narrow64(f float64) float32 {
	if f == f {
		return float32(f)
	}
	b := math.Float64bits(f)
	return math.Float32frombits(uint32(b>>63)<<31 | 0x7fc00000 | uint32(b>>29)&0x3fffff)
}
