package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets this test binary stand in for dfopt when gen-tpch runs its
// generator in a new process of the current executable: with
// DFOPT_GEN_TPCH_CHILD=1 it runs the command line it was given.
func TestMain(m *testing.M) {
	if os.Getenv(genTpchChildEnv) == "1" {
		os.Exit(dispatch(&environment{stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// TestGenTpch generates SF 0.001 through the command (in a child process)
// and checks the per-table lines, the summary and the files. The
// documented sample in docs/cli.md checks the whole output.
func TestGenTpch(t *testing.T) {
	if testing.Short() {
		t.Skip("dbgen builds a 300 MB text pool")
	}
	dir := filepath.Join(t.TempDir(), "tpch")
	stdout, stderr, status := runCLI("gen-tpch", "-sf", "0.001", "-rowgroup", "1000", "-out", dir)
	if status != exitOK {
		t.Fatalf("status %d, stderr %s\nstdout %s", status, stderr, stdout)
	}
	want := map[string]string{"region": "5 rows", "nation": "25 rows", "supplier": "10 rows", "customer": "150 rows",
		"part": "200 rows", "partsupp": "800 rows", "orders": "1500 rows", "lineitem": "6005 rows"}
	for table, rows := range want {
		found := false
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] == table && strings.Join(f[1:3], " ") == rows {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q %q in\n%s", table, rows, stdout)
		}
		if st, err := os.Stat(filepath.Join(dir, table+".parquet")); err != nil || st.Size() == 0 {
			t.Errorf("%s.parquet: %v", table, err)
		}
	}
	if want := "gen-tpch: ok out=" + dir + " sf=0.001 rows=8695 rowgroup=1000 counts=checked "; !strings.HasPrefix(genBenchLastLine(stdout), want) {
		t.Errorf("last line %q, want prefix %q", genBenchLastLine(stdout), want)
	}
}

func TestGenTpchBadInvocations(t *testing.T) {
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
		{"no -out", []string{"gen-tpch"}, exitBadArgs, "usage: dfopt gen-tpch"},
		{"positional", []string{"gen-tpch", "-out", tmp, "extra"}, exitBadArgs, "usage: dfopt gen-tpch"},
		{"zero sf", []string{"gen-tpch", "-sf", "0", "-out", tmp}, exitBadArgs, "-sf: scale factor 0 out of range"},
		{"fractional above 1", []string{"gen-tpch", "-sf", "2.5", "-out", tmp}, exitBadArgs, "must be an integer"},
		{"too fine", []string{"gen-tpch", "-sf", "0.0015", "-out", tmp}, exitBadArgs, "not a multiple of 0.001"},
		{"not a number", []string{"gen-tpch", "-sf", "one", "-out", tmp}, exitBadArgs, `scale factor "one" is not a number`},
		{"zero row group", []string{"gen-tpch", "-rowgroup", "0", "-out", tmp}, exitBadArgs, "-rowgroup 0"},
		{"unknown flag", []string{"gen-tpch", "-scale", "1", "-out", tmp}, exitBadArgs, "-scale"},
		// The directory cannot be created: refused before dbgen starts, naming the path.
		{"unwritable", []string{"gen-tpch", "-sf", "0.001", "-out", filepath.Join(file, "sub")}, exitFailed, "cannot create the output directory " + filepath.Join(file, "sub")},
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
