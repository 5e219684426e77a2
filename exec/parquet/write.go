package parquet

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec/internal/phys"
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
	rec0, err := kernel.TableRecord(memory.DefaultAllocator, t)
	if err != nil {
		return fmt.Errorf("write parquet %q: table %s: %w", path, t.Name(), err)
	}
	rec := durationsAsInt64(rec0)
	rec0.Release()
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
	// The Arrow schema is stored in the file's metadata: Parquet has no
	// duration type and pqarrow cannot write Arrow's, so a duration[us]
	// column is written as a plain INT64 marked as a duration in that
	// schema (durationKey), which reads it back as a duration (dates are
	// INT32 DATE, datetimes INT64 TIMESTAMP(MICROS, not adjusted to UTC),
	// both Parquet's own).
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(memory.DefaultAllocator),
		pqarrow.WithStoreSchema()))
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

// durationKey is the Arrow field metadata key that marks an int64 column
// of a Parquet file as a duration[us] column (value "duration[us]").
const durationKey = "dfopt.type"

// durationsAsInt64 returns rec with every duration[us] column replaced by
// the int64 column sharing its buffers, marked with durationKey (a new
// reference; rec stays the caller's).
func durationsAsInt64(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := rec.Schema().Fields()
	cols := make([]arrow.Array, len(fields))
	for i, f := range fields {
		c := rec.Column(i)
		if f.Type.ID() == arrow.DURATION {
			fields[i] = arrow.Field{Name: f.Name, Type: arrow.PrimitiveTypes.Int64, Nullable: f.Nullable,
				Metadata: arrow.NewMetadata([]string{durationKey}, []string{"duration[us]"})}
			c = phys.View(c)
			defer c.Release()
		}
		cols[i] = c
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// withDurations returns a file's Arrow schema with the int64 fields marked
// durationKey read as duration[us] (see durationsAsInt64).
func withDurations(s *arrow.Schema) *arrow.Schema {
	fields := s.Fields()
	changed := false
	for i, f := range fields {
		if v, ok := f.Metadata.GetValue(durationKey); ok && v == "duration[us]" && f.Type.ID() == arrow.INT64 {
			fields[i].Type = arrow.FixedWidthTypes.Duration_us
			changed = true
		}
	}
	if !changed {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}
