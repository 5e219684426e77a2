package plan

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// TypeOf resolves e against the input schema in a row context (filter,
// project, with_columns, sort keys, join keys): it returns the field e
// produces (its output name, type and nullability) or a type error naming e.
// Aggregates are rejected here; they belong in an aggregate node or over().
func TypeOf(e Expr, in Schema) (Field, error) {
	t, nullable, err := typeOf(e, in, rowContext)
	if err != nil {
		return Field{}, err
	}
	return Field{Name: OutputName(e), Type: t, Nullable: nullable}, nil
}

// AggTypeOf resolves one entry of an aggregate node's aggregate list: an
// aggregate call over row expressions, optionally aliased.
func AggTypeOf(e Expr, in Schema) (Field, error) {
	inner := Unalias(e)
	c, ok := inner.(*Call)
	if !ok || !c.Fn.IsAggregate() {
		return Field{}, errorf(InvalidPlan, e, "aggregate: each entry must be an aggregate call such as sum(a), got `%s`", e)
	}
	t, nullable, err := typeOf(e, in, aggContext)
	if err != nil {
		return Field{}, err
	}
	return Field{Name: OutputName(e), Type: t, Nullable: nullable}, nil
}

type exprContext uint8

const (
	rowContext    exprContext = iota
	aggContext                // the top of an aggregate entry: one aggregate allowed
	windowContext             // the aggregate directly inside over()
)

func typeOf(e Expr, in Schema, ctx exprContext) (Type, bool, error) {
	switch e := e.(type) {
	case nil:
		return Invalid, false, errorf(InvalidPlan, nil, "missing expression")
	case *Column:
		f, ok := in.Lookup(e.Name)
		if !ok {
			return Invalid, false, &Error{Kind: UnknownColumn, Expr: e.String(), Row: -1,
				Msg: fmt.Sprintf("column %q not found; the input has %v", e.Name, in.Names())}
		}
		return f.Type, f.Nullable, nil
	case *Literal:
		if strings.HasPrefix(e.bad, "date ") || strings.HasPrefix(e.bad, "datetime ") {
			kind, text, _ := strings.Cut(e.bad, " ")
			return Invalid, false, errorf(TypeError, e, "%s literal %s is not ISO 8601 %s text (docs/semantics.md, Temporal types)", kind, text, kind)
		}
		if e.bad != "" {
			return Invalid, false, errorf(TypeError, e, "plan.Lit: a Go value of type %s has no dfopt type; pass an int, int32, int64, float64, string, bool or plan.Value (plan.Null(T) for a typed null)", strings.SplitN(e.bad, " ", 2)[0])
		}
		if t := e.Value.Type(); t.IsNested() {
			return Invalid, false, errorf(TypeError, e, "literal: a literal cannot be of the %s type %s; lists and structs come from tables and sources (docs/semantics.md, Lists and structs)", nestedKind(t), t)
		}
		if t := e.Value.Type(); t == Invalid || int(t) >= len(typeNames) {
			return Invalid, false, errorf(TypeError, e, "literal: missing type")
		}
		return e.Value.Type(), e.Value.IsNull(), nil
	case *Alias:
		if e.Name == "" {
			return Invalid, false, errorf(InvalidPlan, e, "alias: empty name")
		}
		return typeOf(e.Expr, in, ctx)
	case *Cast:
		t, n, err := typeOf(e.Expr, in, ctx)
		if err != nil {
			return Invalid, false, err
		}
		if e.To == Invalid || int(e.To) >= len(typeNames) {
			return Invalid, false, errorf(TypeError, e, "cast: invalid target type")
		}
		if !CanCast(t, e.To) {
			return Invalid, false, errorf(TypeError, e, "cast: no cast from %s to %s", t, e.To)
		}
		if !e.Strict && CastCanFail(t, e.To) {
			n = true
		}
		return e.To, n, nil
	case *Over:
		if ctx != rowContext {
			return Invalid, false, errorf(InvalidPlan, e, "over: a window cannot appear inside an aggregate or another window")
		}
		agg, ok := Unalias(e.Agg).(*Call)
		if !ok || !agg.Fn.IsAggregate() && !agg.Fn.IsWindow() {
			return Invalid, false, errorf(InvalidPlan, e, "over: the windowed expression must be an aggregate or window function call")
		}
		for _, k := range e.PartitionBy {
			if err := nestedOver(k); err != nil {
				return Invalid, false, err
			}
			kt, _, err := typeOf(k, in, rowContext)
			if err != nil {
				return Invalid, false, err
			}
			if kt.IsNested() {
				return Invalid, false, errorf(TypeError, k, "over: partition key `%s` is a %s (%s): a list or struct cannot be a join, group, distinct, window partition or sort key (docs/semantics.md, Lists and structs)", k, nestedKind(kt), kt)
			}
		}
		for _, k := range e.OrderBy {
			if err := nestedOver(k.Expr); err != nil {
				return Invalid, false, err
			}
			if _, _, err := typeOf(k.Expr, in, rowContext); err != nil {
				return Invalid, false, err
			}
		}
		if len(e.OrderBy) > 0 && !agg.Fn.IsWindow() {
			return Invalid, false, errorf(InvalidPlan, e, "over: order_by applies to window functions only (cum_sum, cum_count, cum_min, cum_max, row_number, rank, shift); %s reduces the whole partition", agg.Fn)
		}
		return typeOf(e.Agg, in, windowContext)
	case *UDFCall:
		if e.UDF == nil {
			return Invalid, false, errorf(InvalidPlan, e, "udf: missing definition")
		}
		if len(e.Args) != len(e.UDF.Params) {
			return Invalid, false, errorf(TypeError, e, "%s: expects %d arguments, got %d", e.UDF.Name, len(e.UDF.Params), len(e.Args))
		}
		for i, a := range e.Args {
			t, _, err := typeOf(a, in, rowContext)
			if err != nil {
				return Invalid, false, err
			}
			if t != e.UDF.Params[i] {
				return Invalid, false, errorf(TypeError, e, "%s: argument %d must be %s, got %s", e.UDF.Name, i+1, e.UDF.Params[i], t)
			}
		}
		return e.UDF.Result, true, nil
	case *Call:
		return typeOfCall(e, in, ctx)
	}
	return Invalid, false, errorf(InvalidPlan, e, "unknown expression %T", e)
}

