package parquet

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec/internal/phys"
)

// A file with a list or struct column (docs/semantics.md, Lists and
// structs) is decoded by arrow-go's own reader, which assembles the
// repetition and definition levels of nested columns; the page decoder of
// read.go handles flat columns only. Row-group selection, checksums and
// the schema check are the same as for flat files.

// readNested reads the leaf columns leaves of the row groups groups and
// returns them as one batch under schema (the scan's columns, in its
// order), every column under dfopt's Arrow type.
func (s *Source) readNested(ctx context.Context, fr *pqarrow.FileReader, schema *arrow.Schema, leaves, groups []int,
	mem memory.Allocator) (arrow.RecordBatch, error) {
	tbl, err := fr.ReadRowGroups(ctx, leaves, groups)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	cols := make([]arrow.Array, 0, schema.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	ts := tbl.Schema()
	for _, f := range schema.Fields() {
		j := ts.FieldIndices(f.Name)
		if len(j) != 1 {
			return nil, fmt.Errorf("column %q: the reader returned %d columns of that name", f.Name, len(j))
		}
		chunks := tbl.Column(j[0]).Data().Chunks()
		var col arrow.Array
		switch len(chunks) {
		case 0:
			col = array.MakeArrayOfNull(mem, f.Type, 0)
		case 1:
			col = chunks[0]
			col.Retain()
		default:
			if col, err = array.Concatenate(chunks, mem); err != nil {
				return nil, fmt.Errorf("column %q: %w", f.Name, err)
			}
		}
		var c arrow.Array
		switch {
		case f.Type.ID() == arrow.DURATION && col.DataType().ID() == arrow.INT64:
			c = phys.Retype(col, f.Type) // stored as INT64 (WriteTable)
		default:
			c = retype(col, f.Type)
		}
		col.Release()
		if !arrow.TypeEqual(c.DataType(), f.Type) {
			defer c.Release()
			return nil, fmt.Errorf("column %q: read as %s, want %s", f.Name, c.DataType(), f.Type)
		}
		cols = append(cols, c)
	}
	return array.NewRecordBatch(schema, cols, tbl.NumRows()), nil
}

// retype returns a new reference to a with the data type dt, which must
// have a's layout: a list's element or a struct's fields under other names
// or nullability (arrow-go's reader names a list's element "element",
// dfopt's Arrow type "item"). Children are retyped recursively.
func retype(a arrow.Array, dt arrow.DataType) arrow.Array {
	d := retypeData(a.Data(), dt)
	defer d.Release()
	return array.MakeFromData(d)
}

func retypeData(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	kids := d.Children()
	var types []arrow.DataType
	switch t := dt.(type) {
	case *arrow.ListType:
		types = []arrow.DataType{t.Elem()}
	case *arrow.StructType:
		for _, f := range t.Fields() {
			types = append(types, f.Type)
		}
	}
	out := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		if i < len(types) {
			out[i] = retypeData(k, types[i])
		} else {
			k.Retain()
			out[i] = k
		}
	}
	nd := array.NewData(dt, d.Len(), d.Buffers(), out, d.NullN(), d.Offset())
	for _, k := range out {
		k.Release()
	}
	return nd
}
