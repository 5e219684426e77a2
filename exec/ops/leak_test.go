package ops

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// TestNoLeaks runs every allocating kernel, on success and on error paths,
// against one checked allocator that must end at zero bytes.
func TestNoLeaks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	i64 := build(t, mem, tI64, 1, nil, maxInt64, 1, 2)
	defer i64.Release()
	f64 := build(t, mem, tF64, qNaN, negZero, nil, 1.5, 0.0)
	defer f64.Release()
	str := build(t, mem, tStr, "a", "", nil, "bb", "a")
	defer str.Release()
	bl := build(t, mem, tBool, true, nil, false, true, true)
	defer bl.Release()
	cols := []arrow.Array{i64, f64, str, bl}
	rec := record(cols...)
	defer rec.Release()

	ids, first, err := GroupIDs([]arrow.Array{str})
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range allAggs {
		for _, c := range cols {
			out, err := Aggregate(mem, Plain(fn), "agg", c, ids, len(first))
			if err == nil {
				out.Release()
			}
		}
	}
	// The overflow path (MaxInt64 + 1 within one group).
	if _, err := Aggregate(mem, Plain(plan.FuncSum), "s", i64, OneGroup(5), 1); err == nil {
		t.Error("want overflow")
	}
	for _, c := range cols {
		for _, idx := range [][]int32{{4, -1, 0, 2}, {0, 9}} { // the second fails
			if out, err := Take(mem, c, idx); err == nil {
				out.Release()
			}
			if out, err := Broadcast(mem, c, idx); err == nil {
				out.Release()
			}
		}
	}
	if out, err := TakeRecord(mem, rec, []int32{1, 0, 7}); err == nil {
		out.Release()
		t.Error("want an error")
	}
	out, err := TakeRecord(mem, rec, []int32{1, -1})
	if err != nil {
		t.Fatal(err)
	}
	out.Release()
	mask := build(t, mem, tBool, true, false, nil, true, false)
	defer mask.Release()
	filtered, err := FilterRecord(mem, rec, mask, bl)
	if err != nil {
		t.Fatal(err)
	}
	filtered.Release()
	if _, err := FilterRecord(mem, rec, i64); err == nil {
		t.Error("want an error")
	}
	sl := SliceRecord(rec, 1, 3)
	cat, err := ConcatRecords(mem, rec.Schema(), []arrow.RecordBatch{rec, sl, rec})
	if err != nil {
		t.Fatal(err)
	}
	cat.Release()
	one, err := ConcatRecords(mem, rec.Schema(), []arrow.RecordBatch{sl})
	if err != nil {
		t.Fatal(err)
	}
	one.Release()
	sl.Release()
	empty, err := ConcatRecords(mem, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	empty.Release()
}
