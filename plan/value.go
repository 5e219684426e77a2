package plan

import (
	"math"
	"strconv"
)

// Value is one typed scalar, possibly null: a literal in an expression, a
// cell of an inline table, or an argument to a UDF. Two values are Identical
// only when their types match and their payloads match bit for bit, which is
// the equality the oracle uses (NaN payloads and -0.0 count).
type Value struct {
	typ   Type
	valid bool
	i     int64 // integer (unsigned as their bits), temporal, bool (0/1) and float32 (its bits) payloads
	f     float64
	s     string
	nest  *[]Value // a list's elements or a struct's field values
}

// Int64Value returns a non-null int64.
func Int64Value(v int64) Value { return Value{typ: Int64, valid: true, i: v} }

// Int32Value returns a non-null int32.
func Int32Value(v int32) Value { return Value{typ: Int32, valid: true, i: int64(v)} }

// Int8Value returns a non-null int8.
func Int8Value(v int8) Value { return Value{typ: Int8, valid: true, i: int64(v)} }

// Int16Value returns a non-null int16.
func Int16Value(v int16) Value { return Value{typ: Int16, valid: true, i: int64(v)} }

// Uint8Value returns a non-null uint8.
func Uint8Value(v uint8) Value { return Value{typ: Uint8, valid: true, i: int64(v)} }

// Uint16Value returns a non-null uint16.
func Uint16Value(v uint16) Value { return Value{typ: Uint16, valid: true, i: int64(v)} }

// Uint32Value returns a non-null uint32.
func Uint32Value(v uint32) Value { return Value{typ: Uint32, valid: true, i: int64(v)} }

// Uint64Value returns a non-null uint64.
func Uint64Value(v uint64) Value { return Value{typ: Uint64, valid: true, i: int64(v)} }

// Float32Value returns a non-null float32; the bits of v are kept as given.
func Float32Value(v float32) Value {
	return Value{typ: Float32, valid: true, i: int64(math.Float32bits(v))}
}

// IntValue returns the non-null value n of the integer type t, and false
// when n lies outside t's range (or t is not an integer type); UintValue
// spells the uint64 values beyond MaxInt64.
func IntValue(t Type, n int64) (Value, bool) {
	lo, hi, ok := IntRange(t)
	if !ok || n < lo || (n > 0 && uint64(n) > hi) {
		return Value{}, false
	}
	return Value{typ: t, valid: true, i: n}, true
}

// UintValue returns the non-null value n of the integer type t, and false
// when n lies beyond t's maximum (or t is not an integer type).
func UintValue(t Type, n uint64) (Value, bool) {
	_, hi, ok := IntRange(t)
	if !ok || n > hi {
		return Value{}, false
	}
	return Value{typ: t, valid: true, i: int64(n)}, true
}

// Float64Value returns a non-null float64; the bits of v are kept as given.
func Float64Value(v float64) Value { return Value{typ: Float64, valid: true, f: v} }

// StringValue returns a non-null string.
func StringValue(v string) Value { return Value{typ: String, valid: true, s: v} }

// BoolValue returns a non-null bool.
func BoolValue(v bool) Value {
	var i int64
	if v {
		i = 1
	}
	return Value{typ: Bool, valid: true, i: i}
}

// DateValue returns a non-null date: days since 1970-01-01.
func DateValue(days int32) Value { return Value{typ: Date, valid: true, i: int64(days)} }

// DatetimeValue returns a non-null datetime: µs since 1970-01-01T00:00:00,
// no time zone.
func DatetimeValue(us int64) Value { return Value{typ: Datetime, valid: true, i: us} }

// DurationValue returns a non-null duration of us µs.
func DurationValue(us int64) Value { return Value{typ: Duration, valid: true, i: us} }

// NullValue returns the null of type t: a typed null.
func NullValue(t Type) Value { return Value{typ: t} }

// Type returns the value's type.
func (v Value) Type() Type { return v.typ }

// IsNull reports whether the value is null.
func (v Value) IsNull() bool { return !v.valid }

// Int returns the payload of an integer or temporal value (days of a
// date, µs of a datetime or duration; 0 for null). A uint64 beyond
// MaxInt64 reads as its bits (negative): use Uint for unsigned values.
func (v Value) Int() int64 { return v.i }

