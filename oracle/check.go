package oracle

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// Case is one plan to check.
type Case struct {
	// Name identifies the case in reports (a file name, "seed 1 index 7").
	Name string
	// Plan is the plan as written (resolved or not).
	Plan plan.Node
	// Flags selects the rules; nil means DefaultFlags with Verify on.
	Flags *rules.Flags
	// Expect, when set, lists what the check must also observe: counters
	// that must match exactly, and the error kind ("" for success) of the
	// unoptimized outcome (the other ways must agree with it anyway).
	Expect *planjson.Expect
	// Executor runs the optimized and unoptimized ways; nil means
	// ExecExecutor{} (exec.Collect) with Extensions.
	Executor Executor
	// Extensions implements the plan's extension operators for the eager
	// way, and for the default executor when Executor is nil; nil means
	// the built-ins. A host whose plans hold its own operators registers
	// them here, so that the eager way can run them too.
	Extensions *eager.Extensions
	// ReferenceExtensions implements a host's own extension operators for
	// the reference way, over plain values (the built-ins need nothing).
	// A plan holding a host operator missing here is skipped by the
	// reference way (WayResult.Skipped), not a divergence.
	ReferenceExtensions map[string]reference.ExtensionFunc
	// NoReference turns the reference way off for this case (the other
	// three still run).
	NoReference bool
}

// DefaultFlags are the flags of a Case without Flags: every rule and arm,
// and Verify on.
func DefaultFlags() rules.Flags {
	f := rules.DefaultFlags()
	f.Verify = true
	return WithEvaluator(f)
}

// WithEvaluator returns f with the executor's constant evaluator
// (exec.ConstEvaluator) when f has none, so that simplify folds constants
// through the kernel the ways evaluate them with. Every optimization the
// oracle runs (Check, campaigns, mutation, bisection) and the plan files'
// flags (DocumentFlags) go through it.
func WithEvaluator(f rules.Flags) rules.Flags {
	if f.Evaluator == nil {
		f.Evaluator = exec.ConstEvaluator{}
	}
	return f
}

// Report is the result of checking one case.
type Report struct {
	// Name is the case's name.
	Name string
	// Flags are the flags the optimizer ran with.
	Flags rules.Flags
	// Executor names the executor of the first two ways.
	Executor string
	// Results holds the four ways, indexed by Way.
	Results [4]WayResult
	// ResolveErr is the resolution error when the plan does not resolve
	// (then it is also the optimized way's outcome).
	ResolveErr error
	// OptimizeErr is the optimizer's failure on a plan that resolves (also a
	// divergence of kind optimizer).
	OptimizeErr error
	// Input is the resolved input plan (nil when it does not resolve), and
	// Optimized the optimizer's plan (nil when it failed).
	Input, Optimized plan.Node
	// Counters, Trace and Table are the optimizer's (zero when it failed).
	Counters rules.Counters
	Trace    rules.Trace
	Table    *legality.Table
	// Divergences lists every difference found, in a fixed order: the
	// optimizer, internal failures, the pairs unoptimized/eager,
	// optimized/unoptimized, optimized/eager and reference/unoptimized,
	// then the memo.
	Divergences []Divergence
	// Unmet lists the expectations (Case.Expect) that were not met.
	Unmet []string
}

// Agree reports whether the ways agree and every expectation holds.
func (r *Report) Agree() bool { return len(r.Divergences) == 0 && len(r.Unmet) == 0 }

// Class identifies the report's divergences for shrinking: the classes of
// all its divergences, in report order, or "" when they agree. Two reports
// with the same class have the same pairs differing in the same ways.
func (r *Report) Class() string {
	s := ""
	for i, d := range r.Divergences {
		if i > 0 {
			s += "; "
		}
		s += d.Class()
	}
	return s
}

// Fired returns the rules that rewrote something: at least one allowed
// trace entry of the rule, in the rules' order.
func (r *Report) Fired() []string {
	allowed := map[string]bool{}
	for _, e := range r.Trace {
		if e.Allowed {
			allowed[e.Rule] = true
		}
	}
	var out []string
	for _, rule := range r.Flags.Rules().Rules() {
		if allowed[rule.Name] {
			out = append(out, rule.Name)
		}
	}
	return out
}

// Rewrote returns the rules whose counters moved: the rules that changed
// the plan (or, for shared_subplans, predicted sharing). A rule can fire
// (an allowed trace entry, such as projection_pruning passing requirements
// through a sort) without rewriting anything.
func (r *Report) Rewrote() []string { return r.Flags.Rules().Rewrote(r.Counters) }

