package bench

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// queryFiles lists the plan files in bench/queries, sorted.
func queryFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("queries", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no query files: %v", err)
	}
	sort.Strings(files)
	return files
}

// sqlQueryFiles lists the plan files in bench/queries/sql, sorted: the
// queries written as SQL front ends emit them (a filter over a cross join),
// kept out of bench/queries/*.json because as written (--no-opt, or
// collapse_cross_join off) they are cross products no machine holds at 10M
// rows.
func sqlQueryFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("queries", "sql", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no SQL-shaped query files: %v", err)
	}
	sort.Strings(files)
	return files
}

// testRows is the size of the dataset the tests run the queries on: big
// enough that every query returns rows (Q5 keeps 1 in 1,000), small enough
// to be quick.
const testRows = 60_000

var (
	testDataOnce sync.Once
	testDataDir  string
	testDataErr  error
)

// testData generates the test dataset once per process.
func testData(tb testing.TB) string {
	tb.Helper()
	testDataOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dfopt-bench-test")
		if err != nil {
			testDataErr = err
			return
		}
		testDataDir = dir
		_, testDataErr = Generate(context.Background(), dir, GenOptions{Rows: testRows, RowGroup: 16_384})
	})
	if testDataErr != nil {
		tb.Fatalf("generating test data: %v", testDataErr)
	}
	return testDataDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{testDataDir, benchDataTemp} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// planSchema maps one of the generator's Arrow schemas to a plan schema.
func planSchema(tb testing.TB, s *arrow.Schema) plan.Schema {
	tb.Helper()
	ps, err := kernel.PlanSchema(s)
	if err != nil {
		tb.Fatal(err)
	}
	return ps
}
