package planjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// FuzzDecode feeds arbitrary bytes to Decode (go test -fuzz=FuzzDecode
// ./plan/planjson). Decode must never panic; what it accepts must resolve
// or fail to resolve without panicking, encode, decode back to the same
// document, and re-encode to the same bytes.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(examplesDir, "*.json"))
	golden, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range append(seeds, golden...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		withPlan(filterT(`{"fn": "gt", "args": [{"col": "a"}, {"lit": "9007199254740993", "type": "int64"}]}`)),
		withPlan(`{"op": "extension", "name": "identity", "inputs": [` + scanT + `, ` + scanT + `]}`),
		withPlan(`{"op": "window", "exprs": [{"alias": {"over": {"fn": "len"}, "partition_by": [{"col": "s"}]}, "name": "w"}], "input": ` + scanT + `}`),
		`{"format": "dfopt-plan/1", "tables": {"p": {"parquet": "x.parquet"}}, "plan": {"op": "scan", "table": "p", "columns": [], "pushed": [{"expr": {"col": "x"}, "support": "exact"}]}}`,
		`{"format": "dfopt-plan/1", "tables": {}, "plan": {}, "expect": {"error": null, "counters": {"a": "-9223372036854775808"}}}`,
		nestedPlanDoc(`{"op": "unnest", "columns": ["s"], "input": {"op": "scan", "table": "t"}}`),
		nestedPlanDoc(`{"op": "explode", "columns": ["l"], "input": {"op": "scan", "table": "t"}}`),
	} {
		f.Add([]byte(s))
	}
	opts := Options{OpenParquet: func(name, _ string) (plan.Source, error) {
		return &fakeSource{name: name, schema: plan.MustSchema(plan.Field{Name: "x", Type: plan.Bool, Nullable: true})}, nil
	}}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode(data, opts)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not a *planjson.Error", err, err)
			}
			return
		}
		if r, err := plan.Resolve(doc.Plan); err == nil {
			_ = plan.Explain(r)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		doc2, err := Decode(out, opts)
		if err != nil {
			t.Fatalf("the encoding does not decode: %v\n%s", err, out)
		}
		if d := compareDocs(doc, doc2); d != "" {
			t.Fatalf("round trip changed the document: %s\n%s", d, out)
		}
		out2, err := Encode(doc2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("the encoding is not a fixed point (%v):\n%s\n---\n%s", err, out, out2)
		}
	})
}

// FuzzJSONParser checks the hand-written JSON parser against encoding/json:
// it accepts exactly what json.Valid accepts, and parses to what
// json.Decoder (with UseNumber) decodes.
func FuzzJSONParser(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `1`, `-0.5e+7`, `"a\u00e9\ud83d\ude00\ud800x\\"`, "\"\xff\xfe\"", `{"a": [1, {"b": null}], "c": true}`,
		`01`, `1.`, `.5`, `-`, `1e`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `"\u12"`, "\"\t\"", `tru`, `nul`, ` [ ] `, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, perr := parseJSON(data)
		valid := json.Valid(data)
		if (perr == nil) != valid {
			if perr == nil && jdepth(v) >= 10000 {
				return // encoding/json stops at 10,000 levels, we at maxDepth
			}
			t.Fatalf("parseJSON error %v, json.Valid %v, input %q", perr, valid, data)
		}
		if perr != nil || hasDup(v) {
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if got := toAny(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("parsed %#v, encoding/json %#v, input %q", got, want, data)
		}
	})
}

func jdepth(v *jvalue) int {
	d := 0
	for _, el := range v.arr {
		d = max(d, jdepth(el))
	}
	for _, m := range v.obj {
		d = max(d, jdepth(m.val))
	}
	if v.kind == jArray || v.kind == jObject {
		d++
	}
	return d
}

func hasDup(v *jvalue) bool {
	if v.dup != nil {
		return true
	}
	for _, el := range v.arr {
		if hasDup(el) {
			return true
		}
	}
	for _, m := range v.obj {
		if hasDup(m.val) {
			return true
		}
	}
	return false
}

func toAny(v *jvalue) any {
	switch v.kind {
	case jBool:
		return v.b
	case jNumber:
		return json.Number(v.s)
	case jString:
		return v.s
	case jArray:
		out := make([]any, len(v.arr))
		for i, el := range v.arr {
			out[i] = toAny(el)
		}
		return out
	case jObject:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = toAny(m.val)
		}
		return out
	}
	return nil
}
