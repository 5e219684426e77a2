package ops

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// parCase is a column, row indices into it (-1 for null rows, now and then
// one out of range) and bool masks, for the parallel kernels.
type parCase struct {
	col   tcol
	idx   []int32
	masks []tcol
	par   Parallel
}

func (c parCase) String() string {
	return fmt.Sprintf("col %s\nidx %v\nmasks %v\npar %+v", c.col, c.idx, c.masks, c.par)
}

func genParCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		n := genRows(p)
		dt := keyTypes[rng.Intn(len(keyTypes))]
		c := parCase{col: genCol(rng, dt, n, []float64{0, 0.2, 1}[rng.Intn(3)], 1+rng.Intn(12)),
			par: Parallel{Workers: 1 + rng.Intn(4), MinRows: rng.Intn(20)}}
		m := genRows(p)
		c.idx = make([]int32, m)
		for j := range c.idx {
			switch r := rng.Intn(20); {
			case r == 0 || n == 0:
				c.idx[j] = -1
			case r == 1 && rng.Intn(10) == 0:
				c.idx[j] = int32(n + rng.Intn(3)) // out of range: an error
			default:
				c.idx[j] = int32(rng.Intn(n))
			}
		}
		for k := rng.Intn(3); k >= 0; k-- {
			c.masks = append(c.masks, genCol(rng, tBool, n, []float64{0, 0.3}[rng.Intn(2)], 2))
		}
		return gopter.NewGenResult(c, gopter.NoShrinker)
	}
}

// TestPropParallelKernels: TakeParallel and SelectTrueParallel return what
// Take and SelectTrue return — cells, bits, row order and error text —
// for any partitioning (down to 8-row partitions over 1 to 4 goroutines),
// also over sliced inputs, and release everything.
func TestPropParallelKernels(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	props.Property("parallel == sequential", prop.ForAll(func(c parCase) string {
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		a := c.col.array(t, mem)
		defer a.Release()
		seq, serr := Take(mem, a, c.idx)
		par, perr := TakeParallel(mem, a, c.idx, c.par)
		if fmt.Sprint(serr) != fmt.Sprint(perr) {
			return fmt.Sprintf("take: error %v, sequential %v", perr, serr)
		}
		if serr == nil {
			defer seq.Release()
			defer par.Release()
			checkArray(t, par)
			if !slices.Equal(cellsOf(par), cellsOf(seq)) || par.NullN() != seq.NullN() {
				return "take: cells differ"
			}
		}
		masks := make([]arrow.Array, len(c.masks))
		for k, m := range c.masks {
			masks[k] = m.array(t, mem)
			defer masks[k].Release()
		}
		s1, e1 := SelectTrue(len(c.col.vals), masks...)
		s2, e2 := SelectTrueParallel(c.par, len(c.col.vals), masks...)
		if fmt.Sprint(e1) != fmt.Sprint(e2) || !slices.Equal(s1, s2) {
			return fmt.Sprintf("select: %v %v, sequential %v %v", s2, e2, s1, e1)
		}
		return ""
	}, genParCase()))
	props.TestingRun(t)
}

// TestParallelBigInputs runs the parallel kernels over inputs large enough
// for the default partition size, against the sequential ones.
func TestParallelBigInputs(t *testing.T) {
	mem := newMem(t)
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(7))
	const n = 3*DefaultMinRows + 5
	for _, dt := range keyTypes {
		col := genCol(rng, dt, n, 0.1, 12)
		a := col.array(t, mem)
		idx := make([]int32, n)
		for j := range idx {
			idx[j] = int32(rng.Intn(n+1)) - 1
		}
		seq, err := Take(mem, a, idx)
		if err != nil {
			t.Fatal(err)
		}
		par, err := TakeParallel(mem, a, idx, Parallel{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cellsOf(par), cellsOf(seq)) {
			t.Errorf("%s: parallel take differs", dt)
		}
		seq.Release()
		par.Release()
		a.Release()
	}
}

// TestPropParallelGroupAggregate: GroupIDsParallel and AggregateParallel
// return what GroupIDs and Aggregate return — ids, first rows, every
// aggregate's cells and bits, the overflow error and its row — for keys of
// low and high cardinality and any partitioning.
func TestPropParallelGroupAggregate(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	aggs := allAggs
	props.Property("parallel == sequential", prop.ForAll(func(c aggCase, workers, minRows int) string {
		p := Parallel{Workers: workers, MinRows: minRows}
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		key := c.key.array(t, mem)
		defer key.Release()
		arg := c.arg.array(t, mem)
		defer arg.Release()
		ids, first, err := GroupIDs([]arrow.Array{key})
		if err != nil {
			return err.Error()
		}
		pids, pfirst, err := GroupIDsParallel(mem, []arrow.Array{key}, p)
		if err != nil {
			return err.Error()
		}
		if !slices.Equal(ids, pids) || !slices.Equal(first, pfirst) {
			return fmt.Sprintf("group ids %v first %v, sequential %v %v", head(pids), head(pfirst), head(ids), head(first))
		}
		for _, fn := range aggs {
			want, werr := Aggregate(mem, Plain(fn), "agg", arg, ids, len(first))
			got, gerr := AggregateParallel(mem, Plain(fn), "agg", arg, ids, len(first), p)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				return fmt.Sprintf("%s: error %v, sequential %v", fn, gerr, werr)
			}
			if pe, ok := plan.AsError(werr); ok {
				if ge, _ := plan.AsError(gerr); ge == nil || ge.Row != pe.Row || ge.Kind != pe.Kind {
					return fmt.Sprintf("%s: error %#v, sequential %#v", fn, gerr, werr)
				}
			}
			if werr != nil {
				continue
			}
			same := slices.Equal(cellsOf(got), cellsOf(want))
			got.Release()
			want.Release()
			if !same {
				return fmt.Sprintf("%s: cells differ", fn)
			}
		}
		return ""
	}, genAggCase(), gen.IntRange(1, 4), gen.IntRange(0, 24)))
	props.TestingRun(t)
}

