package kernel

import (
	"context"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

func TestEvalPredicate(t *testing.T) {
	n20 := make([]any, 20)
	for i := range n20 {
		n20[i] = i - 5
		if i%7 == 3 {
			n20[i] = nil
		}
	}
	cases := []struct {
		name   string
		cols   []column
		conj   []plan.E
		offset int64
		want   []bool
		err    *wantErr
	}{
		{name: "nulls deselect", cols: []column{colOf("a", plan.Int64, i64s(1, 2, nil, 3)...)},
			conj: []plan.E{col("a").Gt(lit(1))}, want: []bool{F, T, F, T}},
		{name: "two conjuncts", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3, 4)...), colOf("b", plan.Int64, i64s(1, 0, nil, 2)...)},
			conj: []plan.E{col("a").Gt(lit(1)), col("b").Ne(lit(0))}, want: []bool{F, F, F, T}},
		{name: "no short-circuit", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...), colOf("b", plan.Int64, i64s(1, 0)...)},
			conj: []plan.E{lit(false), col("a").Div(col("b")).Gt(lit(0))}, offset: 40, err: &wantErr{plan.DivideByZero, "a / b", 41}},
		{name: "no short-circuit after all-false column", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...), colOf("b", plan.Int64, i64s(0, 1)...)},
			conj: []plan.E{col("a").Gt(lit(5)), col("a").Div(col("b")).Gt(lit(0))}, err: &wantErr{plan.DivideByZero, "a / b", 0}},
		{name: "first conjunct's error wins", cols: []column{colOf("a", plan.Int64, i64s(maxI64, 2)...), colOf("b", plan.Int64, i64s(1, 0)...)},
			conj: []plan.E{col("a").Div(col("b")).Gt(lit(0)), col("a").Add(lit(1)).Gt(lit(0))}, err: &wantErr{plan.DivideByZero, "a / b", 1}},
		{name: "scalar true", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, conj: []plan.E{lit(true)}, want: []bool{T, T}},
		{name: "scalar null", cols: []column{colOf("a", plan.Int64, i64s(1, 2)...)}, conj: []plan.E{plan.Null(plan.Bool)}, want: []bool{F, F}},
		{name: "no conjuncts", cols: []column{colOf("a", plan.Int64, i64s(1, 2, 3)...)}, want: []bool{T, T, T}},
		{name: "empty batch", cols: []column{colOf("a", plan.Int64)}, conj: []plan.E{col("a").Gt(lit(1))}, want: []bool{}},
		{name: "bool column", cols: []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, conj: []plan.E{col("p")}, want: []bool{T, F, F}},
		{name: "bool column no nulls", cols: []column{colOf("p", plan.Bool, bools(T, F, T)...)}, conj: []plan.E{col("p")}, want: []bool{T, F, T}},
		{name: "20 rows", cols: []column{colOf("a", plan.Int64, i64s(n20...)...)}, conj: []plan.E{col("a").Ge(lit(0)), col("a").Lt(lit(12))},
			want: []bool{F, F, F, F, F, T, T, T, T, T, F, T, T, T, T, T, T, F, F, F}},
		{name: "not bool", cols: []column{colOf("a", plan.Int64, i64s(1)...)}, conj: []plan.E{col("a")}, err: &wantErr{plan.TypeError, "a", -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := mkBatch(t, mem, tc.cols...)
			defer rec.Release()
			conj := make([]plan.Expr, len(tc.conj))
			for i, c := range tc.conj {
				conj[i] = c.Expr()
			}
			ev := &Evaluator{Mem: mem}
			sel, err := ev.EvalPredicate(context.Background(), conj, rec, tc.offset)
			if tc.err != nil {
				pe, ok := plan.AsError(err)
				if !ok || pe.Kind != tc.err.kind || pe.Expr != tc.err.expr || pe.Row != tc.err.row {
					t.Fatalf("got %v, want %+v", err, *tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer sel.Release()
			if sel.Len() != len(tc.want) || sel.NullN() != 0 {
				t.Fatalf("got %d rows with %d nulls, want %d rows and no nulls", sel.Len(), sel.NullN(), len(tc.want))
			}
			for i, w := range tc.want {
				if sel.Value(i) != w {
					t.Fatalf("row %d: got %v, want %v (%v)", i, sel.Value(i), w, sel)
				}
			}
		})
	}
}

// TestEvalSlicedBatch evaluates over a batch slice whose arrays start at a
// bit offset that is not a multiple of 8, for every kind of kernel.
func TestEvalSlicedBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 30
	var a, b []any
	var p, q []any
	var s []any
	for i := 0; i < n; i++ {
		a = append(a, i-10)
		b = append(b, 3-i%5)
		p = append(p, i%3 == 0)
		q = append(q, i%4 < 2)
		s = append(s, string(rune('a'+i%26)))
		if i%6 == 5 {
			a[i], p[i], s[i] = nil, nil, nil
		}
	}
	rec := mkBatch(t, mem, colOf("a", plan.Int64, i64s(a...)...), colOf("b", plan.Int64, i64s(b...)...),
		colOf("p", plan.Bool, bools(p...)...), colOf("q", plan.Bool, bools(q...)...), colOf("s", plan.String, strs(s...)...))
	defer rec.Release()
	sl := rec.NewSlice(3, 27)
	defer sl.Release()
	data := map[string][]plan.Value{"a": i64s(a...)[3:27], "b": i64s(b...)[3:27], "p": bools(p...)[3:27], "q": bools(q...)[3:27], "s": strs(s...)[3:27]}
	schema := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64},
		plan.Field{Name: "p", Type: plan.Bool}, plan.Field{Name: "q", Type: plan.Bool}, plan.Field{Name: "s", Type: plan.String})
	exprs := []plan.E{
		col("a").Add(col("b")), col("a").Lt(col("b")), col("p").And(col("q")), col("p").Or(col("q")), col("p").Not(),
		col("p").Lt(col("q")), col("a").IsNull(), plan.If(col("p"), col("a"), col("b")), plan.Coalesce(col("a"), col("b")),
		plan.Concat(col("s"), col("s")), col("s").StrLen(), col("s").Gt(lit("k")), plan.If(col("q"), col("s"), lit("-")),
		col("a").Cast(plan.String), col("p").Cast(plan.Int64), col("a").Cast(plan.Bool), col("a").Neg(),
		plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(-1)),
	}
	rows := make([]int, 24)
	for i := range rows {
		rows[i] = i
	}
	for _, e := range exprs {
		got, err := evalValues(t, mem, e.Expr(), sl, 0)
		want, werr := refEval(&refEnv{ctx: context.Background(), cols: data, schema: schema}, e.Expr(), rows)
		if werr != nil {
			t.Fatalf("%s: reference failed: %s", e, werr)
		}
		checkOutcome(t, e.Expr(), got, err, want, nil)
	}
}

