package dfopt_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/exec"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// TestParquetTemporal: date, datetime and duration columns written to
// Parquet (date32 as INT32 DATE, timestamp[us] as INT64 TIMESTAMP(MICROS)
// not adjusted to UTC, duration[us] as INT64 restored from the stored
// Arrow schema) read back with their types and bits, and the TPC-H filter
// `o_orderdate >= date("1994-01-01"), o_orderdate < date("1995-01-01")`
// (two conjuncts of one filter) over a date-sorted file of 10 row groups reads exactly the one group
// holding 1994, returning bit for bit what the unoptimized plan returns.
func TestParquetTemporal(t *testing.T) {
	const n, group = 10000, 1000
	d, m, u := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for i := 0; i < n; i++ {
		// Row group g holds the days 8036 + 365g ... 8036 + 365g + 364:
		// group 2 is exactly 1994-01-01 (day 8766) ... 1994-12-31.
		d[i] = plan.DateValue(int32(8036 + i*365/1000))
		switch {
		case i%17 == 0:
			m[i] = plan.NullValue(plan.Datetime)
		case i == 1:
			m[i] = plan.DatetimeValue(math.MinInt64)
		case i == 2:
			m[i] = plan.DatetimeValue(math.MaxInt64)
		default:
			m[i] = plan.DatetimeValue(int64(8036+i*365/1000)*plan.MicrosPerDay + int64(i)*1_000_003)
		}
		u[i] = plan.DurationValue(int64(i)*1000 - 5_000_000)
	}
	u[3] = plan.DurationValue(math.MinInt64)
	u[4] = plan.NullValue(plan.Duration)
	tbl, err := plan.NewTable("orders", plan.MustSchema(
		plan.Field{Name: "o_orderdate", Type: plan.Date},
		plan.Field{Name: "o_ts", Type: plan.Datetime, Nullable: true},
		plan.Field{Name: "o_wait", Type: plan.Duration, Nullable: true}), [][]plan.Value{d, m, u})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "orders.parquet")
	if err := dfparquet.WriteTable(path, tbl, group); err != nil {
		t.Fatal(err)
	}
	src, err := dfparquet.OpenFile("orders", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema read back %s, want %s", src.Schema(), tbl.Schema())
	}
	collect := func(root plan.Node) ([][]plan.Value, int64) {
		before := src.Stats().RowGroupsRead
		r, err := exec.Collect(context.Background(), root, exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		cols, err := r.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return cols, src.Stats().RowGroupsRead - before
	}
	all, groups := collect(plan.Scan(src).Node())
	if groups != n/group {
		t.Errorf("a full scan read %d row groups, want %d", groups, n/group)
	}
	for c, col := range [][]plan.Value{d, m, u} {
		for r := range col {
			if !all[c][r].Identical(col[r]) {
				t.Fatalf("column %d row %d: read back %v, wrote %v", c, r, all[c][r], col[r])
			}
		}
	}

	p := plan.Scan(src).
		Filter(plan.Col("o_orderdate").Ge(plan.DateLit("1994-01-01")), plan.Col("o_orderdate").Lt(plan.DateLit("1995-01-01"))).
		Select(plan.Col("o_orderdate").Year().Alias("y"), plan.Col("o_ts"), plan.Col("o_wait")).Node()
	res, err := rules.Optimize(p, rules.DefaultFlags())
	if err != nil {
		t.Fatal(err)
	}
	want, wantGroups := collect(p)
	got, gotGroups := collect(res.Plan)
	if wantGroups != n/group || gotGroups != 1 {
		t.Errorf("row groups read: unoptimized %d (want %d), optimized %d (want 1):\n%s", wantGroups, n/group, gotGroups, plan.Explain(res.Plan))
	}
	if len(want[0]) != 1000 || len(got[0]) != len(want[0]) {
		t.Fatalf("rows: optimized %d, unoptimized %d, want 1000", len(got[0]), len(want[0]))
	}
	for c := range want {
		for r := range want[c] {
			if !got[c][r].Identical(want[c][r]) {
				t.Fatalf("column %d row %d: optimized %v, unoptimized %v", c, r, got[c][r], want[c][r])
			}
		}
	}
	for _, y := range want[0] {
		if y.Int() != 1994 {
			t.Fatalf("year %v in the 1994 range", y)
		}
	}
}
