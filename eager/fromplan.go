package eager

import (
	"context"

	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// FromPlan evaluates a plan tree eagerly in a new session:
// NewSession(ctx, opts).FromPlan(node).
func FromPlan(ctx context.Context, node plan.Node, opts Options) (*DataFrame, error) {
	return NewSession(ctx, opts).FromPlan(node)
}

// FromPlan evaluates a plan tree (resolved or not) step by step, in two
// passes. First plan.Resolve type-checks the whole tree bottom-up, so a
// resolve-time error anywhere is reported before anything is evaluated —
// a type error near the root wins over an evaluation error below it, as in
// the executor, which also resolves before collecting. Then every node of
// the resolved tree is evaluated, children left before right, at once, its
// output materialized before its parent runs. A subtree that appears twice
// is evaluated twice (there is no memo), a limit over a sort sorts
// everything, and sources are read whole (no pushdown): those are the
// executor's, and the oracle holds the two against each other. Errors are
// *plan.Error values naming the node (its label); resolve errors also give
// its path in plan-file syntax.
//
// Scans read *plan.Table sources directly and any other source through
// Options.Scan or Scanner.
func (s *Session) FromPlan(node plan.Node) (out *DataFrame, err error) {
	tables := step.NewTables()
	defer tables.Release()
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, s.env.Internal("%v", step.Recovered("eager evaluation", r))
		}
	}()
	if err := s.env.CheckCtx(); err != nil {
		return nil, err
	}
	resolved, err := plan.Resolve(node)
	if err != nil {
		return nil, err
	}
	return s.run(resolved, &runner{tables: tables})
}
