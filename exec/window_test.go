package exec

import (
	"context"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// windowT: partitions k=1 (rows 0, 2, 3, 5) and k=2 (rows 1, 4); order key
// o with a tie (rows 0 and 3) and a null; x, f, s with nulls, a NaN, -0.0.
func windowT(t testing.TB) *plan.Table {
	return mustTable(t, "w", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "o", Type: plan.Int64, Nullable: true},
		{Name: "x", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}},
		ints(1, 2, 1, 1, 2, 1), ints(3, 1, 1, 3, nil, 2), ints(5, nil, 2, -1, 7, nil),
		floats(1.5, math.NaN(), math.Copysign(0, -1), 0.0, nil, 2.0), strs("b", "a", nil, "a", "c", "b"))
}

// TestWindowFunctions checks each window function against values worked
// out by hand from docs/semantics.md, on the executor (sequential and
// forced parallel) and on the reference interpreter.
func TestWindowFunctions(t *testing.T) {
	W := windowT(t)
	k, o, x, f, s := c("k"), c("o"), c("x"), c("f"), c("s")
	byO := func(e plan.E, keys ...plan.SortKey) plan.E { return e.OverOrdered([]plan.E{k}, keys...) }
	one := k.Mul(lt(int64(0)))
	negZero := math.Copysign(0, -1)
	ovf := mustTable(t, "v", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "o", Type: plan.Int64}, {Name: "x", Type: plan.Int64}},
		ints(1, 1, 1), ints(0, 1, 2), ints(math.MaxInt64, 1, -1))
	empty := mustTable(t, "e", []plan.Field{{Name: "x", Type: plan.Int64, Nullable: true}}, ints())
	ovf2 := mustTable(t, "v2", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "x", Type: plan.Int64}},
		ints(1, 2, 1), ints(1, 5, math.MaxInt64))
	cases := []struct {
		name string
		e    plan.E
		src  *plan.Table
		want want
	}{
		{"cum_sum ordered", byO(x.CumSum(), plan.Asc(o)), W, want{cols: []col{{"w", ints(7, nil, 2, 6, 7, nil)}}}},
		{"cum_sum float", byO(f.CumSum(), plan.Asc(o)), W, want{cols: []col{{"w", floats(3.5, math.NaN(), negZero, 3.5, nil, 2.0)}}}},
		{"cum_count", byO(x.CumCount(), plan.Asc(o)), W, want{cols: []col{{"w", ints(2, 1, 1, 3, 1, 1)}}}},
		{"row_number desc", byO(plan.RowNumber(), plan.Desc(o)), W, want{cols: []col{{"w", ints(1, 2, 4, 2, 1, 3)}}}},
		{"row_number input order", plan.RowNumber().Over(k), W, want{cols: []col{{"w", ints(1, 1, 2, 3, 2, 4)}}}},
		{"cum_max strings", byO(s.CumMax(), plan.Asc(o)), W, want{cols: []col{{"w", strs("b", "c", nil, "b", "c", "b")}}}},
		{"cum_min floats", f.CumMin().Over(k), W, want{cols: []col{{"w", floats(1.5, math.NaN(), negZero, negZero, nil, negZero)}}}},
		{"rank dense floats", f.Rank("dense").Over(k), W, want{cols: []col{{"w", ints(3, 1, 1, 2, nil, 4)}}}},
		{"rank min", x.Rank("min").Over(k), W, want{cols: []col{{"w", ints(3, nil, 2, 1, 1, nil)}}}},
		{"rank min ties", o.Rank("min").Over(one), W, want{cols: []col{{"w", ints(4, 1, 1, 4, nil, 3)}}}},
		{"rank dense ties", o.Rank("dense").Over(one), W, want{cols: []col{{"w", ints(3, 1, 1, 3, nil, 2)}}}},
		{"shift lag", byO(x.Shift(1), plan.Asc(o)), W, want{cols: []col{{"w", ints(nil, 7, nil, 5, nil, 2)}}}},
		{"shift lead default", byO(x.ShiftOr(-1, lt(int64(0))), plan.Asc(o)), W, want{cols: []col{{"w", ints(-1, 0, nil, 0, nil, 5)}}}},
		{"shift far", byO(x.ShiftOr(math.MinInt64, lt(int64(9))), plan.Asc(o)), W, want{cols: []col{{"w", ints(9, 9, 9, 9, 9, 9)}}}},
		{"shift far lag", x.Shift(math.MaxInt64).Over(k), W, want{cols: []col{{"w", ints(nil, nil, nil, nil, nil, nil)}}}},
		{"shift 0", s.Shift(0).Over(k), W, want{cols: []col{{"w", strs("b", "a", nil, "a", "c", "b")}}}},
		{"sum over no keys", x.Sum().Over(), W, want{cols: []col{{"w", ints(13, 13, 13, 13, 13, 13)}}}},
		{"sum over no keys, empty input", x.Sum().Over(), empty, want{cols: []col{{"w", ints()}}}},
		{"cum_sum over order only", x.CumSum().OverOrdered(nil, plan.Asc(o)), W, want{cols: []col{{"w", ints(14, nil, 9, 13, 7, nil)}}}},
		{"row_number over no keys", plan.RowNumber().Over(), W, want{cols: []col{{"w", ints(1, 2, 3, 4, 5, 6)}}}},
		{"row_number over order only desc", plan.RowNumber().OverOrdered(nil, plan.Desc(o)), W, want{cols: []col{{"w", ints(2, 5, 6, 3, 1, 4)}}}},
		{"cum_sum over no keys overflow", x.CumSum().Over(), ovf2, want{errKind: plan.Overflow, errExpr: "cum_sum(x)"}},
		{"cum_sum overflow", x.CumSum().Over(k), ovf, want{errKind: plan.Overflow, errExpr: "cum_sum(x)"}},
		{"cum_sum order avoids overflow", byO(x.CumSum(), plan.Desc(o)), ovf, want{cols: []col{{"w", ints(math.MaxInt64, 0, -1)}}}},
		{"cum_sum overflow second partition", x.CumSum().Over(k), ovf2, want{errKind: plan.Overflow, errExpr: "cum_sum(x)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Scan(tc.src).WithColumns(tc.e.Alias("w")).Select(c("w")).Node()
			check(t, p, tc.want)
			res, err := reference.Collect(context.Background(), p, reference.Options{})
			if tc.want.errKind != "" {
				pe, _ := plan.AsError(err)
				if pe == nil || pe.Kind != tc.want.errKind || pe.Expr != tc.want.errExpr {
					t.Fatalf("reference: error %v, want %s %q", err, tc.want.errKind, tc.want.errExpr)
				}
				return
			}
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			if !sameValues(res.Columns[0], tc.want.cols[0].vals) {
				t.Errorf("reference: %s, want %s", render(res.Columns[0]), render(tc.want.cols[0].vals))
			}
		})
	}
}