// TestCheckedAcrossBlocks runs the checked kernels over several scratch
// blocks, with overflowing garbage under nulls in some blocks and, in some
// cases, a real overflow late in the batch, directly and on an intermediate
// result whose buffer the kernel overwrites; the row-wise reference decides.
func TestCheckedAcrossBlocks(t *testing.T) {
	const n = 3*checkedBlock + 77
	mk := func(failAt int) (map[string][]plan.Value, []column) {
		a, b := make([]plan.Value, n), make([]plan.Value, n)
		for i := range a {
			a[i], b[i] = i64(int64(i)), i64(int64(i%7-3))
			if i%97 == 5 {
				a[i] = null(plan.Int64)
			}
		}
		if failAt >= 0 {
			a[failAt] = i64(maxI64 - 1)
		}
		return map[string][]plan.Value{"a": a, "b": b},
			[]column{colOf("a", plan.Int64, a...), colOf("b", plan.Int64, b...)}
	}
	exprs := []plan.E{
		col("a").Add(col("b")), col("a").Sub(col("b").Neg()), col("a").Mul(lit(2)), lit(3).Mul(col("a")),
		col("a").Add(lit(0)).Add(col("b")), col("b").Sub(col("a").Mul(lit(1))), col("a").Add(lit(0)).Mul(col("b")),
		col("a").Add(lit(1)).Sub(lit(1)),
	}
	schema := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64})
	for _, failAt := range []int{-1, 3, checkedBlock + 5, 2*checkedBlock + 300, n - 1} {
		data, cols := mk(failAt)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rec := mkBatch(t, mem, cols...)
		// Garbage under the nulls: MaxInt64 overflows every operation.
		ab := rec.Column(0).Data().Buffers()[1].Bytes()
		av := unsafe.Slice((*int64)(unsafe.Pointer(&ab[0])), n)
		for i := 5; i < n; i += 97 {
			av[i] = maxI64
		}
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		for _, e := range exprs {
			want, werr := refEval(&refEnv{ctx: context.Background(), cols: data, schema: schema, offset: 9}, e.Expr(), rows)
			got, err := evalValues(t, mem, e.Expr(), rec, 9)
			var we *wantErr
			if werr != nil {
				we = &wantErr{werr.kind, werr.expr, werr.row}
			}
			checkOutcome(t, e.Expr(), got, err, want, we)
		}
		rec.Release()
		mem.AssertSize(t, 0)
	}
}
