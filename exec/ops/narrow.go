package ops

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// The narrower numeric types (int8, int16, the unsigned integers and
// float32; docs/semantics.md, Numeric types) in the operators: keys and
// sort words are computed from their values directly, and the aggregates
// run the int64 and float64 kernels over a widened copy of the argument
// (exactly the values the semantics converts them to), narrowing min and
// max back to the operand's type. Only a uint64 sum has a kernel of its
// own (its result is uint64).

// isNarrowArray reports whether a holds one of the narrower numeric types.
func isNarrowArray(a arrow.Array) bool {
	if a == nil {
		return false
	}
	switch a.DataType().ID() {
	case arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32:
		return true
	}
	return false
}

// narrowInts returns the values of a narrower integer array as int64
// words: the value itself, and for uint64 its bits (a bijection, so key
// equality holds; values beyond MaxInt64 become negative words no other
// integer type produces). ok is false for float32 and other arrays.
func narrowInts(a arrow.Array) (words []int64, ok bool) {
	switch a := a.(type) {
	case *array.Int8:
		return widenInts(a.Int8Values()), true
	case *array.Int16:
		return widenInts(a.Int16Values()), true
	case *array.Uint8:
		return widenInts(a.Uint8Values()), true
	case *array.Uint16:
		return widenInts(a.Uint16Values()), true
	case *array.Uint32:
		return widenInts(a.Uint32Values()), true
	case *array.Uint64:
		return widenInts(a.Uint64Values()), true
	}
	return nil, false
}

func widenInts[T int8 | int16 | uint8 | uint16 | uint32 | uint64](vs []T) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// narrowFloats returns the values of a narrower numeric array as float64
// (integers to the nearest, float32 exactly with its NaN bits).
func narrowFloats(a arrow.Array) ([]float64, bool) {
	switch a := a.(type) {
	case *array.Float32:
		out := make([]float64, a.Len())
		for i, v := range a.Float32Values() {
			out[i] = ieee.Widen32(v)
		}
		return out, true
	case *array.Uint64:
		out := make([]float64, a.Len())
		for i, v := range a.Uint64Values() {
			out[i] = float64(v)
		}
		return out, true
	}
	if w, ok := narrowInts(a); ok {
		out := make([]float64, len(w))
		for i, v := range w {
			out[i] = float64(v)
		}
		return out, true
	}
	return nil, false
}

// narrowKeyWords is newKeyCol's words for a narrower array in domain dom.
func narrowKeyWords(a arrow.Array, dom domain) ([]int64, bool) {
	switch dom {
	case domInt:
		return narrowInts(a)
	case domFloat:
		f, ok := narrowFloats(a)
		if !ok {
			return nil, false
		}
		words := make([]int64, len(f))
		for i, v := range f {
			words[i] = floatWord(v)
		}
		return words, true
	}
	return nil, false
}

// narrowSortWords is sortCol.fill's words for a narrower array: unsigned
// integers by value, signed ones biased, float32 by the float total order.
func narrowSortWords(a arrow.Array, flip uint64) ([]uint64, bool) {
	var words []uint64
	switch a := a.(type) {
	case *array.Uint64:
		words = make([]uint64, a.Len())
		for i, v := range a.Uint64Values() {
			words[i] = v ^ flip
		}
	case *array.Float32:
		words = make([]uint64, a.Len())
		for i, v := range a.Float32Values() {
			words[i] = floatSortKey(ieee.Widen32(v)) ^ flip
		}
	default:
		w, ok := narrowInts(a)
		if !ok {
			return nil, false
		}
		words = make([]uint64, len(w))
		for i, v := range w {
			words[i] = (uint64(v) ^ 1<<63) ^ flip
		}
	}
	return words, true
}

// narrowAggregate runs aggregate fn over a narrower argument. ok is false
// when fn does not look at values (count, first, last: those serve every
// type as they are).
func narrowAggregate(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, ids []int32, groups int) (arrow.Array, bool, error) {
	fn := agg.Fn
	switch fn {
	case plan.FuncSum, plan.FuncMean, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd, plan.FuncMin, plan.FuncMax:
	default:
		return nil, false, nil
	}
	id := arg.DataType().ID()
	if fn == plan.FuncSum && id == arrow.UINT64 {
		out, err := sumUint64(mem, exprText, arg.(*array.Uint64), ids, groups)
		return out, true, err
	}
	minMax := fn == plan.FuncMin || fn == plan.FuncMax
	// The widened argument: int64 for the integers (uint64 biased for min
	// and max, as float64 for the float reductions), float64 for float32
	// and for every integer under mean, median, quantile, var and std.
	var wide arrow.Array
	toFloat := id == arrow.FLOAT32 || !(fn == plan.FuncSum || minMax)
	switch {
	case toFloat:
		f, _ := narrowFloats(arg)
		wide = fixedArray(mem, arrow.PrimitiveTypes.Float64, f, arg)
	case id == arrow.UINT64: // min, max
		w, _ := narrowInts(arg)
		for i := range w {
			w[i] = int64(uint64(w[i]) ^ 1<<63) // unsigned order as signed
		}
		wide = fixedArray(mem, arrow.PrimitiveTypes.Int64, w, arg)
	default:
		w, _ := narrowInts(arg)
		wide = fixedArray(mem, arrow.PrimitiveTypes.Int64, w, arg)
	}
	defer wide.Release()
	out, err := aggregate(mem, agg, exprText, wide, ids, groups)
	if err != nil || !minMax {
		return out, true, err
	}
	defer out.Release()
	return narrowBack(mem, out, arg.DataType()), true, nil
}

