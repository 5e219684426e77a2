package parquet

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/exec/step"
)

// ScanAll returns every row and column of the file as one record batch,
// read through arrow-go's own Parquet reader (pqarrow.FileReader.ReadTable)
// rather than the page decoder Scan uses. It makes a Source an
// eager.Scanner: the eager chain, the oracle's reference way among the
// executor's, then reads Parquet without sharing the executor's decoder or
// its row-group pruning, so a decoder bug shows up as a divergence instead
// of the same wrong answer twice. The batch's buffers come from mem (nil:
// the default allocator); the caller releases it.
func (s *Source) ScanAll(ctx context.Context, mem memory.Allocator) (rec arrow.RecordBatch, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, step.SourceError(s.name, nil, "parquet file %q: the reader panicked: %v", s.path, r)
		}
	}()
	rdr, fr, err := openParquet(s.path, mem)
	if err != nil {
		return nil, fmt.Errorf("cannot open parquet file %q: %w", s.path, err)
	}
	defer rdr.Close()
	got, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: cannot read its schema: %w", s.path, err)
	}
	if err := sameParquetSchema(s.schema, withDurations(got)); err != nil {
		return nil, fmt.Errorf("parquet file %q changed since it was opened: %w", s.path, err)
	}
	// The page checksums are dfopt's to verify (arrow-go's reader does not),
	// as Scan does, so that a corrupted page fails both ways alike.
	groups := make([]int, rdr.NumRowGroups())
	for g := range groups {
		groups[g] = g
	}
	var leaves []int
	for _, l := range s.leaves {
		leaves = append(leaves, l...)
	}
	if err := s.verifyChecksums(rdr, groups, leaves, ops.Parallel{}); err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	defer tbl.Release()
	as, err := kernel.ArrowSchema(s.schema)
	if err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, 0, tbl.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i := 0; i < int(tbl.NumCols()); i++ {
		chunks := tbl.Column(i).Data().Chunks()
		var col arrow.Array
		switch len(chunks) {
		case 0:
			col = array.MakeArrayOfNull(mem, as.Field(i).Type, 0)
		case 1:
			col = chunks[0]
			col.Retain()
		default:
			if col, err = array.Concatenate(chunks, mem); err != nil {
				return nil, fmt.Errorf("parquet file %q: column %q: %w", s.path, as.Field(i).Name, err)
			}
		}
		if dt := as.Field(i).Type; dt.ID() == arrow.LIST || dt.ID() == arrow.STRUCT {
			// arrow-go names a list's element "element": the same layout
			// under dfopt's canonical type.
			c := retype(col, dt)
			col.Release()
			col = c
		}
		if dt := as.Field(i).Type; dt.ID() == arrow.DURATION && col.DataType().ID() == arrow.INT64 {
			// A duration column is stored as INT64 (WriteTable).
			d := phys.Retype(col, dt)
			col.Release()
			col = d
		}
		cols = append(cols, col)
	}
	out := array.NewRecordBatch(as, cols, tbl.NumRows())
	return out, nil
}
