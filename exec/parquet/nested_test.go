package parquet

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// nestedTable holds a list, a struct and scalar columns around them (so
// leaf indices differ from column indices) with every adversarial value:
// empty, null and all-null lists, null structs and structs of nulls.
func nestedTable(tb testing.TB, n int) *plan.Table {
	lt := plan.MustListOf(plan.Int64)
	st := plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Float64}, plan.StructField{Name: "b", Type: plan.String})
	ls := plan.MustListOf(plan.Datetime)
	cols := make([][]plan.Value, 5)
	for i := 0; i < n; i++ {
		var l, s, d plan.Value
		switch i % 5 {
		case 0:
			l, s = plan.ListValue(lt, nil), plan.NullValue(st)
		case 1:
			l, s = plan.NullValue(lt), plan.StructValue(st, []plan.Value{plan.NullValue(plan.Float64), plan.NullValue(plan.String)})
		case 2:
			l = plan.ListValue(lt, []plan.Value{plan.NullValue(plan.Int64), plan.NullValue(plan.Int64)})
			s = plan.StructValue(st, []plan.Value{plan.Float64Value(-0.0 * float64(i)), plan.StringValue("é")})
		default:
			l = plan.ListValue(lt, []plan.Value{plan.Int64Value(int64(i)), plan.NullValue(plan.Int64), plan.Int64Value(-1 << 63)})
			s = plan.StructValue(st, []plan.Value{plan.Float64Value(float64(i) / 3), plan.NullValue(plan.String)})
		}
		d = plan.ListValue(ls, []plan.Value{plan.DatetimeValue(int64(i) * 1_000_001)})
		if i%7 == 3 {
			d = plan.NullValue(ls)
		}
		cols[0] = append(cols[0], plan.Int64Value(int64(i)))
		cols[1] = append(cols[1], l)
		cols[2] = append(cols[2], s)
		cols[3] = append(cols[3], d)
		cols[4] = append(cols[4], plan.StringValue(fmt.Sprint(i%3)))
	}
	t, err := plan.NewTable("n", plan.MustSchema(
		plan.Field{Name: "i", Type: plan.Int64}, plan.Field{Name: "l", Type: lt, Nullable: true},
		plan.Field{Name: "s", Type: st, Nullable: true}, plan.Field{Name: "d", Type: ls, Nullable: true},
		plan.Field{Name: "k", Type: plan.String}), cols)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// TestParquetNested: list and struct columns write and read back value
// for value (empty, null and all-null lists, null structs and structs of
// nulls apart), whole or projected, through the scan and ScanAll, and a
// pushed comparison on the int64 column after them still prunes row
// groups by its own statistics.
func TestParquetNested(t *testing.T) {
	tbl := nestedTable(t, 103)
	path := filepath.Join(t.TempDir(), "n.parquet")
	if err := WriteTable(path, tbl, 10); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("n", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema %v, want %v", src.Schema(), tbl.Schema())
	}
	for _, columns := range [][]string{nil, {"s", "k"}, {"d"}} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: columns, Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		names, cols, rows := readAll(t, rr)
		if rows != 103 {
			t.Fatalf("rows = %d", rows)
		}
		for i, name := range names {
			if want := tbl.Column(tbl.Schema().Index(name)); !sameValues(cols[i], want) {
				t.Errorf("columns %v: column %s differs from the table", columns, name)
			}
		}
		mem.AssertSize(t, 0)
	}
	rec, err := src.ScanAll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	n := plan.Col("i").Ge(plan.Lit(int64(95))).Expr()
	rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: []string{"l", "i"},
		Predicates: []plan.PushedPredicate{{Expr: n, Support: plan.Inexact}}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, rows := readAll(t, rr)
	if rows != 13 {
		t.Errorf("a pushed i >= 95 read %d rows, want the last two row groups' 13", rows)
	}
}

// TestParquetNestedNarrow: lists and structs of the narrower numeric
// types (list<int8>, list<uint64>, list<float32>, a struct of float32,
// uint16 and int16) write and read back value for value: the extremes of
// each type, a float32 NaN with a payload and -0.0, empty, null and
// all-null lists, null structs and structs of nulls.
func TestParquetNestedNarrow(t *testing.T) {
	l8, lu, lf := plan.MustListOf(plan.Int8), plan.MustListOf(plan.Uint64), plan.MustListOf(plan.Float32)
	st := plan.MustStructOf(plan.StructField{Name: "a", Type: plan.Float32}, plan.StructField{Name: "b", Type: plan.Uint16},
		plan.StructField{Name: "c", Type: plan.Int16})
	iv := func(ty plan.Type, n int64) plan.Value { v, _ := plan.IntValue(ty, n); return v }
	uv := func(ty plan.Type, n uint64) plan.Value { v, _ := plan.UintValue(ty, n); return v }
	f32 := func(b uint32) plan.Value { return plan.Float32Value(math.Float32frombits(b)) }
	cols := make([][]plan.Value, 5)
	for i := 0; i < 57; i++ {
		var a, b, c, s plan.Value
		switch i % 4 {
		case 0:
			a, b, c = plan.ListValue(l8, nil), plan.NullValue(lu), plan.ListValue(lf, []plan.Value{plan.NullValue(plan.Float32)})
			s = plan.NullValue(st)
		case 1:
			a = plan.NullValue(l8)
			b = plan.ListValue(lu, []plan.Value{uv(plan.Uint64, math.MaxUint64), uv(plan.Uint64, uint64(i)), plan.NullValue(plan.Uint64)})
			c = plan.ListValue(lf, []plan.Value{f32(0x7f800123), f32(0x80000000), f32(0xff800000)})
			s = plan.StructValue(st, []plan.Value{plan.NullValue(plan.Float32), plan.NullValue(plan.Uint16), plan.NullValue(plan.Int16)})
		default:
			a = plan.ListValue(l8, []plan.Value{iv(plan.Int8, -128), plan.NullValue(plan.Int8), iv(plan.Int8, int64(i))})
			b = plan.ListValue(lu, nil)
			c = plan.NullValue(lf)
			s = plan.StructValue(st, []plan.Value{f32(0x7fc00001), uv(plan.Uint16, 65535), iv(plan.Int16, -32768)})
		}
		cols[0] = append(cols[0], plan.Int64Value(int64(i)))
		cols[1] = append(cols[1], a)
		cols[2] = append(cols[2], b)
		cols[3] = append(cols[3], c)
		cols[4] = append(cols[4], s)
	}
	tbl, err := plan.NewTable("nn", plan.MustSchema(plan.Field{Name: "i", Type: plan.Int64},
		plan.Field{Name: "a", Type: l8, Nullable: true}, plan.Field{Name: "b", Type: lu, Nullable: true},
		plan.Field{Name: "c", Type: lf, Nullable: true}, plan.Field{Name: "s", Type: st, Nullable: true}), cols)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nn.parquet")
	if err := WriteTable(path, tbl, 10); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("nn", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema %v, want %v", src.Schema(), tbl.Schema())
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rr, err := src.Scan(context.Background(), exec.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	names, got, rows := readAll(t, rr)
	if rows != 57 {
		t.Fatalf("rows = %d", rows)
	}
	for i, name := range names {
		if want := tbl.Column(tbl.Schema().Index(name)); !sameValues(got[i], want) {
			t.Errorf("column %s differs from the table", name)
		}
	}
	mem.AssertSize(t, 0)
}
