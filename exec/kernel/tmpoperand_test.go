package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/internal/par"
	"github.com/dfopt/dfopt/plan"
)

// The kernels may write their result into the values buffer of an operand
// that is a temporary (a computed operand such as `b + 0`, `-b` or a cast,
// or an int32 column promoted to int64). A kernel that reads that operand
// again after writing rows, to name the error, reads results instead of
// operands. These tests put rows whose result looks like a failing operand
// (a zero quotient, which is a "zero divisor" once written over the divisor)
// before the rows that fail.

// genOperand draws an operand of add, sub, mul, div or mod of type t for
// the property test: an integer operand is a third of the time a computed
// one (genComputed), a temporary the kernel may overwrite; with the
// promotions promoPair draws (an int32 column beside an int64) and planted
// data (plantedValue) this is the class of operands and rows that hid a
// defect: a quotient of 0 written over a temporary divisor was read back as
// a zero divisor.
func genOperand(r *rand.Rand, t plan.Type, d int) plan.Expr {
	if (t != plan.Int32 && t != plan.Int64) || r.Intn(3) > 0 {
		return genExpr(r, t, d)
	}
	return genComputed(r, t, d)
}

// genComputed draws a computed integer operand of type t with the values
// of a column or a smaller expression, or their negation: c + 0, c - 0,
// c * 1, c * -1, -c, or a cast from the other integer type (strict to
// int64, which cannot fail; non-strict to int32).
func genComputed(r *rand.Rand, t plan.Type, d int) plan.Expr {
	other := plan.Int32
	if t == plan.Int32 {
		other = plan.Int64
	}
	inner := func(t plan.Type) plan.Expr {
		if d <= 0 || r.Intn(2) == 0 {
			names := colsOf[t]
			return &plan.Column{Name: names[r.Intn(len(names))]}
		}
		return genExpr(r, t, d-1)
	}
	num := func(v int64) plan.Expr {
		if t == plan.Int32 {
			return &plan.Literal{Value: plan.Int32Value(int32(v))}
		}
		return &plan.Literal{Value: plan.Int64Value(v)}
	}
	switch r.Intn(6) {
	case 0:
		return call(plan.FuncAdd, inner(t), num(0))
	case 1:
		return call(plan.FuncSub, inner(t), num(0))
	case 2:
		return call(plan.FuncMul, inner(t), num(1))
	case 3:
		return call(plan.FuncMul, inner(t), num(-1))
	case 4:
		return call(plan.FuncNeg, inner(t))
	default:
		return &plan.Cast{Expr: inner(other), To: t, Strict: t == plan.Int64}
	}
}

// plantedValue draws row i (of rows) of an integer column of type t for a
// data set that plants integer division's failures: the first half of the
// rows are small non-zero values (so quotients and remainders of 0 by
// non-zero divisors), the second half mostly MinInt and ±1, now and then 0
// (MinInt / -1, MinInt / -(1), division by zero), so results that look like
// a failing operand are written before the failing rows.
func plantedValue(r *rand.Rand, t plan.Type, nullPct, i, rows int) plan.Value {
	if r.Intn(100) < nullPct/2 {
		return plan.NullValue(t)
	}
	if t != plan.Int32 && t != plan.Int64 {
		lo, hi, _ := plan.IntRange(t)
		if 2*i < rows {
			return genValue(r, t, 0)
		}
		if t.IsUnsigned() {
			v, _ := plan.UintValue(t, []uint64{hi, hi, 1, 1, 0, 2}[r.Intn(6)])
			return v
		}
		v, _ := plan.IntValue(t, []int64{lo, lo, lo, -1, -1, 1, 0, 7}[r.Intn(8)])
		return v
	}
	var v int64
	if 2*i < rows {
		// Non-zero (a zero divisor here would end the kernel's run before
		// any overflow) and often smaller than the divisor: 1 / 5, 3 / 7
		// and 5 % 5 are 0.
		v = []int64{1, -1, 2, 3, 5, -5, 7, 100}[r.Intn(8)]
	} else {
		minv := int64(math.MinInt64)
		if t == plan.Int32 {
			minv = math.MinInt32
		}
		// Mostly MinInt and ±1, so that an overflow is often the first
		// failure (a zero divisor wins, and then ends the search early).
		v = []int64{minv, minv, minv, minv, minv, minv, -1, -1, -1, -1, 1, 1, 1, 0, 7, 7}[r.Intn(16)]
	}
	if t == plan.Int32 {
		return plan.Int32Value(int32(v))
	}
	return plan.Int64Value(v)
}

