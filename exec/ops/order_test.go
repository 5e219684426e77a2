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

// No operation's error depends on the order of its rows (docs/semantics.md,
// Errors): these tests permute the rows of groups and change the
// partitioning, and the aggregates must raise the same error (kind and
// expression) or none.

// orderFree are the aggregates whose value per group is the same in any
// row order (for floats only up to the bits of equal values, so they are
// compared on non-float arguments).
var orderFree = map[plan.Func]bool{plan.FuncSum: true, plan.FuncCount: true, plan.FuncLen: true, plan.FuncMin: true, plan.FuncMax: true, plan.FuncNUnique: true,
	plan.FuncMedian: true, plan.FuncQuantile: true, plan.FuncAny: true, plan.FuncAll: true}

// TestPropAggregateRowOrder: permuting the rows (keys and argument
// together) and splitting them over any partitioning never changes whether
// an aggregate raises, nor which error (kind and expression); where no
// error is raised, an aggregate whose value does not depend on the order
// gives every row's group the same value.
func TestPropAggregateRowOrder(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	aggs := allAggs
	props.Property("errors ignore row order and partitioning", prop.ForAll(func(c aggCase, seed int64, workers, minRows int) string {
		p := Parallel{Workers: workers, MinRows: minRows}
		perm := rand.New(rand.NewSource(seed)).Perm(len(c.key.vals))
		pc := aggCase{key: c.key.pick(perm), arg: c.arg.pick(perm)}
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		key, arg := c.key.array(t, mem), c.arg.array(t, mem)
		defer key.Release()
		defer arg.Release()
		pkey, parg := pc.key.array(t, mem), pc.arg.array(t, mem)
		defer pkey.Release()
		defer parg.Release()
		ids, first, err := GroupIDs([]arrow.Array{key})
		if err != nil {
			return err.Error()
		}
		pids, pfirst, err := GroupIDsParallel(mem, []arrow.Array{pkey}, p)
		if err != nil {
			return err.Error()
		}
		for _, fn := range aggs {
			if !takes(fn, c.arg.dt) {
				continue
			}
			want, werr := Aggregate(mem, Plain(fn), "agg", arg, ids, len(first))
			got, gerr := AggregateParallel(mem, Plain(fn), "agg", parg, pids, len(pfirst), p)
			msg := compareOrderOutcome(fn, c.arg.dt, want, werr, got, gerr, ids, pids, perm)
			for _, a := range []arrow.Array{want, got} {
				if a != nil {
					a.Release()
				}
			}
			if msg != "" {
				return fmt.Sprintf("%s (permutation %v, %+v)", msg, head32(perm), p)
			}
		}
		return ""
	}, genAggCase(), gen.Int64(), gen.IntRange(1, 4), gen.IntRange(0, 24)))
	props.TestingRun(t)
}

// compareOrderOutcome compares an aggregate over rows with the same
// aggregate over the rows permuted (row j of the permuted input is row
// perm[j]).
func compareOrderOutcome(fn plan.Func, dt arrow.DataType, want arrow.Array, werr error, got arrow.Array, gerr error,
	ids, pids []int32, perm []int) string {
	if (werr == nil) != (gerr == nil) {
		return fmt.Sprintf("%s: error %v in one order, %v in the other", fn, werr, gerr)
	}
	if werr != nil {
		we, _ := plan.AsError(werr)
		ge, _ := plan.AsError(gerr)
		if we == nil || ge == nil || we.Kind != ge.Kind || we.Expr != ge.Expr {
			return fmt.Sprintf("%s: error %v in one order, %v in the other", fn, werr, gerr)
		}
		return ""
	}
	if !orderFree[fn] || dt.ID() == arrow.FLOAT64 {
		return ""
	}
	wc, gc := cellsOf(want), cellsOf(got)
	for j, r := range perm {
		if w, g := wc[ids[r]], gc[pids[j]]; w != g {
			return fmt.Sprintf("%s: row %d's group is %v in one order, %v in the other", fn, r, w, g)
		}
	}
	return ""
}

// head32 is the first few entries of a permutation, for messages.
func head32(p []int) []int {
	return p[:min(len(p), 32)]
}

// TestSumRowOrder: the integer sum is exact, so the same values in any
// order (and any partitioning) give the same total or the same overflow:
// every permutation of a few values whose running sums leave int64 in some
// orders only.
func TestSumRowOrder(t *testing.T) {
	const big, small = math.MaxInt64, math.MinInt64
	for _, c := range []struct {
		vals []any
		sum  int64
		ovf  bool
	}{
		{[]any{int64(big), int64(1), int64(-1)}, big, false},
		{[]any{int64(small), int64(-1), int64(1)}, small, false},
		{[]any{int64(big), int64(big), int64(small), int64(small), int64(1)}, -1, false},
		{[]any{int64(big), int64(big), int64(-big), int64(1)}, 0, true},
		{[]any{int64(small), int64(-1), nil, int64(-1), int64(2)}, small, false},
		{[]any{int64(small), int64(-1), nil, int64(-1), int64(1)}, 0, true},
		{[]any{int32(math.MaxInt32), int32(math.MaxInt32), int32(math.MinInt32)}, math.MaxInt32 - 1, false},
	} {
		dt := tI64
		if _, ok := c.vals[0].(int32); ok {
			dt = tI32
		}
		// Every permutation (Heap's algorithm), each repeated 4 times so
		// that partitions of 8 rows put the values in several partitions.
		vals := slices.Clone(c.vals)
		var permute func(k int)
		permute = func(k int) {
			if k == 1 {
				checkSumOrder(t, dt, vals, c.sum, c.ovf)
				return
			}
			for i := 0; i < k; i++ {
				permute(k - 1)
				if k%2 == 0 {
					vals[i], vals[k-1] = vals[k-1], vals[i]
				} else {
					vals[0], vals[k-1] = vals[k-1], vals[0]
				}
			}
		}
		permute(len(vals))
	}
}

// checkSumOrder sums vals (one group), laid out so that a parallel run
// splits them, and checks the outcome.
func checkSumOrder(t *testing.T, dt arrow.DataType, vals []any, sum int64, ovf bool) {
	t.Helper()
	// Each value starts a block of 8 rows, the rest of the block null, so
	// partitions of 8 rows hold one value each.
	var rows []any
	for _, v := range vals {
		rows = append(rows, v, nil, nil, nil, nil, nil, nil, nil)
	}
	mem := newMem(t)
	defer mem.AssertSize(t, 0)
	a := build(t, mem, dt, rows...)
	defer a.Release()
	ids := make([]int32, len(rows))
	for _, p := range []Parallel{{}, {Workers: 2, MinRows: 8}, {Workers: 3, MinRows: 16}} {
		out, err := AggregateParallel(mem, Plain(plan.FuncSum), "sum(x)", a, ids, 1, p)
		switch {
		case ovf:
			if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.Overflow || pe.Expr != "sum(x)" || pe.Row != 0 {
				t.Errorf("sum%v, %+v: %v, want overflow in sum(x) at row 0", vals, p, err)
			}
		case err != nil:
			t.Errorf("sum%v, %+v: unexpected %v", vals, p, err)
		default:
			if got, want := cellsOf(out), expectCells(tI64, sum); !slices.Equal(got, want) {
				t.Errorf("sum%v, %+v: %v, want %v", vals, p, got, want)
			}
		}
		if out != nil {
			out.Release()
		}
	}
}
