package kernel

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// datum is an intermediate result: either an array with one value per input
// row, or a scalar that stands for the same value in every row. Keeping
// literals scalar lets "a + 1" run an array-scalar loop instead of first
// materialising a column of ones.
type datum struct {
	typ plan.Type
	arr arrow.Array // nil for a scalar; owned (one reference)
	sc  plan.Value  // the scalar when arr is nil
	// tmp marks an intermediate result whose array and values buffer
	// nothing but this datum holds, so a kernel may overwrite its values.
	tmp bool
}

func scalarDatum(v plan.Value) datum { return datum{typ: v.Type(), sc: v} }

func nullDatum(t plan.Type) datum { return scalarDatum(plan.NullValue(t)) }

func arrayDatum(t plan.Type, a arrow.Array) datum { return datum{typ: t, arr: a} }

// freshDatum is a kernel's own new result (see datum.tmp).
func freshDatum(t plan.Type, a arrow.Array) datum { return datum{typ: t, arr: a, tmp: true} }

func (d datum) isScalar() bool { return d.arr == nil }

// isNullScalar reports whether d is null in every row without looking at rows.
func (d datum) isNullScalar() bool { return d.arr == nil && d.sc.IsNull() }

func (d *datum) release() {
	if d.arr != nil {
		d.arr.Release()
		d.arr = nil
	}
}

// view is a typed, offset-resolved look at a datum's buffers, built once per
// operand so kernels index plain Go slices. A scalar is a one-row view (n = 1)
// with scalar set; kernels either special-case it or index it at 0.
type view struct {
	typ    plan.Type
	n      int
	scalar bool
	// valid is the validity bitmap from bit voff, or nil when nothing is null.
	valid []byte
	voff  int
	// vbuf is the validity buffer when it starts at bit 0, so a result with
	// the same validity can share it instead of copying.
	vbuf  *memory.Buffer
	nulls int

	i32  []int32
	i64  []int64
	f64  []float64
	i8   []int8
	i16  []int16
	u8   []uint8
	u16  []uint16
	u32  []uint32
	u64  []uint64
	f32  []float32
	bits []byte // bool values from bit boff
	boff int
	offs []int32 // string offsets (n+1, absolute into data)
	data []byte
	// nested is the array of a list or struct view (its rows are read
	// through the array; see nested.go).
	nested arrow.Array
}

// isValid reports whether row i is valid.
func (v *view) isValid(i int) bool {
	return v.valid == nil || bitAt(v.valid, v.voff, i)
}

// str returns row i of a string view.
func (v *view) str(i int) string {
	return unsafeString(v.data[v.offs[i]:v.offs[i+1]])
}

// boolAt returns the value bit of row i of a bool view.
func (v *view) boolAt(i int) bool { return bitAt(v.bits, v.boff, i) }

var (
	oneBit  = []byte{1}
	zeroBit = []byte{0}
)

// viewOf builds the view of d.
func viewOf(d datum) view {
	if d.arr == nil {
		return scalarView(d.sc, d.typ)
	}
	a := d.arr
	v := view{typ: d.typ, n: a.Len(), nulls: a.NullN()}
	if d.typ.IsNested() {
		v.nested = a
	}
	data := a.Data()
	if v.nulls > 0 {
		v.valid, v.voff = a.NullBitmapBytes(), data.Offset()
		if data.Offset() == 0 {
			v.vbuf = data.Buffers()[0]
		}
	}
	if i32, ok := Int32Values(a); ok {
		v.i32 = i32
	} else if i64, ok := Int64Values(a); ok {
		v.i64 = i64
	}
	switch a := a.(type) {
	case *array.Float64:
		v.f64 = a.Float64Values()
	case *array.Int8:
		v.i8 = a.Int8Values()
	case *array.Int16:
		v.i16 = a.Int16Values()
	case *array.Uint8:
		v.u8 = a.Uint8Values()
	case *array.Uint16:
		v.u16 = a.Uint16Values()
	case *array.Uint32:
		v.u32 = a.Uint32Values()
	case *array.Uint64:
		v.u64 = a.Uint64Values()
	case *array.Float32:
		v.f32 = a.Float32Values()
	case *array.Boolean:
		if b := data.Buffers()[1]; b != nil {
			v.bits = b.Bytes()
		}
		v.boff = data.Offset()
	case *array.String:
		v.offs = a.ValueOffsets()
		if b := data.Buffers()[2]; b != nil {
			v.data = b.Bytes()
		}
	}
	return v
}

