package exec_test

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

var (
	nestedBenchOnce sync.Once
	nestedBenchRec  arrow.RecordBatch
)

// nestedBenchData is a 1,000,000-row batch: id (int64), s
// (struct{a: int64, b: float64}, every 16th row null, every 8th a null
// field) and l (list<int64> of lengths cycling 0, 1, 2, 3, 4, 5, every
// 16th row null: 2,312,496 elements; exploded, 2,541,663 rows, each
// empty or null list giving one).
func nestedBenchData(b *testing.B) arrow.RecordBatch {
	nestedBenchOnce.Do(func() {
		st := plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Int64}, plan.StructField{Name: "b", Type: plan.Float64})
		s := plan.MustSchema(plan.Field{Name: "id", Type: plan.Int64}, plan.Field{Name: "s", Type: st, Nullable: true},
			plan.Field{Name: "l", Type: plan.MustListOf(plan.Int64), Nullable: true})
		as, err := kernel.ArrowSchema(s)
		if err != nil {
			b.Fatal(err)
		}
		rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
		defer rb.Release()
		ids := rb.Field(0).(*array.Int64Builder)
		sb := rb.Field(1).(*array.StructBuilder)
		fa, fb := sb.FieldBuilder(0).(*array.Int64Builder), sb.FieldBuilder(1).(*array.Float64Builder)
		lb := rb.Field(2).(*array.ListBuilder)
		lv := lb.ValueBuilder().(*array.Int64Builder)
		for i := 0; i < benchRows; i++ {
			ids.Append(int64(i))
			if i%16 == 15 {
				sb.AppendNull()
				lb.AppendNull()
				continue
			}
			sb.Append(true)
			if i%8 == 3 {
				fa.AppendNull()
			} else {
				fa.Append(int64(i) * 3)
			}
			fb.Append(float64(i) / 7)
			lb.Append(true)
			for k := 0; k < i%6; k++ {
				lv.Append(int64(i + k))
			}
		}
		nestedBenchRec = rb.NewRecordBatch()
	})
	return nestedBenchRec
}

// arrayBytes counts the buffers of a, its children's included.
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}

// BenchmarkNestedReshape collects unnest and explode over the
// 1,000,000-row nested batch, beside the scan alone (base): the difference
// is the node's cost, result materialization included. unnest replaces s
// by a and b (1,000,000 rows); explode turns l into 2,541,663 rows,
// repeating id and s (explode_without_s: id only, to separate the
// struct's gather from the node's own work).
func BenchmarkNestedReshape(b *testing.B) {
	rec := nestedBenchData(b)
	src, err := exec.NewArrowSource("nested", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Release()
	scan := plan.Scan(src)
	var bytes int64
	for _, c := range rec.Columns() {
		bytes += arrayBytes(c.Data())
	}
	for _, q := range []struct {
		name string
		plan plan.Frame
	}{
		{"base", scan},
		{"unnest", scan.Unnest("s")},
		{"explode", scan.Explode("l")},
		{"explode_without_s", scan.Select(plan.Col("id"), plan.Col("l")).Explode("l")},
	} {
		b.Run(q.name, func(b *testing.B) { runBench(b, q.plan.Node(), bytes) })
	}
}

// TestNestedBenchShapes checks the benchmark's plans on its own data: row
// counts and a few values, so the benchmark measures what it says.
func TestNestedBenchShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 1,000,000-row batch")
	}
	rec := nestedBenchData(nil)
	src, err := exec.NewArrowSource("nested", rec)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	for _, q := range []struct {
		plan plan.Frame
		rows int
	}{
		{plan.Scan(src).Unnest("s"), benchRows},
		{plan.Scan(src).Explode("l"), 2541663},
	} {
		res, err := exec.Collect(t.Context(), q.plan.Node(), exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.NumRows() != q.rows {
			t.Errorf("%s: %d rows, want %d", q.plan.Node().Label(), res.NumRows(), q.rows)
		}
		res.Release()
	}
}
