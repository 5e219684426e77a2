package reference

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"time"

	"github.com/dfopt/dfopt/plan"
)

// Temporal values, from docs/semantics.md (Temporal types), computed
// independently of the kernel: calendar fields through Go's time package,
// arithmetic in math/big and checked against the type's range afterwards,
// text parsed with regular expressions and validated by time.Date.

var (
	bigDay   = big.NewInt(86_400_000_000)
	bigMinI  = big.NewInt(math.MinInt64)
	bigMaxI  = big.NewInt(math.MaxInt64)
	bigMin32 = big.NewInt(math.MinInt32)
	bigMax32 = big.NewInt(math.MaxInt32)
)

// temporalResult is the type of add or sub over a and b when one of them
// is temporal, per the table of docs/semantics.md; Invalid otherwise.
func temporalResult(fn plan.Func, a, b plan.Type) plan.Type {
	switch {
	case fn == plan.FuncAdd && (a == plan.Date || a == plan.Datetime) && b == plan.Duration:
		return a
	case fn == plan.FuncAdd && a == plan.Duration && (b == plan.Date || b == plan.Datetime || b == plan.Duration):
		return b
	case fn == plan.FuncSub && b == plan.Duration && (a == plan.Date || a == plan.Datetime || a == plan.Duration):
		return a
	case fn == plan.FuncSub && a == b && (a == plan.Date || a == plan.Datetime):
		return plan.Duration
	}
	return plan.Invalid
}

func isTemporal(t plan.Type) bool { return t == plan.Date || t == plan.Datetime || t == plan.Duration }

// micros is a value's instant or length in µs, exactly: a date is its
// midnight.
func micros(v plan.Value) *big.Int {
	x := big.NewInt(v.Int())
	if v.Type() == plan.Date {
		x.Mul(x, bigDay)
	}
	return x
}

// temporalArith applies temporal add or sub row by row; the first row whose
// exact result leaves the result type raises temporal_out_of_range.
func (v *env) temporalArith(e *plan.Call, a, b []plan.Value, rows []int, t plan.Type) ([]plan.Value, *plan.Error) {
	out := make([]plan.Value, len(rows))
	for k := range out {
		x, y := a[k], b[k]
		if x.IsNull() || y.IsNull() {
			out[k] = plan.NullValue(t)
			continue
		}
		r := new(big.Int)
		if e.Fn == plan.FuncAdd {
			r.Add(micros(x), micros(y))
		} else {
			r.Sub(micros(x), micros(y))
		}
		lo, hi := bigMinI, bigMaxI
		if t == plan.Date {
			r.Div(r, bigDay) // Euclidean: the floor for a positive divisor
			lo, hi = bigMin32, bigMax32
		}
		if r.Cmp(lo) < 0 || r.Cmp(hi) > 0 {
			return nil, v.fail(plan.TemporalOutOfRange, e, rows, k, fmt.Sprintf("%s %s %s is out of the range of %s", x, e.Fn, y, t))
		}
		switch t {
		case plan.Date:
			out[k] = plan.DateValue(int32(r.Int64()))
		case plan.Datetime:
			out[k] = plan.DatetimeValue(r.Int64())
		default:
			out[k] = plan.DurationValue(r.Int64())
		}
	}
	return out, nil
}

// clock is the calendar time of a date (its midnight) or datetime.
func clock(v plan.Value) time.Time {
	if v.Type() == plan.Date {
		return time.Unix(v.Int()*86400, 0).UTC()
	}
	return time.UnixMicro(v.Int()).UTC()
}

// temporalField is year, month, day, weekday (ISO, Monday 1), hour,
// minute or second of a non-null date or datetime.
func temporalField(fn plan.Func, v plan.Value) plan.Value {
	c := clock(v)
	var r int
	switch fn {
	case plan.FuncYear:
		r = c.Year()
	case plan.FuncMonth:
		r = int(c.Month())
	case plan.FuncDay:
		r = c.Day()
	case plan.FuncWeekday:
		r = int(c.Weekday())
		if r == 0 {
			r = 7
		}
	case plan.FuncHour:
		r = c.Hour()
	case plan.FuncMinute:
		r = c.Minute()
	case plan.FuncSecond:
		r = c.Second()
	}
	return plan.Int32Value(int32(r))
}

func isTemporalField(fn plan.Func) bool {
	switch fn {
	case plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday, plan.FuncHour, plan.FuncMinute, plan.FuncSecond:
		return true
	}
	return false
}

