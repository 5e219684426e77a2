package rules

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// refEvaluator folds constants for the package's tests through the
// reference interpreter (rules imports no Arrow, so not through the
// kernel): EvalExpr over one row and no column. The oracle checks the
// kernel's folds (exec.ConstEvaluator) against this interpreter too.
type refEvaluator struct{}

func (refEvaluator) EvalConst(e plan.Expr) (plan.Value, error) {
	vals, err := reference.EvalExpr(plan.WithCallCounter(context.Background()), e, &reference.Result{Rows: 1}, 0)
	if err != nil {
		return plan.Value{}, err
	}
	if len(vals) != 1 {
		return plan.Value{}, fmt.Errorf("%d values over one row", len(vals))
	}
	return vals[0], nil
}

// failingEvaluator raises on every constant: nothing folds.
type failingEvaluator struct{}

func (failingEvaluator) EvalConst(plan.Expr) (plan.Value, error) {
	return plan.Value{}, errors.New("no")
}

// panickingEvaluator panics: the rule must turn that into "do not fold".
type panickingEvaluator struct{}

func (panickingEvaluator) EvalConst(plan.Expr) (plan.Value, error) { panic("boom") }

// wrongTypeEvaluator returns a value of another type than asked.
type wrongTypeEvaluator struct{}

func (wrongTypeEvaluator) EvalConst(plan.Expr) (plan.Value, error) { return plan.StringValue("x"), nil }

func simplifyOnly(ev ConstEvaluator) Flags {
	f := only(FlagSimplify)
	f.Tier, f.Verify, f.Evaluator = TierStandard, true, ev
	return f
}

// A plan with constants of every kind, a literal-left comparison and
// boolean identities: what simplify does with each evaluator.
func simplifyInput(t *testing.T) plan.Node {
	t.Helper()
	in, err := parsePlan([]string{
		"project [a + (1 + 2) as x, b]",
		"  filter [1 < a, (a > 0) and true, 1 / 0 > a, true]",
		"    scan t",
	}, testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestSimplifyEvaluators(t *testing.T) {
	in := simplifyInput(t)
	for _, tc := range []struct {
		name   string
		ev     ConstEvaluator
		folded int
	}{
		{"reference", refEvaluator{}, 1},
		{"none", nil, 0},
		{"failing", failingEvaluator{}, 0},
		{"panicking", panickingEvaluator{}, 0},
		{"wrong type", wrongTypeEvaluator{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Optimize(in, simplifyOnly(tc.ev))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Counters.Get(counterFoldedExprs); got != tc.folded {
				t.Errorf("foldedExprs = %d, want %d\n%s", got, tc.folded, ExplainText(res, true))
			}
			// The identities need no evaluator.
			if got := res.Counters.Get(counterFlippedComparisons); got != 1 {
				t.Errorf("flippedComparisons = %d, want 1", got)
			}
			if got := res.Counters.Get(counterSimplifiedBooleans); got != 2 {
				t.Errorf("simplifiedBooleans = %d, want 2 (and true, the true conjunct)", got)
			}
		})
	}
}

// A second optimization of simplify's output finds nothing left to do: the
// rule runs until stable.
func TestSimplifyIsStable(t *testing.T) {
	res, err := Optimize(simplifyInput(t), simplifyOnly(refEvaluator{}))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Optimize(res.Plan, simplifyOnly(refEvaluator{}))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Counters.IsZero() || again.Plan != res.Plan && !plan.Equal(again.Plan, res.Plan) {
		t.Errorf("a second run rewrote %s:\n%s", again.Counters.Moved(), ExplainText(again, true))
	}
}

// An error raised around a folded constant names the constant as written.
func TestSimplifyFoldKeepsWrittenText(t *testing.T) {
	res, err := Optimize(simplifyInput(t), simplifyOnly(refEvaluator{}))
	if err != nil {
		t.Fatal(err)
	}
	p := res.Plan.(*plan.ProjectNode)
	x := plan.Unalias(p.Exprs[0])
	if got, want := x.String(), "a + 3"; got != want {
		t.Errorf("runs as %q, want %q", got, want)
	}
	if got, want := plan.Written(x), "a + (1 + 2)"; got != want {
		t.Errorf("written as %q, want %q", got, want)
	}
	f := p.Input.(*plan.FilterNode)
	// The raising constant stays as written, and is no literal to flip.
	if got, want := f.Predicates[2].String(), "1 / 0 > a"; got != want {
		t.Errorf("the raising conjunct runs as %q, want %q", got, want)
	}
}

// deepConstant is a constant nested n deep that raises at its bottom:
// ((1 / 0) + 1) + 1 ...; deepNot is not(not(... p)) n deep.
func deepConstant(n int) plan.Expr {
	var e plan.Expr = &plan.Call{Fn: plan.FuncDiv, Args: []plan.Expr{&plan.Literal{Value: plan.Int64Value(1)}, &plan.Literal{Value: plan.Int64Value(0)}}}
	for i := 0; i < n; i++ {
		e = &plan.Call{Fn: plan.FuncAdd, Args: []plan.Expr{e, &plan.Literal{Value: plan.Int64Value(1)}}}
	}
	return e
}

func deepNot(n int) plan.Expr {
	var e plan.Expr = &plan.Column{Name: "p"}
	for i := 0; i < n; i++ {
		e = &plan.Call{Fn: plan.FuncNot, Args: []plan.Expr{e}}
	}
	return e
}

// Deep expressions simplify in linear time: the raising constant is
// evaluated once whole and then node by node over literal operands, never
// again at every level.
func BenchmarkSimplifyDeep(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		in := plan.Scan(tT).Select(plan.Wrap(deepConstant(n)).Alias("x"), plan.Wrap(deepNot(n)).Alias("y")).Node()
		flags := simplifyOnly(refEvaluator{})
		flags.Verify = false
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Optimize(in, flags); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSimplifyDeep(t *testing.T) {
	in := plan.Scan(tT).Select(plan.Wrap(deepConstant(2000)).Alias("x"), plan.Wrap(deepNot(2001)).Alias("y")).Node()
	res, err := Optimize(in, simplifyOnly(refEvaluator{}))
	if err != nil {
		t.Fatal(err)
	}
	// The raising constant stays as written; the nots cancel in pairs.
	p := res.Plan.(*plan.ProjectNode)
	if got := plan.Unalias(p.Exprs[1]).String(); got != "not(p)" {
		t.Errorf("deep nots simplify to %.40s, want not(p)", got)
	}
	if got := res.Counters.Get(counterSimplifiedBooleans); got != 1000 {
		t.Errorf("simplifiedBooleans = %d, want 1000", got)
	}
	if got := res.Counters.Get(counterFoldedExprs); got != 0 {
		t.Errorf("foldedExprs = %d, want 0 (every level raises)", got)
	}
}
