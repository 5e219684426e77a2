// Package memlimit is the accounting behind exec.Options.MemoryLimit: one
// Budget per collect counts the memory the collect holds and says when a
// step would exceed the limit, and it owns the collect's spill directory.
//
// What a Budget counts (docs/performance.md, "Memory limit", is the user's
// view of the same list):
//
//   - Arrow buffers allocated through Budget.Allocator, exactly (the bytes
//     requested, as memory.CheckedAllocator counts them), from allocation
//     to Free. Buffers the collect did not allocate (the batches of an
//     ArrowSource, shared without a copy) are not counted.
//   - Go-heap structures of the operators, by explicit reservation
//     (Reserve, Release): hash tables, group and row id vectors, join pair
//     vectors, partition buffers, and the row index vectors a frame keeps.
//     Reservations are upper-bound estimates computed from row counts
//     before the structure is built.
//
// What it does not count: Go-heap garbage the collector has not reclaimed
// yet (GOGC decides when), small per-node bookkeeping (schemas, slices of
// column pointers, IPC metadata), the alignment padding an allocator adds,
// and the memory of UDFs and host extensions beyond the Arrow buffers
// they allocate through the collect's allocator.
//
// Counting is two atomic integers; a collect without a limit has no Budget
// at all (a nil *Budget), so the unlimited path pays nothing.
package memlimit

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Budget is the memory limit of one collect and what it currently holds.
// Its methods are safe for concurrent use. A nil *Budget means "no limit"
// for the helpers that accept one (Reserve, Release, Fits, Check).
type Budget struct {
	limit int64
	arrow atomic.Int64 // live bytes allocated through Allocator
	held  atomic.Int64 // reserved Go-heap bytes
	peak  atomic.Int64 // highest arrow+held seen at a reservation or check

	base    string // where the spill directory is created
	mu      sync.Mutex
	dir     string // the collect's spill directory, "" until first needed
	files   atomic.Int64
	written atomic.Int64
}

// New returns the budget of a collect limited to limit bytes (limit > 0),
// spilling into a directory created under base ("" means os.TempDir())
// when an operator first needs one.
func New(limit int64, base string) *Budget {
	if base == "" {
		base = os.TempDir()
	}
	return &Budget{limit: limit, base: base}
}

// Limit returns the limit in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Used returns the bytes currently counted: live Arrow buffers plus
// reservations.
func (b *Budget) Used() int64 { return b.arrow.Load() + b.held.Load() }

// Peak returns the highest Used seen by an allocation, a reservation, a
// Fits check or Check: the collect's high-water mark of what the budget
// counts.
func (b *Budget) Peak() int64 { return b.peak.Load() }

// Available returns how many more bytes fit under the limit (0 when the
// budget is already over).
func (b *Budget) Available() int64 {
	return max(0, b.limit-b.Used())
}

// notePeak records u as the peak when it is higher.
func (b *Budget) notePeak(u int64) {
	for {
		p := b.peak.Load()
		if u <= p || b.peak.CompareAndSwap(p, u) {
			return
		}
	}
}

// ExceededError is a step that needs more memory than the limit leaves:
// What names the structure ("the join's output pairs"), Need the bytes it
// asked for, Used what the budget counted at that moment.
type ExceededError struct {
	What  string
	Need  int64
	Used  int64
	Limit int64
}

// Error says what needed how much, against which limit: "memory limit of
// 1.0 MiB exceeded: the join's output pairs (7.2 GiB more needed, 12.0
// KiB in use)".
func (e *ExceededError) Error() string {
	if e.Need <= 0 {
		return fmt.Sprintf("memory limit of %s exceeded: %s (%s in use)", Bytes(e.Limit), e.What, Bytes(e.Used))
	}
	return fmt.Sprintf("memory limit of %s exceeded: %s (%s more needed, %s in use)",
		Bytes(e.Limit), e.What, Bytes(e.Need), Bytes(e.Used))
}

// AsExceeded returns the ExceededError in err's chain, if any.
func AsExceeded(err error) (*ExceededError, bool) {
	var e *ExceededError
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Reserve counts n more bytes of Go heap for what, or returns an
// *ExceededError (and counts nothing) when they do not fit. A nil budget
// reserves everything. Pair every successful Reserve with Release.
func (b *Budget) Reserve(n int64, what string) error {
	if b == nil || n <= 0 {
		return nil
	}
	for {
		h := b.held.Load()
		u := b.arrow.Load() + h
		if u+n > b.limit {
			return &ExceededError{What: what, Need: n, Used: u, Limit: b.limit}
		}
		if b.held.CompareAndSwap(h, h+n) {
			b.notePeak(u + n)
			return nil
		}
	}
}

// Release gives back n bytes reserved by Reserve or Force.
func (b *Budget) Release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.held.Add(-n)
}

