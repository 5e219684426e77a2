package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// buildDoc is a plan file joining two one-column tables with the given
// join kind and build field (a JSON member, or "" for none).
func buildDoc(kind, build string) string {
	if build != "" {
		build = `, "build": ` + build
	}
	keys := `, "left_on": [{"col": "k"}], "right_on": [{"col": "k"}]`
	if kind == "cross" {
		keys = ""
	}
	return `{"format": "dfopt-plan/1",
  "tables": {"l": {"columns": [{"name": "k", "type": "int64", "values": [1, 2]}]},
             "r": {"columns": [{"name": "k", "type": "int64", "values": [2, 2, 3]}]}},
  "plan": {"op": "join", "kind": "` + kind + `"` + keys + build + `,
           "left": {"op": "scan", "table": "l"}, "right": {"op": "scan", "table": "r"}}}`
}

// TestJoinBuildField: "build": "left" sets JoinNode.BuildLeft and is
// written back; "right", the default, is not written; anything else is a
// decode error naming the field; build=left on another kind than inner is
// a resolve error.
func TestJoinBuildField(t *testing.T) {
	for _, tc := range []struct {
		build     string
		left      bool
		written   string
		decodeErr string
	}{
		{`"left"`, true, `"build": "left"`, ""},
		{`"right"`, false, "", ""},
		{"", false, "", ""},
		{`"middle"`, false, "", `plan.build: unknown build side "middle" (known: left, right)`},
		{`true`, false, "", "plan.build: expected a string"},
	} {
		doc, err := Decode([]byte(buildDoc("inner", tc.build)), Options{})
		if tc.decodeErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.decodeErr) {
				t.Errorf("build %s: error %v, want %q", tc.build, err, tc.decodeErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("build %s: %v", tc.build, err)
		}
		j := doc.Plan.(*plan.JoinNode)
		if j.BuildLeft != tc.left {
			t.Errorf("build %s: BuildLeft %v", tc.build, j.BuildLeft)
		}
		out, err := Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		if tc.written != "" && !strings.Contains(string(out), tc.written) || tc.written == "" && strings.Contains(string(out), `"build"`) {
			t.Errorf("build %s: encoded as\n%s", tc.build, out)
		}
		back, err := Decode(out, Options{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Encode(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(out) || back.Plan.(*plan.JoinNode).BuildLeft != tc.left {
			t.Errorf("build %s: the round trip changed the plan:\n%s\n%s", tc.build, out, again)
		}
	}
	for _, kind := range []string{"left", "right", "full", "semi", "anti", "cross"} {
		doc, err := Decode([]byte(buildDoc(kind, `"left"`)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if _, err := plan.Resolve(doc.Plan); err == nil || !strings.Contains(err.Error(), "build=left applies to inner joins only") {
			t.Errorf("%s join with build=left resolves: %v", kind, err)
		}
	}
}
