package ops

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/plan"
)

// The aggregates are hand-written because Arrow's Go compute has none, and
// arrow/math's sums ignore validity and wrap on overflow (go-deps.md §1.1).
// Each is one pass over the rows in row order, accumulating per group id,
// which is exactly the sequential, never-reassociated order the semantics
// require of float reductions.

// Aggregate computes the aggregate agg (plan.FuncSum ... plan.FuncAll with
// its parameters) of arg for each of groups groups, where ids[i] is row i's group (as GroupIDs
// or OneGroup make them). arg is the aggregate's evaluated argument, one
// value per row; it is ignored (and may be nil) for len. The result has one
// row per group, from mem:
//
//   - sum: int32 and int64 sum to int64, exactly (intsum.go): when a
//     group's exact total does not fit int64, whatever the order of its
//     rows, it returns a *plan.Error{Kind: plan.Overflow, Expr: exprText,
//     Row: the first row of the first such group in group order}; float64
//     sums in row order (the fold starts from the first value, so
//     sum([-0.0]) is -0.0); null when the group has no non-null value.
//   - mean: float64, the float64 sum of the non-null values in row order
//     divided by their count; null when there are none.
//   - min, max: the operand's type; non-null values, floats by the total
//     order -Inf < ... < -0.0 < +0.0 < ... < +Inf < NaN, strings by bytes,
//     false < true; among equal values (two NaNs) the first row's bits win;
//     null when there are none.
//   - count: int64, never null: the non-null values. len: int64, never
//     null: the rows.
//   - first, last: the value of the group's first / last row, null
//     included; null for a group with no rows.
//   - n_unique: int64, never null: the distinct values of the group,
//     compared as group keys are (all NaNs one value, -0.0 equal to +0.0),
//     a null counting as one value; 0 for a group with no rows.
//   - median, quantile: float64, the q-quantile (median: 0.5) of the
//     non-null values as float64, sorted by the total order, with linear
//     interpolation (quantileOf); null when there are none.
//   - var, std: float64, the variance with agg.Ddof delta degrees of
//     freedom in two row-order passes (aggVar), or its square root; null
//     when there are at most ddof non-null values.
//   - any, all: bool, never null: a non-null true (any) or no non-null
//     false (all); nulls are ignored, so a group of none is false / true.
//
// exprText is the canonical text of the aggregate expression, named by
// errors.
func Aggregate(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	if err := checkAggregate(agg.Fn, exprText, arg, ids, groups, Parallel{}); err != nil {
		return nil, err
	}
	return aggregate(mem, agg, exprText, arg, ids, groups)
}

// checkAggregate validates Aggregate's arguments (the ids split over
// goroutines as p says).
func checkAggregate(fn plan.Func, exprText string, arg arrow.Array, ids []int32, groups int, p Parallel) error {
	if err := checkIDs(ids, groups, p); err != nil {
		return fmt.Errorf("aggregate %s: %w", exprText, err)
	}
	if fn == plan.FuncLen {
		return nil
	}
	if !fn.IsAggregate() {
		return fmt.Errorf("aggregate %s: %s is not an aggregate function", exprText, fn)
	}
	if arg == nil {
		return fmt.Errorf("aggregate %s: %s needs an argument", exprText, fn)
	}
	if arg.Len() != len(ids) {
		return fmt.Errorf("aggregate %s: argument has %d rows, ids %d", exprText, arg.Len(), len(ids))
	}
	return nil
}