// scalarView is the one-row view of a scalar value of type t.
func scalarView(s plan.Value, t plan.Type) view {
	v := view{typ: t, n: 1, scalar: true}
	if s.IsNull() {
		v.valid, v.nulls = zeroBit, 1
	}
	switch t.Physical() {
	case plan.Int32:
		v.i32 = []int32{int32(s.Int())}
	case plan.Int64:
		v.i64 = []int64{s.Int()}
	case plan.Float64:
		v.f64 = []float64{s.Float()}
	case plan.Int8:
		v.i8 = []int8{int8(s.Int())}
	case plan.Int16:
		v.i16 = []int16{int16(s.Int())}
	case plan.Uint8:
		v.u8 = []uint8{uint8(s.Uint())}
	case plan.Uint16:
		v.u16 = []uint16{uint16(s.Uint())}
	case plan.Uint32:
		v.u32 = []uint32{uint32(s.Uint())}
	case plan.Uint64:
		v.u64 = []uint64{s.Uint()}
	case plan.Float32:
		v.f32 = []float32{s.Float32()}
	case plan.Bool:
		if s.Bool() {
			v.bits = oneBit
		} else {
			v.bits = zeroBit
		}
	case plan.String:
		v.offs = []int32{0, int32(len(s.Str()))}
		v.data = []byte(s.Str())
	}
	return v
}

// valueAt reads row i of a view as a plan value (scalars at any i). Only the
// UDF path and scalar folding box values.
func (v *view) valueAt(i int) plan.Value {
	if v.scalar {
		i = 0
	}
	if !v.isValid(i) {
		return plan.NullValue(v.typ)
	}
	switch v.typ {
	case plan.Date:
		return plan.DateValue(v.i32[i])
	case plan.Datetime:
		return plan.DatetimeValue(v.i64[i])
	case plan.Duration:
		return plan.DurationValue(v.i64[i])
	case plan.Int32:
		return plan.Int32Value(v.i32[i])
	case plan.Int64:
		return plan.Int64Value(v.i64[i])
	case plan.Float64:
		return plan.Float64Value(v.f64[i])
	case plan.Int8:
		return plan.Int8Value(v.i8[i])
	case plan.Int16:
		return plan.Int16Value(v.i16[i])
	case plan.Uint8:
		return plan.Uint8Value(v.u8[i])
	case plan.Uint16:
		return plan.Uint16Value(v.u16[i])
	case plan.Uint32:
		return plan.Uint32Value(v.u32[i])
	case plan.Uint64:
		return plan.Uint64Value(v.u64[i])
	case plan.Float32:
		return plan.Float32Value(v.f32[i])
	case plan.Bool:
		return plan.BoolValue(v.boolAt(i))
	case plan.String:
		return plan.StringValue(string(v.data[v.offs[i]:v.offs[i+1]]))
	}
	return plan.NullValue(v.typ)
}

