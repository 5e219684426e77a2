package ops

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

func TestAggregate(t *testing.T) {
	// Three groups plus an empty fourth one (ids never name it).
	ids := i32s(0, 1, 0, 2, 1, 0)
	const groups = 4
	cases := []struct {
		name   string
		fn     plan.Func
		dt     arrow.DataType
		arg    []any
		wantDT arrow.DataType
		want   []any
	}{
		{"len", plan.FuncLen, nil, nil, tI64, []any{3, 2, 1, 0}},
		{"count", plan.FuncCount, tI64, []any{1, nil, nil, 4, nil, 6}, tI64, []any{2, 0, 1, 0}},
		{"sum int64", plan.FuncSum, tI64, []any{1, nil, 2, maxInt64, nil, -10}, tI64, []any{-7, nil, maxInt64, nil}},
		{"sum int32 widens", plan.FuncSum, tI32, []any{2147483647, 1, 2147483647, -5, nil, 2}, tI64, []any{4294967296, 1, -5, nil}},
		{"sum float in row order", plan.FuncSum, tF64, []any{1e308, negZero, 1e308, 2.5, negZero, -1e308}, tF64, []any{posInf, negZero, 2.5, nil}},
		{"sum float first value kept", plan.FuncSum, tF64, []any{negZero, nil, nil, sNaN, nil, nil}, tF64, []any{negZero, nil, sNaN, nil}},
		{"sum float nan", plan.FuncSum, tF64, []any{1.0, 1.0, payNaN, 1.0, 1.0, 3.0}, tF64, []any{payNaN, 2.0, 1.0, nil}},
		{"mean int", plan.FuncMean, tI64, []any{1, nil, 2, maxInt64, nil, 4}, tF64, []any{7.0 / 3, nil, 9.223372036854776e18, nil}},
		{"mean float", plan.FuncMean, tF64, []any{negZero, 1.0, nil, posInf, 2.0, negInf}, tF64, []any{negInf, 1.5, posInf, nil}},
		{"mean of -0.0", plan.FuncMean, tF64, []any{negZero, nil, negZero, nil, nil, nil}, tF64, []any{negZero, nil, nil, nil}},
		{"min int", plan.FuncMin, tI64, []any{5, nil, minInt64, 3, 7, nil}, tI64, []any{minInt64, 7, 3, nil}},
		{"max int32", plan.FuncMax, tI32, []any{5, nil, -1, -3, -7, 9}, tI32, []any{9, -7, -3, nil}},
		{"min float zeros", plan.FuncMin, tF64, []any{0.0, qNaN, negZero, nil, hwNaN, 0.0}, tF64, []any{negZero, qNaN, nil, nil}},
		{"max float nan wins, first nan kept", plan.FuncMax, tF64, []any{payNaN, 1.0, posInf, negInf, qNaN, hwNaN}, tF64, []any{payNaN, qNaN, negInf, nil}},
		{"min float -inf", plan.FuncMin, tF64, []any{hwNaN, 2.0, negInf, 0.0, 1.0, posInf}, tF64, []any{negInf, 1.0, 0.0, nil}},
		{"max bool", plan.FuncMax, tBool, []any{false, nil, true, false, nil, false}, tBool, []any{true, nil, false, nil}},
		{"min bool", plan.FuncMin, tBool, []any{true, true, false, nil, false, true}, tBool, []any{false, false, nil, nil}},
		{"min string", plan.FuncMin, tStr, []any{"b", "", "a\x00", "x", nil, "a"}, tStr, []any{"a", "", "x", nil}},
		{"max string", plan.FuncMax, tStr, []any{"b", "", "é", "x", "z", "a"}, tStr, []any{"é", "z", "x", nil}},
		{"first includes null", plan.FuncFirst, tF64, []any{nil, negZero, 1.0, sNaN, 2.0, 3.0}, tF64, []any{nil, negZero, sNaN, nil}},
		{"last includes null", plan.FuncLast, tStr, []any{"a", "b", "c", "d", nil, nil}, tStr, []any{nil, nil, "d", nil}},
		{"last bool", plan.FuncLast, tBool, []any{true, false, false, true, true, nil}, tBool, []any{nil, true, true, nil}},
		{"n_unique int", plan.FuncNUnique, tI64, []any{1, 2, nil, 3, 2, 1}, tI64, []any{2, 1, 1, 0}},
		{"n_unique int32", plan.FuncNUnique, tI32, []any{-1, 7, -1, nil, 8, -1}, tI64, []any{1, 2, 1, 0}},
		{"n_unique float keys", plan.FuncNUnique, tF64, []any{qNaN, 0.0, payNaN, nil, negZero, 1.0}, tI64, []any{2, 1, 1, 0}},
		{"n_unique float infs", plan.FuncNUnique, tF64, []any{posInf, negInf, negInf, sNaN, nil, hwNaN}, tI64, []any{3, 2, 1, 0}},
		{"n_unique string null counts", plan.FuncNUnique, tStr, []any{"a", nil, "a", "", nil, "b"}, tI64, []any{2, 1, 1, 0}},
		{"n_unique bool", plan.FuncNUnique, tBool, []any{true, false, false, nil, true, true}, tI64, []any{2, 2, 1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			var arg arrow.Array
			if tc.dt != nil {
				arg = build(t, mem, tc.dt, tc.arg...)
				defer arg.Release()
			}
			out, err := Aggregate(mem, Plain(tc.fn), "agg", arg, ids, groups)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			checkArray(t, out)
			if !arrow.TypeEqual(out.DataType(), tc.wantDT) {
				t.Fatalf("type %s, want %s", out.DataType(), tc.wantDT)
			}
			if got, want := cellsOf(out), expectCells(tc.wantDT, tc.want...); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestAggregateNoRows covers the keyless aggregate over empty input: one
// row, count and len 0, everything else null.
func TestAggregateNoRows(t *testing.T) {
	ids := OneGroup(0)
	for _, fn := range allAggs {
		for _, dt := range []arrow.DataType{tI64, tI32, tF64, tStr, tBool} {
			if !takes(fn, dt) {
				continue
			}
			t.Run(fn.String()+"/"+dt.String(), func(t *testing.T) {
				mem := newMem(t)
				arg := build(t, mem, dt)
				defer arg.Release()
				out, err := Aggregate(mem, Plain(fn), "agg", arg, ids, 1)
				if err != nil {
					t.Fatal(err)
				}
				defer out.Release()
				want := []any{nil}
				switch fn {
				case plan.FuncCount, plan.FuncLen, plan.FuncNUnique:
					want = []any{int64(0)}
				case plan.FuncAny:
					want = []any{false}
				case plan.FuncAll:
					want = []any{true}
				}
				if got := cellsOf(out); !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			})
		}
	}
}

func TestAggregateOverflow(t *testing.T) {
	mem := newMem(t)
	arg := build(t, mem, tI64, 1, maxInt64, 5, -3, 1, minInt64)
	defer arg.Release()
	// Group 1 is rows 1 and 4: MaxInt64 + 1 overflows, although group 0
	// (1 + 5 + -3 + MinInt64) does not; the error names group 1's first
	// row.
	_, err := Aggregate(mem, Plain(plan.FuncSum), "sum(a)", arg, i32s(0, 1, 0, 0, 1, 0), 2)
	var pe *plan.Error
	if !errors.As(err, &pe) || pe.Kind != plan.Overflow || pe.Expr != "sum(a)" || pe.Row != 1 {
		t.Fatalf("err = %v, want overflow in sum(a) at row 1", err)
	}
	// The same values in other groups do not overflow.
	out, err := Aggregate(mem, Plain(plan.FuncSum), "sum(a)", arg, i32s(0, 1, 0, 0, 0, 0), 2)
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	defer out.Release()
	if got, want := cellsOf(out), expectCells(tI64, minInt64+1+5-3+1, maxInt64); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A negative overflow is found too.
	neg := build(t, mem, tI64, minInt64, -1)
	defer neg.Release()
	if _, err := Aggregate(mem, Plain(plan.FuncSum), "s", neg, i32s(0, 0), 1); err == nil {
		t.Error("MinInt64 + -1: want overflow")
	}
}

func TestAggregateErrors(t *testing.T) {
	mem := newMem(t)
	arg := build(t, mem, tStr, "a", "b")
	defer arg.Release()
	for name, call := range map[string]func() (arrow.Array, error){
		"id out of range": func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncCount), "c", arg, i32s(0, 2), 2) },
		"negative id":     func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncCount), "c", arg, i32s(0, -1), 2) },
		"length mismatch": func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncCount), "c", arg, i32s(0), 1) },
		"sum of strings":  func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncSum), "s", arg, i32s(0, 0), 1) },
		"not aggregate":   func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncAdd), "x", arg, i32s(0, 0), 1) },
		"nil argument":    func() (arrow.Array, error) { return Aggregate(mem, Plain(plan.FuncMin), "m", nil, i32s(0, 0), 1) },
	} {
		if out, err := call(); err == nil {
			out.Release()
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestAggregateFirstAnyIDOrder checks first/last with ids that are not in
// first-appearance order.
func TestAggregateFirstAnyIDOrder(t *testing.T) {
	mem := newMem(t)
	arg := build(t, mem, tStr, "r0", "r1", "r2", "r3")
	defer arg.Release()
	for fn, want := range map[plan.Func][]any{plan.FuncFirst: {"r1", "r0", nil}, plan.FuncLast: {"r3", "r2", nil}} {
		out, err := Aggregate(mem, Plain(fn), "f", arg, i32s(1, 0, 1, 0), 3)
		if err != nil {
			t.Fatal(err)
		}
		if got := cellsOf(out); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", fn, got, want)
		}
		out.Release()
	}
}

// TestPropNUniqueIsDistinctCount: n_unique per group is the number of
// distinct (key, value) rows of that group, as distinct finds them; also
// with the rows sorted by key, so that each group's rows are one run (the
// grouping's run ids and n_unique's path for contiguous groups).
func TestPropNUniqueIsDistinctCount(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	props.Property("n_unique == distinct (key, value) rows per key", prop.ForAll(func(c aggCase) string {
		if msg := checkNUnique(t, c); msg != "" {
			return msg
		}
		perm := make([]int, len(c.key.vals))
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, func(i, j int) int {
			a, b := c.key.vals[i], c.key.vals[j]
			switch {
			case a == nil && b == nil:
				return 0
			case a == nil:
				return -1
			case b == nil:
				return 1
			}
			return refCmp(a, b)
		})
		if msg := checkNUnique(t, aggCase{key: c.key.pick(perm), arg: c.arg.pick(perm)}); msg != "" {
			return "sorted by key: " + msg
		}
		return ""
	}, genAggCase()))
	props.TestingRun(t)
}

