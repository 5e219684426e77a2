package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
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

// newSpill returns a Spill over a fresh budget of limit bytes whose spill
// directory is under a test directory; the test fails if a spill file is
// left behind once the budget's operator returned (checked by
// assertNoSpillFiles) or the checked allocator leaks.
func newSpill(t testing.TB, limit int64, parts int) (*Spill, *memory.CheckedAllocator, string) {
	t.Helper()
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	b := memlimit.New(limit, dir)
	return &Spill{Ctx: context.Background(), Mem: b.Allocator(mem), Budget: b, Partitions: parts}, mem, dir
}

// spillFiles lists the files under dir (the spill directory's contents).
func spillFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		sub, err := os.ReadDir(dir + "/" + e.Name())
		if err != nil {
			out = append(out, e.Name())
			continue
		}
		for _, f := range sub {
			out = append(out, e.Name()+"/"+f.Name())
		}
	}
	return out
}

var allKinds = []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}

// TestPropJoinSpilled: the grace hash join gives JoinIndices's pairs in
// JoinIndices's order for every kind, with forced partition counts (1 to
// 16) and with tiny budgets that choose their own, and leaves no spill
// file and no Arrow buffer behind.
func TestPropJoinSpilled(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 200))
	runs, spilled, chose, tooSmall := 0, 0, 0, 0
	props.Property("spilled join pairs equal the in-memory ones", prop.ForAll(
		func(c joinCase, parts int, limit int64) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var left, right []arrow.Array
			for k := range c.left {
				left = append(left, c.left[k].array(t, mem))
				right = append(right, c.right[k].array(t, mem))
			}
			defer releaseAll(left)
			defer releaseAll(right)
			for _, kind := range allKinds {
				wl, wr, err := JoinIndices(kind, left, right)
				if err != nil {
					return err.Error()
				}
				for _, forced := range []int{parts, 0} {
					budget := int64(1 << 30) // forced partitions: any budget
					if forced == 0 {
						budget = limit // tiny: the join chooses its partitions
					}
					s, smem, dir := newSpill(t, budget, forced)
					li, ri, held, err := JoinIndicesLimited(s, kind, left, right, Parallel{Workers: 2, MinRows: 8})
					if err != nil {
						if forced == 0 && errors.As(err, new(*memlimit.ExceededError)) {
							tooSmall++
							continue // too tiny for this case: allowed, checked elsewhere
						}
						return fmt.Sprintf("%s parts %d limit %d: %v", joinName(kind), forced, limit, err)
					}
					s.Budget.Release(held)
					if files, _ := s.Budget.Spilled(); files > 0 {
						spilled++
						if forced == 0 {
							chose++
						}
					} else if forced > 0 {
						return "forced partitions did not spill"
					}
					runs++
					if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
						return fmt.Sprintf("%s parts %d limit %d: got %v %v\nwant %v %v", joinName(kind), forced, limit, head(li), head(ri), head(wl), head(wr))
					}
					if u := s.Budget.Used(); u != 0 {
						return fmt.Sprintf("%s: %d bytes still counted", joinName(kind), u)
					}
					if p := s.Budget.Peak(); p > budget {
						return fmt.Sprintf("%s: peak %d over the limit %d", joinName(kind), p, budget)
					}
					if smem.CurrentAlloc() != 0 {
						return fmt.Sprintf("%s: %d bytes leaked", joinName(kind), smem.CurrentAlloc())
					}
					if f := spillFiles(t, dir); len(f) != 0 {
						return fmt.Sprintf("%s: spill files left: %v", joinName(kind), f)
					}
					if err := s.Budget.Cleanup(); err != nil {
						return err.Error()
					}
					if ents, _ := os.ReadDir(dir); len(ents) != 0 {
						return fmt.Sprintf("%s: spill directory left", joinName(kind))
					}
				}
			}
			return ""
		}, genJoinCase(), gen.IntRange(1, 16), gen.Int64Range(1<<10, 24<<10)))
	props.TestingRun(t)
	t.Logf("%d of %d joins spilled, %d of them by the budget's choice; %d budgets too small", spilled, runs, chose, tooSmall)
	if 2*spilled < runs {
		t.Errorf("only %d of %d joins spilled", spilled, runs)
	}
}

// groupCase is grouping keys (one to three columns) and an aggregate
// argument.
type groupCase struct {
	keys []tcol
	arg  tcol
}

// String renders the case.
func (c groupCase) String() string {
	s := ""
	for _, k := range c.keys {
		s += "\n  key " + k.String()
	}
	return s + "\n  arg " + c.arg.String()
}

func genGroupCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		n := genRows(p)
		var c groupCase
		for k := 1 + rng.Intn(3); k > 0; k-- {
			kt := keyTypes[rng.Intn(len(keyTypes))]
			c.keys = append(c.keys, genCol(rng, kt, n, 0.1, 1+rng.Intn(8)))
		}
		at := keyTypes[rng.Intn(len(keyTypes))]
		c.arg = genCol(rng, at, n, []float64{0, 0.2, 1}[rng.Intn(3)], 1+rng.Intn(len(poolOf(at))))
		var shrink gopter.Shrinker = func(v any) gopter.Shrink {
			gc := v.(groupCase)
			return shrinkRows(len(gc.arg.vals), func(rows []int) any {
				out := groupCase{arg: gc.arg.pick(rows)}
				for _, k := range gc.keys {
					out.keys = append(out.keys, k.pick(rows))
				}
				return out
			})
		}
		return gopter.NewGenResult(c, shrink)
	}
}

