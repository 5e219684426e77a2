package kernel

import (
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// Temporal kernels (docs/semantics.md, Temporal types): a date is its
// int32 days and a datetime or duration its int64 µs in every view, so
// comparisons, gathers and keys run the integer loops; this file holds
// what differs: temporal add and sub (checked, temporal_out_of_range),
// the calendar fields and the temporal casts.

const microsPerDay = plan.MicrosPerDay

// ceilDiv divides rounding toward positive infinity (b > 0).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// temporalOp computes one row of temporal add or sub: x and y are the
// operands' integers (days or µs), the result the result type's integer;
// ok is false when the exact result lies outside the result type.
type temporalOp func(x, y int64) (int64, bool)

// temporalOpFor returns the row operation for f over operand types a and
// b (result type t), or nil when the pair is not temporal arithmetic.
func temporalOpFor(f plan.Func, a, b, t plan.Type) temporalOp {
	inDate := func(r int64) (int64, bool) { return r, r >= math.MinInt32 && r <= math.MaxInt32 }
	switch {
	case f == plan.FuncAdd && a == plan.Date && b == plan.Duration:
		return func(d, u int64) (int64, bool) { return inDate(d + plan.FloorDiv(u, microsPerDay)) }
	case f == plan.FuncAdd && a == plan.Duration && b == plan.Date:
		return func(u, d int64) (int64, bool) { return inDate(d + plan.FloorDiv(u, microsPerDay)) }
	case f == plan.FuncSub && a == plan.Date && b == plan.Duration:
		return func(d, u int64) (int64, bool) { return inDate(d - ceilDiv(u, microsPerDay)) }
	case f == plan.FuncSub && a == plan.Date && b == plan.Date:
		return func(x, y int64) (int64, bool) {
			diff := x - y // both int32: exact
			if diff > plan.MaxDatetimeDay || diff < -plan.MaxDatetimeDay {
				return 0, false
			}
			return diff * microsPerDay, true
		}
	case f == plan.FuncAdd && t != plan.Date:
		return func(x, y int64) (int64, bool) {
			r := x + y
			return r, (r > x) == (y > 0) || y == 0
		}
	case f == plan.FuncSub && t != plan.Date:
		return func(x, y int64) (int64, bool) {
			r := x - y
			return r, (r < x) == (y > 0) || y == 0
		}
	}
	return nil
}

// temporalArith evaluates add or sub with a temporal operand over borrowed
// operands, at least one an array. A row where an operand is null is null
// and not computed; the first valid row whose exact result leaves the
// result type raises temporal_out_of_range.
func (x *evalCtx) temporalArith(e *plan.Call, in *input, a, b datum) (datum, error) {
	t, ok := plan.ArithType(e.Fn, a.typ, b.typ)
	op := temporalOpFor(e.Fn, a.typ, b.typ, t)
	if !ok || op == nil {
		return datum{}, internalError(e, fmt.Sprintf("%s of %s and %s", e.Fn, a.typ, b.typ))
	}
	if a.isNullScalar() || b.isNullScalar() {
		return nullDatum(t), nil
	}
	va, vb := viewOf(a), viewOf(b)
	n := in.n
	valid, nulls := andValidity(x.mem, n, &va, &vb)
	get := func(v *view) func(i int) int64 {
		switch {
		case v.scalar && v.i32 != nil:
			c := int64(v.i32[0])
			return func(int) int64 { return c }
		case v.scalar:
			c := v.i64[0]
			return func(int) int64 { return c }
		case v.i32 != nil:
			return func(i int) int64 { return int64(v.i32[i]) }
		}
		return func(i int) int64 { return v.i64[i] }
	}
	ga, gb := get(&va), get(&vb)
	fail := func(i int) error {
		if valid != nil {
			valid.Release()
		}
		return x.fail(plan.TemporalOutOfRange, e, in, i,
			fmt.Sprintf("%s %s %s leaves the range of %s", va.valueAt(i), map[plan.Func]string{plan.FuncAdd: "+", plan.FuncSub: "-"}[e.Fn], vb.valueAt(i), t), nil)
	}
	isValid := func(i int) bool { return va.isValid(i) && vb.isValid(i) }
	if t == plan.Date {
		buf, out := newFixed[int32](x.mem, n)
		for i := range out {
			r, ok := op(ga(i), gb(i))
			if !ok && isValid(i) {
				buf.Release()
				return datum{}, fail(i)
			}
			out[i] = int32(r)
		}
		return freshDatum(t, makeArray(t, n, nulls, valid, buf)), nil
	}
	buf, out := newFixed[int64](x.mem, n)
	for i := range out {
		r, ok := op(ga(i), gb(i))
		if !ok && isValid(i) {
			buf.Release()
			return datum{}, fail(i)
		}
		out[i] = r
	}
	return freshDatum(t, makeArray(t, n, nulls, valid, buf)), nil
}

// temporalField evaluates year, month, day, weekday, hour, minute and
// second of a date or datetime array (borrowed): int32, null where the
// operand is null, never an error.
func (x *evalCtx) temporalField(e *plan.Call, in *input, a datum) (datum, error) {
	if a.isNullScalar() {
		return nullDatum(plan.Int32), nil
	}
	v := viewOf(a)
	n := in.n
	if v.scalar {
		n = 1
	}
	field := fieldOf(e.Fn)
	if field == nil {
		return datum{}, internalError(e, fmt.Sprintf("%s of %s", e.Fn, a.typ))
	}
	buf, out := newFixed[int32](x.mem, n)
	if a.typ == plan.Date {
		x.rows(n, func(lo, hi int) { dateFields(e.Fn, out[lo:hi], v.i32[lo:hi]) })
	} else {
		x.rows(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				days, tod := plan.SplitDatetime(v.i64[i])
				out[i] = field(days, tod)
			}
		})
	}
	valid := shareValidity(x.mem, &v)
	return freshDatum(plan.Int32, makeArray(plan.Int32, n, v.nulls, valid, buf)), nil
}