func typeOfCall(e *Call, in Schema, ctx exprContext) (Type, bool, error) {
	if e.Fn <= FuncInvalid || e.Fn >= funcCount {
		return Invalid, false, errorf(InvalidPlan, e, "unknown function")
	}
	name := e.Fn.String()
	lo, hi := e.Fn.Arity()
	if len(e.Args) < lo || (hi >= 0 && len(e.Args) > hi) {
		want := fmt.Sprint(lo)
		if hi < 0 {
			want = fmt.Sprintf("at least %d", lo)
		} else if hi != lo {
			want = fmt.Sprintf("%d to %d", lo, hi)
		}
		return Invalid, false, errorf(TypeError, e, "%s: expects %s arguments, got %d", name, want, len(e.Args))
	}
	argCtx := rowContext
	if e.Fn.IsWindow() {
		if ctx != windowContext {
			return Invalid, false, errorf(InvalidPlan, e, "%s: a window function is allowed only directly under over()", name)
		}
	} else if e.Fn.IsAggregate() {
		if ctx == rowContext {
			return Invalid, false, errorf(InvalidPlan, e, "%s: an aggregate is allowed only in an aggregate node or inside over()", name)
		}
	} else if ctx != rowContext {
		// An aggregate entry must be the aggregate itself, not an expression over it.
		return Invalid, false, errorf(InvalidPlan, e, "%s: an aggregate entry must be a single aggregate call", name)
	}
	types := make([]Type, len(e.Args))
	nulls := make([]bool, len(e.Args))
	for i, a := range e.Args {
		if e.Fn.IsAggregate() || e.Fn.IsWindow() {
			// The arguments of an aggregate are row expressions, but a
			// window among them would be a window inside an aggregate.
			if err := nestedOver(a); err != nil {
				return Invalid, false, err
			}
		}
		t, n, err := typeOf(a, in, argCtx)
		if err != nil {
			return Invalid, false, err
		}
		types[i], nulls[i] = t, n
	}
	if err := checkNestedOperands(e, types); err != nil {
		return Invalid, false, err
	}
	anyNull := false
	for _, n := range nulls {
		anyNull = anyNull || n
	}
	mismatch := func(verb string) error {
		return errorf(TypeError, e, "%s: cannot %s %s and %s", name, verb, types[0], types[1])
	}
	unary := func(what string) error {
		return errorf(TypeError, e, "%s: expects %s, got %s", name, what, types[0])
	}
	switch e.Fn {
	case FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod:
		t, ok := ArithType(e.Fn, types[0], types[1])
		if !ok {
			verb := map[Func]string{FuncAdd: "add", FuncSub: "subtract", FuncMul: "multiply", FuncDiv: "divide", FuncMod: "take the remainder of"}[e.Fn]
			return Invalid, false, mismatch(verb)
		}
		return t, anyNull, nil
	case FuncNeg, FuncAbs:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		if e.Fn == FuncNeg && types[0].IsUnsigned() {
			return Invalid, false, unary("a signed number (write 0 - x in a signed type)")
		}
		return types[0], anyNull, nil
	case FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe:
		if _, ok := Promote(types[0], types[1]); !ok && (types[0] != types[1] || types[0] == Invalid) {
			return Invalid, false, mismatch("compare")
		}
		return Bool, anyNull, nil
	case FuncAnd, FuncOr:
		if types[0] != Bool || types[1] != Bool {
			return Invalid, false, errorf(TypeError, e, "%s: expects bool operands, got %s and %s", name, types[0], types[1])
		}
		return Bool, anyNull, nil
	case FuncNot:
		if types[0] != Bool {
			return Invalid, false, unary("bool")
		}
		return Bool, anyNull, nil
	case FuncIsNull, FuncIsNotNull:
		return Bool, false, nil
	case FuncIsNaN:
		if !types[0].IsFloat() {
			return Invalid, false, unary("float32 or float64")
		}
		return Bool, false, nil
	case FuncStrLen:
		if types[0] != String {
			return Invalid, false, unary("string")
		}
		return Int64, anyNull, nil
	case FuncConcat:
		for i, t := range types {
			if t != String {
				return Invalid, false, errorf(TypeError, e, "concat: argument %d must be string, got %s", i+1, t)
			}
		}
		return String, anyNull, nil
	case FuncIf:
		if types[0] != Bool {
			return Invalid, false, errorf(TypeError, e, "if: the condition must be bool, got %s", types[0])
		}
		t, ok := commonType(types[1], types[2])
		if !ok {
			return Invalid, false, errorf(TypeError, e, "if: branches have incompatible types %s and %s", types[1], types[2])
		}
		return t, nulls[1] || nulls[2], nil
	case FuncCoalesce:
		t := types[0]
		allNull := nulls[0]
		for i := 1; i < len(types); i++ {
			var ok bool
			if t, ok = commonType(t, types[i]); !ok {
				return Invalid, false, errorf(TypeError, e, "coalesce: arguments have incompatible types %s and %s", types[0], types[i])
			}
			allNull = allNull && nulls[i]
		}
		return t, allNull, nil
	case FuncLower, FuncUpper, FuncStrip, FuncStrLenBytes:
		for i, t := range types {
			if t != String {
				return Invalid, false, errorf(TypeError, e, "%s: argument %d must be string, got %s", name, i+1, t)
			}
		}
		if e.Fn == FuncStrLenBytes {
			return Int64, anyNull, nil
		}
		return String, anyNull, nil
	case FuncStartsWith, FuncEndsWith, FuncContains, FuncReplace, FuncReplaceAll:
		for i, t := range types {
			if t != String {
				return Invalid, false, errorf(TypeError, e, "%s: argument %d must be string, got %s", name, i+1, t)
			}
		}
		if e.Fn == FuncReplace || e.Fn == FuncReplaceAll {
			return String, anyNull, nil
		}
		return Bool, anyNull, nil
	case FuncLike:
		for i, t := range types {
			if t != String {
				return Invalid, false, errorf(TypeError, e, "like: argument %d must be string, got %s", i+1, t)
			}
		}
		if len(e.Args) == 3 {
			if _, err := LikeEscape(e.Args[2]); err != nil {
				return Invalid, false, errorf(TypeError, e, "like: %v", err)
			}
		}
		return Bool, anyNull, nil
	case FuncSubstring:
		if types[0] != String {
			return Invalid, false, errorf(TypeError, e, "substring: argument 1 must be string, got %s", types[0])
		}
		for i, t := range types[1:] {
			if t != Int32 && t != Int64 {
				return Invalid, false, errorf(TypeError, e, "substring: argument %d must be an int32 or int64, got %s", i+2, t)
			}
		}
		return String, anyNull, nil
	case FuncIsIn:
		for i, a := range e.Args[1:] {
			if _, ok := a.(*Literal); !ok {
				return Invalid, false, errorf(TypeError, e, "is_in: list element %d must be a literal, got `%s`", i+1, a)
			}
			if _, ok := Promote(types[0], types[i+1]); !ok && types[0] != types[i+1] {
				return Invalid, false, errorf(TypeError, e, "is_in: cannot compare %s with list element %d of type %s", types[0], i+1, types[i+1])
			}
		}
		return Bool, anyNull, nil
	case FuncBetween:
		for i, t := range types[1:] {
			if _, ok := Promote(types[0], t); !ok && types[0] != t {
				return Invalid, false, errorf(TypeError, e, "between: cannot compare %s with bound %d of type %s", types[0], i+1, t)
			}
		}
		return Bool, anyNull, nil
	// Aggregates see one group or partition, which is never empty (a
	// keyed group has a first row; so has a window partition): over a
	// non-null operand they are never null. Only an aggregate without keys
	// can see no rows at all, and resolveAggregate makes those nullable.
	case FuncSum:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		return SumType(types[0]), nulls[0], nil
	case FuncMean:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		return Float64, nulls[0], nil
	case FuncMin, FuncMax, FuncFirst, FuncLast:
		return types[0], nulls[0], nil
	case FuncCumSum:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		return SumType(types[0]), nulls[0], nil
	case FuncCumCount, FuncRowNumber:
		return Int64, false, nil
	case FuncArgMin, FuncArgMax:
		return Int64, true, nil
	case FuncTruncate, FuncOffsetBy:
		if types[0] != Date && types[0] != Datetime {
			return Invalid, false, unary("a date or datetime")
		}
		if _, err := EveryParam(e, types[0]); err != nil {
			return Invalid, false, err
		}
		return types[0], nulls[0], nil
	case FuncCumMin, FuncCumMax:
		return types[0], nulls[0], nil
	case FuncRank:
		if _, err := RankMethod(e); err != nil {
			return Invalid, false, err
		}
		return Int64, nulls[0], nil
	case FuncShift:
		n, def, err := ShiftParams(e, types[0])
		if err != nil {
			return Invalid, false, err
		}
		return types[0], nulls[0] || n != 0 && def.IsNull(), nil
	case FuncCount, FuncLen, FuncNUnique:
		return Int64, false, nil
	case FuncYear, FuncMonth, FuncDay, FuncWeekday:
		if types[0] != Date && types[0] != Datetime {
			return Invalid, false, unary("a date or datetime")
		}
		return Int32, anyNull, nil
	case FuncHour, FuncMinute, FuncSecond:
		if types[0] != Datetime {
			return Invalid, false, unary("a datetime")
		}
		return Int32, anyNull, nil
	case FuncMedian, FuncQuantile:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		if e.Fn == FuncQuantile {
			if _, err := QuantileParam(e); err != nil {
				return Invalid, false, err
			}
		}
		return Float64, nulls[0], nil
	case FuncVar, FuncStd:
		if !types[0].IsNumeric() {
			return Invalid, false, unary("a number")
		}
		ddof, err := DdofParam(e)
		if err != nil {
			return Invalid, false, err
		}
		// Null where n <= ddof: a group always has a row, so only a ddof
		// of at least 1 makes a non-null operand's result nullable.
		return Float64, nulls[0] || ddof >= 1, nil
	case FuncAny, FuncAll:
		if types[0] != Bool {
			return Invalid, false, unary("bool")
		}
		return Bool, false, nil
	case FuncListLen:
		if !types[0].IsList() {
			return Invalid, false, unary("a list")
		}
		return Int64, anyNull, nil
	case FuncListGet:
		if !types[0].IsList() {
			return Invalid, false, unary("a list")
		}
		if !types[1].IsInteger() {
			return Invalid, false, errorf(TypeError, e, "list.get: the index must be an integer, got %s", types[1])
		}
		return types[0].Elem(), true, nil
	case FuncListContains:
		if !types[0].IsList() {
			return Invalid, false, unary("a list")
		}
		if el := types[0].Elem(); el != types[1] {
			if _, ok := Promote(el, types[1]); !ok {
				return Invalid, false, errorf(TypeError, e, "list.contains: cannot look for a %s in a %s", types[1], types[0])
			}
		}
		return Bool, anyNull, nil
	case FuncListSum:
		if !types[0].IsList() || !types[0].Elem().IsNumeric() {
			return Invalid, false, unary("a list of numbers")
		}
		return SumType(types[0].Elem()), true, nil
	case FuncListMin, FuncListMax:
		if !types[0].IsList() {
			return Invalid, false, unary("a list")
		}
		return types[0].Elem(), true, nil
	case FuncStructField:
		t, err := StructFieldType(e, types[0])
		if err != nil {
			return Invalid, false, err
		}
		return t, true, nil
	}
	return Invalid, false, errorf(InvalidPlan, e, "unknown function")
}

