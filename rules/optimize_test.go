package rules

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestVerifySkipsUnchangedPlans checks that Verify mode re-resolves the plan
// from scratch once for the input and once per rule that changed it, not
// after every rule: a rule that returns the plan it was given changed
// nothing. The measure is allocations (deterministic), compared with the
// allocations of one from-scratch re-resolution.
func TestVerifySkipsUnchangedPlans(t *testing.T) {
	tests := []struct {
		name string
		in   plan.Node
		// changing is the number of rules that change the plan.
		changing int
	}{
		// No rule applies to a distinct over a scan of every column.
		{"nothing applies", scan(tT).Distinct().Node(), 0},
		// Only filter_fusion applies (the filters stop at the distinct,
		// and error_guards does not split the fused one: a strict parse
		// has no cheap error condition, eg.split).
		{"one rule applies", scan(tT).Distinct().Filter(col("s").Cast(plan.Int64).Gt(lit(1))).Filter(col("p")).Node(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := resolve(t, tt.in)
			verify, quiet := allFlags(), allFlags()
			quiet.Verify = false
			for _, f := range []Flags{verify, quiet} {
				if _, err := Optimize(in, f); err != nil {
					t.Fatal(err)
				}
			}
			res, _ := Optimize(in, verify)
			if tt.changing == 0 && res.Plan != in {
				t.Fatalf("nothing applies, yet the plan changed:\n%s", ExplainText(res, true))
			}
			withVerify := testing.AllocsPerRun(20, func() { _, _ = Optimize(in, verify) })
			without := testing.AllocsPerRun(20, func() { _, _ = Optimize(in, quiet) })
			oneCheck := testing.AllocsPerRun(20, func() {
				full, _ := plan.Resolve(plan.Unresolved(in))
				_ = plan.Equal(full, in)
			})
			// One check for the input and one per changing rule, with
			// slack for the changed plans being a little larger; five
			// checks (one per rule) would exceed it.
			limit := float64(tt.changing+1)*oneCheck + oneCheck/2
			if extra := withVerify - without; extra > limit {
				t.Errorf("Verify costs %.0f allocations more than no Verify; one from-scratch check costs %.0f, so at most %.0f expected (%d changing rules)",
					extra, oneCheck, limit, tt.changing)
			}
		})
	}
}
