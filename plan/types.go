package plan

import "fmt"

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
)

var typeNames = [...]string{Invalid: "invalid", Bool: "bool", Int32: "int32", Int64: "int64", Float64: "float64", String: "string",
	Date: "date", Datetime: "datetime", Duration: "duration"}

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
	return []Type{Bool, Int32, Int64, Float64, String, Date, Datetime, Duration}
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

// IsInteger reports whether t is int32 or int64.
func (t Type) IsInteger() bool { return t == Int32 || t == Int64 }

// IsNumeric reports whether t takes part in arithmetic.
func (t Type) IsNumeric() bool { return t == Int32 || t == Int64 || t == Float64 }

// Promote returns the common type of two numeric operands: int32 with int64
// gives int64, any integer with float64 gives float64. ok is false when the
// pair has no common numeric type.
func Promote(a, b Type) (t Type, ok bool) {
	if !a.IsNumeric() || !b.IsNumeric() {
		return Invalid, false
	}
	switch {
	case a == b:
		return a, true
	case a == Float64 || b == Float64:
		return Float64, true
	default:
		return Int64, true
	}
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
// to or from a list or struct type; every
// pair of the five non-temporal types; for the temporal types, to and from
// themselves and string (string to date and datetime only), date to
// datetime and back, and each temporal type to and from the integer that
// holds it (date and int32, datetime and int64, duration and int64).
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
