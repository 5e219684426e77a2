package parquet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// mixedTable has every dfopt type, nullable and not, with a NaN payload,
// -0.0, empty and repeated strings, over n rows.
func mixedTable(tb testing.TB, n int) *plan.Table {
	tb.Helper()
	cols := make([][]plan.Value, 7)
	for i := range cols {
		cols[i] = make([]plan.Value, n)
	}
	for i := 0; i < n; i++ {
		cols[0][i] = plan.Int64Value(int64(i) * 7919)
		cols[1][i] = plan.Int32Value(int32(i % 100))
		if i%5 == 0 {
			cols[1][i] = plan.NullValue(plan.Int32)
		}
		switch {
		case i%13 == 0:
			cols[2][i] = plan.NullValue(plan.Float64)
		case i%17 == 0:
			cols[2][i] = plan.Float64Value(math.Float64frombits(0x7ff8000000000abc)) // one payload: a dictionary writer keeps one NaN
		case i%19 == 0:
			cols[2][i] = plan.Float64Value(math.Copysign(0, -1))
		default:
			cols[2][i] = plan.Float64Value(float64(i) / 3)
		}
		cols[3][i] = plan.StringValue(fmt.Sprintf("s%d", i%7))
		switch {
		case i%3 == 0:
			cols[4][i] = plan.NullValue(plan.String)
		case i%4 == 0:
			cols[4][i] = plan.StringValue("")
		default:
			cols[4][i] = plan.StringValue(fmt.Sprintf("unique-%d-é", i))
		}
		cols[5][i] = plan.BoolValue(i%3 == 1)
		cols[6][i] = plan.BoolValue(i%2 == 0)
		if i%7 == 0 {
			cols[6][i] = plan.NullValue(plan.Bool)
		}
	}
	return mustTable(tb, "m", []plan.Field{{Name: "id", Type: plan.Int64}, {Name: "i32", Type: plan.Int32, Nullable: true},
		{Name: "f", Type: plan.Float64, Nullable: true}, {Name: "d", Type: plan.String}, {Name: "u", Type: plan.String, Nullable: true},
		{Name: "b", Type: plan.Bool}, {Name: "nb", Type: plan.Bool, Nullable: true}}, cols...)
}

// TestParquetDecodeParallel: the direct decoder returns the table's
// values, bit for bit, for row groups of odd sizes (so groups start
// inside a bitmap byte), with and without dictionary encoding, small data
// pages, whatever the parallelism, and releases everything.
func TestParquetDecodeParallel(t *testing.T) {
	tbl := mixedTable(t, 1003)
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	dir := t.TempDir()
	files := []struct {
		name  string
		group int64
		props []parquet.WriterProperty
	}{
		{"dictionary", 97, nil},
		{"plain", 101, []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{"small pages", 333, []parquet.WriterProperty{parquet.WithDataPageSize(256), parquet.WithDictionaryDefault(false)}},
		{"one group", 5000, nil},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name+".parquet")
		writeParquet(t, path, rec, f.group, f.props...)
		src, err := OpenFile("m", path)
		if err != nil {
			t.Fatal(err)
		}
		for _, par := range []int{1, 2, 3, 8} {
			for _, columns := range [][]string{nil, {"u", "f", "nb"}} {
				t.Run(fmt.Sprintf("%s/par=%d/cols=%v", f.name, par, columns), func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: columns, Mem: mem, Parallelism: par})
					if err != nil {
						t.Fatal(err)
					}
					names, cols, rows := readAll(t, rr)
					if rows != 1003 {
						t.Fatalf("rows = %d, want 1003", rows)
					}
					for i, name := range names {
						if want := tbl.Column(tbl.Schema().Index(name)); !sameValues(cols[i], want) {
							t.Errorf("column %s differs from the table", name)
						}
					}
				})
			}
		}
	}
}

// TestParquetScanCancelled: a scan whose context is cancelled fails with
// the context's error and leaks nothing, sequential or parallel.
func TestParquetScanCancelled(t *testing.T) {
	tbl := mixedTable(t, 3000)
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "m.parquet")
	writeParquet(t, path, rec, 100)
	src, err := OpenFile("m", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, par := range []int{1, 2} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rr, err := src.Scan(ctx, exec.ScanRequest{Mem: mem, Parallelism: par})
		if err == nil {
			rr.Release()
			t.Fatalf("par=%d: a cancelled scan succeeded", par)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("par=%d: error %v, want context.Canceled", par, err)
		}
		mem.AssertSize(t, 0)
	}
}
