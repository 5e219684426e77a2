package planutil

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// ZeroValue is the simplest non-null value of t (0, 0.0, "", false).
func ZeroValue(t plan.Type) plan.Value {
	switch t {
	case plan.Bool:
		return plan.BoolValue(false)
	case plan.Int32:
		return plan.Int32Value(0)
	case plan.Int64:
		return plan.Int64Value(0)
	case plan.Float64:
		return plan.Float64Value(0)
	case plan.String:
		return plan.StringValue("")
	case plan.Float32:
		return plan.Float32Value(0)
	}
	if v, ok := plan.IntValue(t, 0); ok {
		return v
	}
	return plan.NullValue(t)
}

// canonicalNaN32 is the float32 a plan file reads back for "NaN".
var canonicalNaN32 = plan.Float64To32(math.NaN())

// ValueComplexity ranks values for shrinking: null 0, the zero value 1,
// any other value 2, and a NaN other than math.NaN()'s bits 3 (so a shrink
// step to zero, then to null, always reduces, and a NaN payload that the
// failure does not need is canonicalized: the plan file format keeps no
// payloads).
func ValueComplexity(v plan.Value) int {
	switch {
	case v.IsNull():
		return 0
	case v.Identical(ZeroValue(v.Type())):
		return 1
	case v.Type() == plan.Float64 && math.IsNaN(v.Float()) && math.Float64bits(v.Float()) != CanonicalNaN:
		return 3
	case v.Type() == plan.Float32 && math.IsNaN(v.Float()) && math.Float32bits(v.Float32()) != math.Float32bits(canonicalNaN32):
		return 3
	}
	return 2
}

// CanonicalNaN is the bit pattern of math.NaN(), the NaN a plan file
// reads back for any NaN; other NaN bits count as a payload.
var CanonicalNaN = math.Float64bits(math.NaN())

// Canonical returns v as a plan file carries it: a NaN payload replaced
// by math.NaN(), and each byte of a string that is not valid UTF-8
// replaced by U+FFFD (JSON carries only UTF-8); the elements of a list
// and the fields of a struct likewise.
func Canonical(v plan.Value) plan.Value {
	if t := v.Type(); t.IsNested() && !v.IsNull() {
		el := v.Elems()
		out := make([]plan.Value, len(el))
		changed := false
		for i, e := range el {
			out[i] = Canonical(e)
			changed = changed || !out[i].Identical(e)
		}
		if !changed {
			return v
		}
		if t.IsList() {
			return plan.ListValue(t, out)
		}
		return plan.StructValue(t, out)
	}
	if !v.IsNull() && v.Type() == plan.Float64 && math.IsNaN(v.Float()) {
		return plan.Float64Value(math.NaN())
	}
	if !v.IsNull() && v.Type() == plan.Float32 && math.IsNaN(v.Float()) {
		return plan.Float32Value(canonicalNaN32)
	}
	if !v.IsNull() && v.Type() == plan.String && !utf8.ValidString(v.Str()) {
		var b strings.Builder
		for _, r := range v.Str() {
			b.WriteRune(r) // ranging yields U+FFFD for each invalid byte
		}
		return plan.StringValue(b.String())
	}
	return v
}