// padRows repeats the first row of every column k times in front, so a
// failure sits past the first partitions of a parallel evaluator (partitions
// of 8 rows with MinRows 1).
func padRows(cols []column, k int) []column {
	out := make([]column, len(cols))
	for i, c := range cols {
		vals := make([]plan.Value, 0, k+len(c.vals))
		for j := 0; j < k; j++ {
			vals = append(vals, c.vals[0])
		}
		out[i] = colOf(c.name, c.typ, append(vals, c.vals...)...)
	}
	return out
}

func TestDivModTemporaryDivisor(t *testing.T) {
	minI64, minI32 := int64(math.MinInt64), int32(math.MinInt32)
	// Columns: a, b int64; x, y int32. Row 0 divides 0 by a non-zero
	// divisor (quotient and remainder 0); row 1 is MinInt / -1 after the
	// divisor's computation; row 2 (where present) divides by zero.
	ovf := []column{
		colOf("a", plan.Int64, i64(0), i64(minI64), i64(3)),
		colOf("b", plan.Int64, i64(5), i64(-1), i64(7)),
		colOf("x", plan.Int32, i32(0), i32(minI32), i32(3)),
		colOf("y", plan.Int32, i32(5), i32(-1), i32(7)),
	}
	ovfNeg := []column{ // the divisor is -b: b holds its negation
		colOf("a", plan.Int64, i64(0), i64(minI64), i64(3)),
		colOf("b", plan.Int64, i64(-5), i64(1), i64(-7)),
		colOf("x", plan.Int32, i32(0), i32(minI32), i32(3)),
		colOf("y", plan.Int32, i32(-5), i32(1), i32(-7)),
	}
	zero := []column{
		colOf("a", plan.Int64, i64(0), i64(minI64), i64(7), i64(9)),
		colOf("b", plan.Int64, i64(5), i64(-1), i64(0), i64(0)),
		colOf("x", plan.Int32, i32(0), i32(minI32), i32(7), i32(9)),
		colOf("y", plan.Int32, i32(5), i32(-1), i32(0), i32(0)),
	}
	zeroNeg := []column{
		colOf("a", plan.Int64, i64(0), i64(minI64), i64(7), i64(9)),
		colOf("b", plan.Int64, i64(-5), i64(1), i64(0), i64(0)),
		colOf("x", plan.Int32, i32(0), i32(minI32), i32(7), i32(9)),
		colOf("y", plan.Int32, i32(-5), i32(1), i32(0), i32(0)),
	}
	type tcase struct {
		name string
		cols []column
		expr plan.E
		kind plan.ErrorKind
		row  int64
	}
	var cases []tcase
	for _, op := range []struct {
		name string
		fn   func(l, r plan.E) plan.E
	}{{"div", plan.E.Div}, {"mod", plan.E.Mod}} {
		divisors := []struct {
			name     string
			neg      bool
			dividend plan.E
			divisor  plan.E
		}{
			{"b + 0", false, col("a"), col("b").Add(lit(0))},
			{"b - 0", false, col("a"), col("b").Sub(lit(0))},
			{"b * 1", false, col("a"), col("b").Mul(lit(1))},
			{"-b", true, col("a"), col("b").Neg()},
			{"abs(b) * -1", false, col("a"), col("b").Abs().Mul(lit(-1))},
			{"promoted y", false, col("a"), col("y")},
			{"cast(y)", false, col("a"), col("y").Cast(plan.Int64)},
			{"-(y) promoted", true, col("a"), col("y").Neg()},
			{"int32 y + 0", false, col("x"), col("y").Add(lit(int32(0)))},
			{"int32 -y", true, col("x"), col("y").Neg()},
			{"both temporary", false, col("a").Add(lit(0)), col("b").Add(lit(0))},
			{"a temporary dividend", false, col("a").Mul(lit(1)), col("b")},
		}
		for _, d := range divisors {
			o, z := ovf, zero
			if d.neg {
				o, z = ovfNeg, zeroNeg
			}
			e := op.fn(d.dividend, d.divisor)
			cases = append(cases,
				tcase{op.name + " by " + d.name + ": overflow", o, e, plan.Overflow, 1},
				tcase{op.name + " by " + d.name + ": zero wins", z, e, plan.DivideByZero, 2},
				tcase{op.name + " by " + d.name + ": overflow, padded", padRows(o, 20), e, plan.Overflow, 21},
				tcase{op.name + " by " + d.name + ": zero wins, padded", padRows(z, 20), e, plan.DivideByZero, 22},
			)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []par.Parallel{{}, {Workers: 3, MinRows: 1}} {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				rec := mkBatch(t, mem, tc.cols...)
				ev := &Evaluator{Mem: mem, Par: p}
				out, err := ev.Eval(context.Background(), tc.expr.Expr(), rec, 0)
				if out != nil {
					out.Release()
				}
				rec.Release()
				pe, ok := plan.AsError(err)
				want := fmt.Sprintf("%s in `%s` at row %d", tc.kind, tc.expr.Expr(), tc.row)
				if !ok || pe.Kind != tc.kind || pe.Expr != tc.expr.Expr().String() || pe.Row != tc.row {
					got := fmt.Sprint(err)
					if ok {
						got = fmt.Sprintf("%s in `%s` at row %d (%v)", pe.Kind, pe.Expr, pe.Row, pe)
					}
					t.Errorf("parallel %+v: got %s, want %s", p, got, want)
				}
				if mem.CurrentAlloc() != 0 {
					t.Errorf("parallel %+v: leaked %d bytes", p, mem.CurrentAlloc())
				}
			}
		})
	}
}

