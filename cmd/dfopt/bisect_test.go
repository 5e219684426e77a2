package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestBisectCommand bisects a plan that diverges only with pp.limit flipped:
// the culprit lines name the rule, the application and the cell, the
// minimized file is written next to the input and diverges the same way,
// and the file agrees under the real table.
func TestBisectCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bisect_limit.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "case.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	minFile := filepath.Join(dir, "case.min.json")

	tests := []struct {
		name  string
		args  []string
		code  int
		lines []string // substrings of stdout, each on its own line, in order
		err   string
	}{
		{"agrees", []string{"bisect", file}, exitOK, []string{"bisect: ok file=" + file + " agrees"}, ""},
		{"flipped", []string{"bisect", "-flip", "pp.limit", file}, exitFailed, []string{
			"divergence: row_count optimized/unoptimized",
			"legality overrides: pp.limit",
			"-> predicate_pushdown",
			"rule: predicate_pushdown",
			"arm: -",
			"first bad application: #1 predicate_pushdown: `a > 1` pushed past limit 2: cell pp.limit [plan.input]",
			"cell: pp.limit (the overridden cell",
			"minimized: nodes 4 -> 3",
			"minimized first bad application: #1 predicate_pushdown:",
			"wrote " + minFile,
			"bisect: DIVERGENCE file=" + file,
		}, ""},
		{"minimized reproduces", []string{"bisect", minFile, "-flip", "pp.limit", "-shrink-calls", "0", "-o", filepath.Join(dir, "again.json")},
			exitFailed, []string{"cell: pp.limit", "minimized: nodes 3 -> 3", "bisect: DIVERGENCE"}, ""},
		{"unknown cell", []string{"bisect", "-flip", "pp.nope", file}, exitBadArgs, nil, `no cell "pp.nope"`},
		{"no file", []string{"bisect"}, exitBadArgs, nil, "usage: dfopt bisect"},
		{"missing file", []string{"bisect", filepath.Join(dir, "missing.json")}, exitBadArgs, nil, "missing.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			lines := strings.Split(out, "\n")
			i := 0
			for _, want := range tc.lines {
				for i < len(lines) && !strings.Contains(lines[i], want) {
					i++
				}
				if i == len(lines) {
					t.Fatalf("no line containing %q (in order) in:\n%s", want, out)
				}
			}
			if tc.err != "" && !strings.Contains(errOut, tc.err) {
				t.Fatalf("stderr lacks %q:\n%s", tc.err, errOut)
			}
		})
	}
	if _, err := os.Stat(minFile); err != nil {
		t.Fatalf("the minimized case was not written: %v", err)
	}
}

// writeParquetT writes bisect_limit.json's table t (int64 columns a, b) as
// a Parquet file.
func writeParquetT(t *testing.T, path string) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	bld.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 5, 7, 1}, nil)
	bld.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	rec := bld.NewRecordBatch()
	defer rec.Release()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
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

// bisect -o into another directory writes a case whose relative Parquet
// paths point at the same file from there: the written file reads back
// and runs from any working directory.
func TestBisectOutputRelocatesParquetPaths(t *testing.T) {
	root := t.TempDir()
	writeParquetT(t, filepath.Join(root, "in", "data", "t.parquet"))
	plan := `{"format": "dfopt-plan/1", "tables": {"t": {"parquet": "data/t.parquet"}},
  "plan": {"op": "filter", "input": {"op": "limit", "n": 2, "input": {"op": "sort", "keys": [{"expr": {"col": "b"}}], "input": {"op": "scan", "table": "t"}}},
           "predicates": [{"fn": "gt", "args": [{"col": "a"}, {"lit": 1, "type": "int64"}]}]}}`
	in := filepath.Join(root, "in", "case.json")
	if err := os.WriteFile(in, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(root, "out", "deeper")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "x.json")
	stdout, stderr, code := runCLI("bisect", in, "-flip", "pp.limit", "-shrink-calls", "0", "-o", out)
	if code != exitFailed || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("exit %d, want %d and the file written\nstdout:\n%s\nstderr:\n%s", code, exitFailed, stdout, stderr)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), `"parquet": "../../in/data/t.parquet"`) {
		t.Errorf("the written case does not point at the Parquet file relative to itself:\n%s", written)
	}
	if _, err := loadFile(out); err != nil {
		t.Fatalf("the written case does not read back: %v", err)
	}
	t.Chdir(outDir)
	if stdout, stderr, code := runCLI("run", "x.json"); code != exitOK || !strings.Contains(stdout, "(1 rows)") {
		t.Errorf("run of the written case from its own directory: exit %d\n%s%s", code, stdout, stderr)
	}
}
