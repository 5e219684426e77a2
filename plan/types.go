package plan

import (
	"fmt"
	"math"
)

// Type is the logical type of a column or expression. The set is closed:
// the optimizer's legality arguments are made over exactly these types.
type Type uint16

// The logical types. Invalid is the zero value so that an unset type is never
// mistaken for a real one.
const (
	Invalid Type = iota
	Bool
	Int32
	Int64
	Float64
	String
	// Date is a day: an int32 count of days since 1970-01-01 (Arrow date32).
	Date
	// Datetime is an instant on a clock without time zone: an int64 count
	// of µs since 1970-01-01T00:00:00 (Arrow timestamp[us], no zone).
	Datetime
	// Duration is a signed length of time: an int64 count of µs (Arrow
	// duration[us]).
	Duration
	// Int8 .. Uint64 and Float32 are the narrower and unsigned numeric
	// types (docs/semantics.md, Numeric types); they come after the
	// others so the older types keep their numbers.
	Int8
	Int16
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
)

var typeNames = [...]string{Invalid: "invalid", Bool: "bool", Int32: "int32", Int64: "int64", Float64: "float64", String: "string",
	Date: "date", Datetime: "datetime", Duration: "duration",
	Int8: "int8", Int16: "int16", Uint8: "uint8", Uint16: "uint16", Uint32: "uint32", Uint64: "uint64", Float32: "float32"}

// String returns the type's name as written in plan files ("int64").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	if d, ok := nestedDesc(t); ok {
		return d.text
	}
	return fmt.Sprintf("type(%d)", uint16(t))
}

// ParseType maps a plan-file type name to its Type: a scalar name
// ("int64") or a list or struct type ("list<int64>", "struct{a: int64}").
func ParseType(name string) (Type, bool) {
	if t, ok := parseScalarType(name); ok {
		return t, true
	}
	t, err := ParseNestedType(name)
	return t, err == nil
}

// parseScalarType maps a scalar type name to its Type.
func parseScalarType(name string) (Type, bool) {
	for t, n := range typeNames {
		if n == name && Type(t) != Invalid {
			return Type(t), true
		}
	}
	return Invalid, false
}

// Types lists every scalar type (every type but the lists and structs,
// which are built from them), for generators and exhaustive tests.
func Types() []Type {
	return []Type{Bool, Int32, Int64, Float64, String, Date, Datetime, Duration,
		Int8, Int16, Uint8, Uint16, Uint32, Uint64, Float32}
}

// NumericTypes lists the ten numeric types, narrowest integers first.
func NumericTypes() []Type {
	return []Type{Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Float32, Float64}
}

// IsTemporal reports whether t is date, datetime or duration.
func (t Type) IsTemporal() bool { return t == Date || t == Datetime || t == Duration }

// Physical is the integer type that holds t's values: int32 for date,
// int64 for datetime and duration, t itself otherwise. Keys, sorts and
// comparisons of a temporal type work on it (docs/semantics.md).
func (t Type) Physical() Type {
	switch t {
	case Date:
		return Int32
	case Datetime, Duration:
		return Int64
	}
	return t
}

// IsInteger reports whether t is one of the eight integer types.
func (t Type) IsInteger() bool { return t.IsSigned() || t.IsUnsigned() }

// IsSigned reports whether t is int8, int16, int32 or int64.
func (t Type) IsSigned() bool { return t == Int8 || t == Int16 || t == Int32 || t == Int64 }

// IsUnsigned reports whether t is uint8, uint16, uint32 or uint64.
func (t Type) IsUnsigned() bool { return t == Uint8 || t == Uint16 || t == Uint32 || t == Uint64 }

// IsFloat reports whether t is float32 or float64.
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 }

// IsNumeric reports whether t takes part in arithmetic.
func (t Type) IsNumeric() bool { return t.IsInteger() || t.IsFloat() }

// Bits returns the width of a numeric type in bits (0 for the others).
func (t Type) Bits() int {
	switch t {
	case Int8, Uint8:
		return 8
	case Int16, Uint16:
		return 16
	case Int32, Uint32, Float32:
		return 32
	case Int64, Uint64, Float64:
		return 64
	}
	return 0
}

// signedOf returns the signed integer type of the given width.
func signedOf(bits int) Type {
	switch bits {
	case 8:
		return Int8
	case 16:
		return Int16
	case 32:
		return Int32
	}
	return Int64
}

