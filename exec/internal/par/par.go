// Package par splits the rows of one evaluation over goroutines: the
// partitioning (Split) and the runner (Run) that the executor's kernels
// share. It holds no state. The public name of its configuration is
// ops.Parallel.
package par

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Parallel says how an operator may split its rows over goroutines. Its
// zero value (and any Workers <= 1) is sequential. The partitioning changes
// how work is scheduled, never a result: every parallel kernel here returns
// the rows, order, bits and errors of its sequential form, whatever Workers
// and MinRows are.
type Parallel struct {
	// Workers is the most goroutines an operator uses at once.
	Workers int
	// MinRows is the fewest rows worth a partition of their own (rounded
	// up to a multiple of 8; 0 means DefaultMinRows). Tests set it tiny so
	// that small tables split into several partitions.
	MinRows int
}

// DefaultMinRows is Parallel.MinRows when it is 0: below this many rows a
// partition costs more to schedule than it saves.
const DefaultMinRows = 1 << 15

// partsPerWorker is how many partitions a worker gets on large inputs, so
// that one slow partition does not leave the other workers idle.
const partsPerWorker = 4

// Range is a half-open range of rows [Lo, Hi).
type Range struct{ Lo, Hi int }

// Len is the number of rows in r.
func (r Range) Len() int { return r.Hi - r.Lo }

// On reports whether p splits anything at all.
func (p Parallel) On() bool { return p.Workers > 1 }

// Split cuts n rows into contiguous partitions in row order. Every
// partition but the last holds a multiple of 8 rows, so partitions own
// whole bytes of a bitmap. Sequential (or small) inputs are one partition.
func (p Parallel) Split(n int) []Range {
	minRows := p.MinRows
	if minRows <= 0 {
		minRows = DefaultMinRows
	}
	if !p.On() || n < 2*minRows {
		return []Range{{Lo: 0, Hi: n}}
	}
	chunk := max(minRows, (n+partsPerWorker*p.Workers-1)/(partsPerWorker*p.Workers))
	chunk = (chunk + 7) &^ 7
	out := make([]Range, 0, (n+chunk-1)/chunk)
	for lo := 0; lo < n; lo += chunk {
		out = append(out, Range{Lo: lo, Hi: min(lo+chunk, n)})
	}
	return out
}

// Run calls fn(i) once for every i in [0, k), on at most Workers
// goroutines (the caller's among them), and returns when every call has
// returned: no goroutine outlives it. Calls start in index order. A panic
// in a call is recovered and returned as an error (the lowest index's),
// after every other call has finished.
func (p Parallel) Run(k int, fn func(i int)) error {
	if k <= 0 {
		return nil
	}
	panics := make([]error, k)
	call := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				panics[i] = Recovered(fmt.Sprintf("partition %d", i), r)
			}
		}()
		fn(i)
	}
	workers := min(max(p.Workers, 1), k)
	if workers == 1 {
		for i := 0; i < k; i++ {
			call(i)
		}
	} else {
		var next atomic.Int64
		work := func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= k {
					return
				}
				call(i)
			}
		}
		var wg sync.WaitGroup
		for w := 1; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		work()
		wg.Wait()
	}
	for _, err := range panics {
		if err != nil {
			return err
		}
	}
	return nil
}

// For runs fn over the partitions of n rows (Split), concurrently when
// there are several, and returns when all are done. Over several
// partitions a panic in fn is returned as an error (see Run); a single
// partition is fn(0, n) on the caller's goroutine, and a panic there
// propagates.
func (p Parallel) For(n int, fn func(lo, hi int)) error {
	parts := p.Split(n)
	if len(parts) == 1 {
		fn(0, n)
		return nil
	}
	return p.Run(len(parts), func(i int) { fn(parts[i].Lo, parts[i].Hi) })
}

// First runs fn over the partitions of n rows like For; fn returns the
// first row of its partition that stops the kernel (a failure), or -1.
// First returns the lowest such row over all partitions — the row a
// sequential run over [0, n) stops at — or -1.
func (p Parallel) First(n int, fn func(lo, hi int) int) (int, error) {
	parts := p.Split(n)
	if len(parts) == 1 {
		return fn(0, n), nil
	}
	stops := make([]int, len(parts))
	if err := p.Run(len(parts), func(i int) { stops[i] = fn(parts[i].Lo, parts[i].Hi) }); err != nil {
		return -1, err
	}
	for _, s := range stops {
		if s >= 0 {
			return s, nil
		}
	}
	return -1, nil
}