// The calendar of the days 1900-01-01 ... 2155-12-31, one byte per field
// and day (about 280 KB in all, built on first use): year, month and day
// of a date in that range are one load instead of the era arithmetic of
// plan.CivilFromDays, which every other day takes.
const (
	calFirst = -25567 // 1900-01-01
	calYear0 = 1900
	calYears = 256
)

var (
	calOnce                      sync.Once
	calYear, calMonth, calDayOfM []uint8
)

func calendar() {
	n := int(plan.DaysFromCivil(calYear0+calYears, 1, 1) - calFirst)
	calYear, calMonth, calDayOfM = make([]uint8, n), make([]uint8, n), make([]uint8, n)
	for i := 0; i < n; i++ {
		y, m, d := plan.CivilFromDays(int64(calFirst + i))
		calYear[i], calMonth[i], calDayOfM[i] = uint8(y-calYear0), uint8(m), uint8(d)
	}
}

// dateFields writes field f of each day of in to out: one loop per
// field, with no call through a function value per row.
func dateFields(f plan.Func, out, in []int32) {
	in = in[:len(out)]
	calOnce.Do(calendar)
	n := uint32(len(calYear))
	switch f {
	case plan.FuncYear:
		for i, d := range in {
			if j := uint32(d - calFirst); j < n {
				out[i] = calYear0 + int32(calYear[j])
				continue
			}
			y, _, _ := plan.CivilFromDays(int64(d))
			out[i] = int32(y)
		}
	case plan.FuncMonth:
		for i, d := range in {
			if j := uint32(d - calFirst); j < n {
				out[i] = int32(calMonth[j])
				continue
			}
			_, m, _ := plan.CivilFromDays(int64(d))
			out[i] = int32(m)
		}
	case plan.FuncDay:
		for i, d := range in {
			if j := uint32(d - calFirst); j < n {
				out[i] = int32(calDayOfM[j])
				continue
			}
			_, _, dd := plan.CivilFromDays(int64(d))
			out[i] = int32(dd)
		}
	case plan.FuncWeekday:
		for i, d := range in {
			out[i] = int32(plan.Weekday(int64(d)))
		}
	}
}

// fieldOf returns the field of a day and the µs since its midnight that f
// extracts.
func fieldOf(f plan.Func) func(days, tod int64) int32 {
	switch f {
	case plan.FuncYear:
		return func(days, _ int64) int32 { y, _, _ := plan.CivilFromDays(days); return int32(y) }
	case plan.FuncMonth:
		return func(days, _ int64) int32 { _, m, _ := plan.CivilFromDays(days); return int32(m) }
	case plan.FuncDay:
		return func(days, _ int64) int32 { _, _, d := plan.CivilFromDays(days); return int32(d) }
	case plan.FuncWeekday:
		return func(days, _ int64) int32 { return int32(plan.Weekday(days)) }
	case plan.FuncHour:
		return func(_, tod int64) int32 { return int32(tod / 3_600_000_000) }
	case plan.FuncMinute:
		return func(_, tod int64) int32 { return int32(tod / 60_000_000 % 60) }
	case plan.FuncSecond:
		return func(_, tod int64) int32 { return int32(tod / 1_000_000 % 60) }
	}
	return nil
}