// fixedArray builds an int64 or float64 array of vals with like's validity.
func fixedArray[T int64 | float64](mem memory.Allocator, dt arrow.DataType, vals []T, like arrow.Array) arrow.Array {
	out := newFixedOut[T](mem, len(vals))
	copy(out.vals, vals)
	var valid *bitmap
	if like.NullN() > 0 {
		valid = newBitmap(mem, len(vals))
		for i := range vals {
			if like.IsValid(i) {
				valid.set(i)
			}
		}
	}
	return out.finish(dt, valid)
}

// narrowBack converts a min or max over a widened argument back to the
// argument's type dt: the values are the argument's own, so every
// conversion is exact (float32 by its bits, uint64 unbiased).
func narrowBack(mem memory.Allocator, wide arrow.Array, dt arrow.DataType) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	n := wide.Len()
	for i := 0; i < n; i++ {
		if wide.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch w := wide.(type) {
		case *array.Float64:
			b.(*array.Float32Builder).Append(unwiden(w.Value(i)))
		case *array.Int64:
			v := w.Value(i)
			switch b := b.(type) {
			case *array.Int8Builder:
				b.Append(int8(v))
			case *array.Int16Builder:
				b.Append(int16(v))
			case *array.Uint8Builder:
				b.Append(uint8(v))
			case *array.Uint16Builder:
				b.Append(uint16(v))
			case *array.Uint32Builder:
				b.Append(uint32(v))
			case *array.Uint64Builder:
				b.Append(uint64(v) ^ 1<<63)
			}
		}
	}
	return b.NewArray()
}

// unwiden is the exact inverse of ieee.Widen32 on the values it returns.
func unwiden(f float64) float32 {
	if f == f {
		return float32(f)
	}
	b := math.Float64bits(f)
	return math.Float32frombits(uint32(b>>63)<<31 | 0x7f800000 | uint32(b>>29)&0x7fffff)
}

// sumUint64 is the exact uint64 sum: a 128-bit total per group, one range
// check at the end (docs/semantics.md, Aggregates: overflow past 2^64 - 1
// whatever the order of the rows).
func sumUint64(mem memory.Allocator, exprText string, a *array.Uint64, ids []int32, groups int) (arrow.Array, error) {
	out := newFixedOut[uint64](mem, groups)
	hi := make([]uint64, groups)
	has := make([]bool, groups)
	v := validityOf(a)
	vals := a.Uint64Values()
	for i, g := range ids {
		if !v.valid(i) {
			continue
		}
		var carry uint64
		out.vals[g], carry = bits.Add64(out.vals[g], vals[i], 0)
		hi[g] += carry
		has[g] = true
	}
	for g := range hi {
		if hi[g] != 0 {
			out.buf.Release()
			return nil, sumError(exprText, ids, g)
		}
	}
	return out.finish(arrow.PrimitiveTypes.Uint64, hasBitmap(mem, has)), nil
}

// narrowTake is Take for the narrower numeric types.
func narrowTake(mem memory.Allocator, arr arrow.Array, idx []int32, p Parallel) (arrow.Array, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return takeFixed(mem, a, a.Int8Values(), idx, p)
	case *array.Int16:
		return takeFixed(mem, a, a.Int16Values(), idx, p)
	case *array.Uint8:
		return takeFixed(mem, a, a.Uint8Values(), idx, p)
	case *array.Uint16:
		return takeFixed(mem, a, a.Uint16Values(), idx, p)
	case *array.Uint32:
		return takeFixed(mem, a, a.Uint32Values(), idx, p)
	case *array.Uint64:
		return takeFixed(mem, a, a.Uint64Values(), idx, p)
	case *array.Float32:
		return takeFixed(mem, a, a.Float32Values(), idx, p)
	}
	return nil, fmt.Errorf("take: unsupported array type %s", typeName(arr))
}

// zeroNullsNarrow is zeroNulls for the narrower numeric types: a copy of
// a with each null replaced by 0 (ok false for other arrays).
func zeroNullsNarrow(mem memory.Allocator, a arrow.Array) (arrow.Array, bool) {
	if !isNarrowArray(a) {
		return nil, false
	}
	b := array.NewBuilder(mem, a.DataType())
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		null := a.IsNull(i)
		switch a := a.(type) {
		case *array.Int8:
			b.(*array.Int8Builder).Append(pick(null, a.Value(i)))
		case *array.Int16:
			b.(*array.Int16Builder).Append(pick(null, a.Value(i)))
		case *array.Uint8:
			b.(*array.Uint8Builder).Append(pick(null, a.Value(i)))
		case *array.Uint16:
			b.(*array.Uint16Builder).Append(pick(null, a.Value(i)))
		case *array.Uint32:
			b.(*array.Uint32Builder).Append(pick(null, a.Value(i)))
		case *array.Uint64:
			b.(*array.Uint64Builder).Append(pick(null, a.Value(i)))
		case *array.Float32:
			b.(*array.Float32Builder).Append(pick(null, a.Value(i)))
		}
	}
	return b.NewArray(), true
}

// pick is 0 for a null row, else x.
func pick[T fixedWidth](null bool, x T) T {
	if null {
		return 0
	}
	return x
}
