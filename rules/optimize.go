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
	// Tier is the tier whose totality the legality table relied on
	// (Flags.Tier); explain names it.
	Tier Tier
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

// Optimize resolves root and runs the enabled rules of flags.Registry
// (Builtin() when nil) in its order — for the built-in rules the fixed order
// of docs/design.md §6 — each only when its flag is on and
// the plan holds a node of a kind it matches (Rule.Matches), once or until
// stable (Rule.Mode). After every rule that changed the plan the plan is
// resolved again (only the new nodes) and its root schema must equal the
// input's; with flags.Verify — and always after a host's rule — the whole
// plan is also re-resolved from scratch, once for the input and once after
// every rule that changed it. A rule that returns the very plan it was
// given (the same root node: rules never modify a node) changed nothing, so
// nothing is checked again.
// A failure names the rule; the Result returned with it holds only Applied
// and Applications (under a limit), the rewrites made before the failure. A
// panic inside the optimizer is returned as an *InternalError (with the same
// partial Result). The input plan is never modified.
func Optimize(root plan.Node, flags Flags) (res Result, err error) {
	reg := flags.Rules()
	if reg.err != nil {
		return Result{}, reg.err
	}
	table := flags.LegalityTable()
	if table != reg.table {
		if err := covers(table, reg.table); err != nil {
			return Result{}, err
		}
	}
	return optimize(root, flags, table, reg)
}

// covers checks that table holds every cell of want for the same rule: a
// table missing a host's cells would silently refuse every rewrite of its
// rules (the closed world).
func covers(table, want *legality.Table) error {
	for _, c := range want.Cells() {
		if got, ok := table.Lookup(c.ID); !ok || got.Rule != c.Rule {
			return fmt.Errorf("optimize: the legality table in Flags.Table lacks cell %s of rule %s (derive it from the registry's, Registry.Table)", c.ID, c.Rule)
		}
	}
	return nil
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

// optimize is Optimize with the registry whose rules run and the table
// they consult.
func optimize(root plan.Node, flags Flags, table *legality.Table, reg *Registry) (res Result, err error) {
	if root == nil {
		return Result{}, ErrNilPlan
	}
	stage, ruleName := "resolve", ""
	var c *Context
	defer func() {
		if p := recover(); p != nil {
			res = Result{}
			if c != nil {
				res = c.partial()
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
	c = &Context{table: table.WithTotality(flags.Tier.Totality()), flags: flags, reg: reg, trace: newTraceBuf(plan.Size(cur)), counters: reg.newCounters(),
		budget: budget{limit: flags.Limit}}
	var present map[plan.Kind]bool // the node kinds of cur, computed when needed
	for i := range reg.rules {
		rule := &reg.rules[i]
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
		c.rule = rule
		out, err := c.run(rule, cur, want)
		if err != nil {
			return c.partial(), err
		}
		if out == cur {
			continue // unchanged, and cur is already checked
		}
		cur, present = out, nil
	}
	return Result{Plan: cur, Counters: Counters{reg: reg, vals: c.counters}, Trace: c.trace.trace(), Table: table,
		Tier: flags.Tier, Applied: c.budget.used, Applications: c.budget.log}, nil
}

// run runs one rule on cur as its Mode says and checks what it returns:
// the plan resolved, with the root schema want (and every node's schema for
// a local rule), verified from scratch in Verify mode or for a host's rule.
// It returns cur itself when the rule changed nothing.
func (c *Context) run(rule *Rule, cur plan.Node, want plan.Schema) (plan.Node, error) {
	guard := c.flags.Verify || !rule.builtin
	for pass := 1; ; pass++ {
		var out plan.Node
		var err error
		if rule.Rewrite != nil {
			out, err = rule.Rewrite(c, cur)
		} else {
			out, err = TransformUp(cur, func(n plan.Node, at *plan.Path) (plan.Node, error) {
				if !rule.matchesKind(n.Kind()) {
					return n, nil
				}
				return rule.Local(c, n, at)
			})
		}
		if err == nil && c.misuse != nil {
			err = c.misuse
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("optimize: rule %s: %w", rule.Name, err)
		case out == cur:
			return cur, nil
		case rule.Analysis:
			return nil, fmt.Errorf("optimize: rule %s is an analysis rule but returned another plan", rule.Name)
		}
		out, err = checkRule(rule.Name, out, want, guard)
		if err != nil {
			return nil, err
		}
		if rule.Mode == Once {
			return out, nil
		}
		if plan.Equal(out, cur) {
			return cur, nil
		}
		if pass == MaxPasses {
			return nil, fmt.Errorf("optimize: rule %s still changes the plan after %d passes", rule.Name, MaxPasses)
		}
		cur = out
	}
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
func (c *Context) partial() Result {
	return Result{Applied: c.budget.used, Applications: c.budget.log}
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
