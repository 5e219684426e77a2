package plan

import (
	"math"
	"strings"
	"testing"
)

// fieldOK is an expected TypeOf result.
type fieldOK struct {
	name     string
	typ      Type
	nullable bool
}

func TestTypeOfEveryFunction(t *testing.T) {
	// std: a int64?, b int64, i int32?, f float64?, s string?, p bool?, k int64, q bool
	a, b, i, f, s, p, k, q := Col("a"), Col("b"), Col("i"), Col("f"), Col("s"), Col("p"), Col("k"), Col("q")
	in := stdSchema()
	incWrap := builtinUDF(t, "inc_wrap")
	for _, tc := range []struct {
		e    E
		want fieldOK
	}{
		{a, fieldOK{"a", Int64, true}}, {b, fieldOK{"b", Int64, false}}, {a.Alias("z").Alias("y"), fieldOK{"y", Int64, true}},
		{Lit(1), fieldOK{"literal", Int64, false}}, {Lit(int32(1)), fieldOK{"literal", Int32, false}},
		{Lit(1.5), fieldOK{"literal", Float64, false}}, {Lit("x"), fieldOK{"literal", String, false}},
		{Lit(true), fieldOK{"literal", Bool, false}}, {Null(String), fieldOK{"literal", String, true}},
		{b.Alias("x"), fieldOK{"x", Int64, false}},
		// arithmetic: promoted type, null if either operand may be null
		{b.Add(k), fieldOK{"b", Int64, false}}, {a.Add(b), fieldOK{"a", Int64, true}}, {b.Add(a), fieldOK{"b", Int64, true}},
		{i.Add(i), fieldOK{"i", Int32, true}}, {i.Sub(a), fieldOK{"i", Int64, true}}, {b.Mul(f), fieldOK{"b", Float64, true}},
		{i.Div(f), fieldOK{"i", Float64, true}}, {b.Div(k), fieldOK{"b", Int64, false}}, {b.Mod(k), fieldOK{"b", Int64, false}},
		{b.Mod(Lit(1.5)), fieldOK{"b", Float64, false}}, {Lit(int32(1)).Add(Lit(2)), fieldOK{"literal", Int64, false}},
		{b.Add(Null(Int64)), fieldOK{"b", Int64, true}},
		{b.Neg(), fieldOK{"b", Int64, false}}, {i.Neg(), fieldOK{"i", Int32, true}}, {f.Abs(), fieldOK{"f", Float64, true}},
		// comparisons
		{a.Eq(f), fieldOK{"a", Bool, true}}, {b.Eq(k), fieldOK{"b", Bool, false}}, {s.Ne(s), fieldOK{"s", Bool, true}},
		{q.Lt(q), fieldOK{"q", Bool, false}}, {i.Le(a), fieldOK{"i", Bool, true}}, {f.Gt(Lit(1)), fieldOK{"f", Bool, true}},
		{b.Ge(Lit(int32(1))), fieldOK{"b", Bool, false}}, {b.Lt(k).Eq(q), fieldOK{"b", Bool, false}},
		// logic
		{p.And(q), fieldOK{"p", Bool, true}}, {q.Or(q), fieldOK{"q", Bool, false}}, {Lit(true).And(Lit(false)), fieldOK{"literal", Bool, false}},
		{p.Not(), fieldOK{"p", Bool, true}}, {q.Not(), fieldOK{"q", Bool, false}},
		{a.IsNull(), fieldOK{"a", Bool, false}}, {s.IsNotNull(), fieldOK{"s", Bool, false}},
		{f.IsNaN(), fieldOK{"f", Bool, false}}, {Null(Float64).IsNaN(), fieldOK{"literal", Bool, false}},
		// strings
		{s.StrLen(), fieldOK{"s", Int64, true}}, {Lit("x").StrLen(), fieldOK{"literal", Int64, false}},
		{Concat(s, Lit("x")), fieldOK{"s", String, true}}, {Concat(Lit("x"), Lit("y")), fieldOK{"literal", String, false}},
		{Concat(Lit("x")), fieldOK{"literal", String, false}},
		{s.Lower(), fieldOK{"s", String, true}}, {Lit("x").Upper(), fieldOK{"literal", String, false}},
		{Lit("x").StartsWith(s), fieldOK{"s", Bool, true}}, {Lit("x").EndsWith(Lit("y")), fieldOK{"literal", Bool, false}},
		{s.Contains(Lit("y")), fieldOK{"s", Bool, true}}, {Lit("x").LikeEscape(Lit("y"), Lit("!")), fieldOK{"literal", Bool, false}},
		{s.Substring(Lit(1), Lit(int32(2))), fieldOK{"s", String, true}}, {Lit("x").SubstringFrom(b), fieldOK{"b", String, false}},
		{Lit("x").SubstringFrom(a), fieldOK{"a", String, true}},
		{s.Replace(Lit("a"), Lit("b")), fieldOK{"s", String, true}}, {Lit("x").ReplaceAll(Lit("a"), Lit("b")), fieldOK{"literal", String, false}},
		{s.Strip(), fieldOK{"s", String, true}}, {Lit("x").StripChars(Lit(" ")), fieldOK{"literal", String, false}},
		{s.StrLenBytes(), fieldOK{"s", Int64, true}},
		// is_in: null when x or a list value may be null; numbers promote
		{b.IsIn(Int64Value(1), Float64Value(2), Int32Value(3)), fieldOK{"b", Bool, false}},
		{b.IsIn(Int64Value(1), NullValue(Int64)), fieldOK{"b", Bool, true}}, {a.IsIn(), fieldOK{"a", Bool, true}},
		{s.IsIn(StringValue("x")), fieldOK{"s", Bool, true}}, {q.IsIn(BoolValue(true)), fieldOK{"q", Bool, false}},
		{b.Between(Lit(1), f), fieldOK{"b", Bool, true}}, {b.Between(Lit(1), Lit(2.5)), fieldOK{"b", Bool, false}},
		{When(p, b, q, k, Lit(1)), fieldOK{"p", Int64, false}}, {When(p, b, q, k, Lit(1.5)), fieldOK{"p", Float64, false}},
		// if: common type of the branches; null iff a branch may be null (the condition never adds nulls)
		{If(p, b, k), fieldOK{"p", Int64, false}}, {If(q, i, f), fieldOK{"q", Float64, true}}, {If(q, b, a), fieldOK{"q", Int64, true}},
		{If(q, i, b), fieldOK{"q", Int64, true}}, {If(q, s, Lit("z")), fieldOK{"q", String, true}},
		{If(q, q, Lit(false)), fieldOK{"q", Bool, false}},
		// coalesce: null only when every operand may be null
		{Coalesce(a, b), fieldOK{"a", Int64, false}}, {Coalesce(a, a), fieldOK{"a", Int64, true}},
		{Coalesce(i, a), fieldOK{"i", Int64, true}}, {Coalesce(a, f, Lit(0)), fieldOK{"a", Float64, false}},
		{Coalesce(s), fieldOK{"s", String, true}},
		// casts: strict keeps nullability, non-strict adds it where the cast can fail
		{a.Cast(Int32), fieldOK{"a", Int32, true}}, {b.Cast(Int32), fieldOK{"b", Int32, false}},
		{b.TryCast(Int32), fieldOK{"b", Int32, true}}, {b.TryCast(Float64), fieldOK{"b", Float64, false}},
		{b.TryCast(String), fieldOK{"b", String, false}}, {Lit("1").TryCast(Int64), fieldOK{"literal", Int64, true}},
		{Lit(1.5).TryCast(Bool), fieldOK{"literal", Bool, false}}, {q.TryCast(Int32), fieldOK{"q", Int32, false}},
		// windows
		{b.Sum().Over(k), fieldOK{"b", Int64, false}}, {i.Sum().Over(k), fieldOK{"i", Int64, true}},
		{f.Mean().Over(k, s), fieldOK{"f", Float64, true}}, {a.Count().Over(k), fieldOK{"a", Int64, false}},
		{Len().Over(k), fieldOK{"len", Int64, false}}, {s.Min().Over(k), fieldOK{"s", String, true}},
		{b.Sum().Alias("t").Over(k), fieldOK{"t", Int64, false}}, {b.Sum().Over(k).Add(Lit(1)), fieldOK{"b", Int64, false}},
		{a.Sum().Over(k).Add(b), fieldOK{"a", Int64, true}}, {b.First().Over(k), fieldOK{"b", Int64, false}}, {Col("q").Max().Over(k), fieldOK{"q", Bool, false}},
		// udf: the declared result, always nullable
		{CallUDF(incWrap, b), fieldOK{"b", Int64, true}},
	} {
		got, err := TypeOf(tc.e.Expr(), in)
		if err != nil {
			t.Errorf("TypeOf(%s): %v", tc.e, err)
			continue
		}
		want := Field{Name: tc.want.name, Type: tc.want.typ, Nullable: tc.want.nullable}
		if got != want {
			t.Errorf("TypeOf(%s) = %v, want %v", tc.e, got, want)
		}
	}
}

