package reference_test

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// The expression cases: each expected value is worked out by hand from
// docs/semantics.md (the NaN rule, -0.0, checked integer arithmetic,
// Kleene logic, if(), casts), never taken from an implementation.

var (
	col = plan.Col
	lit = plan.Lit
)

const (
	maxI64 = math.MaxInt64
	minI64 = math.MinInt64
)

var exprCases = register(func(t testing.TB) []tcase {
	nanT := table(t, "n",
		c("x", plan.Float64, bits(sNaN), f64(1), bits(sNaN), bits(negNaN)),
		c("y", plan.Float64, f64(1), bits(negNaN), bits(negNaN), bits(sNaN)))
	zeroT := table(t, "z", c("z", plan.Float64, f64(negZero), f64(0)))
	divT := table(t, "d",
		c("a", plan.Int64, i64(7), i64(-7), null(plan.Int64), i64(5), i64(minI64)),
		c("b", plan.Int64, i64(2), i64(2), i64(0), i64(-1), i64(1)))
	pair := func(a, b plan.Value) *plan.Table {
		return table(t, "p", c("a", a.Type(), a), c("b", b.Type(), b))
	}
	rows2 := func(a0, b0, a1, b1 plan.Value) *plan.Table {
		return table(t, "p", c("a", a0.Type(), a0, a1), c("b", b0.Type(), b0, b1))
	}
	kleene := table(t, "k",
		c("p", plan.Bool, bl(true), bl(true), bl(true), bl(false), bl(false), bl(false), null(plan.Bool), null(plan.Bool), null(plan.Bool)),
		c("q", plan.Bool, bl(true), bl(false), null(plan.Bool), bl(true), bl(false), null(plan.Bool), bl(true), bl(false), null(plan.Bool)))
	T, F, N := bl(true), bl(false), null(plan.Bool)
	cmpT := table(t, "c",
		c("a", plan.Int64, i64(1<<53+1), i64(1), null(plan.Int64), i64(0)),
		c("f", plan.Float64, f64(1<<53), f64(math.NaN()), f64(1), f64(negZero)),
		c("s", plan.String, str("B"), str("a"), str("é"), str("")),
		c("u", plan.String, str("a"), str("a"), str("z"), null(plan.String)))
	ifT := table(t, "i",
		c("a", plan.Int64, i64(4), i64(5), i64(6), i64(7)),
		c("b", plan.Int64, i64(2), i64(0), i64(3), i64(0)),
		c("p", plan.Bool, bl(true), bl(false), null(plan.Bool), bl(true)),
		c("x", plan.Int32, i32(1), i32(2), i32(3), i32(4)),
		c("z", plan.Int64, i64(0), i64(0), i64(0), i64(0)))
	strT := table(t, "s", c("s", plan.String, str("日本"), str("é"), str(""), null(plan.String)),
		c("f", plan.Float64, f64(math.NaN()), f64(1), null(plan.Float64), f64(inf)))
	one := table(t, "one", c("a", plan.Int64, i64(0)))
	sc := func(tab *plan.Table, exprs ...plan.E) plan.Node { return plan.Scan(tab).Select(exprs...).Node() }
	fnan := func(b uint64) plan.E { return lit(bits(b)) }
	return []tcase{
		{name: "nan: the left NaN operand wins, quieted", plan: sc(nanT,
			col("x").Add(col("y")), col("x").Sub(col("y")).Alias("s"), col("x").Mul(col("y")).Alias("m"),
			col("x").Div(col("y")).Alias("d")),
			want: [][]plan.Value{
				{bits(sNaNq), bits(negNaNq), bits(sNaNq), bits(negNaNq)},
				{bits(sNaNq), bits(negNaNq), bits(sNaNq), bits(negNaNq)},
				{bits(sNaNq), bits(negNaNq), bits(sNaNq), bits(negNaNq)},
				{bits(sNaNq), bits(negNaNq), bits(sNaNq), bits(negNaNq)},
			}},
		{name: "nan: a literal NaN operand follows the same rule", plan: sc(nanT,
			fnan(quietNaN).Add(col("x")), col("y").Mul(fnan(sNaN)).Alias("m")),
			want: [][]plan.Value{
				{bits(quietNaN), bits(quietNaN), bits(quietNaN), bits(quietNaN)},
				{bits(sNaNq), bits(negNaNq), bits(negNaNq), bits(sNaNq)},
			}},
		{name: "nan: made from non-NaN operands, the machine's NaN", plan: sc(table(t, "inf",
			c("i", plan.Float64, f64(inf), f64(0)), c("z", plan.Float64, f64(0), f64(0))),
			col("i").Sub(col("i")), col("z").Mul(lit(inf)).Alias("m"), col("z").Div(col("z")).Alias("d")),
			want: [][]plan.Value{
				{bits(machineNaN(infVar - infVar)), f64(0)},
				{bits(machineNaN(zeroVar * infVar)), bits(machineNaN(zeroVar * infVar))},
				{bits(machineNaN(zeroVar / zeroVar)), bits(machineNaN(zeroVar / zeroVar))},
			}},
		{name: "nan: mod is math.Mod", plan: sc(nanT, col("x").Mod(col("y")), col("y").Mod(lit(0.0)).Alias("m")),
			want: [][]plan.Value{
				{bits(goNaN), bits(goNaN), bits(goNaN), bits(goNaN)},
				{bits(goNaN), bits(goNaN), bits(goNaN), bits(goNaN)},
			}},
		{name: "nan: neg flips and abs clears the sign bit, payload kept", plan: sc(nanT, col("x").Neg(), col("y").Abs()),
			want: [][]plan.Value{
				{bits(sNaN | 1<<63), f64(-1), bits(sNaN | 1<<63), bits(negNaN &^ (1 << 63))},
				{f64(1), bits(negNaN &^ (1 << 63)), bits(negNaN &^ (1 << 63)), bits(sNaN)},
			}},
		{name: "-0.0 in arithmetic, negation, comparison and casts", plan: sc(zeroT,
			col("z").Add(col("z")), col("z").Mul(lit(-1.0)).Alias("m"), col("z").Neg().Alias("n"),
			col("z").Eq(lit(0.0)).Alias("e"), col("z").Cast(plan.String).Alias("s"), col("z").Abs().Alias("a")),
			want: [][]plan.Value{
				{f64(negZero), f64(0)}, {f64(0), f64(negZero)}, {f64(0), f64(negZero)},
				{T, T}, {str("-0.0"), str("0.0")}, {f64(0), f64(0)},
			}},
		{name: "integer division truncates, mod has the dividend's sign, nulls skip the check",
			plan: plan.Scan(divT).Slice(0, 4).Select(col("a").Div(col("b")), col("a").Mod(col("b")).Alias("m")).Node(),
			want: [][]plan.Value{
				{i64(3), i64(-3), null(plan.Int64), i64(-5)},
				{i64(1), i64(-1), null(plan.Int64), i64(0)},
			}},
		{name: "MinInt64 / -1 overflows", plan: sc(pair(i64(minI64), i64(-1)), col("a").Div(col("b"))),
			err: plan.Overflow, expr: "a / b"},
		{name: "MinInt64 % -1 overflows", plan: sc(pair(i64(minI64), i64(-1)), col("a").Mod(col("b"))),
			err: plan.Overflow, expr: "a % b"},
		{name: "int32 MinInt32 / -1 overflows in int32", plan: sc(pair(i32(math.MinInt32), i32(-1)), col("a").Div(col("b"))),
			err: plan.Overflow, expr: "a / b"},
		{name: "int32 addition is checked in int32", plan: sc(pair(i32(math.MaxInt32), i32(1)), col("a").Add(col("b"))),
			err: plan.Overflow, expr: "a + b"},
		{name: "int32 times int32 stays int32", plan: sc(pair(i32(math.MaxInt32), i64(1)), col("a").Add(col("b")), col("a").Mul(col("a")).Alias("sq"),
			col("b").Sub(col("a")).Alias("d")),
			err: plan.Overflow, expr: "a * a"},
		{name: "int32 with int64 gives int64", plan: sc(pair(i32(math.MaxInt32), i64(1)), col("a").Add(col("b")), col("b").Sub(col("a")).Alias("d")),
			want: [][]plan.Value{{i64(math.MaxInt32 + 1)}, {i64(1 - math.MaxInt32)}}},
		{name: "int64 with float64 rounds to the nearest float64", plan: sc(pair(i64(1<<53+1), f64(0)), col("a").Add(col("b"))),
			want: [][]plan.Value{{f64(1 << 53)}}},
		{name: "divide by zero wins over an earlier overflow", plan: sc(rows2(i64(minI64), i64(-1), i64(1), i64(0)), col("a").Div(col("b"))),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "divide by zero wins over a later overflow", plan: sc(rows2(i64(1), i64(0), i64(minI64), i64(-1)), col("a").Mod(col("b"))),
			err: plan.DivideByZero, expr: "a % b"},
		{name: "a null operand skips the check", plan: sc(pair(null(plan.Int64), i64(0)),
			col("a").Add(lit(int64(maxI64))), col("a").Div(col("b")).Alias("q"), col("b").Div(col("a")).Alias("r")),
			want: [][]plan.Value{{null(plan.Int64)}, {null(plan.Int64)}, {null(plan.Int64)}}},
		{name: "neg(MinInt64) overflows", plan: sc(pair(i64(minI64), i64(0)), col("a").Neg()),
			err: plan.Overflow, expr: "-a"},
		{name: "abs(MinInt32) overflows in int32", plan: sc(pair(i32(math.MinInt32), i64(0)), col("a").Abs()),
			err: plan.Overflow, expr: "abs(a)"},
		{name: "the innermost failing expression is named", plan: sc(rows2(i64(1), i64(0), i64(2), i64(1)), col("a").Div(col("b")).Gt(lit(1))),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "an operand raises even where another is null", plan: sc(rows2(null(plan.Int64), i64(0), i64(1), i64(1)),
			col("a").Add(lit(1)).Add(lit(int64(1)).Div(col("b")))),
			err: plan.DivideByZero, expr: "1 / b"},
		{name: "kleene and, or, not", plan: sc(kleene, col("p").And(col("q")), col("p").Or(col("q")).Alias("o"), col("p").Not().Alias("n")),
			want: [][]plan.Value{
				{T, F, N, F, F, F, N, F, N},
				{T, T, T, T, F, N, T, N, N},
				{F, F, F, T, T, T, N, N, N},
			}},
		{name: "comparisons: promoted numbers, IEEE floats, strings by bytes", plan: sc(cmpT,
			col("a").Eq(col("f")), col("f").Ne(col("f")).Alias("ne"), col("f").Lt(lit(2.0)).Alias("lt"),
			col("s").Lt(col("u")).Alias("slt"), col("a").Ge(col("f")).Alias("ge"), col("f").Eq(lit(0.0)).Alias("z")),
			want: [][]plan.Value{
				{T, F, N, T},
				{F, T, F, F},
				{F, F, T, T},
				{T, F, F, N},
				{T, F, N, T},
				{F, F, F, T},
			}},
		{name: "bool order: false < true", plan: sc(kleene, col("p").Lt(col("q"))),
			want: [][]plan.Value{{F, F, N, T, F, N, N, N, N}}},
		{name: "if: each branch evaluates only on its rows", plan: sc(ifT,
			plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(-1))),
			want: [][]plan.Value{{i64(2), i64(-1), i64(2), i64(-1)}}},
		{name: "if: a null condition takes the else branch", plan: sc(ifT, plan.If(col("p"), col("a"), col("b"))),
			want: [][]plan.Value{{i64(4), i64(0), i64(3), i64(7)}}},
		{name: "if: a branch raises from its own rows", plan: sc(ifT, plan.If(col("b").Eq(lit(0)), col("a").Div(col("b")), lit(0))),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "if: branches promote to their common type", plan: sc(ifT, plan.If(col("p"), col("x"), col("a"))),
			want: [][]plan.Value{{i64(1), i64(5), i64(6), i64(4)}}},
		{name: "if: the counter advances over the then rows, then the else rows", plan: sc(ifT,
			plan.If(col("p"), plan.CallUDF(udf(t, "nd_seq"), col("z")), plan.CallUDF(udf(t, "nd_seq"), col("z")).Mul(lit(-1)))),
			want: [][]plan.Value{{i64(0), i64(-2), i64(-3), i64(1)}}},
		{name: "coalesce: first non-null, promoted; all null gives null", plan: sc(table(t, "co",
			c("x", plan.Int32, null(plan.Int32), i32(2), null(plan.Int32)),
			c("a", plan.Int64, i64(10), i64(20), null(plan.Int64))), plan.Coalesce(col("x"), col("a"))),
			want: [][]plan.Value{{i64(10), i64(2), null(plan.Int64)}}},
		{name: "coalesce: every operand evaluates over all rows", plan: sc(ifT, plan.Coalesce(col("a"), col("a").Div(col("b")))),
			err: plan.DivideByZero, expr: "a / b"},
		{name: "strings and null tests", plan: sc(strT, col("s").StrLen(), plan.Concat(col("s"), lit("!")).Alias("c"),
			col("f").IsNaN().Alias("n"), col("s").IsNull().Alias("isn"), col("f").IsNotNull().Alias("nn")),
			want: [][]plan.Value{
				{i64(2), i64(1), i64(0), null(plan.Int64)},
				{str("日本!"), str("é!"), str("!"), null(plan.String)},
				{T, F, F, F},
				{F, F, F, T},
				{T, T, F, T},
			}},
		{name: "strict casts that succeed", plan: sc(one,
			lit(1.9).Cast(plan.Int64).Alias("c0"), lit(-1.9).Cast(plan.Int64).Alias("c1"),
			lit(-9223372036854775808.0).Cast(plan.Int64).Alias("c2"), lit(2147483647.9).Cast(plan.Int32).Alias("c3"),
			lit("+7").Cast(plan.Int64).Alias("c4"), lit("-2147483648").Cast(plan.Int32).Alias("c5"),
			lit("1.5").Cast(plan.Float64).Alias("c6"), lit("NaN").Cast(plan.Float64).Alias("c7"),
			lit("-0.0").Cast(plan.Float64).Alias("c8"), lit("Inf").Cast(plan.Float64).Alias("c9"),
			lit("true").Cast(plan.Bool).Alias("c10"), lit(negZero).Cast(plan.Bool).Alias("c11"),
			lit(math.NaN()).Cast(plan.Bool).Alias("c12"), lit(int64(2)).Cast(plan.Bool).Alias("c13"),
			lit(true).Cast(plan.Int32).Alias("c14"), lit(false).Cast(plan.Float64).Alias("c15"),
			lit(int32(-5)).Cast(plan.Int64).Alias("c16"), lit(int64(1<<53+1)).Cast(plan.Float64).Alias("c17"),
			lit(int32(5)).Cast(plan.String).Alias("c18"), lit(true).Cast(plan.String).Alias("c19"),
			lit("1e-400").Cast(plan.Float64).Alias("c20")),
			want: [][]plan.Value{{i64(1)}, {i64(-1)}, {i64(minI64)}, {i32(math.MaxInt32)}, {i64(7)}, {i32(math.MinInt32)},
				{f64(1.5)}, {bits(goNaN)}, {f64(negZero)}, {f64(inf)}, {T}, {F}, {T}, {T}, {i32(1)}, {f64(0)},
				{i64(-5)}, {f64(1 << 53)}, {str("5")}, {str("true")}, {f64(0)}}},
		{name: "floats cast to string", plan: sc(one,
			lit(1.0).Cast(plan.String).Alias("c0"), lit(0.1).Cast(plan.String).Alias("c1"), lit(1e6).Cast(plan.String).Alias("c2"),
			lit(123456.0).Cast(plan.String).Alias("c3"), lit(1e21).Cast(plan.String).Alias("c4"), lit(0.0001).Cast(plan.String).Alias("c5"),
			lit(1e-5).Cast(plan.String).Alias("c6"), lit(1.5e-7).Cast(plan.String).Alias("c7"), lit(5e-324).Cast(plan.String).Alias("c8"),
			lit(-2.5).Cast(plan.String).Alias("c9"), lit(math.NaN()).Cast(plan.String).Alias("c10"),
			lit(math.Inf(-1)).Cast(plan.String).Alias("c11"), lit(math.MaxFloat64).Cast(plan.String).Alias("c12"),
			lit(999999.9).Cast(plan.String).Alias("c13"), lit(100000.0).Cast(plan.String).Alias("c14"),
			lit(-1234567.0).Cast(plan.String).Alias("c15"), fnan(negNaN).Cast(plan.String).Alias("c16"),
			lit(0.00012).Cast(plan.String).Alias("c17")),
			want: [][]plan.Value{{str("1.0")}, {str("0.1")}, {str("1e+06")}, {str("123456.0")}, {str("1e+21")}, {str("0.0001")},
				{str("1e-05")}, {str("1.5e-07")}, {str("5e-324")}, {str("-2.5")}, {str("NaN")}, {str("-Inf")},
				{str("1.7976931348623157e+308")}, {str("999999.9")}, {str("100000.0")}, {str("-1.234567e+06")}, {str("NaN")},
				{str("0.00012")}}},
		{name: "non-strict casts yield null where the strict cast fails", plan: sc(one,
			lit(math.NaN()).TryCast(plan.Int64).Alias("c0"), lit(inf).TryCast(plan.Int32).Alias("c1"),
			lit(9223372036854775808.0).TryCast(plan.Int64).Alias("c2"), lit(2147483648.0).TryCast(plan.Int32).Alias("c3"),
			lit(" 1").TryCast(plan.Int64).Alias("c4"), lit("1_000").TryCast(plan.Int64).Alias("c5"),
			lit("9223372036854775808").TryCast(plan.Int64).Alias("c6"), lit("2147483648").TryCast(plan.Int32).Alias("c7"),
			lit("abc").TryCast(plan.Float64).Alias("c8"), lit("1e400").TryCast(plan.Float64).Alias("c9"),
			lit("TRUE").TryCast(plan.Bool).Alias("c10"), lit("1").TryCast(plan.Bool).Alias("c11"),
			lit(int64(3e9)).TryCast(plan.Int32).Alias("c12"), lit(1.5).TryCast(plan.String).Alias("c13")),
			want: [][]plan.Value{{null(plan.Int64)}, {null(plan.Int32)}, {null(plan.Int64)}, {null(plan.Int32)},
				{null(plan.Int64)}, {null(plan.Int64)}, {null(plan.Int64)}, {null(plan.Int32)}, {null(plan.Float64)},
				{null(plan.Float64)}, {null(plan.Bool)}, {null(plan.Bool)}, {null(plan.Int32)}, {str("1.5")}}},
		{name: "a strict cast fails with invalid_cast", plan: sc(one, lit(math.NaN()).Cast(plan.Int64)),
			err: plan.InvalidCast, expr: "cast(NaN, int64)"},
		{name: "a strict string cast fails on a partial number", plan: sc(one, lit(" 1").Cast(plan.Int32)),
			err: plan.InvalidCast, expr: `cast(" 1", int32)`},
		{name: "a UDF error names the call", plan: sc(pair(i64(1<<62), i64(0)), plan.CallUDF(udf(t, "checked_double"), col("a"))),
			err: plan.UDFError, expr: "checked_double(a)"},
		{name: "inc_wrap wraps", plan: sc(pair(i64(maxI64), i64(0)), plan.CallUDF(udf(t, "inc_wrap"), col("a"))),
			want: [][]plan.Value{{i64(minI64)}}},
	}
})

// infVar and zeroVar are variables, so that arithmetic on them happens at
// run time, on the machine, not in the compiler.
var infVar, zeroVar = math.Inf(1), 0.0

// machineNaN returns the bits of a NaN the machine's float operators made.
func machineNaN(f float64) uint64 { return math.Float64bits(f) }

// udf returns a built-in UDF.
func udf(t testing.TB, name string) *plan.UDF {
	u, ok := plan.BuiltinUDFs().Lookup(name)
	if !ok {
		t.Fatalf("no built-in UDF %q", name)
	}
	return u
}

func TestExpressions(t *testing.T) { runCases(t, exprCases(t)) }