// checkNUnique checks n_unique against the distinct rows per group.
func checkNUnique(t *testing.T, c aggCase) string {
	mem := newMem(t)
	defer mem.AssertSize(t, 0)
	key, arg := c.key.array(t, mem), c.arg.array(t, mem)
	defer key.Release()
	defer arg.Release()
	ids, first, err := GroupIDs([]arrow.Array{key})
	if err != nil {
		return err.Error()
	}
	out, err := Aggregate(mem, Plain(plan.FuncNUnique), "n_unique(a)", arg, ids, len(first))
	if err != nil {
		return err.Error()
	}
	defer out.Release()
	rows, err := DistinctRows([]arrow.Array{key, arg})
	if err != nil {
		return err.Error()
	}
	want := make([]int64, len(first))
	for _, r := range rows {
		want[ids[r]]++
	}
	if got := out.(*array.Int64).Int64Values(); !slices.Equal(got, want) {
		return fmt.Sprintf("n_unique %v, distinct rows per group %v", got, want)
	}
	return ""
}

// TestAggregateStats covers median, quantile, var, std, any and all over
// the groups of TestAggregate: three groups plus an empty fourth one.
func TestAggregateStats(t *testing.T) {
	ids := i32s(0, 1, 0, 2, 1, 0)
	const groups = 4
	quietSNaN := math.Float64frombits(0x7ff8000000000001)
	quietPay := payNaN // already quiet
	q := func(x float64) Agg { return Agg{Fn: plan.FuncQuantile, Q: x, Ddof: 1} }
	variance := func(fn plan.Func, ddof int64) Agg { return Agg{Fn: fn, Q: 0.5, Ddof: ddof} }
	cases := []struct {
		name   string
		agg    Agg
		dt     arrow.DataType
		arg    []any
		wantDT arrow.DataType
		want   []any
	}{
		{"median int", Plain(plan.FuncMedian), tI64, []any{1, 5, 3, nil, 2, 2}, tF64, []any{2.0, 3.5, nil, nil}},
		{"median int32", Plain(plan.FuncMedian), tI32, []any{-1, 5, -3, 9, 2, 2}, tF64, []any{-1.0, 3.5, 9.0, nil}},
		{"median nan sorts last", Plain(plan.FuncMedian), tF64, []any{1.0, qNaN, payNaN, 3.0, negZero, nil}, tF64, []any{quietPay, quietSNaN, 3.0, nil}},
		{"median zeros and infs", Plain(plan.FuncMedian), tF64, []any{negZero, posInf, 0.0, 1.0, negInf, nil}, tF64, []any{0.0, hwNaN, 1.0, nil}},
		{"median of a lone nan keeps its bits", Plain(plan.FuncMedian), tF64, []any{sNaN, nil, nil, negZero, nil, nil}, tF64, []any{sNaN, nil, negZero, nil}},
		{"median nan picked, not interpolated", Plain(plan.FuncMedian), tF64, []any{1.0, nil, sNaN, nil, nil, 3.0}, tF64, []any{3.0, nil, nil, nil}},
		{"median no overflow", Plain(plan.FuncMedian), tF64, []any{1e308, 1.5e308, nil, nil, 1e308, nil}, tF64, []any{1e308, 1.25e308, nil, nil}},
		{"quantile 0.25", q(0.25), tI64, []any{10, 1, 20, 7, 2, 30}, tF64, []any{15.0, 1.25, 7.0, nil}},
		{"quantile 0", q(0), tI64, []any{10, 1, 20, 7, 2, 30}, tF64, []any{10.0, 1.0, 7.0, nil}},
		{"quantile 1", q(1), tI64, []any{10, 1, 20, 7, 2, 30}, tF64, []any{30.0, 2.0, 7.0, nil}},
		{"quantile 1 picks the last nan in row order", q(1), tF64, []any{sNaN, posInf, payNaN, nil, nil, 2.0}, tF64, []any{payNaN, posInf, nil, nil}},
		{"quantile 0.5 picks the first nan", q(0.5), tF64, []any{sNaN, posInf, payNaN, nil, nil, 2.0}, tF64, []any{sNaN, posInf, nil, nil}},
		{"var ddof 1", Plain(plan.FuncVar), tI64, []any{1, 5, 3, nil, 2, 2}, tF64, []any{1.0, 4.5, nil, nil}},
		{"var ddof 0", variance(plan.FuncVar, 0), tI64, []any{1, 5, 3, nil, 2, 2}, tF64, []any{2.0 / 3, 2.25, nil, nil}},
		{"var one value ddof 1 is null", Plain(plan.FuncVar), tI32, []any{1, 5, 3, 7, 2, 2}, tF64, []any{1.0, 4.5, nil, nil}},
		{"var one value ddof 0 is 0", variance(plan.FuncVar, 0), tI32, []any{1, 5, 3, 7, 2, 2}, tF64, []any{2.0 / 3, 2.25, 0.0, nil}},
		{"var ddof 3 needs 4 values", variance(plan.FuncVar, 3), tI32, []any{1, 5, 3, 7, 2, 2}, tF64, []any{nil, nil, nil, nil}},
		{"var inf and nan", Plain(plan.FuncVar), tF64, []any{1.0, posInf, 2.0, 3.0, 4.0, 6.0}, tF64, []any{7.0, hwNaN, nil, nil}},
		{"var nan payload", Plain(plan.FuncVar), tF64, []any{1.0, sNaN, 2.0, 3.0, 4.0, 6.0}, tF64, []any{7.0, quietSNaN, nil, nil}},
		{"var of equal values is +0", Plain(plan.FuncVar), tF64, []any{negZero, 1e300, negZero, nil, 1e300, negZero}, tF64, []any{0.0, 0.0, nil, nil}},
		{"var overflows to inf", Plain(plan.FuncVar), tF64, []any{-1e300, nil, 1e300, nil, nil, 0.0}, tF64, []any{posInf, nil, nil, nil}},
		{"std", Plain(plan.FuncStd), tI64, []any{1, 5, 3, nil, 2, 2}, tF64, []any{1.0, math.Sqrt(4.5), nil, nil}},
		{"std ddof 0 nan", variance(plan.FuncStd, 0), tF64, []any{1.0, sNaN, 1.0, 4.0, nil, 1.0}, tF64, []any{0.0, quietSNaN, 0.0, nil}},
		{"any", Plain(plan.FuncAny), tBool, []any{true, nil, false, nil, false, nil}, tBool, []any{true, false, false, false}},
		{"all", Plain(plan.FuncAll), tBool, []any{true, nil, false, nil, true, nil}, tBool, []any{false, true, true, true}},
		{"all true", Plain(plan.FuncAll), tBool, []any{true, false, true, true, true, true}, tBool, []any{true, false, true, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			arg := build(t, mem, tc.dt, tc.arg...)
			defer arg.Release()
			for _, p := range []Parallel{{}, {Workers: 3, MinRows: 1}} {
				out, err := AggregateParallel(mem, tc.agg, "agg", arg, ids, groups, p)
				if err != nil {
					t.Fatal(err)
				}
				checkArray(t, out)
				if !arrow.TypeEqual(out.DataType(), tc.wantDT) {
					t.Fatalf("type %s, want %s", out.DataType(), tc.wantDT)
				}
				if got, want := cellsOf(out), expectCells(tc.wantDT, tc.want...); !slices.Equal(got, want) {
					t.Errorf("%+v: got %v, want %v", p, got, want)
				}
				out.Release()
			}
		})
	}
}

