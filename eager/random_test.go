package eager_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/plan"
)

// outcome evaluates n with FromPlan (or the method chain) and reads the
// result, releasing everything.
func outcome(mem memory.Allocator, n plan.Node, methods bool) eagertest.Outcome {
	var df *eager.DataFrame
	var err error
	if methods {
		df, err = viaMethods(eager.NewSession(bg, eager.Options{Mem: mem}), n)
	} else {
		df, err = eager.FromPlan(bg, n, eager.Options{Mem: mem})
	}
	if err != nil {
		return eagertest.Outcome{Err: err}
	}
	defer df.Release()
	rows, err := df.Rows()
	if err != nil {
		return eagertest.Outcome{Err: fmt.Errorf("reading rows: %w", err)}
	}
	return eagertest.Outcome{Schema: df.Schema(), Rows: rows}
}

// TestRandomPlans holds FromPlan against plan.Resolve on random plans (the
// same error, kind, expression and path, when Resolve fails; the same
// schema otherwise), and FromPlan over the plan as written against
// FromPlan over its resolved form and against the method chain (the same
// outcome bit for bit). Every run must release all it allocated.
func TestRandomPlans(t *testing.T) {
	props := gopter.NewProperties(eagertest.Parameters(eagertest.Tests(600)))
	props.Property("eager agrees with Resolve and with itself", prop.ForAll(func(n plan.Node) string {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		msg := checkRandom(mem, n)
		if msg == "" && mem.CurrentAlloc() != 0 {
			msg = fmt.Sprintf("%d bytes still allocated", mem.CurrentAlloc())
		}
		if msg != "" {
			return msg + "\nplan:\n" + plan.Explain(n)
		}
		return ""
	}, eagertest.GenPlan()))
	props.TestingRun(t)
}

// evalKinds are the kinds only evaluation raises.
var evalKinds = map[plan.ErrorKind]bool{plan.DivideByZero: true, plan.Overflow: true, plan.InvalidCast: true, plan.TemporalOutOfRange: true, plan.UDFError: true}

func checkRandom(mem memory.Allocator, n plan.Node) string {
	resolved, rerr := plan.Resolve(n)
	got := outcome(mem, n, false)
	if rerr != nil {
		if got.Err == nil {
			return fmt.Sprintf("Resolve fails (%v), FromPlan succeeds", rerr)
		}
		if d := eagertest.DiffOutcomes(got, eagertest.Outcome{Err: rerr}); d != "" {
			return "FromPlan vs Resolve: " + d
		}
		ge, _ := plan.AsError(got.Err)
		if re, _ := plan.AsError(rerr); ge.Path != re.Path {
			return fmt.Sprintf("FromPlan error path %q, Resolve's %q", ge.Path, re.Path)
		}
		// The method chain evaluates each step at once: it reports either
		// Resolve's error or an evaluation error of a step below it.
		m := outcome(mem, n, true)
		if m.Err == nil {
			return fmt.Sprintf("Resolve fails (%v), the method chain succeeds", rerr)
		}
		if me, _ := plan.AsError(m.Err); me == nil || (!evalKinds[me.Kind] && !me.Same(ge)) {
			return fmt.Sprintf("methods: %v, Resolve: %v", m.Err, rerr)
		}
		return ""
	}
	if got.Err == nil && !got.Schema.Equal(resolved.Schema()) {
		return fmt.Sprintf("schema %s, Resolve says %s", got.Schema, resolved.Schema())
	}
	if got.Err != nil {
		if pe, _ := plan.AsError(got.Err); pe != nil && eagertest.ResolveKinds()[pe.Kind] && pe.Row < 0 && pe.Expr == "" {
			return fmt.Sprintf("FromPlan fails with a check error (%v) on a plan Resolve accepts", got.Err)
		}
	}
	if d := eagertest.DiffOutcomes(got, outcome(mem, resolved, false)); d != "" {
		return "plan vs resolved plan: " + d
	}
	if d := eagertest.DiffOutcomes(got, outcome(mem, plan.Unresolved(resolved), false)); d != "" {
		return "plan vs Unresolved(resolved): " + d
	}
	if d := eagertest.DiffOutcomes(got, outcome(mem, n, true)); d != "" {
		return "FromPlan vs methods: " + d
	}
	return ""
}
