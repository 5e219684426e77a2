package reference

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// This file holds the per-value rules of docs/semantics.md: promotion,
// exact integer arithmetic (in 128 bits, then a range check in the result
// width), IEEE arithmetic with the left-NaN rule, comparisons, the total
// order of floats, casts and the float spelling of casts to string.

// int128 is a signed 128-bit integer, wide enough to hold the exact result
// of any int64 addition, subtraction or multiplication and any sum of up to
// 2^63 int64 values.
type int128 struct {
	hi int64
	lo uint64
}

func wide(x int64) int128 { return int128{hi: x >> 63, lo: uint64(x)} }

func (a int128) add(b int128) int128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return int128{hi: a.hi + b.hi + int64(carry), lo: lo}
}

func (a int128) neg() int128 {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return int128{hi: -a.hi - int64(borrow), lo: lo}
}

func (a int128) sub(b int128) int128 { return a.add(b.neg()) }

// mul64 returns the exact product of two int64 values.
func mul64(x, y int64) int128 {
	neg := (x < 0) != (y < 0)
	hi, lo := bits.Mul64(magnitude(x), magnitude(y))
	p := int128{hi: int64(hi), lo: lo} // |x*y| <= 2^126: the sign bit is clear
	if neg {
		return p.neg()
	}
	return p
}

// magnitude is |x| as an unsigned number (|MinInt64| = 2^63 fits).
func magnitude(x int64) uint64 {
	if x < 0 {
		return uint64(0) - uint64(x)
	}
	return uint64(x)
}

// fits reports whether a is representable in t (int32 or int64) and
// returns it as an int64.
func (a int128) fits(t plan.Type) (int64, bool) {
	v := int64(a.lo)
	if a.hi != v>>63 {
		return 0, false
	}
	if t == plan.Int32 && (v < math.MinInt32 || v > math.MaxInt32) {
		return 0, false
	}
	return v, true
}

// intValue builds a value of integer type t.
func intValue(t plan.Type, v int64) plan.Value {
	if t == plan.Int32 {
		return plan.Int32Value(int32(v))
	}
	return plan.Int64Value(v)
}

// promoteType is the promotion of docs/semantics.md: int32 with int64 gives
// int64, any integer with float64 gives float64; equal types stay.
func promoteType(a, b plan.Type) plan.Type {
	switch {
	case a == b:
		return a
	case a == plan.Float64 || b == plan.Float64:
		return plan.Float64
	case a.IsInteger() && b.IsInteger():
		return plan.Int64
	}
	return plan.Invalid
}

// promote widens v to t (int32 to int64, an integer to the nearest
// float64); a null stays null, of type t.
func promote(v plan.Value, t plan.Type) plan.Value {
	if v.Type() == t {
		return v
	}
	if v.IsNull() {
		return plan.NullValue(t)
	}
	switch {
	case t == plan.Int64 && v.Type() == plan.Int32:
		return plan.Int64Value(v.Int())
	case t == plan.Float64 && v.Type().IsInteger():
		return plan.Float64Value(float64(v.Int()))
	}
	return v
}

const quietBit = uint64(1) << 51

// quiet returns the NaN f with its quiet bit set, payload and sign kept.
func quiet(f float64) float64 { return math.Float64frombits(math.Float64bits(f) | quietBit) }

// floatArith applies add, sub, mul or div to two floats with the document's
// NaN rule: a NaN operand makes the result the left NaN operand, quieted.
// A NaN made from non-NaN operands (Inf - Inf) is whatever Go's float64
// operators give on this machine.
func floatArith(fn plan.Func, p, q float64) float64 {
	switch {
	case p != p:
		return quiet(p)
	case q != q:
		return quiet(q)
	}
	switch fn {
	case plan.FuncAdd:
		return p + q
	case plan.FuncSub:
		return p - q
	case plan.FuncMul:
		return p * q
	default:
		return p / q
	}
}

// intArith applies an arithmetic function to two integers of result type t
// exactly, then checks the range of t. kind is "" on success.
func intArith(fn plan.Func, x, y int64, t plan.Type) (int64, plan.ErrorKind) {
	var r int128
	switch fn {
	case plan.FuncAdd:
		r = wide(x).add(wide(y))
	case plan.FuncSub:
		r = wide(x).sub(wide(y))
	case plan.FuncMul:
		r = mul64(x, y)
	case plan.FuncDiv, plan.FuncMod:
		if y == 0 {
			return 0, plan.DivideByZero
		}
		// The only quotient of two in-range integers that leaves the range
		// is MinInt / -1 (the width's MinInt); the remainder then
		// overflows too, because the quotient does.
		if y == -1 {
			if _, ok := wide(x).neg().fits(t); !ok {
				return 0, plan.Overflow
			}
			if fn == plan.FuncDiv {
				return -x, ""
			}
			return 0, ""
		}
		if fn == plan.FuncDiv {
			return x / y, "" // Go's / truncates toward zero
		}
		return x % y, "" // Go's % has the dividend's sign
	}
	v, ok := r.fits(t)
	if !ok {
		return 0, plan.Overflow
	}
	return v, ""
}

// compareFloatsTotal orders floats by the total order -Inf < ... < -0.0 <
// +0.0 < ... < +Inf < NaN, every NaN equal to every other.
func compareFloatsTotal(p, q float64) int {
	pn, qn := p != p, q != q
	switch {
	case pn && qn:
		return 0
	case pn:
		return 1
	case qn:
		return -1
	case p < q:
		return -1
	case p > q:
		return 1
	}
	// Equal as IEEE numbers: only the zeros can still differ, by sign.
	ps, qs := math.Signbit(p), math.Signbit(q)
	switch {
	case ps == qs:
		return 0
	case ps:
		return -1
	}
	return 1
}

