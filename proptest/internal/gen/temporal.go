package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// Temporal data and expressions (docs/semantics.md, Temporal types). The
// specials are the values the calendar and the range checks turn on: the
// epoch and the day before it, leap days (2000-02-29, and 1900-03-01 after
// the non-leap 1900-02-28), month and year ends, the smallest and largest
// values of each type, the edges of the days a datetime can hold, and
// durations that overflow any addition.
var (
	specialDate = []int32{0, -1, 1, 11016, 11017, -25508, -25509, 19782, 19783, 8766, 9130, 9131,
		2932896, 2932897, -719528, -719529, math.MinInt32, math.MaxInt32, math.MinInt32 + 1, math.MaxInt32 - 1,
		plan.MaxDatetimeDay, plan.MinDatetimeDay, plan.MaxDatetimeDay + 1, plan.MinDatetimeDay - 1}
	specialDatetime = []int64{0, -1, 1, math.MinInt64, math.MaxInt64, math.MinInt64 + 1, math.MaxInt64 - 1,
		951782400000000, 951868799999999, -2203891200000000, 1709208000000000, 253402300799999999,
		plan.MaxDatetimeDay * plan.MicrosPerDay, (plan.MinDatetimeDay + 1) * plan.MicrosPerDay, 86399999999}
	specialDuration = []int64{0, 1, -1, plan.MicrosPerDay, -plan.MicrosPerDay, plan.MicrosPerDay - 1, -plan.MicrosPerDay - 1,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - plan.MicrosPerDay, 3600000000, 1 << 62, -(1 << 62)}
	// temporalStrings mostly parse as dates or datetimes, so strict casts
	// from strings succeed often enough; the rest are near misses.
	temporalStrings = []string{"1970-01-01", "2000-02-29", "1900-02-29", "2024-02-29", "2023-02-29", "1999-12-31",
		"-0001-12-31", "+10000-01-01", "2000-02-29T23:59:59.999999", "1970-01-01T00:00:00", "1969-12-31T23:59:59.5",
		"2024-01-01T00:00:00Z", "2024-01-01T24:00:00", "+5881580-07-11", "+5881580-07-12", "2024-1-01"}
	temporalTypes = []plan.Type{plan.Date, plan.Datetime, plan.Duration}
	// fieldFuncs extract calendar fields of a date or datetime; clockFuncs
	// those of a datetime only.
	fieldFuncs = []plan.Func{plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday}
	clockFuncs = []plan.Func{plan.FuncHour, plan.FuncMinute, plan.FuncSecond}
)

// temporalOf builds a value of temporal type t from its integer.
func temporalOf(t plan.Type, x int64) plan.Value {
	switch t {
	case plan.Date:
		return plan.DateValue(int32(x))
	case plan.Datetime:
		return plan.DatetimeValue(x)
	}
	return plan.DurationValue(x)
}

// temporalValue draws a non-null temporal value under profile p: near the
// epoch and 2000 (small), or a special (wild).
func (g *gen) temporalValue(t plan.Type, p profile) plan.Value {
	r := g.r
	if p == profWild && r.Intn(100) < 40 {
		return g.temporalSpecial(t)
	}
	switch t {
	case plan.Date:
		return plan.DateValue(int32(10950 + r.Intn(120) - 60)) // around 2000-01-01..2000-03-01
	case plan.Datetime:
		return plan.DatetimeValue(951782400000000 + int64(r.Intn(200)-100)*1_800_000_001)
	}
	return plan.DurationValue(int64(r.Intn(9)-4) * []int64{1, 1_000_000, 3_600_000_000, plan.MicrosPerDay}[r.Intn(4)])
}

// temporalSpecial draws one of t's specials.
func (g *gen) temporalSpecial(t plan.Type) plan.Value {
	switch t {
	case plan.Date:
		return plan.DateValue(specialDate[g.r.Intn(len(specialDate))])
	case plan.Datetime:
		return plan.DatetimeValue(specialDatetime[g.r.Intn(len(specialDatetime))])
	}
	return plan.DurationValue(specialDuration[g.r.Intn(len(specialDuration))])
}

// temporalPool draws the value of a low-cardinality temporal column.
func (g *gen) temporalPool(t plan.Type) plan.Value {
	return temporalOf(t, []int64{0, 1, 11016}[g.r.Intn(3)])
}

