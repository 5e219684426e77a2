package plan

import "fmt"

// Type is the logical type of a column or expression. The set is closed:
// the optimizer's legality arguments are made over exactly these five types.
type Type uint8

// The logical types. Invalid is the zero value so that an unset type is never
// mistaken for a real one.
const (
	Invalid Type = iota
	Bool
	Int32
	Int64
	Float64
	String
)

var typeNames = [...]string{Invalid: "invalid", Bool: "bool", Int32: "int32", Int64: "int64", Float64: "float64", String: "string"}

// String returns the type's name as written in plan files ("int64").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// ParseType maps a plan-file type name to its Type.
func ParseType(name string) (Type, bool) {
	for t, n := range typeNames {
		if n == name && Type(t) != Invalid {
			return Type(t), true
		}
	}
	return Invalid, false
}

// Types lists every valid type, for generators and exhaustive tests.
func Types() []Type { return []Type{Bool, Int32, Int64, Float64, String} }

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
