package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// maxExactInt is 2^53: every int64 of at most this magnitude survives a
// JSON reader that holds numbers in a float64 (JavaScript, jq).
const maxExactInt = 1 << 53

// Object is the JSON object `dfopt run --format json` prints (docs/cli.md):
// the schema, the rows (null when the collect failed), the error (null on
// success) and the optimizer counters (left out when Counters is nil).
type Object struct {
	Schema   []Field             `json:"schema"`
	Rows     [][]json.RawMessage `json:"rows"`
	Error    *Error              `json:"error"`
	Counters *rules.Counters     `json:"counters,omitempty"`
}

// Field is one schema entry of Object.
type Field struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// Error is a failed collect in Object: the error kind, the expression that
// raised it, its first failing row (null when unknown) and the message.
type Error struct {
	Kind    string `json:"kind"`
	Expr    string `json:"expr"`
	Row     *int64 `json:"row"`
	Message string `json:"message"`
}

// JSON writes r as one Object and a newline. Values are spelled as in plan
// files (docs/plan-format.md): an int64 beyond ±2^53 is a decimal string
// ("9007199254740993"), every other integer a JSON number; a float is a
// number spelled by Float, and NaN, Inf, -Inf and -0 are the strings
// "NaN", "Inf", "-Inf" and "-0"; null is null. counters may be nil.
func JSON(w io.Writer, r *exec.Result, counters *rules.Counters) error {
	if r == nil {
		return fmt.Errorf("json: no result")
	}
	rows, err := r.Rows()
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	obj := Object{Schema: fields(r.Schema), Rows: make([][]json.RawMessage, len(rows)), Counters: counters}
	for i, row := range rows {
		out := make([]json.RawMessage, len(row))
		for c, v := range row {
			if out[c], err = jsonValue(v); err != nil {
				return fmt.Errorf("json: row %d, column %q: %w", i, r.Schema.Field(c).Name, err)
			}
		}
		obj.Rows[i] = out
	}
	return writeObject(w, obj)
}

// JSONError writes the Object of a failed collect: the schema (nil when
// the plan did not resolve), "rows": null and the error, whose kind, expr
// and row come from a *plan.Error (kind "internal" for any other error).
func JSONError(w io.Writer, schema plan.Schema, counters *rules.Counters, cause error) error {
	e := &Error{Kind: "internal", Message: fmt.Sprint(cause)}
	if pe, ok := plan.AsError(cause); ok {
		e.Kind, e.Expr = string(pe.Kind), pe.Expr
		if pe.Row >= 0 {
			row := pe.Row
			e.Row = &row
		}
	}
	return writeObject(w, Object{Schema: fields(schema), Error: e, Counters: counters})
}

// fields is the schema as Object lists it ([] for an empty schema).
func fields(s plan.Schema) []Field {
	out := make([]Field, s.Len())
	for i := range out {
		f := s.Field(i)
		out[i] = Field{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable}
	}
	return out
}

// writeObject writes obj on one line. <, > and & are written as they are,
// as plan files write them; invalid UTF-8 in a string becomes U+FFFD, as
// encoding/json writes it.
func writeObject(w io.Writer, obj Object) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	return nil
}

// jsonValue is one value as JSON spells it (see JSON).
func jsonValue(v plan.Value) (json.RawMessage, error) {
	if v.IsNull() {
		return json.RawMessage("null"), nil
	}
	if t := v.Type(); t.IsNested() {
		var b bytes.Buffer
		fs := t.StructFields()
		if t.IsList() {
			b.WriteByte('[')
		} else {
			b.WriteByte('{')
		}
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteString(", ")
			}
			if !t.IsList() {
				k, err := json.Marshal(fs[i].Name)
				if err != nil {
					return nil, err
				}
				b.Write(k)
				b.WriteString(": ")
			}
			x, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			b.Write(x)
		}
		if t.IsList() {
			b.WriteByte(']')
		} else {
			b.WriteByte('}')
		}
		return b.Bytes(), nil
	}
	switch v.Type() {
	case plan.Bool:
		return json.RawMessage(strconv.FormatBool(v.Bool())), nil
	case plan.Int8, plan.Int16, plan.Int32, plan.Int64:
		n := v.Int()
		text := strconv.FormatInt(n, 10)
		if n > maxExactInt || n < -maxExactInt {
			return json.RawMessage(strconv.Quote(text)), nil
		}
		return json.RawMessage(text), nil
	case plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64:
		text := strconv.FormatUint(v.Uint(), 10)
		if v.Uint() > maxExactInt {
			return json.RawMessage(strconv.Quote(text)), nil
		}
		return json.RawMessage(text), nil
	case plan.Float64:
		f := v.Float()
		if isFloatSpecial(f) {
			return json.RawMessage(strconv.Quote(Float(f))), nil
		}
		return json.RawMessage(Float(f)), nil
	case plan.Float32:
		f := v.Float32()
		if isFloatSpecial(float64(f)) {
			return json.RawMessage(strconv.Quote(Float32(f))), nil
		}
		return json.RawMessage(Float32(f)), nil
	case plan.Date, plan.Datetime, plan.Duration:
		return json.RawMessage(strconv.Quote(valueText(v))), nil // ISO 8601 text
	case plan.String:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v.Str()); err != nil {
			return nil, err
		}
		return bytes.TrimRight(b.Bytes(), "\n"), nil
	}
	return nil, fmt.Errorf("value of unknown type %s", v.Type())
}
