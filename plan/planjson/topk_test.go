package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestTopKAndMaxRowsFields: a sort's "limit" and a scan's "max_rows"
// decode into SortNode.HasLimit/Limit and ScanNode.HasMaxRows/MaxRows,
// encode back only when set, survive the round trip, and a
// value of the wrong kind is a decode error naming the field.
func TestTopKAndMaxRowsFields(t *testing.T) {
	in := withPlan(`{"op": "limit", "n": 2, "input": {"op": "project", "exprs": [{"col": "a"}],
	  "input": {"op": "sort", "keys": [{"expr": {"col": "a"}, "desc": true}], "limit": 3,
	    "input": {"op": "limit", "n": 5, "input": {"op": "scan", "table": "t", "max_rows": 5}}}}}`)
	doc, err := Decode([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sort := doc.Plan.(*plan.LimitNode).Input.(*plan.ProjectNode).Input.(*plan.SortNode)
	scan := sort.Input.(*plan.LimitNode).Input.(*plan.ScanNode)
	if !sort.HasLimit || sort.Limit != 3 || !scan.HasMaxRows || scan.MaxRows != 5 {
		t.Fatalf("decoded %s", plan.Explain(doc.Plan))
	}
	if got, want := sort.Label(), "sort [a desc] limit=3"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	if got, want := scan.Label(), "scan t max_rows=5"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	if _, err := plan.Resolve(doc.Plan); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"limit": 3`, `"max_rows": 5`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("encoding lacks %s:\n%s", s, out)
		}
	}
	back, err := Decode(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(out) || plan.Explain(back.Plan) != plan.Explain(doc.Plan) {
		t.Errorf("round trip changed the plan:\n%s\n%s", again, out)
	}
	// A plain sort and scan write neither field.
	plain, err := Encode(&Document{Tables: doc.Tables, Plan: &plan.SortNode{Input: &plan.ScanNode{Source: scan.Source, SourceSchema: scan.SourceSchema},
		Keys: sort.Keys}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), `"limit"`) || strings.Contains(string(plain), `"max_rows"`) {
		t.Errorf("a plain sort and scan encode a limit:\n%s", plain)
	}
	for _, tc := range []struct{ plan, want string }{
		{`{"op": "sort", "keys": [{"expr": {"col": "a"}}], "limit": "x", "input": ` + scanT + `}`, "plan.limit"},
		{`{"op": "scan", "table": "t", "max_rows": 1.5}`, "plan.max_rows"},
	} {
		_, err := Decode([]byte(withPlan(tc.plan)), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one at %s", tc.plan, err, tc.want)
		}
	}
}
