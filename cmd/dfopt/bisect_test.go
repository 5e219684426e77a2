package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
