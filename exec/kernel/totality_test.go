package kernel

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// TestPropertyTotalNeverRaises: every expression the totality lattice calls
// total (plan.Total, trusting no UDF declaration) evaluates without an error
// over the adversarial data of the kernel's property test (MinInt64, zeros,
// NaN payloads, unparsable strings, planted division failures), and over
// the same data the partial ones do raise now and then — the lattice is not
// vacuously strict. The seed is fixed; DFOPT_SEED replays another.
func TestPropertyTotalNeverRaises(t *testing.T) {
	seed := propSeed(t)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 3000
	if testing.Short() {
		params.MinSuccessfulTests = 300
	}
	params.Workers = 1
	var total, partialRaised int
	props := gopter.NewProperties(params)
	props.Property("a total expression never raises", prop.ForAll(func(c propCase) string {
		if _, err := plan.TypeOf(c.Expr, propSchema); err != nil {
			return "generator produced an ill-typed expression: " + err.Error()
		}
		data := genData(c.Seed, c.Rows, c.Plant)
		mem := memory.NewGoAllocator()
		cols := make([]column, 0, propSchema.Len())
		for _, f := range propSchema.Fields() {
			cols = append(cols, colOf(f.Name, f.Type, data[f.Name]...))
		}
		rec := mkBatch(t, mem, cols...)
		defer rec.Release()
		out, err := (&Evaluator{Mem: mem}).Eval(plan.WithCallCounter(context.Background()), c.Expr, rec, c.Offset)
		if out != nil {
			out.Release()
		}
		isTotal := plan.Total(c.Expr, propSchema, plan.TrustLanguage)
		switch {
		case isTotal && err != nil:
			return "plan.Total says total, but it raised: " + err.Error()
		case isTotal:
			total++
		case err != nil:
			partialRaised++
		}
		return ""
	}, genCase()))
	if !props.Run(gopter.NewFormatedReporter(true, 100, os.Stdout)) {
		t.Errorf("property failed; replay with DFOPT_SEED=%d", seed)
	}
	if total < params.MinSuccessfulTests/10 || partialRaised == 0 {
		t.Errorf("%d of %d cases total, %d partial ones raised: the generator no longer exercises the lattice", total, params.MinSuccessfulTests, partialRaised)
	}
	t.Logf("%d total cases, %d partial cases raised", total, partialRaised)
}