// TestSelectKth: the selection returns the k-th key of the sorted keys and
// leaves no smaller key after position k, for random keys with many
// duplicates, sorted, reversed and constant inputs (which would make a
// naive quickselect quadratic) of several sizes, at every k of the small
// ones and at a spread of k for the large ones.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	inputs := map[string]func(n int) []uint64{
		"random": func(n int) []uint64 {
			out := make([]uint64, n)
			for i := range out {
				out[i] = r.Uint64()
			}
			return out
		},
		"few distinct": func(n int) []uint64 {
			out := make([]uint64, n)
			for i := range out {
				out[i] = uint64(r.Intn(3))
			}
			return out
		},
		"sorted": func(n int) []uint64 {
			out := make([]uint64, n)
			for i := range out {
				out[i] = uint64(i)
			}
			return out
		},
		"reversed": func(n int) []uint64 {
			out := make([]uint64, n)
			for i := range out {
				out[i] = uint64(n - i)
			}
			return out
		},
		"constant": func(n int) []uint64 { return make([]uint64, n) },
		"organ pipe": func(n int) []uint64 {
			out := make([]uint64, n)
			for i := range out {
				out[i] = uint64(min(i, n-i))
			}
			return out
		},
	}
	for name, gen := range inputs {
		for _, n := range []int{1, 2, 3, 5, 17, 100, 5000} {
			keys := gen(n)
			sorted := slices.Clone(keys)
			slices.Sort(sorted)
			ks := []int{0, n / 3, n / 2, n - 1}
			if n <= 100 {
				ks = ks[:0]
				for k := 0; k < n; k++ {
					ks = append(ks, k)
				}
			}
			for _, k := range ks {
				a := slices.Clone(keys)
				if got := selectKth(a, k); got != sorted[k] {
					t.Fatalf("%s n=%d k=%d: got %d, want %d", name, n, k, got, sorted[k])
				}
				if k+1 < n && slices.Min(a[k+1:]) != sorted[k+1] {
					t.Fatalf("%s n=%d k=%d: smallest key after k is %d, want %d", name, n, k, slices.Min(a[k+1:]), sorted[k+1])
				}
				if slices.Sort(a); !slices.Equal(a, sorted) {
					t.Fatalf("%s n=%d k=%d: the keys changed", name, n, k)
				}
			}
		}
	}
}

