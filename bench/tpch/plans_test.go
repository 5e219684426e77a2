package tpch

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/bench"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// planFiles lists the TPC-H plan files: queries/qN.json (dataframe style)
// and queries/sql/qN.json (SQL style).
func planFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"queries/*.json", "queries/sql/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no plan files under queries/")
	}
	return files
}

// TestPlanFilesResolve decodes every plan file over empty tables of the
// TPC-H schemas and resolves and optimizes its plan: the column names and
// types the plan uses must be the generator's, and the answer file it is
// checked against must exist, without any data.
func TestPlanFilesResolve(t *testing.T) {
	for _, f := range planFiles(t) {
		t.Run(f, func(t *testing.T) {
			var sources []*exec.ArrowSource
			defer func() {
				for _, s := range sources {
					s.Release()
				}
			}()
			doc, err := planjson.DecodeFile(f, planjson.Options{OpenParquet: func(name, path string) (plan.Source, error) {
				table := strings.TrimSuffix(filepath.Base(path), ".parquet")
				schema, err := Schema(table)
				if err != nil {
					return nil, err
				}
				rec := array.NewRecordBuilder(memory.DefaultAllocator, schema).NewRecordBatch()
				defer rec.Release()
				src, err := exec.NewArrowSource(name, rec)
				if err == nil {
					sources = append(sources, src)
				}
				return src, err
			}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := plan.Resolve(doc.Plan); err != nil {
				t.Fatalf("resolve: %v", err)
			}
			flags := rules.DefaultFlags()
			flags.Evaluator = exec.ConstEvaluator{}
			if _, err := rules.Optimize(doc.Plan, flags); err != nil {
				t.Fatalf("optimize: %v", err)
			}
			if _, err := os.Stat(filepath.Join(AnswersDir(), bench.QueryName(f)+".out")); err != nil {
				t.Errorf("no answer for %s: %v", f, err)
			}
		})
	}
}

// sf1Env names the directory of SF1 data (dfopt gen-tpch -sf 1 -out DIR)
// that TestPlansMatchAnswers checks the plan files over.
const sf1Env = "DFOPT_TPCH_SF1"

// TestPlansMatchAnswers runs every plan file, optimized, over the SF1 data
// in $DFOPT_TPCH_SF1 and compares its result with go-tpc's answer (Compare's
// rules). Skipped unless the variable names a directory holding the eight
// tables.
func TestPlansMatchAnswers(t *testing.T) {
	dir := os.Getenv(sf1Env)
	if dir == "" {
		t.Skipf("$%s is not set (generate the data with: dfopt gen-tpch -sf 1 -out DIR)", sf1Env)
	}
	for _, table := range Tables {
		if _, err := os.Stat(filepath.Join(dir, table+".parquet")); err != nil {
			t.Fatalf("$%s: %v", sf1Env, err)
		}
	}
	answers := answerDir(t)
	for _, f := range planFiles(t) {
		t.Run(f, func(t *testing.T) {
			suite, err := bench.Load(context.Background(), []string{f}, bench.Options{DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer suite.Close()
			q := suite.Queries[0]
			res, _, err := q.Once(context.Background(), memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Release()
			rows, err := RowsFromRecords([]arrow.RecordBatch{res.Record})
			if err != nil {
				t.Fatal(err)
			}
			ans, err := ReadAnswer(answers, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(ans, rows, CompareOptions{})
			if !r.OK {
				t.Errorf("%v\nall mismatches shown: %s", r, strings.Join(r.Details, "\n"))
			} else {
				t.Log(r)
			}
		})
	}
}

// checkPlansAgree runs every TPC-H query over the data in dir (a small
// scale factor) three ways: the dataframe-style plan optimized and as
// written, and the SQL-style plan optimized (as written it is a cross
// product). The three results must agree: the same rows in the same order,
// floats within 1e-9 relative (sums added in another order).
func checkPlansAgree(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob("queries/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dataframe-style plan files: %v", err)
	}
	run := func(file string, noOpt bool) [][]any {
		t.Helper()
		suite, err := bench.Load(context.Background(), []string{file}, bench.Options{DataDir: dir, NoOpt: noOpt})
		if err != nil {
			t.Fatal(err)
		}
		defer suite.Close()
		res, _, err := suite.Queries[0].Once(context.Background(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Release()
		rows, err := RowsFromRecords([]arrow.RecordBatch{res.Record})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for _, df := range files {
		want := run(df, false)
		if len(want) == 0 {
			t.Logf("%s: no rows at this scale (only empty results compared)", df)
		}
		if why := rowsDiffer(want, run(df, true)); why != "" {
			t.Errorf("%s optimized and as written differ: %s", df, why)
		}
		sql := filepath.Join("queries", "sql", filepath.Base(df))
		_, err := os.Stat(sql)
		if why, awaited := awaitingSQLTwin[filepath.Base(df)]; awaited {
			if err == nil {
				t.Errorf("%s now has its SQL-style twin: take it off awaitingSQLTwin (%s)", df, why)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s has no SQL-style twin: %v", df, err)
			continue
		}
		if why := rowsDiffer(want, run(sql, false)); why != "" {
			t.Errorf("%s and %s differ: %s", df, sql, why)
		}
	}
}

// awaitingSQLTwin lists the dataframe-style plan files whose SQL-style
// twin cannot be written yet, and why; checkPlansAgree fails when a listed
// file has one.
var awaitingSQLTwin = map[string]string{}

// rowsDiffer says how two results differ ("" when they agree): row and
// column counts, then each cell, floats within 1e-9 relative.
func rowsDiffer(a, b [][]any) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rows and %d rows", len(a), len(b))
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return fmt.Sprintf("row %d: %d and %d columns", i, len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			x, xok := a[i][j].(float64)
			y, yok := b[i][j].(float64)
			if xok && yok {
				if math.Abs(x-y) > 1e-9*max(math.Abs(x), math.Abs(y)) {
					return fmt.Sprintf("row %d column %d: %v and %v", i, j, x, y)
				}
				continue
			}
			if a[i][j] != b[i][j] {
				return fmt.Sprintf("row %d column %d: %v and %v", i, j, a[i][j], b[i][j])
			}
		}
	}
	return ""
}
