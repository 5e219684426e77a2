package tpch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// RowsFromRecords turns a query result's record batches into the rows
// Compare takes: one []any a row, a null as nil, integers as int64 (uint64
// as uint64), floats as float64, strings as string, booleans as bool and
// dates as arrow.Date32. Other column types are an error naming the
// column.
func RowsFromRecords(recs []arrow.RecordBatch) ([][]any, error) {
	var rows [][]any
	for _, rec := range recs {
		n := int(rec.NumRows())
		start := len(rows)
		for i := 0; i < n; i++ {
			rows = append(rows, make([]any, rec.NumCols()))
		}
		for c, col := range rec.Columns() {
			get, err := cellGetter(col)
			if err != nil {
				return nil, fmt.Errorf("tpch: column %s: %w", rec.Schema().Field(c).Name, err)
			}
			for i := 0; i < n; i++ {
				if col.IsNull(i) {
					continue
				}
				rows[start+i][c] = get(i)
			}
		}
	}
	return rows, nil
}

// cellGetter returns the function reading row i of a column as a Go value.
func cellGetter(col arrow.Array) (func(int) any, error) {
	switch a := col.(type) {
	case *array.Int8:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Int16:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Int32:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Int64:
		return func(i int) any { return a.Value(i) }, nil
	case *array.Uint8:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Uint16:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Uint32:
		return func(i int) any { return int64(a.Value(i)) }, nil
	case *array.Uint64:
		return func(i int) any { return a.Value(i) }, nil
	case *array.Float32:
		return func(i int) any { return float64(a.Value(i)) }, nil
	case *array.Float64:
		return func(i int) any { return a.Value(i) }, nil
	case *array.String:
		return func(i int) any { return a.Value(i) }, nil
	case *array.LargeString:
		return func(i int) any { return a.Value(i) }, nil
	case *array.Boolean:
		return func(i int) any { return a.Value(i) }, nil
	case *array.Date32:
		return func(i int) any { return a.Value(i) }, nil
	}
	return nil, fmt.Errorf("type %s is not one Compare reads", col.DataType())
}
