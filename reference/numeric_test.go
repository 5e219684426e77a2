package reference_test

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// The narrower and unsigned integers and float32 (docs/semantics.md,
// Numeric types): every expected value is worked out by hand from the
// promotion table, the checked arithmetic, the float32 rules and the cast
// table.

var (
	i8  = plan.Int8Value
	i16 = plan.Int16Value
	u8  = plan.Uint8Value
	u16 = plan.Uint16Value
	u32 = plan.Uint32Value
	u64 = plan.Uint64Value
	f32 = plan.Float32Value
)

func f32bits(b uint32) plan.Value { return plan.Float32Value(math.Float32frombits(b)) }

// Variables, so that Go computes these in float32 at run time rather than
// exactly as constants.
var (
	tenth32, fifth32 float32 = 0.1, 0.2
	big32            float32 = 3e38
)

var numericCases = register(func(t testing.TB) []tcase {
	sc := func(tab *plan.Table, exprs ...plan.E) plan.Node { return plan.Scan(tab).Select(exprs...).Node() }
	pair := func(a, b plan.Value) *plan.Table {
		return table(t, "p", c("a", a.Type(), a), c("b", b.Type(), b))
	}
	a, b := col("a"), col("b")
	return []tcase{
		{name: "int8 add at the edges", plan: sc(table(t, "p",
			c("a", plan.Int8, i8(100), i8(-100), null(plan.Int8)),
			c("b", plan.Int8, i8(27), i8(-28), i8(127))), a.Add(b)),
			want: [][]plan.Value{{i8(127), i8(-128), null(plan.Int8)}}},
		{name: "int8 add overflows in int8", plan: sc(pair(i8(100), i8(28)), a.Add(b)), err: plan.Overflow, expr: "a + b"},
		{name: "uint8 sub below zero overflows", plan: sc(pair(u8(3), u8(5)), a.Sub(b)), err: plan.Overflow, expr: "a - b"},
		{name: "uint32 mul overflows in uint32", plan: sc(pair(u32(4000000000), u32(2)), a.Mul(b)), err: plan.Overflow, expr: "a * b"},
		{name: "uint64 at its maximum", plan: sc(pair(u64(math.MaxUint64), u64(1)), a.Sub(b), a.Div(b).Alias("d"), a.Mod(lit(u64(10))).Alias("m")),
			want: [][]plan.Value{{u64(math.MaxUint64 - 1)}, {u64(math.MaxUint64)}, {u64(5)}}},
		{name: "uint64 add overflows", plan: sc(pair(u64(math.MaxUint64), u64(1)), a.Add(b)), err: plan.Overflow, expr: "a + b"},
		{name: "int8 with uint8 is int16", plan: sc(pair(i8(-128), u8(255)), a.Add(b), a.Sub(b).Alias("s"), a.Lt(b).Alias("lt")),
			want: [][]plan.Value{{i16(127)}, {i16(-383)}, {bl(true)}}},
		{name: "int16 with uint16 is int32, int8 with uint32 int64", plan: sc(table(t, "p",
			c("a", plan.Int16, i16(-32768)), c("b", plan.Uint16, u16(65535)), c("c", plan.Int8, i8(-1)), c("d", plan.Uint32, u32(math.MaxUint32))),
			a.Sub(b), col("c").Mul(col("d")).Alias("cd")),
			want: [][]plan.Value{{i32(-98303)}, {i64(-4294967295)}}},
		{name: "int8 MinInt / -1 overflows, and % -1 too", plan: sc(pair(i8(-128), i8(-1)), a.Div(b)), err: plan.Overflow, expr: "a / b"},
		{name: "int8 MinInt % -1 overflows", plan: sc(pair(i8(-128), i8(-1)), a.Mod(b)), err: plan.Overflow, expr: "a % b"},
		{name: "int8 division by zero wins over overflow", plan: sc(table(t, "p",
			c("a", plan.Int8, i8(-128), i8(1)), c("b", plan.Int8, i8(-1), i8(0))), a.Div(b)), err: plan.DivideByZero, expr: "a / b"},
		{name: "int8 neg and abs overflow at the minimum", plan: sc(pair(i8(-128), i8(0)), a.Abs()), err: plan.Overflow, expr: "abs(a)"},
		{name: "uint8 abs is the identity", plan: sc(pair(u8(200), u8(0)), a.Abs(), b.Abs().Alias("z")),
			want: [][]plan.Value{{u8(200)}, {u8(0)}}},
		{name: "float32 arithmetic rounds to float32", plan: sc(pair(f32(tenth32), f32(fifth32)), a.Add(b), a.Mul(b).Alias("m"), a.Div(b).Alias("d")),
			want: [][]plan.Value{{f32(tenth32 + fifth32)}, {f32(tenth32 * fifth32)}, {f32(tenth32 / fifth32)}}},
		{name: "float32 overflows to infinity, no error", plan: sc(pair(f32(big32), f32(big32)), a.Add(b)),
			want: [][]plan.Value{{f32(float32(math.Inf(1)))}}},
		{name: "float32 NaN: the left NaN operand, quieted", plan: sc(pair(f32bits(0x7f800abc), f32bits(0xffc00001)), a.Add(b), b.Sub(a).Alias("s")),
			want: [][]plan.Value{{f32bits(0x7fc00abc)}, {f32bits(0xffc00001)}}},
		{name: "float32 with int16 is float32, with int32 float64", plan: sc(table(t, "p",
			c("a", plan.Float32, f32(1.5)), c("b", plan.Int16, i16(2)), c("c", plan.Int32, i32(3))), a.Add(b), a.Add(col("c")).Alias("ac")),
			want: [][]plan.Value{{f32(3.5)}, {f64(4.5)}}},
		{name: "float32 neg flips the sign of -0.0 and NaN compares unequal", plan: sc(pair(f32(0), f32bits(0x7fc00000)), a.Neg(), b.Ne(b).Alias("ne"), b.IsNaN().Alias("n")),
			want: [][]plan.Value{{f32(float32(math.Copysign(0, -1)))}, {bl(true)}, {bl(true)}}},
		{name: "casts between numeric types", plan: sc(table(t, "p",
			c("a", plan.Int8, i8(-1)), c("u", plan.Uint64, u64(math.MaxUint64)), c("f", plan.Float64, f64(-0.5)), c("g", plan.Float64, f64(1e39)),
			c("s", plan.String, str("255")), c("h", plan.Float32, f32(tenth32))),
			a.TryCast(plan.Uint8), col("u").TryCast(plan.Int64).Alias("ui"), col("f").Cast(plan.Uint8).Alias("fu"),
			col("g").TryCast(plan.Float32).Alias("gf"), col("s").Cast(plan.Uint8).Alias("su"), col("h").Cast(plan.String).Alias("hs"),
			col("u").Cast(plan.String).Alias("us"), a.Cast(plan.Float32).Alias("af"), col("h").Cast(plan.Float64).Alias("hf"),
			a.Cast(plan.Int64).Alias("ai"), col("u").Cast(plan.Float32).Alias("uf")),
			want: [][]plan.Value{{null(plan.Uint8)}, {null(plan.Int64)}, {u8(0)}, {null(plan.Float32)}, {u8(255)}, {str("0.1")},
				{str("18446744073709551615")}, {f32(-1)}, {f64(float64(tenth32))}, {i64(-1)}, {f32(18446744073709551615.0)}}},
		{name: "strict cast of -1 to uint8 fails", plan: sc(pair(i8(-1), i8(0)), a.Cast(plan.Uint8)), err: plan.InvalidCast, expr: "cast(a, uint8)"},
		{name: "strict cast of 1e39 to float32 fails", plan: sc(pair(f64(1e39), f64(0)), a.Cast(plan.Float32)), err: plan.InvalidCast, expr: "cast(a, float32)"},
		{name: "strict cast of \"256\" to uint8 fails", plan: sc(pair(str("256"), str("")), a.Cast(plan.Uint8)), err: plan.InvalidCast, expr: "cast(a, uint8)"},
		{name: "sums: small integers to int64, float32 to float64", plan: plan.Scan(table(t, "p",
			c("a", plan.Int8, i8(127), i8(127), null(plan.Int8)), c("u", plan.Uint32, u32(math.MaxUint32), u32(math.MaxUint32), u32(1)),
			c("f", plan.Float32, f32(tenth32), null(plan.Float32), f32(fifth32)))).
			Agg(a.Sum(), col("u").Sum(), col("f").Sum(), a.Min().Alias("mn"), col("f").Max().Alias("mx")).Node(),
			want: [][]plan.Value{{i64(254)}, {i64(2*math.MaxUint32 + 1)}, {f64(float64(tenth32) + float64(fifth32))}, {i8(127)}, {f32(fifth32)}}},
		{name: "a uint64 sum overflows past 2^64 - 1", plan: plan.Scan(table(t, "p", c("a", plan.Uint64, u64(math.MaxUint64), u64(1)))).
			Agg(a.Sum()).Node(), err: plan.Overflow, expr: "sum(a)"},
		{name: "union promotes int8 and uint8 to int16", plan: plan.Scan(pair(i8(-5), u8(200))).Select(a.Alias("x")).
			Union(plan.Scan(pair(i8(-5), u8(200))).Select(b.Alias("x"))).Node(),
			want: [][]plan.Value{{i16(-5), i16(200)}}},
		{name: "group keys of float32: NaNs one key, -0.0 equal to 0.0", plan: plan.Scan(table(t, "p",
			c("a", plan.Float32, f32bits(0x7fc00000), f32(0), f32bits(0xffc00001), f32(float32(math.Copysign(0, -1)))),
			c("b", plan.Int64, i64(1), i64(2), i64(3), i64(4)))).GroupBy(a).Agg(b.Sum()).Node(),
			want: [][]plan.Value{{f32bits(0x7fc00000), f32(0)}, {i64(4), i64(6)}}},
	}
})

func TestNumericTypes(t *testing.T) { runCases(t, numericCases(t)) }
