package kernel

import (
	"github.com/dfopt/dfopt/plan"
)

// CannotRaise reports whether evaluating e over ANY rows of a batch whose
// columns have the types of s can never return an error (cancellation
// aside). It is conservative and stricter than the evaluator's own notion
// of a total branch: it also rules out every expression whose failure
// depends on how many rows are evaluated (a string result, which may
// outgrow Arrow's 2 GiB utf8 limit). What it accepts: columns, literals and
// aliases; comparisons, and, or, not, is_null, is_not_null, is_nan,
// str_len, str_len_bytes, the bool string tests, is_in and between (not
// the string-valued functions, whose result may outgrow Arrow); float64
// arithmetic (IEEE: no error); if and coalesce with a non-string result;
// casts to a non-string type that cannot fail (or are not strict) — each
// over operands that cannot raise. Any UDF call is refused, even one
// declared total: its result type is checked per row.
//
// A driver uses it to evaluate a predicate on rows it does not need (the
// base of an index vector, say): that is only invisible when no such row
// can raise.
func CannotRaise(e plan.Expr, s plan.Schema) bool {
	x := &evalCtx{schema: s}
	return x.cannotRaise(e)
}

func (x *evalCtx) cannotRaise(e plan.Expr) bool {
	switch e := e.(type) {
	case *plan.Column:
		_, ok := x.schema.Lookup(e.Name)
		return ok
	case *plan.Literal:
		return true
	case *plan.Alias:
		return x.cannotRaise(e.Expr)
	case *plan.Cast:
		t, _ := x.analyze(e.Expr)
		if t == plan.Invalid || e.To == plan.String || (e.Strict && plan.CastCanFail(t, e.To)) {
			return false
		}
		return x.cannotRaise(e.Expr)
	case *plan.Call:
		for _, a := range e.Args {
			if !x.cannotRaise(a) {
				return false
			}
		}
		switch e.Fn {
		case plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe,
			plan.FuncAnd, plan.FuncOr, plan.FuncNot, plan.FuncIsNull, plan.FuncIsNotNull, plan.FuncIsNaN,
			plan.FuncStrLen, plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday, plan.FuncHour,
			plan.FuncMinute, plan.FuncSecond, plan.FuncStrLenBytes, plan.FuncStartsWith, plan.FuncEndsWith,
			plan.FuncContains, plan.FuncLike, plan.FuncIsIn, plan.FuncBetween:
			return true
		case plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod, plan.FuncNeg, plan.FuncAbs:
			t, _ := x.analyze(e)
			return t == plan.Float64 || t == plan.Float32
		case plan.FuncIf, plan.FuncCoalesce:
			t, _ := x.analyze(e)
			return t != plan.Invalid && t != plan.String
		}
	}
	return false
}
