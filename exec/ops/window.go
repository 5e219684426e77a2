package ops

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// WindowSpec is one window function to compute (docs/semantics.md, Window
// functions and ordered windows).
type WindowSpec struct {
	// Fn is the window function.
	Fn plan.Func
	// ExprText names the call in errors (cum_sum's overflow).
	ExprText string
	// Rank is rank's method, "dense" or "min".
	Rank string
	// Shift is shift's distance (> 0 earlier rows, < 0 later ones).
	Shift int64
	// Default is shift's default, a one-row array of the argument's type,
	// or nil for null.
	Default arrow.Array
}

// Window computes a window function for n rows: arg is its evaluated
// argument (nil for row_number), ids every row's partition (any dense
// numbering below groups), and order the window order as a permutation of
// the rows (nil: input order) in which each partition's rows appear in
// their window order. The result has one value per input row, aligned with
// the input: the window never reorders rows. Only cum_sum of integers can
// fail: an overflow naming ExprText whose Row is the smallest input row
// whose running sum does not fit the result type (int64, or uint64).
func Window(mem memory.Allocator, spec WindowSpec, arg arrow.Array, ids []int32, groups int, order []int32) (arrow.Array, error) {
	n := len(ids)
	if err := checkRows(n); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	if order != nil && len(order) != n {
		return nil, fmt.Errorf("window: %d order positions for %d rows", len(order), n)
	}
	if arg != nil && arg.Len() != n {
		return nil, fmt.Errorf("window: %d argument rows for %d rows", arg.Len(), n)
	}
	if arg == nil && spec.Fn != plan.FuncRowNumber {
		return nil, fmt.Errorf("window: %s needs an argument", spec.Fn)
	}
	at := func(i int) int32 {
		if order == nil {
			return int32(i)
		}
		return order[i]
	}
	switch spec.Fn {
	case plan.FuncRowNumber:
		out := newFixedOutDirty[int64](mem, n)
		seen := make([]int64, groups)
		for i := 0; i < n; i++ {
			r := at(i)
			g := ids[r]
			seen[g]++
			out.vals[r] = seen[g]
		}
		return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
	case plan.FuncCumCount:
		out := newFixedOutDirty[int64](mem, n)
		seen := make([]int64, groups)
		v := validityOf(arg)
		for i := 0; i < n; i++ {
			r := at(i)
			g := ids[r]
			if v.valid(int(r)) {
				seen[g]++
			}
			out.vals[r] = seen[g]
		}
		return out.finish(arrow.PrimitiveTypes.Int64, nil), nil
	case plan.FuncCumSum:
		return cumSum(mem, spec.ExprText, arg, ids, groups, n, at)
	case plan.FuncCumMin, plan.FuncCumMax:
		return cumBest(mem, spec.Fn == plan.FuncCumMin, arg, ids, groups, n, at)
	case plan.FuncRank:
		return rank(mem, spec.Rank, arg, ids, groups, n)
	case plan.FuncShift:
		return shift(mem, spec, arg, ids, groups, n, at)
	}
	return nil, fmt.Errorf("window: %s is not a window function", spec.Fn)
}

// nullsOf returns a bitmap valid exactly where arg is valid, or nil when
// arg has no null.
func nullsOf(mem memory.Allocator, arg arrow.Array, n int) *bitmap {
	v := validityOf(arg)
	if v.all() {
		return nil
	}
	b := newBitmap(mem, n)
	for i := 0; i < n; i++ {
		if v.valid(i) {
			b.set(i)
		}
	}
	return b
}

// cumSum is the running sum (docs/semantics.md, the cum_sum row): exact
// and checked for integers (int64 result, uint64 for uint64), sequential
// from the first non-null value in float64 for floats. The narrower types
// run the int64 and float64 loops over a widened copy (exactly the values
// the semantics converts them to).
func cumSum(mem memory.Allocator, exprText string, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) (arrow.Array, error) {
	v := validityOf(arg)
	switch a := arg.(type) {
	case *array.Float64:
		return cumSumFloats(mem, a.Float64Values(), v, arg, ids, groups, n, at), nil
	case *array.Float32:
		f, _ := narrowFloats(a)
		return cumSumFloats(mem, f, v, arg, ids, groups, n, at), nil
	case *array.Int64:
		return cumSumInts(mem, exprText, a.Int64Values(), v, arg, ids, groups, n, at)
	case *array.Int32:
		return cumSumInts(mem, exprText, a.Int32Values(), v, arg, ids, groups, n, at)
	case *array.Uint64:
		return cumSumUint64(mem, exprText, a.Uint64Values(), v, arg, ids, groups, n, at)
	}
	if w, ok := narrowInts(arg); ok {
		return cumSumInts(mem, exprText, w, v, arg, ids, groups, n, at)
	}
	return nil, fmt.Errorf("window: cum_sum of unsupported type %s", typeName(arg))
}

