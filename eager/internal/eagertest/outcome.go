package eagertest

import (
	"fmt"
	"os"
	"strconv"

	"github.com/leanovate/gopter"

	"github.com/dfopt/dfopt/plan"
)

// Outcome is the result of evaluating a plan one way: a schema and rows,
// or an error.
type Outcome struct {
	Schema plan.Schema
	Rows   [][]plan.Value
	Err    error
}

// DiffOutcomes describes how two outcomes differ in the oracle's sense
// (errors by kind and expression; results by schema and bitwise rows), or
// returns "".
func DiffOutcomes(a, b Outcome) string {
	switch {
	case a.Err != nil && b.Err != nil:
		ae, ok1 := plan.AsError(a.Err)
		be, ok2 := plan.AsError(b.Err)
		if !ok1 || !ok2 {
			return fmt.Sprintf("errors are not both *plan.Error: %v / %v", a.Err, b.Err)
		}
		if !ae.Same(be) {
			return fmt.Sprintf("different errors:\n  %s `%s` (%v)\n  %s `%s` (%v)", ae.Kind, ae.Expr, a.Err, be.Kind, be.Expr, b.Err)
		}
		return ""
	case a.Err != nil:
		return fmt.Sprintf("first failed (%v), second succeeded", a.Err)
	case b.Err != nil:
		return fmt.Sprintf("first succeeded, second failed (%v)", b.Err)
	}
	if !a.Schema.Equal(b.Schema) {
		return fmt.Sprintf("schemas differ: %s vs %s", a.Schema, b.Schema)
	}
	return DiffRows(a.Rows, b.Rows)
}

// Parameters returns gopter parameters with a fixed seed (override with the
// environment variable DFOPT_SEED) and one worker, so a failure replays.
func Parameters(tests int) *gopter.TestParameters {
	seed := int64(20240611)
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			seed = v
		}
	}
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = tests
	p.Workers = 1
	return p
}

// Tests returns n, or the count in the environment variable DFOPT_TESTS
// (for long campaigns).
func Tests(n int) int {
	if s := os.Getenv("DFOPT_TESTS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			return v
		}
	}
	return n
}

// ResolveKinds are the error kinds a resolve-time check raises.
func ResolveKinds() map[plan.ErrorKind]bool {
	return map[plan.ErrorKind]bool{plan.TypeError: true, plan.UnknownColumn: true, plan.DuplicateColumn: true, plan.InvalidPlan: true}
}