// yearText writes a year: four digits in 0..9999, else a sign and at least
// four digits.
func yearText(y int) string {
	switch {
	case y >= 0 && y <= 9999:
		return fmt.Sprintf("%04d", y)
	case y < 0:
		return fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("+%04d", y)
}

// temporalText is the ISO 8601 text of a non-null temporal value.
func temporalText(v plan.Value) string {
	switch v.Type() {
	case plan.Date:
		c := clock(v)
		return fmt.Sprintf("%s-%02d-%02d", yearText(c.Year()), int(c.Month()), c.Day())
	case plan.Datetime:
		c := clock(v)
		s := fmt.Sprintf("%s-%02d-%02dT%02d:%02d:%02d", yearText(c.Year()), int(c.Month()), c.Day(), c.Hour(), c.Minute(), c.Second())
		if us := c.Nanosecond() / 1000; us != 0 {
			s += fmt.Sprintf(".%06d", us)
		}
		return s
	}
	// A duration: [-]P[nD][T[nH][nM][n[.f]S]].
	if v.Int() == 0 {
		return "PT0S"
	}
	m := new(big.Int).Abs(big.NewInt(v.Int()))
	sign := ""
	if v.Int() < 0 {
		sign = "-"
	}
	parts := func(unit int64) int64 {
		q, r := new(big.Int).QuoRem(m, big.NewInt(unit), new(big.Int))
		m = r
		return q.Int64()
	}
	days := parts(86_400_000_000)
	h := parts(3_600_000_000)
	mi := parts(60_000_000)
	sec := parts(1_000_000)
	frac := m.Int64()
	s := sign + "P"
	if days > 0 {
		s += strconv.FormatInt(days, 10) + "D"
	}
	if h == 0 && mi == 0 && sec == 0 && frac == 0 {
		return s
	}
	s += "T"
	if h > 0 {
		s += strconv.FormatInt(h, 10) + "H"
	}
	if mi > 0 {
		s += strconv.FormatInt(mi, 10) + "M"
	}
	if sec > 0 || frac > 0 {
		s += strconv.FormatInt(sec, 10)
		if frac > 0 {
			f := fmt.Sprintf("%06d", frac)
			for f[len(f)-1] == '0' {
				f = f[:len(f)-1]
			}
			s += "." + f
		}
		s += "S"
	}
	return s
}

var (
	dateRE     = regexp.MustCompile(`^([+-][0-9]{4,10}|[0-9]{4})-([0-9]{2})-([0-9]{2})$`)
	datetimeRE = regexp.MustCompile(`^([+-][0-9]{4,10}|[0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,6})?$`)
)

// parseDays reads the day of year, month and day text, or false when no
// calendar has it.
func parseDays(ys, ms, ds string) (*big.Int, bool) {
	y, err := strconv.Atoi(ys)
	if err != nil {
		return nil, false
	}
	m, _ := strconv.Atoi(ms)
	d, _ := strconv.Atoi(ds)
	c := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || c.Year() != y || int(c.Month()) != m || c.Day() != d {
		return nil, false
	}
	return big.NewInt(c.Unix() / 86400), true
}

// parseTemporal casts a string to a date or datetime.
func parseTemporal(s string, to plan.Type) (plan.Value, bool) {
	if to == plan.Date {
		g := dateRE.FindStringSubmatch(s)
		if g == nil {
			return plan.Value{}, false
		}
		days, ok := parseDays(g[1], g[2], g[3])
		if !ok || days.Cmp(bigMin32) < 0 || days.Cmp(bigMax32) > 0 {
			return plan.Value{}, false
		}
		return plan.DateValue(int32(days.Int64())), true
	}
	g := datetimeRE.FindStringSubmatch(s)
	if g == nil {
		return plan.Value{}, false
	}
	days, ok := parseDays(g[1], g[2], g[3])
	h, _ := strconv.Atoi(g[4])
	mi, _ := strconv.Atoi(g[5])
	sec, _ := strconv.Atoi(g[6])
	if !ok || h > 23 || mi > 59 || sec > 59 {
		return plan.Value{}, false
	}
	frac := int64(0)
	if g[7] != "" {
		f := g[7][1:]
		for len(f) < 6 {
			f += "0"
		}
		frac, _ = strconv.ParseInt(f, 10, 64)
	}
	us := new(big.Int).Mul(days, bigDay)
	us.Add(us, big.NewInt(((int64(h)*60+int64(mi))*60+int64(sec))*1_000_000+frac))
	if us.Cmp(bigMinI) < 0 || us.Cmp(bigMaxI) > 0 {
		return plan.Value{}, false
	}
	return plan.DatetimeValue(us.Int64()), true
}

// castTemporal converts a non-null value to or from a temporal type (not
// to string); ok is false where a strict cast fails. handled is false for
// pairs that involve no temporal type.
func castTemporal(v plan.Value, to plan.Type) (r plan.Value, ok, handled bool) {
	from := v.Type()
	if !isTemporal(from) && !isTemporal(to) {
		return plan.Value{}, false, false
	}
	switch {
	case from == plan.String:
		r, ok = parseTemporal(v.Str(), to)
		return r, ok, true
	case from == plan.Date && to == plan.Datetime:
		us := micros(v)
		if us.Cmp(bigMinI) < 0 || us.Cmp(bigMaxI) > 0 {
			return plan.Value{}, false, true
		}
		return plan.DatetimeValue(us.Int64()), true, true
	case from == plan.Datetime && to == plan.Date:
		d := new(big.Int).Div(big.NewInt(v.Int()), bigDay)
		return plan.DateValue(int32(d.Int64())), true, true
	case from == plan.Date && to == plan.Int32:
		return plan.Int32Value(int32(v.Int())), true, true
	case from == plan.Int32 && to == plan.Date:
		return plan.DateValue(int32(v.Int())), true, true
	case (from == plan.Datetime || from == plan.Duration) && to == plan.Int64:
		return plan.Int64Value(v.Int()), true, true
	case from == plan.Int64 && to == plan.Datetime:
		return plan.DatetimeValue(v.Int()), true, true
	case from == plan.Int64 && to == plan.Duration:
		return plan.DurationValue(v.Int()), true, true
	}
	return plan.Value{}, false, true
}

// calendarStep is truncate or offset_by of a non-null date or datetime, on
// Go's proleptic Gregorian calendar (time.Time in UTC), written from
// docs/semantics.md (Calendar steps): ok is false when the result leaves
// the type's range.
func calendarStep(fn plan.Func, x plan.Value, e plan.Every) (plan.Value, bool) {
	c := clock(x)
	var r time.Time
	micros := big.NewInt(0) // µs added after the calendar part
	if fn == plan.FuncOffsetBy {
		// Months on the calendar, the day clamped to the target month's
		// length; then weeks and days; then µs.
		total := int64(c.Year())*12 + int64(c.Month()-1) + e.Months
		y := total / 12
		m := total % 12
		if m < 0 {
			m += 12
			y--
		}
		last := time.Date(int(y), time.Month(m+1)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		d := min(c.Day(), last)
		r = time.Date(int(y), time.Month(m+1), d, c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.UTC)
		r = r.AddDate(0, 0, int(7*e.Weeks+e.Days))
		micros.SetInt64(e.Micros)
	} else {
		midnight := time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)
		switch {
		case e.Months > 0:
			mi := (int64(c.Year())-1970)*12 + int64(c.Month()-1)
			q := mi / e.Months
			if mi%e.Months < 0 {
				q--
			}
			mi = q * e.Months
			y, m := mi/12, mi%12
			if m < 0 {
				m += 12
				y--
			}
			r = time.Date(int(1970+y), time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
		case e.Weeks > 0:
			// Weeks start on Monday; 1970-01-05 was one.
			monday := time.Date(1970, 1, 5, 0, 0, 0, 0, time.UTC)
			days := (midnight.Unix() - monday.Unix()) / 86400 // exact: both are midnights
			span := 7 * e.Weeks
			q := days / span
			if days%span < 0 {
				q--
			}
			r = monday.AddDate(0, 0, int(q*span))
		case e.Days > 0:
			days := midnight.Unix() / 86400
			q := days / e.Days
			if days%e.Days < 0 {
				q--
			}
			r = time.Unix(q*e.Days*86400, 0).UTC()
		default:
			// A step below a day: µs since the epoch, rounded down.
			us := new(big.Int).SetInt64(x.Int())
			step := big.NewInt(e.Micros)
			q := new(big.Int).Div(us, step) // Euclidean: rounds down for a positive step
			return bigTemporal(x.Type(), new(big.Int).Mul(q, step))
		}
	}
	us := new(big.Int).Mul(big.NewInt(r.Unix()), big.NewInt(1_000_000))
	us.Add(us, big.NewInt(int64(r.Nanosecond()/1000)))
	us.Add(us, micros)
	if x.Type() == plan.Date {
		days := new(big.Int).Div(us, big.NewInt(86_400_000_000))
		if !days.IsInt64() || days.Int64() < math.MinInt32 || days.Int64() > math.MaxInt32 {
			return plan.Value{}, false
		}
		return plan.DateValue(int32(days.Int64())), true
	}
	return bigTemporal(plan.Datetime, us)
}

// bigTemporal is the datetime of us µs, or false outside int64.
func bigTemporal(t plan.Type, us *big.Int) (plan.Value, bool) {
	if !us.IsInt64() {
		return plan.Value{}, false
	}
	return plan.DatetimeValue(us.Int64()), true
}