// cumSumInts is the checked integer running sum, exact in 128 bits per
// partition; the error names the smallest input row whose exact running
// sum does not fit int64 (a later row's may fit again: [MaxInt64, 1, -1]
// fails at the second row only).
func cumSumInts[T int32 | int64](mem memory.Allocator, exprText string, vals []T, v validity, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) (arrow.Array, error) {
	out := newFixedOut[int64](mem, n)
	lo := make([]uint64, groups)
	hi := make([]int64, groups)
	overflowAt := -1
	for i := 0; i < n; i++ {
		r := at(i)
		if !v.valid(int(r)) {
			continue
		}
		g := ids[r]
		x := int64(vals[r])
		var carry uint64
		lo[g], carry = bits.Add64(lo[g], uint64(x), 0)
		hi[g] += x>>63 + int64(carry)
		if hi[g] != int64(lo[g])>>63 {
			if overflowAt < 0 || int(r) < overflowAt {
				overflowAt = int(r)
			}
			continue
		}
		out.vals[r] = int64(lo[g])
	}
	if overflowAt >= 0 {
		out.buf.Release()
		return nil, &plan.Error{Kind: plan.Overflow, Expr: exprText, Row: int64(overflowAt),
			Msg: "cumulative integer sum overflows int64"}
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nullsOf(mem, arg, n)), nil
}

// cumSumFloats is the float64 running sum of vals, from each partition's
// first non-null value on, under the arithmetic NaN rule.
func cumSumFloats(mem memory.Allocator, vals []float64, v validity, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) arrow.Array {
	out := newFixedOut[float64](mem, n)
	sums := make([]float64, groups)
	started := make([]bool, groups)
	for i := 0; i < n; i++ {
		r := at(i)
		if !v.valid(int(r)) {
			continue
		}
		g := ids[r]
		x := vals[r]
		if !started[g] {
			sums[g], started[g] = x, true
		} else {
			sums[g] = ieee.Add(sums[g], x)
		}
		out.vals[r] = sums[g]
	}
	return out.finish(arrow.PrimitiveTypes.Float64, nullsOf(mem, arg, n))
}

// cumSumUint64 is the checked uint64 running sum: the sum only grows, so
// the error names the smallest input row at or after which some
// partition's sum passes 2^64 - 1 (that partition's first such row).
func cumSumUint64(mem memory.Allocator, exprText string, vals []uint64, v validity, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) (arrow.Array, error) {
	out := newFixedOut[uint64](mem, n)
	sums := make([]uint64, groups)
	over := make([]bool, groups)
	overflowAt := -1
	for i := 0; i < n; i++ {
		r := at(i)
		if !v.valid(int(r)) {
			continue
		}
		g := ids[r]
		if over[g] {
			continue
		}
		var carry uint64
		sums[g], carry = bits.Add64(sums[g], vals[r], 0)
		if carry != 0 {
			over[g] = true
			if overflowAt < 0 || int(r) < overflowAt {
				overflowAt = int(r)
			}
			continue
		}
		out.vals[r] = sums[g]
	}
	if overflowAt >= 0 {
		out.buf.Release()
		return nil, &plan.Error{Kind: plan.Overflow, Expr: exprText, Row: int64(overflowAt),
			Msg: "cumulative integer sum overflows uint64"}
	}
	return out.finish(arrow.PrimitiveTypes.Uint64, nullsOf(mem, arg, n)), nil
}

