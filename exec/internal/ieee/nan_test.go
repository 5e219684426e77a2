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

func TestSubMulDiv(t *testing.T) {
	nanA := math.Float64frombits(0x7ff0000000000001)
	nanB := math.Float64frombits(0xfff8000000000002)
	inf := math.Inf(1)
	tests := []struct {
		name string
		op   func(a, b float64) float64
		a, b float64
		want uint64
	}{
		{"sub left NaN", Sub, nanA, nanB, 0x7ff8000000000001},
		{"sub right NaN", Sub, 1, nanA, 0x7ff8000000000001},
		{"sub numbers", Sub, 1.5, 0.5, math.Float64bits(1)},
		{"mul right NaN", Mul, 0.5, nanB, 0xfff8000000000002},
		{"mul numbers", Mul, 0.5, 3, math.Float64bits(1.5)},
		{"div left NaN", Div, nanA, 3, 0x7ff8000000000001},
		{"div by zero", Div, 1, 0, math.Float64bits(inf)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := math.Float64bits(tc.op(tc.a, tc.b)); got != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
	if got := Sub(inf, inf); got == got {
		t.Errorf("Inf - Inf = %v, want NaN", got)
	}
}
