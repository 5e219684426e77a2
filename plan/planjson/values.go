package planjson

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// maxExactInt is 2^53: integers beyond ±maxExactInt are written as strings,
// because many JSON readers (JavaScript, jq) hold numbers in a float64 and
// would silently round them.
const maxExactInt = 1 << 53

// The float64 specials, spelled as strings because JSON has no literal for
// them. "-0" keeps the sign bit that a JSON number reader might drop.
const (
	nanText    = "NaN"
	infText    = "Inf"
	negInfText = "-Inf"
	negZero    = "-0"
	negZeroAlt = "-0.0"
)

// decodeValue converts the JSON value v to a plan.Value of type t. The
// message of a failed conversion does not include the path; the caller adds
// it (lazily, so that a million-value column pays for no path strings).
func decodeValue(v *jvalue, t plan.Type) (plan.Value, string) {
	if v.kind == jNull {
		return plan.NullValue(t), ""
	}
	if t.IsNested() {
		return decodeNested(v, t)
	}
	switch t {
	case plan.Int64, plan.Int32:
		n, msg := decodeInt(v, t)
		if msg != "" {
			return plan.Value{}, msg
		}
		if t == plan.Int32 {
			return plan.Int32Value(int32(n)), ""
		}
		return plan.Int64Value(n), ""
	case plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64:
		return decodeNarrowInt(v, t)
	case plan.Float32:
		if v.kind == jNumber {
			// Read as a float32 directly: parsing a float64 and then
			// rounding it could round twice.
			f, err := strconv.ParseFloat(v.s, 32)
			if err != nil && (math.IsInf(f, 0) || !errors.Is(err, strconv.ErrRange)) {
				return plan.Value{}, fmt.Sprintf("float32 value %s out of range (write \"Inf\" or \"-Inf\" for an infinity)", echo(v.s))
			}
			return plan.Float32Value(float32(f)), ""
		}
		f, msg := decodeFloat(v)
		if msg != "" {
			return plan.Value{}, strings.Replace(msg, "float64", "float32", 1)
		}
		g := plan.Float64To32(f)
		if math.IsInf(float64(g), 0) && !math.IsInf(f, 0) {
			return plan.Value{}, fmt.Sprintf("float32 value %s out of range", echo(v.s))
		}
		return plan.Float32Value(g), ""
	case plan.Float64:
		f, msg := decodeFloat(v)
		if msg != "" {
			return plan.Value{}, msg
		}
		return plan.Float64Value(f), ""
	case plan.String:
		if v.kind != jString {
			return plan.Value{}, fmt.Sprintf("expected a string value, got %s", v.kind)
		}
		return plan.StringValue(v.s), ""
	case plan.Bool:
		if v.kind != jBool {
			return plan.Value{}, fmt.Sprintf("expected a bool value (true or false), got %s", v.kind)
		}
		return plan.BoolValue(v.b), ""
	case plan.Date:
		if v.kind != jString {
			return plan.Value{}, fmt.Sprintf(`expected a date value (ISO 8601 text such as "2024-02-29"), got %s`, v.kind)
		}
		d, ok := plan.ParseDate(v.s)
		if !ok {
			return plan.Value{}, fmt.Sprintf(`date value %q is not a date (YYYY-MM-DD, a real calendar day)`, echo(v.s))
		}
		return plan.DateValue(d), ""
	case plan.Datetime:
		if v.kind != jString {
			return plan.Value{}, fmt.Sprintf(`expected a datetime value (ISO 8601 text such as "2024-02-29T12:00:00"), got %s`, v.kind)
		}
		us, ok := plan.ParseDatetime(v.s)
		switch {
		case !ok && plan.HasTimeZone(v.s):
			return plan.Value{}, fmt.Sprintf(`datetime value %q names a time zone; datetimes carry none (write the clock reading without "Z" or an offset)`, echo(v.s))
		case !ok:
			return plan.Value{}, fmt.Sprintf(`datetime value %q is not a datetime (YYYY-MM-DDTHH:MM:SS[.ffffff] within int64 µs)`, echo(v.s))
		}
		return plan.DatetimeValue(us), ""
	case plan.Duration:
		n, msg := decodeInt(v, plan.Int64)
		if msg != "" {
			return plan.Value{}, strings.Replace(msg, "int64", "duration (µs)", 1)
		}
		return plan.DurationValue(n), ""
	}
	return plan.Value{}, fmt.Sprintf("values of type %s cannot be written", t)
}

