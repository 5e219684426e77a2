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

// TestWrittenOrigins: an expression's "written" field is its origin
// (plan.WithOrigin): it decodes, errors raised around it name the written
// text, and it encodes back.
func TestWrittenOrigins(t *testing.T) {
	const file = `{"format": "dfopt-plan/1",
	  "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1]}, {"name": "b", "type": "int64", "values": [2]}]}},
	  "plan": {"op": "project", "exprs": [{"alias": {"fn": "add", "args": [{"col": "a", "written": {"col": "x"}}, {"col": "b"}]}, "name": "y"}],
	           "input": {"op": "scan", "table": "t"}}}`
	doc, err := Decode([]byte(file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := plan.Unalias(doc.Plan.(*plan.ProjectNode).Exprs[0])
	if got := sum.String(); got != "a + b" {
		t.Errorf("String = %q, want a + b", got)
	}
	if got := plan.Written(sum); got != "x + b" {
		t.Errorf("Written = %q, want x + b", got)
	}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"col": "a", "written": {"col": "x"}}`) {
		t.Errorf("the origin is not written back:\n%s", out)
	}
	back, err := Decode(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.ExprEqual(back.Plan.(*plan.ProjectNode).Exprs[0], doc.Plan.(*plan.ProjectNode).Exprs[0]) {
		t.Error("the origin did not survive the round trip")
	}
	if plan.ExprEqual(sum, plan.Col("a").Add(plan.Col("b")).Expr()) {
		t.Error("an expression with an origin equals one without")
	}
	_, err = Decode([]byte(strings.Replace(file, `"written": {"col": "x"}`, `"written": {"op": "scan"}`, 1)), Options{})
	if err == nil || !strings.Contains(err.Error(), "written") {
		t.Errorf("a bad written field: %v", err)
	}
}