// compareOrdered orders two non-null values of one type for sort, min and
// max: numbers by value (floats by the total order), strings by bytes,
// false before true.
func compareOrdered(a, b plan.Value) int {
	switch a.Type() {
	case plan.Float64:
		return compareFloatsTotal(a.Float(), b.Float())
	case plan.String:
		return strings.Compare(a.Str(), b.Str())
	default: // bool (0/1), int32, int64
		x, y := a.Int(), b.Int()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
}

// compareIEEE compares two non-null values for the comparison functions:
// numbers in their promoted type with IEEE semantics (NaN unequal to and
// unordered with everything, -0.0 == 0.0), strings by bytes, bools false <
// true. ok is false when the two are unordered (a NaN is involved).
func compareIEEE(a, b plan.Value) (c int, ok bool) {
	t := promoteType(a.Type(), b.Type())
	if t == plan.Float64 {
		p, q := promote(a, t).Float(), promote(b, t).Float()
		switch {
		case p < q:
			return -1, true
		case p > q:
			return 1, true
		case p == q:
			return 0, true
		}
		return 0, false
	}
	return compareOrdered(a, b), true
}

// castValue converts one non-null value to type to by the cast table of
// docs/semantics.md; ok is false where a strict cast fails.
func castValue(v plan.Value, to plan.Type) (plan.Value, bool) {
	from := v.Type()
	if from == to {
		return v, true
	}
	if to == plan.String && isTemporal(from) {
		return plan.StringValue(temporalText(v)), true
	}
	if r, ok, handled := castTemporal(v, to); handled {
		return r, ok
	}
	switch to {
	case plan.String:
		switch from {
		case plan.Int32, plan.Int64:
			return plan.StringValue(strconv.FormatInt(v.Int(), 10)), true
		case plan.Float64:
			return plan.StringValue(formatFloat(v.Float())), true
		case plan.Bool:
			if v.Bool() {
				return plan.StringValue("true"), true
			}
			return plan.StringValue("false"), true
		}
	case plan.Bool:
		switch from {
		case plan.Int32, plan.Int64:
			return plan.BoolValue(v.Int() != 0), true
		case plan.Float64:
			f := v.Float()
			return plan.BoolValue(!(f == 0)), true // NaN is true; ±0.0 false
		case plan.String:
			switch v.Str() {
			case "true":
				return plan.BoolValue(true), true
			case "false":
				return plan.BoolValue(false), true
			}
			return plan.Value{}, false
		}
	case plan.Float64:
		switch from {
		case plan.Int32, plan.Int64, plan.Bool:
			return plan.Float64Value(float64(v.Int())), true
		case plan.String:
			f, err := strconv.ParseFloat(v.Str(), 64)
			if err != nil {
				return plan.Value{}, false
			}
			return plan.Float64Value(f), true
		}
	case plan.Int32, plan.Int64:
		switch from {
		case plan.Bool, plan.Int32, plan.Int64:
			if _, ok := wide(v.Int()).fits(to); !ok {
				return plan.Value{}, false
			}
			return intValue(to, v.Int()), true
		case plan.Float64:
			return floatToInt(v.Float(), to)
		case plan.String:
			size := 64
			if to == plan.Int32 {
				size = 32
			}
			n, err := strconv.ParseInt(v.Str(), 10, size)
			if err != nil {
				return plan.Value{}, false
			}
			return intValue(to, n), true
		}
	}
	return plan.Value{}, false
}

// floatToInt truncates toward zero and fails on NaN, ±Inf and values whose
// truncation lies outside the target's range.
func floatToInt(f float64, to plan.Type) (plan.Value, bool) {
	if f != f || math.IsInf(f, 0) {
		return plan.Value{}, false
	}
	t := math.Trunc(f)
	lo, hi := -9223372036854775808.0, 9223372036854775808.0 // [-2^63, 2^63)
	if to == plan.Int32 {
		lo, hi = -2147483648.0, 2147483648.0
	}
	if t < lo || t >= hi {
		return plan.Value{}, false
	}
	return intValue(to, int64(t)), true
}

// formatFloat spells a float for a cast to string as docs/semantics.md
// defines it: "NaN" (any payload), "Inf", "-Inf", "-0.0"; otherwise the
// shortest decimal digits that read back as the same float, positional when
// the decimal exponent x (value = d.ddd × 10^x) satisfies -4 <= x < 6 and
// as d.ddde±XX (at least two exponent digits) otherwise, with ".0" appended
// when the text has neither a point nor an exponent.
func formatFloat(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// The shortest round-trip digits, read off the exponent form
	// "d.ddde±x" (strconv's shortest-digit search is the primitive; the
	// layout is ours).
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(expText)
	var s string
	if x < -4 || x >= 6 {
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		xs := strconv.Itoa(x)
		if len(xs) < 2 {
			xs = "0" + xs
		}
		s += "e" + es + xs
	} else {
		point := x + 1 // digits before the decimal point
		switch {
		case point <= 0:
			s = "0." + strings.Repeat("0", -point) + digits
		case point >= len(digits):
			s = digits + strings.Repeat("0", point-len(digits))
		default:
			s = digits[:point] + "." + digits[point:]
		}
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return sign + s
}
