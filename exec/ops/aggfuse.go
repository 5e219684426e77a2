package ops

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// An aggregate node with several float sums and means over the same
// groups (TPC-H Q1: four sums, three means and a len) reduced them one at
// a time, each a pass over the group ids in which every row's add waited
// for the previous add to the same group: the store of one row's sum and
// the load of the next row's ran back to back, about ten cycles a row.
// AggregateFused reduces them in one pass instead, one accumulator per
// (group, column), so the chains of different columns overlap; each
// column's sum per group still adds its values in row order from the
// first, exactly as sumFloats and meanOf do, so every bit is theirs. Two
// aggregates of one argument array (sum(x) and mean(x)) share one
// accumulator, since both are the same row-order sum.

// FusedAgg is one aggregate AggregateFused reduces: Fn is len, count, sum
// or mean, and Arg its evaluated argument (nil for len).
type FusedAgg struct {
	Fn  plan.Func
	Arg arrow.Array
}

// Fusable reports whether AggregateFused reduces fn over arg: len; count
// of an argument with no nulls; sum and mean of a float64 argument with no
// nulls. These cannot fail, so a caller may defer them past later
// aggregates without changing which error a node reports.
func Fusable(fn plan.Func, arg arrow.Array) bool {
	switch fn {
	case plan.FuncLen:
		return true
	case plan.FuncCount:
		return arg != nil && arg.NullN() == 0
	case plan.FuncSum, plan.FuncMean:
		a, ok := arg.(*array.Float64)
		return ok && a.NullN() == 0
	}
	return false
}

// fusedBlock is how many columns one pass of AggregateFused accumulates:
// enough chains to overlap, few enough that a group's accumulators stay
// in one or two cache lines.
const fusedBlock = 4

// AggregateFused reduces every aggregate of aggs (each Fusable) per group
// of ids (in [0, groups)), with the results and bits Aggregate gives for
// each on its own. With sel nil row i of every argument is row i of ids;
// otherwise it is row sel[i] (len(sel) == len(ids), each in range, every
// argument of one length): the rows a filter kept, reduced without
// gathering them first, with Aggregate's results over the gathered
// arguments. The columns are reduced in blocks of fusedBlock, the blocks
// split over p's goroutines (a column's sums stay in row order within one
// goroutine). mem allocates the results.
func AggregateFused(mem memory.Allocator, aggs []FusedAgg, sel, ids []int32, groups int, p Parallel) ([]arrow.Array, error) {
	if err := checkIDs(ids, groups, p); err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	rows := len(ids) // every argument's length
	if sel != nil {
		if len(sel) != len(ids) {
			return nil, fmt.Errorf("aggregate: %d selected rows, ids %d", len(sel), len(ids))
		}
		rows = -1
		for _, a := range aggs {
			if a.Arg != nil {
				rows = a.Arg.Len()
				break
			}
		}
		if rows >= 0 {
			for i, r := range sel {
				if r < 0 || int(r) >= rows {
					return nil, fmt.Errorf("aggregate: selected row %d is %d, want [0, %d)", i, r, rows)
				}
			}
		}
	}
	// col[j] is the accumulator column of aggs[j] (-1: none).
	col := make([]int, len(aggs))
	var cols [][]float64
	for j, a := range aggs {
		col[j] = -1
		if !Fusable(a.Fn, a.Arg) {
			return nil, fmt.Errorf("aggregate: %s of %s cannot be fused", a.Fn, typeName(a.Arg))
		}
		if a.Arg != nil && a.Arg.Len() != rows {
			return nil, fmt.Errorf("aggregate: %s argument has %d rows, want %d", a.Fn, a.Arg.Len(), rows)
		}
		if a.Fn != plan.FuncSum && a.Fn != plan.FuncMean {
			continue
		}
		vals := a.Arg.(*array.Float64).Float64Values()
		col[j] = len(cols)
		for k, c := range cols {
			if len(c) == len(vals) && unsafe.SliceData(c) == unsafe.SliceData(vals) {
				col[j] = k
				break
			}
		}
		if col[j] == len(cols) {
			cols = append(cols, vals)
		}
	}
	blocks := (len(cols) + fusedBlock - 1) / fusedBlock
	accs := make([][]float64, blocks)
	cnt := make([]int64, groups)
	if blocks == 0 {
		for _, g := range ids {
			cnt[g]++
		}
	}
	if err := p.Run(blocks, func(b int) {
		c := cols[b*fusedBlock : min(len(cols), (b+1)*fusedBlock)]
		acc := make([]float64, groups*len(c))
		counts := cnt
		if b > 0 {
			counts = make([]int64, groups)
		}
		foldFloats(acc, counts, c, sel, ids)
		accs[b] = acc
	}); err != nil {
		return nil, err
	}
	outs := make([]arrow.Array, 0, len(aggs))
	for j, a := range aggs {
		switch a.Fn {
		case plan.FuncLen, plan.FuncCount:
			out := newFixedOut[int64](mem, groups)
			copy(out.vals, cnt)
			outs = append(outs, out.finish(arrow.PrimitiveTypes.Int64, nil))
			continue
		}
		b, k := col[j]/fusedBlock, col[j]%fusedBlock
		width := min(len(cols)-b*fusedBlock, fusedBlock)
		acc := accs[b]
		out := newFixedOut[float64](mem, groups)
		has := make([]bool, groups)
		for g, n := range cnt {
			if n == 0 {
				continue
			}
			has[g] = true
			s := acc[g*width+k]
			if a.Fn == plan.FuncMean {
				s /= float64(n)
			}
			out.vals[g] = s
		}
		outs = append(outs, out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has)))
	}
	return outs, nil
}

