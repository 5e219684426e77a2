package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestJoinOptionFields: coalesce, nulls_equal, validate and residual
// decode into the JoinNode, are written back only when not the default,
// survive a round trip, and a bad value is an error naming the field.
func TestJoinOptionFields(t *testing.T) {
	for _, tc := range []struct {
		kind, fields string
		check        func(*plan.JoinNode) bool
		written      string
		decodeErr    string
	}{
		{"full", `"coalesce": "coalesce"`, func(j *plan.JoinNode) bool { return j.Coalesce == plan.CoalesceMerge }, `"coalesce": "coalesce"`, ""},
		{"inner", `"coalesce": "keep"`, func(j *plan.JoinNode) bool { return j.Coalesce == plan.CoalesceKeep }, `"coalesce": "keep"`, ""},
		{"inner", `"coalesce": "auto"`, func(j *plan.JoinNode) bool { return j.Coalesce == plan.CoalesceAuto }, "", ""},
		{"inner", `"nulls_equal": true`, func(j *plan.JoinNode) bool { return j.NullsEqual }, `"nulls_equal": true`, ""},
		{"inner", `"validate": "1:m"`, func(j *plan.JoinNode) bool { return j.Validate == plan.ValidateOneToMany }, `"validate": "1:m"`, ""},
		{"inner", `"validate": "m:m"`, func(j *plan.JoinNode) bool { return j.Validate == plan.ValidateManyToMany }, "", ""},
		{"anti", `"residual": {"fn": "gt", "args": [{"col": "k"}, {"col": "k_right"}]}`, func(j *plan.JoinNode) bool { return j.Residual != nil && j.Residual.String() == "k > k_right" }, `"residual"`, ""},
		{"inner", `"coalesce": "merge"`, nil, "", `plan.coalesce: unknown coalesce "merge" (known: auto, coalesce, keep)`},
		{"inner", `"validate": "1:n"`, nil, "", `plan.validate: unknown validate "1:n"`},
		{"inner", `"nulls_equal": "yes"`, nil, "", `plan.nulls_equal:`},
		{"inner", `"residual": {"col": 3}`, nil, "", `plan.residual`},
	} {
		doc, err := Decode([]byte(optionDoc(tc.kind, tc.fields)), Options{})
		if tc.decodeErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.decodeErr) {
				t.Errorf("%s: error %v, want %q", tc.fields, err, tc.decodeErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.fields, err)
		}
		if !tc.check(doc.Plan.(*plan.JoinNode)) {
			t.Errorf("%s: decoded as %s", tc.fields, doc.Plan.(*plan.JoinNode).Label())
		}
		if _, err := plan.Resolve(doc.Plan); err != nil {
			t.Errorf("%s: %v", tc.fields, err)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		if tc.written != "" && !strings.Contains(string(out), tc.written) {
			t.Errorf("%s: encoded as\n%s", tc.fields, out)
		}
		back, err := Decode(out, Options{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Encode(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(out) || back.Plan.(*plan.JoinNode).Label() != doc.Plan.(*plan.JoinNode).Label() {
			t.Errorf("%s: the round trip changed the plan", tc.fields)
		}
	}
}

func optionDoc(kind, fields string) string {
	return `{"format": "dfopt-plan/1",
  "tables": {"l": {"columns": [{"name": "k", "type": "int64", "values": [1, 2]}]},
             "r": {"columns": [{"name": "k", "type": "int64", "values": [2, 2, 3]}]}},
  "plan": {"op": "join", "kind": "` + kind + `", "left_on": [{"col": "k"}], "right_on": [{"col": "k"}], ` + fields + `,
           "left": {"op": "scan", "table": "l"}, "right": {"op": "scan", "table": "r"}}}`
}

// TestUnionMode: "mode": "diagonal" sets UnionNode.Diagonal and is written
// back; "strict" is the default; anything else is an error.
func TestUnionMode(t *testing.T) {
	doc := func(mode string) string {
		return `{"format": "dfopt-plan/1",
  "tables": {"l": {"columns": [{"name": "k", "type": "int64", "values": [1, 2]}]},
             "r": {"columns": [{"name": "v", "type": "int64", "values": [2]}]}},
  "plan": {"op": "union"` + mode + `, "inputs": [{"op": "scan", "table": "l"}, {"op": "scan", "table": "r"}]}}`
	}
	d, err := Decode([]byte(doc(`, "mode": "diagonal"`)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Plan.(*plan.UnionNode).Diagonal {
		t.Error("mode diagonal not decoded")
	}
	out, err := Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"mode": "diagonal"`) {
		t.Errorf("encoded as\n%s", out)
	}
	if _, err := Decode([]byte(doc(`, "mode": "wide"`)), Options{}); err == nil || !strings.Contains(err.Error(), `plan.mode: unknown union mode "wide"`) {
		t.Errorf("bad mode: %v", err)
	}
}
