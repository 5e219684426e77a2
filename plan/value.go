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
	i     int64 // int32, int64 and bool (0/1) payloads
	f     float64
	s     string
	nest  *[]Value // a list's elements or a struct's field values
}

// Int64Value returns a non-null int64.
func Int64Value(v int64) Value { return Value{typ: Int64, valid: true, i: v} }

// Int32Value returns a non-null int32.
func Int32Value(v int32) Value { return Value{typ: Int32, valid: true, i: int64(v)} }

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

// Int returns the payload of an int32, int64 or temporal value (days of a
// date, µs of a datetime or duration; 0 for null).
func (v Value) Int() int64 { return v.i }

// Float returns the payload of a float64 value (0 for null).
func (v Value) Float() float64 { return v.f }

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
	case Int32:
		return "int32(" + strconv.FormatInt(v.i, 10) + ")"
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