// foldFloats sums the columns cols (at most fusedBlock) per group in row
// order into acc (group g's sums at acc[g*len(cols):]) and counts each
// group's rows into cnt (zero on entry): row i of ids reads row i of each
// column, or row sel[i] when sel is not nil. A group's first row sets its
// sums, each later row adds to them.
func foldFloats(acc []float64, cnt []int64, cols [][]float64, sel, ids []int32) {
	if sel == nil {
		for k := range cols {
			cols[k] = cols[k][:len(ids)]
		}
	}
	switch len(cols) {
	case 1:
		c0 := cols[0]
		for i, g := range ids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			if cnt[g] == 0 {
				acc[g] = c0[r]
			} else {
				acc[g] = ieee.Add(acc[g], c0[r])
			}
			cnt[g]++
		}
	case 2:
		c0, c1 := cols[0], cols[1]
		for i, g := range ids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			a := acc[2*int(g):][:2]
			if cnt[g] == 0 {
				a[0], a[1] = c0[r], c1[r]
			} else {
				a[0], a[1] = ieee.Add(a[0], c0[r]), ieee.Add(a[1], c1[r])
			}
			cnt[g]++
		}
	case 3:
		c0, c1, c2 := cols[0], cols[1], cols[2]
		for i, g := range ids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			a := acc[3*int(g):][:3]
			if cnt[g] == 0 {
				a[0], a[1], a[2] = c0[r], c1[r], c2[r]
			} else {
				a[0], a[1], a[2] = ieee.Add(a[0], c0[r]), ieee.Add(a[1], c1[r]), ieee.Add(a[2], c2[r])
			}
			cnt[g]++
		}
	case 4:
		c0, c1, c2, c3 := cols[0], cols[1], cols[2], cols[3]
		for i, g := range ids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			a := acc[4*int(g):][:4]
			if cnt[g] == 0 {
				a[0], a[1], a[2], a[3] = c0[r], c1[r], c2[r], c3[r]
			} else {
				a[0], a[1], a[2], a[3] = ieee.Add(a[0], c0[r]), ieee.Add(a[1], c1[r]), ieee.Add(a[2], c2[r]), ieee.Add(a[3], c3[r])
			}
			cnt[g]++
		}
	}
}