// Cells returns, per legality cell consulted, how many trace entries it
// allowed and refused.
func (r *Report) Cells() map[legality.CellID][2]int { return r.Trace.Cells() }

// executor returns the executor of the optimized and unoptimized ways.
func (c Case) executor() Executor {
	if c.Executor != nil {
		return c.Executor
	}
	return ExecExecutor{Options: exec.Options{Extensions: c.Extensions, FilterStageRows: FilterStageRows}}
}

// FilterStageRows is the exec.Options.FilterStageRows of the optimized and
// unoptimized ways: small, so that the random plans' filters over a few
// hundred rows are evaluated in stages as the executor's are over large
// tables, while the eager way evaluates them at once (its default) and the
// reference row by row.
const FilterStageRows = 4

// Check runs c four ways (three when c.NoReference) and compares the
// outcomes. It never panics: a panic in any way is recovered and reported
// as a divergence.
func Check(ctx context.Context, c Case) *Report {
	flags := DefaultFlags()
	if c.Flags != nil {
		flags = WithEvaluator(*c.Flags)
	}
	x := c.executor()
	r := &Report{Name: c.Name, Flags: flags, Executor: x.Name()}
	for i := range r.Results {
		r.Results[i].Way = Way(i)
	}
	if c.Plan == nil {
		r.ResolveErr = &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "oracle: no plan"}
	}
	r.optimize(c.Plan)
	opt := &r.Results[Optimized]
	switch {
	case r.OptimizeErr != nil:
		// Nothing to collect.
	case r.ResolveErr != nil:
		opt.Ran, opt.Err = true, r.ResolveErr
	default:
		*opt = runWay(ctx, Optimized, func(ctx context.Context) (Outcome, error) { return x.Collect(ctx, r.Optimized) })
	}
	// The unoptimized way collects the resolved input when there is one:
	// resolving is idempotent (plan's properties check it), so this is the
	// plan as written, and it saves the executor a second full resolution.
	// A plan that does not resolve goes to the executor as written, so that
	// its own resolution error is compared.
	unopt := c.Plan
	if r.Input != nil {
		unopt = r.Input
	}
	r.Results[Unoptimized] = runWay(ctx, Unoptimized, func(ctx context.Context) (Outcome, error) { return x.Collect(ctx, unopt) })
	r.Results[Eager] = runWay(ctx, Eager, func(ctx context.Context) (Outcome, error) { return collectEager(ctx, c.Plan, c.Extensions) })
	if !c.NoReference {
		// The plan as written: the resolved input, or the plan itself
		// when it does not resolve (the reference reports the same
		// resolution error).
		r.Results[Reference] = runReference(ctx, c, unopt)
	}
	r.compare()
	if c.Expect != nil {
		r.checkExpect(c.Expect)
	}
	return r
}

// optimize resolves the input and runs the optimizer, recording a resolve
// error as the optimized way's outcome and any other failure as a
// divergence.
func (r *Report) optimize(root plan.Node) {
	defer func() {
		if p := recover(); p != nil {
			r.OptimizeErr = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			r.addOptimizerDivergence("the optimizer panicked: %v", p)
		}
	}()
	if r.ResolveErr != nil {
		return
	}
	in, err := plan.Resolve(root)
	if err != nil {
		r.ResolveErr = err
		// The optimizer must fail too (it starts by resolving).
		if res, oerr := rules.Optimize(root, r.Flags); oerr == nil {
			r.Optimized = res.Plan
			r.addOptimizerDivergence("the plan does not resolve (%s) but the optimizer succeeded", describeErr(err))
		}
		return
	}
	r.Input = in
	res, err := rules.Optimize(in, r.Flags)
	if err != nil {
		r.OptimizeErr = err
		r.addOptimizerDivergence("the plan resolves but the optimizer failed: %v", err)
		return
	}
	r.Optimized, r.Counters, r.Trace, r.Table = res.Plan, res.Counters, res.Trace, res.Table
	if !res.Plan.Schema().Equal(in.Schema()) {
		r.Divergences = append(r.Divergences, Divergence{
			Kind: DiffRootSchema, Pair: Pair{A: Optimized, B: Unoptimized}, Column: -1, Row: -1,
			Detail: fmt.Sprintf("the optimized root schema %s differs from the input's %s", res.Plan.Schema(), in.Schema()),
			Diff:   cmpDiffFields(res.Plan.Schema(), in.Schema()),
		})
	}
}

