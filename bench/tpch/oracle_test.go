package tpch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
)

// subset is a consistent slice of the TPC-H tables, small enough that a
// SQL-style plan as written — a chain of cross joins of up to eight tables
// under one filter — runs: the first nOrders orders, their lines, the
// parts, part-supplier pairs and suppliers those lines name, the orders'
// customers and as many customers without orders, and the nations and
// regions all of these name. Every foreign key resolves, as in the full
// tables, so joins match.
func subset(t *testing.T, tables map[string]arrow.Table, nOrders int) map[string]arrow.RecordBatch {
	t.Helper()
	set := func(vals []int64) map[int64]bool {
		m := map[int64]bool{}
		for _, v := range vals {
			m[v] = true
		}
		return m
	}
	col := func(table, name string) []int64 { return int64Column(t, tables[table], name) }
	keep := map[string][]bool{}
	mark := func(table string, f func(i int) bool) {
		n := int(tables[table].NumRows())
		m := make([]bool, n)
		for i := range m {
			m[i] = f(i)
		}
		keep[table] = m
	}

	okeys, ocust := col("orders", "o_orderkey"), col("orders", "o_custkey")
	orders := set(okeys[:nOrders])
	mark("orders", func(i int) bool { return orders[okeys[i]] })
	lorder, lpart, lsupp := col("lineitem", "l_orderkey"), col("lineitem", "l_partkey"), col("lineitem", "l_suppkey")
	parts, supps, pairs := map[int64]bool{}, map[int64]bool{}, map[[2]int64]bool{}
	mark("lineitem", func(i int) bool {
		if !orders[lorder[i]] {
			return false
		}
		parts[lpart[i]], supps[lsupp[i]], pairs[[2]int64{lpart[i], lsupp[i]}] = true, true, true
		return true
	})
	pkeys := col("part", "p_partkey")
	mark("part", func(i int) bool { return parts[pkeys[i]] })
	pspart, pssupp := col("partsupp", "ps_partkey"), col("partsupp", "ps_suppkey")
	mark("partsupp", func(i int) bool { return pairs[[2]int64{pspart[i], pssupp[i]}] })
	customers := set(ocust[:nOrders])
	ckeys := col("customer", "c_custkey")
	without := 0
	for _, c := range ckeys { // customers without orders: custkeys divisible by 3
		if c%3 == 0 && without < nOrders {
			customers[c] = true
			without++
		}
	}
	nations := map[int64]bool{}
	cnation := col("customer", "c_nationkey")
	mark("customer", func(i int) bool {
		if customers[ckeys[i]] {
			nations[cnation[i]] = true
			return true
		}
		return false
	})
	skeys, snation := col("supplier", "s_suppkey"), col("supplier", "s_nationkey")
	mark("supplier", func(i int) bool {
		if supps[skeys[i]] {
			nations[snation[i]] = true
			return true
		}
		return false
	})
	nkeys, nregion := col("nation", "n_nationkey"), col("nation", "n_regionkey")
	regions := map[int64]bool{}
	mark("nation", func(i int) bool {
		if nations[nkeys[i]] {
			regions[nregion[i]] = true
			return true
		}
		return false
	})
	rkeys := col("region", "r_regionkey")
	mark("region", func(i int) bool { return regions[rkeys[i]] })

	out := map[string]arrow.RecordBatch{}
	for _, name := range Tables {
		out[name] = filterTable(t, tables[name], keep[name])
	}
	return out
}

// filterTable is the rows of tbl whose keep entry is true, as one record.
func filterTable(t *testing.T, tbl arrow.Table, keep []bool) arrow.RecordBatch {
	t.Helper()
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		c, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		cols[i] = c
	}
	rec := array.NewRecordBatch(tbl.Schema(), cols, tbl.NumRows())
	defer rec.Release()
	mb := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer mb.Release()
	mb.AppendValues(keep, nil)
	mask := mb.NewArray()
	defer mask.Release()
	res, err := compute.FilterRecordBatch(context.Background(), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// writeSubset writes the tables of d as Parquet files under dir, in row
// groups of 64 rows (so a scan of the small subset meets several).
func writeSubset(t *testing.T, dir string, d map[string]arrow.RecordBatch) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, rec := range d {
		f, err := os.Create(filepath.Join(dir, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(64))
		w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// subsetSizes are the subsets checkPlansOracle writes, in orders.
var subsetSizes = []int{2, 5, 20, 50, 200}

// maxCrossRows bounds the product of the row counts of every table a
// SQL-style plan scans (each scan counted), which bounds its cross-join
// chain as written.
const maxCrossRows = 3_000_000

// checkPlansOracle runs every TPC-H plan file, in both styles, through
// the oracle's four ways (optimized, as written, eager, reference), each
// over Parquet files of a subset of the SF 0.01 tables: a dataframe-style
// plan over the 200-order subset, a SQL-style one over the largest subset
// where the product of its scans' row counts (a bound of its cross-join
// chain as written) is at most maxCrossRows, the 2-order one at least.
// They must agree, and no way may skip the plan.
func checkPlansOracle(t *testing.T, tables map[string]arrow.Table) {
	t.Helper()
	root := t.TempDir()
	dirs := map[int]string{}
	rows := map[int]map[string]int64{}
	for _, n := range subsetSizes {
		d := subset(t, tables, n)
		dirs[n] = filepath.Join(root, fmt.Sprint(n))
		writeSubset(t, dirs[n], d)
		rows[n] = map[string]int64{}
		for name, r := range d {
			rows[n][name] = r.NumRows()
			r.Release()
		}
	}
	for _, f := range planFiles(t) {
		n := subsetSizes[len(subsetSizes)-1]
		if strings.Contains(f, "/sql/") {
			scans := scannedTables(t, f)
			n = subsetSizes[0]
			for _, m := range subsetSizes[1:] {
				product := 1.0
				for _, table := range scans {
					product *= float64(rows[m][table])
				}
				if product <= maxCrossRows {
					n = m
				}
			}
		}
		rep := checkPlanOracle(t, f, dirs[n])
		t.Logf("%s over the %d-order subset: %d rows", f, n, rep.Results[0].Outcome.Rows)
		if !rep.Agree() {
			t.Errorf("%s over the %d-order subset: the four ways disagree:\n%s", f, n, rep)
		}
		for _, w := range rep.Results {
			if w.Skipped != "" {
				t.Errorf("%s over the %d-order subset: a way was skipped: %s", f, n, w.Skipped)
			}
		}
	}
}

// scannedTables lists the table of every scan of the plan file f, once
// per scan.
func scannedTables(t *testing.T, f string) []string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Plan any `json:"plan"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["op"] == "scan" {
				if table, ok := x["table"].(string); ok {
					out = append(out, table)
				}
			}
			for _, k := range []string{"input", "left", "right"} {
				walk(x[k])
			}
			if ins, ok := x["inputs"].([]any); ok {
				for _, in := range ins {
					walk(in)
				}
			}
		}
	}
	walk(doc.Plan)
	return out
}

// checkPlanOracle decodes the plan file f over the Parquet files in dir
// and runs the oracle on it.
func checkPlanOracle(t *testing.T, f, dir string) *oracle.Report {
	t.Helper()
	doc, err := planjson.DecodeFile(f, planjson.Options{OpenParquet: func(name, path string) (plan.Source, error) {
		return dfparquet.Open(name, filepath.Join(dir, filepath.Base(path)))
	}})
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	rep, err := oracle.CheckDocument(context.Background(), doc)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return rep
}
