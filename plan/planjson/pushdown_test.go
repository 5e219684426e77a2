package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func TestTablePushdownPolicy(t *testing.T) {
	const file = `{"format": "dfopt-plan/1",
	  "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 2]}], "pushdown": "%s"}},
	  "plan": {"op": "scan", "table": "t"}}`
	for _, tc := range []struct {
		policy string
		want   plan.PredicateSupport
		all    bool
	}{{"exact", plan.Exact, false}, {"inexact", plan.Inexact, false}, {"unsupported", plan.Unsupported, false}, {"exact_all", plan.Exact, true}} {
		doc, err := Decode([]byte(strings.Replace(file, "%s", tc.policy, 1)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		if got := doc.Tables["t"].Inline.Pushdown(); got != tc.want {
			t.Errorf("%s: pushdown %v, want %v", tc.policy, got, tc.want)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(out, Options{})
		if err != nil {
			t.Fatalf("%s: re-decode: %v\n%s", tc.policy, err, out)
		}
		if got := back.Tables["t"].Inline.Pushdown(); got != tc.want {
			t.Errorf("%s: after a round trip pushdown %v, want %v", tc.policy, got, tc.want)
		}
		if got := back.Tables["t"].Inline.ExactAllPushdown(); got != tc.all {
			t.Errorf("%s: after a round trip exact_all %v, want %v", tc.policy, got, tc.all)
		}
	}
	_, err := Decode([]byte(strings.Replace(file, "%s", "sometimes", 1)), Options{})
	if err == nil || !strings.Contains(err.Error(), "tables.t.pushdown") {
		t.Errorf("an unknown policy must be an error naming tables.t.pushdown, got %v", err)
	}
}