// TestWindowCumSumNarrow checks cum_sum over the narrower numeric types
// (docs/semantics.md, the cum_sum row: int64 for the signed integers and
// uint8..uint32, uint64 for uint64, float64 for float32, each checked in
// its result type) against hand-worked values, on the executor and the
// reference.
func TestWindowCumSumNarrow(t *testing.T) {
	typed := func(ty plan.Type, vs ...any) []plan.Value {
		out := make([]plan.Value, len(vs))
		for i, v := range vs {
			switch v := v.(type) {
			case nil:
				out[i] = plan.NullValue(ty)
			case int64:
				out[i], _ = plan.IntValue(ty, v)
			case uint64:
				out[i], _ = plan.UintValue(ty, v)
			case float32:
				out[i] = plan.Float32Value(v)
			}
		}
		return out
	}
	sNaN32 := math.Float32frombits(0x7f800123)
	// k=1: rows 0, 1, 3; k=2: rows 2, 4.
	N := mustTable(t, "n", []plan.Field{{Name: "k", Type: plan.Int64},
		{Name: "i8", Type: plan.Int8, Nullable: true}, {Name: "u32", Type: plan.Uint32, Nullable: true},
		{Name: "u64", Type: plan.Uint64, Nullable: true}, {Name: "f32", Type: plan.Float32, Nullable: true}},
		ints(1, 1, 2, 1, 2),
		typed(plan.Int8, int64(127), int64(127), int64(-128), nil, int64(-1)),
		typed(plan.Uint32, uint64(math.MaxUint32), uint64(math.MaxUint32), uint64(0), nil, uint64(3)),
		typed(plan.Uint64, uint64(math.MaxUint64-1), uint64(1), uint64(5), nil, uint64(7)),
		typed(plan.Float32, sNaN32, float32(1.5), float32(math.Copysign(0, -1)), nil, float32(0.25)))
	ovf := mustTable(t, "o", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "u64", Type: plan.Uint64}},
		ints(1, 2, 1, 1), typed(plan.Uint64, uint64(math.MaxUint64), uint64(9), uint64(0), uint64(1)))
	k := c("k")
	u64s := func(vs ...any) []plan.Value { return typed(plan.Uint64, vs...) }
	cases := []struct {
		name string
		e    plan.E
		src  *plan.Table
		want want
	}{
		{"int8 widens to int64", c("i8").CumSum().Over(k), N, want{cols: []col{{"w", ints(127, 254, -128, nil, -129)}}}},
		{"uint32 widens to int64", c("u32").CumSum().Over(k), N, want{cols: []col{{"w", ints(math.MaxUint32, 2*math.MaxUint32, 0, nil, 3)}}}},
		{"uint64 stays uint64", c("u64").CumSum().Over(k), N, want{cols: []col{{"w", u64s(uint64(math.MaxUint64-1), uint64(math.MaxUint64), uint64(5), nil, uint64(12))}}}},
		{"float32 sums in float64", c("f32").CumSum().Over(k), N, want{cols: []col{{"w", floats(
			math.Float64frombits(0x7ff0002460000000), math.Float64frombits(0x7ff8002460000000), math.Copysign(0, -1), nil, 0.25)}}}},
		{"uint64 overflow", c("u64").CumSum().Over(k), ovf, want{errKind: plan.Overflow, errExpr: "cum_sum(u64)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Scan(tc.src).WithColumns(tc.e.Alias("w")).Select(c("w")).Node()
			check(t, p, tc.want)
			res, err := reference.Collect(context.Background(), p, reference.Options{})
			if tc.want.errKind != "" {
				pe, _ := plan.AsError(err)
				if pe == nil || pe.Kind != tc.want.errKind || pe.Expr != tc.want.errExpr {
					t.Fatalf("reference: error %v, want %s %q", err, tc.want.errKind, tc.want.errExpr)
				}
				return
			}
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			if !sameValues(res.Columns[0], tc.want.cols[0].vals) {
				t.Errorf("reference: %s, want %s", render(res.Columns[0]), render(tc.want.cols[0].vals))
			}
		})
	}
}

