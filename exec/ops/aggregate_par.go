package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// AggregateParallel is Aggregate with the rows split over goroutines as p
// says; the result and the error are Aggregate's exactly. The reductions
// whose partial results combine without changing a bit are computed per
// partition and merged in partition order: len and count (sums of
// counts), integer min and max, float min and max by the total order (an
// earlier partition wins a tie, as the earlier row does), and the checked
// integer sum. A float sum or mean is sequential in row order and never
// reassociated (docs/semantics.md), so it is not split; nor are the
// others (bool and string min/max, first, last), nor anything when there
// are too many groups for one set of partials per partition.
//
// The integer sum first bounds the values: when len(ids) times the
// largest |value| fits in int64, no running sum can overflow and the
// partitions add unchecked. Otherwise it keeps, per partition and group,
// the partial sum and the least and greatest running sum within the
// partition. Sequentially the
// running sum after a row of partition k is T + s, T the sum of the
// earlier partitions and s a running sum within k, and the first overflow
// is the first such value outside int64. The merge therefore checks that
// T + least and T + greatest fit: when they do, no running sum in the
// partition overflows; when they do not (or a partition's own running sum
// left int64), the sum is recomputed sequentially, which finds the
// overflowing row.
func AggregateParallel(mem memory.Allocator, fn plan.Func, exprText string, arg arrow.Array, ids []int32, groups int, p Parallel) (arrow.Array, error) {
	if err := checkAggregate(fn, exprText, arg, ids, groups, p); err != nil {
		return nil, err
	}
	parts := p.Split(len(ids))
	if len(parts) == 1 || groups*len(parts) > len(ids) {
		return aggregate(mem, fn, exprText, arg, ids, groups)
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
		}
	}
	return aggregate(mem, fn, exprText, arg, ids, groups)
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

// sumPartial is one partition's integer sum: per group the sum, the least
// and greatest running sum, and whether the group had a value; wrapped
// when a running sum left int64.
type sumPartial struct {
	sum, least, most []int64
	has              []bool
	wrapped          bool
}

// sumIntsParallel is the checked integer sum (see AggregateParallel). A
// first pass finds the largest |value|: when no running sum of that many
// values of that size can leave int64, the partitions add without checks
// (the common case, and the fastest); otherwise they track their running
// sums' bounds.
func sumIntsParallel[T int32 | int64](mem memory.Allocator, exprText string, a arrow.Array, vals []T, ids []int32, groups int,
	p Parallel, parts []Range) (arrow.Array, error) {
	v := validityOf(a)
	bound := make([]uint64, len(parts)) // the largest |value| of a partition
	if err := p.Run(len(parts), func(k int) {
		lo, hi := int64(0), int64(0)
		for i := parts[k].Lo; i < parts[k].Hi; i++ {
			if v.all() || v.valid(i) {
				x := int64(vals[i])
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		bound[k] = max(uint64(hi), uint64(-(lo+1))+1) // |lo| without overflowing at MinInt64
	}); err != nil {
		return nil, err
	}
	// Every running sum is a sum of at most len(ids) values of at most
	// the largest |value|: when that product fits, none can overflow.
	largest := uint64(0)
	for _, b := range bound {
		largest = max(largest, b)
	}
	if largest == 0 || uint64(len(ids)) <= (1<<63-1)/largest {
		partial := make([][]int64, len(parts))
		has := make([][]bool, len(parts))
		if err := p.Run(len(parts), func(k int) {
			sum, h := make([]int64, groups), make([]bool, groups)
			for i := parts[k].Lo; i < parts[k].Hi; i++ {
				if v.all() || v.valid(i) {
					g := ids[i]
					sum[g] += int64(vals[i])
					h[g] = true
				}
			}
			partial[k], has[k] = sum, h
		}); err != nil {
			return nil, err
		}
		out := newFixedOut[int64](mem, groups)
		seen := make([]bool, groups)
		for k := range partial {
			for g, x := range partial[k] {
				out.vals[g] += x
				seen[g] = seen[g] || has[k][g]
			}
		}
		return out.finish(arrow.PrimitiveTypes.Int64, hasBitmap(mem, seen)), nil
	}
	partial := make([]sumPartial, len(parts))
	if err := p.Run(len(parts), func(k int) {
		sp := sumPartial{sum: make([]int64, groups), least: make([]int64, groups), most: make([]int64, groups), has: make([]bool, groups)}
		for i := parts[k].Lo; i < parts[k].Hi; i++ {
			if !v.valid(i) {
				continue
			}
			g, x := ids[i], int64(vals[i])
			if addOverflows(sp.sum[g], x) {
				sp.wrapped = true
				break
			}
			r := sp.sum[g] + x
			sp.sum[g] = r
			if !sp.has[g] {
				sp.least[g], sp.most[g], sp.has[g] = r, r, true
			} else {
				sp.least[g], sp.most[g] = min(sp.least[g], r), max(sp.most[g], r)
			}
		}
		partial[k] = sp
	}); err != nil {
		return nil, err
	}
	sequential := func() (arrow.Array, error) { return sumInts(mem, exprText, vals, v, ids, groups) }
	out := newFixedOut[int64](mem, groups)
	total := out.vals
	has := make([]bool, groups)
	for _, sp := range partial {
		if sp.wrapped {
			out.buf.Release()
			return sequential()
		}
		for g, h := range sp.has {
			if !h {
				continue
			}
			t := total[g]
			if addOverflows(t, sp.least[g]) || addOverflows(t, sp.most[g]) {
				out.buf.Release()
				return sequential()
			}
			total[g], has[g] = t+sp.sum[g], true
		}
	}
	return out.finish(arrow.PrimitiveTypes.Int64, hasBitmap(mem, has)), nil
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