// nestedKind names a nested type's kind for messages.
func nestedKind(t Type) string {
	if t.IsList() {
		return "list"
	}
	return "struct"
}

// checkNestedOperands rejects a list or struct operand of every function
// that would compare, hash, order or merge it (docs/semantics.md, Lists
// and structs): only is_null, is_not_null and the list and struct
// functions take one.
func checkNestedOperands(e *Call, types []Type) error {
	switch e.Fn {
	case FuncIsNull, FuncIsNotNull:
		return nil
	}
	for i, t := range types {
		if !t.IsNested() || (i == 0 && e.Fn.IsNestedFunc()) {
			continue
		}
		what := "a list or struct cannot be an operand of %s (operand %d is %s): lists and structs are carried, not compared (docs/semantics.md, Lists and structs)"
		if e.Fn.IsAggregate() {
			what = "a list or struct cannot be aggregated by %s (operand %d is %s; docs/semantics.md, Lists and structs)"
		}
		return errorf(TypeError, e, what, e.Fn, i+1, t)
	}
	return nil
}

// StructFieldType returns the type of struct.field(s, name) for s of
// type st: name must be a non-null string literal naming a field of the
// struct (a type_error naming the call otherwise).
func StructFieldType(c *Call, st Type) (Type, error) {
	if !st.IsStruct() {
		return Invalid, errorf(TypeError, c, "struct.field: expects a struct, got %s", st)
	}
	name, err := StructFieldName(c)
	if err != nil {
		return Invalid, err
	}
	i := st.FieldIndex(name)
	if i < 0 {
		fs := st.StructFields()
		names := make([]string, len(fs))
		for k, f := range fs {
			names[k] = f.Name
		}
		return Invalid, errorf(TypeError, c, "struct.field: %s has no field %q (its fields: %v)", st, name, names)
	}
	return st.StructFields()[i].Type, nil
}