// TestArgMinMax checks arg_min and arg_max in an aggregate node and under
// over() against hand-worked positions (every row of the group counted,
// the first occurrence on ties, nulls skipped, NaN above +Inf, -0.0 below
// +0.0), on the executor and the reference.
func TestArgMinMax(t *testing.T) {
	W := windowT(t)
	k, x, f, s := c("k"), c("x"), c("f"), c("s")
	// k=1: rows 0, 2, 3, 5; k=2: rows 1, 4.
	// x: k=1 [5, 2, -1, null] k=2 [null, 7]; f: k=1 [1.5, -0.0, 0.0, 2.0]
	// k=2 [NaN, null]; s: k=1 [b, null, a, b] k=2 [a, c].
	allNull := mustTable(t, "n", []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "x", Type: plan.Int64, Nullable: true}},
		ints(1, 1, 2), ints(nil, nil, 4))
	cases := []struct {
		name string
		p    plan.Node
		want want
	}{
		{"group_by", plan.Scan(W).GroupBy(k).Agg(x.ArgMin().Alias("a"), x.ArgMax().Alias("b"), f.ArgMin().Alias("c"),
			f.ArgMax().Alias("d"), s.ArgMin().Alias("e"), s.ArgMax().Alias("g")).Node(),
			want{cols: []col{{"k", ints(1, 2)}, {"a", ints(2, 1)}, {"b", ints(0, 1)}, {"c", ints(1, 0)}, {"d", ints(3, 0)},
				{"e", ints(2, 0)}, {"g", ints(0, 1)}}}},
		{"all null and empty", plan.Scan(allNull).GroupBy(k).Agg(x.ArgMax().Alias("a")).Node(),
			want{cols: []col{{"k", ints(1, 2)}, {"a", ints(nil, 0)}}}},
		{"no rows", plan.Scan(allNull).Filter(k.Gt(lt(int64(5)))).Agg(x.ArgMin().Alias("a")).Node(),
			want{cols: []col{{"a", ints(nil)}}}},
		{"over", plan.Scan(W).WithColumns(f.ArgMax().Over(k).Alias("w")).Select(c("w")).Node(),
			want{cols: []col{{"w", ints(3, 0, 3, 3, 0, 3)}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.p, tc.want)
			res, err := reference.Collect(context.Background(), tc.p, reference.Options{})
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			for i, cl := range tc.want.cols {
				if !sameValues(res.Columns[i], cl.vals) {
					t.Errorf("reference %s: %s, want %s", cl.name, render(res.Columns[i]), render(cl.vals))
				}
			}
		})
	}
}

