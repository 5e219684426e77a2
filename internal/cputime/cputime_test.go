package cputime

import (
	"runtime"
	"testing"
)

// TestProcessGrows checks that burning CPU shows up in Process.
func TestProcessGrows(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("no CPU time on " + runtime.GOOS)
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i & 3
	}
	after, _ := Process()
	if after <= before {
		t.Errorf("CPU time did not grow: %v then %v (work %d)", before, after, x)
	}
}
