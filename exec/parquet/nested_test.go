package parquet

import (
	"context"
	"fmt"
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
