package plan

// Totality: which expressions cannot raise.
//
// An expression is total over an input schema when it raises no value
// error on any rows of that schema (docs/semantics.md, Expressions, decides
// each function's errors). Totality is a lattice over the expression tree:
// a function that cannot raise for its operand types is total exactly when
// its operands are. This file is the one statement of it: the kernel uses
// it to evaluate an if() branch over all rows when that cannot change an
// outcome, and the optimizer's legality (the standard tier) to decide what
// may meet other rows. Resource errors (a memory limit, a string column
// beyond what Arrow can hold) depend on the environment, not on the values,
// and are outside this contract.

// Trust says which UDF declarations totality believes.
type Trust uint8

const (
	// TrustLanguage counts only what the language guarantees: a UDF call
	// is never total (its function may raise whatever it declares). The
	// kernel uses it: evaluating a call on rows it would not have met must
	// not be able to raise.
	TrustLanguage Trust = iota
	// TrustDeclared also believes UDFs declared Total (docs/adr/0001) and
	// range proofs (WithProof: a call or strict cast the range_proofs rule
	// proved unable to fail from the facts its scans assume, which every
	// executor checks): the optimizer uses it, and a host that declares a
	// raising function total gets the outcome it declared.
	TrustDeclared
)

// FuncCanRaise reports whether the built-in function f can raise a value
// error with operands of the given types (its own failure, not its
// operands'): checked integer arithmetic (add, sub, mul, div, mod, neg,
// abs, whose result type is an integer) overflows or divides by zero,
// temporal add and sub (a date, datetime or duration result) leave their
// type's range, and an integer sum or list.sum overflows; float arithmetic, comparisons, logic, is_null,
// is_not_null, is_nan, str_len, concat, if, coalesce, the string, set and
// range functions (lower ... between), the list and struct functions
// but an integer list.sum, and the other aggregates cannot.
func FuncCanRaise(f Func, operands []Type) bool {
	switch f {
	case FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod:
		if len(operands) != 2 {
			return true
		}
		t, ok := ArithType(f, operands[0], operands[1])
		return !ok || t.IsInteger() || t.IsTemporal()
	case FuncNeg, FuncSum:
		return len(operands) != 1 || operands[0].IsInteger()
	case FuncAbs:
		return len(operands) != 1 || operands[0].IsSigned()
	case FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe, FuncAnd, FuncOr, FuncNot,
		FuncIsNull, FuncIsNotNull, FuncIsNaN, FuncStrLen, FuncConcat, FuncIf, FuncCoalesce,
		FuncMean, FuncMin, FuncMax, FuncCount, FuncLen, FuncFirst, FuncLast, FuncNUnique,
		FuncMedian, FuncQuantile, FuncVar, FuncStd, FuncAny, FuncAll,
		FuncLower, FuncUpper, FuncStartsWith, FuncEndsWith, FuncContains, FuncLike, FuncSubstring,
		FuncReplace, FuncReplaceAll, FuncStrip, FuncStrLenBytes, FuncIsIn, FuncBetween,
		FuncListLen, FuncListGet, FuncListContains, FuncListMin, FuncListMax, FuncStructField:
		return false
	case FuncListSum:
		return len(operands) != 1 || operands[0].Elem().IsInteger() || !operands[0].IsList()
	case FuncYear, FuncMonth, FuncDay, FuncWeekday, FuncHour, FuncMinute, FuncSecond:
		return false // every date and datetime has its fields
	case FuncCumSum:
		return len(operands) != 1 || operands[0].IsInteger()
	case FuncTruncate, FuncOffsetBy:
		return true // temporal_out_of_range at the ends of the ranges
	case FuncCumCount, FuncCumMin, FuncCumMax, FuncRowNumber, FuncRank, FuncShift, FuncArgMin, FuncArgMax:
		return false
	}
	return true // an unknown function: assume the worst
}

// Total reports whether e raises no value error on any rows of schema in:
// columns and literals are total; an alias is as total as what it names;
// a cast is total when its operand is and it is non-strict or cannot fail
// (CastCanFail); a built-in call when its operands are and FuncCanRaise
// says it cannot raise for their types; an over() when its aggregate and
// partition keys are; a UDF call, under TrustDeclared only, when the UDF is
// declared Total and its arguments are total. An expression that does not
// type over in is not total.
func Total(e Expr, in Schema, trust Trust) bool {
	_, total := totalType(e, in, trust)
	return total
}

