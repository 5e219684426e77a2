package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/plan"
)

// The benchmarks run 1M-row batches and report ns/row (per input row).

const benchRows = 1 << 20

var benchMem = memory.NewGoAllocator()

// benchInt64 makes n int64 values drawn uniformly from [0, card) (card <= 0:
// any int64), with every nullEvery-th row null (0: no nulls).
func benchInt64(n int, card int64, nullEvery int) arrow.Array {
	rng := rand.New(rand.NewSource(1))
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if nullEvery > 0 && i%nullEvery == 0 {
			b.AppendNull()
			continue
		}
		if card <= 0 {
			b.UnsafeAppend(int64(rng.Uint64()))
		} else {
			b.UnsafeAppend(rng.Int63n(card))
		}
	}
	return b.NewArray()
}

// benchWide makes n int64 values drawn uniformly from [-2^50, 2^50): a sum
// of 2^20 of them is about 2^59 away from 0, far from overflowing, but no
// bound on magnitudes alone can tell.
func benchWide(n int) arrow.Array {
	rng := rand.New(rand.NewSource(5))
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(rng.Int63n(1<<51) - 1<<50)
	}
	return b.NewArray()
}

// benchFloat64 makes n floats: card distinct values, or any finite value.
func benchFloat64(n int, card int64) arrow.Array {
	rng := rand.New(rand.NewSource(2))
	b := array.NewFloat64Builder(benchMem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if card > 0 {
			b.UnsafeAppend(float64(rng.Int63n(card)) * 0.25)
		} else {
			b.UnsafeAppend(rng.NormFloat64() * 1e6)
		}
	}
	return b.NewArray()
}

// benchString makes n strings "key-<k>" with card distinct k (card <= 0:
// random 8–16 byte strings).
func benchString(n int, card int64) arrow.Array {
	rng := rand.New(rand.NewSource(3))
	b := array.NewStringBuilder(benchMem)
	defer b.Release()
	buf := make([]byte, 16)
	for i := 0; i < n; i++ {
		if card > 0 {
			b.Append(fmt.Sprintf("key-%d", rng.Int63n(card)))
			continue
		}
		l := 8 + rng.Intn(9)
		for j := 0; j < l; j++ {
			buf[j] = byte('a' + rng.Intn(26))
		}
		b.Append(string(buf[:l]))
	}
	return b.NewArray()
}

// cpuStart holds the process CPU time at each benchmark's resetTimer.
var cpuStart sync.Map // *testing.B → time.Duration

// resetTimer is b.ResetTimer that also notes the process CPU time, so that
// perRow can report the CPU time per row beside the wall time.
func resetTimer(b *testing.B) {
	b.ResetTimer()
	if c, ok := cputime.Process(); ok {
		cpuStart.Store(b, c)
	}
}

// perRow reports the time per input row and, after resetTimer, the CPU
// time per row: on a machine whose cores other processes compete for the
// wall time grows and the CPU time (every thread, the collector's
// included) does not.
func perRow(b *testing.B, rows int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	if c0, ok := cpuStart.LoadAndDelete(b); ok {
		if c1, ok := cputime.Process(); ok {
			b.ReportMetric(float64((c1-c0.(time.Duration)).Nanoseconds())/float64(b.N)/float64(rows), "cpu-ns/row")
		}
	}
}