func TestAggTypeOf(t *testing.T) {
	in := stdSchema()
	a, b, i, f, s, p := Col("a"), Col("b"), Col("i"), Col("f"), Col("s"), Col("p")
	for _, tc := range []struct {
		e    E
		want fieldOK
	}{
		{b.Sum(), fieldOK{"b", Int64, false}}, {i.Sum(), fieldOK{"i", Int64, true}}, {f.Sum(), fieldOK{"f", Float64, true}},
		{b.Mean(), fieldOK{"b", Float64, false}}, {i.Mean(), fieldOK{"i", Float64, true}},
		{s.Min(), fieldOK{"s", String, true}}, {p.Max(), fieldOK{"p", Bool, true}}, {b.Min(), fieldOK{"b", Int64, false}},
		{a.Count(), fieldOK{"a", Int64, false}}, {Len(), fieldOK{"len", Int64, false}},
		{b.First(), fieldOK{"b", Int64, false}}, {i.Last(), fieldOK{"i", Int32, true}},
		{b.Add(a).Sum().Alias("t"), fieldOK{"t", Int64, true}}, {Len().Alias("n"), fieldOK{"n", Int64, false}},
		{CallUDF(builtinUDF(t, "inc_wrap"), b).Sum(), fieldOK{"b", Int64, true}},
		// n_unique never null; median and quantile null only for a nullable
		// operand; var and std also whenever ddof >= 1 (one row, n <= ddof)
		{s.NUnique(), fieldOK{"s", Int64, false}}, {a.NUnique(), fieldOK{"a", Int64, false}},
		{b.Median(), fieldOK{"b", Float64, false}}, {i.Median(), fieldOK{"i", Float64, true}},
		{b.Quantile(0.9), fieldOK{"b", Float64, false}}, {f.Quantile(1), fieldOK{"f", Float64, true}},
		{b.Var(), fieldOK{"b", Float64, true}}, {b.VarDdof(0), fieldOK{"b", Float64, false}},
		{i.StdDdof(0), fieldOK{"i", Float64, true}}, {b.Std(), fieldOK{"b", Float64, true}},
		{p.Any(), fieldOK{"p", Bool, false}}, {Col("q").All(), fieldOK{"q", Bool, false}},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr(), Lit(int32(1)).Expr()}}}, fieldOK{"b", Float64, false}},
	} {
		got, err := AggTypeOf(tc.e.Expr(), in)
		if err != nil {
			t.Errorf("AggTypeOf(%s): %v", tc.e, err)
			continue
		}
		if want := (Field{Name: tc.want.name, Type: tc.want.typ, Nullable: tc.want.nullable}); got != want {
			t.Errorf("AggTypeOf(%s) = %v, want %v", tc.e, got, want)
		}
	}
}