// TestPropertyTemporaryOperands holds shallow integer arithmetic to the
// row-wise reference (the law of TestPropertyVectorisedEqualsRowwise,
// sequential and split over partitions, whole batch and a slice of it):
// one add, sub, mul, div, mod, neg or abs whose operands are mostly
// computed temporaries (genComputed), with int32 operands promoted beside
// int64 ones, over data that always plants division's failures behind
// zero results (plantedValue). The broad property draws these too, but
// inside deeper expressions whose other operations often fail first.
func TestPropertyTemporaryOperands(t *testing.T) {
	seed := propSeed(t)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 2000
	if testing.Short() {
		params.MinSuccessfulTests = 200
	}
	params.Workers = 1
	props := gopter.NewProperties(params)
	props.Property("Eval == row-wise reference, temporary operands", prop.ForAll(func(c propCase) string {
		return checkCase(t, c)
	}, genTmpCase()))
	if !props.Run(gopter.NewFormatedReporter(true, 100, os.Stdout)) {
		t.Errorf("property failed; replay with DFOPT_SEED=%d", seed)
	}
}

// genTmpCase draws TestPropertyTemporaryOperands's cases.
func genTmpCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		t := []plan.Type{plan.Int32, plan.Int64}[r.Intn(2)]
		c := propCase{
			Expr:   genTmpExpr(r, t, r.Intn(3)),
			Rows:   []int{2, 3, 7, 9, 17, 40}[r.Intn(6)],
			Seed:   r.Int63(),
			Offset: int64(r.Intn(3)) * 1000,
			Plant:  true,
		}
		return gopter.NewGenResult(c, shrinkCase)
	}
}

// genTmpExpr draws one integer operation of type t over operands three
// times in four computed (genComputed, of depth d), else any expression.
func genTmpExpr(r *rand.Rand, t plan.Type, d int) plan.Expr {
	operand := func(u plan.Type) plan.Expr {
		if r.Intn(4) == 0 {
			return genExpr(r, u, d)
		}
		return genComputed(r, u, d)
	}
	fn := []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod, plan.FuncDiv, plan.FuncMod,
		plan.FuncNeg, plan.FuncAbs}[r.Intn(9)]
	if fn == plan.FuncNeg || fn == plan.FuncAbs {
		return call(fn, operand(t))
	}
	u, v := t, t
	if t == plan.Int64 {
		switch r.Intn(4) {
		case 0:
			u = plan.Int32
		case 1:
			v = plan.Int32
		}
	}
	return call(fn, operand(u), operand(v))
}
