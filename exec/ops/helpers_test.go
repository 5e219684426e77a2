package ops

import (
	"fmt"
	"github.com/dfopt/dfopt/plan"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
)

// Test data is written as Go values: nil is a null, and the column type is
// given explicitly so that an all-null column still has one.

// Float edge values with distinct bits.
var (
	qNaN     = math.Float64frombits(0x7ff8000000000001) // Go's math.NaN()
	hwNaN    = math.Float64frombits(0xfff8000000000000) // negative quiet NaN (x86 0/0)
	sNaN     = math.Float64frombits(0x7ff0000000000001) // signaling payload
	payNaN   = math.Float64frombits(0x7ff80000deadbeef)
	negZero  = math.Copysign(0, -1)
	posInf   = math.Inf(1)
	negInf   = math.Inf(-1)
	minInt64 = int64(math.MinInt64)
	maxInt64 = int64(math.MaxInt64)
)

// newMem returns a checked allocator that fails t if anything leaks.
func newMem(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// build makes an array of type dt from Go values (nil = null).
func build(t testing.TB, mem memory.Allocator, dt arrow.DataType, vals ...any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		ok := true
		switch b := b.(type) {
		case *array.Int64Builder:
			switch v := v.(type) {
			case int:
				b.Append(int64(v))
			case int64:
				b.Append(v)
			default:
				ok = false
			}
		case *array.Int32Builder:
			switch v := v.(type) {
			case int:
				b.Append(int32(v))
			case int32:
				b.Append(v)
			default:
				ok = false
			}
		case *array.Float64Builder:
			switch v := v.(type) {
			case float64:
				b.Append(v)
			case int:
				b.Append(float64(v))
			default:
				ok = false
			}
		case *array.StringBuilder:
			s, isStr := v.(string)
			ok = isStr
			b.Append(s)
		case *array.BooleanBuilder:
			x, isBool := v.(bool)
			ok = isBool
			b.Append(x)
		}
		if !ok {
			t.Fatalf("value %d (%T) does not fit %s", i, v, dt)
		}
	}
	return b.NewArray()
}

var (
	tI64  = arrow.PrimitiveTypes.Int64
	tI32  = arrow.PrimitiveTypes.Int32
	tF64  = arrow.PrimitiveTypes.Float64
	tStr  = arrow.BinaryTypes.String
	tBool = arrow.FixedWidthTypes.Boolean
)

// cellsOf reads an array back as Go values (nil = null), floats as their
// bits so comparisons are bitwise.
func cellsOf(a arrow.Array) []any {
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) {
			continue
		}
		switch a := a.(type) {
		case *array.Int64:
			out[i] = a.Value(i)
		case *array.Int32:
			out[i] = a.Value(i)
		case *array.Float64:
			out[i] = fbits(math.Float64bits(a.Value(i)))
		case *array.String:
			out[i] = a.Value(i)
		case *array.Boolean:
			out[i] = a.Value(i)
		default:
			panic(fmt.Sprintf("cellsOf: %T", a))
		}
	}
	return out
}

// fbits is a float's bit pattern, printed readably.
type fbits uint64

// String shows the float and its bits.
func (f fbits) String() string {
	return fmt.Sprintf("%v(%#x)", math.Float64frombits(uint64(f)), uint64(f))
}

// fb is the expected-cell form of a float.
func fb(f float64) fbits { return fbits(math.Float64bits(f)) }

// expectCells converts expected Go values into the form cellsOf returns.
func expectCells(dt arrow.DataType, vals ...any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		switch dt.ID() {
		case arrow.INT64:
			switch v := v.(type) {
			case int:
				out[i] = int64(v)
			default:
				out[i] = v
			}
		case arrow.INT32:
			switch v := v.(type) {
			case int:
				out[i] = int32(v)
			default:
				out[i] = v
			}
		case arrow.FLOAT64:
			switch v := v.(type) {
			case float64:
				out[i] = fb(v)
			case int:
				out[i] = fb(float64(v))
			default:
				out[i] = v
			}
		default:
			out[i] = v
		}
	}
	return out
}

// i32s is shorthand for an index list.
func i32s(v ...int32) []int32 {
	if v == nil {
		return []int32{}
	}
	return v
}

// propParams returns gopter parameters with a fixed seed (overridable by
// DFOPT_SEED) and one worker, so a failure replays; gopter prints the seed.
func propParams(t *testing.T, tests int) *gopter.TestParameters {
	seed := int64(20240611)
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DFOPT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = tests
	p.Workers = 1
	t.Logf("gopter seed %d (set DFOPT_SEED to replay another)", seed)
	return p
}

// sliceArray is a zero-copy slice [i, j) of a, with a non-zero data offset.
func sliceArray(a arrow.Array, i, j int64) arrow.Array { return array.NewSlice(a, i, j) }

// checkArray checks a result's internal consistency: the null count agrees
// with the bitmap, and string offsets are valid.
func checkArray(t testing.TB, a arrow.Array) {
	t.Helper()
	nulls := 0
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			nulls++
		}
	}
	if nulls != a.NullN() {
		t.Errorf("NullN() = %d, bitmap has %d nulls", a.NullN(), nulls)
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			t.Errorf("invalid array: %v", err)
		}
	}
}

// allAggs is every aggregate function, for the tests that run each one
// (with Plain's parameters: quantile at 0.5, var and std with ddof 1).
var allAggs = []plan.Func{plan.FuncLen, plan.FuncCount, plan.FuncSum, plan.FuncMean, plan.FuncMin, plan.FuncMax,
	plan.FuncFirst, plan.FuncLast, plan.FuncNUnique, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd,
	plan.FuncAny, plan.FuncAll}

// takes reports whether the aggregate fn accepts an argument of type dt.
func takes(fn plan.Func, dt arrow.DataType) bool {
	numeric := dt.ID() == arrow.INT32 || dt.ID() == arrow.INT64 || dt.ID() == arrow.FLOAT64
	switch fn {
	case plan.FuncSum, plan.FuncMean, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd:
		return numeric
	case plan.FuncAny, plan.FuncAll:
		return dt.ID() == arrow.BOOL
	}
	return true
}
