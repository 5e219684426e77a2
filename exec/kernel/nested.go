package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// The list and struct functions (docs/semantics.md, Lists and structs).
// Their first operand is always an array: lists and structs come from
// columns only (a nested literal does not type).

// nestedCall evaluates list.len, list.get, list.contains, list.sum,
// list.min, list.max and struct.field.
func (x *evalCtx) nestedCall(e *plan.Call, in *input, args []datum) (datum, error) {
	rt, _ := x.analyze(e)
	if args[0].isScalar() {
		if args[0].isNullScalar() {
			return nullDatum(rt), nil
		}
		return datum{}, internalError(e, "a non-null list or struct scalar")
	}
	if e.Fn == plan.FuncStructField {
		return x.structField(e, rt, args[0])
	}
	l, ok := args[0].arr.(*array.List)
	if !ok {
		return datum{}, internalError(e, fmt.Sprintf("%s of a %T", e.Fn, args[0].arr))
	}
	lv := viewOf(args[0])
	el := args[0].typ.Elem()
	child := l.ListValues()
	cv := viewOf(arrayDatum(el, child))
	n := l.Len()
	switch e.Fn {
	case plan.FuncListLen:
		buf, out := newFixed[int64](x.mem, n)
		for i := range out {
			lo, hi := l.ValueOffsets(i)
			out[i] = hi - lo
		}
		return freshDatum(plan.Int64, makeArray(plan.Int64, n, lv.nulls, shareValidity(x.mem, &lv), buf)), nil
	case plan.FuncListGet:
		iv := viewOf(args[1])
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = -1
			j := i
			if iv.scalar {
				j = 0
			}
			if !lv.isValid(i) || !iv.isValid(j) {
				continue
			}
			var p int64
			if iv.i32 != nil {
				p = int64(iv.i32[j])
			} else {
				p = iv.i64[j]
			}
			lo, hi := l.ValueOffsets(i)
			if p < 0 {
				p += hi - lo
			}
			if p >= 0 && p < hi-lo {
				idx[i] = int32(lo + p)
			}
		}
		return x.takeOrNull(el, &cv, idx)
	case plan.FuncListMin, plan.FuncListMax:
		less := orderFunc(&cv)
		wantMax := e.Fn == plan.FuncListMax
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = -1
			if !lv.isValid(i) {
				continue
			}
			lo, hi := l.ValueOffsets(i)
			for k := int(lo); k < int(hi); k++ {
				if !cv.isValid(k) {
					continue
				}
				b := int(idx[i])
				if b < 0 || (!wantMax && less(k, b)) || (wantMax && less(b, k)) {
					idx[i] = int32(k)
				}
			}
		}
		return x.takeOrNull(el, &cv, idx)
	case plan.FuncListContains:
		if c := containsType(el, args[1].typ); c != el || c != args[1].typ {
			// The narrower numbers compare as int64, uint64 or float64
			// values: exactly the promoted type's equality.
			pc := x.promoted(arrayDatum(el, child), c)
			defer pc.release()
			px := x.promoted(args[1], c)
			defer px.release()
			pcv := viewOf(pc)
			return x.listContains(l, &lv, &pcv, px)
		}
		return x.listContains(l, &lv, &cv, args[1])
	case plan.FuncListSum:
		switch el {
		case plan.Int32, plan.Int64, plan.Float64:
			return x.listSum(e, in, l, &lv, &cv)
		case plan.Uint64:
			return x.listSumUint64(e, in, l, &lv, &cv)
		}
		// int8, int16, uint8..uint32 add as int64, float32 as float64.
		wide := plan.Int64
		if el == plan.Float32 {
			wide = plan.Float64
		}
		pc := x.promoted(arrayDatum(el, child), wide)
		defer pc.release()
		pcv := viewOf(pc)
		return x.listSum(e, in, l, &lv, &pcv)
	}
	return datum{}, internalError(e, "not a list function")
}

// containsType is the type list.contains compares a list<el> element and
// an x of type xt in: float64 when their promoted type is a float, uint64
// when it is uint64, int64 for the other integers (each conversion exact
// or, for an integer meeting a float, the promotion's own), and the
// common type itself for the other types.
func containsType(el, xt plan.Type) plan.Type {
	p := el
	if el != xt {
		var ok bool
		if p, ok = plan.Promote(el, xt); !ok {
			return el
		}
	}
	switch {
	case p == plan.Uint64:
		return plan.Uint64
	case p.IsFloat():
		return plan.Float64
	case p.IsInteger() && p.Physical() != plan.Int32:
		return plan.Int64
	}
	return p
}

