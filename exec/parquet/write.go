package parquet

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// WriteTable writes an in-memory table to a new Parquet file at path,
// in row groups of at most groupRows rows (at least 1), with min/max and
// null-count statistics per column chunk and a CRC-32 in every page header
// (AddPageChecksums): the file OpenFile reads
// back with the table's schema, and whose statistics row-group pruning
// uses. The oracle's generators write their adversarial tables this way so
// that campaigns also run over Parquet (NaN, nulls and ±0.0 in
// statistics). An existing file is replaced.
func WriteTable(path string, t *plan.Table, groupRows int) error {
	rec, err := kernel.TableRecord(memory.DefaultAllocator, t)
	if err != nil {
		return fmt.Errorf("write parquet %q: table %s: %w", path, t.Name(), err)
	}
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write parquet: %w", err)
	}
	// No dictionary encoding: arrow-go's dictionary encoder keys float
	// values so that every NaN is one entry, and a NaN's payload would be
	// replaced by the first NaN's of its column chunk.
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(max(groupRows, 1))), parquet.WithStats(true),
		parquet.WithDictionaryDefault(false), parquet.WithAllocator(memory.DefaultAllocator))
	// The writer owns the file from here: its Close closes it.
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(memory.DefaultAllocator)))
	if err != nil {
		f.Close()
		return fmt.Errorf("write parquet %q: %w", path, err)
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return fmt.Errorf("write parquet %q: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write parquet %q: %w", path, err)
	}
	return AddPageChecksums(path)
}
