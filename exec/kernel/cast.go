package kernel

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// cast converts an array datum (borrowed) per semantics.md's Casts table. A
// row "fails" where the value has no image in the target type: a strict cast
// raises invalid_cast at the first failing valid row, a non-strict one makes
// that row null. compute's casts differ from the table (its safe float->int
// cast rejects 1.5 where we truncate, its string->bool accepts "1" and
// "TRUE", its float->string prints "-0" not "-0.0"; go-deps.md §1.3), so the
// conversions are written here.
func (x *evalCtx) cast(e *plan.Cast, in *input, d datum) (datum, error) {
	from, to := d.typ, e.To
	if from == to {
		return retained(d), nil
	}
	if d.isNullScalar() {
		return nullDatum(to), nil
	}
	v := viewOf(d)
	n := v.n
	c := &caster{x: x, e: e, in: in, v: &v, n: n}
	switch {
	case to == plan.String:
		return c.toString()
	case from.IsTemporal() || to.IsTemporal():
		return c.temporal(from, to)
	case from.IsNumeric() && to.IsNumeric() && (isNarrow(from) || isNarrow(to)):
		return c.numeric(to)
	case from == plan.Int32 && to == plan.Int64, from.IsInteger() && to == plan.Float64:
		return x.promoted(d, to), nil
	case to == plan.Bool:
		return c.toBool()
	case from == plan.Bool:
		return c.fromBool(to)
	case from == plan.Int64 && to == plan.Int32:
		return c.narrow()
	case from == plan.Float64 && to.IsInteger():
		return c.floatToInt(to)
	case from == plan.String:
		return c.parse(to)
	}
	return datum{}, internalError(e, fmt.Sprintf("no cast from %s to %s", from, to))
}

// caster carries one cast's state: the operand view and the output
// validity, which is copied from the operand's only once a non-strict cast
// first nulls a row.
type caster struct {
	x    *evalCtx
	e    *plan.Cast
	in   *input
	v    *view
	n    int
	vbuf *memory.Buffer
	bm   []byte
}

// failed handles a failing valid row i: an error for a strict cast, a null
// for a non-strict one.
func (c *caster) failed(i int) error {
	if c.e.Strict {
		val := c.v.valueAt(i)
		return c.x.fail(plan.InvalidCast, c.e, c.in, i,
			fmt.Sprintf("cannot cast %s (%s) to %s", val, c.v.typ, c.e.To), nil)
	}
	if c.bm == nil {
		c.vbuf, c.bm = newBitmap(c.x.mem, c.n)
		if c.v.valid != nil {
			bitutil.CopyBitmap(c.v.valid, c.v.voff, c.n, c.bm, 0)
		} else {
			memory.Set(c.bm, 0xff)
		}
	}
	c.bm[i>>3] &^= 1 << (i & 7)
	return nil
}

// validity returns the output validity and null count.
func (c *caster) validity() (*memory.Buffer, int) {
	if c.bm == nil {
		return shareValidity(c.x.mem, c.v), c.v.nulls
	}
	return c.vbuf, countNulls(c.bm, c.n)
}

// abort releases what the cast allocated before an error.
func (c *caster) abort(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		b.Release()
	}
	if c.vbuf != nil {
		c.vbuf.Release()
	}
}

func (c *caster) finish(t plan.Type, bufs ...*memory.Buffer) (datum, error) {
	valid, nulls := c.validity()
	return freshDatum(t, makeArray(t, c.n, nulls, append([]*memory.Buffer{valid}, bufs...)...)), nil
}

// narrow casts int64 to int32; values outside the int32 range fail.
func (c *caster) narrow() (datum, error) {
	buf, out := newFixed[int32](c.x.mem, c.n)
	a := c.v.i64[:c.n]
	for i, y := range a {
		if y < math.MinInt32 || y > math.MaxInt32 {
			out[i] = 0
			if !c.v.isValid(i) {
				continue
			}
			if err := c.failed(i); err != nil {
				c.abort(buf)
				return datum{}, err
			}
			continue
		}
		out[i] = int32(y)
	}
	return c.finish(plan.Int32, buf)
}