// takeOrNull gathers rows idx of a scalar-typed child view, -1 giving null.
func (x *evalCtx) takeOrNull(t plan.Type, cv *view, idx []int32) (datum, error) {
	n := len(idx)
	if cv.n == 0 {
		a, err := broadcast(x.mem, plan.NullValue(t), t, n)
		if err != nil {
			return datum{}, err
		}
		return freshDatum(t, a), nil
	}
	mask := make([]byte, (n+7)/8)
	any := false
	safe := make([]int32, n)
	for i, j := range idx {
		if j < 0 {
			any = true
			continue
		}
		safe[i] = j
		mask[i/8] |= 1 << (i % 8)
	}
	a, err := take(x.mem, t, cv, safe)
	if err != nil {
		return datum{}, err
	}
	if any {
		m := maskColumn(x.mem, a, mask)
		a.Release()
		a = m
	}
	return freshDatum(t, a), nil
}

// orderFunc returns a strict "less" over rows of a scalar-typed view in
// the order min and max use: floats by the total order (-Inf < ... < -0.0
// < +0.0 < ... < +Inf < NaN, every NaN equal), strings by bytes, false
// before true, integers and temporal values by their integers.
func orderFunc(v *view) func(a, b int) bool {
	switch {
	case v.f64 != nil:
		return func(a, b int) bool { return totalKey(v.f64[a]) < totalKey(v.f64[b]) }
	case v.i32 != nil:
		return func(a, b int) bool { return v.i32[a] < v.i32[b] }
	case v.i64 != nil:
		return func(a, b int) bool { return v.i64[a] < v.i64[b] }
	case v.i8 != nil:
		return func(a, b int) bool { return v.i8[a] < v.i8[b] }
	case v.i16 != nil:
		return func(a, b int) bool { return v.i16[a] < v.i16[b] }
	case v.u8 != nil:
		return func(a, b int) bool { return v.u8[a] < v.u8[b] }
	case v.u16 != nil:
		return func(a, b int) bool { return v.u16[a] < v.u16[b] }
	case v.u32 != nil:
		return func(a, b int) bool { return v.u32[a] < v.u32[b] }
	case v.u64 != nil:
		return func(a, b int) bool { return v.u64[a] < v.u64[b] }
	case v.f32 != nil:
		return func(a, b int) bool { return totalKey(float64(v.f32[a])) < totalKey(float64(v.f32[b])) }
	case v.typ == plan.String:
		return func(a, b int) bool { return v.str(a) < v.str(b) }
	case v.typ == plan.Bool:
		return func(a, b int) bool { return !v.boolAt(a) && v.boolAt(b) }
	}
	return func(a, b int) bool { return false }
}

