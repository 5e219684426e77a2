package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/plan"
)

// AggregateParallel is Aggregate with the rows split over goroutines as p
// says; the result and the error are Aggregate's exactly. The reductions
// whose partial results combine without changing a bit are computed per
// partition and merged in partition order: len and count (sums of
// counts), integer min and max, float min and max by the total order (an
// earlier partition wins a tie, as the earlier row does), and the exact
// integer sum. A float sum or mean is sequential in row order and never
// reassociated (docs/semantics.md), so it is not split; nor are the
// others (bool and string min/max, first, last, n_unique, median,
// quantile, var, std, any, all: these reduce each group's rows in row
// order, so their bits are the sequential ones by construction), nor
// anything when there are too many groups for one set of partials per
// partition.
//
// The integer sum is exact (intsum.go): each partition keeps a 128-bit sum
// per group, and the partial sums add exactly, so no order of rows or of
// partitions changes the sum or whether it overflows.
func AggregateParallel(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, ids []int32, groups int, p Parallel) (arrow.Array, error) {
	fn := agg.Fn
	if err := checkAggregate(fn, exprText, arg, ids, groups, p); err != nil {
		return nil, err
	}
	parts := p.Split(len(ids))
	if len(parts) == 1 || groups*len(parts) > len(ids) || isNarrowArray(arg) {
		return aggregate(mem, agg, exprText, arg, ids, groups)
	}
	switch fn {
	case plan.FuncLen:
		return countParallel(mem, nil, ids, groups, p, parts)
	case plan.FuncCount:
		return countParallel(mem, arg, ids, groups, p, parts)
	case plan.FuncSum:
		switch a := arg.(type) {
		case *array.Int64:
			return sumIntsParallel(mem, exprText, a, a.Int64Values(), ids, groups, p, parts)
		case *array.Int32:
			return sumIntsParallel(mem, exprText, a, a.Int32Values(), ids, groups, p, parts)
		}
	case plan.FuncMin, plan.FuncMax:
		isMax := fn == plan.FuncMax
		switch a := arg.(type) {
		case *array.Int64:
			return minMaxParallel(mem, isMax, a, a.Int64Values(), ids, groups, p, parts, func(x int64) int64 { return x })
		case *array.Int32:
			return minMaxParallel(mem, isMax, a, a.Int32Values(), ids, groups, p, parts, func(x int32) int64 { return int64(x) })
		case *array.Float64:
			return minMaxParallel(mem, isMax, a, a.Float64Values(), ids, groups, p, parts, floatKey)
		case *array.Date32:
			v, _ := phys.Int32(a)
			return minMaxParallel(mem, isMax, a, v, ids, groups, p, parts, func(x int32) int64 { return int64(x) })
		case *array.Timestamp, *array.Duration:
			v, _ := phys.Int64(a)
			return minMaxParallel(mem, isMax, a, v, ids, groups, p, parts, func(x int64) int64 { return x })
		}
	}
	return aggregate(mem, agg, exprText, arg, ids, groups)
}

// floatKey orders floats by the total order as signed integers (see
// floatSortKey).
func floatKey(f float64) int64 { return int64(floatSortKey(f) ^ 1<<63) }

// countParallel is len (arg nil) or count.
func countParallel(mem memory.Allocator, arg arrow.Array, ids []int32, groups int, p Parallel, parts []Range) (arrow.Array, error) {
	var v validity
	if arg != nil {
		v = validityOf(arg)
	}
	partial := make([][]int64, len(parts))
	if err := p.Run(len(parts), func(k int) {
		c := make([]int64, groups)
		if v.all() {
			for _, g := range ids[parts[k].Lo:parts[k].Hi] {
				c[g]++
			}
		} else {
			for i := parts[k].Lo; i < parts[k].Hi; i++ {
				if v.valid(i) {
					c[ids[i]]++
				}
			}
		}
		partial[k] = c
	}); err != nil {
		return nil, err
	}
	out := newFixedOut[int64](mem, groups)
	for _, c := range partial {
		for g, x := range c {
			out.vals[g] += x
		}
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
}

// sumIntsParallel is the exact integer sum (intsum.go) with each
// partition summing its rows into its own 128-bit partial sums, merged in
// partition order. The merge is exact, so the result and the error are the
// sequential ones.
func sumIntsParallel[T int32 | int64](mem memory.Allocator, exprText string, a arrow.Array, vals []T, ids []int32, groups int,
	p Parallel, parts []Range) (arrow.Array, error) {
	v := validityOf(a)
	partial := make([]*exactSums, len(parts))
	out := newFixedOut[int64](mem, groups)
	if err := p.Run(len(parts), func(k int) {
		var low []int64
		if k == 0 {
			low = out.vals // the first partition sums into the result
		}
		s := newExactSums(groups, low)
		sumValid(s, vals, v, ids, parts[k].Lo, parts[k].Hi)
		partial[k] = s
	}); err != nil {
		out.buf.Release()
		return nil, err
	}
	total := partial[0]
	for _, s := range partial[1:] {
		total.merge(s)
	}
	if g := total.overflowed(); g >= 0 {
		out.buf.Release()
		return nil, sumError(exprText, ids, g)
	}
	return out.finish(arrow.PrimitiveTypes.Int64, hasBitmap(mem, total.has)), nil
}

// minMaxParallel is min or max of a fixed-width column whose order is
// that of key (a total order; equal keys keep the earlier row's bits).
func minMaxParallel[T int32 | int64 | float64](mem memory.Allocator, isMax bool, a arrow.Array, vals []T, ids []int32, groups int,
	p Parallel, parts []Range, key func(T) int64) (arrow.Array, error) {
	v := validityOf(a)
	type partial struct {
		best []T
		keys []int64
		has  []bool
	}
	better := func(k, than int64) bool {
		if isMax {
			return k > than
		}
		return k < than
	}
	partials := make([]partial, len(parts))
	if err := p.Run(len(parts), func(k int) {
		pp := partial{best: make([]T, groups), keys: make([]int64, groups), has: make([]bool, groups)}
		for i := parts[k].Lo; i < parts[k].Hi; i++ {
			if !v.valid(i) {
				continue
			}
			g, x := ids[i], vals[i]
			if kx := key(x); !pp.has[g] || better(kx, pp.keys[g]) {
				pp.best[g], pp.keys[g], pp.has[g] = x, kx, true
			}
		}
		partials[k] = pp
	}); err != nil {
		return nil, err
	}
	out := newFixedOut[T](mem, groups)
	bestKey := make([]int64, groups)
	has := make([]bool, groups)
	for _, pp := range partials {
		for g, h := range pp.has {
			if h && (!has[g] || better(pp.keys[g], bestKey[g])) {
				out.vals[g], bestKey[g], has[g] = pp.best[g], pp.keys[g], true
			}
		}
	}
	return out.finish(a.DataType(), hasBitmap(mem, has)), nil
}
