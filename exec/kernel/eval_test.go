package kernel

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// wantErr is an expected evaluation error.
type wantErr struct {
	kind plan.ErrorKind
	expr string
	row  int64
}

// evalCase is one row of the table: an expression over columns, and either
// the values or the error it must produce.
type evalCase struct {
	name   string
	cols   []column
	expr   plan.E
	offset int64
	want   []plan.Value
	err    *wantErr
}

const (
	minI64 = math.MinInt64
	maxI64 = math.MaxInt64
	minI32 = math.MinInt32
	maxI32 = math.MaxInt32
)

var (
	inf    = math.Inf(1)
	ninf   = math.Inf(-1)
	negZer = math.Copysign(0, -1)
)

func i64s(vs ...any) []plan.Value  { return vals(plan.Int64, vs) }
func i32s(vs ...any) []plan.Value  { return vals(plan.Int32, vs) }
func f64s(vs ...any) []plan.Value  { return vals(plan.Float64, vs) }
func strs(vs ...any) []plan.Value  { return vals(plan.String, vs) }
func bools(vs ...any) []plan.Value { return vals(plan.Bool, vs) }

// vals converts Go values (nil for null) to plan values of type t.
func vals(t plan.Type, vs []any) []plan.Value {
	out := make([]plan.Value, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = null(t)
			continue
		}
		switch t {
		case plan.Int64:
			out[i] = i64(int64(v.(int)))
		case plan.Int32:
			out[i] = i32(int32(v.(int)))
		case plan.Float64:
			switch v := v.(type) {
			case int:
				out[i] = f64(float64(v))
			default:
				out[i] = f64(v.(float64))
			}
		case plan.String:
			out[i] = str(v.(string))
		case plan.Bool:
			out[i] = bl(v.(bool))
		}
	}
	return out
}

var (
	T = true
	F = false
)