// StructFieldName returns the field name of a struct.field call: its
// second argument, a non-null string literal.
func StructFieldName(c *Call) (string, error) {
	if len(c.Args) != 2 {
		return "", errorf(TypeError, c, "struct.field: expects 2 arguments, got %d", len(c.Args))
	}
	l, ok := c.Args[1].(*Literal)
	if !ok || l.Value.Type() != String || l.Value.IsNull() {
		return "", errorf(TypeError, c, "struct.field: the field name must be a non-null string literal, got `%s`", c.Args[1])
	}
	return l.Value.Str(), nil
}

// nestedOver rejects a window inside an aggregate's arguments or inside
// another window's partition keys: synthesis computes only the outermost
// over() of an expression, so a nested one would never be computed.
func nestedOver(e Expr) error {
	var over Expr
	Walk(e, func(x Expr) bool {
		if _, ok := x.(*Over); ok {
			over = x
		}
		return over == nil
	})
	if over != nil {
		return errorf(InvalidPlan, over, "over: a window cannot appear inside an aggregate or another window")
	}
	return nil
}

// commonType is the type two branches of if() or coalesce() unify to: the
// same type, or the promotion of two numbers.
func commonType(a, b Type) (Type, bool) {
	if a.IsNested() || b.IsNested() {
		return Invalid, false
	}
	if a == b {
		return a, true
	}
	return Promote(a, b)
}