func TestTypeErrors(t *testing.T) {
	a, b, i, f, s, p, k, q := Col("a"), Col("b"), Col("i"), Col("f"), Col("s"), Col("p"), Col("k"), Col("q")
	in := stdSchema()
	incWrap := builtinUDF(t, "inc_wrap")
	rowCtx := func(e Expr) error { _, err := TypeOf(e, in); return err }
	aggCtx := func(e Expr) error { _, err := AggTypeOf(e, in); return err }
	for _, tc := range []struct {
		e     E
		agg   bool
		kind  ErrorKind
		expr  string
		msg   string
		exact bool // msg is the whole message
	}{
		{s.Add(a), false, TypeError, "s + a", "add: cannot add string and int64", true},
		{b.Quantile(1.5), true, InvalidPlan, "quantile(b, 1.5)", "quantile: q must lie in [0, 1], got 1.5", true},
		{b.Quantile(-0.25), true, InvalidPlan, "quantile(b, -0.25)", "q must lie in [0, 1]", false},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr(), Lit(math.NaN()).Expr()}}}, true, InvalidPlan, "quantile(b, NaN)", "q must lie in [0, 1]", false},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr(), a.Expr()}}}, true, InvalidPlan, "quantile(b, a)", "quantile: q must be a literal, got `a`", true},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr(), Lit("x").Expr()}}}, true, TypeError, "quantile(b, \"x\")", "quantile: q must be a number, got string", true},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr(), Null(Float64).Expr()}}}, true, InvalidPlan, "quantile(b, null(float64))", "must not be null", false},
		{E{&Call{Fn: FuncQuantile, Args: []Expr{b.Expr()}}}, true, TypeError, "quantile(b)", "quantile: expects 2 arguments, got 1", true},
		{b.VarDdof(-1), true, InvalidPlan, "var(b, -1)", "var: ddof must be >= 0, got -1", true},
		{E{&Call{Fn: FuncStd, Args: []Expr{b.Expr(), Lit(1.0).Expr()}}}, true, TypeError, "std(b, 1.0)", "std: ddof must be an integer literal, got float64", true},
		{s.Median(), true, TypeError, "median(s)", "median: expects a number, got string", true},
		{s.Var(), true, TypeError, "var(s)", "var: expects a number, got string", true},
		{b.Any(), true, TypeError, "any(b)", "any: expects bool, got int64", true},
		{b.Median(), false, InvalidPlan, "median(b)", "an aggregate is allowed only", false},
		{a.Sub(s), false, TypeError, "a - s", "sub: cannot subtract int64 and string", true},
		{p.Mul(a), false, TypeError, "p * a", "mul: cannot multiply bool and int64", true},
		{s.Div(a), false, TypeError, "s / a", "div: cannot divide string and int64", true},
		{s.Mod(a), false, TypeError, "s % a", "mod: cannot take the remainder of string and int64", true},
		{q.Add(q), false, TypeError, "q + q", "add: cannot add bool and bool", true},
		{s.Add(s), false, TypeError, "s + s", "add: cannot add string and string", true},
		{s.Neg(), false, TypeError, "-s", "neg: expects a number, got string", true},
		{p.Abs(), false, TypeError, "abs(p)", "abs: expects a number, got bool", true},
		{a.Eq(s), false, TypeError, "a == s", "eq: cannot compare int64 and string", true},
		{p.Lt(a), false, TypeError, "p < a", "lt: cannot compare bool and int64", true},
		{s.Ge(q), false, TypeError, "s >= q", "ge: cannot compare string and bool", true},
		{a.And(p), false, TypeError, "a and p", "and: expects bool operands, got int64 and bool", true},
		{p.Or(s), false, TypeError, "p or s", "or: expects bool operands, got bool and string", true},
		{a.Not(), false, TypeError, "not(a)", "not: expects bool, got int64", true},
		{a.IsNaN(), false, TypeError, "is_nan(a)", "is_nan: expects float32 or float64, got int64", true},
		{a.StrLen(), false, TypeError, "str_len(a)", "str_len: expects string, got int64", true},
		{Concat(s, a), false, TypeError, `concat(s, a)`, "concat: argument 2 must be string, got int64", true},
		{a.Lower(), false, TypeError, "lower(a)", "lower: argument 1 must be string, got int64", true},
		{s.Contains(a), false, TypeError, "contains(s, a)", "contains: argument 2 must be string, got int64", true},
		{s.Like(a), false, TypeError, "like(s, a)", "like: argument 2 must be string, got int64", true},
		{s.LikeEscape(Lit("x"), s), false, TypeError, `like(s, "x", s)`, "like: the escape must be a string literal, got `s`", true},
		{s.LikeEscape(Lit("x"), Lit("!!")), false, TypeError, `like(s, "x", "!!")`, `like: the escape must be exactly one character, got "!!"`, true},
		{s.LikeEscape(Lit("x"), Lit("\xff")), false, TypeError, `like(s, "x", "\xff")`, `like: the escape must be exactly one character, got "\xff"`, true},
		{s.LikeEscape(Lit("x"), Null(String)), false, TypeError, `like(s, "x", null(string))`, "like: the escape must not be null", true},
		{s.Substring(s, a), false, TypeError, "substring(s, s, a)", "substring: argument 2 must be an int32 or int64, got string", true},
		{s.Substring(a, f), false, TypeError, "substring(s, a, f)", "substring: argument 3 must be an int32 or int64, got float64", true},
		{Wrap(&Call{Fn: FuncIsIn, Args: []Expr{a.Expr(), b.Expr()}}), false, TypeError, "is_in(a, [b])", "is_in: list element 1 must be a literal, got `b`", true},
		{a.IsIn(StringValue("x")), false, TypeError, `is_in(a, ["x"])`, "is_in: cannot compare int64 with list element 1 of type string", true},
		{a.Between(Lit(1), s), false, TypeError, "between(a, 1, s)", "between: cannot compare int64 with bound 2 of type string", true},
		{When(p, a, q, s, Lit(1)), false, TypeError, "if(q, s, 1)", "if: branches have incompatible types string and int64", true},
		{When(p, a), false, TypeError, "if(p, a)", "if: expects 3 arguments, got 2", true},
		{If(a, b, b), false, TypeError, "if(a, b, b)", "if: the condition must be bool, got int64", true},
		{If(p, a, s), false, TypeError, "if(p, a, s)", "if: branches have incompatible types int64 and string", true},
		{Coalesce(a, s), false, TypeError, "coalesce(a, s)", "coalesce: arguments have incompatible types int64 and string", true},
		{Coalesce(a, f, s), false, TypeError, "coalesce(a, f, s)", "coalesce: arguments have incompatible types int64 and string", true},
		// the innermost failing expression is named
		{a.Add(s.Neg()).Gt(Lit(1)), false, TypeError, "-s", "neg: expects a number, got string", true},
		{s.Add(a).Alias("x"), false, TypeError, "s + a", "add: cannot add string and int64", true},
		// arity
		{callE(FuncAdd, a), false, TypeError, "add(a)", "add: expects 2 arguments, got 1", true},
		{callE(FuncIf, p, a), false, TypeError, "if(p, a)", "if: expects 3 arguments, got 2", true},
		{Concat(), false, TypeError, "concat()", "concat: expects at least 1 arguments, got 0", true},
		{callE(FuncLen, a), true, TypeError, "len(a)", "len: expects 0 arguments, got 1", true},
		{callE(Func(200), a), false, InvalidPlan, "invalid(a)", "unknown function", true},
		{callE(FuncInvalid), false, InvalidPlan, "invalid()", "unknown function", true},
		// names, literals, casts, aliases
		{Col("zz"), false, UnknownColumn, "zz", `column "zz" not found; the input has [a b i f s p k q]`, true},
		{Col("z z").Add(a), false, UnknownColumn, `col("z z")`, `column "z z" not found`, false},
		{Lit(uint(1)), false, TypeError, "invalid(uint 1)", "plan.Lit: a Go value of type uint has no dfopt type", false},
		{Wrap(&Literal{Value: NullValue(Invalid)}), false, TypeError, "null(invalid)", "literal: missing type", true},
		{Null(Type(77)), false, TypeError, "null(type(77))", "literal: missing type", true},
		{Wrap(&Cast{Expr: a.Expr(), To: Invalid, Strict: true}), false, TypeError, "cast(a, invalid)", "cast: invalid target type", true},
		{Wrap(&Cast{Expr: a.Expr(), To: Type(99)}), false, TypeError, "cast(a, type(99), strict=false)", "cast: invalid target type", true},
		{s.Add(a).Cast(Int32), false, TypeError, "s + a", "add: cannot add string and int64", true},
		{a.Alias(""), false, InvalidPlan, `a as ""`, "alias: empty name", true},
		// aggregates and windows in the wrong place
		{a.Sum(), false, InvalidPlan, "sum(a)", "sum: an aggregate is allowed only in an aggregate node or inside over()", true},
		{Len(), false, InvalidPlan, "len()", "len: an aggregate is allowed only in an aggregate node or inside over()", true},
		{a.Sum().Add(Lit(1)), false, InvalidPlan, "sum(a)", "an aggregate is allowed only", false},
		{a.Sum().Add(Lit(1)), true, InvalidPlan, "sum(a) + 1", "aggregate: each entry must be an aggregate call such as sum(a), got `sum(a) + 1`", true},
		{a, true, InvalidPlan, "a", "aggregate: each entry must be an aggregate call", false},
		{a.Sum().Sum(), true, InvalidPlan, "sum(a)", "sum: an aggregate is allowed only", false},
		{s.Sum(), true, TypeError, "sum(s)", "sum: expects a number, got string", true},
		{p.Mean(), true, TypeError, "mean(p)", "mean: expects a number, got bool", true},
		{a.Sum().Over(k), true, InvalidPlan, "sum(a).over(k)", "aggregate: each entry must be an aggregate call", false},
		{a.Over(k), false, InvalidPlan, "a.over(k)", "over: the windowed expression must be an aggregate or window function call", true},
		{a.Add(b).Over(k), false, InvalidPlan, "(a + b).over(k)", "over: the windowed expression must be an aggregate or window function call", true},
		{a.Sum().Over(Col("zz")), false, UnknownColumn, "zz", "not found", false},
		{a.Sum().Over(k.Sum()), false, InvalidPlan, "sum(k)", "an aggregate is allowed only", false},
		{s.Sum().Over(k), false, TypeError, "sum(s)", "sum: expects a number, got string", true},
		// window functions and ordered windows
		{a.CumSum(), false, InvalidPlan, "cum_sum(a)", "cum_sum: a window function is allowed only directly under over()", true},
		{RowNumber(), true, InvalidPlan, "row_number()", "aggregate: each entry must be an aggregate call such as sum(a), got `row_number()`", true},
		{a.Sum().OverOrdered([]E{k}, Asc(b)), false, InvalidPlan, "sum(a).over(k, order_by=[b])", "over: order_by applies to window functions only", false},
		{s.CumSum().Over(k), false, TypeError, "cum_sum(s)", "cum_sum: expects a number, got string", true},
		{a.Rank("average").Over(k), false, TypeError, `rank(a, "average")`, `rank: unknown method "average" (dense or min)`, true},
		{Wrap(&Call{Fn: FuncRank, Args: []Expr{a.Expr(), s.Expr()}}).Over(k), false, TypeError, "rank(a, s)", "rank: the method must be the string literal", false},
		{Wrap(&Call{Fn: FuncShift, Args: []Expr{a.Expr(), b.Expr()}}).Over(k), false, TypeError, "shift(a, b)", "shift: the distance n must be a non-null integer literal", true},
		{a.ShiftOr(1, Lit("x")).Over(k), false, TypeError, `shift(a, 1, "x")`, "shift: the default must be a literal of the shifted value's type int64", true},
		{a.CumSum().OverOrdered([]E{k}, Desc(b.Sum())), false, InvalidPlan, "sum(b)", "an aggregate is allowed only", false},
		{a.CumSum().OverOrdered([]E{k}, Asc(b.Sum().Over(k))), false, InvalidPlan, "sum(b).over(k)", "over: a window cannot appear inside", false},
		// nested windows are rejected wherever they hide
		{a.Sum().Over(k).Sum().Over(b), false, InvalidPlan, "sum(a).over(k)", "over: a window cannot appear inside an aggregate or another window", true},
		{a.Sum().Over(b.Sum().Over(k)), false, InvalidPlan, "sum(b).over(k)", "over: a window cannot appear inside an aggregate or another window", true},
		{a.Sum().Over(k).Add(Lit(1)).Count(), true, InvalidPlan, "sum(a).over(k)", "over: a window cannot appear inside", false},
		// UDFs
		{CallUDF(incWrap, b, b), false, TypeError, "inc_wrap(b, b)", "inc_wrap: expects 1 arguments, got 2", true},
		{CallUDF(incWrap, i), false, TypeError, "inc_wrap(i)", "inc_wrap: argument 1 must be int64, got int32", true},
		{CallUDF(incWrap, s.Neg()), false, TypeError, "-s", "neg: expects a number", false},
		{CallUDF(nil, b), false, InvalidPlan, "udf(b)", "udf: missing definition", true},
		{CallUDF(incWrap, b.Sum()), false, InvalidPlan, "sum(b)", "an aggregate is allowed only", false},
		// missing expressions
		{Wrap(nil), false, InvalidPlan, "", "missing expression", true},
		{Wrap(&Call{Fn: FuncAdd, Args: []Expr{a.Expr(), nil}}), false, InvalidPlan, "", "missing expression", true},
	} {
		check := rowCtx
		if tc.agg {
			check = aggCtx
		}
		err := check(tc.e.Expr())
		if err == nil {
			t.Errorf("%s (agg=%v): no error, want %s %q", tc.e, tc.agg, tc.kind, tc.msg)
			continue
		}
		pe, ok := AsError(err)
		if !ok {
			t.Errorf("%s: %v is not a *Error", tc.e, err)
			continue
		}
		if pe.Kind != tc.kind || pe.Expr != tc.expr || pe.Row != -1 {
			t.Errorf("%s: got kind %s expr %q row %d, want %s %q -1", tc.e, pe.Kind, pe.Expr, pe.Row, tc.kind, tc.expr)
		}
		if tc.exact && pe.Msg != tc.msg || !tc.exact && !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("%s: message %q, want %q (exact=%v)", tc.e, pe.Msg, tc.msg, tc.exact)
		}
	}
}