// floatToInt truncates toward zero; NaN, ±Inf and values whose truncation
// is outside the target range fail. -2^63 is exactly representable and in
// range, 2^63 is not.
func (c *caster) floatToInt(to plan.Type) (datum, error) {
	lo, hi := -9223372036854775808.0, 9223372036854775808.0 // [lo, hi)
	if to == plan.Int32 {
		lo, hi = math.MinInt32, math.MaxInt32+1
	}
	f := c.v.f64[:c.n]
	var buf *memory.Buffer
	var o32 []int32
	var o64 []int64
	if to == plan.Int32 {
		buf, o32 = newFixed[int32](c.x.mem, c.n)
	} else {
		buf, o64 = newFixed[int64](c.x.mem, c.n)
	}
	for i, y := range f {
		t := math.Trunc(y)
		ok := t >= lo && t < hi // false for NaN
		var r int64
		if ok {
			r = int64(t)
		} else if c.v.isValid(i) {
			if err := c.failed(i); err != nil {
				c.abort(buf)
				return datum{}, err
			}
		}
		if o32 != nil {
			o32[i] = int32(r)
		} else {
			o64[i] = r
		}
	}
	return c.finish(to, buf)
}

// toBool maps 0 (and ±0.0) to false and anything else, NaN included, to
// true; a string must be exactly "true" or "false".
func (c *caster) toBool() (datum, error) {
	buf, out := newBitmap(c.x.mem, c.n)
	v := c.v
	switch v.typ {
	case plan.Int32:
		packNonZero(out, v.i32[:c.n])
	case plan.Int64:
		packNonZero(out, v.i64[:c.n])
	case plan.Float64:
		packNonZero(out, v.f64[:c.n])
	case plan.Int8:
		packNonZero(out, v.i8[:c.n])
	case plan.Int16:
		packNonZero(out, v.i16[:c.n])
	case plan.Uint8:
		packNonZero(out, v.u8[:c.n])
	case plan.Uint16:
		packNonZero(out, v.u16[:c.n])
	case plan.Uint32:
		packNonZero(out, v.u32[:c.n])
	case plan.Uint64:
		packNonZero(out, v.u64[:c.n])
	case plan.Float32:
		packNonZero(out, v.f32[:c.n])
	case plan.String:
		for i := 0; i < c.n; i++ {
			switch v.str(i) {
			case "true":
				out[i>>3] |= 1 << (i & 7)
			case "false":
			default:
				if !v.isValid(i) {
					continue
				}
				if err := c.failed(i); err != nil {
					c.abort(buf)
					return datum{}, err
				}
			}
		}
	}
	return c.finish(plan.Bool, buf)
}

// packNonZero sets bit i where a[i] != 0 (NaN != 0 is true).
func packNonZero[T numeric](out []byte, a []T) {
	var scratch [block]bool
	for lo := 0; lo < len(a); lo += block {
		hi := min(lo+block, len(a))
		t := scratch[:hi-lo]
		for i := range t {
			t[i] = a[lo+i] != 0
		}
		packBools(out[lo>>3:], t)
	}
}

// fromBool maps false to 0 and true to 1 in a numeric type.
func (c *caster) fromBool(to plan.Type) (datum, error) {
	v := c.v
	switch to {
	case plan.Int32:
		buf, out := newFixed[int32](c.x.mem, c.n)
		for i := range out {
			out[i] = int32(b2u(v.boolAt(i)))
		}
		return c.finish(to, buf)
	case plan.Int64:
		buf, out := newFixed[int64](c.x.mem, c.n)
		for i := range out {
			out[i] = int64(b2u(v.boolAt(i)))
		}
		return c.finish(to, buf)
	case plan.Float64:
		buf, out := newFixed[float64](c.x.mem, c.n)
		for i := range out {
			out[i] = float64(b2u(v.boolAt(i)))
		}
		return c.finish(to, buf)
	}
	return c.numeric(to) // the narrower types: 0 or 1 never fails
}