// Force counts n bytes whatever the limit (memory already allocated that
// must be counted from now on); a later Check reports the excess.
func (b *Budget) Force(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.notePeak(b.held.Add(n) + b.arrow.Load())
}

// Fits returns an *ExceededError when n more bytes would not fit under the
// limit, counting nothing: the check before an Arrow allocation, which the
// allocator counts itself once it happens.
func (b *Budget) Fits(n int64, what string) error {
	if b == nil {
		return nil
	}
	u := b.Used()
	if u+n > b.limit {
		return &ExceededError{What: what, Need: n, Used: u, Limit: b.limit}
	}
	b.notePeak(u + n)
	return nil
}

// Check returns an *ExceededError when the budget has been over the limit
// at any moment since it was made (an Arrow allocation that no check
// announced, such as an expression's result, took it there, even if it
// has been freed since): checked at every step, this makes a collect that
// succeeds one that never held more than its limit.
func (b *Budget) Check(what string) error {
	if b == nil {
		return nil
	}
	b.notePeak(b.Used())
	if p := b.peak.Load(); p > b.limit {
		return &ExceededError{What: what, Used: p, Limit: b.limit}
	}
	return nil
}

// Allocator wraps mem so that every buffer allocated through it is
// counted while it lives. It never refuses an allocation (the Arrow
// allocator interface cannot fail): the operators check before they
// allocate, and Check finds any excess afterwards.
func (b *Budget) Allocator(mem memory.Allocator) memory.Allocator {
	return &countingAllocator{mem: mem, b: b}
}

// countingAllocator counts the live bytes of the buffers it hands out.
type countingAllocator struct {
	mem memory.Allocator
	b   *Budget
}

// Allocate implements memory.Allocator.
func (a *countingAllocator) Allocate(size int) []byte {
	out := a.mem.Allocate(size)
	a.b.notePeak(a.b.arrow.Add(int64(size)) + a.b.held.Load())
	return out
}

// Reallocate implements memory.Allocator.
func (a *countingAllocator) Reallocate(size int, b []byte) []byte {
	old := len(b)
	out := a.mem.Reallocate(size, b)
	a.b.notePeak(a.b.arrow.Add(int64(size-old)) + a.b.held.Load())
	return out
}

// Free implements memory.Allocator.
func (a *countingAllocator) Free(b []byte) {
	a.b.arrow.Add(-int64(len(b)))
	a.mem.Free(b)
}

// SpillError is a failure to write or read a spill file (a full disk, a
// missing or unwritable spill directory): the collect could not use the
// disk the limit sent it to, which is resource exhaustion too.
type SpillError struct {
	Err error
}

// Error says that spilling failed and why.
func (e *SpillError) Error() string { return "spilling to disk failed: " + e.Err.Error() }

// Unwrap returns the I/O error.
func (e *SpillError) Unwrap() error { return e.Err }

// AsSpillError returns the SpillError in err's chain, if any.
func AsSpillError(err error) (*SpillError, bool) {
	var e *SpillError
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CreateTemp creates a new spill file (its name starts with prefix) in
// the collect's spill directory, creating the directory on first use. The
// caller closes and removes the file; Cleanup removes whatever remains.
func (b *Budget) CreateTemp(prefix string) (*os.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir == "" {
		dir, err := os.MkdirTemp(b.base, "dfopt-spill-")
		if err != nil {
			return nil, &SpillError{Err: fmt.Errorf("spill directory: %w", err)}
		}
		b.dir = dir
	}
	f, err := os.CreateTemp(b.dir, prefix+"-*.arrow")
	if err != nil {
		return nil, &SpillError{Err: fmt.Errorf("spill file: %w", err)}
	}
	b.files.Add(1)
	return f, nil
}

// NoteWritten counts n bytes written to spill files (statistics).
func (b *Budget) NoteWritten(n int64) { b.written.Add(n) }

// Spilled returns how many spill files the collect created and how many
// bytes it wrote to them.
func (b *Budget) Spilled() (files, bytes int64) { return b.files.Load(), b.written.Load() }

// Cleanup removes the spill directory and everything in it. It is safe to
// call more than once and on a budget that never spilled.
func (b *Budget) Cleanup() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir == "" {
		return nil
	}
	err := os.RemoveAll(b.dir)
	b.dir = ""
	if err != nil {
		return fmt.Errorf("removing the spill directory: %w", err)
	}
	return nil
}

// Bytes renders a byte count for messages: "512 B", "1.5 KiB", "3.0 MiB",
// "7.2 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		if f < unit && f > -unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f PiB", f/unit)
}
