package kernel

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// benchNestedBatch builds benchRows rows of x (int64), l (list<int64> of 0
// to 8 elements, 4 on average, one element in ten null) and s
// (struct{a: int64, b: float64}), with nullPct percent null lists and
// structs.
func benchNestedBatch(b *testing.B, nullPct int) arrow.RecordBatch {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	xb := array.NewInt64Builder(mem)
	defer xb.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Int64Builder)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	sb := array.NewStructBuilder(mem, st)
	defer sb.Release()
	ab, fb := sb.FieldBuilder(0).(*array.Int64Builder), sb.FieldBuilder(1).(*array.Float64Builder)
	for i := 0; i < benchRows; i++ {
		xb.Append(int64(r.Intn(100)))
		if r.Intn(100) < nullPct {
			lb.AppendNull()
			sb.AppendNull()
			continue
		}
		lb.Append(true)
		for n := r.Intn(9); n > 0; n-- {
			if r.Intn(10) == 0 {
				vb.AppendNull()
			} else {
				vb.Append(int64(r.Intn(1000) - 500))
			}
		}
		sb.Append(true)
		ab.Append(int64(i))
		fb.Append(float64(i) / 7)
	}
	cols := []arrow.Array{xb.NewArray(), lb.NewArray(), sb.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "s", Type: st, Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// benchNested times Eval of e over benchNestedBatch, as benchTemporal does.
func benchNested(b *testing.B, e plan.E) {
	benchEvalOn(b, benchNestedBatch, e, 0)
}

// BenchmarkNestedAddLit is the old kernel to compare with: an int64
// column plus a literal (checked).
func BenchmarkNestedAddLit(b *testing.B) { benchNested(b, col("x").Add(lit(int64(1)))) }

// BenchmarkListLen counts the elements of each list.
func BenchmarkListLen(b *testing.B) { benchNested(b, col("l").ListLen()) }

// BenchmarkListGet reads the second element of each list (null out of
// range).
func BenchmarkListGet(b *testing.B) { benchNested(b, col("l").ListGet(lit(int64(1)))) }

// BenchmarkListGetLast reads the last element of each list.
func BenchmarkListGetLast(b *testing.B) { benchNested(b, col("l").ListGet(lit(int64(-1)))) }

// BenchmarkListSum adds each list's elements (exact int64 sum).
func BenchmarkListSum(b *testing.B) { benchNested(b, col("l").ListSum()) }

// BenchmarkListMax finds each list's greatest element.
func BenchmarkListMax(b *testing.B) { benchNested(b, col("l").ListMax()) }

// BenchmarkListContains looks for 7 in each list.
func BenchmarkListContains(b *testing.B) { benchNested(b, col("l").ListContains(lit(int64(7)))) }

// BenchmarkStructField reads a struct's field (shared when no struct is
// null, masked otherwise).
func BenchmarkStructField(b *testing.B) { benchNested(b, col("s").StructField("a")) }