// toString renders integers in decimal, floats as plan.FormatFloat ("1.0",
// "NaN", "Inf", "-0.0") and booleans as "true"/"false"; a null row is empty.
// Rows are appended to one Go byte slice, then copied into one buffer.
func (c *caster) toString() (datum, error) {
	v := c.v
	obuf, offs := newFixed[int32](c.x.mem, c.n+1)
	var data []byte
	for i := 0; i < c.n; i++ {
		offs[i] = int32(len(data))
		if !v.isValid(i) {
			continue
		}
		switch v.typ {
		case plan.Int32:
			data = strconv.AppendInt(data, int64(v.i32[i]), 10)
		case plan.Int64:
			data = strconv.AppendInt(data, v.i64[i], 10)
		case plan.Float64:
			data = append(data, plan.FormatFloat(v.f64[i])...)
		case plan.Int8:
			data = strconv.AppendInt(data, int64(v.i8[i]), 10)
		case plan.Int16:
			data = strconv.AppendInt(data, int64(v.i16[i]), 10)
		case plan.Uint8:
			data = strconv.AppendUint(data, uint64(v.u8[i]), 10)
		case plan.Uint16:
			data = strconv.AppendUint(data, uint64(v.u16[i]), 10)
		case plan.Uint32:
			data = strconv.AppendUint(data, uint64(v.u32[i]), 10)
		case plan.Uint64:
			data = strconv.AppendUint(data, v.u64[i], 10)
		case plan.Float32:
			data = append(data, plan.FormatFloat32(v.f32[i])...)
		case plan.Bool:
			data = strconv.AppendBool(data, v.boolAt(i))
		case plan.Date:
			data = plan.AppendDate(data, int64(v.i32[i]))
		case plan.Datetime:
			data = plan.AppendDatetime(data, v.i64[i])
		case plan.Duration:
			data = plan.AppendDuration(data, v.i64[i])
		}
		if len(data) > math.MaxInt32 {
			obuf.Release()
			return datum{}, tooLong(c.e, errStringTooLong)
		}
	}
	offs[c.n] = int32(len(data))
	dbuf, d := newBytes(c.x.mem, len(data))
	copy(d, data)
	return c.finish(plan.String, obuf, dbuf)
}

// parse converts strings: integers by strconv.ParseInt base 10 of the whole
// string (range-checked in the target width), floats by strconv.ParseFloat
// (so "NaN", "Inf", "-0.0" parse; an out-of-range literal fails).
func (c *caster) parse(to plan.Type) (datum, error) {
	v := c.v
	if isNarrow(to) {
		return c.numeric(to)
	}
	var buf *memory.Buffer
	var o32 []int32
	var o64 []int64
	var of []float64
	switch to {
	case plan.Int32:
		buf, o32 = newFixed[int32](c.x.mem, c.n)
	case plan.Int64:
		buf, o64 = newFixed[int64](c.x.mem, c.n)
	default:
		buf, of = newFixed[float64](c.x.mem, c.n)
	}
	for i := 0; i < c.n; i++ {
		if !v.isValid(i) {
			switch {
			case o32 != nil:
				o32[i] = 0
			case o64 != nil:
				o64[i] = 0
			default:
				of[i] = 0
			}
			continue
		}
		s := v.str(i)
		var err error
		switch to {
		case plan.Int32:
			var r int64
			r, err = strconv.ParseInt(s, 10, 32)
			o32[i] = int32(r)
		case plan.Int64:
			o64[i], err = strconv.ParseInt(s, 10, 64)
		default:
			of[i], err = strconv.ParseFloat(s, 64)
		}
		if err != nil {
			if ferr := c.failed(i); ferr != nil {
				c.abort(buf)
				return datum{}, ferr
			}
		}
	}
	return c.finish(to, buf)
}

// isNarrow reports whether t is one of the numeric types the general
// numeric cast serves: int8, int16, the unsigned integers and float32.
func isNarrow(t plan.Type) bool {
	return t.IsUnsigned() || t == plan.Int8 || t == plan.Int16 || t == plan.Float32
}

// numVal is one source value of a cast: a signed integer (s), an unsigned
// one (u), a float (f, a float32 widened exactly) or a parsed string (ok
// false when it does not parse).
type numVal struct {
	cls byte // 's', 'u', 'f'
	s   int64
	u   uint64
	f   float64
	ok  bool
}

