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