// aggregate is Aggregate over checked arguments.
func aggregate(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	fn := agg.Fn
	if fn == plan.FuncLen {
		return aggLen(mem, ids, groups), nil
	}
	if fn == plan.FuncArgMin || fn == plan.FuncArgMax {
		return aggArgBest(mem, fn == plan.FuncArgMin, exprText, arg, ids, groups)
	}
	if isNarrowArray(arg) {
		if out, ok, err := narrowAggregate(mem, agg, exprText, arg, ids, groups); ok {
			return out, err
		}
	}
	var out arrow.Array
	var err error
	switch fn {
	case plan.FuncCount:
		out = aggCount(mem, arg, ids, groups)
	case plan.FuncSum:
		out, err = aggSum(mem, exprText, arg, ids, groups)
	case plan.FuncMean:
		out, err = aggMean(mem, arg, ids, groups)
	case plan.FuncMin, plan.FuncMax:
		out, err = aggMinMax(mem, fn == plan.FuncMax, arg, ids, groups)
	case plan.FuncFirst:
		out, err = Take(mem, arg, FirstRows(ids, groups))
	case plan.FuncLast:
		out, err = Take(mem, arg, lastRows(ids, groups))
	case plan.FuncNUnique:
		out, err = aggNUnique(mem, arg, ids, groups)
	case plan.FuncMedian:
		out, err = aggQuantile(mem, 0.5, arg, ids, groups)
	case plan.FuncQuantile:
		out, err = aggQuantile(mem, agg.Q, arg, ids, groups)
	case plan.FuncVar, plan.FuncStd:
		out, err = aggVar(mem, agg.Ddof, fn == plan.FuncStd, arg, ids, groups)
	case plan.FuncAny, plan.FuncAll:
		out, err = aggAnyAll(mem, fn == plan.FuncAll, arg, ids, groups)
	default:
		err = fmt.Errorf("unknown aggregate %s", fn)
	}
	if err != nil {
		if _, ok := plan.AsError(err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("aggregate %s: %w", exprText, err)
	}
	return out, nil
}

// checkIDs rejects group ids outside [0, groups) (the first such row).
func checkIDs(ids []int32, groups int, p Parallel) error {
	if groups < 0 || groups > maxRows {
		return fmt.Errorf("bad group count %d", groups)
	}
	if err := checkRows(len(ids)); err != nil {
		return err
	}
	i, err := p.First(len(ids), func(lo, hi int) int {
		for i, g := range ids[lo:hi] {
			if uint32(g) >= uint32(groups) {
				return lo + i
			}
		}
		return -1
	})
	if err != nil {
		return err
	}
	if i >= 0 {
		return fmt.Errorf("row %d has group id %d, want [0, %d)", i, ids[i], groups)
	}
	return nil
}

// lastRows returns the last row of each group (-1 for a group with none).
func lastRows(ids []int32, groups int) []int32 {
	last := make([]int32, groups)
	for g := range last {
		last[g] = -1
	}
	for i, g := range ids {
		last[g] = int32(i)
	}
	return last
}

// aggLen counts the rows of each group.
func aggLen(mem memory.Allocator, ids []int32, groups int) arrow.Array {
	out := newFixedOut[int64](mem, groups)
	for _, g := range ids {
		out.vals[g]++
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nil)
}

// aggCount counts the non-null values of each group.
func aggCount(mem memory.Allocator, arg arrow.Array, ids []int32, groups int) arrow.Array {
	out := newFixedOut[int64](mem, groups)
	v := validityOf(arg)
	if v.all() {
		for _, g := range ids {
			out.vals[g]++
		}
	} else {
		for i, g := range ids {
			if v.valid(i) {
				out.vals[g]++
			}
		}
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nil)
}

// hasBitmap turns a per-group "has a value" flag into a validity bitmap.
func hasBitmap(mem memory.Allocator, has []bool) *bitmap {
	bm := newBitmap(mem, len(has))
	for g, h := range has {
		if h {
			bm.set(g)
		}
	}
	return bm
}

// aggSum dispatches sum by argument type.
func aggSum(mem memory.Allocator, exprText string, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	switch a := arg.(type) {
	case *array.Int64:
		return sumInts(mem, exprText, a.Int64Values(), validityOf(a), ids, groups)
	case *array.Int32:
		return sumInts(mem, exprText, a.Int32Values(), validityOf(a), ids, groups)
	case *array.Float64:
		return sumFloats(mem, a.Float64Values(), validityOf(a), ids, groups), nil
	}
	return nil, fmt.Errorf("sum of %s", typeName(arg))
}

// sumFloats is the float sum, sequential in row order per group.
func sumFloats(mem memory.Allocator, vals []float64, v validity, ids []int32, groups int) arrow.Array {
	out := newFixedOut[float64](mem, groups)
	acc := out.vals
	has := make([]bool, groups)
	v.eachValid(len(ids), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := ids[i]
			if has[g] {
				acc[g] = ieee.Add(acc[g], vals[i])
			} else {
				acc[g] = vals[i]
				has[g] = true
			}
		}
	})
	return out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has))
}

// aggMean dispatches mean by argument type.
func aggMean(mem memory.Allocator, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	switch a := arg.(type) {
	case *array.Int64:
		return meanOf(mem, a.Int64Values(), validityOf(a), ids, groups), nil
	case *array.Int32:
		return meanOf(mem, a.Int32Values(), validityOf(a), ids, groups), nil
	case *array.Float64:
		return meanOf(mem, a.Float64Values(), validityOf(a), ids, groups), nil
	}
	return nil, fmt.Errorf("mean of %s", typeName(arg))
}

