package planutil

import (
	"math"

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
	}
	return plan.NullValue(t)
}

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
	}
	return 2
}

// CanonicalNaN is the bit pattern of math.NaN(), the NaN a plan file
// reads back for any NaN; other NaN bits count as a payload.
var CanonicalNaN = math.Float64bits(math.NaN())

// Canonical returns v with a NaN payload replaced by math.NaN().
func Canonical(v plan.Value) plan.Value {
	if !v.IsNull() && v.Type() == plan.Float64 && math.IsNaN(v.Float()) {
		return plan.Float64Value(math.NaN())
	}
	return v
}
