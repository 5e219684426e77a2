package oracle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/reference"
)

// The fourth way: package reference, a row-at-a-time interpreter of
// docs/semantics.md that shares no code with exec and eager (see its
// package documentation and docs/oracle.md, "The fourth way"). It runs the
// plan as written (the resolved input); its sources that are not inline
// tables are read here, and host extension operators without a reference
// implementation make the way skip the plan.

// collectReference runs the reference way on root: its outcome, or
// skipped (with the reason) when the reference cannot run the plan.
func collectReference(ctx context.Context, root plan.Node, exts map[string]reference.ExtensionFunc) (out Outcome, skipped string, err error) {
	res, err := reference.Collect(ctx, root, reference.Options{Scan: ReadSourceValues, Extensions: exts})
	if err != nil {
		if errors.Is(err, reference.ErrUnsupported) {
			return Outcome{}, firstLine(err), nil
		}
		return Outcome{}, "", err
	}
	return Outcome{Schema: res.Schema, Rows: res.Rows, Columns: res.Columns, MemoHits: -1}, "", nil
}

// runReference runs the reference way for Check: a skip leaves the way
// not run, with the reason in Skipped.
func runReference(ctx context.Context, c Case, root plan.Node) WayResult {
	var skipped string
	res := runWay(ctx, Reference, func(ctx context.Context) (Outcome, error) {
		out, why, err := collectReference(ctx, root, c.ReferenceExtensions)
		skipped = why
		return out, err
	})
	if skipped != "" && res.Err == nil {
		return WayResult{Way: Reference, Skipped: skipped}
	}
	return res
}

// ReadSourceValues is the reference way's reader of sources that are not
// inline tables (a reference.ScanFunc): a Parquet file (*parquet.Source)
// is read whole with arrow-go's pqarrow — not through exec's own page
// decoder, so that reading is independent too — and converted to plan
// values, one column per field of want (matched by name, type checked).
// Any other source is unsupported (reference.ErrUnsupported).
func ReadSourceValues(ctx context.Context, src plan.Source, want plan.Schema) ([][]plan.Value, error) {
	ps, ok := src.(*parquet.Source)
	if !ok {
		return nil, fmt.Errorf("%w: the reference way reads inline tables and Parquet files, not a %T", reference.ErrUnsupported, src)
	}
	cols, err := readParquetValues(ctx, ps.Path(), want)
	if err != nil {
		// The executor reports an unreadable file; the reference way only
		// says it could not run.
		return nil, fmt.Errorf("%w: %v", reference.ErrUnsupported, err)
	}
	return cols, nil
}

// readParquetValues reads every row of the Parquet file at path and
// returns the columns want names, in want's order.
func readParquetValues(ctx context.Context, path string, want plan.Schema) (cols [][]plan.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			cols, err = nil, fmt.Errorf("parquet file %q: reading panicked: %v", path, p)
		}
	}()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	defer tbl.Release()
	rows := int(tbl.NumRows())
	cols = make([][]plan.Value, want.Len())
	for i := range cols {
		f := want.Field(i)
		idx := tbl.Schema().FieldIndices(f.Name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("parquet file %q: %d columns named %q", path, len(idx), f.Name)
		}
		ff := tbl.Schema().Field(idx[0])
		t, ok := parquetPlanType(ff.Type)
		// A duration is an INT64 column marked in the stored Arrow schema
		// (Parquet has none; exec/parquet's WriteTable).
		isDuration := false
		if v, has := ff.Metadata.GetValue("dfopt.type"); has && v == "duration[us]" && t == plan.Int64 {
			t, isDuration = plan.Duration, true
		}
		if !ok || t != f.Type {
			return nil, fmt.Errorf("parquet file %q: column %q is %s in the file, %s in the plan", path, f.Name, ff.Type, f.Type)
		}
		col := make([]plan.Value, 0, rows)
		for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
			if isDuration {
				vals, err := arrayValues(chunk, plan.Int64, chunk.Len())
				if err != nil {
					return nil, fmt.Errorf("parquet file %q: column %q: %w", path, f.Name, err)
				}
				for _, v := range vals {
					if v.IsNull() {
						col = append(col, plan.NullValue(plan.Duration))
					} else {
						col = append(col, plan.DurationValue(v.Int()))
					}
				}
				continue
			}
			vals, err := arrayValues(chunk, f.Type, chunk.Len())
			if err != nil {
				return nil, fmt.Errorf("parquet file %q: column %q: %w", path, f.Name, err)
			}
			col = append(col, vals...)
		}
		if len(col) != rows {
			return nil, fmt.Errorf("parquet file %q: column %q has %d values for %d rows", path, f.Name, len(col), rows)
		}
		cols[i] = col
	}
	return cols, nil
}

// parquetPlanType maps the Arrow type of a column read back from Parquet to
// a plan type.
func parquetPlanType(t arrow.DataType) (plan.Type, bool) {
	switch t.ID() {
	case arrow.BOOL:
		return plan.Bool, true
	case arrow.INT32:
		return plan.Int32, true
	case arrow.INT64:
		return plan.Int64, true
	case arrow.FLOAT64:
		return plan.Float64, true
	case arrow.STRING:
		return plan.String, true
	case arrow.INT8:
		return plan.Int8, true
	case arrow.INT16:
		return plan.Int16, true
	case arrow.UINT8:
		return plan.Uint8, true
	case arrow.UINT16:
		return plan.Uint16, true
	case arrow.UINT32:
		return plan.Uint32, true
	case arrow.UINT64:
		return plan.Uint64, true
	case arrow.FLOAT32:
		return plan.Float32, true
	case arrow.DATE32:
		return plan.Date, true
	case arrow.TIMESTAMP:
		if ts := t.(*arrow.TimestampType); ts.Unit == arrow.Microsecond && ts.TimeZone == "" {
			return plan.Datetime, true
		}
	case arrow.DURATION:
		if t.(*arrow.DurationType).Unit == arrow.Microsecond {
			return plan.Duration, true
		}
	case arrow.LIST:
		// Whatever the reader names the element ("element"), the list's
		// plan type is its element's.
		if el, ok := parquetPlanType(t.(*arrow.ListType).Elem()); ok {
			lt, err := plan.ListOf(el)
			return lt, err == nil
		}
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		fs := make([]plan.StructField, st.NumFields())
		for i, f := range st.Fields() {
			ft, ok := parquetPlanType(f.Type)
			if !ok {
				return plan.Invalid, false
			}
			fs[i] = plan.StructField{Name: f.Name, Type: ft}
		}
		s, err := plan.StructOf(fs...)
		return s, err == nil
	}
	return plan.Invalid, false
}

// skipReason shortens a skip reason for the campaign's statistics: the
// text after the last "reference: unsupported: " marker, without the
// node's label.
func skipReason(why string) string {
	if i := strings.LastIndex(why, "unsupported: "); i >= 0 {
		why = why[i+len("unsupported: "):]
	}
	if i := strings.Index(why, ": "); i >= 0 && strings.HasPrefix(why, "extension ") {
		return why[:i] // "extension bucket"
	}
	return why
}
