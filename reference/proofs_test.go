package reference_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// proofCase is a random table (a: int64, c: int32, d: int64, f: float64,
// values small or extreme) and a random expression of checked arithmetic
// and strict casts over it.
type proofCase struct {
	tbl  *plan.Table
	expr plan.Expr
}

func newProofCase(seed int64) proofCase {
	r := rand.New(rand.NewSource(seed))
	rows := r.Intn(8)
	wide := r.Intn(3) == 0
	a, c, d, f := make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows)
	ext64 := []int64{math.MinInt64, math.MaxInt64, 1 << 62, -(1 << 32), 0, -1}
	for i := 0; i < rows; i++ {
		a[i] = plan.Int64Value(int64(r.Intn(2001) - 1000))
		c[i] = plan.Int32Value(int32(r.Intn(201) - 100))
		d[i] = plan.Int64Value(int64(r.Intn(19) - 9))
		f[i] = plan.Float64Value(float64(r.Intn(4001)-2000) / 8)
		if wide {
			a[i] = plan.Int64Value(ext64[r.Intn(len(ext64))])
			c[i] = plan.Int32Value([]int32{math.MinInt32, math.MaxInt32, 1 << 16, -7}[r.Intn(4)])
			f[i] = plan.Float64Value([]float64{math.NaN(), 9.3e18, -2.2e9, math.Copysign(0, -1), 1e300}[r.Intn(5)])
		}
		if r.Intn(5) == 0 {
			a[i] = plan.NullValue(plan.Int64)
		}
		if r.Intn(5) == 0 {
			f[i] = plan.NullValue(plan.Float64)
		}
	}
	tbl, _ := plan.NewTable("t", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true}, plan.Field{Name: "c", Type: plan.Int32},
		plan.Field{Name: "d", Type: plan.Int64}, plan.Field{Name: "f", Type: plan.Float64, Nullable: true}),
		[][]plan.Value{a, c, d, f})
	return proofCase{tbl: tbl, expr: randIntExpr(r, 3)}
}

// randIntExpr is an int64 expression of depth at most depth.
func randIntExpr(r *rand.Rand, depth int) plan.Expr {
	lit := func() plan.Expr {
		return &plan.Literal{Value: plan.Int64Value([]int64{0, 1, -1, 2, 7, -1000, 1 << 20, 1 << 40, math.MinInt64}[r.Intn(9)])}
	}
	if depth == 0 || r.Intn(4) == 0 {
		switch r.Intn(6) {
		case 0, 1:
			return &plan.Column{Name: "a"}
		case 2:
			return &plan.Column{Name: "d"}
		case 3:
			return &plan.Cast{Expr: &plan.Column{Name: "c"}, To: plan.Int64, Strict: true}
		case 4:
			return &plan.Cast{Expr: &plan.Column{Name: "f"}, To: plan.Int64, Strict: r.Intn(4) != 0}
		default:
			return lit()
		}
	}
	bin := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod}
	switch x := r.Intn(10); {
	case x < 6:
		return &plan.Call{Fn: bin[r.Intn(len(bin))], Args: []plan.Expr{randIntExpr(r, depth-1), randIntExpr(r, depth-1)}}
	case x < 7:
		return &plan.Call{Fn: plan.FuncNeg, Args: []plan.Expr{randIntExpr(r, depth-1)}}
	case x < 8:
		return &plan.Call{Fn: plan.FuncAbs, Args: []plan.Expr{randIntExpr(r, depth-1)}}
	case x < 9:
		// Narrow and widen back: a strict int64 -> int32 cast.
		return &plan.Cast{Expr: &plan.Cast{Expr: randIntExpr(r, depth-1), To: plan.Int32, Strict: true}, To: plan.Int64, Strict: true}
	default:
		return &plan.Call{Fn: plan.FuncIf, Args: []plan.Expr{
			&plan.Call{Fn: plan.FuncGt, Args: []plan.Expr{&plan.Column{Name: "d"}, lit()}},
			randIntExpr(r, depth-1), randIntExpr(r, depth-1)}}
	}
}

// TestProofsAreSound is the law of range proofs (plan.Prove over the facts
// an in-memory table computes, through plan.FactsAnalysis): an expression
// proven total raises no error when the reference interpreter evaluates it
// over the table, and its values lie in the interval the proof computed.
// It also requires the proofs not to be vacuous: some cases over small
// values are proven, some over extreme values refused.
func TestProofsAreSound(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20261201)
	params.MinSuccessfulTests = 3000
	proven, refused := 0, 0
	props := gopter.NewProperties(params)
	props.Property("proven expressions cannot fail and stay in their interval", prop.ForAll(func(seed int64) (bool, error) {
		c := newProofCase(seed)
		scan, err := plan.Resolve(plan.Scan(c.tbl).Node())
		if err != nil {
			return false, err
		}
		pr := plan.NewFactsAnalysis().Prove(c.expr, scan)
		if !pr.Partial || !pr.Total {
			if pr.Partial {
				refused++
			}
			return true, nil
		}
		proven++
		in := &reference.Result{Schema: c.tbl.Schema(), Rows: c.tbl.Rows()}
		for i := 0; i < c.tbl.Schema().Len(); i++ {
			in.Columns = append(in.Columns, c.tbl.Column(i))
		}
		vals, err := reference.EvalExpr(context.Background(), pr.Expr, in, 0)
		if err != nil {
			var pe *plan.Error
			if !errors.As(err, &pe) {
				return false, err
			}
			t.Logf("seed %d: %s proven total but raises %v", seed, c.expr, pe)
			return false, nil
		}
		lo, hi, ok := pr.Value.IntBounds()
		for _, v := range vals {
			if v.IsNull() || !ok {
				continue
			}
			if x := big.NewInt(v.Int()); x.Cmp(lo) < 0 || x.Cmp(hi) > 0 {
				t.Logf("seed %d: %s = %d outside its proven interval %s", seed, c.expr, v.Int(), pr.Value)
				return false, nil
			}
		}
		return true, nil
	}, gen.Int64()))
	props.TestingRun(t)
	t.Logf("proven %d, refused %d", proven, refused)
	if proven < 100 || refused < 100 {
		t.Errorf("proofs are vacuous: %d proven, %d refused", proven, refused)
	}
}
