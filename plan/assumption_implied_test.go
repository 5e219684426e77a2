package plan

import (
	"math"
	"testing"
)

// TestAssumptionImpliedBy: computed facts imply an assumption exactly when
// their range lies within its bounds, of the same type, and they prove no
// NaN when it assumes none; facts without a range imply nothing.
func TestAssumptionImpliedBy(t *testing.T) {
	irange := func(lo, hi int64) ColumnFacts {
		return ColumnFacts{HasRange: true, Min: Int64Value(lo), Max: Int64Value(hi)}
	}
	frange := func(lo, hi float64, nanFree bool) ColumnFacts {
		return ColumnFacts{HasRange: true, Min: Float64Value(lo), Max: Float64Value(hi), NaNFree: nanFree}
	}
	ia := func(lo, hi int64) Assumption {
		return Assumption{Column: "a", Min: Int64Value(lo), Max: Int64Value(hi)}
	}
	fa := func(lo, hi float64, nanFree bool) Assumption {
		return Assumption{Column: "f", Min: Float64Value(lo), Max: Float64Value(hi), NaNFree: nanFree}
	}
	cases := []struct {
		name string
		a    Assumption
		f    ColumnFacts
		want bool
	}{
		{"within", ia(-10, 10), irange(-3, 4), true},
		{"equal bounds", ia(-3, 4), irange(-3, 4), true},
		{"below", ia(-2, 10), irange(-3, 4), false},
		{"above", ia(-10, 3), irange(-3, 4), false},
		{"no range", ia(-10, 10), ColumnFacts{HasNullCount: true}, false},
		{"int32 facts, int64 assumption", ia(-10, 10), ColumnFacts{HasRange: true, Min: Int32Value(0), Max: Int32Value(1)}, false},
		{"int32", Assumption{Column: "a", Min: Int32Value(-1), Max: Int32Value(1)}, ColumnFacts{HasRange: true, Min: Int32Value(0), Max: Int32Value(1)}, true},
		{"float within, NaN allowed", fa(-1, 1, false), frange(-0.5, 0.5, false), true},
		{"float within, no NaN proven", fa(-1, 1, true), frange(-0.5, 0.5, true), true},
		{"float within, NaN not excluded", fa(-1, 1, true), frange(-0.5, 0.5, false), false},
		{"float above", fa(-1, 1, false), frange(-0.5, 1.5, true), false},
		{"signed zeros are one bound", fa(0, 0, false), frange(math.Copysign(0, -1), 0, true), true},
	}
	for _, c := range cases {
		if got := c.a.ImpliedBy(c.f); got != c.want {
			t.Errorf("%s: %s implied by %s = %v, want %v", c.name, c.a, c.f, got, c.want)
		}
	}
}
