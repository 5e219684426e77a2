package parquet

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
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
