package kernel

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestCannotRaise pins the conservative totality CannotRaise answers: each
// accepted expression is one no row can make fail, each refused one has a
// row (or a size) that can.
func TestCannotRaise(t *testing.T) {
	s := plan.MustSchema(plan.Field{Name: "i", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "f", Type: plan.Float64, Nullable: true}, plan.Field{Name: "s", Type: plan.String, Nullable: true})
	i, f, str := plan.Col("i"), plan.Col("f"), plan.Col("s")
	inc, _ := plan.BuiltinUDFs().Lookup("inc_wrap")
	for _, c := range []struct {
		e    plan.E
		want bool
	}{
		{i, true},
		{plan.Col("missing"), false},
		{i.Gt(plan.Lit(3)).And(str.Eq(plan.Lit("x")).Not()), true},
		{i.IsNull().Or(f.IsNaN()), true},
		{str.StrLen().Lt(plan.Lit(3)), true},
		{f.Div(plan.Lit(0.0)).Gt(plan.Lit(1.0)), true},
		{i.Add(f).Gt(plan.Lit(1.0)), true},          // promoted to float64
		{i.Add(plan.Lit(1)).Gt(plan.Lit(1)), false}, // int64 overflow
		{i.Div(plan.Lit(2)).Gt(plan.Lit(1)), false},
		{f.Neg().Gt(plan.Lit(0.0)), true},
		{i.Abs().Gt(plan.Lit(0)), false},
		{f.Cast(plan.Int64).Gt(plan.Lit(0)), false}, // strict: NaN fails
		{i.Cast(plan.Float64).Gt(plan.Lit(0.0)), true},
		{str.TryCast(plan.Int64).Gt(plan.Lit(0)), true}, // non-strict
		{i.Cast(plan.String).Eq(plan.Lit("1")), false},  // a string result
		{plan.If(i.Gt(plan.Lit(0)), f, plan.Lit(0.0)).Gt(plan.Lit(0.0)), true},
		{plan.If(i.Gt(plan.Lit(0)), str, plan.Lit("")).Eq(plan.Lit("")), false},
		{plan.Coalesce(i, plan.Lit(0)).Gt(plan.Lit(0)), true},
		{plan.Concat(str, str).Eq(plan.Lit("")), false},
		{plan.CallUDF(inc, i).Gt(plan.Lit(0)), false},
	} {
		if got := CannotRaise(c.e.Expr(), s); got != c.want {
			t.Errorf("CannotRaise(%s) = %v, want %v", c.e.Expr(), got, c.want)
		}
	}
}