// TestPropMedianIsQuantileHalf: median is quantile(0.5), quantile(0) is
// min and quantile(1) is max, bit for bit.
func TestPropMedianIsQuantileHalf(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	props.Property("median == quantile(0.5), quantile(0) == min, quantile(1) == max", prop.ForAll(func(c aggCase, q float64) string {
		if !takes(plan.FuncMedian, c.arg.dt) {
			return ""
		}
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		key, arg := c.key.array(t, mem), c.arg.array(t, mem)
		defer key.Release()
		defer arg.Release()
		ids, first, err := GroupIDs([]arrow.Array{key})
		if err != nil {
			return err.Error()
		}
		run := func(a Agg) []float64 {
			out, err := Aggregate(mem, a, "agg", arg, ids, len(first))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			vals := slices.Clone(out.(*array.Float64).Float64Values())
			for g := range vals {
				if out.IsNull(g) {
					vals[g] = 0
				}
			}
			return vals
		}
		med, half := run(Plain(plan.FuncMedian)), run(Agg{Fn: plan.FuncQuantile, Q: 0.5})
		for g := range med {
			if math.Float64bits(med[g]) != math.Float64bits(half[g]) {
				return fmt.Sprintf("group %d: median %v, quantile(0.5) %v", g, med[g], half[g])
			}
		}
		// quantile(0) is min and quantile(1) is max, converted to float64
		// (max up to the payload of a NaN: max keeps the first, quantile(1)
		// picks the last in row order).
		minMax := func(fn plan.Func) []float64 {
			out, err := Aggregate(mem, Plain(fn), "agg", arg, ids, len(first))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			vals := make([]float64, out.Len())
			for g := range vals {
				switch a := out.(type) {
				case *array.Float64:
					vals[g] = a.Value(g)
				case *array.Int64:
					vals[g] = float64(a.Value(g))
				case *array.Int32:
					vals[g] = float64(a.Value(g))
				}
				if out.IsNull(g) {
					vals[g] = 0
				}
			}
			return vals
		}
		lo, hi := run(Agg{Fn: plan.FuncQuantile, Q: 0}), run(Agg{Fn: plan.FuncQuantile, Q: 1})
		mn, mx := minMax(plan.FuncMin), minMax(plan.FuncMax)
		for g := range lo {
			if math.Float64bits(lo[g]) != math.Float64bits(mn[g]) {
				return fmt.Sprintf("group %d: quantile(0) %v, min %v", g, lo[g], mn[g])
			}
			if math.Float64bits(hi[g]) != math.Float64bits(mx[g]) && !(hi[g] != hi[g] && mx[g] != mx[g]) {
				return fmt.Sprintf("group %d: quantile(1) %v, max %v", g, hi[g], mx[g])
			}
		}
		run(Agg{Fn: plan.FuncQuantile, Q: q}) // any q in [0, 1] runs
		return ""
	}, genAggCase(), gen.Float64Range(0, 1)))
	props.TestingRun(t)
}