// decodeNested reads a list value (a JSON array of element values) or a
// struct value (a JSON object with exactly the struct's field names).
// Messages name the element or field at fault.
func decodeNested(v *jvalue, t plan.Type) (plan.Value, string) {
	if t.IsList() {
		if v.kind != jArray {
			return plan.Value{}, fmt.Sprintf("expected a %s value (a JSON array), got %s", t, v.kind)
		}
		el := t.Elem()
		out := make([]plan.Value, len(v.arr))
		for i, it := range v.arr {
			x, msg := decodeValue(it, el)
			if msg != "" {
				return plan.Value{}, fmt.Sprintf("list element %d: %s", i, msg)
			}
			out[i] = x
		}
		return plan.ListValue(t, out), ""
	}
	if v.kind != jObject {
		return plan.Value{}, fmt.Sprintf("expected a %s value (a JSON object), got %s", t, v.kind)
	}
	if v.dup != nil {
		return plan.Value{}, fmt.Sprintf("struct field %q given twice", v.dup.key)
	}
	fs := t.StructFields()
	for _, m := range v.obj {
		if t.FieldIndex(m.key) < 0 {
			return plan.Value{}, fmt.Sprintf("%s has no field %q", t, echo(m.key))
		}
	}
	out := make([]plan.Value, len(fs))
	for i, f := range fs {
		it := v.get(f.Name)
		if it == nil {
			return plan.Value{}, fmt.Sprintf("struct field %q missing (write null for a null field)", f.Name)
		}
		x, msg := decodeValue(it, f.Type)
		if msg != "" {
			return plan.Value{}, fmt.Sprintf("struct field %q: %s", f.Name, msg)
		}
		out[i] = x
	}
	return plan.StructValue(t, out), ""
}

// decodeInt reads an int32 or int64 from a JSON number or a decimal string.
func decodeInt(v *jvalue, t plan.Type) (int64, string) {
	bits := 64
	if t == plan.Int32 {
		bits = 32
	}
	var n int64
	var err error
	switch v.kind {
	case jNumber:
		n, err = parseIntNumber(v.s)
	case jString:
		n, err = strconv.ParseInt(v.s, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Sprintf("%s value %q is not a decimal integer", t, echo(v.s))
		}
	default:
		return 0, fmt.Sprintf("expected %s value (a number or a decimal string), got %s", article(t), v.kind)
	}
	shown := echo(v.s)
	if v.kind == jString {
		shown = strconv.Quote(shown)
	}
	switch {
	case errors.Is(err, errNotInteger):
		return 0, fmt.Sprintf("%s value %s is not an integer", t, shown)
	case err != nil:
		return 0, fmt.Sprintf("%s value %s out of range", t, shown)
	case bits == 32 && (n < math.MinInt32 || n > math.MaxInt32):
		return 0, fmt.Sprintf("%s value %s out of range", t, shown)
	}
	return n, ""
}

// decodeNarrowInt reads a value of one of the narrower or unsigned
// integer types: as an int64 (a JSON number or decimal string), or, for
// uint64 beyond MaxInt64, as a decimal string or number of up to 20
// digits; then within the type's range.
func decodeNarrowInt(v *jvalue, t plan.Type) (plan.Value, string) {
	shown := echo(v.s)
	if v.kind == jString {
		shown = strconv.Quote(shown)
	}
	if t == plan.Uint64 && (v.kind == jString || v.kind == jNumber) {
		if u, err := strconv.ParseUint(v.s, 10, 64); err == nil {
			return plan.Uint64Value(u), ""
		}
	}
	n, msg := decodeInt(v, plan.Int64)
	if msg != "" {
		return plan.Value{}, strings.Replace(msg, "int64", t.String(), 1)
	}
	val, ok := plan.IntValue(t, n)
	if !ok {
		return plan.Value{}, fmt.Sprintf("%s value %s out of range", t, shown)
	}
	return val, ""
}

// echoLimit is how many bytes of an offending input value a message
// repeats.
const echoLimit = 64

// echo cuts an input value a message repeats (a literal of a million
// digits is named by its first digits and its length).
func echo(s string) string { return plan.Abbrev(s, echoLimit) }

func article(t plan.Type) string {
	if t == plan.Int8 || t == plan.Int16 || t == plan.Int32 || t == plan.Int64 {
		return "an " + t.String()
	}
	return "a " + t.String()
}

var (
	errNotInteger = errors.New("not an integer")
	errIntRange   = errors.New("out of range")
)

// parseIntNumber reads a JSON number as an exact int64. Exponent and
// fraction forms are accepted when the value is integral ("1e3", "2.0"), and
// the test is exact: it works on the decimal digits, never through a float,
// and never builds a big number (a "1e999999999" costs nothing).
func parseIntNumber(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			// An exponent beyond int range: clamp, the sign is what matters.
			e = 1 << 30
			if strings.HasPrefix(s[i+1:], "-") {
				e = -e
			}
		}
		exp = e
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	// point: how many of digits lie before the decimal point.
	point := len(intPart) - (len(intPart+frac) - len(digits)) + exp
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return 0, nil // all zeros, "-0" included
	}
	if point < len(digits) {
		return 0, errNotInteger
	}
	if point > 19 {
		return 0, errIntRange
	}
	text := digits + strings.Repeat("0", point-len(digits))
	if neg {
		text = "-" + text
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, errIntRange
	}
	return n, nil
}