// meanOf sums each group's non-null values as float64 in row order and
// divides by their count.
func meanOf[T int32 | int64 | float64](mem memory.Allocator, vals []T, v validity, ids []int32, groups int) arrow.Array {
	out := newFixedOut[float64](mem, groups)
	acc := out.vals
	cnt := make([]int64, groups)
	v.eachValid(len(ids), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := ids[i]
			if cnt[g] > 0 {
				acc[g] = ieee.Add(acc[g], float64(vals[i]))
			} else {
				acc[g] = float64(vals[i])
			}
			cnt[g]++
		}
	})
	has := make([]bool, groups)
	for g, c := range cnt {
		if c > 0 {
			acc[g] /= float64(c)
			has[g] = true
		}
	}
	return out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has))
}

// aggMinMax dispatches min and max by argument type.
func aggMinMax(mem memory.Allocator, isMax bool, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	switch a := arg.(type) {
	case *array.Int64:
		return minMaxInts(mem, isMax, a.Int64Values(), validityOf(a), ids, groups, a.DataType()), nil
	case *array.Int32:
		return minMaxInts(mem, isMax, a.Int32Values(), validityOf(a), ids, groups, a.DataType()), nil
	case *array.Date32:
		v, _ := phys.Int32(a) // a temporal value orders as its integer
		return minMaxInts(mem, isMax, v, validityOf(a), ids, groups, a.DataType()), nil
	case *array.Timestamp, *array.Duration:
		v, _ := phys.Int64(a)
		return minMaxInts(mem, isMax, v, validityOf(a), ids, groups, a.DataType()), nil
	case *array.Float64:
		return minMaxFloats(mem, isMax, a.Float64Values(), validityOf(a), ids, groups), nil
	case *array.Boolean:
		return minMaxBools(mem, isMax, a, ids, groups), nil
	case *array.String:
		return minMaxStrings(mem, isMax, a, ids, groups)
	}
	return nil, fmt.Errorf("min/max of %s", typeName(arg))
}

// minMaxInts is min or max over integers.
func minMaxInts[T int32 | int64](mem memory.Allocator, isMax bool, vals []T, v validity, ids []int32, groups int, dt arrow.DataType) arrow.Array {
	out := newFixedOut[T](mem, groups)
	best := out.vals
	has := make([]bool, groups)
	for i, g := range ids {
		if !v.valid(i) {
			continue
		}
		x := vals[i]
		switch {
		case !has[g]:
			best[g], has[g] = x, true
		case isMax && x > best[g], !isMax && x < best[g]:
			best[g] = x
		}
	}
	return out.finish(dt, hasBitmap(mem, has))
}

// minMaxFloats is min or max over floats by the total order; the first of
// equal values (by the order: NaNs of any payload) keeps its bits.
func minMaxFloats(mem memory.Allocator, isMax bool, vals []float64, v validity, ids []int32, groups int) arrow.Array {
	out := newFixedOut[float64](mem, groups)
	best := out.vals
	bestKey := make([]uint64, groups)
	has := make([]bool, groups)
	for i, g := range ids {
		if !v.valid(i) {
			continue
		}
		k := floatSortKey(vals[i])
		switch {
		case !has[g]:
			best[g], bestKey[g], has[g] = vals[i], k, true
		case isMax && k > bestKey[g], !isMax && k < bestKey[g]:
			best[g], bestKey[g] = vals[i], k
		}
	}
	return out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has))
}

// minMaxBools is min (all true) or max (any true) over bools.
func minMaxBools(mem memory.Allocator, isMax bool, a *array.Boolean, ids []int32, groups int) arrow.Array {
	v := validityOf(a)
	bits, off := boolParts(a)
	best := make([]bool, groups)
	has := make([]bool, groups)
	for i, g := range ids {
		if !v.valid(i) {
			continue
		}
		x := bitAt(bits, off, i)
		switch {
		case !has[g]:
			best[g], has[g] = x, true
		case isMax:
			best[g] = best[g] || x
		default:
			best[g] = best[g] && x
		}
	}
	vals := newBitmap(mem, groups)
	for g, b := range best {
		if b {
			vals.bits[g>>3] |= 1 << (g & 7)
		}
	}
	return finishArray(arrow.FixedWidthTypes.Boolean, groups, hasBitmap(mem, has), vals.buf)
}