func BenchmarkGroupIDs(b *testing.B) {
	cases := []struct {
		name string
		keys func() []arrow.Array
	}{
		{"int64_1000", func() []arrow.Array { return []arrow.Array{benchInt64(benchRows, 1000, 0)} }},
		{"int64_1000_nulls", func() []arrow.Array { return []arrow.Array{benchInt64(benchRows, 1000, 10)} }},
		{"int64_sparse_1000", func() []arrow.Array {
			return []arrow.Array{mulArray(benchInt64(benchRows, 1000, 0), 1_000_003_567)}
		}},
		{"int64_unique", func() []arrow.Array { return []arrow.Array{benchInt64(benchRows, 0, 0)} }},
		// TPC-H's order keys: unique, a quarter of a span four times the
		// row count (o_orderkey).
		{"int64_unique_span4", func() []arrow.Array { return []arrow.Array{spreadPerm(benchRows, 4)} }},
		{"float64_1000", func() []arrow.Array { return []arrow.Array{benchFloat64(benchRows, 1000)} }},
		{"string_1000", func() []arrow.Array { return []arrow.Array{benchString(benchRows, 1000)} }},
		// Q1's keys: two one-letter flags.
		{"string_flags_3x2", func() []arrow.Array {
			return []arrow.Array{flagStrings(benchRows, "ANR"), flagStrings(benchRows, "FO")}
		}},
		{"int64_x_string_100x10", func() []arrow.Array {
			return []arrow.Array{benchInt64(benchRows, 100, 0), benchString(benchRows, 10)}
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			keys := tc.keys()
			defer releaseAll(keys)
			resetTimer(b)
			for i := 0; i < b.N; i++ {
				if _, _, err := GroupIDs(keys); err != nil {
					b.Fatal(err)
				}
			}
			perRow(b, benchRows)
		})
	}
}

// permArray is a random permutation of 0..n-1 (unique keys).
func permArray(n int) arrow.Array {
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	for _, v := range rand.New(rand.NewSource(6)).Perm(n) {
		b.Append(int64(v))
	}
	return b.NewArray()
}

// flagStrings makes n one-letter strings drawn uniformly from letters.
func flagStrings(n int, letters string) arrow.Array {
	rng := rand.New(rand.NewSource(8))
	b := array.NewStringBuilder(benchMem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(string(letters[rng.Intn(len(letters))]))
	}
	return b.NewArray()
}

// spreadPerm is a random permutation of 0..n-1 with each value v mapped to
// v*spread: n unique keys over a span of spread*n.
func spreadPerm(n int, spread int64) arrow.Array {
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	for _, v := range rand.New(rand.NewSource(7)).Perm(n) {
		b.Append(int64(v) * spread)
	}
	return b.NewArray()
}

// mulArray multiplies an int64 array by m (wrapping), to spread its values.
func mulArray(a arrow.Array, m int64) arrow.Array {
	defer a.Release()
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	for _, v := range a.(*array.Int64).Int64Values() {
		b.Append(v * m)
	}
	return b.NewArray()
}

func BenchmarkAggregate(b *testing.B) {
	key := benchInt64(benchRows, 1000, 0)
	defer key.Release()
	ids, first, err := GroupIDs([]arrow.Array{key})
	if err != nil {
		b.Fatal(err)
	}
	ints := benchInt64(benchRows, 1_000_000, 0)
	defer ints.Release()
	intsNull := benchInt64(benchRows, 1_000_000, 10)
	defer intsNull.Release()
	floats := benchFloat64(benchRows, 0)
	defer floats.Release()
	strs := benchString(benchRows, 0)
	defer strs.Release()
	cases := []struct {
		name string
		fn   plan.Func
		arg  arrow.Array
	}{
		{"sum_int64", plan.FuncSum, ints},
		{"sum_int64_nulls", plan.FuncSum, intsNull},
		{"sum_float64", plan.FuncSum, floats},
		{"mean_int64", plan.FuncMean, ints},
		{"mean_float64", plan.FuncMean, floats},
		{"count_nulls", plan.FuncCount, intsNull},
		{"len", plan.FuncLen, nil},
		{"min_float64", plan.FuncMin, floats},
		{"max_int64", plan.FuncMax, ints},
		{"max_string", plan.FuncMax, strs},
		{"first_float64", plan.FuncFirst, floats},
		{"last_string", plan.FuncLast, strs},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := Aggregate(benchMem, Plain(tc.fn), "agg", tc.arg, ids, len(first))
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			perRow(b, benchRows)
		})
	}
}