// TestParallelSumOverflowAcrossPartitions: an int64 sum whose running value
// leaves int64 within a partition or when a later partition adds to an
// earlier one's total is exact either way: it overflows exactly when the
// group's total does not fit (at the group's first row), sequentially and
// in parallel.
func TestParallelSumOverflowAcrossPartitions(t *testing.T) {
	const big = math.MaxInt64
	// Partition 0 is rows 0-7: vs[0] then zeros; partition 1 rows 8-15:
	// the rest of vs, then zeros.
	pad := func(vs ...any) []any {
		out := []any{vs[0], int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)}
		out = append(out, vs[1:]...)
		for len(out) < 16 {
			out = append(out, int64(0))
		}
		return out
	}
	for _, c := range []struct {
		name string
		vals []any
		sum  int64 // when not ovf
		ovf  bool
	}{
		{"up across the boundary and back", pad(int64(big-5), int64(3), int64(10), int64(-100)), big - 92, false},
		{"below MinInt64 and back", pad(int64(-big), int64(-1), int64(-1), int64(5)), -big + 3, false},
		{"back in range before the end", pad(int64(big), int64(-1), int64(1), int64(-7)), big - 7, false},
		{"a partition wraps on its own and comes back", pad(int64(0), int64(big), int64(big), int64(-big)), big, false},
		{"a partition wraps twice", pad(int64(big), int64(big), int64(big), int64(-big), int64(-big), int64(-big), int64(1)), 1, false},
		{"exactly MinInt64", pad(int64(-big), int64(-1)), math.MinInt64, false},
		{"the total leaves int64 upwards", pad(int64(big), int64(-1), int64(2)), 0, true},
		{"the total leaves int64 downwards", pad(int64(-big), int64(-1), int64(-1)), 0, true},
		{"the partials each fit, their sum does not", pad(int64(big), int64(big)), 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := newMem(t)
			defer mem.AssertSize(t, 0)
			a := build(t, mem, tI64, c.vals...)
			defer a.Release()
			ids := make([]int32, len(c.vals))
			for _, p := range []Parallel{{}, {Workers: 2, MinRows: 8}} {
				out, err := AggregateParallel(mem, Plain(plan.FuncSum), "sum(x)", a, ids, 1, p)
				if c.ovf {
					pe, _ := plan.AsError(err)
					if pe == nil || pe.Kind != plan.Overflow || pe.Expr != "sum(x)" || pe.Row != 0 {
						t.Errorf("%+v: error %v, want an overflow in sum(x) at row 0", p, err)
					}
					if out != nil {
						out.Release()
					}
					continue
				}
				if err != nil {
					t.Errorf("%+v: unexpected error %v", p, err)
					continue
				}
				if got, want := cellsOf(out), expectCells(tI64, c.sum); !slices.Equal(got, want) {
					t.Errorf("%+v: sum %v, want %v", p, got, want)
				}
				out.Release()
			}
		})
	}
}

// TestPropParallelJoin: JoinIndicesParallel returns JoinIndices's pairs
// (and errors) for every join kind, one and two key columns, unique and
// repeated build keys, and any partitioning.
func TestPropParallelJoin(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	props.Property("parallel == sequential", prop.ForAll(func(seed int64, nl, nr, nkeys, workers, minRows int) string {
		rng := rand.New(rand.NewSource(seed))
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		var left, right []arrow.Array
		for k := 0; k < nkeys; k++ {
			lt, rt := keyTypes[rng.Intn(len(keyTypes))], keyTypes[rng.Intn(len(keyTypes))]
			if rng.Intn(2) == 0 {
				rt = lt
			}
			domain := 1 + rng.Intn(8)
			l := genCol(rng, lt, nl, 0.1, domain).array(t, mem)
			r := genCol(rng, rt, nr, 0.1, domain).array(t, mem)
			defer l.Release()
			defer r.Release()
			left, right = append(left, l), append(right, r)
		}
		p := Parallel{Workers: workers, MinRows: minRows}
		for _, kind := range kinds {
			li, ri, err := JoinIndices(kind, left, right)
			pli, pri, perr := JoinIndicesParallel(kind, left, right, p)
			if fmt.Sprint(err) != fmt.Sprint(perr) || !slices.Equal(li, pli) || !slices.Equal(ri, pri) {
				return fmt.Sprintf("%s: %v %v %v, sequential %v %v %v", kind, head(pli), head(pri), perr, head(li), head(ri), err)
			}
		}
		return ""
	}, gen.Int64(), gen.IntRange(0, 200), gen.IntRange(0, 40), gen.IntRange(1, 2), gen.IntRange(1, 4), gen.IntRange(1, 16)))
	props.TestingRun(t)
}
