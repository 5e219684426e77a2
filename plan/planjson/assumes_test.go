package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestScanAssumes: a scan's "assumes" decodes into ScanNode.Assumes with
// bounds of the column's type, survives the round trip, and a malformed
// entry is a decode or resolve error naming what is wrong.
func TestScanAssumes(t *testing.T) {
	in := withPlan(`{"op": "scan", "table": "t", "assumes": [
	  {"column": "a", "min": -5, "max": "9007199254740993"},
	  {"column": "b", "min": "-0.0", "max": 2.5, "no_nan": true},
	  {"column": "i", "min": 3, "max": 4}]}`)
	doc, err := Decode([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	scan := doc.Plan.(*plan.ScanNode)
	if got, want := scan.Label(), "scan t assumes=[a in [-5, 9007199254740993]; b in [-0.0, 2.5], no NaN; i in [3, 4]]"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	if scan.Assumes[2].Min.Type() != plan.Int32 {
		t.Errorf("int32 column's bound decoded as %s", scan.Assumes[2].Min.Type())
	}
	if _, err := plan.Resolve(doc.Plan); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bs := back.Plan.(*plan.ScanNode)
	if plan.Explain(back.Plan) != plan.Explain(doc.Plan) || len(bs.Assumes) != len(scan.Assumes) {
		t.Fatalf("round trip changed the plan:\n%s", out)
	}
	for i := range bs.Assumes {
		if !bs.Assumes[i].Equal(scan.Assumes[i]) {
			t.Errorf("assumption %d: %v, want %v (bit for bit)", i, bs.Assumes[i], scan.Assumes[i])
		}
	}
	plain := &plan.ScanNode{Source: scan.Source, SourceSchema: scan.SourceSchema}
	if plan.Equal(plain, scan) {
		t.Errorf("a scan without assumptions equals one with them")
	}

	for _, tc := range []struct{ assumes, want string }{
		{`[{"column": "zz", "min": 1, "max": 2}]`, `no column "zz"`},
		{`[{"column": "a", "min": 1.5, "max": 2}]`, `plan.assumes[0].min`},
		{`[{"column": "a", "min": 1, "max": 2, "extra": 1}]`, `extra`},
		{`[{"column": "a", "min": 3, "max": 2}]`, `plan.assumes[0]: assumption 0 (a): min 3 above max 2`},
		{`[{"column": "s", "min": "a", "max": "b"}]`, `a range on a string column`},
		{`[{"column": "b", "min": "NaN", "max": 2}]`, `a NaN bound`},
		{`[{"column": "a", "min": 1, "max": 2}, {"column": "a", "min": 1, "max": 2}]`, `plan.assumes[1]: assumption 1 names column a a second time`},
		{`[{"column": "a", "min": 1, "max": 2, "no_nan": true}]`, `no NaN on a int64 column`},
		{`[{"column": "a", "min": null, "max": 2}]`, `a null bound`},
	} {
		doc, err := Decode([]byte(withPlan(`{"op": "scan", "table": "t", "assumes": `+tc.assumes+`}`)), Options{})
		if err == nil {
			_, err = plan.Resolve(doc.Plan)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("assumes %s: got %v, want an error saying %q", tc.assumes, err, tc.want)
		}
	}
}
