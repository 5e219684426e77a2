package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/exectest"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// The helpers shared with exec/parquet's tests (exec/internal/exectest).
var (
	mustTable  = exectest.MustTable
	ints       = exectest.Ints
	floats     = exectest.Floats
	strs       = exectest.Strs
	readAll    = exectest.ReadAll
	sameValues = exectest.SameValues
)

func TestArrowSource(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl := mustTable(t, "a", []plan.Field{{Name: "i", Type: plan.Int64, Nullable: true}, {Name: "s", Type: plan.String, Nullable: true}},
		ints(1, nil, 3), strs("x", "y", nil))
	rec, err := kernel.TableRecord(mem, tbl)
	if err != nil {
		t.Fatal(err)
	}
	arrTbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec, rec})
	rec.Release()
	for _, data := range []any{arrTbl} {
		src, err := NewArrowSource("a", data)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := src.Scan(context.Background(), ScanRequest{Columns: []string{"s"}})
		if err != nil {
			t.Fatal(err)
		}
		names, cols, rows := readAll(t, rr)
		if rows != 6 || len(names) != 1 || names[0] != "s" || !sameValues(cols[0], strs("x", "y", nil, "x", "y", nil)) {
			t.Fatalf("got %v %v rows=%d", names, cols, rows)
		}
		if _, err := src.Scan(context.Background(), ScanRequest{Columns: []string{"zz"}}); err == nil {
			t.Fatal("scanning an unknown column succeeded")
		}
		src.Release()
	}
	arrTbl.Release()
	if _, err := NewArrowSource("bad", 42); err == nil {
		t.Fatal("NewArrowSource accepted an int")
	}
}