// cumBest is the running minimum (min) or maximum: each row takes the
// earliest row, in window order, holding the best value so far by the
// sort's total order (a strictly better value replaces it, so among equal
// values the earliest bits win), gathered with Take; null rows stay null.
func cumBest(mem memory.Allocator, min bool, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) (arrow.Array, error) {
	c := &sortCol{valid: validityOf(arg)}
	if err := c.fill(arg); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	best := make([]int32, groups)
	for i := range best {
		best[i] = -1
	}
	idx := make([]int32, n)
	for i := 0; i < n; i++ {
		r := at(i)
		if c.valid.null(int(r)) {
			idx[r] = -1
			continue
		}
		g := ids[r]
		if b := best[g]; b < 0 {
			best[g] = r
		} else if d := c.cmpVals(r, b); min && d < 0 || !min && d > 0 {
			best[g] = r
		}
		idx[r] = best[g]
	}
	return Take(mem, arg, idx)
}

// rank ranks each non-null value among its partition's non-null values in
// ascending total order (ties equal by the sort's order words: all NaNs one
// value, -0.0 below +0.0): dense counts the distinct smaller values, min
// the smaller rows, plus one. The rows are visited in one stable sort by
// value; each partition's state is its last value's row and ranks.
func rank(mem memory.Allocator, method string, arg arrow.Array, ids []int32, groups, n int) (arrow.Array, error) {
	if method != "dense" && method != "min" {
		return nil, fmt.Errorf("window: unknown rank method %q", method)
	}
	s, _, err := newSorter([]arrow.Array{arg}, nil, []bool{true})
	if err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	perm := s.sortAll(n)
	c := &s.cols[0]
	out := newFixedOut[int64](mem, n)
	last := make([]int32, groups)
	for i := range last {
		last[i] = -1
	}
	seen := make([]int64, groups)  // non-null rows ranked so far
	dense := make([]int64, groups) // distinct values so far
	cur := make([]int64, groups)   // the rank of the last value
	for _, r := range perm {
		if c.valid.null(int(r)) {
			break // nulls sort last
		}
		g := ids[r]
		if l := last[g]; l < 0 || c.cmpVals(l, r) != 0 {
			dense[g]++
			if method == "dense" {
				cur[g] = dense[g]
			} else {
				cur[g] = seen[g] + 1
			}
		}
		seen[g]++
		last[g] = r
		out.vals[r] = cur[g]
	}
	return out.finish(arrow.PrimitiveTypes.Int64, nullsOf(mem, arg, n)), nil
}

// shift gathers, for each row, the argument of the row Shift places
// earlier in its partition's window order (later when Shift < 0), or the
// default where that row lies outside the partition.
func shift(mem memory.Allocator, spec WindowSpec, arg arrow.Array, ids []int32, groups, n int, at func(int) int32) (arrow.Array, error) {
	// Each partition's rows in window order, one after another: start[g]
	// is where partition g begins in seq, pos[r] row r's place in it.
	start := make([]int32, groups+1)
	for _, g := range ids {
		start[g+1]++
	}
	for g := 0; g < groups; g++ {
		start[g+1] += start[g]
	}
	fill := append([]int32(nil), start[:groups]...)
	seq := make([]int32, n)
	pos := make([]int32, n)
	for i := 0; i < n; i++ {
		r := at(i)
		g := ids[r]
		pos[r] = fill[g] - start[g]
		seq[fill[g]] = r
		fill[g]++
	}
	src := arg
	def := int32(-1)
	if spec.Default != nil {
		if spec.Default.Len() != 1 {
			return nil, fmt.Errorf("window: shift default of %d rows", spec.Default.Len())
		}
		cat, err := array.Concatenate([]arrow.Array{arg, spec.Default}, mem)
		if err != nil {
			return nil, fmt.Errorf("window: shift default: %w", err)
		}
		defer cat.Release()
		src, def = cat, int32(n)
	}
	idx := make([]int32, n)
	d := spec.Shift
	for r := 0; r < n; r++ {
		g := ids[r]
		size := int64(start[g+1] - start[g])
		p := int64(pos[r])
		// The source place p - d, without overflow for any int64 d.
		ok := d >= 0 && d <= p || d < 0 && -(d+1) < size-1-p
		if ok {
			idx[r] = seq[int64(start[g])+p-d]
		} else {
			idx[r] = def
		}
	}
	return Take(mem, src, idx)
}
