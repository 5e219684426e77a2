package plan

import (
	"math"
	"testing"
)

func TestCanonicalText(t *testing.T) {
	a, b, cc, d := Col("a"), Col("b"), Col("c"), Col("d")
	p, q, r := Col("p"), Col("q"), Col("r")
	incWrap := builtinUDF(t, "inc_wrap")
	for _, tc := range []struct {
		e    E
		want string
	}{
		// columns
		{a, "a"}, {Col("_x1"), "_x1"}, {Col("A9_"), "A9_"},
		{Col("a b"), `col("a b")`}, {Col("1a"), `col("1a")`}, {Col(""), `col("")`},
		{Col("é"), `col("é")`}, {Col(`q"uote`), `col("q\"uote")`}, {Col("a-b"), `col("a-b")`},
		{Col("and"), `col("and")`}, {Col("or"), `col("or")`}, {Col("as"), `col("as")`},
		{Col("true"), `col("true")`}, {Col("false"), `col("false")`}, {Col("null"), `col("null")`},
		{Col("NaN"), `col("NaN")`}, {Col("Inf"), `col("Inf")`}, {Col("col"), `col("col")`},
		// literals of every type
		{Lit(5), "5"}, {Lit(int64(-5)), "-5"}, {Lit(int64(math.MaxInt64)), "9223372036854775807"},
		{Lit(int32(5)), "int32(5)"}, {Lit(int32(-5)), "int32(-5)"},
		{Lit(1.0), "1.0"}, {Lit(2.5), "2.5"}, {Lit(-2.5), "-2.5"}, {Lit(2.5e30), "2.5e+30"},
		{Lit(math.NaN()), "NaN"}, {Lit(math.Inf(1)), "Inf"}, {Lit(math.Inf(-1)), "-Inf"},
		{Lit(negZero), "-0.0"}, {Lit(0.0), "0.0"},
		{Lit("x"), `"x"`}, {Lit(""), `""`}, {Lit("a\"b\n"), `"a\"b\n"`}, {Lit("a"), `"a"`},
		{Lit(true), "true"}, {Lit(false), "false"},
		{Null(Int64), "null(int64)"}, {Null(Int32), "null(int32)"}, {Null(Float64), "null(float64)"},
		{Null(String), "null(string)"}, {Null(Bool), "null(bool)"},
		{Lit(Int32Value(7)), "int32(7)"}, {Lit(uint(1)), "invalid(uint 1)"}, {Lit(uint8(1)), "uint8(1)"}, {Lit(float32(0.1)), "float32(0.1)"},
		// arithmetic precedence and associativity
		{a.Add(b), "a + b"}, {a.Sub(b), "a - b"}, {a.Mul(b), "a * b"}, {a.Div(b), "a / b"}, {a.Mod(b), "a % b"},
		{a.Sub(b.Sub(cc)), "a - (b - c)"}, {a.Sub(b).Sub(cc), "a - b - c"},
		{a.Add(b).Mul(cc), "(a + b) * c"}, {a.Mul(b.Add(cc)), "a * (b + c)"},
		{a.Add(b.Mul(cc)), "a + b * c"}, {a.Mul(b).Add(cc), "a * b + c"},
		{a.Div(b).Mod(cc), "a / b % c"}, {a.Div(b.Mod(cc)), "a / (b % c)"},
		{a.Div(b.Div(cc)), "a / (b / c)"}, {a.Add(b.Add(cc)), "a + (b + c)"},
		// unary minus, negative literals and neg of a literal
		{a.Neg(), "-a"}, {Lit(5).Neg(), "-(5)"}, {Lit(-5).Neg(), "-(-5)"}, {Lit(2.5).Neg(), "-(2.5)"},
		{Lit(negZero).Neg(), "-(-0.0)"}, {Lit(int32(5)).Neg(), "-(int32(5))"},
		{a.Neg().Neg(), "-(-a)"}, {a.Add(b).Neg(), "-(a + b)"}, {a.Neg().Mul(b), "-a * b"},
		{a.Mul(b.Neg()), "a * -b"}, {a.Sub(Lit(-5)), "a - -5"}, {a.Sub(Lit(5).Neg()), "a - -(5)"},
		{Lit(-5).Mul(a), "-5 * a"}, {Lit(-5).Sub(a), "-5 - a"}, {Col("a b").Neg(), `-col("a b")`},
		{a.Abs(), "abs(a)"}, {a.Neg().Abs(), "abs(-a)"},
		// comparisons, also of comparisons
		{a.Eq(b), "a == b"}, {a.Ne(b), "a != b"}, {a.Lt(b), "a < b"}, {a.Le(b), "a <= b"},
		{a.Gt(Lit(1)), "a > 1"}, {a.Ge(b), "a >= b"},
		{a.Lt(b).Eq(cc.Lt(d)), "(a < b) == (c < d)"}, {a.Eq(b).Eq(cc), "(a == b) == c"},
		{a.Eq(b.Eq(cc)), "a == (b == c)"}, {a.Add(Lit(1)).Eq(b), "a + 1 == b"}, {a.Eq(b.Mul(cc)), "a == b * c"},
		{a.Div(b).Gt(Lit(1)), "a / b > 1"},
		// and / or nesting
		{p.And(q), "p and q"}, {p.Or(q), "p or q"},
		{p.And(q).Or(r), "p and q or r"}, {p.And(q.Or(r)), "p and (q or r)"},
		{p.Or(q.And(r)), "p or q and r"}, {p.Or(q).And(r), "(p or q) and r"},
		{p.And(q).And(r), "p and q and r"}, {p.And(q.And(r)), "p and (q and r)"},
		{p.Or(q).Or(r), "p or q or r"}, {p.Or(q.Or(r)), "p or (q or r)"},
		{a.Gt(Lit(1)).And(b.Lt(Lit(2))), "a > 1 and b < 2"},
		{p.And(q).Eq(r), "(p and q) == r"}, {p.Eq(q.Or(r)), "p == (q or r)"},
		{p.Not(), "not(p)"}, {a.Gt(Lit(1)).Not(), "not(a > 1)"}, {p.Not().And(q), "not(p) and q"},
		// predicates, strings, conditionals
		{a.IsNull(), "is_null(a)"}, {a.IsNotNull(), "is_not_null(a)"}, {Col("f").IsNaN(), "is_nan(f)"},
		{Col("s").StrLen(), "str_len(s)"}, {Concat(Col("s"), Lit("x"), Col("s")), `concat(s, "x", s)`},
		{If(p, a, b), "if(p, a, b)"}, {If(a.Gt(b), a.Add(Lit(1)), Null(Int64)), "if(a > b, a + 1, null(int64))"},
		{Coalesce(a, b, Lit(0)), "coalesce(a, b, 0)"},
		{Col("s").Lower(), "lower(s)"}, {Col("s").Like(Lit("a%")), `like(s, "a%")`},
		{Col("s").LikeEscape(Lit("a!%"), Lit("!")), `like(s, "a!%", "!")`},
		{Col("s").Substring(Lit(-2), Lit(1)), "substring(s, -2, 1)"}, {Col("s").StripChars(Lit("x")), `strip(s, "x")`},
		{a.IsIn(Int64Value(1), NullValue(Int64)), "is_in(a, [1, null(int64)])"}, {a.IsIn(), "is_in(a, [])"},
		{a.Between(Lit(1), b), "between(a, 1, b)"},
		{When(p, a, q, b, Lit(0)), "if(p, a, if(q, b, 0))"}, {When(p, a), "if(p, a)"},
		// alias
		{a.Add(Lit(1)).Alias("x"), "a + 1 as x"}, {a.Alias("x y"), `a as "x y"`}, {a.Alias("and"), `a as "and"`},
		{a.Alias("x").Alias("y"), "(a as x) as y"}, {a.Alias("x").Add(Lit(1)), "(a as x) + 1"},
		{p.Or(q).Alias("x"), "p or q as x"}, {p.Or(q.Alias("x")), "p or (q as x)"},
		{Wrap(&Call{Fn: FuncSum, Args: []Expr{a.Alias("x").Expr()}}), "sum(a as x)"},
		// cast
		{a.Cast(Int32), "cast(a, int32)"}, {a.TryCast(Int32), "cast(a, int32, strict=false)"},
		{a.Add(b).Cast(Float64), "cast(a + b, float64)"}, {a.Cast(String).Alias("s"), "cast(a, string) as s"},
		{a.Cast(Bool).Not(), "not(cast(a, bool))"}, {a.Cast(Int32).Add(Lit(1)), "cast(a, int32) + 1"},
		{Wrap(&Cast{Expr: a.Expr(), To: Type(99), Strict: true}), "cast(a, type(99))"},
		// aggregates and over
		{a.Sum(), "sum(a)"}, {a.Mean(), "mean(a)"}, {a.Min(), "min(a)"}, {a.Max(), "max(a)"},
		{a.Count(), "count(a)"}, {Len(), "len()"}, {a.First(), "first(a)"}, {a.Last(), "last(a)"},
		{a.Sum().Over(Col("k")), "sum(a).over(k)"}, {a.Sum().Over(Col("k"), Col("s")), "sum(a).over(k, s)"},
		{Len().Over(Col("k")), "len().over(k)"}, {a.Sum().Alias("x").Over(Col("k")), "(sum(a) as x).over(k)"},
		{a.Sum().Over(Col("k")).Add(Lit(1)), "sum(a).over(k) + 1"}, {a.Sum().Over(Col("k")).Alias("w"), "sum(a).over(k) as w"},
		{a.Add(b).Sum().Over(Col("k").Add(Lit(1))), "sum(a + b).over(k + 1)"}, {a.Sum().Over(), "sum(a).over()"},
		// udf
		{CallUDF(incWrap, a), "inc_wrap(a)"}, {CallUDF(incWrap, a, Lit(1)), "inc_wrap(a, 1)"},
		{CallUDF(nil, a), "udf(a)"}, {CallUDF(incWrap, a).Mul(Lit(2)), "inc_wrap(a) * 2"},
		// malformed calls still render (errors must be able to name them)
		{callE(FuncAdd, a), "add(a)"}, {callE(FuncAdd, a, b, cc), "add(a, b, c)"}, {callE(FuncNeg, a, b), "neg(a, b)"},
		{callE(FuncInvalid, a), "invalid(a)"}, {callE(Func(200), a), "invalid(a)"}, {callE(funcCount), "invalid()"},
		{Wrap(&Call{Fn: FuncAdd, Args: []Expr{a.Expr(), nil}}), "a + <nil>"},
	} {
		got := tc.e.Expr().String()
		if got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
		if tc.e.String() != got {
			t.Errorf("E.String() = %s differs from Expr.String() = %s", tc.e.String(), got)
		}
	}
}

