package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "proptest", "testdata", "corpus", "pp_with_columns_partial.json")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	unmet := filepath.Join(dir, "unmet.json")
	if err := os.WriteFile(unmet, bytes.Replace(data, []byte(`"error": "divide_by_zero"`), []byte(`"error": null`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"format": "dfopt-plan/1"`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		lines    []string // prefixes of the stdout lines, in order
		inStderr string
	}{
		{"ok", []string{"check", good}, exitOK, []string{"ok " + good, "check: ok files=1 ok=1"}, ""},
		{"unmet", []string{"check", good, unmet}, exitFailed,
			[]string{"ok " + good, "UNMET " + unmet + ": expect.error: want success", "check: failed files=2 ok=1 divergent=0 unmet=1"},
			"optimized plan:"},
		{"unreadable", []string{"check", broken}, exitBadArgs, []string{"ERROR " + broken, "check: failed files=1 ok=0"}, ""},
		{"no files", []string{"check"}, exitBadArgs, nil, "usage: dfopt check"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if tc.lines != nil && len(lines) != len(tc.lines) {
				t.Fatalf("stdout has %d lines, want %d:\n%s", len(lines), len(tc.lines), out)
			}
			for i, want := range tc.lines {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("line %d = %q, want prefix %q", i, lines[i], want)
				}
			}
			if !strings.Contains(errOut, tc.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.inStderr, errOut)
			}
		})
	}
}