// CastCanFail reports whether a cast from one type to another can fail on
// some value (and so yield null when non-strict): an integer to an integer
// whose range does not hold the source's (narrowing, signed to unsigned,
// unsigned to a signed type of no more width), a float to an integer,
// float64 to float32 (a finite value beyond float32's range), parsing
// strings, and date to datetime (a date beyond ±106,751,991 days has no
// datetime).
func CastCanFail(from, to Type) bool {
	if from == to || to == String {
		return false
	}
	switch {
	case from.IsInteger() && to.IsInteger():
		flo, fhi, _ := IntRange(from)
		tlo, thi, _ := IntRange(to)
		return flo < tlo || fhi > thi
	case from.IsInteger():
		return false // to a float (nearest), to bool
	case from == Float32:
		return to.IsInteger()
	case from == Float64:
		return to.IsInteger() || to == Float32
	case from == Bool:
		return false
	case from == String:
		return true
	case from == Date:
		return to == Datetime
	case from == Datetime, from == Duration:
		return false
	}
	return true
}

// SumType is the result type of sum over a t operand
// (docs/semantics.md, Aggregates): int64 for every integer type but
// uint64, which sums to uint64; float64 for float32 and float64.
func SumType(t Type) Type {
	switch {
	case t == Uint64:
		return Uint64
	case t.IsInteger():
		return Int64
	case t.IsFloat():
		return Float64
	}
	return t
}

