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

func TestTableZoneMapPolicy(t *testing.T) {
	const file = `{"format": "dfopt-plan/1",
	  "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 2]}]%s}},
	  "plan": {"op": "scan", "table": "t"}}`
	for _, tc := range []struct {
		fields string
		rows   int
	}{{`, "pushdown": "zone_map"`, 2}, {`, "pushdown": "zone_map", "zone_rows": 5`, 5}, {`, "zone_rows": 1, "pushdown": "zone_map"`, 1}} {
		doc, err := Decode([]byte(strings.Replace(file, "%s", tc.fields, 1)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.fields, err)
		}
		tbl := doc.Tables["t"].Inline
		if tbl.ZoneRows() != tc.rows || tbl.Pushdown() != plan.Inexact {
			t.Errorf("%s: zone rows %d, pushdown %v; want %d, inexact", tc.fields, tbl.ZoneRows(), tbl.Pushdown(), tc.rows)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(out, Options{})
		if err != nil {
			t.Fatalf("%s: re-decode: %v\n%s", tc.fields, err, out)
		}
		if got := back.Tables["t"].Inline.ZoneRows(); got != tc.rows {
			t.Errorf("%s: after a round trip zone rows %d, want %d", tc.fields, got, tc.rows)
		}
	}
	for _, tc := range []struct{ fields, want string }{
		{`, "pushdown": "zone_map", "zone_rows": 0`, "tables.t.zone_rows: zone_rows must be between 1"},
		{`, "pushdown": "zone_map", "zone_rows": "x"`, "tables.t.zone_rows"},
		{`, "pushdown": "exact", "zone_rows": 2`, `tables.t.zone_rows: "zone_rows" applies to the "zone_map" pushdown policy only`},
		{`, "zone_rows": 2`, `tables.t.zone_rows: "zone_rows" needs "pushdown": "zone_map"`},
	} {
		_, err := Decode([]byte(strings.Replace(file, "%s", tc.fields, 1)), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.fields, err, tc.want)
		}
	}
}
