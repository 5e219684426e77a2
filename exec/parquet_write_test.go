package exec

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeParquet writes rec to path in row groups of at most groupRows rows,
// with statistics (and the writer properties more), and page checksums
// (AddPageChecksums), as dfopt's writers do: every scan in the tests then
// verifies them.
func writeParquet(tb testing.TB, path string, rec arrow.RecordBatch, groupRows int64, more ...parquet.WriterProperty) {
	tb.Helper()
	writeParquetRaw(tb, path, rec, groupRows, more...)
	if err := AddPageChecksums(path); err != nil {
		tb.Fatal(err)
	}
}

// writeParquetRaw is writeParquet without page checksums: the file as
// arrow-go writes it.
func writeParquetRaw(tb testing.TB, path string, rec arrow.RecordBatch, groupRows int64, more ...parquet.WriterProperty) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(groupRows), parquet.WithStats(true),
		parquet.WithAllocator(memory.DefaultAllocator)}, more...)...)
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(memory.DefaultAllocator)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}