func TestEvalTable(t *testing.T) {
	udfs := plan.BuiltinUDFs()
	incWrap, _ := udfs.Lookup("inc_wrap")
	checkedDouble, _ := udfs.Lookup("checked_double")
	ndSeq, _ := udfs.Lookup("nd_seq")
	panicky := &plan.UDF{Name: "boom", Params: []plan.Type{plan.Int64}, Result: plan.Int64,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			if !args[0].IsNull() && args[0].Int() == 2 {
				panic("kaboom")
			}
			return args[0], nil
		}}
	wrongType := &plan.UDF{Name: "liar", Params: []plan.Type{plan.Int64}, Result: plan.Int64,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			return plan.StringValue("x"), nil
		}}

	shout := &plan.UDF{Name: "shout", Params: []plan.Type{plan.String, plan.Int32}, Result: plan.String,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			if args[0].IsNull() || args[1].IsNull() {
				return plan.Value{}, nil // an untyped null is accepted as the declared type's null
			}
			return plan.StringValue(args[0].Str() + strings.Repeat("!", int(args[1].Int()))), nil
		}}
	half := &plan.UDF{Name: "half", Params: []plan.Type{plan.Int64}, Result: plan.Float64,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			if args[0].IsNull() {
				return plan.NullValue(plan.Float64), nil
			}
			return plan.Float64Value(float64(args[0].Int()) / 2), nil
		}}
	odd := &plan.UDF{Name: "odd", Params: []plan.Type{plan.Int32}, Result: plan.Bool,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			return plan.BoolValue(args[0].Int()%2 != 0), nil
		}}
	i32id := &plan.UDF{Name: "i32id", Params: []plan.Type{plan.Float64, plan.Bool}, Result: plan.Int32,
		Fn: func(_ context.Context, args []plan.Value) (plan.Value, error) {
			if args[1].IsNull() || !args[1].Bool() {
				return plan.NullValue(plan.Int32), nil
			}
			return plan.Int32Value(int32(args[0].Float())), nil
		}}

	cases := []evalCase{
		// col, lit, alias
		{name: "col passes float bits", cols: []column{colOf("f", plan.Float64, f64(nanPayload), f64(negZer), f64(inf), f64(ninf), null(plan.Float64), f64(negNaN))},
			expr: col("f"), want: []plan.Value{f64(nanPayload), f64(negZer), f64(inf), f64(ninf), null(plan.Float64), f64(negNaN)}},
		{name: "lit broadcast", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3)...)}, expr: lit(5), want: i64s(5, 5, 5)},
		{name: "typed null lit", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: plan.Null(plan.String), want: strs(nil, nil)},
		{name: "lit NaN payload", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: lit(nanPayload), want: f64s(nanPayload, nanPayload)},
		{name: "lit -0.0", cols: []column{colOf("a", plan.Int64, i64s(1)...)}, expr: lit(negZer), want: f64s(negZer)},
		{name: "lit over empty batch", cols: []column{colOf("a", plan.Int64)}, expr: lit("x"), want: strs()},
		{name: "lit int32", cols: []column{colOf("a", plan.Int64, i64s(1)...)}, expr: lit(int32(minI32)), want: i32s(minI32)},
		{name: "alias", cols: []column{colOf("a", plan.Int64, i64s(1, nil)...)}, expr: col("a").Alias("x"), want: i64s(1, nil)},
		{name: "all-null column", cols: []column{colOf("a", plan.Int64, i64s(nil, nil)...)}, expr: col("a").Add(lit(1)), want: i64s(nil, nil)},

		// add
		{name: "add nulls skip overflow", cols: []column{colOf("a", plan.Int64, i64s(1, nil, maxI64)...), colOf("b", plan.Int64, i64s(2, maxI64, nil)...)},
			expr: col("a").Add(col("b")), want: i64s(3, nil, nil)},
		{name: "add overflow", cols: []column{colOf("a", plan.Int64, i64s(1, maxI64)...), colOf("b", plan.Int64, i64s(1, 1)...)},
			expr: col("a").Add(col("b")), err: &wantErr{plan.Overflow, "a + b", 1}},
		{name: "add overflow offset", cols: []column{colOf("a", plan.Int64, i64s(1, maxI64)...), colOf("b", plan.Int64, i64s(1, 1)...)},
			expr: col("a").Add(col("b")), offset: 100, err: &wantErr{plan.Overflow, "a + b", 101}},
		{name: "add negative overflow", cols: []column{colOf("a", plan.Int64, i64s(minI64)...)},
			expr: col("a").Add(lit(-1)), err: &wantErr{plan.Overflow, "a + -1", 0}},
		{name: "add scalar right", cols: []column{colOf("a", plan.Int64, i64s(maxI64-1, nil, maxI64)...)},
			expr: col("a").Add(lit(1)), err: &wantErr{plan.Overflow, "a + 1", 2}},
		{name: "add scalar left", cols: []column{colOf("a", plan.Int64, i64s(-5, minI64)...)},
			expr: lit(-1).Add(col("a")), err: &wantErr{plan.Overflow, "-1 + a", 1}},
		{name: "add scalar ok", cols: []column{colOf("a", plan.Int64, i64s(-5, nil, maxI64-1)...)},
			expr: lit(1).Add(col("a")), want: i64s(-4, nil, maxI64)},
		{name: "add null scalar", cols: []column{colOf("a", plan.Int64, i64s(maxI64, 1)...)},
			expr: col("a").Add(plan.Null(plan.Int64)), want: i64s(nil, nil)},
		{name: "add int32 checked in int32", cols: []column{colOf("x", plan.Int32, i32s(1, maxI32)...), colOf("y", plan.Int32, i32s(1, 1)...)},
			expr: col("x").Add(col("y")), err: &wantErr{plan.Overflow, "x + y", 1}},
		{name: "add int32 ok", cols: []column{colOf("x", plan.Int32, i32s(1, minI32, nil)...), colOf("y", plan.Int32, i32s(-1, 0, 1)...)},
			expr: col("x").Add(col("y")), want: i32s(0, minI32, nil)},
		{name: "add int32+int64 promotes", cols: []column{colOf("x", plan.Int32, i32s(maxI32, nil)...), colOf("a", plan.Int64, i64s(1, 1)...)},
			expr: col("x").Add(col("a")), want: i64s(int(maxI32)+1, nil)},
		{name: "add int32 lit", cols: []column{colOf("x", plan.Int32, i32s(maxI32)...)},
			expr: col("x").Add(lit(int32(1))), err: &wantErr{plan.Overflow, "x + int32(1)", 0}},
		{name: "add lit lit overflow", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3)...)},
			expr: lit(maxI64).Add(lit(1)), offset: 7, err: &wantErr{plan.Overflow, "9223372036854775807 + 1", 7}},
		{name: "add lit lit over no rows", cols: []column{colOf("a", plan.Int64)},
			expr: lit(maxI64).Add(lit(1)), want: i64s()},
		{name: "add float specials", cols: []column{colOf("f", plan.Float64, f64s(1.5, inf, negZer, negZer, nil)...), colOf("g", plan.Float64, f64s(1, 1, negZer, 0.0, 1)...)},
			expr: col("f").Add(col("g")), want: f64s(2.5, inf, negZer, 0.0, nil)},
		{name: "add int64+float64 rounds", cols: []column{colOf("a", plan.Int64, i64s(1<<53+1, maxI64)...), colOf("f", plan.Float64, f64s(0.0, 0.0)...)},
			expr: col("a").Add(col("f")), want: f64s(float64(1<<53), 9223372036854775808.0)},
		{name: "add float huge no error", cols: []column{colOf("f", plan.Float64, f64s(1e308)...)},
			expr: col("f").Add(col("f")), want: f64s(inf)},

		{name: "NaN*NaN left operand wins (scalar left)", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, 1.0)...)},
			expr: lit(negNaN).Mul(col("f")), want: f64s(negNaN, negNaN)},
		{name: "NaN*NaN left operand wins (scalar right)", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, 1.0)...)},
			expr: col("f").Mul(lit(negNaN)), want: f64s(nanPayload, negNaN)},
		{name: "NaN+NaN left operand wins (arrays)", cols: []column{colOf("f", plan.Float64, f64s(nanPayload)...), colOf("g", plan.Float64, f64s(negNaN)...)},
			expr: col("g").Add(col("f")), want: f64s(negNaN)},
		{name: "signalling NaN is quieted", cols: []column{colOf("f", plan.Float64, f64s(math.Float64frombits(0x7ff0_0000_0000_0001))...)},
			expr: col("f").Sub(lit(1.0)), want: f64s(math.Float64frombits(0x7ff8_0000_0000_0001))},
		{name: "NaN payload through division", cols: []column{colOf("f", plan.Float64, f64s(2.0)...)},
			expr: col("f").Div(lit(negNaN)), want: f64s(negNaN)},

		// sub
		{name: "sub overflow min-1", cols: []column{colOf("a", plan.Int64, i64s(0, minI64)...)},
			expr: col("a").Sub(lit(1)), err: &wantErr{plan.Overflow, "a - 1", 1}},
		{name: "sub 0-min", cols: []column{colOf("a", plan.Int64, i64s(-1, minI64)...)},
			expr: lit(0).Sub(col("a")), err: &wantErr{plan.Overflow, "0 - a", 1}},
		{name: "sub minus MinInt scalar", cols: []column{colOf("a", plan.Int64, i64s(-1, 0)...)},
			expr: col("a").Sub(lit(minI64)), err: &wantErr{plan.Overflow, "a - -9223372036854775808", 1}},
		{name: "sub ok", cols: []column{colOf("a", plan.Int64, i64s(-1, 5, nil)...), colOf("b", plan.Int64, i64s(maxI64, 7, 1)...)},
			expr: col("a").Sub(col("b")), want: i64s(minI64, -2, nil)},
		{name: "sub int32", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)},
			expr: col("x").Sub(lit(int32(1))), err: &wantErr{plan.Overflow, "x - int32(1)", 0}},
		{name: "sub float", cols: []column{colOf("f", plan.Float64, f64s(0.0, inf)...)},
			expr: lit(0.0).Sub(col("f")), want: f64s(0.0, ninf)},

		// mul
		{name: "mul ok", cols: []column{colOf("a", plan.Int64, i64s(3037000499, -(1<<32), 0, nil)...), colOf("b", plan.Int64, i64s(3037000499, 1<<31, minI64, 2)...)},
			expr: col("a").Mul(col("b")), want: i64s(9223372030926249001, minI64, 0, nil)},
		{name: "mul overflow 2^63", cols: []column{colOf("a", plan.Int64, i64s(1<<32)...), colOf("b", plan.Int64, i64s(1<<31)...)},
			expr: col("a").Mul(col("b")), err: &wantErr{plan.Overflow, "a * b", 0}},
		{name: "mul min*-1", cols: []column{colOf("a", plan.Int64, i64s(1, minI64)...)},
			expr: col("a").Mul(lit(-1)), err: &wantErr{plan.Overflow, "a * -1", 1}},
		{name: "mul -1*min", cols: []column{colOf("a", plan.Int64, i64s(1, minI64)...)},
			expr: lit(-1).Mul(col("a")), err: &wantErr{plan.Overflow, "-1 * a", 1}},
		{name: "mul max*2", cols: []column{colOf("a", plan.Int64, i64s(maxI64)...), colOf("b", plan.Int64, i64s(2)...)},
			expr: col("a").Mul(col("b")), err: &wantErr{plan.Overflow, "a * b", 0}},
		{name: "mul int32 overflow", cols: []column{colOf("x", plan.Int32, i32s(-65536, 65536)...), colOf("y", plan.Int32, i32s(32768, 32768)...)},
			expr: col("x").Mul(col("y")), err: &wantErr{plan.Overflow, "x * y", 1}},
		{name: "mul int32 min ok", cols: []column{colOf("x", plan.Int32, i32s(-65536)...), colOf("y", plan.Int32, i32s(32768)...)},
			expr: col("x").Mul(col("y")), want: i32s(minI32)},
		{name: "mul float -0", cols: []column{colOf("f", plan.Float64, f64s(negZer, 2.0, inf)...)},
			expr: col("f").Mul(lit(1.0)), want: f64s(negZer, 2.0, inf)},

		// div
		{name: "div truncates", cols: []column{colOf("a", plan.Int64, i64s(7, -7, 7, -7)...), colOf("b", plan.Int64, i64s(2, 2, -2, -2)...)},
			expr: col("a").Div(col("b")), want: i64s(3, -3, -3, 3)},
		{name: "div by zero", cols: []column{colOf("a", plan.Int64, i64s(1, 1)...), colOf("b", plan.Int64, i64s(1, 0)...)},
			expr: col("a").Div(col("b")), err: &wantErr{plan.DivideByZero, "a / b", 1}},
		{name: "div min/-1", cols: []column{colOf("a", plan.Int64, i64s(minI64)...), colOf("b", plan.Int64, i64s(-1)...)},
			expr: col("a").Div(col("b")), err: &wantErr{plan.Overflow, "a / b", 0}},
		{name: "div first failing row wins", cols: []column{colOf("a", plan.Int64, i64s(minI64, 1, minI64)...), colOf("b", plan.Int64, i64s(1, 0, -1)...)},
			expr: col("a").Div(col("b")), err: &wantErr{plan.DivideByZero, "a / b", 1}},
		{name: "div null/0 is null", cols: []column{colOf("a", plan.Int64, i64s(nil, 4)...), colOf("b", plan.Int64, i64s(0, nil)...)},
			expr: col("a").Div(col("b")), want: i64s(nil, nil)},
		{name: "div by zero scalar", cols: []column{colOf("a", plan.Int64, i64s(nil, 5)...)},
			expr: col("a").Div(lit(0)), err: &wantErr{plan.DivideByZero, "a / 0", 1}},
		{name: "div by zero scalar all null", cols: []column{colOf("a", plan.Int64, i64s(nil, nil)...)},
			expr: col("a").Div(lit(0)), want: i64s(nil, nil)},
		{name: "div by -1 scalar", cols: []column{colOf("a", plan.Int64, i64s(5, minI64)...)},
			expr: col("a").Div(lit(-1)), err: &wantErr{plan.Overflow, "a / -1", 1}},
		{name: "div by -1 scalar ok", cols: []column{colOf("a", plan.Int64, i64s(5, maxI64, nil)...)},
			expr: col("a").Div(lit(-1)), want: i64s(-5, -maxI64, nil)},
		{name: "div scalar dividend", cols: []column{colOf("b", plan.Int64, i64s(3, -1, 7)...)},
			expr: lit(minI64).Div(col("b")), err: &wantErr{plan.Overflow, "-9223372036854775808 / b", 1}},
		// The rows as a set decide: a later division by zero wins over an
		// earlier overflow (docs/semantics.md).
		{name: "div: zero wins over an earlier overflow", cols: []column{colOf("b", plan.Int64, i64s(3, -1, 0)...)},
			expr: lit(minI64).Div(col("b")), err: &wantErr{plan.DivideByZero, "-9223372036854775808 / b", 2}},
		{name: "mod: zero wins over an earlier overflow", cols: []column{colOf("a", plan.Int64, i64s(minI64, 4, 5, 6)...), colOf("b", plan.Int64, i64s(-1, 1, nil, 0)...)},
			expr: col("a").Mod(col("b")), err: &wantErr{plan.DivideByZero, "a % b", 3}},
		{name: "mod: a null dividend skips its zero", cols: []column{colOf("a", plan.Int64, i64s(minI64, nil)...), colOf("b", plan.Int64, i64s(-1, 0)...)},
			expr: col("a").Mod(col("b")), err: &wantErr{plan.Overflow, "a % b", 0}},
		{name: "div int32 min/-1", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)},
			expr: col("x").Div(lit(int32(-1))), err: &wantErr{plan.Overflow, "x / int32(-1)", 0}},
		{name: "div int32 by int64 promotes", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)},
			expr: col("x").Div(lit(-1)), want: i64s(-int(minI32))},
		{name: "div float IEEE", cols: []column{colOf("f", plan.Float64, f64s(1.0, -1.0, 1.0, 6.0)...), colOf("g", plan.Float64, f64s(0.0, 0.0, negZer, 4.0)...)},
			expr: col("f").Div(col("g")), want: f64s(inf, ninf, ninf, 1.5)},
		{name: "div float 0/0 NaN", cols: []column{colOf("f", plan.Float64, f64s(0.0)...)},
			expr: col("f").Div(lit(0.0)).IsNaN(), want: bools(T)},
		{name: "div int by float", cols: []column{colOf("a", plan.Int64, i64s(1, 0)...)},
			expr: col("a").Div(lit(0.0)).IsNaN(), want: bools(F, T)},

		// mod
		{name: "mod sign of dividend", cols: []column{colOf("a", plan.Int64, i64s(7, -7, 7, -7)...), colOf("b", plan.Int64, i64s(3, 3, -3, -3)...)},
			expr: col("a").Mod(col("b")), want: i64s(1, -1, 1, -1)},
		{name: "mod min%-1", cols: []column{colOf("a", plan.Int64, i64s(3, minI64)...), colOf("b", plan.Int64, i64s(-1, -1)...)},
			expr: col("a").Mod(col("b")), err: &wantErr{plan.Overflow, "a % b", 1}},
		{name: "mod scalar -1", cols: []column{colOf("a", plan.Int64, i64s(3, minI64)...)},
			expr: col("a").Mod(lit(-1)), err: &wantErr{plan.Overflow, "a % -1", 1}},
		{name: "mod by zero", cols: []column{colOf("a", plan.Int64, i64s(3)...)},
			expr: col("a").Mod(lit(0)), err: &wantErr{plan.DivideByZero, "a % 0", 0}},
		{name: "mod int32", cols: []column{colOf("x", plan.Int32, i32s(minI32, 5)...), colOf("y", plan.Int32, i32s(-1, 3)...)},
			expr: col("x").Mod(col("y")), err: &wantErr{plan.Overflow, "x % y", 0}},
		{name: "mod float", cols: []column{colOf("f", plan.Float64, f64s(5.5, -5.5, 5.0, nil)...), colOf("g", plan.Float64, f64s(2.0, 2.0, inf, 0.0)...)},
			expr: col("f").Mod(col("g")), want: f64s(1.5, -1.5, 5.0, nil)},
		{name: "mod float by 0", cols: []column{colOf("f", plan.Float64, f64s(5.5)...)},
			expr: col("f").Mod(lit(0.0)).IsNaN(), want: bools(T)},

		// neg, abs
		{name: "neg int64", cols: []column{colOf("a", plan.Int64, i64s(1, nil, minI64+1, 0)...)},
			expr: col("a").Neg(), want: i64s(-1, nil, maxI64, 0)},
		{name: "neg min", cols: []column{colOf("a", plan.Int64, i64s(1, minI64)...)},
			expr: col("a").Neg(), err: &wantErr{plan.Overflow, "-a", 1}},
		{name: "abs min", cols: []column{colOf("a", plan.Int64, i64s(minI64)...)},
			expr: col("a").Abs(), err: &wantErr{plan.Overflow, "abs(a)", 0}},
		{name: "abs int64", cols: []column{colOf("a", plan.Int64, i64s(-5, 5, nil, minI64+1, 0)...)},
			expr: col("a").Abs(), want: i64s(5, 5, nil, maxI64, 0)},
		{name: "neg int32 min", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)},
			expr: col("x").Neg(), err: &wantErr{plan.Overflow, "-x", 0}},
		{name: "abs int32", cols: []column{colOf("x", plan.Int32, i32s(minI32+1, -1)...)},
			expr: col("x").Abs(), want: i32s(maxI32, 1)},
		{name: "neg float bits", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, negZer, 0.0, inf, nil)...)},
			expr: col("f").Neg(), want: f64s(negNaN, 0.0, negZer, ninf, nil)},
		{name: "abs float bits", cols: []column{colOf("f", plan.Float64, f64s(negNaN, negZer, ninf, -2.5)...)},
			expr: col("f").Abs(), want: f64s(nanPayload, 0.0, inf, 2.5)},
		{name: "neg lit", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)},
			expr: lit(minI64).Neg(), offset: 3, err: &wantErr{plan.Overflow, "-(-9223372036854775808)", 3}},

		// comparisons
		{name: "lt scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Lt(lit(2)), want: bools(T, F, F, nil)},
		{name: "le scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Le(lit(2)), want: bools(T, T, F, nil)},
		{name: "gt scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Gt(lit(2)), want: bools(F, F, T, nil)},
		{name: "ge scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Ge(lit(2)), want: bools(F, T, T, nil)},
		{name: "eq scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Eq(lit(2)), want: bools(F, T, F, nil)},
		{name: "ne scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: col("a").Ne(lit(2)), want: bools(T, F, T, nil)},
		{name: "scalar lt col flips", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, expr: lit(2).Lt(col("a")), want: bools(F, F, T, nil)},
		{name: "scalar ge col flips", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3)...)}, expr: lit(2).Ge(col("a")), want: bools(T, T, F)},
		{name: "cmp null scalar", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: col("a").Eq(plan.Null(plan.Int64)), want: bools(nil, nil)},
		{name: "cmp extremes", cols: []column{colOf("a", plan.Int64, i64s(minI64, maxI64, 0, -1)...), colOf("b", plan.Int64, i64s(maxI64, minI64, -1, 0)...)},
			expr: col("a").Lt(col("b")), want: bools(T, F, F, T)},
		{name: "float eq IEEE", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, negZer, 1.0, ninf, nil)...), colOf("g", plan.Float64, f64s(nanPayload, 0.0, nanPayload, inf, 1.0)...)},
			expr: col("f").Eq(col("g")), want: bools(F, T, F, F, nil)},
		{name: "float ne IEEE", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, negZer, 1.0)...), colOf("g", plan.Float64, f64s(nanPayload, 0.0, nanPayload)...)},
			expr: col("f").Ne(col("g")), want: bools(T, F, T)},
		{name: "float lt NaN", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, 1.0, ninf)...), colOf("g", plan.Float64, f64s(1.0, nanPayload, inf)...)},
			expr: col("f").Lt(col("g")), want: bools(F, F, T)},
		{name: "float ge NaN", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, 1.0, negZer)...), colOf("g", plan.Float64, f64s(1.0, nanPayload, 0.0)...)},
			expr: col("f").Ge(col("g")), want: bools(F, F, T)},
		{name: "int32 vs int64", cols: []column{colOf("x", plan.Int32, i32s(minI32, 5)...), colOf("a", plan.Int64, i64s(int(minI32)-1, 5)...)},
			expr: col("x").Gt(col("a")), want: bools(T, F)},
		{name: "int64 vs float promotes", cols: []column{colOf("a", plan.Int64, i64s(1<<53+1, 3)...), colOf("f", plan.Float64, f64s(float64(1<<53), nanPayload)...)},
			expr: col("a").Eq(col("f")), want: bools(T, F)},
		{name: "string by bytes", cols: []column{colOf("s", plan.String, strs("B", "é", "", "abc", nil)...), colOf("t", plan.String, strs("a", "z", "a", "abc", "x")...)},
			expr: col("s").Lt(col("t")), want: bools(T, F, T, F, nil)},
		{name: "string eq scalar", cols: []column{colOf("s", plan.String, strs("", "a", nil)...)},
			expr: col("s").Eq(lit("")), want: bools(T, F, nil)},
		{name: "string ge scalar left", cols: []column{colOf("s", plan.String, strs("a", "b", "c")...)},
			expr: lit("b").Ge(col("s")), want: bools(T, T, F)},
		{name: "bool order", cols: []column{colOf("p", plan.Bool, bools(F, F, T, T, nil)...), colOf("q", plan.Bool, bools(F, T, F, T, T)...)},
			expr: col("p").Lt(col("q")), want: bools(F, T, F, F, nil)},
		{name: "bool ge", cols: []column{colOf("p", plan.Bool, bools(F, F, T, T)...), colOf("q", plan.Bool, bools(F, T, F, T)...)},
			expr: col("p").Ge(col("q")), want: bools(T, F, T, T)},
		{name: "bool eq scalar", cols: []column{colOf("p", plan.Bool, bools(F, T, nil)...)},
			expr: col("p").Eq(lit(true)), want: bools(F, T, nil)},
		{name: "bool gt scalar left", cols: []column{colOf("p", plan.Bool, bools(F, T)...)},
			expr: lit(true).Gt(col("p")), want: bools(T, F)},

		// and, or, not
		{name: "kleene and", cols: []column{colOf("p", plan.Bool, bools(T, T, T, F, F, F, nil, nil, nil)...), colOf("q", plan.Bool, bools(T, F, nil, T, F, nil, T, F, nil)...)},
			expr: col("p").And(col("q")), want: bools(T, F, nil, F, F, F, nil, F, nil)},
		{name: "kleene or", cols: []column{colOf("p", plan.Bool, bools(T, T, T, F, F, F, nil, nil, nil)...), colOf("q", plan.Bool, bools(T, F, nil, T, F, nil, T, F, nil)...)},
			expr: col("p").Or(col("q")), want: bools(T, T, T, T, F, nil, T, nil, nil)},
		{name: "and false scalar", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)},
			expr: col("p").And(lit(false)), want: bools(F, F, F)},
		{name: "or null scalar", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)},
			expr: col("p").Or(plan.Null(plan.Bool)), want: bools(T, nil, nil)},
		{name: "and null scalar left", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)},
			expr: plan.Null(plan.Bool).And(col("p")), want: bools(nil, F, nil)},
		{name: "not", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, expr: col("p").Not(), want: bools(F, T, nil)},

		// is_null, is_not_null, is_nan
		{name: "is_null", cols: []column{colOf("a", plan.Int64, i64s(1, nil)...)}, expr: col("a").IsNull(), want: bools(F, T)},
		{name: "is_not_null", cols: []column{colOf("a", plan.Int64, i64s(1, nil)...)}, expr: col("a").IsNotNull(), want: bools(T, F)},
		{name: "is_null no nulls", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: col("a").IsNull(), want: bools(F, F)},
		{name: "is_null lit", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: plan.Null(plan.Int32).IsNull(), want: bools(T, T)},
		{name: "is_nan", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, 1.0, nil, negNaN, inf)...)}, expr: col("f").IsNaN(), want: bools(T, F, F, T, F)},

		// str_len, concat
		{name: "str_len", cols: []column{colOf("s", plan.String, strs("", "abc", "héllo", nil, "日本")...)}, expr: col("s").StrLen(), want: i64s(0, 3, 5, nil, 2)},
		{name: "concat", cols: []column{colOf("s", plan.String, strs("a", nil, "", "x")...), colOf("t", plan.String, strs("b", "c", "", nil)...)},
			expr: plan.Concat(col("s"), lit("-"), col("t")), want: strs("a-b", nil, "-", nil)},
		{name: "concat one arg", cols: []column{colOf("s", plan.String, strs("a", nil)...)}, expr: plan.Concat(col("s")), want: strs("a", nil)},
		{name: "concat null lit", cols: []column{colOf("s", plan.String, strs("a", "b")...)}, expr: plan.Concat(col("s"), plan.Null(plan.String)), want: strs(nil, nil)},
		{name: "concat lits", cols: []column{colOf("s", plan.String, strs("a", "b")...)}, expr: plan.Concat(lit("x"), lit("y")), want: strs("xy", "xy")},

		// if
		{name: "if guards division", cols: []column{colOf("a", plan.Int64, i64s(1, 4)...), colOf("b", plan.Int64, i64s(0, 2)...)},
			expr: plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(0)), want: i64s(0, 2)},
		{name: "if guards division all rows", cols: []column{colOf("a", plan.Int64, i64s(1)...), colOf("b", plan.Int64, i64s(0)...)},
			expr: plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(0)), want: i64s(0)},
		{name: "if null cond takes else", cols: []column{colOf("p", plan.Bool, bools(T, nil, F)...)},
			expr: plan.If(col("p"), lit("t"), lit("e")), want: strs("t", "e", "e")},
		{name: "if branch error original row", cols: []column{colOf("a", plan.Int64, i64s(0, 1, 1)...), colOf("b", plan.Int64, i64s(1, 1, 0)...)},
			expr: plan.If(col("a").Gt(lit(0)), col("a").Div(col("b")), lit(0)), offset: 10, err: &wantErr{plan.DivideByZero, "a / b", 12}},
		{name: "if else branch error original row", cols: []column{colOf("a", plan.Int64, i64s(0, 1, 0, 0)...), colOf("b", plan.Int64, i64s(1, 0, 1, 0)...)},
			expr: plan.If(col("a").Gt(lit(0)), lit(0), col("a").Div(col("b"))), err: &wantErr{plan.DivideByZero, "a / b", 3}},
		{name: "if then error before else error", cols: []column{colOf("a", plan.Int64, i64s(0, 1)...), colOf("b", plan.Int64, i64s(0, 0)...)},
			expr: plan.If(col("a").Gt(lit(0)), col("a").Div(col("b")), col("a").Mod(col("b"))), err: &wantErr{plan.DivideByZero, "a / b", 1}},
		{name: "if promotes branches", cols: []column{colOf("x", plan.Int32, i32s(1, 2, nil)...), colOf("p", plan.Bool, bools(T, F, T)...)},
			expr: plan.If(col("p"), col("x"), lit(maxI64)), want: i64s(1, maxI64, nil)},
		{name: "if float branch keeps bits", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, negZer)...), colOf("p", plan.Bool, bools(T, T)...)},
			expr: plan.If(col("p"), col("f"), lit(1)), want: f64s(nanPayload, negZer)},
		{name: "if scalar cond false skips then", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)},
			expr: plan.If(lit(false), col("a").Div(lit(0)), col("a")), want: i64s(1, 2)},
		{name: "if scalar null cond", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)},
			expr: plan.If(plan.Null(plan.Bool), col("a").Div(lit(0)), col("a").Neg()), want: i64s(-1, -2)},
		{name: "if nested", cols: []column{colOf("a", plan.Int64, i64s(-1, 0, 1, nil)...)},
			expr: plan.If(col("a").Lt(lit(0)), lit("neg"), plan.If(col("a").Eq(lit(0)), lit("zero"), lit("pos"))), want: strs("neg", "zero", "pos", "pos")},
		{name: "if nested error row", cols: []column{colOf("a", plan.Int64, i64s(5, 0, 7, 0)...), colOf("b", plan.Int64, i64s(0, 0, 1, 0)...)},
			expr: plan.If(col("a").Gt(lit(0)), plan.If(col("a").Gt(lit(6)), col("a").Div(col("b")), lit(0)), col("b").Div(col("a"))), err: &wantErr{plan.DivideByZero, "b / a", 1}},
		{name: "if udf only its rows", cols: []column{colOf("a", plan.Int64, i64s(1, 1<<62, 3)...)},
			expr: plan.If(col("a").Lt(lit(100)), plan.CallUDF(checkedDouble, col("a")), lit(-1)), want: i64s(2, -1, 6)},
		{name: "if nd_seq counts its rows", cols: []column{colOf("a", plan.Int64, i64s(10, 20, 30, 40)...)},
			expr: plan.If(col("a").Gt(lit(15)), plan.CallUDF(ndSeq, col("a")), lit(0)), want: i64s(0, 20, 31, 42)},
		{name: "if strings mixed", cols: []column{colOf("s", plan.String, strs("aa", nil, "cc", "dd")...), colOf("p", plan.Bool, bools(T, T, F, nil)...)},
			expr: plan.If(col("p"), col("s"), plan.Concat(col("s"), lit("!"))), want: strs("aa", nil, "cc!", "dd!")},
		{name: "if bool branches", cols: []column{colOf("p", plan.Bool, bools(T, F, T)...), colOf("q", plan.Bool, bools(F, F, nil)...)},
			expr: plan.If(col("p"), col("q"), col("p").Not()), want: bools(F, T, nil)},

		// coalesce
		{name: "coalesce", cols: []column{colOf("a", plan.Int64, i64s(1, nil, nil)...), colOf("b", plan.Int64, i64s(nil, 2, nil)...)},
			expr: plan.Coalesce(col("a"), col("b"), lit(0)), want: i64s(1, 2, 0)},
		{name: "coalesce promotes", cols: []column{colOf("x", plan.Int32, i32s(1, nil)...), colOf("f", plan.Float64, f64s(nanPayload, negZer)...)},
			expr: plan.Coalesce(col("x"), col("f")), want: f64s(1.0, negZer)},
		{name: "coalesce evaluates every operand", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)},
			expr: plan.Coalesce(col("a"), col("a").Div(lit(0))), err: &wantErr{plan.DivideByZero, "a / 0", 0}},
		{name: "coalesce all null", cols: []column{colOf("a", plan.Int64, i64s(nil, nil)...)},
			expr: plan.Coalesce(col("a"), plan.Null(plan.Int64)), want: i64s(nil, nil)},
		{name: "coalesce strings", cols: []column{colOf("s", plan.String, strs(nil, "b", nil)...), colOf("t", plan.String, strs("x", "y", nil)...)},
			expr: plan.Coalesce(col("s"), col("t")), want: strs("x", "b", nil)},
		{name: "coalesce null lit first", cols: []column{colOf("s", plan.String, strs(nil, "b")...)},
			expr: plan.Coalesce(plan.Null(plan.String), col("s"), lit("z")), want: strs("z", "b")},
		{name: "coalesce bools", cols: []column{colOf("p", plan.Bool, bools(nil, F, nil)...), colOf("q", plan.Bool, bools(T, T, nil)...)},
			expr: plan.Coalesce(col("p"), col("q")), want: bools(T, F, nil)},

		// casts
		{name: "cast int32->int64", cols: []column{colOf("x", plan.Int32, i32s(minI32, nil)...)}, expr: col("x").Cast(plan.Int64), want: i64s(int(minI32), nil)},
		{name: "cast int64->int32 strict", cols: []column{colOf("a", plan.Int64, i64s(1, int(maxI32)+1)...)},
			expr: col("a").Cast(plan.Int32), err: &wantErr{plan.InvalidCast, "cast(a, int32)", 1}},
		{name: "cast int64->int32 lenient", cols: []column{colOf("a", plan.Int64, i64s(1, int(maxI32)+1, int(minI32), nil, minI64)...)},
			expr: col("a").TryCast(plan.Int32), want: i32s(1, nil, minI32, nil, nil)},
		{name: "cast float->int64 lenient", cols: []column{colOf("f", plan.Float64, f64s(1.9, -1.9, negZer, nanPayload, inf, ninf, 9.3e18, -9223372036854775808.0, nil)...)},
			expr: col("f").TryCast(plan.Int64), want: i64s(1, -1, 0, nil, nil, nil, nil, minI64, nil)},
		{name: "cast float->int64 strict NaN", cols: []column{colOf("f", plan.Float64, f64s(1.9, nil, nanPayload)...)},
			expr: col("f").Cast(plan.Int64), err: &wantErr{plan.InvalidCast, "cast(f, int64)", 2}},
		{name: "cast float->int64 strict 2^63", cols: []column{colOf("f", plan.Float64, f64s(9223372036854775808.0)...)},
			expr: col("f").Cast(plan.Int64), err: &wantErr{plan.InvalidCast, "cast(f, int64)", 0}},
		{name: "cast float->int32 lenient", cols: []column{colOf("f", plan.Float64, f64s(2147483647.9, 2147483648.0, -2147483648.9, -2147483649.0)...)},
			expr: col("f").TryCast(plan.Int32), want: i32s(maxI32, nil, minI32, nil)},
		{name: "cast int->float", cols: []column{colOf("a", plan.Int64, i64s(1<<53+1, minI64, nil)...)},
			expr: col("a").Cast(plan.Float64), want: f64s(float64(1<<53), -9223372036854775808.0, nil)},
		{name: "cast int32->float", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)}, expr: col("x").Cast(plan.Float64), want: f64s(-2147483648.0)},
		{name: "cast int->bool", cols: []column{colOf("a", plan.Int64, i64s(0, 5, -1, nil)...)}, expr: col("a").Cast(plan.Bool), want: bools(F, T, T, nil)},
		{name: "cast int32->bool", cols: []column{colOf("x", plan.Int32, i32s(0, minI32)...)}, expr: col("x").Cast(plan.Bool), want: bools(F, T)},
		{name: "cast float->bool", cols: []column{colOf("f", plan.Float64, f64s(0.0, negZer, nanPayload, 0.5, nil)...)}, expr: col("f").Cast(plan.Bool), want: bools(F, F, T, T, nil)},
		{name: "cast bool->int32", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, expr: col("p").Cast(plan.Int32), want: i32s(1, 0, nil)},
		{name: "cast bool->int64", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, expr: col("p").Cast(plan.Int64), want: i64s(1, 0, nil)},
		{name: "cast bool->float", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, expr: col("p").Cast(plan.Float64), want: f64s(1.0, 0.0, nil)},
		{name: "cast int->string", cols: []column{colOf("a", plan.Int64, i64s(minI64, 0, -1, nil)...)}, expr: col("a").Cast(plan.String), want: strs("-9223372036854775808", "0", "-1", nil)},
		{name: "cast int32->string", cols: []column{colOf("x", plan.Int32, i32s(minI32)...)}, expr: col("x").Cast(plan.String), want: strs("-2147483648")},
		{name: "cast float->string", cols: []column{colOf("f", plan.Float64, f64s(1.0, nanPayload, inf, ninf, negZer, 2.5, 1e21, nil)...)},
			expr: col("f").Cast(plan.String), want: strs("1.0", "NaN", "Inf", "-Inf", "-0.0", "2.5", "1e+21", nil)},
		{name: "cast bool->string", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, expr: col("p").Cast(plan.String), want: strs("true", "false", nil)},
		{name: "cast string->int64 lenient", cols: []column{colOf("s", plan.String, strs("12", "-0", "+5", " 1", "1.5", "", "9223372036854775808", "x", "-9223372036854775808", nil, "1_0")...)},
			expr: col("s").TryCast(plan.Int64), want: i64s(12, 0, 5, nil, nil, nil, nil, nil, minI64, nil, nil)},
		{name: "cast string->int64 strict", cols: []column{colOf("s", plan.String, strs("12", nil, " 1")...)},
			expr: col("s").Cast(plan.Int64), err: &wantErr{plan.InvalidCast, "cast(s, int64)", 2}},
		{name: "cast string->int32", cols: []column{colOf("s", plan.String, strs("2147483647", "2147483648", "-2147483648")...)},
			expr: col("s").TryCast(plan.Int32), want: i32s(maxI32, nil, minI32)},
		{name: "cast string->float", cols: []column{colOf("s", plan.String, strs("1.5", "NaN", "Inf", "-0.0", "-Inf", "abc", "1e400", "inf", "", nil)...)},
			expr: col("s").TryCast(plan.Float64), want: f64s(1.5, math.NaN(), inf, negZer, ninf, nil, nil, inf, nil, nil)},
		{name: "cast string->bool", cols: []column{colOf("s", plan.String, strs("true", "false", "True", "1", "", nil)...)},
			expr: col("s").TryCast(plan.Bool), want: bools(T, F, nil, nil, nil, nil)},
		{name: "cast string->bool strict", cols: []column{colOf("s", plan.String, strs("true", "TRUE")...)},
			expr: col("s").Cast(plan.Bool), err: &wantErr{plan.InvalidCast, "cast(s, bool)", 1}},
		{name: "cast identity keeps bits", cols: []column{colOf("f", plan.Float64, f64s(nanPayload, negZer)...)}, expr: col("f").Cast(plan.Float64), want: f64s(nanPayload, negZer)},
		{name: "cast string identity", cols: []column{colOf("s", plan.String, strs("", nil)...)}, expr: col("s").Cast(plan.String), want: strs("", nil)},
		{name: "cast null lit", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: plan.Null(plan.String).Cast(plan.Int64), want: i64s(nil, nil)},
		{name: "cast lit strict", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: lit("x").Cast(plan.Int64), offset: 4, err: &wantErr{plan.InvalidCast, `cast("x", int64)`, 4}},
		{name: "cast lit lenient", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, expr: lit("x").TryCast(plan.Int64), want: i64s(nil, nil)},
		{name: "cast lit no rows", cols: []column{colOf("a", plan.Int64)}, expr: lit("x").Cast(plan.Int64), want: i64s()},

		// UDFs
		{name: "udf inc_wrap", cols: []column{colOf("a", plan.Int64, i64s(1, nil, maxI64)...)},
			expr: plan.CallUDF(incWrap, col("a")), want: i64s(2, nil, minI64)},
		{name: "udf error", cols: []column{colOf("a", plan.Int64, i64s(1, 1<<62, 1<<62)...)},
			expr: plan.CallUDF(checkedDouble, col("a")), offset: 5, err: &wantErr{plan.UDFError, "checked_double(a)", 6}},
		{name: "udf panic", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)},
			expr: plan.CallUDF(panicky, col("a")), err: &wantErr{plan.UDFError, "boom(a)", 1}},
		{name: "udf wrong result type", cols: []column{colOf("a", plan.Int64, i64s(1)...)},
			expr: plan.CallUDF(wrongType, col("a")), err: &wantErr{plan.UDFError, "liar(a)", 0}},
		{name: "udf nd_seq per row", cols: []column{colOf("a", plan.Int64, i64s(10, 10, 10)...)},
			expr: plan.CallUDF(ndSeq, col("a")), want: i64s(10, 11, 12)},
		{name: "udf nd_seq literal arg per row", cols: []column{colOf("a", plan.Int64, i64s(0, 0, 0)...)},
			expr: plan.CallUDF(ndSeq, lit(100)), want: i64s(100, 101, 102)},
		{name: "udf string result", cols: []column{colOf("s", plan.String, strs("a", nil, "")...), colOf("x", plan.Int32, i32s(2, 1, 0)...)},
			expr: plan.CallUDF(shout, col("s"), col("x")), want: strs("a!!", nil, "")},
		{name: "udf float result", cols: []column{colOf("a", plan.Int64, i64s(3, nil)...)},
			expr: plan.CallUDF(half, col("a")), want: f64s(1.5, nil)},
		{name: "udf bool result", cols: []column{colOf("x", plan.Int32, i32s(3, 2, nil)...)},
			expr: plan.CallUDF(odd, col("x")), want: bools(T, F, F)},
		{name: "udf int32 result", cols: []column{colOf("f", plan.Float64, f64s(2.5, 1.0)...), colOf("p", plan.Bool, bools(T, nil)...)},
			expr: plan.CallUDF(i32id, col("f"), col("p")), want: i32s(2, nil)},
		{name: "udf inside arithmetic", cols: []column{colOf("a", plan.Int64, i64s(maxI64-1)...)},
			expr: plan.CallUDF(incWrap, col("a")).Add(lit(1)), err: &wantErr{plan.Overflow, "inc_wrap(a) + 1", 0}},

		// innermost expression is reported
		{name: "innermost error text", cols: []column{colOf("a", plan.Int64, i64s(1)...), colOf("b", plan.Int64, i64s(0)...)},
			expr: col("a").Div(col("b")).Gt(lit(1)), err: &wantErr{plan.DivideByZero, "a / b", 0}},
		{name: "operands left to right", cols: []column{colOf("a", plan.Int64, i64s(1, maxI64)...), colOf("b", plan.Int64, i64s(0, 1)...)},
			expr: col("a").Add(lit(1)).Add(col("a").Div(col("b"))), err: &wantErr{plan.Overflow, "a + 1", 1}},
		{name: "null does not mask an operand error", cols: []column{colOf("a", plan.Int64, i64s(1)...), colOf("b", plan.Int64, i64s(0)...)},
			expr: plan.Null(plan.Int64).Add(col("a").Div(col("b"))), err: &wantErr{plan.DivideByZero, "a / b", 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := mkBatch(t, mem, tc.cols...)
			defer rec.Release()
			got, err := evalValues(t, mem, tc.expr.Expr(), rec, tc.offset)
			checkOutcome(t, tc.expr.Expr(), got, err, tc.want, tc.err)
		})
	}
}