// temporalExpr generates an expression of temporal type t: arithmetic with
// durations (which may leave the type's range, so only where raising is
// allowed), differences of dates and datetimes, casts, if and coalesce.
func (g *gen) temporalExpr(c ectx, t plan.Type, depth int) plan.Expr {
	sub := c.noOver()
	for {
		switch x := g.r.Intn(100); {
		case x < 45:
			if c.mode != anyMode {
				continue
			}
			if t == plan.Duration {
				switch g.r.Intn(3) {
				case 0:
					u := []plan.Type{plan.Date, plan.Datetime}[g.r.Intn(2)]
					return call(plan.FuncSub, g.expr(sub, u, depth-1), g.expr(sub, u, depth-1))
				case 1:
					return call(plan.FuncAdd, g.expr(sub, t, depth-1), g.leaf(sub, t))
				}
				return call(plan.FuncSub, g.expr(sub, t, depth-1), g.leaf(sub, t))
			}
			if g.r.Intn(3) == 0 {
				return g.calendarStep(sub, t, depth)
			}
			d := g.leaf(sub, plan.Duration) // a bare duration: the specials overflow
			switch g.r.Intn(3) {
			case 0:
				return call(plan.FuncAdd, g.expr(sub, t, depth-1), d)
			case 1:
				return call(plan.FuncAdd, d, g.expr(sub, t, depth-1))
			}
			return call(plan.FuncSub, g.expr(sub, t, depth-1), d)
		case x < 60:
			return call(plan.FuncIf, g.expr(sub, plan.Bool, depth-1), g.expr(sub, t, depth-1), g.expr(sub, t, depth-1))
		case x < 70:
			return g.coalesce(sub, t, depth)
		default:
			from := []plan.Type{plan.String, t.Physical(), plan.Date, plan.Datetime}[g.r.Intn(4)]
			if !plan.CanCast(from, t) || from == t {
				continue
			}
			var e plan.Expr
			if from == plan.String && g.r.Intn(2) == 0 {
				e = lit(plan.StringValue(temporalStrings[g.r.Intn(len(temporalStrings))]))
			} else {
				e = g.expr(sub, from, depth-1)
			}
			return g.cast(c, e, from, t)
		}
	}
}

// fieldExpr generates a calendar or clock field (int32) of a date or
// datetime expression; these never raise.
func (g *gen) fieldExpr(c ectx, depth int) plan.Expr {
	if g.r.Intn(3) == 0 {
		return call(clockFuncs[g.r.Intn(len(clockFuncs))], g.expr(c, plan.Datetime, depth-1))
	}
	u := []plan.Type{plan.Date, plan.Datetime}[g.r.Intn(2)]
	return call(fieldFuncs[g.r.Intn(len(fieldFuncs))], g.expr(c, u, depth-1))
}

// castSource returns a type castable to t, preferring from.
func castSource(from, t plan.Type) plan.Type {
	if plan.CanCast(from, t) {
		return from
	}
	if t.IsTemporal() {
		return t.Physical()
	}
	if from.IsTemporal() && t == from.Physical() {
		return from
	}
	return t
}

// Calendar steps (docs/semantics.md, Calendar steps): offset_by's month
// steps meet the month ends and leap days of the small profile (dates
// around 2000-02-29) and the range ends of the specials; truncate's one
// part steps, weeks and sub-day units on datetimes.
var (
	offsetSteps   = []string{"1mo", "-1mo", "1y", "-1y", "1q", "1w", "-2w", "1d", "3d", "1y1mo", "2mo1d", "12mo", "-1y6mo", "999999999y"}
	truncateSteps = []string{"1mo", "3mo", "1q", "1y", "1w", "2w", "1d", "7d"}
	clockSteps    = []string{"2h", "1h30m", "-1s", "1ms", "15m", "1us", "1d12h"}
	clockTruncate = []string{"1h", "2h", "15m", "1s", "1ms", "1us", "7us"}
)

// calendarStep generates truncate(x, every) or offset_by(x, every) of a
// date or datetime t.
func (g *gen) calendarStep(c ectx, t plan.Type, depth int) plan.Expr {
	x := g.expr(c, t, depth-1)
	pick := func(a, b []string) string {
		if t == plan.Datetime && g.r.Intn(2) == 0 {
			return b[g.r.Intn(len(b))]
		}
		return a[g.r.Intn(len(a))]
	}
	if g.r.Intn(2) == 0 {
		return call(plan.FuncTruncate, x, lit(plan.StringValue(pick(truncateSteps, clockTruncate))))
	}
	return call(plan.FuncOffsetBy, x, lit(plan.StringValue(pick(offsetSteps, clockSteps))))
}
