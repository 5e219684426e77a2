package ieee

import (
	"math"
	"testing"
)

func TestPickNaN(t *testing.T) {
	nanA := math.Float64frombits(0x7ff0000000000001) // signalling, payload 1
	nanB := math.Float64frombits(0xfff8000000000002) // quiet, negative, payload 2
	inf := math.Inf(1)
	tests := []struct {
		name string
		a, b float64
		want uint64
	}{
		{"left NaN wins and is quieted", nanA, nanB, 0x7ff8000000000001},
		{"right NaN when left is a number", 1, nanB, 0xfff8000000000002},
		{"right signalling NaN is quieted", 2, nanA, 0x7ff8000000000001},
		{"numbers add normally", 1.5, -0.5, math.Float64bits(1)},
		{"-0.0 + -0.0 stays -0.0", math.Copysign(0, -1), math.Copysign(0, -1), 1 << 63},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := math.Float64bits(Add(tc.a, tc.b)); got != tc.want {
				t.Errorf("Add = %#x, want %#x", got, tc.want)
			}
		})
	}
	// Inf - Inf makes a NaN from numbers: the machine's NaN stands.
	if got := Add(inf, -inf); got == got {
		t.Errorf("Inf + -Inf = %v, want NaN", got)
	}
}