// TestPropGroupSpilled: a spilled grouping has GroupIDs's groups (first
// rows in first-appearance order) and every aggregate over it equals
// Aggregate over GroupIDs's ids bit for bit, errors included (kind,
// expression and row), with forced partition counts and with tiny budgets;
// no spill file and no buffer is left behind.
func TestPropGroupSpilled(t *testing.T) {
	fns := allAggs
	runs, spilled, tooSmall, sameErrors := 0, 0, 0, 0
	props := gopter.NewProperties(propParams(t, 200))
	props.Property("spilled grouping and aggregates equal the in-memory ones", prop.ForAll(
		func(c groupCase, parts int, limit int64) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var keys []arrow.Array
			for _, k := range c.keys {
				keys = append(keys, k.array(t, mem))
			}
			defer releaseAll(keys)
			arg := c.arg.array(t, mem)
			defer arg.Release()
			ids, first, err := GroupIDs(keys)
			if err != nil {
				return err.Error()
			}
			for _, forced := range []int{parts, 0} {
				budget := int64(1 << 30)
				if forced == 0 {
					budget = limit
				}
				s, smem, dir := newSpill(t, budget, forced)
				msg := func() string {
					g, err := GroupLimited(s, keys, Parallel{Workers: 2, MinRows: 8}, true)
					if err != nil {
						if forced == 0 && errors.As(err, new(*memlimit.ExceededError)) {
							tooSmall++
							return ""
						}
						return fmt.Sprintf("parts %d limit %d: group: %v", forced, budget, err)
					}
					defer g.Close()
					runs++
					if files, _ := s.Budget.Spilled(); files > 0 {
						spilled++
					} else if forced > 0 {
						return "forced partitions did not spill"
					}
					if !slices.Equal(g.First, first) || g.Groups() != len(first) {
						return fmt.Sprintf("parts %d: first rows %v, want %v", forced, head(g.First), head(first))
					}
					for _, fn := range fns {
						if !takes(fn, c.arg.dt) {
							continue
						}
						a := arg
						if fn == plan.FuncLen {
							a = nil
						}
						want, werr := Aggregate(mem, Plain(fn), "agg", a, ids, len(first))
						got, gerr := g.Aggregate(s.Mem, Plain(fn), "agg", a, Parallel{Workers: 2, MinRows: 8})
						if werr != nil || gerr != nil {
							we, _ := plan.AsError(werr)
							ge, _ := plan.AsError(gerr)
							if got != nil {
								got.Release()
							}
							if want != nil {
								want.Release()
							}
							if forced == 0 && errors.As(gerr, new(*memlimit.ExceededError)) {
								tooSmall++
								continue
							}
							if we == nil || ge == nil || we.Kind != ge.Kind || we.Expr != ge.Expr || we.Row != ge.Row || we.Msg != ge.Msg {
								return fmt.Sprintf("parts %d %s: error %v, want %v", forced, fn, gerr, werr)
							}
							sameErrors++
							continue
						}
						w, gc := cellsOf(want), cellsOf(got)
						want.Release()
						got.Release()
						if !slices.Equal(w, gc) {
							return fmt.Sprintf("parts %d %s: got %v\nwant %v", forced, fn, gc, w)
						}
					}
					return ""
				}()
				if msg != "" {
					return msg
				}
				if u := s.Budget.Used(); u != 0 {
					return fmt.Sprintf("parts %d: %d bytes still counted", forced, u)
				}
				if p := s.Budget.Peak(); p > budget {
					// Parallel partitions check before they allocate
					// (Budget.Fits) without reserving, so two of them can
					// pass together and go over; the contract is that
					// Check, which the executor calls after every step,
					// then reports it: a collect never succeeds over its
					// limit.
					if forced != 0 || !errors.As(s.Budget.Check("the test's step"), new(*memlimit.ExceededError)) {
						return fmt.Sprintf("parts %d: peak %d over the limit %d, and Check does not report it", forced, p, budget)
					}
					tooSmall++
				}
				if smem.CurrentAlloc() != 0 {
					return fmt.Sprintf("parts %d: %d bytes leaked", forced, smem.CurrentAlloc())
				}
				if f := spillFiles(t, dir); len(f) != 0 {
					return fmt.Sprintf("spill files left: %v", f)
				}
				if err := s.Budget.Cleanup(); err != nil {
					return err.Error()
				}
			}
			return ""
		}, genGroupCase(), gen.IntRange(1, 16), gen.Int64Range(1<<10, 24<<10)))
	props.TestingRun(t)
	t.Logf("%d of %d groupings spilled; %d budgets too small; %d overflows raised alike", spilled, runs, tooSmall, sameErrors)
	if sameErrors == 0 {
		t.Error("no case raised an error: the error path went untested")
	}
	if 2*spilled < runs {
		t.Errorf("only %d of %d groupings spilled", spilled, runs)
	}
}