// TestCalendarSteps checks truncate and offset_by against dates worked out
// by hand (month ends, leap days, negative steps, weeks from Monday, the
// ends of the ranges), on the executor and the reference.
func TestCalendarSteps(t *testing.T) {
	day := func(s string) plan.Value {
		d, ok := plan.ParseDate(s)
		if !ok {
			t.Fatalf("bad date %s", s)
		}
		return plan.DateValue(d)
	}
	dt := func(s string) plan.Value {
		v, ok := plan.ParseDatetime(s)
		if !ok {
			t.Fatalf("bad datetime %s", s)
		}
		return plan.DatetimeValue(v)
	}
	dates := []plan.Value{day("2024-01-31"), day("2023-03-31"), day("2024-02-29"), plan.NullValue(plan.Date), day("1969-12-31"), day("2024-05-15")}
	times := []plan.Value{dt("2024-01-31T13:45:10.5"), dt("1969-12-31T23:59:59.999999"), dt("2024-02-29T00:00:00"), plan.NullValue(plan.Datetime), dt("2024-05-15T06:00:00"), dt("2020-03-01T12:00:00")}
	T := mustTable(t, "c", []plan.Field{{Name: "d", Type: plan.Date, Nullable: true}, {Name: "t", Type: plan.Datetime, Nullable: true}}, dates, times)
	minDate := mustTable(t, "m", []plan.Field{{Name: "d", Type: plan.Date}}, []plan.Value{plan.DateValue(math.MinInt32)})
	d, ts := c("d"), c("t")
	cases := []struct {
		name string
		e    plan.E
		src  *plan.Table
		want want
	}{
		{"offset 1mo month end", d.OffsetBy("1mo"), T, want{cols: []col{{"w", []plan.Value{day("2024-02-29"), day("2023-04-30"), day("2024-03-29"), plan.NullValue(plan.Date), day("1970-01-31"), day("2024-06-15")}}}}},
		{"offset -1y leap", d.OffsetBy("-1y"), T, want{cols: []col{{"w", []plan.Value{day("2023-01-31"), day("2022-03-31"), day("2023-02-28"), plan.NullValue(plan.Date), day("1968-12-31"), day("2023-05-15")}}}}},
		{"offset 1q2w3d", d.OffsetBy("1q2w3d"), T, want{cols: []col{{"w", []plan.Value{day("2024-05-17"), day("2023-07-17"), day("2024-06-15"), plan.NullValue(plan.Date), day("1970-04-17"), day("2024-09-01")}}}}},
		{"truncate 1mo", d.Truncate("1mo"), T, want{cols: []col{{"w", []plan.Value{day("2024-01-01"), day("2023-03-01"), day("2024-02-01"), plan.NullValue(plan.Date), day("1969-12-01"), day("2024-05-01")}}}}},
		{"truncate 1w", d.Truncate("1w"), T, want{cols: []col{{"w", []plan.Value{day("2024-01-29"), day("2023-03-27"), day("2024-02-26"), plan.NullValue(plan.Date), day("1969-12-29"), day("2024-05-13")}}}}},
		{"truncate 1q", d.Truncate("1q"), T, want{cols: []col{{"w", []plan.Value{day("2024-01-01"), day("2023-01-01"), day("2024-01-01"), plan.NullValue(plan.Date), day("1969-10-01"), day("2024-04-01")}}}}},
		{"truncate 1y datetime", ts.Truncate("1y"), T, want{cols: []col{{"w", []plan.Value{dt("2024-01-01T00:00:00"), dt("1969-01-01T00:00:00"), dt("2024-01-01T00:00:00"), plan.NullValue(plan.Datetime), dt("2024-01-01T00:00:00"), dt("2020-01-01T00:00:00")}}}}},
		{"truncate 2h", ts.Truncate("2h"), T, want{cols: []col{{"w", []plan.Value{dt("2024-01-31T12:00:00"), dt("1969-12-31T22:00:00"), dt("2024-02-29T00:00:00"), plan.NullValue(plan.Datetime), dt("2024-05-15T06:00:00"), dt("2020-03-01T12:00:00")}}}}},
		{"offset 1mo1d1h datetime", ts.OffsetBy("1mo1d1h"), T, want{cols: []col{{"w", []plan.Value{dt("2024-03-01T14:45:10.5"), dt("1970-02-02T00:59:59.999999"), dt("2024-03-30T01:00:00"), plan.NullValue(plan.Datetime), dt("2024-06-16T07:00:00"), dt("2020-04-02T13:00:00")}}}}},
		{"truncate out of range", d.Truncate("1mo"), minDate, want{errKind: plan.TemporalOutOfRange, errExpr: `truncate(d, "1mo")`}},
		{"offset out of range", d.OffsetBy("-1d"), minDate, want{errKind: plan.TemporalOutOfRange, errExpr: `offset_by(d, "-1d")`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Scan(tc.src).Select(tc.e.Alias("w")).Node()
			check(t, p, tc.want)
			res, err := reference.Collect(context.Background(), p, reference.Options{})
			if tc.want.errKind != "" {
				pe, _ := plan.AsError(err)
				if pe == nil || pe.Kind != tc.want.errKind || pe.Expr != tc.want.errExpr {
					t.Fatalf("reference: error %v, want %s %q", err, tc.want.errKind, tc.want.errExpr)
				}
				return
			}
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			if !sameValues(res.Columns[0], tc.want.cols[0].vals) {
				t.Errorf("reference: %s, want %s", render(res.Columns[0]), render(tc.want.cols[0].vals))
			}
		})
	}
}
