package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The as-of benchmark's data (docs/performance.md, "As-of join and
// group_by_dynamic"): two tables of rows rows each, both sorted on t.
//
//	left:  t int64 = 10·i + h(i) mod 10, g int64 = h(i) mod 100, x float64
//	right: t int64 = 10·i + h'(i) mod 10, g int64 = h'(i) mod 100, v float64
//
// h is splitmix64 of the row number (h' of row number + 2^32): the same
// numbers in every run and on every machine, so the Go benchmarks
// (exec/asof_bench_test.go) and the Polars script (bench/compare/asof.js,
// reading the Parquet files WriteAsofData writes) see the same rows.

// splitmix is splitmix64 of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// AsofRecords builds the left and right tables of the as-of benchmark;
// the caller releases them.
func AsofRecords(mem memory.Allocator, rows int) (left, right arrow.RecordBatch) {
	build := func(salt uint64, val string) arrow.RecordBatch {
		schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: arrow.PrimitiveTypes.Int64},
			{Name: "g", Type: arrow.PrimitiveTypes.Int64}, {Name: val, Type: arrow.PrimitiveTypes.Float64}}, nil)
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		tb := b.Field(0).(*array.Int64Builder)
		gb := b.Field(1).(*array.Int64Builder)
		vb := b.Field(2).(*array.Float64Builder)
		tb.Reserve(rows)
		gb.Reserve(rows)
		vb.Reserve(rows)
		for i := 0; i < rows; i++ {
			h := splitmix(uint64(i) + salt)
			tb.UnsafeAppend(int64(10*i) + int64(h%10))
			gb.UnsafeAppend(int64((h >> 8) % 100))
			vb.UnsafeAppend(float64((h>>16)%1000) / 10)
		}
		return b.NewRecordBatch()
	}
	return build(0, "x"), build(1<<32, "v")
}

// WriteAsofData writes the as-of benchmark's tables to dir/left.parquet
// and dir/right.parquet (one row group each, uncompressed).
func WriteAsofData(dir string, rows int) error {
	left, right := AsofRecords(memory.DefaultAllocator, rows)
	defer left.Release()
	defer right.Release()
	for _, f := range []struct {
		name string
		rec  arrow.RecordBatch
	}{{"left.parquet", left}, {"right.parquet", right}} {
		path := filepath.Join(dir, f.name)
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rows) + 1))
		w, err := pqarrow.NewFileWriter(f.rec.Schema(), out, props, pqarrow.DefaultWriterProps())
		if err != nil {
			out.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := w.Write(f.rec); err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}