func TestCastCanFail(t *testing.T) {
	// Row: from; column: to (bool, int32, int64, float64, string, date,
	// datetime, duration). A pair with no cast (CanCast false) is "-".
	// Then int8, int16, uint8, uint16, uint32, uint64, float32.
	want := map[Type]string{
		Bool:     "fffff---" + "fffffff",
		Int32:    "fffff" + "f--" + "ttttttf",
		Int64:    "ftfff" + "-ff" + "ttttttf",
		Float64:  "fttff---" + "ttttttt",
		String:   "ttttftt-" + "ttttttt",
		Date:     "-f--fft-" + "-------",
		Datetime: "--f-fff-" + "-------",
		Duration: "--f-f--f" + "-------",
		Int8:     "fffff---" + "ffttttf",
		Int16:    "fffff---" + "tfttttf",
		Uint8:    "fffff---" + "tffffff",
		Uint16:   "fffff---" + "tttffff",
		Uint32:   "ftfff---" + "ttttfff",
		Uint64:   "fttff---" + "tttttff",
		Float32:  "fttff---" + "ttttttf",
	}
	for from, row := range want {
		for j, to := range Types() {
			if (row[j] != '-') != CanCast(from, to) {
				t.Errorf("CanCast(%s, %s) = %v, want %v", from, to, CanCast(from, to), row[j] != '-')
				continue
			}
			if row[j] == '-' {
				continue
			}
			if got := CastCanFail(from, to); got != (row[j] == 't') {
				t.Errorf("CastCanFail(%s, %s) = %v, want %v", from, to, got, row[j] == 't')
			}
		}
	}
	if !CastCanFail(Invalid, Int64) {
		t.Error("a cast from an invalid type must count as fallible")
	}
}

