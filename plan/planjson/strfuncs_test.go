package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestStringSetFunctionsInPlanFiles: is_in's list is the literals after
// x, when is read as its chain of if() calls, and both survive a write
// and a read (explain shows the same text).
func TestStringSetFunctionsInPlanFiles(t *testing.T) {
	doc := withPlan(filterT(`{"fn": "is_in", "args": [{"col": "a"}, {"lit": 1}, {"lit": null, "type": "int64"}, {"lit": 2.5}]},
		{"fn": "when", "args": [{"col": "p"}, {"fn": "like", "args": [{"col": "s"}, {"lit": "x!%"}, {"lit": "!"}]},
			{"fn": "between", "args": [{"col": "a"}, {"lit": 1}, {"col": "i"}]}, {"fn": "starts_with", "args": [{"col": "s"}, {"lit": "é"}]},
			{"fn": "contains", "args": [{"fn": "lower", "args": [{"fn": "substring", "args": [{"col": "s"}, {"lit": -2}]}]}, {"lit": "x"}]}]}`))
	d, err := Decode([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `filter [is_in(a, [1, null(int64), 2.5]), if(p, like(s, "x!%", "!"), if(between(a, 1, i), starts_with(s, "é"), contains(lower(substring(s, -2)), "x")))]`
	got := plan.Explain(d.Plan)
	if !strings.Contains(got, want) {
		t.Fatalf("explain:\n%s\nwant it to hold\n%s", got, want)
	}
	if _, err := plan.Resolve(d.Plan); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	nd, err := NewDocument(d.Plan)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(nd)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if plan.Explain(d.Plan) != plan.Explain(back.Plan) {
		t.Fatalf("the round trip changed the plan:\n%s\n%s", plan.Explain(d.Plan), plan.Explain(back.Plan))
	}
}
