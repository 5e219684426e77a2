package reference_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/rules"
)

// TestOptimizedPlansAgree runs the reference on the optimizer's output as
// well: over generated plans, the reference's outcome of the optimized plan
// must equal its outcome of the plan as written (the optimizer judged
// entirely by code that shares nothing with exec: projected scans, pushed
// conjuncts, fused and pruned nodes), and exec's outcome of the optimized
// plan (exec applying its pushed conjuncts and projections as the document
// says). The campaign seed is printed on failure; DFOPT_SEED replays it and
// DFOPT_PROP_N sets the number of plans.
func TestOptimizedPlansAgree(t *testing.T) {
	seed := propSeed(t)
	n := 2000
	if testing.Short() {
		n = 200
	}
	if s := os.Getenv("DFOPT_PROP_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("DFOPT_PROP_N=%q: %v", s, err)
		}
		n = v
	}
	ctx := context.Background()
	optimized := 0
	for i := 0; i < n; i++ {
		c := proptest.Generate(proptest.CaseSeed(seed, i), proptest.DefaultConfig())
		in, err := plan.Resolve(c.Plan)
		if err != nil {
			continue
		}
		res, err := rules.Optimize(in, rules.DefaultFlags())
		if err != nil {
			t.Fatalf("campaign seed %d index %d: the optimizer failed: %v\n%s", seed, i, err, c)
		}
		optimized++
		ref := referenceOutcome(ctx, res.Plan)
		if d := diff(ref, referenceOutcome(ctx, in)); d != "" {
			t.Fatalf("campaign seed %d index %d: the reference's outcome of the optimized plan differs from the input's: %s\n%s\noptimized plan:\n%s",
				seed, i, d, c, plan.Explain(res.Plan))
		}
		ex := execOutcome(ctx, res.Plan)
		if d := diff(ref, ex); d != "" && knownExecBug(ref, ex) == "" {
			t.Fatalf("campaign seed %d index %d: the optimized plan: %s\n%s\noptimized plan:\n%s", seed, i, d, c, plan.Explain(res.Plan))
		}
	}
	if optimized < n/2 {
		t.Errorf("only %d of %d generated plans resolved and optimized", optimized, n)
	}
}
