package eager

import (
	"fmt"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// internalError reports a failure of the eager chain itself (a misused
// frame, a broken contract). It is an invalid_plan error whose message
// starts "eager: ", so that callers always receive a *plan.Error and the
// oracle tells it from an outcome.
func internalError(format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "eager: " + fmt.Sprintf(format, args...)}
}

// relative makes the path of a step's resolve error relative to the step:
// a DataFrame method resolves a one-node plan, whose root plan.Resolve
// calls "plan", and reports ".predicates[0]" where a plan file would say
// "plan.input.predicates[0]" for the same node one level down.
func relative(err error) error {
	pe, ok := plan.AsError(err)
	if !ok || !strings.HasPrefix(pe.Path, "plan") {
		return err
	}
	c := *pe
	c.Path = strings.TrimPrefix(pe.Path, "plan")
	return &c
}
