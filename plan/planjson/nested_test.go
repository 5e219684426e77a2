package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// nestedDoc is a plan file with a list and a struct column; %s is spliced
// with extra columns or a bad one.
const nestedDoc = `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [
  {"name": "l", "type": "list<int64>", "values": [[1, null, "9007199254740993"], [], null, [null]]},
  {"name": "s", "type": "struct{a: int64, \"b c\": string}", "values": [{"a": 1, "b c": "x"}, {"a": null, "b c": null}, null, {"b c": "y", "a": 2}]}%s
]}},
 "plan": {"op": "project", "input": {"op": "scan", "table": "t"}, "exprs": [
   {"alias": {"fn": "list.len", "args": [{"col": "l"}]}, "name": "n"},
   {"alias": {"fn": "list.get", "args": [{"col": "l"}, {"lit": -1}]}, "name": "last"},
   {"alias": {"fn": "struct.field", "args": [{"col": "s"}, {"lit": "b c"}]}, "name": "b"},
   {"col": "l"}, {"col": "s"}]}}`

func TestNestedRoundTrip(t *testing.T) {
	doc, err := Decode([]byte(strings.Replace(nestedDoc, "%s", "", 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(out, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	again, err := Encode(back)
	if err != nil || string(again) != string(out) {
		t.Fatalf("not a fixed point:\n%s\n%s", out, again)
	}
	for _, want := range []string{`"list<int64>"`, `[1, null, "9007199254740993"]`, `[]`, `{"a": null, "b c": null}`, `"list.get"`, `"struct.field"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("encoded file lacks %s:\n%s", want, out)
		}
	}
	tab := doc.Tables["t"].Inline
	l := tab.Column(0)
	if !l[1].Identical(plan.ListValue(l[1].Type(), nil)) || !l[2].IsNull() || len(l[3].Elems()) != 1 || !l[3].Elems()[0].IsNull() {
		t.Errorf("list cells: empty, null and [null] must stay apart: %v", l)
	}
	s := tab.Column(1)
	if s[1].IsNull() || !s[2].IsNull() || s[3].Elems()[0].Int() != 2 {
		t.Errorf("struct cells: %v", s)
	}
}

func TestNestedDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ col, path, msg string }{
		{`{"name": "x", "type": "list<int64", "values": [null, null, null, null]}`, `tables.t.columns[2].type`, `expected ">"`},
		{`{"name": "x", "type": "list<list<int64>>", "values": [null, null, null, null]}`, `tables.t.columns[2].type`, "scalar type"},
		{`{"name": "x", "type": "struct{}", "values": [null, null, null, null]}`, `tables.t.columns[2].type`, "at least one field"},
		{`{"name": "x", "type": "list<int32>", "values": [[1], [2, 3000000000], null, null]}`, `tables.t.columns[2].values[1]`, "list element 1: int32 value 3000000000 out of range"},
		{`{"name": "x", "type": "list<int32>", "values": [[1], 2, null, null]}`, `tables.t.columns[2].values[1]`, "JSON array"},
		{`{"name": "x", "type": "struct{a: bool}", "values": [{"a": true, "z": 1}, null, null, null]}`, `tables.t.columns[2].values[0]`, `no field "z"`},
		{`{"name": "x", "type": "struct{a: bool}", "values": [{}, null, null, null]}`, `tables.t.columns[2].values[0]`, `field "a" missing`},
		{`{"name": "x", "type": "struct{a: bool}", "values": [{"a": 1}, null, null, null]}`, `tables.t.columns[2].values[0]`, `struct field "a": expected a bool`},
	} {
		_, err := Decode([]byte(strings.Replace(nestedDoc, "%s", ",\n  "+tc.col, 1)), Options{})
		e, ok := err.(*Error)
		if !ok || e.Path != tc.path || !strings.Contains(e.Msg, tc.msg) || e.Line == 0 {
			t.Errorf("column %s: got %v; want path %s, a line, and a message containing %q", tc.col, err, tc.path, tc.msg)
		}
	}
}

// nestedPlanDoc is nestedDoc's tables under the plan %s.
func nestedPlanDoc(planJSON string) string {
	head, _, _ := strings.Cut(nestedDoc, "\n \"plan\"")
	return strings.Replace(head, "%s", "", 1) + "\n \"plan\": " + planJSON + "}"
}

// TestReshapeNestedNodes: unnest and explode round-trip, and their fields'
// errors carry the JSON path and a line (docs/plan-format.md).
func TestReshapeNestedNodes(t *testing.T) {
	ok := []string{
		`{"op": "unnest", "columns": ["s"], "input": {"op": "scan", "table": "t"}}`,
		`{"op": "explode", "columns": ["l"], "input": {"op": "scan", "table": "t"}}`,
	}
	for _, p := range ok {
		doc, err := Decode([]byte(nestedPlanDoc(p)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := plan.Resolve(doc.Plan); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(out, Options{})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if plan.Fingerprint(back.Plan) != plan.Fingerprint(doc.Plan) {
			t.Errorf("%s: the round trip changed the plan:\n%s", p, out)
		}
	}
	for _, tc := range []struct{ plan, path, msg string }{
		{`{"op": "unnest", "input": {"op": "scan", "table": "t"}}`, `plan`, `missing required field "columns"`},
		{`{"op": "unnest", "columns": "s", "input": {"op": "scan", "table": "t"}}`, `plan.columns`, `expected an array`},
		{`{"op": "unnest", "columns": ["s", 1], "input": {"op": "scan", "table": "t"}}`, `plan.columns[1]`, `expected a string`},
		{`{"op": "unnest", "columns": ["s"], "colums": [], "input": {"op": "scan", "table": "t"}}`, `plan`, `unknown field "colums"`},
		{`{"op": "explode", "columns": [["l"]], "input": {"op": "scan", "table": "t"}}`, `plan.columns[0]`, `expected a string`},
		{`{"op": "explode", "input": {"op": "scan", "table": "t"}}`, `plan`, `missing required field "columns"`},
	} {
		_, err := Decode([]byte(nestedPlanDoc(tc.plan)), Options{})
		e, ok := err.(*Error)
		if !ok || e.Path != tc.path || !strings.Contains(e.Msg, tc.msg) || e.Line == 0 {
			t.Errorf("%s: got %v; want path %s, a line, and a message containing %q", tc.plan, err, tc.path, tc.msg)
		}
	}
}