// numAt reads row i of a numeric, bool or string view for numeric.
func numAt(v *view, i int, to plan.Type) numVal {
	switch v.typ {
	case plan.Int8:
		return numVal{cls: 's', s: int64(v.i8[i]), ok: true}
	case plan.Int16:
		return numVal{cls: 's', s: int64(v.i16[i]), ok: true}
	case plan.Int32:
		return numVal{cls: 's', s: int64(v.i32[i]), ok: true}
	case plan.Int64:
		return numVal{cls: 's', s: v.i64[i], ok: true}
	case plan.Uint8:
		return numVal{cls: 'u', u: uint64(v.u8[i]), ok: true}
	case plan.Uint16:
		return numVal{cls: 'u', u: uint64(v.u16[i]), ok: true}
	case plan.Uint32:
		return numVal{cls: 'u', u: uint64(v.u32[i]), ok: true}
	case plan.Uint64:
		return numVal{cls: 'u', u: v.u64[i], ok: true}
	case plan.Float32:
		return numVal{cls: 'f', f: ieee.Widen32(v.f32[i]), ok: true}
	case plan.Float64:
		return numVal{cls: 'f', f: v.f64[i], ok: true}
	case plan.Bool:
		return numVal{cls: 'u', u: uint64(b2u(v.boolAt(i))), ok: true}
	case plan.String:
		str := v.str(i)
		bits := to.Bits()
		switch {
		case to.IsUnsigned():
			u, err := strconv.ParseUint(str, 10, bits)
			return numVal{cls: 'u', u: u, ok: err == nil}
		case to.IsSigned():
			n, err := strconv.ParseInt(str, 10, bits)
			return numVal{cls: 's', s: n, ok: err == nil}
		case to == plan.Float32:
			f, err := strconv.ParseFloat(str, 32)
			return numVal{cls: 'p', f: f, ok: err == nil}
		}
	}
	return numVal{}
}

// numeric is the general cast between numeric types (and from bool and
// string to the narrower ones), row by row (docs/semantics.md, Numeric
// types): an integer target takes an integer in its range and a float's
// truncation in its range (NaN and infinities fail); float32 takes the
// nearest float32 of any number, failing for a finite float64 beyond its
// range; float64 takes integers to the nearest and float32 exactly.
func (c *caster) numeric(to plan.Type) (datum, error) {
	switch to {
	case plan.Int8:
		return castInto[int8](c, to)
	case plan.Int16:
		return castInto[int16](c, to)
	case plan.Int32:
		return castInto[int32](c, to)
	case plan.Int64:
		return castInto[int64](c, to)
	case plan.Uint8:
		return castInto[uint8](c, to)
	case plan.Uint16:
		return castInto[uint16](c, to)
	case plan.Uint32:
		return castInto[uint32](c, to)
	case plan.Uint64:
		return castInto[uint64](c, to)
	case plan.Float32:
		return castInto[float32](c, to)
	case plan.Float64:
		return castInto[float64](c, to)
	}
	return datum{}, internalError(c.e, fmt.Sprintf("no cast from %s to %s", c.v.typ, to))
}

func castInto[T numeric](c *caster, to plan.Type) (datum, error) {
	buf, out := newFixed[T](c.x.mem, c.n)
	lo, hi, isInt := plan.IntRange(to)
	for i := range out {
		out[i] = 0
		if !c.v.isValid(i) {
			continue
		}
		x := numAt(c.v, i, to)
		ok := x.ok
		if ok {
			out[i], ok = convertNum[T](x, to, lo, hi, isInt)
		}
		if !ok {
			out[i] = 0
			if err := c.failed(i); err != nil {
				c.abort(buf)
				return datum{}, err
			}
		}
	}
	return c.finish(to, buf)
}

// convertNum converts one value to T (plan type to; lo and hi its range
// when isInt).
func convertNum[T numeric](x numVal, to plan.Type, lo int64, hi uint64, isInt bool) (T, bool) {
	if isInt {
		switch x.cls {
		case 's':
			if x.s < lo || (x.s > 0 && uint64(x.s) > hi) {
				return 0, false
			}
			return T(x.s), true
		case 'u':
			if x.u > hi {
				return 0, false
			}
			return T(x.u), true
		}
		t := math.Trunc(x.f) // NaN fails both tests below
		if !(t >= float64(lo)) || !(t < float64(hi/2+1)*2) {
			return 0, false
		}
		if t < 0 {
			return T(int64(t)), true
		}
		return T(uint64(t)), true
	}
	switch x.cls {
	case 's':
		return T(x.s), true
	case 'u':
		return T(x.u), true
	case 'p': // a float32 parsed from a string
		return T(float32(x.f)), true
	}
	if to == plan.Float32 {
		g := ieee.Narrow64(x.f)
		if math.IsInf(float64(g), 0) && !math.IsInf(x.f, 0) {
			return 0, false
		}
		return T(g), true
	}
	var z T
	if f64, ok := any(&z).(*float64); ok {
		*f64 = x.f // keep a NaN's bits (a float32 widened by ieee.Widen32)
		return z, true
	}
	return T(x.f), true
}
