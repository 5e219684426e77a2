package proptest

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// TestGenerateOrderVerifyingNodes checks that the generator draws
// asof_join and temporal_group plans of both outcomes: ones that run
// (sorted inputs) and ones whose input is out of order or has a null
// index, which the nodes must reject with invalid_input (the error path
// an executor must never skip by trusting its input).
func TestGenerateOrderVerifyingNodes(t *testing.T) {
	counts := map[plan.Kind]map[string]int{plan.KindAsOfJoin: {}, plan.KindTemporalGroup: {}}
	for i := 0; i < 30000; i++ {
		c := Generate(CaseSeed(3, i), DefaultConfig())
		if c.IllTyped {
			continue
		}
		var kinds []plan.Kind
		plan.WalkNodes(c.Plan, func(n plan.Node) bool {
			if _, ok := counts[n.Kind()]; ok {
				kinds = append(kinds, n.Kind())
			}
			return true
		})
		if len(kinds) == 0 {
			continue
		}
		res, err := plan.Resolve(c.Plan)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		outcome := "ok"
		if _, err := reference.Collect(context.Background(), res, reference.Options{}); err != nil {
			outcome = "other error"
			if pe, ok := plan.AsError(err); ok && pe.Kind == plan.InvalidInput {
				outcome = "invalid_input"
			}
		}
		for _, k := range kinds {
			counts[k][outcome]++
		}
	}
	for k, c := range counts {
		t.Logf("%s: %v", k, c)
		if c["ok"] < 100 || c["invalid_input"] < 20 {
			t.Errorf("%s: %v; want at least 100 plans that run and 20 that raise invalid_input", k, c)
		}
	}
}
