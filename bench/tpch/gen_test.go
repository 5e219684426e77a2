package tpch

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
)

func TestParseScale(t *testing.T) {
	tests := []struct {
		in   string
		want Scale
		err  string
	}{
		{"1", 1000, ""},
		{"10", 10_000, ""},
		{"0.01", 10, ""},
		{"0.001", 1, ""},
		{"0.5", 500, ""},
		{"1000", MaxScale, ""},
		{"0", 0, "out of range"},
		{"-1", 0, "out of range"},
		{"1001", 0, "out of range"},
		{"0.0005", 0, "out of range"},
		{"0.0015", 0, "not a multiple of 0.001"},
		{"1.5", 0, "must be an integer"},
		{"x", 0, "not a number"},
		{"NaN", 0, "not a number"},
		{"", 0, "not a number"},
	}
	for _, tc := range tests {
		got, err := ParseScale(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseScale(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseScale(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if s := got.String(); s != strings.TrimSuffix(tc.in, ".0") {
			t.Errorf("Scale(%d).String() = %q, want %q", got, s, tc.in)
		}
	}
}

func TestExpectedRows(t *testing.T) {
	sf1 := map[string]int64{"lineitem": 6_001_215, "orders": 1_500_000, "customer": 150_000, "part": 200_000,
		"partsupp": 800_000, "supplier": 10_000, "nation": 25, "region": 5}
	for table, want := range sf1 {
		if got := ExpectedRows(table, 1000); got != want {
			t.Errorf("ExpectedRows(%s, SF1) = %d, want %d", table, got, want)
		}
		if lo, hi := ExpectedRowsRange(table, 1000); lo != want || hi != want {
			t.Errorf("ExpectedRowsRange(%s, SF1) = %d..%d, want %d", table, lo, hi, want)
		}
	}
	if got := ExpectedRows("orders", 3000); got != 4_500_000 {
		t.Errorf("orders at SF3: %d", got)
	}
	if got := ExpectedRows("partsupp", 10); got != 8000 {
		t.Errorf("partsupp at SF0.01: %d", got)
	}
	if got := ExpectedRows("nation", 10); got != 25 {
		t.Errorf("nation at SF0.01: %d", got)
	}
	if got := ExpectedRows("lineitem", 3000); got != -1 {
		t.Errorf("lineitem at SF3: %d, want -1 (unknown)", got)
	}
	if lo, hi := ExpectedRowsRange("lineitem", 3000); lo != 4_500_000 || hi != 7*4_500_000 {
		t.Errorf("lineitem range at SF3: %d..%d", lo, hi)
	}
	if got := ExpectedRows("nope", 1000); got != -1 {
		t.Errorf("unknown table: %d", got)
	}
}

// childEnv names the environment variable that makes this test binary a
// generator: "DIR SF" runs Generate once and exits (dbgen runs once per
// process, so every generation in these tests is a child process).
const childEnv = "DFOPT_TPCH_TEST_GENERATE"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		dir, sf, _ := strings.Cut(v, " ")
		sc, err := ParseScale(sf)
		if err == nil {
			_, err = Generate(context.Background(), dir, GenOptions{Scale: sc, RowGroup: 4096, Progress: os.Stderr})
		}
		if err == nil {
			// A second run in the same process is refused.
			_, err = Generate(context.Background(), dir+"-again", GenOptions{Scale: sc})
			if errors.Is(err, ErrAlreadyGenerated) {
				err = nil
			} else {
				err = fmt.Errorf("second Generate: %v, want ErrAlreadyGenerated", err)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// generateInChild runs Generate at scale sf into dir in a child process
// and returns its progress output.
func generateInChild(t *testing.T, dir, sf string) string {
	t.Helper()
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir+" "+sf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("generating SF %s: %v\n%s", sf, err, out)
	}
	return string(out)
}

// TestGenerateSmall generates SF 0.01 twice: the files must be
// byte-identical, have the expected row counts (lineitem's is the official
// dbgen's 60,175) in row groups of 4096 rows, the schemas of Schema, dates
// as Parquet DATE, dfopt's own Parquet source must read them (dates as
// date), every foreign key must resolve, every TPC-H plan file must give
// one result optimized, as written and in its SQL style, and every plan
// file of both styles must pass the oracle's four ways over subsets of
// the tables (checkPlansOracle).
func TestGenerateSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("each run builds dbgen's 300 MB text pool")
	}
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	progress := generateInChild(t, dirs[0], "0.01")
	generateInChild(t, dirs[1], "0.01")
	for _, table := range Tables {
		if !strings.Contains(progress, table+" ") {
			t.Errorf("progress does not mention %s:\n%s", table, progress)
		}
	}
	for _, table := range Tables {
		a, err := os.ReadFile(filepath.Join(dirs[0], table+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], table+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(a) != sha256.Sum256(b) {
			t.Errorf("%s.parquet differs between two runs (%d and %d bytes)", table, len(a), len(b))
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dirs[0], ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	tables := map[string]arrow.Table{}
	for _, name := range Tables {
		tbl := readTable(t, filepath.Join(dirs[0], name+".parquet"))
		defer tbl.Release()
		want, _ := Schema(name)
		if got := tbl.Schema(); got.NumFields() != want.NumFields() {
			t.Errorf("%s: %d columns, want %d", name, got.NumFields(), want.NumFields())
		} else {
			for i, f := range got.Fields() {
				if w := want.Field(i); f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) {
					t.Errorf("%s column %d: %s %s, want %s %s", name, i, f.Name, f.Type, w.Name, w.Type)
				}
			}
		}
		tables[name] = tbl
		if want := ExpectedRows(name, 10); tbl.NumRows() != want {
			t.Errorf("%s: %d rows, want %d", name, tbl.NumRows(), want)
		}
		rowGroups := parquetRowGroups(t, filepath.Join(dirs[0], name+".parquet"))
		if want := int((tbl.NumRows() + 4095) / 4096); rowGroups != want {
			t.Errorf("%s: %d row groups, want %d", name, rowGroups, want)
		}
	}
	checkDateLogicalType(t, filepath.Join(dirs[0], "lineitem.parquet"), "l_shipdate")
	checkDfoptReads(t, dirs[0], 10)
	checkPlansAgree(t, dirs[0])
	checkPlansOracle(t, tables)

	keys := func(table, col string) map[int64]bool {
		m := map[int64]bool{}
		for _, v := range int64Column(t, tables[table], col) {
			m[v] = true
		}
		return m
	}
	refs := []struct{ table, col, refTable, refCol string }{
		{"nation", "n_regionkey", "region", "r_regionkey"},
		{"supplier", "s_nationkey", "nation", "n_nationkey"},
		{"customer", "c_nationkey", "nation", "n_nationkey"},
		{"partsupp", "ps_partkey", "part", "p_partkey"},
		{"partsupp", "ps_suppkey", "supplier", "s_suppkey"},
		{"orders", "o_custkey", "customer", "c_custkey"},
		{"lineitem", "l_orderkey", "orders", "o_orderkey"},
		{"lineitem", "l_partkey", "part", "p_partkey"},
		{"lineitem", "l_suppkey", "supplier", "s_suppkey"},
	}
	for _, r := range refs {
		have := keys(r.refTable, r.refCol)
		for _, v := range int64Column(t, tables[r.table], r.col) {
			if !have[v] {
				t.Errorf("%s.%s = %d has no %s.%s", r.table, r.col, v, r.refTable, r.refCol)
				break
			}
		}
	}
	// Every line's (part, supplier) is one of partsupp's pairs.
	pairs := map[[2]int64]bool{}
	pk, sk := int64Column(t, tables["partsupp"], "ps_partkey"), int64Column(t, tables["partsupp"], "ps_suppkey")
	for i := range pk {
		pairs[[2]int64{pk[i], sk[i]}] = true
	}
	lp, ls := int64Column(t, tables["lineitem"], "l_partkey"), int64Column(t, tables["lineitem"], "l_suppkey")
	for i := range lp {
		if !pairs[[2]int64{lp[i], ls[i]}] {
			t.Fatalf("lineitem row %d: (part %d, supplier %d) is not in partsupp", i, lp[i], ls[i])
		}
	}
	// A third of the customers have no orders: no custkey divisible by 3.
	for _, c := range int64Column(t, tables["orders"], "o_custkey") {
		if c%3 == 0 {
			t.Fatalf("o_custkey %d is a multiple of 3", c)
		}
	}
}

// TestGenerateErrors covers the refused options and an unwritable
// directory, whose error names the path.
func TestGenerateErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		opts GenOptions
		want string
	}{
		{"bad scale", t.TempDir(), GenOptions{Scale: 1500}, "scale factor 1.5"},
		{"negative row group", t.TempDir(), GenOptions{Scale: 1, RowGroup: -1}, "row group size -1"},
		{"unwritable", filepath.Join(file, "sub"), GenOptions{Scale: 1}, filepath.Join(file, "sub")},
	}
	for _, tc := range tests {
		_, err := Generate(context.Background(), tc.dir, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func readTable(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := r.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func int64Column(t *testing.T, tbl arrow.Table, name string) []int64 {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %s", name)
	}
	var out []int64
	for _, c := range tbl.Column(idx[0]).Data().Chunks() {
		out = append(out, c.(*array.Int64).Int64Values()...)
	}
	return out
}

func checkDateLogicalType(t *testing.T, path, col string) {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := f.MetaData().Schema
	i := sc.ColumnIndexByName(col)
	if i < 0 {
		t.Fatalf("no column %s", col)
	}
	if lt := sc.Column(i).LogicalType().String(); lt != "Date" {
		t.Errorf("%s logical type %s, want Date", col, lt)
	}
}

func parquetRowGroups(t *testing.T, path string) int {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.NumRowGroups()
}

// checkDfoptReads opens every generated table with dfopt's own Parquet
// source: its schema must carry the generator's types (dates as date) and a
// scan of the whole table must return its rows.
func checkDfoptReads(t *testing.T, dir string, scale Scale) {
	t.Helper()
	planType := map[arrow.Type]plan.Type{arrow.INT64: plan.Int64, arrow.FLOAT64: plan.Float64, arrow.STRING: plan.String, arrow.DATE32: plan.Date}
	for _, name := range Tables {
		src, err := dfparquet.OpenFile(name, filepath.Join(dir, name+".parquet"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := Schema(name)
		got := src.Schema()
		if got.Len() != want.NumFields() {
			t.Fatalf("%s: dfopt reads %d columns, want %d", name, got.Len(), want.NumFields())
		}
		for i, f := range want.Fields() {
			if g := got.Field(i); g.Name != f.Name || g.Type != planType[f.Type.ID()] {
				t.Errorf("%s column %d: dfopt reads %s %s, want %s %s", name, i, g.Name, g.Type, f.Name, planType[f.Type.ID()])
			}
		}
		res, err := exec.Collect(context.Background(), plan.Scan(src).Node(), exec.Options{})
		if err != nil {
			t.Fatalf("%s: dfopt cannot read the table: %v", name, err)
		}
		if n := int64(res.NumRows()); n != ExpectedRows(name, scale) {
			t.Errorf("%s: dfopt reads %d rows, want %d", name, n, ExpectedRows(name, scale))
		}
		res.Release()
	}
}