// BenchmarkAggregateSumParallel is the integer sum's parallel path (two
// workers, default partitions) over 1,000 groups and over one: small values,
// and values in ±2^50, whose row count times magnitude leaves int64 although
// no group's total does.
func BenchmarkAggregateSumParallel(b *testing.B) {
	key := benchInt64(benchRows, 1000, 0)
	defer key.Release()
	ids, first, err := GroupIDs([]arrow.Array{key})
	if err != nil {
		b.Fatal(err)
	}
	one := OneGroup(benchRows)
	small := benchInt64(benchRows, 1_000_000, 0)
	defer small.Release()
	wide := benchWide(benchRows)
	defer wide.Release()
	p := Parallel{Workers: 2}
	cases := []struct {
		name   string
		arg    arrow.Array
		ids    []int32
		groups int
	}{
		{"sum_int64_1000g", small, ids, len(first)},
		{"sum_int64_wide_1000g", wide, ids, len(first)},
		{"sum_int64_1g", small, one, 1},
		{"sum_int64_wide_1g", wide, one, 1},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := AggregateParallel(benchMem, Plain(plan.FuncSum), "agg", tc.arg, tc.ids, tc.groups, p)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			perRow(b, benchRows)
		})
	}
}

// BenchmarkAggregateStats is n_unique, median and var beside sum over
// benchRows rows, grouped (1,000 groups) and ungrouped (one group), on the
// sequential path (none of the three is split over partitions).
func BenchmarkAggregateStats(b *testing.B) {
	key := benchInt64(benchRows, 1000, 0)
	defer key.Release()
	ids, first, err := GroupIDs([]arrow.Array{key})
	if err != nil {
		b.Fatal(err)
	}
	one := OneGroup(benchRows)
	ints := benchInt64(benchRows, 1_000_000, 0)
	defer ints.Release()
	floats := benchFloat64(benchRows, 0)
	defer floats.Release()
	for _, g := range []struct {
		name   string
		ids    []int32
		groups int
	}{{"1000g", ids, len(first)}, {"1g", one, 1}} {
		for _, tc := range []struct {
			name string
			fn   plan.Func
			arg  arrow.Array
		}{
			{"sum_int64", plan.FuncSum, ints},
			{"sum_float64", plan.FuncSum, floats},
			{"n_unique_int64", plan.FuncNUnique, ints},
			{"n_unique_float64", plan.FuncNUnique, floats},
			{"median_int64", plan.FuncMedian, ints},
			{"median_float64", plan.FuncMedian, floats},
			{"var_int64", plan.FuncVar, ints},
			{"var_float64", plan.FuncVar, floats},
		} {
			b.Run(tc.name+"_"+g.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					out, err := Aggregate(benchMem, Plain(tc.fn), "agg", tc.arg, g.ids, g.groups)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				perRow(b, benchRows)
			})
		}
	}
}

// sortBenchCases are the sort inputs shared by the sort and top-k benchmarks.
func sortBenchCases() []struct {
	name string
	keys func() []arrow.Array
	desc []bool
} {
	return []struct {
		name string
		keys func() []arrow.Array
		desc []bool
	}{
		{"int64_random", func() []arrow.Array { return []arrow.Array{benchInt64(benchRows, 0, 0)} }, nil},
		{"int64_1M_range_nulls", func() []arrow.Array { return []arrow.Array{benchInt64(benchRows, 1_000_000, 10)} }, nil},
		{"float64_random_desc", func() []arrow.Array { return []arrow.Array{benchFloat64(benchRows, 0)} }, []bool{true}},
		{"string_random", func() []arrow.Array { return []arrow.Array{benchString(benchRows, 0)} }, nil},
		{"string_1000", func() []arrow.Array { return []arrow.Array{benchString(benchRows, 1000)} }, nil},
		{"int64_1000_then_float64", func() []arrow.Array {
			return []arrow.Array{benchInt64(benchRows, 1000, 0), benchFloat64(benchRows, 0)}
		}, nil},
	}
}

func BenchmarkSortIndices(b *testing.B) {
	for _, tc := range sortBenchCases() {
		b.Run(tc.name, func(b *testing.B) {
			keys := tc.keys()
			defer releaseAll(keys)
			resetTimer(b)
			for i := 0; i < b.N; i++ {
				if _, err := SortIndices(keys, tc.desc, nil); err != nil {
					b.Fatal(err)
				}
			}
			perRow(b, benchRows)
		})
	}
}

