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

// AsofOptions are an as-of join's parameters beyond its inputs
// (docs/semantics.md, asof_join). The zero value of each field is the
// default: backward, no by-keys, no tolerance, exact matches allowed, the
// default suffix. RightOn defaults to LeftOn and RightBy to LeftBy.
type AsofOptions struct {
	LeftOn, RightOn string
	LeftBy, RightBy []string
	Strategy        AsofStrategy
	// Tolerance is a literal (Lit or DurationLit); the zero E means none.
	Tolerance    E
	ExcludeExact bool
	Suffix       string
}

// JoinAsof joins every row of f, in order, with the nearest row of right
// by the key (an as-of join).
func (f Frame) JoinAsof(right Frame, o AsofOptions) Frame {
	n := &AsOfJoinNode{Left: f.node, Right: right.node, LeftOn: o.LeftOn, RightOn: o.RightOn,
		LeftBy: o.LeftBy, RightBy: o.RightBy, Strategy: o.Strategy, Tolerance: o.Tolerance.x,
		ExcludeExact: o.ExcludeExact, Suffix: o.Suffix}
	if n.RightOn == "" {
		n.RightOn = n.LeftOn
	}
	if n.RightBy == nil {
		n.RightBy = n.LeftBy
	}
	return Frame{node: n}
}

// WindowOptions are a temporal_group's optional parameters; the zero
// value of each is its default (docs/semantics.md, temporal_group).
type WindowOptions struct {
	// Period and Offset are literals; the zero E means the default.
	Period, Offset E
	Closed         WindowClosed
	Label          WindowLabel
	By             []string
}

// GroupByDynamic aggregates over the windows [offset + k × every, ... +
// period) of the index column (group_by_dynamic).
func (f Frame) GroupByDynamic(index string, every E, o WindowOptions, aggs ...E) Frame {
	return Frame{node: &TemporalGroupNode{Input: f.node, Mode: TemporalDynamic, Index: index, Every: every.x,
		Period: o.Period.x, Offset: o.Offset.x, Closed: o.Closed, LabelKind: o.Label, By: o.By, Aggs: unwrap(aggs)}}
}

// Rolling aggregates, for every row, over the rows whose index lies
// within period of it (rolling; o.Label is not used).
func (f Frame) Rolling(index string, period E, o WindowOptions, aggs ...E) Frame {
	return Frame{node: &TemporalGroupNode{Input: f.node, Mode: TemporalRolling, Index: index, Period: period.x,
		Offset: o.Offset.x, Closed: o.Closed, By: o.By, Aggs: unwrap(aggs)}}
}
