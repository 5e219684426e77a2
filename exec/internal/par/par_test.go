package par

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSplit: partitions cover [0, n) in order, every one but the last a
// multiple of 8 rows, and sequential or small inputs are one partition.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		p     Parallel
		n     int
		parts int
	}{
		{Parallel{}, 100, 1},
		{Parallel{Workers: 1, MinRows: 1}, 100, 1},
		{Parallel{Workers: 2, MinRows: 8}, 15, 1},
		{Parallel{Workers: 2, MinRows: 8}, 16, 2},
		{Parallel{Workers: 2, MinRows: 8}, 64, 8},
		{Parallel{Workers: 2, MinRows: 1}, 64, 8},
		{Parallel{Workers: 2, MinRows: 3}, 61, 8},
		{Parallel{Workers: 2}, 10_000_000, 8},
		{Parallel{Workers: 2}, 2 * DefaultMinRows, 2},
		{Parallel{Workers: 2}, 0, 1},
	} {
		parts := c.p.Split(c.n)
		if len(parts) != c.parts {
			t.Errorf("%+v.Split(%d): %d partitions, want %d", c.p, c.n, len(parts), c.parts)
		}
		lo := 0
		for i, r := range parts {
			if r.Lo != lo || r.Hi <= r.Lo && c.n > 0 || (i < len(parts)-1 && r.Len()%8 != 0) {
				t.Errorf("%+v.Split(%d): partition %d is %+v", c.p, c.n, i, r)
			}
			lo = r.Hi
		}
		if lo != c.n {
			t.Errorf("%+v.Split(%d) ends at %d", c.p, c.n, lo)
		}
	}
}

// TestRun: every index runs exactly once, no goroutine outlives Run, and a
// panic comes back as the lowest panicking index's error after the others
// finished.
func TestRun(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, workers := range []int{0, 1, 2, 7} {
		p := Parallel{Workers: workers}
		counts := make([]atomic.Int32, 50)
		if err := p.Run(len(counts), func(i int) { counts[i].Add(1) }); err != nil {
			t.Fatal(err)
		}
		for i := range counts {
			if counts[i].Load() != 1 {
				t.Fatalf("workers=%d: index %d ran %d times", workers, i, counts[i].Load())
			}
		}
		var done atomic.Int32
		err := p.Run(20, func(i int) {
			switch i {
			case 5: // with several workers, panics after 13 has
				time.Sleep(20 * time.Millisecond)
				panic("boom")
			case 13:
				panic("boom")
			}
			time.Sleep(time.Millisecond)
			done.Add(1)
		})
		if err == nil || !strings.Contains(err.Error(), "partition 5") {
			t.Errorf("workers=%d: error %v, want partition 5's panic", workers, err)
		}
		if done.Load() != 18 {
			t.Errorf("workers=%d: %d calls finished, want 18", workers, done.Load())
		}
	}
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

// TestFirst: the lowest stopping row over the partitions, or -1.
func TestFirst(t *testing.T) {
	p := Parallel{Workers: 3, MinRows: 8}
	stopAt := map[int]bool{37: true, 90: true, 41: true}
	got, err := p.First(100, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			if stopAt[i] {
				return i
			}
		}
		return -1
	})
	if err != nil || got != 37 {
		t.Errorf("First = %d, %v; want 37", got, err)
	}
	if got, _ := p.First(100, func(lo, hi int) int { return -1 }); got != -1 {
		t.Errorf("First with no stop = %d", got)
	}
}
