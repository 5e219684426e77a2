package plan

import "strconv"

// DateLit is a date literal from ISO 8601 text (`2024-02-29`); text that
// is not a date (docs/semantics.md, Temporal types) makes a literal
// Resolve rejects with a type_error.
func DateLit(text string) E {
	if d, ok := ParseDate(text); ok {
		return E{&Literal{Value: DateValue(d)}}
	}
	return E{&Literal{Value: NullValue(Invalid), bad: "date " + strconv.Quote(Abbrev(text, 40))}}
}

// DatetimeLit is a datetime literal from ISO 8601 text
// (`2024-02-29T12:00:00`, optionally `.ffffff`, no time zone); other text
// makes a literal Resolve rejects with a type_error.
func DatetimeLit(text string) E {
	if us, ok := ParseDatetime(text); ok {
		return E{&Literal{Value: DatetimeValue(us)}}
	}
	return E{&Literal{Value: NullValue(Invalid), bad: "datetime " + strconv.Quote(Abbrev(text, 40))}}
}

// DurationLit is a duration literal of us µs.
func DurationLit(us int64) E { return E{&Literal{Value: DurationValue(us)}} }

// Year is year(e): the calendar year of a date or datetime.
func (e E) Year() E { return call(FuncYear, e) }

// Month is month(e), 1..12.
func (e E) Month() E { return call(FuncMonth, e) }

// Day is day(e), the day of the month.
func (e E) Day() E { return call(FuncDay, e) }

// Weekday is weekday(e), ISO: Monday 1 … Sunday 7.
func (e E) Weekday() E { return call(FuncWeekday, e) }

// Hour is hour(e) of a datetime, 0..23.
func (e E) Hour() E { return call(FuncHour, e) }

// Minute is minute(e) of a datetime, 0..59.
func (e E) Minute() E { return call(FuncMinute, e) }

// Second is second(e) of a datetime, 0..59 (whole seconds).
func (e E) Second() E { return call(FuncSecond, e) }