// QuantileParam returns the q of a quantile call: its second argument,
// which must be a non-null int32, int64 or float64 literal in [0, 1] (a
// type_error for a literal of another type, an invalid_plan error for
// anything else, naming the call).
func QuantileParam(c *Call) (float64, error) {
	if len(c.Args) != 2 {
		return 0, errorf(TypeError, c, "%s: expects 2 arguments, got %d", c.Fn, len(c.Args))
	}
	v, err := literalParam(c, c.Args[1], "q")
	if err != nil {
		return 0, err
	}
	q := v.Float()
	switch {
	case v.Type().IsUnsigned():
		q = float64(v.Uint())
	case v.Type().IsInteger():
		q = float64(v.Int())
	}
	if !(q >= 0 && q <= 1) {
		return 0, errorf(InvalidPlan, c, "%s: q must lie in [0, 1], got %s", c.Fn, c.Args[1])
	}
	return q, nil
}

// DdofParam returns the ddof of a var or std call: 1 when omitted, else
// its second argument, which must be a non-null int32 or int64 literal >= 0
// (errors as QuantileParam's).
func DdofParam(c *Call) (int64, error) {
	if len(c.Args) < 2 {
		return 1, nil
	}
	v, err := literalParam(c, c.Args[1], "ddof")
	if err != nil {
		return 0, err
	}
	if v.Type().IsFloat() {
		return 0, errorf(TypeError, c, "%s: ddof must be an integer literal, got %s", c.Fn, v.Type())
	}
	if v.Type() == Uint64 && v.Uint() > math.MaxInt64 {
		return 0, errorf(InvalidPlan, c, "%s: ddof %d is too large", c.Fn, v.Uint())
	}
	if v.Int() < 0 {
		return 0, errorf(InvalidPlan, c, "%s: ddof must be >= 0, got %d", c.Fn, v.Int())
	}
	return v.Int(), nil
}

// literalParam unpacks an aggregate's literal parameter: a non-null
// numeric literal (aliases are not literals).
func literalParam(c *Call, arg Expr, what string) (Value, error) {
	lit, ok := arg.(*Literal)
	if !ok {
		return Value{}, errorf(InvalidPlan, c, "%s: %s must be a literal, got `%s`", c.Fn, what, arg)
	}
	v := lit.Value
	if !v.Type().IsNumeric() {
		return Value{}, errorf(TypeError, c, "%s: %s must be a number, got %s", c.Fn, what, v.Type())
	}
	if v.IsNull() {
		return Value{}, errorf(InvalidPlan, c, "%s: %s must not be null", c.Fn, what)
	}
	return v, nil
}

// LikeEscape returns the escape character of like's optional third
// argument: it must be a non-null string literal of exactly one valid
// UTF-8 character (docs/semantics.md, Strings).
func LikeEscape(e Expr) (string, error) {
	l, ok := e.(*Literal)
	if !ok || l.Value.Type() != String {
		return "", fmt.Errorf("the escape must be a string literal, got `%s`", e)
	}
	if l.Value.IsNull() {
		return "", fmt.Errorf("the escape must not be null")
	}
	s := l.Value.Str()
	if r, n := utf8.DecodeRuneInString(s); n != len(s) || n == 0 || (r == utf8.RuneError && n == 1) {
		return "", fmt.Errorf("the escape must be exactly one character, got %q", s)
	}
	return s, nil
}
