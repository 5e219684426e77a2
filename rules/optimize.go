package rules

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Result is what Optimize returns: the rewritten, resolved plan, the
// counters, the trace of every rewrite and refusal, and the legality table
// that was consulted.
type Result struct {
	Plan     plan.Node
	Counters Counters
	Trace    Trace
	Table    *legality.Table
	// Applied counts the rewrite applications that happened, only under a
	// limit (Flags.Limit != 0; it is then at most the limit). To count the
	// applications of an unlimited run, set a limit no plan reaches
	// (math.MaxInt): the run is the same.
	Applied int
	// Applications lists them in order, only under a positive Flags.Limit
	// (so an unlimited run logs nothing): Applications[k-1] is the k-th.
	Applications []Application
}

// ErrNilPlan is returned by Optimize for a nil plan.
var ErrNilPlan = errors.New("optimize: no plan")

// Optimize resolves root and runs the enabled rules in the fixed order of
// DESIGN §6: predicate_pushdown, filter_fusion, projection_fusion,
// projection_pruning, shared_subplans. After every rule that changed the
// plan the plan is resolved again (only the new nodes) and its root schema
// must equal the input's; with flags.Verify the whole plan is also
// re-resolved from scratch, once for the input and once after every rule
// that changed it. A rule that returns the very plan it was given (the same
// root node: rules never modify a node) changed nothing, so nothing is
// checked again.
// A failure names the rule; the Result returned with it holds only Applied
// and Applications (under a limit), the rewrites made before the failure. A
// panic inside the optimizer is returned as an *InternalError (with the same
// partial Result). The input plan is never modified.
//
// The rules run in order (RulesFor the table in use), each only when its
// flag is on and the plan holds a node of a kind it matches (Rule.Matches).
func Optimize(root plan.Node, flags Flags) (res Result, err error) {
	table := flags.Table
	if table == nil {
		table = legality.Default()
	}
	return optimize(root, flags, table, RulesFor(table))
}

// InternalError is what Optimize returns when the optimizer itself panics:
// a bug of dfopt (or of a host callback that escaped its guard), never a
// property of the plan. Error() is one line; Stack holds the panicking
// goroutine's stack for a bug report.
type InternalError struct {
	// Stage is where it happened: "resolve" or "rule <name>".
	Stage string
	// Rule is the rule that panicked ("" outside a rule).
	Rule string
	// Value is what was passed to panic.
	Value any
	// Stack is the stack trace (runtime/debug.Stack) at the recovery.
	Stack []byte
}

// Error renders "optimize: internal error in rule filter_fusion: <value>"
// on one line.
func (e *InternalError) Error() string {
	v := strings.ReplaceAll(fmt.Sprint(e.Value), "\n", " ")
	return "optimize: internal error in " + e.Stage + ": " + v
}

// optimize is Optimize with the rules to run.
func optimize(root plan.Node, flags Flags, table *legality.Table, rules []Rule) (res Result, err error) {
	if root == nil {
		return Result{}, ErrNilPlan
	}
	stage, ruleName := "resolve", ""
	var r *run
	defer func() {
		if p := recover(); p != nil {
			res = Result{}
			if r != nil {
				res = r.partial()
			}
			err = &InternalError{Stage: stage, Rule: ruleName, Value: p, Stack: debug.Stack()}
		}
	}()
	cur, err := plan.Resolve(root)
	if err != nil {
		return Result{}, fmt.Errorf("optimize: resolve the input plan: %w", err)
	}
	want := cur.Schema()
	if flags.Verify {
		// The input is verified once here; afterwards only a rule that
		// returns a new plan is.
		if err := verifyPlan("the input", cur, want); err != nil {
			return Result{}, err
		}
	}
	// Most rules record about one entry per node or conjunct: sizing the
	// trace once saves the copies of repeated growth on large plans.
	r = &run{table: table, flags: flags, trace: newTraceBuf(plan.Size(cur)), budget: budget{limit: flags.Limit}}
	var present map[plan.Kind]bool // the node kinds of cur, computed when needed
	for i := range rules {
		rule := &rules[i]
		if !flags.Enabled(rule.Name) {
			continue
		}
		if present == nil {
			present = kindsOf(cur)
		}
		if !rule.matches(present) {
			continue
		}
		stage, ruleName = "rule "+rule.Name, rule.Name
		out, err := rule.rewrite(r, cur)
		if err != nil {
			return r.partial(), fmt.Errorf("optimize: rule %s: %w", rule.Name, err)
		}
		if out == cur {
			continue // unchanged, and cur is already checked
		}
		if out, err = checkRule(rule.Name, out, want, flags.Verify); err != nil {
			return r.partial(), err
		}
		cur, present = out, nil
	}
	return Result{Plan: cur, Counters: r.counters, Trace: r.trace.trace(), Table: table,
		Applied: r.budget.used, Applications: r.budget.log}, nil
}

// kindsOf returns the node kinds the plan holds.
func kindsOf(root plan.Node) map[plan.Kind]bool {
	present := map[plan.Kind]bool{}
	plan.WalkNodes(root, func(n plan.Node) bool {
		present[n.Kind()] = true
		return true
	})
	return present
}

// partial is the Result returned with an error: only the applications made
// before the failure, so that a bisection can name the one that broke the
// plan.
func (r *run) partial() Result {
	return Result{Applied: r.budget.used, Applications: r.budget.log}
}

// checkRule resolves a rule's output (only its new nodes) and checks the root
// schema; in verify mode it also re-resolves the whole plan from scratch.
func checkRule(rule string, out plan.Node, want plan.Schema, verify bool) (plan.Node, error) {
	if out == nil {
		return nil, fmt.Errorf("optimize: rule %s returned no plan", rule)
	}
	resolved, err := plan.Resolve(out)
	if err != nil {
		return nil, fmt.Errorf("optimize: rule %s produced a plan that does not resolve: %w", rule, err)
	}
	if got := resolved.Schema(); !got.Equal(want) {
		return nil, fmt.Errorf("optimize: rule %s changed the root schema from %s to %s", rule, want, got)
	}
	if verify {
		if err := verifyPlan("rule "+rule, resolved, want); err != nil {
			return nil, err
		}
	}
	return resolved, nil
}

// verifyPlan re-resolves a resolved plan from scratch (Verify mode) and
// checks that the result is the same plan with the root schema want; after
// names the stage checked ("the input", "rule filter_fusion").
func verifyPlan(after string, resolved plan.Node, want plan.Schema) error {
	full, err := plan.Resolve(plan.Unresolved(resolved))
	if err != nil {
		return fmt.Errorf("optimize: verify after %s: the plan does not resolve from scratch: %w", after, err)
	}
	if got := full.Schema(); !got.Equal(want) {
		return fmt.Errorf("optimize: verify after %s: re-resolved root schema %s differs from %s", after, got, want)
	}
	if !plan.Equal(full, resolved) {
		return fmt.Errorf("optimize: verify after %s: re-resolution changed the plan", after)
	}
	return nil
}