func TestFuncTable(t *testing.T) {
	names := map[Func]string{FuncAdd: "add", FuncSub: "sub", FuncMul: "mul", FuncDiv: "div", FuncMod: "mod",
		FuncNeg: "neg", FuncAbs: "abs", FuncEq: "eq", FuncNe: "ne", FuncLt: "lt", FuncLe: "le", FuncGt: "gt",
		FuncGe: "ge", FuncAnd: "and", FuncOr: "or", FuncNot: "not", FuncIsNull: "is_null", FuncIsNotNull: "is_not_null",
		FuncIsNaN: "is_nan", FuncStrLen: "str_len", FuncConcat: "concat", FuncIf: "if", FuncCoalesce: "coalesce",
		FuncSum: "sum", FuncMean: "mean", FuncMin: "min", FuncMax: "max", FuncCount: "count", FuncLen: "len",
		FuncFirst: "first", FuncLast: "last", FuncNUnique: "n_unique",
		FuncMedian: "median", FuncQuantile: "quantile", FuncVar: "var", FuncStd: "std", FuncAny: "any", FuncAll: "all"}
	names[FuncYear], names[FuncMonth], names[FuncDay], names[FuncWeekday] = "year", "month", "day", "weekday"
	names[FuncHour], names[FuncMinute], names[FuncSecond] = "hour", "minute", "second"
	for f, name := range map[Func]string{FuncLower: "lower", FuncUpper: "upper", FuncStartsWith: "starts_with",
		FuncEndsWith: "ends_with", FuncContains: "contains", FuncLike: "like", FuncSubstring: "substring",
		FuncReplace: "replace", FuncReplaceAll: "replace_all", FuncStrip: "strip", FuncStrLenBytes: "str_len_bytes",
		FuncIsIn: "is_in", FuncBetween: "between", FuncListLen: "list.len", FuncListGet: "list.get",
		FuncListContains: "list.contains", FuncListSum: "list.sum", FuncListMin: "list.min", FuncListMax: "list.max",
		FuncStructField: "struct.field"} {
		names[f] = name
	}
	windows := map[Func]string{FuncCumSum: "cum_sum", FuncCumCount: "cum_count", FuncCumMin: "cum_min",
		FuncCumMax: "cum_max", FuncRowNumber: "row_number", FuncRank: "rank", FuncShift: "shift"}
	names[FuncArgMin], names[FuncArgMax] = "arg_min", "arg_max"
	names[FuncTruncate], names[FuncOffsetBy] = "truncate", "offset_by"
	for f, name := range windows {
		names[f] = name
	}
	if len(Funcs()) != len(names) {
		t.Fatalf("Funcs() lists %d functions, the test knows %d", len(Funcs()), len(names))
	}
	aggs := map[Func]bool{FuncSum: true, FuncMean: true, FuncMin: true, FuncMax: true, FuncCount: true, FuncLen: true, FuncFirst: true, FuncLast: true, FuncNUnique: true,
		FuncMedian: true, FuncQuantile: true, FuncVar: true, FuncStd: true, FuncAny: true, FuncAll: true, FuncArgMin: true, FuncArgMax: true}
	for _, f := range Funcs() {
		if f.String() != names[f] {
			t.Errorf("%d.String() = %q, want %q", f, f.String(), names[f])
		}
		if back, ok := ParseFunc(names[f]); !ok || back != f {
			t.Errorf("ParseFunc(%q) = %v, %v", names[f], back, ok)
		}
		if f.IsAggregate() != aggs[f] {
			t.Errorf("%s.IsAggregate() = %v", f, f.IsAggregate())
		}
		if _, w := windows[f]; f.IsWindow() != w {
			t.Errorf("%s.IsWindow() = %v", f, f.IsWindow())
		}
		if f.IsComparison() != (f >= FuncEq && f <= FuncGe) || f.IsArithmetic() != (f >= FuncAdd && f <= FuncMod) {
			t.Errorf("%s: comparison/arithmetic classification wrong", f)
		}
	}
	for _, tc := range []struct {
		f      Func
		lo, hi int
	}{{FuncAdd, 2, 2}, {FuncNeg, 1, 1}, {FuncConcat, 1, -1}, {FuncCoalesce, 1, -1}, {FuncIf, 3, 3}, {FuncLen, 0, 0},
		{FuncSum, 1, 1}, {FuncInvalid, 0, -1}, {Func(250), 0, -1}} {
		if lo, hi := tc.f.Arity(); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s.Arity() = %d, %d; want %d, %d", tc.f, lo, hi, tc.lo, tc.hi)
		}
	}
	for _, bad := range []string{"invalid", "", "ADD", "+", "over", "cast"} {
		if _, ok := ParseFunc(bad); ok {
			t.Errorf("ParseFunc(%q) succeeded", bad)
		}
	}
	if FuncInvalid.String() != "invalid" || Func(99).String() != "invalid" || Func(99).IsAggregate() {
		t.Error("invalid funcs are misreported")
	}
}