// checkOutcome compares an evaluation outcome with the expectation; NaNs in
// want that are math.NaN() (the default payload) match any NaN.
func checkOutcome(t *testing.T, e plan.Expr, got []plan.Value, err error, want []plan.Value, werr *wantErr) {
	t.Helper()
	if werr != nil {
		pe, ok := plan.AsError(err)
		if !ok {
			t.Fatalf("%s: got %v (err %v), want error %+v", e, showValues(got), err, *werr)
		}
		if pe.Kind != werr.kind || pe.Expr != werr.expr || pe.Row != werr.row {
			t.Fatalf("%s: got error kind=%s expr=%q row=%d (%v), want kind=%s expr=%q row=%d",
				e, pe.Kind, pe.Expr, pe.Row, pe, werr.kind, werr.expr, werr.row)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: unexpected error %v", e, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: got %s, want %s", e, showValues(got), showValues(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Type() == plan.Float64 && !w.IsNull() && math.Float64bits(w.Float()) == math.Float64bits(math.NaN()) &&
			g.Type() == plan.Float64 && !g.IsNull() && math.IsNaN(g.Float()) {
			continue
		}
		if !w.Identical(g) {
			t.Fatalf("%s: row %d: got %s, want %s\n got  %s\n want %s", e, i, showValue(g), showValue(w), showValues(got), showValues(want))
		}
	}
}

// TestUDFErrorWrapsCause checks that a UDF's own error is kept in Err.
func TestUDFErrorWrapsCause(t *testing.T) {
	sentinel := errors.New("sentinel")
	u := &plan.UDF{Name: "fails", Params: []plan.Type{plan.Int64}, Result: plan.Int64,
		Fn: func(context.Context, []plan.Value) (plan.Value, error) { return plan.Value{}, sentinel }}
	rec := mkBatch(t, memory.DefaultAllocator, colOf("a", plan.Int64, i64s(1)...))
	defer rec.Release()
	_, err := evalValues(t, memory.DefaultAllocator, plan.CallUDF(u, col("a")).Expr(), rec, 0)
	if !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want an error wrapping sentinel", err)
	}
	if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.UDFError {
		t.Fatalf("got %v, want udf_error", err)
	}
}

// TestEvalRejects covers errors found before or instead of evaluation.
func TestEvalRejects(t *testing.T) {
	cols := []column{colOf("a", plan.Int64, i64s(1, 2)...), colOf("s", plan.String, strs("x", "y")...)}
	cases := []struct {
		name string
		expr plan.Expr
		kind plan.ErrorKind
		text string
	}{
		{"over", col("a").Sum().Over(col("s")).Expr(), plan.InvalidPlan, "sum(a).over(s)"},
		{"aggregate", col("a").Sum().Expr(), plan.InvalidPlan, "sum(a)"},
		{"unknown column", col("zz").Add(lit(1)).Expr(), plan.UnknownColumn, "zz"},
		{"type error", col("a").Add(col("s")).Expr(), plan.TypeError, "a + s"},
		{"non-bool if", plan.If(col("a"), lit(1), lit(2)).Expr(), plan.TypeError, "if(a, 1, 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := mkBatch(t, mem, cols...)
			defer rec.Release()
			_, err := evalValues(t, mem, tc.expr, rec, 0)
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != tc.kind || pe.Expr != tc.text {
				t.Fatalf("got %v, want %s in %q", err, tc.kind, tc.text)
			}
		})
	}
}

