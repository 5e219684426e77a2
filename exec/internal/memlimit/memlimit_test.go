package memlimit

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAllocatorCounts: the wrapping allocator counts exactly what a
// checked allocator counts, through allocations, reallocations and frees,
// also concurrently.
func TestAllocatorCounts(t *testing.T) {
	inner := memory.NewCheckedAllocator(memory.NewGoAllocator())
	b := New(1<<20, t.TempDir())
	mem := b.Allocator(inner)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i < 200; i++ {
				buf := memory.NewResizableBuffer(mem)
				buf.Resize(i * 7)
				buf.Resize(i * 13)
				if got, want := b.Used(), int64(inner.CurrentAlloc()); got < int64(i*13) || want < int64(i*13) {
					t.Errorf("used %d, checked %d, want at least %d", got, want, i*13)
				}
				buf.Release()
			}
		}()
	}
	wg.Wait()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(1000)
	if got, want := b.Used(), int64(inner.CurrentAlloc()); got != want || got == 0 {
		t.Fatalf("used %d, the checked allocator %d", got, want)
	}
	buf.Release()
	if b.Used() != 0 || inner.CurrentAlloc() != 0 {
		t.Fatalf("after release: used %d, checked %d", b.Used(), inner.CurrentAlloc())
	}
}

// TestReserve: reservations count against the limit with the Arrow
// bytes, refuse what does not fit (counting nothing), and give back what
// they took; Fits checks without counting, Check finds an excess, Force
// counts past the limit; Peak remembers the most seen.
func TestReserve(t *testing.T) {
	b := New(1000, t.TempDir())
	if err := b.Reserve(600, "a"); err != nil {
		t.Fatal(err)
	}
	err := b.Reserve(500, "the second table")
	var x *ExceededError
	if !errors.As(err, &x) || x.Need != 500 || x.Used != 600 || x.Limit != 1000 {
		t.Fatalf("error %v, want 500 more needed with 600 in use", err)
	}
	if !strings.Contains(err.Error(), "the second table") || !strings.Contains(err.Error(), "1000 B") {
		t.Fatalf("message %q", err)
	}
	if b.Used() != 600 {
		t.Fatalf("a refused reservation counted: %d", b.Used())
	}
	if err := b.Fits(400, "x"); err != nil {
		t.Fatalf("400 more should fit: %v", err)
	}
	if err := b.Fits(401, "x"); err == nil {
		t.Fatal("401 more should not fit")
	}
	if b.Used() != 600 {
		t.Fatalf("Fits counted: %d", b.Used())
	}
	if err := b.Check("x"); err != nil {
		t.Fatal(err)
	}
	b.Force(500)
	if err := b.Check("the data"); err == nil {
		t.Fatal("1100 of 1000 passed the check")
	}
	if b.Peak() != 1100 {
		t.Fatalf("peak %d, want 1100", b.Peak())
	}
	b.Release(500)
	b.Release(600)
	if b.Used() != 0 || b.Available() != 1000 {
		t.Fatalf("used %d available %d after releasing everything", b.Used(), b.Available())
	}
	if err := b.Check("x"); err == nil {
		t.Fatal("the check forgot that the budget was over its limit")
	}
	var nilBudget *Budget
	if nilBudget.Reserve(1<<62, "x") != nil || nilBudget.Fits(1<<62, "x") != nil || nilBudget.Check("x") != nil || nilBudget.Cleanup() != nil {
		t.Fatal("a nil budget refused something")
	}
	nilBudget.Release(1)
	nilBudget.Force(1)
}

// TestSpillDirectory: the spill directory is made on first use under the
// base directory and Cleanup removes it with its files, once or more.
func TestSpillDirectory(t *testing.T) {
	base := t.TempDir()
	b := New(1<<20, base)
	if err := b.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Fatalf("a directory before any spill: %v", ents)
	}
	for i := 0; i < 3; i++ {
		f, err := b.CreateTemp(fmt.Sprintf("t%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("data"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if files, _ := b.Spilled(); files != 3 {
		t.Fatalf("%d files counted", files)
	}
	ents, _ := os.ReadDir(base)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "dfopt-spill-") {
		t.Fatalf("base holds %v", ents)
	}
	for i := 0; i < 2; i++ {
		if err := b.Cleanup(); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
	if _, err := New(1, "/nonexistent/dir/x").CreateTemp("t"); err == nil {
		t.Fatal("a spill directory under a missing base")
	}
}

// TestBytes renders sizes for messages.
func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		3 << 20: "3.0 MiB", 7 << 30: "7.0 GiB", 5 << 40: "5.0 TiB", 3 << 50: "3.0 PiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