func TestExprChildrenAndWithChildren(t *testing.T) {
	a, b, k := Col("a").Expr(), Col("b").Expr(), Col("k").Expr()
	u := builtinUDF(t, "inc_wrap")
	for _, tc := range []struct {
		e        Expr
		children []Expr
		repl     []Expr
		want     string
	}{
		{&Column{Name: "a"}, nil, nil, "a"},
		{&Literal{Value: Int64Value(1)}, nil, nil, "1"},
		{&Alias{Expr: a, Name: "x"}, []Expr{a}, []Expr{b}, "b as x"},
		{&Call{Fn: FuncAdd, Args: []Expr{a, b}}, []Expr{a, b}, []Expr{b, a}, "b + a"},
		{&Cast{Expr: a, To: Int32}, []Expr{a}, []Expr{b}, "cast(b, int32, strict=false)"},
		{&Over{Agg: &Call{Fn: FuncSum, Args: []Expr{a}}, PartitionBy: []Expr{k}}, []Expr{&Call{Fn: FuncSum, Args: []Expr{a}}, k},
			[]Expr{&Call{Fn: FuncMax, Args: []Expr{b}}, a, b}, "max(b).over(a, b)"},
		{&UDFCall{UDF: u, Args: []Expr{a}}, []Expr{a}, []Expr{b}, "inc_wrap(b)"},
	} {
		before := tc.e.String()
		if !exprsEqual(tc.e.Children(), tc.children) {
			t.Errorf("%s: Children() = %v", before, tc.e.Children())
		}
		got := tc.e.WithChildren(tc.repl)
		if got.String() != tc.want {
			t.Errorf("%s: WithChildren = %s, want %s", before, got, tc.want)
		}
		if tc.e.String() != before {
			t.Errorf("WithChildren mutated %s into %s", before, tc.e)
		}
		if len(tc.repl) > 0 && got == tc.e {
			t.Errorf("%s: WithChildren returned the receiver", before)
		}
	}
	// Over.WithChildren copies the key slice.
	keys := []Expr{&Call{Fn: FuncSum, Args: []Expr{a}}, k}
	o := (&Over{}).WithChildren(keys).(*Over)
	keys[1] = b
	if o.PartitionBy[0] != k {
		t.Error("Over.WithChildren kept the caller's slice")
	}
}