// Uint returns the payload of an unsigned integer value (0 for null).
func (v Value) Uint() uint64 { return uint64(v.i) }

// Float returns the payload of a float64 value, or of a float32 value
// widened exactly (Float32To64; 0 for null).
func (v Value) Float() float64 {
	if v.typ == Float32 {
		return Float32To64(v.Float32())
	}
	return v.f
}

// Float32 returns the payload of a float32 value (0 for null).
func (v Value) Float32() float32 { return math.Float32frombits(uint32(v.i)) }

// Str returns the payload of a string value ("" for null).
func (v Value) Str() string { return v.s }

// Bool returns the payload of a bool value (false for null).
func (v Value) Bool() bool { return v.i != 0 }

// Identical reports bitwise equality: same type, same nullness, and for
// floats the same bits.
func (v Value) Identical(o Value) bool {
	if v.typ != o.typ || v.valid != o.valid {
		return false
	}
	if !v.valid {
		return true
	}
	if v.typ.IsNested() {
		return identicalNested(v, o)
	}
	switch v.typ {
	case Float64:
		return math.Float64bits(v.f) == math.Float64bits(o.f)
	case String:
		return v.s == o.s
	default:
		return v.i == o.i
	}
}

// String renders the value in the canonical expression syntax: integers in
// decimal (int32 as "int32(5)"), floats in Go's shortest round-trip form with
// the specials "NaN", "Inf", "-Inf" and "-0.0", strings quoted, temporal
// values as `date("2024-02-29")`, `datetime("2024-02-29T12:00:00")` and
// `duration(86400000000)` (µs), typed nulls as "null(int64)".
func (v Value) String() string {
	if !v.valid {
		return "null(" + v.typ.String() + ")"
	}
	if v.typ.IsNested() {
		return v.nestedString()
	}
	switch v.typ {
	case Int64:
		return strconv.FormatInt(v.i, 10)
	case Int8, Int16, Int32:
		return v.typ.String() + "(" + strconv.FormatInt(v.i, 10) + ")"
	case Uint8, Uint16, Uint32, Uint64:
		return v.typ.String() + "(" + strconv.FormatUint(uint64(v.i), 10) + ")"
	case Float32:
		return "float32(" + FormatFloat32(v.Float32()) + ")"
	case Float64:
		return FormatFloat(v.f)
	case String:
		return strconv.Quote(v.s)
	case Bool:
		return strconv.FormatBool(v.i != 0)
	case Date:
		return `date("` + FormatDate(int32(v.i)) + `")`
	case Datetime:
		return `datetime("` + FormatDatetime(v.i) + `")`
	case Duration:
		return "duration(" + strconv.FormatInt(v.i, 10) + ")"
	}
	return "invalid"
}

// FormatFloat32 renders a float32 as FormatFloat does a float64, with
// the shortest digits that read back as the same float32 ("0.1").
func FormatFloat32(f float32) string {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 0), x == 0:
		return FormatFloat(x)
	}
	s := strconv.FormatFloat(x, 'g', -1, 32)
	for _, c := range s {
		if c == '.' || c == 'e' {
			return s
		}
	}
	return s + ".0"
}

// Float32To64 widens a float32 exactly; a NaN keeps its sign and its 23
// fraction bits as the top of the float64's (docs/semantics.md, Numeric
// types: a signalling NaN stays signalling, which the hardware
// conversion would quiet).
func Float32To64(f float32) float64 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return math.Float64frombits(uint64(b>>31)<<63 | 0x7ff<<52 | uint64(b&0x7fffff)<<29)
	}
	return float64(f)
}

// Float64To32 narrows a float64 to the nearest float32 (ties to even;
// beyond float32's range an infinity); a NaN becomes the quiet NaN with
// its sign and the top 22 bits of its payload (docs/semantics.md, Numeric
// types).
func Float64To32(f float64) float32 {
	if f != f {
		b := math.Float64bits(f)
		return math.Float32frombits(uint32(b>>63)<<31 | 0x7fc00000 | uint32(b>>29)&0x3fffff)
	}
	return float32(f)
}

// FormatFloat renders a float so that it always reads as a float: "1.0",
// "2.5e+30", "NaN", "Inf", "-Inf", "-0.0". The NaN payload is not shown.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' {
			return s
		}
	}
	return s + ".0"
}