// TestPropVarNonNegative: var is >= +0.0 (never -0.0) or NaN, and var
// with ddof 0 of a group is null exactly when the group has no value.
func TestPropVarNonNegative(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	props.Property("var >= +0 or NaN", prop.ForAll(func(c aggCase, ddof int64) string {
		if !takes(plan.FuncVar, c.arg.dt) {
			return ""
		}
		mem := newMem(t)
		defer mem.AssertSize(t, 0)
		key, arg := c.key.array(t, mem), c.arg.array(t, mem)
		defer key.Release()
		defer arg.Release()
		ids, first, err := GroupIDs([]arrow.Array{key})
		if err != nil {
			return err.Error()
		}
		out, err := Aggregate(mem, Agg{Fn: plan.FuncVar, Ddof: ddof}, "agg", arg, ids, len(first))
		if err != nil {
			return err.Error()
		}
		defer out.Release()
		cnt, err := Aggregate(mem, Plain(plan.FuncCount), "agg", arg, ids, len(first))
		if err != nil {
			return err.Error()
		}
		defer cnt.Release()
		for g, v := range out.(*array.Float64).Float64Values() {
			n := cnt.(*array.Int64).Value(g)
			if out.IsNull(g) != (n <= ddof) {
				return fmt.Sprintf("group %d: %d values, ddof %d, null %v", g, n, ddof, out.IsNull(g))
			}
			if !out.IsNull(g) && v == v && (v < 0 || math.Signbit(v)) {
				return fmt.Sprintf("group %d: var %v", g, v)
			}
		}
		return ""
	}, genAggCase(), gen.Int64Range(0, 3)))
	props.TestingRun(t)
}