func TestOutputName(t *testing.T) {
	for _, tc := range []struct {
		e    E
		want string
	}{
		{Col("a"), "a"}, {Col("a b"), "a b"}, {Col("a").Alias("x"), "x"}, {Lit(1), "literal"},
		{Lit(1).Add(Col("b")), "b"}, {Col("a").Add(Col("b")), "a"}, {Col("b").Add(Col("a")), "b"},
		{Lit(1).Add(Lit(2)), "literal"}, {Col("a").Cast(Int32), "a"}, {Col("a").Sum(), "a"},
		{Len(), "len"}, {Len().Alias("n"), "n"}, {Col("a").Sum().Over(Col("k")), "a"},
		// len() names its result even under over(): len().over(k) must not be named k.
		{Len().Over(Col("k")), "len"}, {Len().Over(Col("k")).Add(Col("a")), "len"},
		{Col("a").Add(Len().Over(Col("k"))), "a"},
		{Lit(1).Add(Col("a").Alias("x")), "x"}, {If(Col("p"), Lit(1), Col("b")), "p"},
		{If(Lit(true), Lit(1), Col("b")), "b"}, {Coalesce(Null(Int64), Col("z")), "z"},
		{CallUDF(nil, Lit(1), Col("u")), "u"}, {Concat(Lit("x")), "literal"},
		{Lit(1).Sum().Over(Col("k")), "k"},
	} {
		if got := OutputName(tc.e.Expr()); got != tc.want {
			t.Errorf("OutputName(%s) = %q, want %q", tc.e, got, tc.want)
		}
	}
	if got := OutputName(nil); got != "literal" {
		t.Errorf("OutputName(nil) = %q", got)
	}
}

