package plan

import (
	"fmt"
	"math"
	"strings"
)

// Every is a calendar step of truncate and offset_by (docs/semantics.md,
// Calendar steps): whole months (y = 12, q = 3, mo = 1), weeks, days and
// µs (h, m, s, ms, us), each signed.
type Every struct {
	Months, Weeks, Days, Micros int64
}

// everyUnits maps a unit to its part of an Every and its size there.
var everyUnits = []struct {
	name string
	set  func(e *Every, n int64)
}{
	{"mo", func(e *Every, n int64) { e.Months += n }},
	{"ms", func(e *Every, n int64) { e.Micros += n * 1000 }},
	{"us", func(e *Every, n int64) { e.Micros += n }},
	{"y", func(e *Every, n int64) { e.Months += 12 * n }},
	{"q", func(e *Every, n int64) { e.Months += 3 * n }},
	{"w", func(e *Every, n int64) { e.Weeks += n }},
	{"d", func(e *Every, n int64) { e.Days += n }},
	{"h", func(e *Every, n int64) { e.Micros += n * 3_600_000_000 }},
	{"m", func(e *Every, n int64) { e.Micros += n * 60_000_000 }},
	{"s", func(e *Every, n int64) { e.Micros += n * 1_000_000 }},
}

// ParseEvery reads a calendar step: an optional '-' then one or more
// parts `<n><unit>`, n 1 to 9 decimal digits, unit one of y q mo w d h m s
// ms us (`1mo`, `2h`, `1y6mo`, `-1d12h`); units counts how many parts it
// had. A '-' negates every part.
func ParseEvery(s string) (e Every, units int, err error) {
	if len(s) > 64 {
		return Every{}, 0, fmt.Errorf("calendar step of %d bytes: at most 64", len(s))
	}
	neg := strings.HasPrefix(s, "-")
	rest := strings.TrimPrefix(s, "-")
	if rest == "" {
		return Every{}, 0, fmt.Errorf("empty calendar step %q", s)
	}
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 {
			return Every{}, 0, fmt.Errorf("calendar step %q: each part is 1 to 9 digits and a unit (y, q, mo, w, d, h, m, s, ms, us)", s)
		}
		var n int64
		for _, c := range rest[:i] {
			n = n*10 + int64(c-'0')
		}
		rest = rest[i:]
		found := false
		for _, u := range everyUnits {
			if strings.HasPrefix(rest, u.name) {
				u.set(&e, n)
				rest = rest[len(u.name):]
				found = true
				break
			}
		}
		if !found {
			return Every{}, 0, fmt.Errorf("calendar step %q: unknown unit (y, q, mo, w, d, h, m, s, ms, us)", s)
		}
		units++
	}
	if neg {
		e = Every{-e.Months, -e.Weeks, -e.Days, -e.Micros}
	}
	return e, units, nil
}

// EveryParam returns the step of a truncate(x, every) or offset_by(x,
// every) call whose x has type t: every a non-null string literal ParseEvery
// reads; for a date, no part below a day; for truncate, exactly one part,
// positive. Anything else is a type error naming the call.
func EveryParam(c *Call, t Type) (Every, error) {
	if c == nil || len(c.Args) != 2 {
		return Every{}, errorf(TypeError, c, "expects (x, every)")
	}
	name := c.Fn.String()
	lit, ok := Unalias(c.Args[1]).(*Literal)
	if !ok || lit.Value.Type() != String || lit.Value.IsNull() {
		return Every{}, errorf(TypeError, c, "%s: every must be a string literal such as \"1mo\"", name)
	}
	e, units, err := ParseEvery(lit.Value.Str())
	if err != nil {
		return Every{}, errorf(TypeError, c, "%s: %v", name, err)
	}
	if t == Date && e.Micros != 0 {
		return Every{}, errorf(TypeError, c, "%s: a date takes no step below a day, got %q", name, lit.Value.Str())
	}
	if c.Fn == FuncTruncate && (units != 1 || e.Months < 0 || e.Weeks < 0 || e.Days < 0 || e.Micros < 0 || e == Every{}) {
		return Every{}, errorf(TypeError, c, "truncate: every must be one positive part (\"1mo\", \"2h\"), got %q", lit.Value.Str())
	}
	return e, nil
}

// OffsetBy adds the step e to v, a date (days) or datetime (µs): the
// months first, on the calendar (the day of the month kept, or the last
// day of the target month when that is shorter: Jan 31 + 1mo is Feb 28 or
// 29), then the weeks and days, then the µs. ok is false when the result
// (or a step on the way) leaves the type's range.
func OffsetBy(t Type, v int64, e Every) (int64, bool) {
	days, tod := v, int64(0)
	if t == Datetime {
		days, tod = SplitDatetime(v)
	}
	if e.Months != 0 {
		y, m, d := CivilFromDays(days)
		total := y*12 + int64(m-1) + e.Months
		ny := FloorDiv(total, 12)
		nm := int(total-ny*12) + 1
		if dm := DaysInMonth(ny, nm); d > dm {
			d = dm
		}
		days = DaysFromCivil(ny, nm, d)
	}
	days += 7*e.Weeks + e.Days
	if t == Date {
		if days < math.MinInt32 || days > math.MaxInt32 {
			return 0, false
		}
		return days, true
	}
	r, ok := DatetimeFromParts(days, tod)
	if !ok {
		return 0, false
	}
	s := r + e.Micros
	if (e.Micros > 0 && s < r) || (e.Micros < 0 && s > r) {
		return 0, false
	}
	return s, true
}

// Truncate rounds v, a date (days) or datetime (µs), down to the start of
// its window of the one-part step e: months (windows of e.Months months
// counted from 1970-01, starting on the 1st at midnight), weeks (from
// Monday 1970-01-05), days (from 1970-01-01) or µs (from the epoch). ok is
// false when that start leaves the type's range.
func Truncate(t Type, v int64, e Every) (int64, bool) {
	if e.Micros > 0 {
		rem := v % e.Micros
		if rem < 0 {
			rem += e.Micros
		}
		if v < math.MinInt64+rem {
			return 0, false
		}
		return v - rem, true
	}
	days := v
	if t == Datetime {
		days, _ = SplitDatetime(v)
	}
	switch {
	case e.Months > 0:
		y, m, _ := CivilFromDays(days)
		mi := FloorDiv((y-1970)*12+int64(m-1), e.Months) * e.Months
		ny := 1970 + FloorDiv(mi, 12)
		days = DaysFromCivil(ny, int(mi-FloorDiv(mi, 12)*12)+1, 1)
	case e.Weeks > 0:
		days = FloorDiv(days-4, 7*e.Weeks)*7*e.Weeks + 4
	case e.Days > 0:
		days = FloorDiv(days, e.Days) * e.Days
	}
	if t == Date {
		if days < math.MinInt32 || days > math.MaxInt32 {
			return 0, false
		}
		return days, true
	}
	return DatetimeFromParts(days, 0)
}
