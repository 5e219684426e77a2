package reference

import (
	"math"
	"math/big"
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

// The integer types as docs/semantics.md's table states them: a width
// and a sign. Every integer computation below is exact (math/big), then
// checked against the result type's range.
var intKinds = map[plan.Type]struct {
	bits   uint
	signed bool
}{
	plan.Int8: {8, true}, plan.Int16: {16, true}, plan.Int32: {32, true}, plan.Int64: {64, true},
	plan.Uint8: {8, false}, plan.Uint16: {16, false}, plan.Uint32: {32, false}, plan.Uint64: {64, false},
}

// isInt reports whether t is one of the eight integer types.
func isInt(t plan.Type) bool { _, ok := intKinds[t]; return ok }

// isFloat reports whether t is float32 or float64.
func isFloat(t plan.Type) bool { return t == plan.Float32 || t == plan.Float64 }

// rangeOf returns the smallest and largest value of integer type t.
func rangeOf(t plan.Type) (lo, hi *big.Int) {
	k := intKinds[t]
	one := big.NewInt(1)
	if k.signed {
		h := new(big.Int).Lsh(one, k.bits-1)
		return new(big.Int).Neg(h), h.Sub(h, one)
	}
	h := new(big.Int).Lsh(one, k.bits)
	return big.NewInt(0), h.Sub(h, one)
}

// bigOf is the exact value of an integer, bool or temporal value.
func bigOf(v plan.Value) *big.Int {
	if k, ok := intKinds[v.Type()]; ok && !k.signed {
		return new(big.Int).SetUint64(v.Uint())
	}
	return big.NewInt(v.Int())
}

// fromBig returns x as a value of integer type t, and false when x lies
// outside t's range.
func fromBig(t plan.Type, x *big.Int) (plan.Value, bool) {
	lo, hi := rangeOf(t)
	if x.Cmp(lo) < 0 || x.Cmp(hi) > 0 {
		return plan.Value{}, false
	}
	if intKinds[t].signed {
		v, _ := plan.IntValue(t, x.Int64())
		return v, true
	}
	v, _ := plan.UintValue(t, x.Uint64())
	return v, true
}

// widen32 is float32 to float64 by the bits, as docs/semantics.md
// states it: a NaN keeps its sign and its 23 fraction bits as the top of
// the float64's 52.
func widen32(f float32) float64 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x007fffff != 0 {
		sign := uint64(b>>31) << 63
		return math.Float64frombits(sign | uint64(0x7ff)<<52 | uint64(b&0x007fffff)<<29)
	}
	return float64(f)
}

// narrow64 is float64 to float32: nearest, ties to even (Go's conversion
// of a non-NaN); a NaN gets its sign, the quiet bit and the top 22 bits
// of its payload.
func narrow64(f float64) float32 {
	if f != f {
		b := math.Float64bits(f)
		frac := uint32(b>>29) & 0x003fffff
		return math.Float32frombits(uint32(b>>63)<<31 | 0x7fc00000 | frac)
	}
	return float32(f)
}

// floatOf is a float value's number as a float64 (a float32 widened).
func floatOf(v plan.Value) float64 {
	if v.Type() == plan.Float32 {
		return widen32(v.Float32())
	}
	return v.Float()
}

// floatValue makes a value of float type t from a float64 (narrowed for
// float32).
func floatValue(t plan.Type, f float64) plan.Value {
	if t == plan.Float32 {
		return plan.Float32Value(narrow64(f))
	}
	return plan.Float64Value(f)
}

// promoteType is the promotion of docs/semantics.md (Numeric types),
// computed as the narrowest integer type whose range holds both
// operands' ranges (none for uint64 with a signed type), and for floats
// float32 only when the other side is float32 or an integer that float32
// holds exactly (8 and 16 bits), float64 otherwise; equal types stay.
func promoteType(a, b plan.Type) plan.Type {
	switch {
	case a == b:
		return a
	case isInt(a) && isInt(b):
		alo, ahi := rangeOf(a)
		blo, bhi := rangeOf(b)
		for _, t := range []plan.Type{plan.Int8, plan.Uint8, plan.Int16, plan.Uint16, plan.Int32, plan.Uint32, plan.Int64, plan.Uint64} {
			lo, hi := rangeOf(t)
			if lo.Cmp(alo) <= 0 && lo.Cmp(blo) <= 0 && hi.Cmp(ahi) >= 0 && hi.Cmp(bhi) >= 0 {
				return t
			}
		}
		return plan.Invalid
	case !(isInt(a) || isFloat(a)) || !(isInt(b) || isFloat(b)):
		return plan.Invalid
	case a == plan.Float64 || b == plan.Float64:
		return plan.Float64
	}
	// float32 with an integer
	o := a
	if a == plan.Float32 {
		o = b
	}
	if intKinds[o].bits <= 16 {
		return plan.Float32
	}
	return plan.Float64
}

