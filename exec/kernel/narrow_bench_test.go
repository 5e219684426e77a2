package kernel

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// benchNarrowBatch builds benchRows rows of the same small values (-50 ..
// 50, so no operation below overflows) as int64 (a, b), int8 (a8, b8),
// uint32 (u, w: the values plus 50), float32 (f, g) and float64 (d, e),
// with nullPct percent nulls (the same rows in every column).
func benchNarrowBatch(b *testing.B, nullPct int) arrow.RecordBatch {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	valid := make([]bool, benchRows)
	x, y := make([]int64, benchRows), make([]int64, benchRows)
	for i := range x {
		x[i], y[i] = int64(r.Intn(101)-50), int64(r.Intn(101)-50)
		valid[i] = r.Intn(100) >= nullPct
	}
	var cols []arrow.Array
	var fields []arrow.Field
	add := func(name string, bld array.Builder, vals []int64) {
		for i, v := range vals {
			if !valid[i] {
				bld.AppendNull()
				continue
			}
			switch bb := bld.(type) {
			case *array.Int64Builder:
				bb.Append(v)
			case *array.Int8Builder:
				bb.Append(int8(v))
			case *array.Uint32Builder:
				bb.Append(uint32(v + 50))
			case *array.Float32Builder:
				bb.Append(float32(v) / 4)
			case *array.Float64Builder:
				bb.Append(float64(v) / 4)
			}
		}
		a := bld.NewArray()
		bld.Release()
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: name, Type: a.DataType(), Nullable: true})
	}
	add("a", array.NewInt64Builder(mem), x)
	add("b", array.NewInt64Builder(mem), y)
	add("a8", array.NewInt8Builder(mem), x)
	add("b8", array.NewInt8Builder(mem), y)
	add("u", array.NewUint32Builder(mem), x)
	add("w", array.NewUint32Builder(mem), y)
	add("f", array.NewFloat32Builder(mem), x)
	add("g", array.NewFloat32Builder(mem), y)
	add("d", array.NewFloat64Builder(mem), x)
	add("e", array.NewFloat64Builder(mem), y)
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// benchNarrow times Eval of e over benchNarrowBatch, as benchTemporal does.
func benchNarrow(b *testing.B, e plan.E, bytesPerRow int64) {
	benchEvalOn(b, benchNarrowBatch, e, bytesPerRow)
}

// BenchmarkNarrowAddInt64 is the old checked kernel: int64 + int64.
func BenchmarkNarrowAddInt64(b *testing.B) { benchNarrow(b, col("a").Add(col("b")), 16) }

// BenchmarkNarrowAddInt8 is int8 + int8, checked in int8.
func BenchmarkNarrowAddInt8(b *testing.B) { benchNarrow(b, col("a8").Add(col("b8")), 2) }

// BenchmarkNarrowAddUint32 is uint32 + uint32, checked in uint32.
func BenchmarkNarrowAddUint32(b *testing.B) { benchNarrow(b, col("u").Add(col("w")), 8) }

// BenchmarkNarrowAddFloat32 is float32 + float32 (binary32, the NaN rule).
func BenchmarkNarrowAddFloat32(b *testing.B) { benchNarrow(b, col("f").Add(col("g")), 8) }

// BenchmarkNarrowAddFloat64 is the old float kernel: float64 + float64.
func BenchmarkNarrowAddFloat64(b *testing.B) { benchNarrow(b, col("d").Add(col("e")), 16) }

// BenchmarkNarrowCmpInt64 is the old compare kernel: int64 < int64.
func BenchmarkNarrowCmpInt64(b *testing.B) { benchNarrow(b, col("a").Lt(col("b")), 16) }

// BenchmarkNarrowCmpUint32 is uint32 < uint32.
func BenchmarkNarrowCmpUint32(b *testing.B) { benchNarrow(b, col("u").Lt(col("w")), 8) }

// BenchmarkNarrowCmpInt8Uint32 is int8 < uint32: both promoted to int64
// first (the promotion table), then the int64 compare.
func BenchmarkNarrowCmpInt8Uint32(b *testing.B) { benchNarrow(b, col("a8").Lt(col("u")), 5) }