// minMaxStrings is min or max over strings by bytes, as the row of the
// winner (so the bytes are copied once, by Take).
func minMaxStrings(mem memory.Allocator, isMax bool, a *array.String, ids []int32, groups int) (arrow.Array, error) {
	v := validityOf(a)
	rows := make([]int32, groups)
	for g := range rows {
		rows[g] = -1
	}
	best := make([]string, groups)
	for i, g := range ids {
		if !v.valid(i) {
			continue
		}
		s := a.Value(i)
		switch {
		case rows[g] < 0:
			rows[g], best[g] = int32(i), s
		case isMax && s > best[g], !isMax && s < best[g]:
			rows[g], best[g] = int32(i), s
		}
	}
	return Take(mem, a, rows)
}

// floatSortKey maps a float to an unsigned key whose order is the total
// order -Inf < ... < -0.0 < +0.0 < ... < +Inf < NaN, with every NaN (any
// sign, any payload) equal and greatest.
func floatSortKey(f float64) uint64 {
	if f != f {
		return math.MaxUint64
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// aggNUnique counts each group's distinct values, a null counting as one:
// the argument's values get dense ids as a grouping key would (so NaNs,
// the zeros and nulls compare as keys do); then the rows are visited group
// by group (a counting sort by group id, unless the ids never decrease and
// each group's rows are already one run), and a value id counts for a
// group the first time that group meets it (mark[v] holds the last group
// that counted v, plus one).
func aggNUnique(mem memory.Allocator, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	out := newFixedOut[int64](mem, groups)
	if len(ids) == 0 {
		return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
	}
	c, err := groupCol(arg)
	if err != nil {
		out.buf.Release()
		return nil, fmt.Errorf("n_unique: %w", err)
	}
	vals := make([]int32, len(ids))
	values, _ := encode(c, true, vals)
	if groups == 1 {
		out.vals[0] = int64(values)
		return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
	}
	if nonDecreasingIDs(ids) {
		// Each group's rows are one run (ids from a sorted key): a
		// value counts for a group the first time the run meets it.
		mark := make([]int32, values)
		for i, g := range ids {
			if v := vals[i]; mark[v] != g+1 {
				mark[v] = g + 1
				out.vals[g]++
			}
		}
		return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
	}
	next := make([]int32, groups+1)
	for _, g := range ids {
		next[g+1]++
	}
	for g := 0; g < groups; g++ {
		next[g+1] += next[g]
	}
	byGroup := make([]int32, len(ids)) // the value ids, group by group
	for i, g := range ids {
		byGroup[next[g]] = vals[i]
		next[g]++
	}
	mark := vals[:values] // the row value ids are no longer needed
	clear(mark)
	lo := int32(0)
	for g := int32(0); g < int32(groups); g++ {
		hi := next[g] // after the fill, group g's run ends at next[g]
		n := int64(0)
		for _, v := range byGroup[lo:hi] {
			if mark[v] != g+1 {
				mark[v] = g + 1
				n++
			}
		}
		out.vals[g], lo = n, hi
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
}

// nonDecreasingIDs reports whether ids never decrease (every group's rows
// contiguous); it stops at the first decrease.
func nonDecreasingIDs(ids []int32) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] {
			return false
		}
	}
	return true
}

// aggArgBest is arg_min (min) or arg_max: per group, the position within
// the group (every row counted, from 0) of the first row, in row order,
// holding the best non-null value by the sort's total order (floats -Inf
// < ... < -0.0 < +0.0 < ... < +Inf < NaN, all NaNs equal; strings by
// bytes; false < true); null for a group with no non-null value. It is
// sequential in row order (a position needs every earlier row of the
// group), so the parallel aggregate does not split it.
func aggArgBest(mem memory.Allocator, min bool, exprText string, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	c := &sortCol{valid: validityOf(arg)}
	if err := c.fill(arg); err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", exprText, err)
	}
	out := newFixedOut[int64](mem, groups)
	seen := make([]int64, groups) // rows of the group so far
	best := make([]int32, groups)
	has := make([]bool, groups)
	for i, g := range ids {
		pos := seen[g]
		seen[g]++
		if c.valid.null(i) {
			continue
		}
		r := int32(i)
		if !has[g] {
			best[g], has[g], out.vals[g] = r, true, pos
		} else if d := c.cmpVals(r, best[g]); min && d < 0 || !min && d > 0 {
			best[g], out.vals[g] = r, pos
		}
	}
	return out.finish(arrow.PrimitiveTypes.Int64, hasBitmap(mem, has)), nil
}
