package ops

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/plan"
)

// TestPropJoinBuildLeft: an inner join built on its left input gives the
// nested-loop reference's pairs in its order (left rows in order, each
// followed by its matches in right order) — the pairs the right build
// gives — for one to three key columns of every type pair (NaN payloads,
// ±0.0, nulls, promoted types), sequentially and over goroutines.
func TestPropJoinBuildLeft(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	props.Property("the left build equals the reference", prop.ForAll(
		func(c joinCase, workers, minRows int) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var left, right []arrow.Array
			for k := range c.left {
				left = append(left, c.left[k].array(t, mem))
				right = append(right, c.right[k].array(t, mem))
			}
			defer releaseAll(left)
			defer releaseAll(right)
			wl, wr := refJoin(plan.InnerJoin, c)
			for _, p := range []Parallel{{}, {Workers: workers, MinRows: minRows}} {
				li, ri, err := JoinIndicesBuild(plan.InnerJoin, BuildLeft, left, right, p)
				if err != nil {
					return err.Error()
				}
				if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
					return fmt.Sprintf("workers %d: got %v %v\nwant %v %v", p.Workers, head(li), head(ri), head(wl), head(wr))
				}
			}
			return ""
		}, genJoinCase(), gen.IntRange(1, 4), gen.IntRange(1, 16)))
	props.TestingRun(t)
}

// TestJoinBuildLeftUniqueKeys: the left build's unique-key path (every
// left key matched by exactly one right row) and its general path agree
// with the right build on shapes a random case rarely draws: a small
// dimension on the left of a large fact table, and the reverse.
func TestJoinBuildLeftUniqueKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(7))
	for _, shape := range []struct{ nl, nr, ldom, rdom int }{
		{10, 5000, 10, 10}, {5000, 10, 10, 10}, {1, 1000, 1, 1}, {300, 300, 300, 300}, {0, 100, 1, 5}, {100, 0, 5, 1},
	} {
		l := make([]int64, shape.nl)
		for i := range l {
			l[i] = int64(rng.Intn(shape.ldom))
		}
		r := make([]int64, shape.nr)
		for i := range r {
			r[i] = int64(rng.Intn(shape.rdom))
		}
		la, ra := int64Array(t, mem, l), int64Array(t, mem, r)
		for _, p := range []Parallel{{}, {Workers: 2, MinRows: 8}} {
			wl, wr, err := JoinIndicesParallel(plan.InnerJoin, []arrow.Array{la}, []arrow.Array{ra}, p)
			if err != nil {
				t.Fatal(err)
			}
			li, ri, err := JoinIndicesBuild(plan.InnerJoin, BuildLeft, []arrow.Array{la}, []arrow.Array{ra}, p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
				t.Errorf("%+v workers %d: left build %v %v, right build %v %v", shape, p.Workers, head(li), head(ri), head(wl), head(wr))
			}
		}
		la.Release()
		ra.Release()
	}
}

// int64Array builds a non-null int64 column.
func int64Array(t testing.TB, mem memory.Allocator, vals []int64) arrow.Array {
	c := tcol{dt: tI64, vals: make([]any, len(vals))}
	for i, v := range vals {
		c.vals[i] = v
	}
	return c.array(t, mem)
}

// TestJoinBuildLeftOnlyInner: every kind but inner refuses the left build
// (plan.Resolve rejects the hint elsewhere; the kernels do not trust it),
// in memory and under a memory limit.
func TestJoinBuildLeftOnlyInner(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	k := int64Array(t, mem, []int64{1, 2})
	defer k.Release()
	for _, kind := range allKinds {
		_, _, err := JoinIndicesBuild(kind, BuildLeft, []arrow.Array{k}, []arrow.Array{k}, Parallel{})
		s, _, _ := newSpill(t, 1<<20, 0)
		_, _, _, lerr := JoinIndicesLimitedBuild(s, kind, BuildLeft, []arrow.Array{k}, []arrow.Array{k}, Parallel{})
		if (err == nil) != (kind == plan.InnerJoin) || (lerr == nil) != (kind == plan.InnerJoin) {
			t.Errorf("%s join built on the left: %v / %v", kind, err, lerr)
		}
	}
	if _, _, err := JoinIndicesBuild(plan.InnerJoin, BuildSide(9), []arrow.Array{k}, []arrow.Array{k}, Parallel{}); err == nil {
		t.Error("an unknown build side was accepted")
	}
}

