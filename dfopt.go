// Package dfopt is the front door: it wires the plan builder, the optimizer
// and the Arrow executor together for programs that want all three.
//
// Build a plan with package plan's fluent builder, wrap it with Lazy, then
// explain or collect it:
//
//	lf := dfopt.Lazy(plan.Scan(trades).
//		WithColumns(plan.Col("notional").Div(plan.Col("qty")).Alias("price")).
//		Filter(plan.Col("symbol").Eq(plan.Lit("ACME"))))
//	text, err := lf.Explain(true)   // the optimized plan and why
//	res, err := lf.Collect(ctx)     // an Arrow record, or a *plan.Error
//	defer res.Release()
//	table, err := dfopt.FormatTable(res) // or FormatCSV, FormatJSON
//
// Hosts that embed only the optimizer use packages plan, legality and rules
// directly; they need neither this package nor Arrow.
package dfopt

import (
	"context"
	"strings"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/format"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// LazyFrame is a plan together with the optimizer flags and executor
// options it will be collected with. It is a value: every With method
// returns a modified copy.
type LazyFrame struct {
	root  plan.Node
	flags rules.Flags
	opts  exec.Options
}

// Lazy wraps a built plan with the default flags (every bounded-tier rule
// on) and default executor options.
func Lazy(f plan.Frame) LazyFrame { return LazyFrame{root: f.Node(), flags: rules.DefaultFlags()} }

// LazyPlan wraps an existing plan tree.
func LazyPlan(root plan.Node) LazyFrame { return LazyFrame{root: root, flags: rules.DefaultFlags()} }

// WithFlags selects the rules (rules.NoFlags() collects the plan as written).
func (lf LazyFrame) WithFlags(flags rules.Flags) LazyFrame {
	lf.flags = flags
	return lf
}

// WithOptions sets the executor options (allocator, extensions).
func (lf LazyFrame) WithOptions(opts exec.Options) LazyFrame {
	lf.opts = opts
	return lf
}

// Plan returns the plan as built.
func (lf LazyFrame) Plan() plan.Node { return lf.root }

// Optimize runs the optimizer and returns the rewritten plan, its counters
// and its trace. A plan that does not resolve gives its *plan.Error.
// Flags without an Evaluator fold constants through the executor's kernel
// (exec.ConstEvaluator), the one Collect evaluates them with.
func (lf LazyFrame) Optimize() (rules.Result, error) {
	flags := lf.flags
	if flags.Evaluator == nil {
		flags.Evaluator = exec.ConstEvaluator{}
	}
	return rules.Optimize(lf.root, flags)
}

// Explain returns the optimized plan as text with its counters and, with
// why, every rewrite and refusal and the legality cell that decided it.
func (lf LazyFrame) Explain(why bool) (string, error) {
	res, err := lf.Optimize()
	if err != nil {
		return "", err
	}
	return rules.ExplainText(res, why), nil
}

// Collect optimizes the plan and runs it. The result owns Arrow memory:
// call Release on it. A failed collect returns a *plan.Error (see
// plan.AsError) naming the error kind and the expression that raised it.
func (lf LazyFrame) Collect(ctx context.Context) (*exec.Result, error) {
	res, err := lf.Optimize()
	if err != nil {
		return nil, err
	}
	return exec.Collect(ctx, res.Plan, lf.opts)
}

// FormatTable returns the result as the aligned text table `dfopt run`
// prints (package format: control characters escaped, nulls as null).
func FormatTable(r *exec.Result) (string, error) {
	var b strings.Builder
	err := format.Table(&b, r)
	return b.String(), err
}

// FormatCSV returns the result as the CSV `dfopt run --format csv` prints
// (package format: a null is an empty field, an empty string "").
func FormatCSV(r *exec.Result) (string, error) {
	var b strings.Builder
	err := format.CSV(&b, r)
	return b.String(), err
}

// FormatJSON returns the result as the JSON object `dfopt run --format
// json` prints, without its counters (package format: int64 values beyond
// ±2^53 as decimal strings, float specials as strings).
func FormatJSON(r *exec.Result) (string, error) {
	var b strings.Builder
	err := format.JSON(&b, r, nil)
	return b.String(), err
}
