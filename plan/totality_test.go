package plan

import "testing"

func TestTotality(t *testing.T) {
	in := MustSchema(Field{Name: "i", Type: Int64, Nullable: true}, Field{Name: "j", Type: Int32}, Field{Name: "f", Type: Float64},
		Field{Name: "s", Type: String}, Field{Name: "p", Type: Bool})
	inc, _ := BuiltinUDFs().Lookup("inc_wrap")
	dbl, _ := BuiltinUDFs().Lookup("checked_double")
	i, j, f, s, p := Col("i"), Col("j"), Col("f"), Col("s"), Col("p")
	for _, tc := range []struct {
		e                  E
		language, declared bool
	}{
		{i, true, true},
		{i.Add(i), false, false},                 // checked int64
		{j.Add(j), false, false},                 // checked int32
		{f.Add(i), true, true},                   // promotes to float64
		{f.Div(Lit(0.0)), true, true},            // IEEE
		{i.Div(f), true, true},                   // float division
		{i.Neg(), false, false},                  // MinInt64
		{f.Abs(), true, true},                    // float
		{i.Gt(Lit(1)).And(p.Not()), true, true},  // comparisons and logic
		{i.Add(i).Gt(Lit(1)), false, false},      // a partial operand
		{s.StrLen().Gt(Lit(3)), true, true},      // str_len
		{Concat(s, s), true, true},               // concat
		{Coalesce(i, Lit(0)), true, true},        // coalesce
		{If(p, i, i.Mul(Lit(2))), false, false},  // a partial branch
		{If(p, i, f), true, true},                // total branches
		{i.Cast(Int32), false, false},            // strict narrowing
		{i.TryCast(Int32), true, true},           // non-strict
		{i.Cast(String), true, true},             // to string
		{s.Cast(Int64), false, false},            // parsing
		{j.Cast(Int64), true, true},              // widening
		{CallUDF(inc, i), false, true},           // declared total
		{CallUDF(dbl, i), false, false},          // declared partial
		{CallUDF(inc, i.Add(i)), false, false},   // a partial argument
		{Col("nope"), false, false},              // does not type
		{Lit(uint(3)), false, false},             // no dfopt type
		{i.Sum().Over(p), false, false},          // an integer sum can overflow
		{f.Sum().Over(p), true, true},            // a float sum cannot
		{i.Count().Over(i.Add(i)), false, false}, // a partial key
	} {
		if got := Total(tc.e.Expr(), in, TrustLanguage); got != tc.language {
			t.Errorf("Total(%s, TrustLanguage) = %v, want %v", tc.e.Expr(), got, tc.language)
		}
		if got := Total(tc.e.Expr(), in, TrustDeclared); got != tc.declared {
			t.Errorf("Total(%s, TrustDeclared) = %v, want %v", tc.e.Expr(), got, tc.declared)
		}
	}
}