// totalKey maps a float to an unsigned key in the total order, every NaN
// to the largest key.
func totalKey(f float64) uint64 {
	if f != f {
		return math.MaxUint64
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// listContains evaluates list.contains(l, x): null for a null l or x,
// else whether a non-null element equals x as eq decides.
func (x *evalCtx) listContains(l *array.List, lv, cv *view, xd datum) (datum, error) {
	xv := viewOf(xd)
	n := l.Len()
	var eq func(k, j int) bool
	switch {
	case cv.typ == plan.Float64 || xv.typ == plan.Float64:
		eq = func(k, j int) bool { return floatAt(cv, k) == floatAt(&xv, j) }
	case cv.typ == plan.Uint64:
		eq = func(k, j int) bool { return cv.u64[k] == xv.u64[rowAt(&xv, j)] }
	case cv.typ == plan.String:
		eq = func(k, j int) bool { return cv.str(k) == xv.str(j) }
	case cv.typ == plan.Bool:
		eq = func(k, j int) bool { return cv.boolAt(k) == xv.boolAt(j) }
	default:
		eq = func(k, j int) bool { return intAt(cv, k) == intAt(&xv, j) }
	}
	vbuf, valid := newBitmap(x.mem, n)
	buf, out := newBitmap(x.mem, n)
	nulls := 0
	for i := 0; i < n; i++ {
		j := i
		if xv.scalar {
			j = 0
		}
		if !lv.isValid(i) || !xv.isValid(j) {
			nulls++
			continue
		}
		valid[i/8] |= 1 << (i % 8)
		lo, hi := l.ValueOffsets(i)
		for k := int(lo); k < int(hi); k++ {
			if cv.isValid(k) && eq(k, j) {
				out[i/8] |= 1 << (i % 8)
				break
			}
		}
	}
	if nulls == 0 {
		vbuf.Release()
		vbuf = nil
	}
	return freshDatum(plan.Bool, makeArray(plan.Bool, n, nulls, vbuf, buf)), nil
}

// floatAt reads row i of a numeric view as a float64 (an integer
// promoted to the nearest float64).
func floatAt(v *view, i int) float64 {
	if v.scalar {
		i = 0
	}
	if v.f64 != nil {
		return v.f64[i]
	}
	return float64(intAt(v, i))
}

// listSum evaluates list.sum: int32 and int64 elements add exactly into
// an int64 (overflow when the exact total does not fit), float64
// elements sequentially from the first non-null one; null when a list
// has no non-null element.
func (x *evalCtx) listSum(e *plan.Call, in *input, l *array.List, lv, cv *view) (datum, error) {
	n := l.Len()
	vbuf, valid := newBitmap(x.mem, n)
	nulls := 0
	isFloat := cv.typ == plan.Float64
	rt := plan.Int64
	if isFloat {
		rt = plan.Float64
	}
	var vals *memory.Buffer
	var outI []int64
	var outF []float64
	if isFloat {
		vals, outF = newFixed[float64](x.mem, n)
	} else {
		vals, outI = newFixed[int64](x.mem, n)
	}
	for i := 0; i < n; i++ {
		if !lv.isValid(i) {
			nulls++
			continue
		}
		lo, hi := l.ValueOffsets(i)
		seen := false
		if isFloat {
			var s float64
			for k := int(lo); k < int(hi); k++ {
				if !cv.isValid(k) {
					continue
				}
				if !seen {
					s, seen = cv.f64[k], true
				} else {
					s += cv.f64[k]
				}
			}
			outF[i] = s
		} else {
			var shi int64
			var slo uint64
			for k := int(lo); k < int(hi); k++ {
				if !cv.isValid(k) {
					continue
				}
				v := intAt(cv, k)
				var c uint64
				slo, c = bits.Add64(slo, uint64(v), 0)
				shi += v>>63 + int64(c)
				seen = true
			}
			if seen && shi != int64(slo)>>63 {
				vals.Release()
				vbuf.Release()
				return datum{}, x.fail(plan.Overflow, e, in, i, fmt.Sprintf("list.sum of %d elements overflows int64", hi-lo), nil)
			}
			outI[i] = int64(slo)
		}
		if !seen {
			nulls++
			continue
		}
		valid[i/8] |= 1 << (i % 8)
	}
	if nulls == 0 {
		vbuf.Release()
		vbuf = nil
	}
	return freshDatum(rt, makeArray(rt, n, nulls, vbuf, vals)), nil
}

// listSumUint64 evaluates list.sum of a list<uint64>: the exact total
// as uint64, overflow when it passes 2^64 - 1; null when a list has no
// non-null element.
func (x *evalCtx) listSumUint64(e *plan.Call, in *input, l *array.List, lv, cv *view) (datum, error) {
	n := l.Len()
	vbuf, valid := newBitmap(x.mem, n)
	vals, out := newFixed[uint64](x.mem, n)
	nulls := 0
	for i := 0; i < n; i++ {
		if !lv.isValid(i) {
			nulls++
			continue
		}
		lo, hi := l.ValueOffsets(i)
		seen := false
		var s, carry uint64
		for k := int(lo); k < int(hi); k++ {
			if !cv.isValid(k) {
				continue
			}
			var c uint64
			s, c = bits.Add64(s, cv.u64[k], 0)
			carry |= c
			seen = true
		}
		if carry != 0 {
			vals.Release()
			vbuf.Release()
			return datum{}, x.fail(plan.Overflow, e, in, i, fmt.Sprintf("list.sum of %d elements overflows uint64", hi-lo), nil)
		}
		out[i] = s
		if !seen {
			nulls++
			continue
		}
		valid[i/8] |= 1 << (i % 8)
	}
	if nulls == 0 {
		vbuf.Release()
		vbuf = nil
	}
	return freshDatum(plan.Uint64, makeArray(plan.Uint64, n, nulls, vbuf, vals)), nil
}

// structField evaluates struct.field(s, name): the field's array, null
// where the struct is null.
func (x *evalCtx) structField(e *plan.Call, rt plan.Type, sd datum) (datum, error) {
	st, ok := sd.arr.(*array.Struct)
	if !ok {
		return datum{}, internalError(e, fmt.Sprintf("struct.field of a %T", sd.arr))
	}
	name, err := plan.StructFieldName(e)
	if err != nil {
		return datum{}, err
	}
	fi := sd.typ.FieldIndex(name)
	if fi < 0 {
		return datum{}, internalError(e, "no such field")
	}
	child := st.Field(fi)
	if st.NullN() == 0 {
		child.Retain()
		return arrayDatum(rt, child), nil
	}
	mask := alignedBits(st.NullBitmapBytes(), st.Data().Offset(), st.Len())
	return freshDatum(rt, maskColumn(x.mem, child, mask)), nil
}
