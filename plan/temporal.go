package plan

import (
	"math"
	"strconv"
	"strings"
)

// Temporal values (docs/semantics.md, Temporal types): a date is an int32
// count of days since 1970-01-01, a datetime an int64 count of µs since
// 1970-01-01T00:00:00 on a clock without time zone, a duration an int64
// count of µs. The calendar is the proleptic Gregorian one with
// astronomical years (year 0 is 1 BC) and days of exactly 86,400 s. This
// file converts between those integers, calendar fields and ISO 8601 text;
// the kernel, the plan-file decoder and the output formats share it (the
// reference interpreter computes the same fields its own way).

// MicrosPerDay is the length of a day in µs: days have no leap seconds.
const MicrosPerDay = 86_400_000_000

// The range of days a datetime can hold: day MinDatetimeDay's midnight
// lies before MinInt64 µs, but its later instants do not, so a datetime
// falls on a day in [MinDatetimeDay, MaxDatetimeDay].
const (
	MinDatetimeDay = -106_751_992
	MaxDatetimeDay = 106_751_991
)

// FloorDiv divides rounding toward negative infinity (b > 0).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// CivilFromDays returns the calendar year, month (1..12) and day (1..31)
// of the day that lies days days after 1970-01-01 (before it when
// negative). Exact for every int64 whose year fits in int64 (H. Hinnant's
// era algorithm, eras of 146,097 days).
func CivilFromDays(days int64) (y int64, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era-- // floor
	}
	// Within the era every quantity is non-negative: unsigned division by
	// constants compiles to multiplications.
	doe := uint64(z - era*146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = int64(yoe) + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// DaysFromCivil is the inverse of CivilFromDays for a valid calendar day.
func DaysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := FloorDiv(y, 400)
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// isLeap reports whether year y of the proleptic Gregorian calendar is a
// leap year.
func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysInMonth is the number of days of month m (1..12) of year y.
func DaysInMonth(y int64, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Weekday is the ISO weekday of a day: Monday 1 … Sunday 7 (1970-01-01,
// day 0, was a Thursday).
func Weekday(days int64) int {
	return int((days%7+7+3)%7) + 1
}

// SplitDatetime splits µs since the epoch into the day and the µs since
// that day's midnight (0 <= tod < MicrosPerDay), flooring toward the past.
func SplitDatetime(us int64) (days, tod int64) {
	days = FloorDiv(us, MicrosPerDay)
	return days, us - days*MicrosPerDay
}

// DatetimeFromParts returns the instant tod µs (0 <= tod < MicrosPerDay)
// after the midnight of day days, or false when it lies outside int64 µs.
func DatetimeFromParts(days, tod int64) (int64, bool) {
	if days >= 0 {
		if days > MaxDatetimeDay {
			return 0, false
		}
		r := days * MicrosPerDay
		if r > math.MaxInt64-tod {
			return 0, false
		}
		return r + tod, true
	}
	if days < MinDatetimeDay {
		return 0, false
	}
	r := (days + 1) * MicrosPerDay
	x := tod - MicrosPerDay // in [-MicrosPerDay, 0)
	if r < math.MinInt64-x {
		return 0, false
	}
	return r + x, true
}

// appendYear writes a year as ISO 8601 does: four digits within
// 0000..9999, else a sign and at least four digits.
func appendYear(b []byte, y int64) []byte {
	if y < 0 || y > 9999 {
		if y < 0 {
			b = append(b, '-')
		} else {
			b = append(b, '+')
		}
		u := uint64(y)
		if y < 0 {
			u = uint64(-y)
		}
		s := strconv.FormatUint(u, 10)
		for i := len(s); i < 4; i++ {
			b = append(b, '0')
		}
		return append(b, s...)
	}
	return appendPadded(b, y, 4)
}

func appendPadded(b []byte, v int64, width int) []byte {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// AppendDate appends a day's ISO 8601 text (`2024-02-29`).
func AppendDate(b []byte, days int64) []byte {
	y, m, d := CivilFromDays(days)
	b = appendYear(b, y)
	b = append(b, '-')
	b = appendPadded(b, int64(m), 2)
	b = append(b, '-')
	return appendPadded(b, int64(d), 2)
}

// FormatDate returns a date's ISO 8601 text (`2024-02-29`).
func FormatDate(days int32) string { return string(AppendDate(nil, int64(days))) }

// AppendDatetime appends a datetime's ISO 8601 text
// (`2024-02-29T12:00:00`, `.ffffff` added when the µs are not zero).
func AppendDatetime(b []byte, us int64) []byte {
	days, tod := SplitDatetime(us)
	b = AppendDate(b, days)
	b = append(b, 'T')
	secs := tod / 1_000_000
	b = appendPadded(b, secs/3600, 2)
	b = append(b, ':')
	b = appendPadded(b, secs/60%60, 2)
	b = append(b, ':')
	b = appendPadded(b, secs%60, 2)
	if f := tod % 1_000_000; f != 0 {
		b = append(b, '.')
		b = appendPadded(b, f, 6)
	}
	return b
}

// FormatDatetime returns a datetime's ISO 8601 text.
func FormatDatetime(us int64) string { return string(AppendDatetime(nil, us)) }

// AppendDuration appends a duration's ISO 8601 text
// (`[-]PnDTnHnMn[.f]S`, zero parts and trailing fraction zeros left
// out, `PT0S` for zero).
func AppendDuration(b []byte, us int64) []byte {
	if us == 0 {
		return append(b, "PT0S"...)
	}
	u := uint64(us)
	if us < 0 {
		b = append(b, '-')
		u = uint64(-us) // MinInt64 wraps to its magnitude as a uint64
	}
	b = append(b, 'P')
	const day = uint64(MicrosPerDay)
	days, rest := u/day, u%day
	if days != 0 {
		b = strconv.AppendUint(b, days, 10)
		b = append(b, 'D')
	}
	if rest == 0 {
		return b
	}
	b = append(b, 'T')
	h, rest := rest/3_600_000_000, rest%3_600_000_000
	mi, rest := rest/60_000_000, rest%60_000_000
	s, f := rest/1_000_000, rest%1_000_000
	if h != 0 {
		b = strconv.AppendUint(b, h, 10)
		b = append(b, 'H')
	}
	if mi != 0 {
		b = strconv.AppendUint(b, mi, 10)
		b = append(b, 'M')
	}
	if s != 0 || f != 0 {
		b = strconv.AppendUint(b, s, 10)
		if f != 0 {
			b = append(b, '.')
			n := len(b)
			b = appendPadded(b, int64(f), 6)
			for b[len(b)-1] == '0' && len(b) > n {
				b = b[:len(b)-1]
			}
		}
		b = append(b, 'S')
	}
	return b
}

// FormatDuration returns a duration's ISO 8601 text.
func FormatDuration(us int64) string { return string(AppendDuration(nil, us)) }

// digits reads exactly n ASCII digits at the start of s.
func digits(s string, n int) (int64, bool) {
	if len(s) < n {
		return 0, false
	}
	var v int64
	for i := 0; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseDay reads `YYYY-MM-DD` (or a signed year of 4 to 10 digits) at the
// start of s and returns the day and the rest of s.
func parseDay(s string) (int64, string, bool) {
	neg := false
	n := 4
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
		n = 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n < 4 || n > 10 {
			return 0, "", false
		}
	}
	y, ok := digits(s, n)
	if !ok || len(s) < n+6 || s[n] != '-' || s[n+3] != '-' {
		return 0, "", false
	}
	if neg {
		y = -y
	}
	m, ok1 := digits(s[n+1:], 2)
	d, ok2 := digits(s[n+4:], 2)
	if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 || d > int64(DaysInMonth(y, int(m))) {
		return 0, "", false
	}
	return DaysFromCivil(y, int(m), int(d)), s[n+6:], true
}

// ParseDate reads a date from exactly `YYYY-MM-DD` (or a signed year of
// four or more digits, as FormatDate writes years outside 0000..9999); it
// fails on anything else, on a day no calendar has, and outside int32.
func ParseDate(s string) (int32, bool) {
	days, rest, ok := parseDay(s)
	if !ok || rest != "" || days < math.MinInt32 || days > math.MaxInt32 {
		return 0, false
	}
	return int32(days), true
}

// ParseDatetime reads a datetime from exactly `YYYY-MM-DDTHH:MM:SS` with an
// optional `.` and 1 to 6 fraction digits (no time zone); it fails on
// anything else and outside int64 µs.
func ParseDatetime(s string) (int64, bool) {
	days, rest, ok := parseDay(s)
	if !ok || len(rest) < 9 || rest[0] != 'T' || rest[3] != ':' || rest[6] != ':' {
		return 0, false
	}
	h, ok1 := digits(rest[1:], 2)
	mi, ok2 := digits(rest[4:], 2)
	sec, ok3 := digits(rest[7:], 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	rest = rest[9:]
	var frac int64
	if rest != "" {
		if rest[0] != '.' || len(rest) < 2 || len(rest) > 7 {
			return 0, false
		}
		f, ok := digits(rest[1:], len(rest)-1)
		if !ok {
			return 0, false
		}
		for i := len(rest) - 1; i < 6; i++ {
			f *= 10
		}
		frac = f
	}
	return DatetimeFromParts(days, ((h*60+mi)*60+sec)*1_000_000+frac)
}

// HasTimeZone reports whether a datetime text names a time zone (ends in
// `Z` or a `+hh:mm` / `-hh:mm` offset after the time), so that plan files
// can say so instead of calling it malformed.
func HasTimeZone(s string) bool {
	i := strings.IndexByte(s, 'T')
	if i < 0 {
		return false
	}
	t := s[i+1:]
	return strings.HasSuffix(t, "Z") || strings.ContainsAny(t, "+-")
}