func TestExprHelpers(t *testing.T) {
	e := Col("a").Add(Col("b")).Mul(Col("a")).Gt(Col("c").Sum().Over(Col("k"))).Alias("x").Expr()
	if got := Columns(e); len(got) != 4 || got[0] != "a" || got[1] != "b" || got[2] != "c" || got[3] != "k" {
		t.Errorf("Columns = %v", got)
	}
	if !ContainsOver(e) || ContainsOver(Col("a").Sum().Expr()) {
		t.Error("ContainsOver is wrong")
	}
	// Aggregates inside over() do not count as bare aggregates.
	if ContainsAggregate(e) || !ContainsAggregate(Col("a").Sum().Add(Lit(1)).Expr()) || !ContainsAggregate(Len().Expr()) {
		t.Error("ContainsAggregate is wrong")
	}
	if Unalias(e).String() != "(a + b) * a > sum(c).over(k)" || Unalias(Col("a").Alias("x").Alias("y").Expr()).String() != "a" {
		t.Error("Unalias is wrong")
	}
	if !IsDeterministic(e) || IsDeterministic(CallUDF(builtinUDF(t, "nd_seq"), Col("a")).Add(Lit(1)).Expr()) ||
		IsDeterministic(CallUDF(nil, Col("a")).Expr()) || !IsDeterministic(CallUDF(builtinUDF(t, "inc_wrap"), Col("a")).Expr()) {
		t.Error("IsDeterministic is wrong")
	}
	// Walk visits in evaluation order and honours a false return.
	var seen []string
	Walk(e, func(x Expr) bool {
		seen = append(seen, x.String())
		_, isOver := x.(*Over)
		return !isOver
	})
	want := []string{"(a + b) * a > sum(c).over(k) as x", "(a + b) * a > sum(c).over(k)", "(a + b) * a", "a + b", "a", "b", "a", "sum(c).over(k)"}
	if len(seen) != len(want) {
		t.Fatalf("Walk visited %q", seen)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("Walk step %d = %q, want %q", i, seen[i], want[i])
		}
	}
	// nil is harmless everywhere.
	Walk(nil, func(Expr) bool { t.Error("visited nil"); return true })
	if ContainsOver(nil) || ContainsAggregate(nil) || !IsDeterministic(nil) || len(Columns(nil)) != 0 {
		t.Error("helpers misbehave on nil")
	}
}