// IntRange returns the smallest and largest value of an integer type as
// exact integers: lo as an int64, hi as a uint64 (uint64's maximum does not
// fit an int64). ok is false for other types.
func IntRange(t Type) (lo int64, hi uint64, ok bool) {
	switch t {
	case Int8:
		return math.MinInt8, math.MaxInt8, true
	case Int16:
		return math.MinInt16, math.MaxInt16, true
	case Int32:
		return math.MinInt32, math.MaxInt32, true
	case Int64:
		return math.MinInt64, math.MaxInt64, true
	case Uint8:
		return 0, math.MaxUint8, true
	case Uint16:
		return 0, math.MaxUint16, true
	case Uint32:
		return 0, math.MaxUint32, true
	case Uint64:
		return 0, math.MaxUint64, true
	}
	return 0, 0, false
}

// Promote returns the common type of two numeric operands by the
// promotion table of docs/semantics.md (Numeric types): the wider of two
// signed or two unsigned integers; a signed with a narrower unsigned gives
// the signed, with an unsigned at least as wide (up to uint32) the signed
// type of twice the unsigned's width; float32 with an integer of at most
// 16 bits gives float32, with anything wider float64; float64 with any
// number float64. ok is false when the pair has no common numeric type
// (either is not a number, or uint64 meets a signed integer).
func Promote(a, b Type) (t Type, ok bool) {
	if !a.IsNumeric() || !b.IsNumeric() {
		return Invalid, false
	}
	switch {
	case a == b:
		return a, true
	case a == Float64 || b == Float64:
		return Float64, true
	case a == Float32 || b == Float32:
		o := b
		if b == Float32 {
			o = a
		}
		if o.Bits() <= 16 {
			return Float32, true
		}
		return Float64, true
	case a.IsSigned() == b.IsSigned():
		if a.Bits() >= b.Bits() {
			return a, true
		}
		return b, true
	}
	s, u := a, b
	if u.IsSigned() {
		s, u = u, s
	}
	switch {
	case u.Bits() < s.Bits():
		return s, true
	case u == Uint64:
		return Invalid, false
	}
	return signedOf(2 * u.Bits()), true
}

// ArithType returns the result type of the arithmetic function f (add,
// sub, mul, div, mod) over operands of types a and b: the promotion of two
// numbers, or for add and sub the temporal rules of docs/semantics.md
// (date ± duration is a date, datetime ± duration a datetime, date - date
// and datetime - datetime a duration, duration ± duration a duration,
// duration + date and duration + datetime as the other order). ok is false
// when the pair does not type.
func ArithType(f Func, a, b Type) (t Type, ok bool) {
	if !a.IsTemporal() && !b.IsTemporal() {
		return Promote(a, b)
	}
	switch f {
	case FuncAdd:
		switch {
		case (a == Date || a == Datetime) && b == Duration:
			return a, true
		case a == Duration && (b == Date || b == Datetime || b == Duration):
			return b, true
		}
	case FuncSub:
		switch {
		case (a == Date || a == Datetime || a == Duration) && b == Duration:
			return a, true
		case (a == Date || a == Datetime) && b == a:
			return Duration, true
		}
	}
	return Invalid, false
}

// CanCast reports whether a cast from one type to another exists: none
// to or from a list or struct type; every pair of the non-temporal scalar
// types (bool, string and the ten numeric types); for the temporal types,
// to and from themselves and string (string to date and datetime only),
// date to datetime and back, and each temporal type to and from the
// integer that holds it (date and int32, datetime and int64, duration and
// int64).
func CanCast(from, to Type) bool {
	switch {
	case from.IsNested() || to.IsNested():
		return false
	case !from.IsTemporal() && !to.IsTemporal(), from == to, to == String:
		return true
	case from == String:
		return to == Date || to == Datetime
	case from == Date && to == Datetime, from == Datetime && to == Date:
		return true
	case from.IsTemporal():
		return to == from.Physical()
	default:
		return from == to.Physical()
	}
}

// Field is a named, typed column. Nullable is true unless the field is known
// never to hold a null.
type Field struct {
	Name     string
	Type     Type
	Nullable bool
}

// String renders the field as "name: type" with a "?" marking nullability.
func (f Field) String() string {
	if f.Nullable {
		return f.Name + ": " + f.Type.String() + "?"
	}
	return f.Name + ": " + f.Type.String()
}