// promote converts v to the numeric type t (exact between integers and
// from float32 to float64, nearest ties-to-even from an integer to a
// float); a null stays null, of type t.
func promote(v plan.Value, t plan.Type) plan.Value {
	if v.Type() == t {
		return v
	}
	if v.IsNull() {
		return plan.NullValue(t)
	}
	from := v.Type()
	switch {
	case isInt(t) && isInt(from):
		r, _ := fromBig(t, bigOf(v))
		return r
	case t == plan.Float64 && from == plan.Float32:
		return plan.Float64Value(widen32(v.Float32()))
	case isFloat(t) && isInt(from):
		bf := new(big.Float).SetInt(bigOf(v))
		if t == plan.Float32 {
			f, _ := bf.Float32()
			return plan.Float32Value(f)
		}
		f, _ := bf.Float64()
		return plan.Float64Value(f)
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
// exactly, then checks the range of t. kind is "" on success. A remainder
// overflows where its quotient does (MinInt % -1).
func intArith(fn plan.Func, x, y *big.Int, t plan.Type) (plan.Value, plan.ErrorKind) {
	r := new(big.Int)
	switch fn {
	case plan.FuncAdd:
		r.Add(x, y)
	case plan.FuncSub:
		r.Sub(x, y)
	case plan.FuncMul:
		r.Mul(x, y)
	case plan.FuncDiv, plan.FuncMod:
		if y.Sign() == 0 {
			return plan.Value{}, plan.DivideByZero
		}
		q := new(big.Int).Quo(x, y) // truncated toward zero
		if _, ok := fromBig(t, q); !ok {
			return plan.Value{}, plan.Overflow
		}
		if fn == plan.FuncDiv {
			r = q
		} else {
			r.Rem(x, y) // the dividend's sign
		}
	}
	v, ok := fromBig(t, r)
	if !ok {
		return plan.Value{}, plan.Overflow
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
	switch {
	case isFloat(a.Type()):
		return compareFloatsTotal(floatOf(a), floatOf(b))
	case a.Type() == plan.String:
		return strings.Compare(a.Str(), b.Str())
	default: // bool (0/1), the integers, temporal values
		return bigOf(a).Cmp(bigOf(b))
	}
}

// compareIEEE compares two non-null values for the comparison functions:
// numbers in their promoted type with IEEE semantics (NaN unequal to and
// unordered with everything, -0.0 == 0.0), strings by bytes, bools false <
// true. ok is false when the two are unordered (a NaN is involved).
func compareIEEE(a, b plan.Value) (c int, ok bool) {
	t := promoteType(a.Type(), b.Type())
	if isFloat(t) {
		p, q := floatOf(promote(a, t)), floatOf(promote(b, t))
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
	switch {
	case to == plan.String:
		switch {
		case isInt(from):
			return plan.StringValue(bigOf(v).String()), true
		case from == plan.Float64:
			return plan.StringValue(formatFloat(v.Float(), 64)), true
		case from == plan.Float32:
			return plan.StringValue(formatFloat(widen32(v.Float32()), 32)), true
		case from == plan.Bool:
			if v.Bool() {
				return plan.StringValue("true"), true
			}
			return plan.StringValue("false"), true
		}
	case to == plan.Bool:
		switch {
		case isInt(from):
			return plan.BoolValue(bigOf(v).Sign() != 0), true
		case isFloat(from):
			f := floatOf(v)
			return plan.BoolValue(!(f == 0)), true // NaN is true; ±0.0 false
		case from == plan.String:
			switch v.Str() {
			case "true":
				return plan.BoolValue(true), true
			case "false":
				return plan.BoolValue(false), true
			}
			return plan.Value{}, false
		}
	case isFloat(to):
		switch {
		case isInt(from), from == plan.Bool:
			return intToFloat(bigOf(v), to), true
		case from == plan.Float32: // to float64
			return plan.Float64Value(widen32(v.Float32())), true
		case from == plan.Float64: // to float32
			f := v.Float()
			g := narrow64(f)
			if math.IsInf(float64(g), 0) && !math.IsInf(f, 0) {
				return plan.Value{}, false // beyond float32's range
			}
			return plan.Float32Value(g), true
		case from == plan.String:
			size := 64
			if to == plan.Float32 {
				size = 32
			}
			f, err := strconv.ParseFloat(v.Str(), size)
			if err != nil {
				return plan.Value{}, false
			}
			if to == plan.Float32 {
				return plan.Float32Value(float32(f)), true
			}
			return plan.Float64Value(f), true
		}
	case isInt(to):
		switch {
		case from == plan.Bool, isInt(from):
			return fromBig(to, bigOf(v))
		case isFloat(from):
			return floatToInt(floatOf(v), to)
		case from == plan.String:
			k := intKinds[to]
			if k.signed {
				n, err := strconv.ParseInt(v.Str(), 10, int(k.bits))
				if err != nil {
					return plan.Value{}, false
				}
				return fromBig(to, big.NewInt(n))
			}
			n, err := strconv.ParseUint(v.Str(), 10, int(k.bits))
			if err != nil {
				return plan.Value{}, false
			}
			return fromBig(to, new(big.Int).SetUint64(n))
		}
	}
	return plan.Value{}, false
}

// intToFloat is the float of type to nearest the integer x (ties to even).
func intToFloat(x *big.Int, to plan.Type) plan.Value {
	bf := new(big.Float).SetInt(x)
	if to == plan.Float32 {
		f, _ := bf.Float32()
		return plan.Float32Value(f)
	}
	f, _ := bf.Float64()
	return plan.Float64Value(f)
}

// floatToInt truncates toward zero and fails on NaN, ±Inf and values whose
// truncation lies outside the target's range.
func floatToInt(f float64, to plan.Type) (plan.Value, bool) {
	if f != f || math.IsInf(f, 0) {
		return plan.Value{}, false
	}
	n, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
	return fromBig(to, n)
}

// formatFloat spells a float (a float32 widened, bitSize 32) for a cast to string as docs/semantics.md
// defines it: "NaN" (any payload), "Inf", "-Inf", "-0.0"; otherwise the
// shortest decimal digits that read back as the same float, positional when
// the decimal exponent x (value = d.ddd × 10^x) satisfies -4 <= x < 6 and
// as d.ddde±XX (at least two exponent digits) otherwise, with ".0" appended
// when the text has neither a point nor an exponent.
func formatFloat(f float64, bitSize int) string {
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
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
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
