package oracle

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// constGen builds random constant expressions (no column): literal
// arithmetic with extreme and special values, casts of literal strings,
// coalesce and if of typed nulls, comparisons and logic.
type constGen struct{ r *rand.Rand }

var (
	constInts    = []int64{0, 1, -1, 2, -7, 7, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	constFloats  = []float64{0, math.Copysign(0, -1), 1.5, -2.5, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000123), 5e-324, math.MaxFloat64}
	constStrings = []string{"", "12", "-3", "1.5", "-0.0", "NaN", "true", "x", "1e400", "2147483648", "é"}
	constTypes   = []plan.Type{plan.Int64, plan.Int32, plan.Float64, plan.String, plan.Bool}
)

func (g constGen) lit(t plan.Type) plan.Expr {
	if g.r.Intn(10) == 0 {
		return &plan.Literal{Value: plan.NullValue(t)}
	}
	var v plan.Value
	switch t {
	case plan.Int64:
		v = plan.Int64Value(constInts[g.r.Intn(len(constInts))])
	case plan.Int32:
		v = plan.Int32Value(int32(constInts[g.r.Intn(len(constInts))]))
	case plan.Float64:
		v = plan.Float64Value(constFloats[g.r.Intn(len(constFloats))])
	case plan.String:
		v = plan.StringValue(constStrings[g.r.Intn(len(constStrings))])
	default:
		v = plan.BoolValue(g.r.Intn(2) == 0)
	}
	return &plan.Literal{Value: v}
}

func (g constGen) expr(t plan.Type, depth int) plan.Expr {
	if depth <= 0 || g.r.Intn(5) == 0 {
		return g.lit(t)
	}
	sub := func(t plan.Type) plan.Expr { return g.expr(t, depth-1) }
	call := func(fn plan.Func, args ...plan.Expr) plan.Expr { return &plan.Call{Fn: fn, Args: args} }
	switch g.r.Intn(4) {
	case 0:
		return &plan.Cast{Expr: sub(constTypes[g.r.Intn(len(constTypes))]), To: t, Strict: g.r.Intn(2) == 0}
	case 1:
		return call(plan.FuncIf, sub(plan.Bool), sub(t), sub(t))
	case 2:
		return call(plan.FuncCoalesce, sub(t), sub(t))
	}
	switch t {
	case plan.Int64, plan.Int32, plan.Float64:
		fns := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}
		if g.r.Intn(4) == 0 {
			return call([]plan.Func{plan.FuncNeg, plan.FuncAbs}[g.r.Intn(2)], sub(t))
		}
		return call(fns[g.r.Intn(len(fns))], sub(t), sub(t))
	case plan.String:
		return call(plan.FuncConcat, sub(t), sub(t))
	}
	switch g.r.Intn(4) {
	case 0:
		u := constTypes[g.r.Intn(len(constTypes))]
		cmps := []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}
		return call(cmps[g.r.Intn(len(cmps))], sub(u), sub(u))
	case 1:
		return call([]plan.Func{plan.FuncAnd, plan.FuncOr}[g.r.Intn(2)], sub(plan.Bool), sub(plan.Bool))
	case 2:
		return call(plan.FuncIsNaN, sub(plan.Float64))
	}
	return call(plan.FuncNot, sub(plan.Bool))
}

// sameOutcome compares a fold (v, err) with one row's evaluation (w, werr)
// by the oracle's rules: both fail with the same kind and expression, or
// both give bitwise identical values.
func sameOutcome(v plan.Value, err error, w plan.Value, werr error) string {
	switch {
	case (err == nil) != (werr == nil):
		return fmt.Sprintf("one raised: %v / %v", err, werr)
	case err != nil:
		a, aok := plan.AsError(err)
		b, bok := plan.AsError(werr)
		if !aok || !bok || a.Kind != b.Kind || a.Expr != b.Expr {
			return fmt.Sprintf("different errors: %v / %v", err, werr)
		}
	case !v.Identical(w):
		return fmt.Sprintf("%s (bits %x) / %s (bits %x)", v, math.Float64bits(v.Float()), w, math.Float64bits(w.Float()))
	}
	return ""
}