// broadcast materialises a scalar as an array of n rows.
func broadcast(mem memory.Allocator, s plan.Value, t plan.Type, n int) (arrow.Array, error) {
	if t == plan.String && n > 0 && len(s.Str()) > math.MaxInt32/n {
		return nil, errStringTooLong
	}
	var valid *memory.Buffer
	nulls := 0
	if s.IsNull() {
		valid, _ = newBitmap(mem, n)
		nulls = n
	}
	switch t.Physical() {
	case plan.Int32:
		buf, out := newFixed[int32](mem, n)
		fill(out, int32(s.Int()))
		return makeArray(t, n, nulls, valid, buf), nil
	case plan.Int64:
		buf, out := newFixed[int64](mem, n)
		fill(out, s.Int())
		return makeArray(t, n, nulls, valid, buf), nil
	case plan.Float64:
		buf, out := newFixed[float64](mem, n)
		fill(out, s.Float())
		return makeArray(t, n, nulls, valid, buf), nil
	case plan.Int8:
		return broadcastFixed(mem, t, n, nulls, valid, int8(s.Int())), nil
	case plan.Int16:
		return broadcastFixed(mem, t, n, nulls, valid, int16(s.Int())), nil
	case plan.Uint8:
		return broadcastFixed(mem, t, n, nulls, valid, uint8(s.Uint())), nil
	case plan.Uint16:
		return broadcastFixed(mem, t, n, nulls, valid, uint16(s.Uint())), nil
	case plan.Uint32:
		return broadcastFixed(mem, t, n, nulls, valid, uint32(s.Uint())), nil
	case plan.Uint64:
		return broadcastFixed(mem, t, n, nulls, valid, s.Uint()), nil
	case plan.Float32:
		return broadcastFixed(mem, t, n, nulls, valid, s.Float32()), nil
	case plan.Bool:
		buf, out := newBitmap(mem, n)
		if s.Bool() {
			memory.Set(out, 0xff)
		}
		return makeArray(t, n, nulls, valid, buf), nil
	default: // plan.String
		str := s.Str()
		obuf, offs := newFixed[int32](mem, n+1)
		dbuf, data := newBytes(mem, n*len(str))
		for i := 0; i < n; i++ {
			offs[i] = int32(i * len(str))
			copy(data[i*len(str):], str)
		}
		offs[n] = int32(n * len(str))
		return makeArray(t, n, nulls, valid, obuf, dbuf), nil
	}
}

// broadcastFixed is an array of n copies of x.
func broadcastFixed[T numeric](mem memory.Allocator, t plan.Type, n, nulls int, valid *memory.Buffer, x T) arrow.Array {
	buf, out := newFixed[T](mem, n)
	fill(out, x)
	return makeArray(t, n, nulls, valid, buf)
}

func fill[T numeric](out []T, x T) {
	for i := range out {
		out[i] = x
	}
}

// materialize returns d as an array of n rows (a scalar is broadcast); it
// consumes d.
func materialize(mem memory.Allocator, d datum, n int) (arrow.Array, error) {
	if d.arr != nil {
		return d.arr, nil
	}
	return broadcast(mem, d.sc, d.typ, n)
}

// retained returns a new reference to d; the array is then shared, so no
// longer a temporary anyone may overwrite.
func retained(d datum) datum {
	if d.arr != nil {
		d.arr.Retain()
	}
	d.tmp = false
	return d
}

// promoted returns d converted to the numeric type to (int32 -> int64,
// integer -> float64, nearest) as a new reference; d stays the caller's.
// The conversion is split over the evaluator's partitions.
func (x *evalCtx) promoted(d datum, to plan.Type) datum {
	if d.typ == to {
		return retained(d)
	}
	if d.arr == nil {
		return scalarDatum(promoteValue(d.sc, to))
	}
	v := viewOf(d)
	var out arrow.Array
	valid := shareValidity(x.mem, &v)
	switch to {
	case plan.Int16:
		out = promotedAs[int16](x, &v, to, valid)
	case plan.Int32:
		out = promotedAs[int32](x, &v, to, valid)
	case plan.Int64:
		out = promotedAs[int64](x, &v, to, valid)
	case plan.Uint16:
		out = promotedAs[uint16](x, &v, to, valid)
	case plan.Uint32:
		out = promotedAs[uint32](x, &v, to, valid)
	case plan.Uint64:
		out = promotedAs[uint64](x, &v, to, valid)
	case plan.Float32:
		out = promotedAs[float32](x, &v, to, valid)
	case plan.Float64:
		out = promotedAs[float64](x, &v, to, valid)
	}
	if out == nil {
		// Unreachable after type checking; keep the datum rather than lie.
		if valid != nil {
			valid.Release()
		}
		return retained(d)
	}
	return freshDatum(to, out)
}

