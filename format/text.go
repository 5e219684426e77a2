package format

import (
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// valueText is a non-null value as CSV and the table print it: booleans
// true/false, integers in decimal, floats through Float, strings as they
// are (the caller quotes or escapes them), temporal values as ISO 8601
// text (docs/semantics.md, Temporal types).
func valueText(v plan.Value) string {
	switch v.Type() {
	case plan.Bool:
		return strconv.FormatBool(v.Bool())
	case plan.Int32, plan.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case plan.Float64:
		return Float(v.Float())
	case plan.String:
		return v.Str()
	case plan.Date:
		return plan.FormatDate(int32(v.Int()))
	case plan.Datetime:
		return plan.FormatDatetime(v.Int())
	case plan.Duration:
		return plan.FormatDuration(v.Int())
	}
	return ""
}
