package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// The integer sum is exact (docs/semantics.md): it raises overflow only
// when a group's exact total does not fit int64, whatever the order of its
// rows or of the partial sums that make it, so `[MaxInt64, 1, -1]` sums to
// MaxInt64 as `[MaxInt64, -1, 1]` does, and no rewrite, sort or
// partitioning that reorders rows can change the outcome. A running int64
// sum that fails at its first overflow would not do: its error depends on
// the order.
//
// Each group's sum is a 128-bit integer held as two int64 words: the
// wrapping (two's complement) sum of the values, low, and carry, how many
// times low wrapped past MaxInt64 (+1 each) or below MinInt64 (-1 each), so
// the exact sum is low + carry * 2^64. DuckDB sums BIGINT into a 128-bit
// hugeint the same way. The hot loop is the plain int64 add it was, plus a
// test of the add's sign bits whose branch is never taken while nothing
// wraps; carry is allocated at the first wrap only. The total fits int64
// exactly when carry is 0 (low is in int64's range and any other carry puts
// the sum at least 2^64 - 2^63 = 2^63 away from 0). carry itself cannot
// overflow: a call sees at most math.MaxInt32 rows, each wrapping at most
// once. int32 values cannot wrap an int64 at all (2^31 rows of magnitude
// at most 2^31 sum to at most 2^62), so their loop has no test.

// exactSums is an exact integer sum per group over some rows.
type exactSums struct {
	low   []int64 // the wrapping sum
	carry []int64 // the wraps of low (nil: none yet)
	has   []bool  // whether the group had a non-null value
}

// newExactSums returns zero sums for groups groups, low in out's memory
// when out is given (the result buffer, so the common case copies
// nothing).
func newExactSums(groups int, low []int64) *exactSums {
	if low == nil {
		low = make([]int64, groups)
	}
	return &exactSums{low: low, has: make([]bool, groups)}
}

// wrapped records that low[g] wrapped while adding x: upwards past MaxInt64
// when x is positive, downwards past MinInt64 when x is negative (an add
// wraps only towards the sign of its operands). It is the rare path, kept
// out of the loops.
//
//go:noinline
func (s *exactSums) wrapped(g int32, x int64) {
	if s.carry == nil {
		s.carry = make([]int64, len(s.low))
	}
	s.carry[g] += x>>63 | 1 // -1 for a negative x, +1 otherwise
}

// addRows adds the values of rows [lo, hi) (all valid) into their groups.
func addRows[T int32 | int64](s *exactSums, vals []T, ids []int32, lo, hi int) {
	low, has := s.low, s.has
	vals, ids = vals[lo:hi], ids[lo:hi]
	if len(low) == 1 && len(vals) > 0 {
		// One group (a sum without keys): the sum stays in a register
		// instead of making a store-to-load chain through low[0] per row.
		a := low[0]
		if is32[T]() {
			for _, x := range vals {
				a += int64(x)
			}
		} else {
			for _, v := range vals {
				x := int64(v)
				r := a + x
				if (a^r)&(x^r) < 0 {
					s.wrapped(0, x)
				}
				a = r
			}
		}
		low[0], has[0] = a, true
		return
	}
	if is32[T]() {
		for i, g := range ids {
			low[g] += int64(vals[i])
			has[g] = true
		}
		return
	}
	for i, g := range ids {
		x := int64(vals[i])
		a := low[g]
		r := a + x
		if (a^r)&(x^r) < 0 { // the signs of both operands differ from the sum's
			s.wrapped(g, x)
		}
		low[g] = r
		has[g] = true
	}
}

// sumValid adds the non-null values among rows [lo, hi) into their groups.
func sumValid[T int32 | int64](s *exactSums, vals []T, v validity, ids []int32, lo, hi int) {
	if v.all() {
		addRows(s, vals, ids, lo, hi)
		return
	}
	// eachValid walks the rows in runs of valid ones from row 0; shift the
	// window so the runs are [lo, hi)'s.
	sub := validity{bits: v.bits, off: v.off + lo}
	sub.eachValid(hi-lo, func(a, b int) { addRows(s, vals, ids, lo+a, lo+b) })
}

// merge adds the sums of o into s exactly: the low words add with
// wrapping, a wrap of that add counts in carry like any other, and the
// carries add.
func (s *exactSums) merge(o *exactSums) {
	for g, x := range o.low {
		a := s.low[g]
		r := a + x
		if (a^r)&(x^r) < 0 {
			s.wrapped(int32(g), x)
		}
		s.low[g] = r
		s.has[g] = s.has[g] || o.has[g]
	}
	if o.carry != nil {
		if s.carry == nil {
			s.carry = make([]int64, len(s.low))
		}
		for g, c := range o.carry {
			s.carry[g] += c
		}
	}
}

// overflowed returns the first group (in group order, which is output
// order) whose exact sum does not fit int64, or -1.
func (s *exactSums) overflowed() int {
	for g, c := range s.carry {
		if c != 0 {
			return g
		}
	}
	return -1
}

// sumError is the overflow of group g's sum: it names the aggregate call
// and, for people, the first input row of g (docs/semantics.md).
func sumError(exprText string, ids []int32, g int) *plan.Error {
	row := int64(-1)
	for i, id := range ids {
		if int(id) == g {
			row = int64(i)
			break
		}
	}
	return &plan.Error{Kind: plan.Overflow, Expr: exprText, Row: row,
		Msg: "integer sum overflows int64"}
}

// sumInts is the exact integer sum, sequential.
func sumInts[T int32 | int64](mem memory.Allocator, exprText string, vals []T, v validity, ids []int32, groups int) (arrow.Array, error) {
	out := newFixedOut[int64](mem, groups)
	s := newExactSums(groups, out.vals)
	sumValid(s, vals, v, ids, 0, len(ids))
	if g := s.overflowed(); g >= 0 {
		out.buf.Release()
		return nil, sumError(exprText, ids, g)
	}
	return out.finish(arrow.PrimitiveTypes.Int64, hasBitmap(mem, s.has)), nil
}

// is32 reports whether T is the 32-bit integer type.
func is32[T int32 | int64]() bool {
	var z T
	_, ok := any(z).(int32)
	return ok
}