// promotedAs converts a numeric view to T, the Go type of plan type to
// (a promotion: exact between integers and from float32 to float64,
// nearest from an integer to a float); nil when v's type does not
// convert.
func promotedAs[T numeric](x *evalCtx, v *view, to plan.Type, valid *memory.Buffer) arrow.Array {
	n := v.n
	buf, o := newFixed[T](x.mem, n)
	ok := true
	run := func(f func(lo, hi int)) { x.rows(n, f) }
	switch v.typ {
	case plan.Int8:
		run(func(lo, hi int) { widen(o[lo:hi], v.i8[lo:hi]) })
	case plan.Int16:
		run(func(lo, hi int) { widen(o[lo:hi], v.i16[lo:hi]) })
	case plan.Int32:
		run(func(lo, hi int) { widen(o[lo:hi], v.i32[lo:hi]) })
	case plan.Int64:
		run(func(lo, hi int) { widen(o[lo:hi], v.i64[lo:hi]) })
	case plan.Uint8:
		run(func(lo, hi int) { widen(o[lo:hi], v.u8[lo:hi]) })
	case plan.Uint16:
		run(func(lo, hi int) { widen(o[lo:hi], v.u16[lo:hi]) })
	case plan.Uint32:
		run(func(lo, hi int) { widen(o[lo:hi], v.u32[lo:hi]) })
	case plan.Uint64:
		run(func(lo, hi int) { widen(o[lo:hi], v.u64[lo:hi]) })
	case plan.Float32:
		f64, is64 := any(o).([]float64)
		if !is64 {
			ok = false
			break
		}
		run(func(lo, hi int) {
			for i := lo; i < hi; i++ {
				f64[i] = ieee.Widen32(v.f32[i])
			}
		})
	default:
		ok = false
	}
	if !ok {
		buf.Release()
		return nil
	}
	return makeArray(to, n, v.nulls, valid, buf) // takes over valid
}

// widen converts every element; Go's conversion is exact for int32->int64
// and rounds to nearest for integer->float64, as semantics.md requires.
func widen[F, T numeric](out []T, in []F) {
	for i, x := range in {
		out[i] = T(x)
	}
}

// promoteValue converts a numeric scalar to the wider numeric type to.
func promoteValue(v plan.Value, to plan.Type) plan.Value {
	if v.Type() == to {
		return v
	}
	if v.IsNull() {
		return plan.NullValue(to)
	}
	from := v.Type()
	switch {
	case to.IsInteger() && from.IsUnsigned():
		r, _ := plan.UintValue(to, v.Uint())
		return r
	case to.IsInteger() && from.IsInteger():
		r, _ := plan.IntValue(to, v.Int())
		return r
	case to == plan.Float64 && from == plan.Float32:
		return plan.Float64Value(ieee.Widen32(v.Float32()))
	case to == plan.Float64 && from.IsUnsigned():
		return plan.Float64Value(float64(v.Uint()))
	case to == plan.Float64 && from.IsInteger():
		return plan.Float64Value(float64(v.Int()))
	case to == plan.Float32 && from.IsUnsigned():
		return plan.Float32Value(float32(v.Uint()))
	case to == plan.Float32 && from.IsInteger():
		return plan.Float32Value(float32(v.Int()))
	}
	return v
}

// shareValidity returns a validity buffer equal to v's (nil when v has no
// nulls): v's own buffer retained when it starts at bit 0, else a copy.
func shareValidity(mem memory.Allocator, v *view) *memory.Buffer {
	if v.valid == nil {
		return nil
	}
	if v.vbuf != nil && v.voff == 0 && !v.scalar {
		v.vbuf.Retain()
		return v.vbuf
	}
	buf, bm := newBitmap(mem, v.n)
	bitutil.CopyBitmap(v.valid, v.voff, v.n, bm, 0)
	return buf
}