// TestPropJoinBuildLeftSpilled: under a memory limit the left build gives
// the reference's pairs in its order, with forced partition counts and
// with tiny budgets that choose their own, holds no more than its limit,
// returns the budget to zero and leaves no spill file or Arrow buffer.
func TestPropJoinBuildLeftSpilled(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 200))
	runs, spilled := 0, 0
	props.Property("the spilled left build equals the reference", prop.ForAll(
		func(c joinCase, parts int, limit int64) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var left, right []arrow.Array
			for k := range c.left {
				left = append(left, c.left[k].array(t, mem))
				right = append(right, c.right[k].array(t, mem))
			}
			defer releaseAll(left)
			defer releaseAll(right)
			wl, wr := refJoin(plan.InnerJoin, c)
			for _, forced := range []int{parts, 0} {
				budget := int64(1 << 30)
				if forced == 0 {
					budget = limit
				}
				s, smem, dir := newSpill(t, budget, forced)
				li, ri, held, err := JoinIndicesLimitedBuild(s, plan.InnerJoin, BuildLeft, left, right, Parallel{Workers: 2, MinRows: 8})
				if err != nil {
					if forced == 0 && errors.As(err, new(*memlimit.ExceededError)) {
						continue
					}
					return fmt.Sprintf("parts %d limit %d: %v", forced, limit, err)
				}
				s.Budget.Release(held)
				if files, _ := s.Budget.Spilled(); files > 0 {
					spilled++
				}
				runs++
				if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
					return fmt.Sprintf("parts %d limit %d: got %v %v\nwant %v %v", forced, limit, head(li), head(ri), head(wl), head(wr))
				}
				if u := s.Budget.Used(); u != 0 {
					return fmt.Sprintf("%d bytes still counted", u)
				}
				if p := s.Budget.Peak(); p > budget {
					return fmt.Sprintf("peak %d over the limit %d", p, budget)
				}
				if smem.CurrentAlloc() != 0 {
					return fmt.Sprintf("%d bytes leaked", smem.CurrentAlloc())
				}
				if f := spillFiles(t, dir); len(f) != 0 {
					return fmt.Sprintf("spill files left: %v", f)
				}
				if err := s.Budget.Cleanup(); err != nil {
					return err.Error()
				}
			}
			return ""
		}, genJoinCase(), gen.IntRange(1, 16), gen.Int64Range(1<<10, 24<<10)))
	props.TestingRun(t)
	t.Logf("%d of %d left-build joins spilled", spilled, runs)
	if 2*spilled < runs {
		t.Errorf("only %d of %d joins spilled", spilled, runs)
	}
}

// TestJoinBoundBuildLeft: the bound a memory limit reserves for the
// in-memory join follows the hashed side: hashing a 3-row left input is
// bounded below hashing a 7-row right one, so a budget that cannot hold the
// right build's structures may still hold the left build's.
func TestJoinBoundBuildLeft(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	l := int64Array(t, mem, []int64{1, 2, 3})
	r := int64Array(t, mem, []int64{3, 3, 2, 9, 1, 1, 1})
	defer l.Release()
	defer r.Release()
	left, right := []arrow.Array{l}, []arrow.Array{r}
	hashLeft, err := joinBoundBuild(left, right, true)
	if err != nil {
		t.Fatal(err)
	}
	hashRight, err := joinBoundBuild(left, right, false)
	if err != nil {
		t.Fatal(err)
	}
	if hashLeft <= 0 || hashLeft >= hashRight {
		t.Errorf("hashing the 3-row left side is bounded by %d bytes, the 7-row right side by %d: want 0 < left < right", hashLeft, hashRight)
	}
}

// BenchmarkJoinBuildSide: an inner join of a small left input (1,000
// rows) with a large right one (1M rows; sparse keys, so they are hashed,
// not direct-mapped), hashed on each side. With distinct=1M the right
// input's keys are all different: the right build fills a hash table of
// 1M keys, the left build one of 1,000 and looks 1M keys up in it. With
// distinct=2000 both tables stay small (the right build meets each of its
// 2,000 keys again and again) and hashing the large side costs about as
// much as looking it up. The pairs are the same (TestPropJoinBuildLeft).
func BenchmarkJoinBuildSide(b *testing.B) {
	for _, card := range []int64{1 << 20, 2000} {
		l := mulArray(benchInt64(1000, card, 0), 1_000_003_567)
		r := mulArray(benchInt64(benchRows, card, 0), 1_000_003_567)
		for _, side := range []BuildSide{BuildRight, BuildLeft} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("distinct=%d/build=%s/workers=%d", card, side, workers), func(b *testing.B) {
					p := Parallel{Workers: workers}
					for i := 0; i < b.N; i++ {
						if _, _, err := JoinIndicesBuild(plan.InnerJoin, side, []arrow.Array{l}, []arrow.Array{r}, p); err != nil {
							b.Fatal(err)
						}
					}
					perRow(b, benchRows)
				})
			}
		}
		l.Release()
		r.Release()
	}
}