// temporalCast casts to, from or between temporal types (not to string,
// which toString does): the integer underneath for date <-> int32 and
// datetime or duration <-> int64, date -> datetime (fails beyond int64
// µs), datetime -> date (floored, never fails), string -> date or datetime
// (ISO 8601, plan.ParseDate and plan.ParseDatetime).
func (c *caster) temporal(from, to plan.Type) (datum, error) {
	v := c.v
	var buf *memory.Buffer
	var o32 []int32
	var o64 []int64
	if to.Physical() == plan.Int32 {
		buf, o32 = newFixed[int32](c.x.mem, c.n)
	} else {
		buf, o64 = newFixed[int64](c.x.mem, c.n)
	}
	for i := 0; i < c.n; i++ {
		var r int64
		ok := true
		switch {
		case from.Physical() == to.Physical():
			if o32 != nil {
				r = int64(v.i32[i])
			} else {
				r = v.i64[i]
			}
		case from == plan.Date && to == plan.Datetime:
			r, ok = plan.DatetimeFromParts(int64(v.i32[i]), 0)
		case from == plan.Datetime && to == plan.Date:
			r = plan.FloorDiv(v.i64[i], microsPerDay)
		case from == plan.String && to == plan.Date:
			if v.isValid(i) {
				var d int32
				d, ok = plan.ParseDate(v.str(i))
				r = int64(d)
			}
		case from == plan.String && to == plan.Datetime:
			if v.isValid(i) {
				r, ok = plan.ParseDatetime(v.str(i))
			}
		default:
			c.abort(buf)
			return datum{}, internalError(c.e, fmt.Sprintf("no cast from %s to %s", from, to))
		}
		if !ok && v.isValid(i) {
			r = 0
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

// calendarStep evaluates truncate and offset_by of a date or datetime
// (borrowed) by plan.Truncate and plan.OffsetBy: null where the operand is
// null, temporal_out_of_range at the first valid row whose result leaves
// the type's range.
func (x *evalCtx) calendarStep(e *plan.Call, in *input, a datum) (datum, error) {
	step, err := plan.EveryParam(e, a.typ)
	if err != nil {
		return datum{}, internalError(e, err.Error())
	}
	if a.isNullScalar() {
		return nullDatum(a.typ), nil
	}
	f := plan.OffsetBy
	if e.Fn == plan.FuncTruncate {
		f = plan.Truncate
	}
	fail := func(i int, v plan.Value) error {
		return x.fail(plan.TemporalOutOfRange, e, in, i, fmt.Sprintf("%s of %s leaves the range of %s", e.Fn, v, a.typ), nil)
	}
	v := viewOf(a)
	if v.scalar {
		sv := v.valueAt(0)
		r, ok := f(a.typ, sv.Int(), step)
		if !ok {
			if in.n == 0 {
				return nullDatum(a.typ), nil
			}
			return datum{}, fail(0, sv)
		}
		if a.typ == plan.Date {
			return scalarDatum(plan.DateValue(int32(r))), nil
		}
		return scalarDatum(plan.DatetimeValue(r)), nil
	}
	n := in.n
	valid := shareValidity(x.mem, &v)
	if a.typ == plan.Date {
		buf, out := newFixed[int32](x.mem, n)
		for i := range out {
			if !v.isValid(i) {
				continue
			}
			r, ok := f(plan.Date, int64(v.i32[i]), step)
			if !ok {
				buf.Release()
				if valid != nil {
					valid.Release()
				}
				return datum{}, fail(i, v.valueAt(i))
			}
			out[i] = int32(r)
		}
		return freshDatum(a.typ, makeArray(a.typ, n, v.nulls, valid, buf)), nil
	}
	buf, out := newFixed[int64](x.mem, n)
	for i := range out {
		if !v.isValid(i) {
			continue
		}
		r, ok := f(plan.Datetime, v.i64[i], step)
		if !ok {
			buf.Release()
			if valid != nil {
				valid.Release()
			}
			return datum{}, fail(i, v.valueAt(i))
		}
		out[i] = r
	}
	return freshDatum(a.typ, makeArray(a.typ, n, v.nulls, valid, buf)), nil
}