// TypeAndTotality returns e's result type over in (Invalid when it does not
// type) together with Total(e, in, trust), in one walk: the kernel asks both
// of every if() branch it evaluates.
func TypeAndTotality(e Expr, in Schema, trust Trust) (Type, bool) { return totalType(e, in, trust) }

// totalType returns e's type over in and whether e is total.
func totalType(e Expr, in Schema, trust Trust) (Type, bool) {
	switch e := e.(type) {
	case *Column:
		f, ok := in.Lookup(e.Name)
		return f.Type, ok
	case *Literal:
		t := e.Value.Type()
		return t, t != Invalid && e.bad == ""
	case *Alias:
		return totalType(e.Expr, in, trust)
	case *Cast:
		t, total := totalType(e.Expr, in, trust)
		return e.To, total && !(e.Strict && CastCanFail(t, e.To) && !(trust == TrustDeclared && e.proof != nil))
	case *UDFCall:
		if e.UDF == nil {
			return Invalid, false
		}
		total := trust == TrustDeclared && e.UDF.Total
		for _, a := range e.Args {
			_, t := totalType(a, in, trust)
			total = total && t
		}
		return e.UDF.Result, total
	case *Over:
		t, total := totalType(e.Agg, in, trust)
		for _, k := range e.PartitionBy {
			_, kt := totalType(k, in, trust)
			total = total && kt
		}
		for _, k := range e.OrderBy {
			_, kt := totalType(k.Expr, in, trust)
			total = total && kt
		}
		return t, total
	case *Call:
		types := make([]Type, len(e.Args))
		total := true
		for i, a := range e.Args {
			t, at := totalType(a, in, trust)
			types[i], total = t, total && at
		}
		t, ok := callResultType(e.Fn, types)
		if e.Fn == FuncStructField && len(types) > 0 {
			var err error
			t, err = StructFieldType(e, types[0])
			ok = err == nil
		}
		return t, ok && total && (!FuncCanRaise(e.Fn, types) || trust == TrustDeclared && e.proof != nil)
	}
	return Invalid, false
}

// callResultType is the type a call of f returns for operands of the given
// types (as typeOfCall decides it, without the checks), or false when they
// do not type.
func callResultType(f Func, types []Type) (Type, bool) {
	lo, hi := f.Arity()
	if len(types) < lo || (hi >= 0 && len(types) > hi) {
		return Invalid, false
	}
	switch f {
	case FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod:
		return ArithType(f, types[0], types[1])
	case FuncNeg, FuncAbs, FuncMin, FuncMax, FuncFirst, FuncLast:
		return types[0], true
	case FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe, FuncAnd, FuncOr, FuncNot, FuncIsNull, FuncIsNotNull, FuncIsNaN,
		FuncStartsWith, FuncEndsWith, FuncContains, FuncLike, FuncIsIn, FuncBetween:
		return Bool, true
	case FuncStrLen, FuncStrLenBytes, FuncCount, FuncLen, FuncCumCount, FuncRowNumber, FuncRank, FuncArgMin, FuncArgMax:
		return Int64, true
	case FuncCumMin, FuncCumMax, FuncShift, FuncTruncate, FuncOffsetBy:
		return types[0], true
	case FuncCumSum:
		if !types[0].IsNumeric() {
			return Invalid, false
		}
		return SumType(types[0]), true
	case FuncYear, FuncMonth, FuncDay, FuncWeekday, FuncHour, FuncMinute, FuncSecond:
		return Int32, true
	case FuncConcat, FuncLower, FuncUpper, FuncSubstring, FuncReplace, FuncReplaceAll, FuncStrip:
		return String, true
	case FuncIf:
		return commonType(types[1], types[2])
	case FuncCoalesce:
		t := types[0]
		for _, u := range types[1:] {
			var ok bool
			if t, ok = commonType(t, u); !ok {
				return Invalid, false
			}
		}
		return t, true
	case FuncSum:
		return SumType(types[0]), true
	case FuncMean, FuncMedian, FuncQuantile, FuncVar, FuncStd:
		return Float64, true
	case FuncAny, FuncAll, FuncListContains:
		return Bool, true
	case FuncListLen:
		return Int64, true
	case FuncListGet, FuncListMin, FuncListMax:
		return types[0].Elem(), types[0].IsList()
	case FuncListSum:
		if el := types[0].Elem(); el.IsNumeric() {
			return SumType(el), true
		}
		return Invalid, false
	}
	return Invalid, false
}