// BenchmarkSortIndicesPresortedLeading sorts on six int64 keys whose first
// is already non-decreasing with short runs of equal values (the shape of
// the row-number sort join_order leaves behind), and for comparison the
// same keys with the first one shuffled.
func BenchmarkSortIndicesPresortedLeading(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	lead := make([]int64, benchRows)
	v := int64(0)
	for i := range lead {
		if rng.Intn(3) == 0 {
			v++
		}
		lead[i] = v
	}
	shuffled := slices.Clone(lead)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, tc := range []struct {
		name string
		lead []int64
	}{{"sorted_lead", lead}, {"shuffled_lead", shuffled}} {
		b.Run(tc.name, func(b *testing.B) {
			bld := array.NewInt64Builder(benchMem)
			bld.AppendValues(tc.lead, nil)
			keys := []arrow.Array{bld.NewArray()}
			bld.Release()
			for k := 1; k < 6; k++ {
				keys = append(keys, benchInt64(benchRows, 1<<40, 0))
			}
			defer releaseAll(keys)
			resetTimer(b)
			for i := 0; i < b.N; i++ {
				if _, err := SortIndices(keys, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			perRow(b, benchRows)
		})
	}
}

func BenchmarkTopK100(b *testing.B) {
	for _, tc := range sortBenchCases() {
		b.Run(tc.name, func(b *testing.B) {
			keys := tc.keys()
			defer releaseAll(keys)
			resetTimer(b)
			for i := 0; i < b.N; i++ {
				if _, err := TopK(keys, tc.desc, nil, 100); err != nil {
					b.Fatal(err)
				}
			}
			perRow(b, benchRows)
		})
	}
}

func BenchmarkJoin(b *testing.B) {
	cases := []struct {
		name        string
		kind        plan.JoinKind
		left, right func() arrow.Array
	}{
		{"inner_int64_1000", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return benchInt64(1000, 2000, 0) }},
		{"inner_int64_unique_1000", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return permArray(1000) }},
		{"left_int64_unique_1000", plan.LeftJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return permArray(1000) }},
		{"left_int64_1000", plan.LeftJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return benchInt64(1000, 2000, 0) }},
		{"inner_int64_sparse_1000", plan.InnerJoin, func() arrow.Array { return mulArray(benchInt64(benchRows, 2000, 0), 1_000_003_567) },
			func() arrow.Array { return mulArray(benchInt64(1000, 2000, 0), 1_000_003_567) }},
		{"semi_int64_1000", plan.SemiJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return benchInt64(1000, 2000, 0) }},
		{"right_int64_1000", plan.RightJoin, func() arrow.Array { return benchInt64(benchRows, 2000, 0) },
			func() arrow.Array { return benchInt64(1000, 2000, 0) }},
		// Q5's and Q3's shape: the build (right) side of the join as
		// written is 16 times the probe side.
		{"inner_int64_left_smaller", plan.InnerJoin, func() arrow.Array { return spreadPerm(benchRows/16, 4) },
			func() arrow.Array { return mulArray(benchInt64(benchRows, benchRows/4, 0), 4) }},
		// Q9's and Q21's shape: probe rows against unique order keys
		// spread over four times their count (o_orderkey).
		{"inner_int64_unique_span4", plan.InnerJoin, func() arrow.Array { return mulArray(benchInt64(benchRows, benchRows/4, 0), 4) },
			func() arrow.Array { return spreadPerm(benchRows/4, 4) }},
		// Q17's shape: 1,000 sparse part keys, one probe row in 1,000
		// matching.
		{"inner_int64_sparse_misses", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 1_000_000, 0) },
			func() arrow.Array { return mulArray(permArray(1000), 997) }},
		// Q3's shape: 64K sparse order keys, one probe row in 16
		// matching.
		{"inner_int64_sparse_64k_misses", plan.InnerJoin, func() arrow.Array { return mulArray(benchInt64(benchRows, 1<<20, 0), 1_000_003_567) },
			func() arrow.Array { return mulArray(permArray(1<<16), 1_000_003_567) }},
		{"inner_string_1000", plan.InnerJoin, func() arrow.Array { return benchString(benchRows, 2000) },
			func() arrow.Array { return benchString(1000, 2000) }},
		{"inner_float64_1000", plan.InnerJoin, func() arrow.Array { return benchFloat64(benchRows, 2000) },
			func() arrow.Array { return benchFloat64(1000, 2000) }},
		// Q5's shape: a dimension filtered to one row, 1 in 1,000 probe
		// rows matching it; and a build side of 4 keys.
		{"inner_int64_build1", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 1000, 0) },
			func() arrow.Array { return smallInt64(7) }},
		{"left_int64_build1", plan.LeftJoin, func() arrow.Array { return benchInt64(benchRows, 1000, 0) },
			func() arrow.Array { return smallInt64(7) }},
		{"semi_int64_build1", plan.SemiJoin, func() arrow.Array { return benchInt64(benchRows, 1000, 0) },
			func() arrow.Array { return smallInt64(7) }},
		{"inner_int64_nulls_build1", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 1000, 10) },
			func() arrow.Array { return smallInt64(7) }},
		{"inner_int64_build4", plan.InnerJoin, func() arrow.Array { return benchInt64(benchRows, 1000, 0) },
			func() arrow.Array { return smallInt64(7, 300, 301, 999) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			l, r := tc.left(), tc.right()
			defer l.Release()
			defer r.Release()
			resetTimer(b)
			for i := 0; i < b.N; i++ {
				if _, _, err := JoinIndices(tc.kind, []arrow.Array{l}, []arrow.Array{r}); err != nil {
					b.Fatal(err)
				}
			}
			perRow(b, benchRows)
		})
	}
}

