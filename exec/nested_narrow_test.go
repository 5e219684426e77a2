package exec

import (
	"context"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// TestNestedNarrowElements checks lists and structs of the narrower
// numeric types (docs/semantics.md, Lists and structs) against values
// worked out by hand: list.sum typed as the sum aggregate (int64, uint64
// for uint64, float64 for float32), list.min and list.max in each type's
// own order (uint64 unsigned, float32 by the float total order, the
// element's bits kept), list.contains in the promoted type, list.get and
// struct.field; on the executor (sequential and forced parallel) and the
// reference.
func TestNestedNarrowElements(t *testing.T) {
	i8, u64, f32 := plan.MustListOf(plan.Int8), plan.MustListOf(plan.Uint64), plan.MustListOf(plan.Float32)
	st := plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Float32}, plan.StructField{Name: "b", Type: plan.Uint16})
	iv := func(ty plan.Type, n int64) plan.Value { v, _ := plan.IntValue(ty, n); return v }
	uv := func(ty plan.Type, n uint64) plan.Value { v, _ := plan.UintValue(ty, n); return v }
	list := func(ty plan.Type, vs ...plan.Value) plan.Value { return plan.ListValue(ty, vs) }
	nan32 := math.Float32frombits(0x7fc00001)
	negZero32 := float32(math.Copysign(0, -1))
	f := plan.Float32Value
	T := mustTable(t, "t", []plan.Field{
		{Name: "l8", Type: i8, Nullable: true}, {Name: "u", Type: u64, Nullable: true},
		{Name: "f", Type: f32, Nullable: true}, {Name: "s", Type: st, Nullable: true}},
		[]plan.Value{list(i8, iv(plan.Int8, 127), plan.NullValue(plan.Int8), iv(plan.Int8, -128), iv(plan.Int8, 5)), list(i8),
			plan.NullValue(i8), list(i8, plan.NullValue(plan.Int8))},
		[]plan.Value{list(u64, uv(plan.Uint64, math.MaxUint64-1), uv(plan.Uint64, 1)), list(u64),
			plan.NullValue(u64), list(u64, plan.NullValue(plan.Uint64), uv(plan.Uint64, 3))},
		[]plan.Value{list(f32, f(1.5), f(nan32), f(negZero32)), list(f32, f(negZero32)), plan.NullValue(f32), list(f32, plan.NullValue(plan.Float32))},
		[]plan.Value{plan.StructValue(st, []plan.Value{f(0.25), uv(plan.Uint16, 65535)}),
			plan.StructValue(st, []plan.Value{plan.NullValue(plan.Float32), plan.NullValue(plan.Uint16)}),
			plan.NullValue(st), plan.StructValue(st, []plan.Value{f(-1), uv(plan.Uint16, 0)})})
	ovf := mustTable(t, "o", []plan.Field{{Name: "u", Type: u64}},
		[]plan.Value{list(u64, uv(plan.Uint64, math.MaxUint64), plan.NullValue(plan.Uint64), uv(plan.Uint64, 1))})
	litOf := func(v plan.Value) plan.E { return plan.Wrap(&plan.Literal{Value: v}) }
	bools := func(vs ...any) []plan.Value {
		out := make([]plan.Value, len(vs))
		for i, v := range vs {
			if v == nil {
				out[i] = plan.NullValue(plan.Bool)
			} else {
				out[i] = plan.BoolValue(v.(bool))
			}
		}
		return out
	}
	n8, nU, nF, nU16 := plan.NullValue(plan.Int8), plan.NullValue(plan.Uint64), plan.NullValue(plan.Float32), plan.NullValue(plan.Uint16)
	l8, u, fl, s := c("l8"), c("u"), c("f"), c("s")
	cases := []struct {
		name string
		e    plan.E
		src  *plan.Table
		want want
	}{
		{"list.sum int8 is int64", l8.ListSum(), T, want{cols: []col{{"w", ints(4, nil, nil, nil)}}}},
		{"list.min int8", l8.ListMin(), T, want{cols: []col{{"w", []plan.Value{iv(plan.Int8, -128), n8, n8, n8}}}}},
		{"list.max int8", l8.ListMax(), T, want{cols: []col{{"w", []plan.Value{iv(plan.Int8, 127), n8, n8, n8}}}}},
		{"list.contains int8 with int16", l8.ListContains(litOf(iv(plan.Int16, -128))), T, want{cols: []col{{"w", bools(true, false, nil, false)}}}},
		{"list.contains int8 with int64", l8.ListContains(lt(int64(5))), T, want{cols: []col{{"w", bools(true, false, nil, false)}}}},
		{"list.sum uint64 is uint64", u.ListSum(), T, want{cols: []col{{"w", []plan.Value{uv(plan.Uint64, math.MaxUint64), nU, nU, uv(plan.Uint64, 3)}}}}},
		{"list.max uint64 unsigned", u.ListMax(), T, want{cols: []col{{"w", []plan.Value{uv(plan.Uint64, math.MaxUint64-1), nU, nU, uv(plan.Uint64, 3)}}}}},
		{"list.min uint64 unsigned", u.ListMin(), T, want{cols: []col{{"w", []plan.Value{uv(plan.Uint64, 1), nU, nU, uv(plan.Uint64, 3)}}}}},
		{"list.contains uint64 big", u.ListContains(litOf(uv(plan.Uint64, math.MaxUint64-1))), T, want{cols: []col{{"w", bools(true, false, nil, false)}}}},
		{"list.contains uint64 with uint8", u.ListContains(litOf(uv(plan.Uint8, 3))), T, want{cols: []col{{"w", bools(false, false, nil, true)}}}},
		{"list.get uint64 from the end", u.ListGet(lt(int64(-1))), T, want{cols: []col{{"w", []plan.Value{uv(plan.Uint64, 1), nU, nU, uv(plan.Uint64, 3)}}}}},
		{"list.sum float32 is float64", fl.ListSum(), T, want{cols: []col{{"w", floats(math.Float64frombits(0x7ff8000020000000), math.Copysign(0, -1), nil, nil)}}}},
		{"list.max float32 NaN bits", fl.ListMax(), T, want{cols: []col{{"w", []plan.Value{f(nan32), f(negZero32), nF, nF}}}}},
		{"list.min float32", fl.ListMin(), T, want{cols: []col{{"w", []plan.Value{f(negZero32), f(negZero32), nF, nF}}}}},
		{"list.contains float32 with float64", fl.ListContains(lt(1.5)), T, want{cols: []col{{"w", bools(true, false, nil, false)}}}},
		{"struct.field float32", s.StructField("a"), T, want{cols: []col{{"w", []plan.Value{f(0.25), nF, nF, f(-1)}}}}},
		{"struct.field uint16", s.StructField("b"), T, want{cols: []col{{"w", []plan.Value{uv(plan.Uint16, 65535), nU16, nU16, uv(plan.Uint16, 0)}}}}},
		{"list.sum uint64 overflow", u.ListSum(), ovf, want{errKind: plan.Overflow, errExpr: "list.sum(u)"}},
	}
	// Through a sort (which gathers the list and struct columns): by
	// list.len(l8) descending, nulls first, rows 2, 0, 3, 1.
	sorted := plan.Scan(T).Sort(plan.Desc(l8.ListLen())).Select(u.ListMax().Alias("m"), s.StructField("a").Alias("a"), fl.Alias("f")).Node()
	check(t, sorted, want{cols: []col{
		{"m", []plan.Value{nU, uv(plan.Uint64, math.MaxUint64-1), uv(plan.Uint64, 3), nU}},
		{"a", []plan.Value{nF, f(0.25), f(-1), nF}},
		{"f", []plan.Value{plan.NullValue(f32), list(f32, f(1.5), f(nan32), f(negZero32)), list(f32, plan.NullValue(plan.Float32)), list(f32, f(negZero32))}}}})
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