// A constant folds to exactly what evaluating it gives on every row: the
// executor's kernel (exec.ConstEvaluator, the fold) against the reference
// interpreter over three rows, bitwise, errors by kind and text; and a
// plan projecting it, optimized with simplify, agrees four ways (Check).
func TestConstEvaluatorIsRowEvaluation(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20261201)
	params.MinSuccessfulTests = 400
	props := gopter.NewProperties(params)
	table, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}),
		[][]plan.Value{{plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3)}})
	if err != nil {
		t.Fatal(err)
	}
	folded, raised := 0, 0
	props.Property("fold = row evaluation", prop.ForAll(func(seed int64) string {
		g := constGen{r: rand.New(rand.NewSource(seed))}
		ty := constTypes[g.r.Intn(len(constTypes))]
		e := g.expr(ty, 1+g.r.Intn(4))
		if _, err := plan.TypeOf(e, plan.Schema{}); err != nil {
			return "" // ill-typed (a comparison of bools with a cast, say): nothing to fold
		}
		v, ferr := exec.ConstEvaluator{}.EvalConst(e)
		vals, rerr := reference.EvalExpr(plan.WithCallCounter(context.Background()), e, &reference.Result{Rows: 3}, 0)
		for i := 0; i < 3; i++ {
			var w plan.Value
			if rerr == nil {
				w = vals[i]
			}
			if d := sameOutcome(v, ferr, w, rerr); d != "" {
				return fmt.Sprintf("seed %d: `%s` row %d: fold / reference: %s", seed, e, i, d)
			}
		}
		if ferr != nil {
			raised++
		}
		p := plan.Scan(table).Select(plan.Col("a"), plan.Wrap(e).Alias("x")).Node()
		rep := Check(context.Background(), Case{Name: fmt.Sprint(seed), Plan: p})
		if !rep.Agree() {
			return fmt.Sprintf("seed %d: `%s`: %v %v", seed, e, rep.Divergences, rep.Unmet)
		}
		folded += rep.Counters.Get("foldedExprs")
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
	if folded == 0 || raised == 0 {
		t.Errorf("the property folded %d constants and saw %d raise: it tests nothing", folded, raised)
	}
	t.Logf("%d folds, %d constants that raise", folded, raised)
}

// Without an injected evaluator the optimizer folds nothing, and the
// oracle injects one into flags that lack it.
func TestOracleInjectsTheEvaluator(t *testing.T) {
	if DefaultFlags().Evaluator == nil {
		t.Error("DefaultFlags has no constant evaluator")
	}
	f := rules.DefaultFlags()
	if WithEvaluator(f).Evaluator == nil {
		t.Error("WithEvaluator left the evaluator out")
	}
	p := plan.Scan(mustTable(t)).Select(plan.Wrap(&plan.Call{Fn: plan.FuncAdd, Args: []plan.Expr{
		&plan.Literal{Value: plan.Int64Value(1)}, &plan.Literal{Value: plan.Int64Value(2)}}}).Alias("x")).Node()
	res, err := rules.Optimize(p, f)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Counters.Get("foldedExprs"); n != 0 {
		t.Errorf("without an evaluator %d constants folded", n)
	}
	rep := Check(context.Background(), Case{Plan: p, Flags: &f})
	if n := rep.Counters.Get("foldedExprs"); n != 1 || !rep.Agree() {
		t.Errorf("Check folded %d constants (want 1, the evaluator injected); agree=%v", n, rep.Agree())
	}
}

func mustTable(t *testing.T) *plan.Table {
	t.Helper()
	table, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}), [][]plan.Value{{plan.Int64Value(1)}})
	if err != nil {
		t.Fatal(err)
	}
	return table
}
