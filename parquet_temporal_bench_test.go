package dfopt_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/exec"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// BenchmarkParquetDateRange (issue 17, Numbers): the TPC-H style date
// range `o_orderdate >= date("1994-01-01"), o_orderdate < date("1995-01-01")`
// over a date-sorted Parquet file of 1,000,000 rows in 10 row groups
// (each group one year, 1992..2001; an int64 key and a float64 price
// beside the date). "pruned" runs the optimized plan, whose pushed
// conjuncts let the scan read the one 1994 group; "unpruned" runs the
// plan as written, which reads all ten groups and filters them. Both
// return the same 100,000 rows (checked once before timing). The
// row_groups/op metric is the groups the scan read.
func BenchmarkParquetDateRange(b *testing.B) {
	const n, group = 1_000_000, 100_000
	d, k, p := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for i := 0; i < n; i++ {
		// Row group g holds the days 8036 + 365g ... 8036 + 365g + 364.
		d[i] = plan.DateValue(int32(8036 + i*365/group))
		k[i] = plan.Int64Value(int64(i))
		p[i] = plan.Float64Value(float64(i%100_000) / 7)
	}
	tbl, err := plan.NewTable("orders", plan.MustSchema(
		plan.Field{Name: "o_orderdate", Type: plan.Date},
		plan.Field{Name: "o_orderkey", Type: plan.Int64},
		plan.Field{Name: "o_totalprice", Type: plan.Float64}), [][]plan.Value{d, k, p})
	if err != nil {
		b.Fatal(err)
	}
	d, k, p = nil, nil, nil
	path := filepath.Join(b.TempDir(), "orders.parquet")
	if err := dfparquet.WriteTable(path, tbl, group); err != nil {
		b.Fatal(err)
	}
	tbl = nil
	src, err := dfparquet.OpenFile("orders", path)
	if err != nil {
		b.Fatal(err)
	}
	written := plan.Scan(src).
		Filter(plan.Col("o_orderdate").Ge(plan.DateLit("1994-01-01")), plan.Col("o_orderdate").Lt(plan.DateLit("1995-01-01"))).
		Select(plan.Col("o_orderkey"), plan.Col("o_totalprice")).Node()
	res, err := rules.Optimize(written, rules.DefaultFlags())
	if err != nil {
		b.Fatal(err)
	}
	run := func(tb testing.TB, root plan.Node) (rows, groups int64) {
		before := src.Stats().RowGroupsRead
		r, err := exec.Collect(context.Background(), root, exec.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		rows = r.Record.NumRows()
		r.Release()
		return rows, src.Stats().RowGroupsRead - before
	}
	for _, c := range []struct {
		name   string
		root   plan.Node
		groups int64
	}{{"pruned", res.Plan, 1}, {"unpruned", written, 10}} {
		b.Run(c.name, func(b *testing.B) {
			if rows, groups := run(b, c.root); rows != group || groups != c.groups {
				b.Fatalf("%d rows from %d row groups, want %d from %d", rows, groups, group, c.groups)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var groups int64
			for i := 0; i < b.N; i++ {
				_, g := run(b, c.root)
				groups += g
			}
			b.ReportMetric(float64(groups)/float64(b.N), "row_groups/op")
		})
	}
}
