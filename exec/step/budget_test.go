package step

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// TestFrameIndexAccounting: under a budget, the row index vectors frames
// keep are counted from their making until the last frame referring to
// them (through a gather, a composition, a slice or a share) is released;
// a gather whose vectors do not fit fails with resource_exhausted and
// counts nothing.
func TestFrameIndexAccounting(t *testing.T) {
	inner := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer inner.AssertSize(t, 0)
	b := memlimit.New(1<<20, t.TempDir())
	e := NewEnv(plan.WithCallCounter(context.Background()), b.Allocator(inner), nil, "test").WithBudget(b)
	tb, err := plan.NewTable("f", plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64}, plan.Field{Name: "y", Type: plan.Int64}),
		[][]plan.Value{{i64(10), i64(11), i64(12), i64(13), i64(14)}, {i64(0), i64(1), i64(2), i64(3), i64(4)}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := kernel.TableRecord(e.Mem, tb)
	if err != nil {
		t.Fatal(err)
	}
	base, err := e.FromRecord(tb.Schema(), rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	arrow := b.Used()
	held := func() int64 { return b.Used() - arrow }
	// A gather of compact columns keeps the caller's vector (3 rows).
	g1, err := e.gather(base, tb.Schema(), []int32{4, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if held() != 12 {
		t.Fatalf("after a gather %d bytes held, want 12", held())
	}
	// A gather of gathered columns composes one new vector (2 rows) for
	// both columns.
	g2, err := e.WithParallel(ops.Parallel{Workers: 2, MinRows: 1}).gather(g1, tb.Schema(), []int32{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if held() != 12+8 {
		t.Fatalf("after a composition %d bytes held, want 20", held())
	}
	s := g1.Slice(tb.Schema(), 1, 2)
	sh := g2.Share(tb.Schema())
	g1.Release()
	g2.Release()
	if held() != 20 {
		t.Fatalf("a slice and a share keep their vectors: %d bytes held, want 20", held())
	}
	out, err := e.Materialize(s)
	if err != nil {
		t.Fatal(err)
	}
	out.Release()
	s.Release()
	if held() != 8 {
		t.Fatalf("the slice released its vector: %d bytes held, want 8", held())
	}
	sh.Release()
	if held() != 0 {
		t.Fatalf("every frame released: %d bytes held", held())
	}
	// A composition that does not fit.
	g3, err := e.gather(base, tb.Schema(), []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]int32, 300_000)
	if _, err := e.gather(g3, tb.Schema(), big); err == nil {
		t.Fatal("a 1.2 MB index vector fit a 1 MiB budget")
	} else if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.ResourceExhausted {
		t.Fatalf("error %v, want resource_exhausted", err)
	}
	if held() != 4 {
		t.Fatalf("a refused gather counted: %d bytes held, want 4", held())
	}
	g3.Release()
	base.Release()
	if b.Used() != 0 {
		t.Fatalf("%d bytes counted after everything was released", b.Used())
	}
}
