package exec

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// batchSource is a host source of one int64 column "id" numbering its
// rows, produced lazily as batches of size rows allocated from the scan's
// allocator, so a collect under a memory limit counts every batch it
// holds.
type batchSource struct {
	batches, size int
}

func (s *batchSource) Name() string { return "batches" }

func (s *batchSource) Schema() plan.Schema {
	sch, _ := plan.NewSchema(plan.Field{Name: "id", Type: plan.Int64})
	return sch
}

func (s *batchSource) Scan(_ context.Context, req ScanRequest) (array.RecordReader, error) {
	return &batchReader{src: s, req: req, schema: arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)}, nil
}

// batchReader yields batchSource's batches one at a time.
type batchReader struct {
	src    *batchSource
	req    ScanRequest
	schema *arrow.Schema
	next   int
	cur    arrow.RecordBatch
	refs   atomic.Int64
}

func (r *batchReader) Retain() { r.refs.Add(1) }
func (r *batchReader) Release() {
	if r.refs.Add(-1) < 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *batchReader) Schema() *arrow.Schema { return r.schema }
func (r *batchReader) Err() error            { return nil }

func (r *batchReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.next >= r.src.batches {
		return false
	}
	b := array.NewInt64Builder(r.req.Mem)
	defer b.Release()
	for i := 0; i < r.src.size; i++ {
		b.Append(int64(r.next*r.src.size + i))
	}
	a := b.NewArray()
	defer a.Release()
	r.cur = array.NewRecordBatch(r.schema, []arrow.Array{a}, int64(r.src.size))
	r.next++
	return true
}

func (r *batchReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *batchReader) Record() arrow.RecordBatch      { return r.cur }

// TestTailMemory: a tail directly over a scan holds only the batches that
// cover its last n rows (docs/semantics.md, tail), so it runs under a
// memory limit far below the source's size, which collecting the whole
// scan exceeds.
func TestTailMemory(t *testing.T) {
	src := &batchSource{batches: 400, size: 10_000} // 4,000,000 rows, 32 MB
	const limit = 2 << 20                           // 2 MiB
	cases := []struct {
		name  string
		n     int64
		first int64
	}{
		{"tail 100", 100, 3_999_900},
		{"tail across batches", 25_000, 3_975_000},
		{"tail 0", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Collect(context.Background(), plan.Scan(src).Tail(tc.n).Node(), Options{MemoryLimit: limit, Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Release()
			if got := res.Record.NumRows(); got != tc.n {
				t.Fatalf("%d rows, want %d", got, tc.n)
			}
			ids := res.Record.Column(0).(*array.Int64).Int64Values()
			for i, v := range ids {
				if v != tc.first+int64(i) {
					t.Fatalf("row %d is %d, want %d", i, v, tc.first+int64(i))
				}
			}
			if res.Memory.Peak > limit {
				t.Errorf("peak %d above the limit %d", res.Memory.Peak, limit)
			}
		})
	}
	// The same source read whole does not fit: the limit is real.
	_, err := Collect(context.Background(), plan.Scan(src).Reverse().Tail(100).Node(), Options{MemoryLimit: limit, Parallelism: 1})
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.ResourceExhausted {
		t.Fatalf("reverse . tail read whole: %v, want resource_exhausted", err)
	}
}
