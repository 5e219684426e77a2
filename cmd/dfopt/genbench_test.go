package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genBenchLastLine returns the last non-empty line of s.
func genBenchLastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestGenBench(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	stdout, stderr, status := runCLI("gen-bench", "-rows", "3000", "-rowgroup", "1000", "-out", dir)
	if status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	if want := "gen-bench: ok out=" + dir + " rows=3000 rowgroup=1000 "; !strings.HasPrefix(genBenchLastLine(stdout), want) {
		t.Errorf("last line %q, want prefix %q", genBenchLastLine(stdout), want)
	}
	if !strings.Contains(stdout, "3 row groups") {
		t.Errorf("stdout does not report 3 row groups:\n%s", stdout)
	}
	for _, f := range []string{"t.parquet", "d.parquet"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestGenBenchBadInvocations(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"no -out", []string{"gen-bench"}, exitBadArgs, "usage: dfopt gen-bench"},
		{"positional", []string{"gen-bench", "-out", tmp, "extra"}, exitBadArgs, "usage: dfopt gen-bench"},
		{"zero rows", []string{"gen-bench", "-rows", "0", "-out", tmp}, exitBadArgs, "-rows 0"},
		{"too many rows", []string{"gen-bench", "-rows", "4294967297", "-out", tmp}, exitBadArgs, "-rows 4294967297"},
		{"zero row group", []string{"gen-bench", "-rowgroup", "0", "-out", tmp}, exitBadArgs, "-rowgroup 0"},
		{"unknown flag", []string{"gen-bench", "-colums", "3", "-out", tmp}, exitBadArgs, "-colums"},
		{"unwritable", []string{"gen-bench", "-rows", "10", "-out", filepath.Join(file, "sub")}, exitFailed, "gen-bench: failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(tc.args...)
			if status != tc.status || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("status %d, stderr %q; want %d and %q", status, stderr, tc.status, tc.stderr)
			}
		})
	}
}
