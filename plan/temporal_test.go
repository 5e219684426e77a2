package plan

import (
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// TestTemporalText checks the ISO 8601 text of dates, datetimes and
// durations against hand-computed cases: the epoch, leap days, month
// ends, the extremes of each type and expanded years.
func TestTemporalText(t *testing.T) {
	for _, tc := range []struct {
		days int32
		text string
	}{
		{0, "1970-01-01"}, {-1, "1969-12-31"}, {11016, "2000-02-29"}, {-25508, "1900-03-01"},
		{19782, "2024-02-29"}, {2932896, "9999-12-31"}, {2932897, "+10000-01-01"},
		{-719528, "0000-01-01"}, {-719529, "-0001-12-31"},
		{math.MaxInt32, "+5881580-07-11"}, {math.MinInt32, "-5877641-06-23"},
	} {
		if got := FormatDate(tc.days); got != tc.text {
			t.Errorf("FormatDate(%d) = %q, want %q", tc.days, got, tc.text)
		}
		if back, ok := ParseDate(tc.text); !ok || back != tc.days {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", tc.text, back, ok, tc.days)
		}
	}
	for _, tc := range []struct {
		us   int64
		text string
	}{
		{0, "1970-01-01T00:00:00"}, {-1, "1969-12-31T23:59:59.999999"}, {1, "1970-01-01T00:00:00.000001"},
		{1709208000000000, "2024-02-29T12:00:00"},
		{math.MaxInt64, "+294247-01-10T04:00:54.775807"}, {math.MinInt64, "-290308-12-21T19:59:05.224192"},
	} {
		if got := FormatDatetime(tc.us); got != tc.text {
			t.Errorf("FormatDatetime(%d) = %q, want %q", tc.us, got, tc.text)
		}
		if back, ok := ParseDatetime(tc.text); !ok || back != tc.us {
			t.Errorf("ParseDatetime(%q) = %d, %v; want %d", tc.text, back, ok, tc.us)
		}
	}
	for _, tc := range []struct {
		us   int64
		text string
	}{
		{0, "PT0S"}, {1, "PT0.000001S"}, {500000, "PT0.5S"}, {-3600000000, "-PT1H"},
		{MicrosPerDay + 2*3600000000 + 3*60000000 + 4000005, "P1DT2H3M4.000005S"}, {MicrosPerDay, "P1D"},
		{math.MinInt64, "-P106751991DT4H54.775808S"}, {math.MaxInt64, "P106751991DT4H54.775807S"},
	} {
		if got := FormatDuration(tc.us); got != tc.text {
			t.Errorf("FormatDuration(%d) = %q, want %q", tc.us, got, tc.text)
		}
	}
	for _, bad := range []string{"", "2024-02-30", "2023-02-29", "1900-02-29", "2024-2-01", "2024-01-01 ", "24-01-01",
		"2024-13-01", "2024-00-10", "+5881580-07-12", "-5877641-06-22", "+123-01-01", "２０２４-01-01", "2024-01-01T00:00:00"} {
		if d, ok := ParseDate(bad); ok {
			t.Errorf("ParseDate(%q) = %d, want a failure", bad, d)
		}
	}
	for _, bad := range []string{"2024-01-01", "2024-01-01T24:00:00", "2024-01-01T23:60:00", "2024-01-01T23:59:60",
		"2024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00.", "2024-01-01T00:00:00.1234567",
		"2024-01-01 00:00:00", "+294247-01-10T04:00:54.775808", "-290308-12-21T19:59:05.224191"} {
		if us, ok := ParseDatetime(bad); ok {
			t.Errorf("ParseDatetime(%q) = %d, want a failure", bad, us)
		}
	}
	if !HasTimeZone("2024-01-01T00:00:00Z") || !HasTimeZone("2024-01-01T00:00:00-05:00") || HasTimeZone("-0001-01-01T00:00:00") {
		t.Error("HasTimeZone misreads a zone")
	}
}

// TestCalendarAgainstTime compares the calendar fields, weekday and text
// of random days and instants with Go's time package, seed fixed.
func TestCalendarAgainstTime(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		days := int64(r.Int31()) - int64(r.Int31())
		if i%2 == 0 {
			days = r.Int63n(2*3_000_000) - 3_000_000
		}
		tm := time.Unix(days*86400, 0).UTC()
		y, m, d := CivilFromDays(days)
		if y != int64(tm.Year()) || m != int(tm.Month()) || d != tm.Day() {
			t.Fatalf("CivilFromDays(%d) = %d-%d-%d, time says %s", days, y, m, d, tm)
		}
		if wd := Weekday(days); wd != (int(tm.Weekday())+6)%7+1 {
			t.Fatalf("Weekday(%d) = %d, time says %s", days, wd, tm.Weekday())
		}
		if back := DaysFromCivil(y, m, d); back != days {
			t.Fatalf("DaysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, back, days)
		}
		if tm.Year() >= 0 && tm.Year() <= 9999 {
			if got, want := FormatDate(int32(days)), tm.Format("2006-01-02"); got != want {
				t.Fatalf("FormatDate(%d) = %q, want %q", days, got, want)
			}
		}
		us := r.Int63() - r.Int63()
		dt := time.UnixMicro(us).UTC()
		text := FormatDatetime(us)
		if dt.Year() >= 0 && dt.Year() <= 9999 {
			want := dt.Format("2006-01-02T15:04:05.000000")
			want = strings.TrimSuffix(want, ".000000")
			if text != want {
				t.Fatalf("FormatDatetime(%d) = %q, want %q", us, text, want)
			}
		}
		if back, ok := ParseDatetime(text); !ok || back != us {
			t.Fatalf("ParseDatetime(%q) = %d, %v; want %d", text, back, ok, us)
		}
	}
}

func TestTemporalTyping(t *testing.T) {
	for _, tc := range []struct {
		f    Func
		a, b Type
		want Type
	}{
		{FuncAdd, Date, Duration, Date}, {FuncAdd, Duration, Date, Date}, {FuncAdd, Datetime, Duration, Datetime},
		{FuncAdd, Duration, Datetime, Datetime}, {FuncAdd, Duration, Duration, Duration},
		{FuncSub, Date, Duration, Date}, {FuncSub, Datetime, Duration, Datetime}, {FuncSub, Date, Date, Duration},
		{FuncSub, Datetime, Datetime, Duration}, {FuncSub, Duration, Duration, Duration},
		{FuncSub, Duration, Date, Invalid}, {FuncAdd, Date, Date, Invalid}, {FuncAdd, Date, Int32, Invalid},
		{FuncSub, Date, Datetime, Invalid}, {FuncMul, Duration, Int64, Invalid}, {FuncDiv, Duration, Duration, Invalid},
		{FuncAdd, Int32, Int64, Int64},
	} {
		got, ok := ArithType(tc.f, tc.a, tc.b)
		if got != tc.want || ok != (tc.want != Invalid) {
			t.Errorf("ArithType(%s, %s, %s) = %s, %v; want %s", tc.f, tc.a, tc.b, got, ok, tc.want)
		}
		raises := FuncCanRaise(tc.f, []Type{tc.a, tc.b})
		if tc.want.IsTemporal() && !raises {
			t.Errorf("FuncCanRaise(%s, %s, %s) = false: temporal arithmetic can leave its range", tc.f, tc.a, tc.b)
		}
	}
	s, err := NewSchema(Field{Name: "d", Type: Date, Nullable: true}, Field{Name: "t", Type: Datetime},
		Field{Name: "u", Type: Duration}, Field{Name: "i", Type: Int32})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e     E
		want  Type
		total bool
		err   string
	}{
		{Col("d").Year(), Int32, true, ""},
		{Col("t").Hour(), Int32, true, ""},
		{Col("d").Hour(), Invalid, false, "hour: expects a datetime, got date"},
		{Col("i").Year(), Invalid, false, "year: expects a date or datetime, got int32"},
		{Col("d").Add(Col("u")), Date, false, ""},
		{Col("d").Sub(DateLit("2024-01-01")), Duration, false, ""},
		{Col("d").Lt(DateLit("2024-01-01")), Bool, true, ""},
		{Col("d").Lt(Col("t")), Invalid, false, "lt: cannot compare date and datetime"},
		{Col("d").Add(Lit(1)), Invalid, false, "add: cannot add date and int64"},
		{Col("d").Cast(Datetime), Datetime, false, ""},
		{Col("t").Cast(Date), Date, true, ""},
		{Col("d").TryCast(Datetime), Datetime, true, ""},
		{Col("d").Cast(Int32), Int32, true, ""},
		{Col("d").Cast(Int64), Invalid, false, "cast: no cast from date to int64"},
		{Lit("2024-01-01").Cast(Date), Date, false, ""},
		{Col("u").Cast(String), String, true, ""},
		{DateLit("2024-02-30"), Invalid, false, `date literal "2024-02-30" is not ISO 8601 date text`},
		{DatetimeLit("2024-02-01T00:00:00Z"), Invalid, false, `datetime literal "2024-02-01T00:00:00Z" is not ISO 8601 datetime text`},
	} {
		f, err := TypeOf(tc.e.Expr(), s)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.e, err, tc.err)
			}
			continue
		}
		if err != nil || f.Type != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.e, f.Type, err, tc.want)
			continue
		}
		if got := Total(tc.e.Expr(), s, TrustLanguage); got != tc.total {
			t.Errorf("Total(%s) = %v, want %v", tc.e, got, tc.total)
		}
	}
	for _, tc := range []struct {
		v    Value
		text string
	}{
		{DateValue(19782), `date("2024-02-29")`}, {DatetimeValue(1), `datetime("1970-01-01T00:00:00.000001")`},
		{DurationValue(-5), "duration(-5)"}, {NullValue(Date), "null(date)"}, {NullValue(Duration), "null(duration)"},
	} {
		if got := tc.v.String(); got != tc.text {
			t.Errorf("String() = %s, want %s", got, tc.text)
		}
	}
	if DateValue(1).Identical(Int32Value(1)) || !DateValue(1).Identical(DateValue(1)) || DatetimeValue(1).Identical(DurationValue(1)) {
		t.Error("Identical ignores the temporal type")
	}
}