func BenchmarkTake(b *testing.B) {
	rng := rand.New(rand.NewSource(4))
	random := make([]int32, benchRows)
	for i := range random {
		random[i] = int32(rng.Intn(benchRows))
	}
	ints := benchInt64(benchRows, 0, 0)
	defer ints.Release()
	intsNull := benchInt64(benchRows, 0, 10)
	defer intsNull.Release()
	strs := benchString(benchRows, 0)
	defer strs.Release()
	// A filter's selection: ascending, keeping 98% (long runs, which the
	// gathers copy as blocks) or 50% (runs of about two rows) of the rows.
	selection := func(keep float64) []int32 {
		var sel []int32
		for i := 0; i < benchRows; i++ {
			if rng.Float64() < keep {
				sel = append(sel, int32(i))
			}
		}
		return sel
	}
	sel98, sel50 := selection(0.98), selection(0.5)
	cases := []struct {
		name string
		arr  arrow.Array
	}{{"int64", ints}, {"int64_nulls", intsNull}, {"string", strs}}
	for _, tc := range cases {
		for _, ix := range []struct {
			name string
			idx  []int32
		}{{"random", random}, {"sel98", sel98}, {"sel50", sel50}} {
			b.Run(tc.name+"_"+ix.name, func(b *testing.B) {
				resetTimer(b)
				for i := 0; i < b.N; i++ {
					out, err := Take(benchMem, tc.arr, ix.idx)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				perRow(b, len(ix.idx))
			})
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	mb := array.NewBooleanBuilder(benchMem)
	for i := 0; i < benchRows; i++ {
		mb.Append(rng.Intn(2) == 0)
	}
	mask := mb.NewArray()
	mb.Release()
	defer mask.Release()
	ints := benchInt64(benchRows, 0, 0)
	defer ints.Release()
	floats := benchFloat64(benchRows, 0)
	defer floats.Release()
	strs := benchString(benchRows, 0)
	defer strs.Release()
	for _, tc := range []struct {
		name string
		cols []arrow.Array
	}{{"int64", []arrow.Array{ints}}, {"int64_float64_string", []arrow.Array{ints, floats, strs}}} {
		rec := record(tc.cols...)
		b.Run(tc.name+"_50pct", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := FilterRecord(benchMem, rec, mask)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			perRow(b, benchRows)
		})
		rec.Release()
	}
}

// smallInt64 is a non-null int64 column of the given values (a tiny build
// side).
func smallInt64(vals ...int64) arrow.Array {
	b := array.NewInt64Builder(benchMem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}