func TestEvalCancelled(t *testing.T) {
	rec := mkBatch(t, memory.DefaultAllocator, colOf("a", plan.Int64, i64s(1)...))
	defer rec.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ev := &Evaluator{}
	_, err := ev.Eval(ctx, col("a").Add(lit(1)).Expr(), rec, 0)
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want cancelled", err)
	}
	_, err = ev.EvalPredicate(ctx, []plan.Expr{col("a").Gt(lit(1)).Expr()}, rec, 0)
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled {
		t.Fatalf("predicate: got %v, want cancelled", err)
	}
}

// TestNullSlotGarbage builds arrays whose null slots hold values that would
// fail (MaxInt64, MinInt64, 0, NaN): a checked operation must not be
// performed there.
func TestNullSlotGarbage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := garbageBatch(t, mem)
	defer rec.Release()
	cases := []struct {
		expr plan.E
		want []plan.Value
	}{
		{col("a").Add(lit(1)), i64s(2, nil)},
		{col("a").Mul(lit(2)), i64s(2, nil)},
		{col("m").Neg(), i64s(-1, nil)},
		{col("m").Abs(), i64s(1, nil)},
		{col("m").Sub(lit(1)), i64s(0, nil)},
		{lit(1).Div(col("z")), i64s(1, nil)},
		{col("m").Div(lit(-1)), i64s(-1, nil)},
		{col("m").Mod(col("z")), i64s(0, nil)},
		{col("a").Cast(plan.Int32), i32s(1, nil)},
		{col("f").Cast(plan.Int64), i64s(1, nil)},
		{col("x").Add(lit(int32(1))), i32s(2, nil)},
		{col("x").Neg(), i32s(-1, nil)},
		{col("x").Mul(col("x")), i32s(1, nil)},
	}
	for _, tc := range cases {
		got, err := evalValues(t, mem, tc.expr.Expr(), rec, 0)
		checkOutcome(t, tc.expr.Expr(), got, err, tc.want, nil)
	}
}

// garbageBatch has two rows; row 1 is null in every column and holds a
// value that fails under it.
func garbageBatch(t testing.TB, mem memory.Allocator) arrow.RecordBatch {
	t.Helper()
	valid := []bool{true, false}
	i64col := func(v1 int64) arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues([]int64{1, v1}, valid)
		return b.NewArray()
	}
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	fb.AppendValues([]float64{1.5, math.NaN()}, valid)
	xb := array.NewInt32Builder(mem)
	defer xb.Release()
	xb.AppendValues([]int32{1, minI32}, valid)
	cols := []arrow.Array{i64col(maxI64), i64col(minI64), i64col(0), fb.NewArray(), xb.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "m", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "z", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, 2)
	for _, c := range cols {
		c.Release()
	}
	return rec
}
