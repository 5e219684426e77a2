package format

import (
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// valueText is a non-null value as CSV and the table print it: booleans
// true/false, integers in decimal, floats through Float, strings as they
// are (the caller quotes or escapes them), temporal values as ISO 8601
// text (docs/semantics.md, Temporal types), lists as `[1, null, 3]` and
// structs as `{a: 1, b: null}` with their string elements Go-quoted
// (docs/semantics.md, Lists and structs).
func valueText(v plan.Value) string {
	if v.Type().IsNested() {
		return nestedText(v)
	}
	switch v.Type() {
	case plan.Bool:
		return strconv.FormatBool(v.Bool())
	case plan.Int8, plan.Int16, plan.Int32, plan.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case plan.Float64:
		return Float(v.Float())
	case plan.Float32:
		return Float32(v.Float32())
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

// nestedText renders a non-null list or struct value.
func nestedText(v plan.Value) string {
	var b strings.Builder
	elem := func(e plan.Value) {
		switch {
		case e.IsNull():
			b.WriteString("null")
		case e.Type() == plan.String:
			b.WriteString(strconv.Quote(e.Str()))
		default:
			b.WriteString(valueText(e))
		}
	}
	if v.Type().IsList() {
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteString(", ")
			}
			elem(e)
		}
		b.WriteByte(']')
		return b.String()
	}
	fs := v.Type().StructFields()
	b.WriteByte('{')
	for i, e := range v.Elems() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fieldName(fs[i].Name))
		b.WriteString(": ")
		elem(e)
	}
	b.WriteByte('}')
	return b.String()
}

// fieldName writes a struct field name bare when it is a plain
// identifier, Go-quoted otherwise (as in the type's text).
func fieldName(n string) string {
	for i, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return strconv.Quote(n)
		}
	}
	if n == "" {
		return `""`
	}
	return n
}