// TestCanonicalTextIsLinear: rendering visits each subexpression once. A
// chain of comparisons nested on the left, (((a == b) == b) == b) ...,
// would take 2^depth renders if an operand were rendered twice.
func TestCanonicalTextIsLinear(t *testing.T) {
	const depth = 20
	e := Col("a")
	for i := 0; i < depth; i++ {
		e = e.Eq(Col("b"))
	}
	x := e.Expr()
	if allocs := testing.AllocsPerRun(1, func() { _ = x.String() }); allocs > 20*depth {
		t.Errorf("rendering a %d-deep comparison chain made %.0f allocations: not linear", depth, allocs)
	}
}

// TestMirrored: a mirrored comparison gives the same answer with its
// operands swapped, for every comparison and every order of two values;
// other functions are unchanged.
func TestMirrored(t *testing.T) {
	cmp := func(f Func, a, b int) bool {
		switch f {
		case FuncEq:
			return a == b
		case FuncNe:
			return a != b
		case FuncLt:
			return a < b
		case FuncLe:
			return a <= b
		case FuncGt:
			return a > b
		case FuncGe:
			return a >= b
		}
		panic(f)
	}
	for _, f := range []Func{FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe} {
		if !f.Mirrored().IsComparison() {
			t.Errorf("%v mirrored is %v, not a comparison", f, f.Mirrored())
		}
		for _, ab := range [][2]int{{1, 2}, {2, 1}, {2, 2}} {
			if cmp(f, ab[0], ab[1]) != cmp(f.Mirrored(), ab[1], ab[0]) {
				t.Errorf("%v on %v differs from %v on the swapped operands", f, ab, f.Mirrored())
			}
		}
	}
	if FuncAdd.Mirrored() != FuncAdd {
		t.Errorf("add mirrored is %v", FuncAdd.Mirrored())
	}
}
