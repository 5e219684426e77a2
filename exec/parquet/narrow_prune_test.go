package parquet

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// TestParquetNarrowPruning: row-group statistics of the narrower numeric
// columns prune row groups, each compared in its own order (uint32 and
// uint64 unsigned, beyond the signed range too; int8; float32 with a NaN
// bound never trusted), and never refute a group holding a match. Ten
// groups of ten rows, every column increasing with the row index i.
func TestParquetNarrowPruning(t *testing.T) {
	const rows = 100
	iv := func(ty plan.Type, n int64) plan.Value { v, _ := plan.IntValue(ty, n); return v }
	uv := func(ty plan.Type, n uint64) plan.Value { v, _ := plan.UintValue(ty, n); return v }
	cols := make([][]plan.Value, 6)
	for i := 0; i < rows; i++ {
		cols[0] = append(cols[0], plan.Int64Value(int64(i)))
		cols[1] = append(cols[1], uv(plan.Uint32, uint64(i)*(math.MaxUint32/99)))
		cols[2] = append(cols[2], uv(plan.Uint64, uint64(i)*(math.MaxUint64/99)))
		cols[3] = append(cols[3], iv(plan.Int8, int64(i-50)))
		f := plan.Float32Value(float32(i) / 2)
		if i == 95 {
			f = plan.Float32Value(float32(math.NaN()))
		}
		cols[4] = append(cols[4], f)
		cols[5] = append(cols[5], uv(plan.Uint16, uint64(i)*600))
	}
	tbl, err := plan.NewTable("nw", plan.MustSchema(plan.Field{Name: "i", Type: plan.Int64},
		plan.Field{Name: "u32", Type: plan.Uint32}, plan.Field{Name: "u64", Type: plan.Uint64},
		plan.Field{Name: "i8", Type: plan.Int8}, plan.Field{Name: "f32", Type: plan.Float32},
		plan.Field{Name: "u16", Type: plan.Uint16}), cols)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nw.parquet")
	if err := WriteTable(path, tbl, 10); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("nw", path)
	if err != nil {
		t.Fatal(err)
	}
	pred := func(fn plan.Func, col string, v plan.Value) plan.Expr {
		return &plan.Call{Fn: fn, Args: []plan.Expr{&plan.Column{Name: col}, &plan.Literal{Value: v}}}
	}
	for _, c := range []struct {
		name   string
		pred   plan.Expr
		groups int64 // row groups that must be read
	}{
		{"uint32 beyond int32", pred(plan.FuncGe, "u32", uv(plan.Uint32, 3_000_000_000)), 3},
		{"uint32 with an int64 literal", pred(plan.FuncLt, "u32", plan.Int64Value(100_000_000)), 1},
		{"uint64 beyond int64", pred(plan.FuncGt, "u64", uv(plan.Uint64, math.MaxUint64/99*88)), 2},
		{"uint64 eq", pred(plan.FuncEq, "u64", uv(plan.Uint64, math.MaxUint64/99*5)), 1},
		{"uint64 with a uint8 literal", pred(plan.FuncLe, "u64", uv(plan.Uint8, 0)), 1},
		{"int8 with an int8 literal", pred(plan.FuncLt, "i8", iv(plan.Int8, -40)), 1},
		{"int8 with an int64 literal", pred(plan.FuncGe, "i8", plan.Int64Value(45)), 1},
		{"int8 with a uint8 literal", pred(plan.FuncGt, "i8", uv(plan.Uint8, 200)), 0},
		{"uint16 with an int16 literal", pred(plan.FuncGe, "u16", iv(plan.Int16, 30000)), 5},
		{"float32", pred(plan.FuncLt, "f32", plan.Float32Value(9.5)), 2},
		{"float32 with a float64 literal", pred(plan.FuncGt, "f32", plan.Float64Value(40.25)), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ty, _ := plan.TypeAndTotality(c.pred, tbl.Schema(), plan.TrustLanguage); ty != plan.Bool {
				t.Fatalf("ill-typed test predicate %s", c.pred)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			before := src.Stats()
			rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: []string{"i"},
				Predicates: []plan.PushedPredicate{{Expr: c.pred, Support: plan.Inexact}}, Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			_, _, n := readAll(t, rr)
			if got := src.Stats().RowGroupsRead - before.RowGroupsRead; got != c.groups || n != 10*c.groups {
				t.Errorf("read %d row groups (%d rows), want %d", got, n, c.groups)
			}
		})
	}
}