// TestWindowFunctionTypes: the result field of each window function over
// stdSchema's columns (a int64, i int32, f float64, s string; none
// nullable unless stdSchema says so) and the canonical text of an ordered
// window.
func TestWindowFunctionTypes(t *testing.T) {
	a, i, f, s, k, b := Col("a"), Col("i"), Col("f"), Col("s"), Col("k"), Col("b")
	in := stdSchema()
	for _, tc := range []struct {
		e    E
		typ  Type
		text string
	}{
		{i.CumSum().Over(k), Int64, "cum_sum(i).over(k)"},
		{f.CumSum().OverOrdered([]E{k}, Desc(b)), Float64, "cum_sum(f).over(k, order_by=[b desc])"},
		{a.Sum().Over(), Int64, "sum(a).over()"},
		{f.CumSum().OverOrdered(nil, Desc(b)), Float64, "cum_sum(f).over(order_by=[b desc])"},
		{RowNumber().OverOrdered(nil, Asc(a)), Int64, "row_number().over(order_by=[a])"},
		{i.Cast(Int8).CumSum().Over(k), Int64, "cum_sum(cast(i, int8)).over(k)"},
		{i.Cast(Uint32).CumSum().Over(k), Int64, "cum_sum(cast(i, uint32)).over(k)"},
		{a.Cast(Uint64).CumSum().Over(k), Uint64, "cum_sum(cast(a, uint64)).over(k)"},
		{f.Cast(Float32).CumSum().Over(k), Float64, "cum_sum(cast(f, float32)).over(k)"},
		{s.CumCount().OverOrdered([]E{k}, SortKey{Expr: b.Expr(), NullsLast: true}, Asc(a)), Int64, "cum_count(s).over(k, order_by=[b nulls_last, a])"},
		{s.CumMin().Over(k), String, "cum_min(s).over(k)"},
		{i.CumMax().Over(k), Int32, "cum_max(i).over(k)"},
		{RowNumber().Over(k), Int64, "row_number().over(k)"},
		{f.Rank("min").Over(k), Int64, `rank(f, "min").over(k)`},
		{s.Shift(-2).Over(k), String, "shift(s, -2).over(k)"},
		{i.ShiftOr(1, Lit(int32(7))).Over(k), Int32, "shift(i, 1, int32(7)).over(k)"},
	} {
		fld, err := TypeOf(tc.e.Expr(), in)
		if err != nil {
			t.Errorf("%s: %v", tc.e, err)
			continue
		}
		if fld.Type != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.e, fld.Type, tc.typ)
		}
		if got := tc.e.String(); got != tc.text {
			t.Errorf("text %q, want %q", got, tc.text)
		}
	}
}
