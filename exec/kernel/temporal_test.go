package kernel

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// TestTemporalTable checks the temporal kernels against hand-computed
// values and errors (docs/semantics.md, Temporal types).
func TestTemporalTable(t *testing.T) {
	dt := func(v int64) plan.Value { return plan.DatetimeValue(v) }
	da := func(v int32) plan.Value { return plan.DateValue(v) }
	du := func(v int64) plan.Value { return plan.DurationValue(v) }
	const day = plan.MicrosPerDay
	leap := int32(11016) // 2000-02-29
	cases := []struct {
		name string
		cols []column
		expr plan.E
		want []plan.Value
		err  *wantErr
	}{
		{name: "year month day weekday of dates",
			cols: []column{colOf("d", plan.Date, da(0), da(leap), da(-25508), null(plan.Date), da(math.MinInt32), da(math.MaxInt32))},
			expr: col("d").Year(), want: []plan.Value{i32(1970), i32(2000), i32(1900), null(plan.Int32), i32(-5877641), i32(5881580)}},
		{name: "month", cols: []column{colOf("d", plan.Date, da(0), da(leap), da(-25508), da(-1))},
			expr: col("d").Month(), want: []plan.Value{i32(1), i32(2), i32(3), i32(12)}},
		{name: "day", cols: []column{colOf("d", plan.Date, da(0), da(leap), da(-25508), da(-1))},
			expr: col("d").Day(), want: []plan.Value{i32(1), i32(29), i32(1), i32(31)}},
		{name: "weekday ISO", cols: []column{colOf("d", plan.Date, da(0), da(4), da(-1), da(leap))},
			expr: col("d").Weekday(), want: []plan.Value{i32(4), i32(1), i32(3), i32(2)}},
		{name: "hour minute second floor before 1970", cols: []column{colOf("m", plan.Datetime, dt(-1), dt(3723000001), dt(math.MinInt64))},
			expr: col("m").Hour(), want: []plan.Value{i32(23), i32(1), i32(19)}},
		{name: "second", cols: []column{colOf("m", plan.Datetime, dt(-1), dt(3723000001))},
			expr: col("m").Second(), want: []plan.Value{i32(59), i32(3)}},
		{name: "date + duration floors", cols: []column{colOf("d", plan.Date, da(1), da(1), da(1)), colOf("u", plan.Duration, du(-1), du(day), du(day-1))},
			expr: col("d").Add(col("u")), want: []plan.Value{da(0), da(2), da(1)}},
		{name: "date - duration floors", cols: []column{colOf("d", plan.Date, da(1), da(1)), colOf("u", plan.Duration, du(1), du(-1))},
			expr: col("d").Sub(col("u")), want: []plan.Value{da(0), da(1)}},
		{name: "date + duration out of range", cols: []column{colOf("d", plan.Date, da(0), null(plan.Date), da(math.MaxInt32)), colOf("u", plan.Duration, du(0), du(math.MaxInt64), du(day))},
			expr: col("d").Add(col("u")), err: &wantErr{plan.TemporalOutOfRange, "d + u", 2}},
		{name: "date - date", cols: []column{colOf("d", plan.Date, da(leap), da(0)), colOf("e", plan.Date, da(leap-1), da(1))},
			expr: col("d").Sub(col("e")), want: []plan.Value{du(day), du(-day)}},
		{name: "date - date out of range", cols: []column{colOf("d", plan.Date, da(106751991), da(106751992)), colOf("e", plan.Date, da(0), da(0))},
			expr: col("d").Sub(col("e")), err: &wantErr{plan.TemporalOutOfRange, "d - e", 1}},
		{name: "datetime + duration overflow", cols: []column{colOf("m", plan.Datetime, dt(math.MaxInt64-1), dt(math.MaxInt64))},
			expr: col("m").Add(plan.DurationLit(1)), err: &wantErr{plan.TemporalOutOfRange, "m + duration(1)", 1}},
		{name: "datetime - datetime overflow", cols: []column{colOf("m", plan.Datetime, dt(math.MinInt64))},
			expr: col("m").Sub(plan.DatetimeLit("1970-01-01T00:00:00.000001")), err: &wantErr{plan.TemporalOutOfRange, `m - datetime("1970-01-01T00:00:00.000001")`, 0}},
		{name: "compare with a date literal", cols: []column{colOf("d", plan.Date, da(8766), da(9131), null(plan.Date))},
			expr: col("d").Ge(plan.DateLit("1994-01-01")).And(col("d").Lt(plan.DateLit("1995-01-01"))), want: []plan.Value{bl(true), bl(false), null(plan.Bool)}},
		{name: "cast date to string", cols: []column{colOf("d", plan.Date, da(leap), da(math.MinInt32))},
			expr: col("d").Cast(plan.String), want: []plan.Value{str("2000-02-29"), str("-5877641-06-23")}},
		{name: "cast duration to string", cols: []column{colOf("u", plan.Duration, du(-day-1), du(0))},
			expr: col("u").Cast(plan.String), want: []plan.Value{str("-P1DT0.000001S"), str("PT0S")}},
		{name: "strict cast string to date", cols: []column{colOf("s", plan.String, str("2000-02-29"), str("1900-02-29"))},
			expr: col("s").Cast(plan.Date), err: &wantErr{plan.InvalidCast, "cast(s, date)", 1}},
		{name: "non-strict cast string to datetime", cols: []column{colOf("s", plan.String, str("2000-02-29T01:02:03.5"), str("2000-02-29T01:02:03Z"))},
			expr: col("s").TryCast(plan.Datetime), want: []plan.Value{dt(951786123500000), null(plan.Datetime)}},
		{name: "cast date to datetime fails far out", cols: []column{colOf("d", plan.Date, da(-106751991), da(-106751992))},
			expr: col("d").TryCast(plan.Datetime), want: []plan.Value{dt(-106751991 * day), null(plan.Datetime)}},
		{name: "cast datetime to date floors", cols: []column{colOf("m", plan.Datetime, dt(-1), dt(day))},
			expr: col("m").Cast(plan.Date), want: []plan.Value{da(-1), da(1)}},
	}
	for _, tc := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rec := mkBatch(t, mem, tc.cols...)
		got, err := evalValues(t, mem, tc.expr.Expr(), rec, 0)
		rec.Release()
		mem.AssertSize(t, 0)
		if tc.err != nil {
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != tc.err.kind || pe.Expr != tc.err.expr || pe.Row != tc.err.row {
				t.Errorf("%s: error %v, want %v", tc.name, err, *tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if showValues(got) != showValues(tc.want) {
			t.Errorf("%s: got %s, want %s", tc.name, showValues(got), showValues(tc.want))
		}
	}
}

// TestTemporalArrowTypes: the Arrow types of the temporal types, and the
// Arrow temporal types dfopt refuses (a zone, another unit).
func TestTemporalArrowTypes(t *testing.T) {
	for _, ty := range []plan.Type{plan.Date, plan.Datetime, plan.Duration} {
		dt, err := ArrowType(ty)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := PlanType(dt); err != nil || back != ty {
			t.Errorf("PlanType(ArrowType(%s)) = %s, %v", ty, back, err)
		}
	}
	for _, tc := range []struct {
		dt  arrow.DataType
		msg string
	}{
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "a datetime carries no time zone"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, "a datetime counts microseconds"},
		{arrow.FixedWidthTypes.Duration_ms, "a duration counts microseconds"},
		{arrow.FixedWidthTypes.Date64, "unsupported Arrow type"},
	} {
		if _, err := PlanType(tc.dt); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("PlanType(%s) = %v, want an error saying %q", tc.dt, err, tc.msg)
		}
	}
}

// TestDateFieldsTable compares the table path of year, month, day and
// weekday with the arithmetic on every day of the table's range and a few
// days beyond each end.
func TestDateFieldsTable(t *testing.T) {
	lo, hi := int32(calFirst-3), int32(plan.DaysFromCivil(calYear0+calYears, 1, 1)+3)
	in := make([]int32, 0, hi-lo)
	for d := lo; d < hi; d++ {
		in = append(in, d)
	}
	out := make([]int32, len(in))
	for _, f := range []plan.Func{plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday} {
		dateFields(f, out, in)
		for i, d := range in {
			y, m, dd := plan.CivilFromDays(int64(d))
			want := map[plan.Func]int32{plan.FuncYear: int32(y), plan.FuncMonth: int32(m), plan.FuncDay: int32(dd),
				plan.FuncWeekday: int32(plan.Weekday(int64(d)))}[f]
			if out[i] != want {
				t.Fatalf("%s of day %d = %d, want %d", f, d, out[i], want)
			}
		}
	}
}