// decodeFloat reads a float64 from a JSON number or one of the special
// strings.
func decodeFloat(v *jvalue) (float64, string) {
	switch v.kind {
	case jNumber:
		f, err := strconv.ParseFloat(v.s, 64)
		if err != nil && (math.IsInf(f, 0) || !errors.Is(err, strconv.ErrRange)) {
			return 0, fmt.Sprintf(`float64 value %s out of range (write "Inf" or "-Inf" for an infinity)`, echo(v.s))
		}
		return f, ""
	case jString:
		switch v.s {
		case nanText:
			return math.NaN(), ""
		case infText:
			return math.Inf(1), ""
		case negInfText:
			return math.Inf(-1), ""
		case negZero, negZeroAlt:
			return math.Copysign(0, -1), ""
		}
		return 0, fmt.Sprintf(`float64 value %q is not a number; the only strings allowed are "NaN", "Inf", "-Inf" and "-0"`, echo(v.s))
	}
	return 0, fmt.Sprintf(`expected a float64 value (a number or "NaN", "Inf", "-Inf", "-0"), got %s`, v.kind)
}

// encodeValue writes a value: int64 (and duration µs) beyond ±2^53 as a
// decimal string, dates and datetimes as ISO 8601 text, float
// specials as strings, every other float in Go's shortest round-trip form
// (so that decoding gives back the same bits), and null as null.
func encodeValue(v plan.Value) (*jvalue, error) {
	if v.IsNull() {
		if _, ok := plan.ParseType(v.Type().String()); !ok {
			return nil, fmt.Errorf("a null of type %s cannot be written", v.Type())
		}
		return &jvalue{kind: jNull}, nil
	}
	if t := v.Type(); t.IsList() {
		out := &jvalue{kind: jArray, arr: []*jvalue{}}
		for _, e := range v.Elems() {
			x, err := encodeValue(e)
			if err != nil {
				return nil, err
			}
			out.arr = append(out.arr, x)
		}
		return out, nil
	} else if t.IsStruct() {
		out := &jvalue{kind: jObject}
		for i, f := range t.StructFields() {
			if !utf8.ValidString(f.Name) {
				return nil, fmt.Errorf("struct field name %q is not valid UTF-8, which JSON cannot carry", f.Name)
			}
			x, err := encodeValue(v.Elems()[i])
			if err != nil {
				return nil, err
			}
			out.obj = append(out.obj, jmember{key: f.Name, val: x})
		}
		return out, nil
	}
	switch v.Type() {
	case plan.Int64:
		n := v.Int()
		if n > maxExactInt || n < -maxExactInt {
			return &jvalue{kind: jString, s: strconv.FormatInt(n, 10)}, nil
		}
		return &jvalue{kind: jNumber, s: strconv.FormatInt(n, 10)}, nil
	case plan.Int32, plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32:
		return &jvalue{kind: jNumber, s: strconv.FormatInt(v.Int(), 10)}, nil
	case plan.Uint64:
		if v.Uint() > maxExactInt {
			return &jvalue{kind: jString, s: strconv.FormatUint(v.Uint(), 10)}, nil
		}
		return &jvalue{kind: jNumber, s: strconv.FormatUint(v.Uint(), 10)}, nil
	case plan.Float32:
		f := v.Float32()
		if x := float64(f); math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
			return encodeFloat(x), nil
		}
		return &jvalue{kind: jNumber, s: plan.FormatFloat32(f)}, nil
	case plan.Float64:
		return encodeFloat(v.Float()), nil
	case plan.String:
		if !utf8.ValidString(v.Str()) {
			return nil, fmt.Errorf("string value %q is not valid UTF-8, which JSON cannot carry", v.Str())
		}
		return &jvalue{kind: jString, s: v.Str()}, nil
	case plan.Bool:
		return &jvalue{kind: jBool, b: v.Bool()}, nil
	case plan.Date:
		return &jvalue{kind: jString, s: plan.FormatDate(int32(v.Int()))}, nil
	case plan.Datetime:
		return &jvalue{kind: jString, s: plan.FormatDatetime(v.Int())}, nil
	case plan.Duration:
		return encodeValue(plan.Int64Value(v.Int()))
	}
	return nil, fmt.Errorf("a value of type %s cannot be written", v.Type())
}

// encodeFloat writes a float. NaN payloads are not kept: every NaN is
// written "NaN" and reads back as math.NaN().
func encodeFloat(f float64) *jvalue {
	switch {
	case math.IsNaN(f):
		return &jvalue{kind: jString, s: nanText}
	case math.IsInf(f, 1):
		return &jvalue{kind: jString, s: infText}
	case math.IsInf(f, -1):
		return &jvalue{kind: jString, s: negInfText}
	case f == 0 && math.Signbit(f):
		return &jvalue{kind: jString, s: negZero}
	}
	// plan.FormatFloat is strconv's shortest round-trip form, with ".0"
	// added to integral values so that they read as floats.
	return &jvalue{kind: jNumber, s: plan.FormatFloat(f)}
}

// encodeInt writes a node parameter (limit n, slice offset and len) the way
// int64 values are written.
func encodeInt(n int64) *jvalue { v, _ := encodeValue(plan.Int64Value(n)); return v }