func (r *Report) addOptimizerDivergence(format string, args ...any) {
	r.Divergences = append(r.Divergences, Divergence{
		Kind: DiffOptimizer, Pair: Pair{A: Optimized, B: Optimized}, Column: -1, Row: -1,
		Detail: fmt.Sprintf(format, args...),
	})
}

// runWay runs one way, recovering a panic into an internal failure.
func runWay(ctx context.Context, w Way, f func(context.Context) (Outcome, error)) (res WayResult) {
	res = WayResult{Way: w, Ran: true}
	defer func() {
		if p := recover(); p != nil {
			res.Outcome = Outcome{}
			res.Err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			res.Internal = true
		}
	}()
	out, err := f(ctx)
	if err != nil {
		res.Err = err
		res.Internal = isInternal(err)
		return res
	}
	res.Outcome = out
	return res
}

// comparedPairs are the pairs compared, in report order: the executor
// against the eager chain first (a difference there is not the
// optimizer's), then the optimizer's effect, then the reference against
// the unoptimized way (a difference there, with the others agreeing, is a
// bug shared by exec and eager — their common kernel or node semantics —
// or in the reference; the other ways agree with the unoptimized one or
// already diverge).
var comparedPairs = [...]Pair{{Unoptimized, Eager}, {Optimized, Unoptimized}, {Optimized, Eager}, {Reference, Unoptimized}}

func (r *Report) compare() {
	for i := range r.Results {
		w := &r.Results[i]
		if w.Ran && w.Internal {
			r.Divergences = append(r.Divergences, Divergence{
				Kind: DiffInternal, Pair: Pair{A: w.Way, B: w.Way}, Column: -1, Row: -1,
				Detail: fmt.Sprintf("%s broke its contract: %v", w.Way, firstLine(w.Err)),
				Diff:   w.Err.Error(),
			})
		}
	}
	for _, p := range comparedPairs {
		a, b := &r.Results[p.A], &r.Results[p.B]
		if !a.Ran || !b.Ran || a.Internal || b.Internal {
			continue
		}
		if d, differ := compareWays(a, b); differ {
			r.Divergences = append(r.Divergences, d)
		}
	}
	opt := &r.Results[Optimized]
	predicted := r.Counters.Get(memoCounter)
	if r.Flags.Enabled(rules.FlagSharedSubplans) && opt.OK() && opt.Outcome.MemoHits >= 0 && opt.Outcome.MemoHits != predicted {
		r.Divergences = append(r.Divergences, Divergence{
			Kind: DiffMemo, Pair: Pair{A: Optimized, B: Optimized}, Column: -1, Row: -1,
			Detail: fmt.Sprintf("the optimizer predicted sharedSubplans=%d, the optimized collect's memo served %d",
				predicted, opt.Outcome.MemoHits),
		})
	}
}

// memoCounter is shared_subplans' prediction of the executor's memo hits,
// which the oracle checks against the optimized collect's.
const memoCounter = "sharedSubplans"

// checkExpect checks a plan file's expectations.
func (r *Report) checkExpect(e *planjson.Expect) {
	if e.Counters != nil {
		have := map[string]int{}
		for _, kv := range r.Counters.List() {
			have[kv.Name] = kv.Value
		}
		for _, name := range slices.Sorted(maps.Keys(e.Counters)) {
			want := e.Counters[name]
			got, ok := have[name]
			switch {
			case !ok:
				r.Unmet = append(r.Unmet, fmt.Sprintf("expect.counters: unknown counter %q", name))
			case int64(got) != want:
				r.Unmet = append(r.Unmet, fmt.Sprintf("expect.counters.%s: want %d, got %d", name, want, got))
			}
		}
	}
	if e.Error != nil {
		want := *e.Error
		u := &r.Results[Unoptimized]
		got := u.ErrorKind()
		if got != want {
			wantS, gotS := string(want), string(got)
			if wantS == "" {
				wantS = "success"
			}
			if gotS == "" {
				gotS = "success"
				if u.Err != nil {
					gotS = "an internal failure"
				}
			}
			r.Unmet = append(r.Unmet, fmt.Sprintf("expect.error: want %s, the unoptimized outcome is %s", wantS, gotS))
		}
	}
}
