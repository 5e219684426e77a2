// Package exectest holds the test helpers that package exec's tests and
// package exec/parquet's tests share: checked allocators, plan tables and
// values written compactly, reading a record reader back as plan values,
// and writing an Arrow record as a Parquet file. It imports neither exec
// nor exec/parquet, so that both packages' internal tests can import it.
package exectest

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// Checked returns a checked allocator that the test asserts is back at
// zero when it ends.
func Checked(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// MustTable builds a plan table from columns given as plan values.
func MustTable(tb testing.TB, name string, fields []plan.Field, cols ...[]plan.Value) *plan.Table {
	tb.Helper()
	t, err := plan.NewTable(name, plan.MustSchema(fields...), cols)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// Ints converts Go ints (nil for null) to int64 plan values.
func Ints(vs ...any) []plan.Value {
	return values(plan.Int64, func(v int) plan.Value { return plan.Int64Value(int64(v)) }, vs)
}

// Floats converts Go float64s (nil for null) to float64 plan values.
func Floats(vs ...any) []plan.Value { return values(plan.Float64, plan.Float64Value, vs) }

// Strs converts Go strings (nil for null) to string plan values.
func Strs(vs ...any) []plan.Value { return values(plan.String, plan.StringValue, vs) }

// values converts Go values of type T (nil for null) to plan values of
// type t.
func values[T any](t plan.Type, of func(T) plan.Value, vs []any) []plan.Value {
	out := make([]plan.Value, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = plan.NullValue(t)
		} else {
			out[i] = of(v.(T))
		}
	}
	return out
}

// ReadAll drains a reader into per-column plan values and releases it.
func ReadAll(tb testing.TB, rr array.RecordReader) (names []string, cols [][]plan.Value, rows int64) {
	tb.Helper()
	defer rr.Release()
	for _, f := range rr.Schema().Fields() {
		names = append(names, f.Name)
	}
	cols = make([][]plan.Value, len(names))
	for rr.Next() {
		b := rr.RecordBatch()
		rows += b.NumRows()
		for c := range cols {
			for i := 0; i < int(b.NumRows()); i++ {
				v, err := kernel.ValueAt(b.Column(c), i)
				if err != nil {
					tb.Fatal(err)
				}
				cols[c] = append(cols[c], v)
			}
		}
	}
	if err := rr.Err(); err != nil {
		tb.Fatal(err)
	}
	return names, cols, rows
}

// SameValues reports whether a and b hold identical values (bit for bit:
// NaN payloads and the sign of zero count), in order.
func SameValues(a, b []plan.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Identical(b[i]) {
			return false
		}
	}
	return true
}

// WriteParquetRaw writes rec to path in row groups of at most groupRows
// rows, with statistics (and the writer properties more), as arrow-go
// writes it: without page checksums (exec/parquet's AddPageChecksums adds
// them, as dfopt's writers do).
func WriteParquetRaw(tb testing.TB, path string, rec arrow.RecordBatch, groupRows int64, more ...parquet.WriterProperty) {
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

// TieTable is a table whose sort keys tie a lot: k in 0..2 with nulls, f
// with NaNs of two payloads, ±0.0 and nulls, and a row number id that
// tells the rows apart.
func TieTable(t testing.TB, rows int, seed int64) *plan.Table {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	var ids, ks, fs []plan.Value
	floats := []float64{math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff80000000000ab), 0, math.Copysign(0, -1), 1, math.Inf(-1)}
	for i := 0; i < rows; i++ {
		ids = append(ids, plan.Int64Value(int64(i)))
		if r.Intn(5) == 0 {
			ks = append(ks, plan.NullValue(plan.Int64))
		} else {
			ks = append(ks, plan.Int64Value(int64(r.Intn(3))))
		}
		if r.Intn(6) == 0 {
			fs = append(fs, plan.NullValue(plan.Float64))
		} else {
			fs = append(fs, plan.Float64Value(floats[r.Intn(len(floats))]))
		}
	}
	tbl, err := plan.NewTable("ties", plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64}, plan.Field{Name: "k", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "f", Type: plan.Float64, Nullable: true}), [][]plan.Value{ids, ks, fs})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// Hinted returns `limit n . scan max_rows=hint` over src with the pushed
// conjuncts given.
func Hinted(src plan.Source, n, hint int64, pushed ...plan.PushedPredicate) plan.Node {
	s := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Pushed: pushed, HasMaxRows: true, MaxRows: hint}
	return &plan.LimitNode{Input: s, N: n}
}

// Render prints values for a failure message, NaNs with their payloads.
func Render(vs []plan.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
		if v.Type() == plan.Float64 && !v.IsNull() && math.IsNaN(v.Float()) {
			parts[i] = fmt.Sprintf("NaN(%#x)", math.Float64bits(v.Float()))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// PushedScan returns a scan of src producing columns (all of them when
// nil) with preds pushed into it under the classification support.
func PushedScan(src plan.Source, columns []string, support plan.PredicateSupport, preds ...plan.E) *plan.ScanNode {
	n := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Projected: columns != nil, Columns: columns}
	for _, p := range preds {
		n.Pushed = append(n.Pushed, plan.PushedPredicate{Expr: p.Expr(), Support: support})
	}
	return n
}
