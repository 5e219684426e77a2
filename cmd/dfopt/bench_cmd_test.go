package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/bench"
)

const benchTestRows = 5000

// benchTestData generates a small dataset into the test's temporary
// directory.
func benchTestData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := bench.Generate(context.Background(), dir, bench.GenOptions{Rows: benchTestRows, RowGroup: 2000}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// benchQueryFile is the path of a benchmark plan file from this directory.
func benchQueryFile(name string) string {
	return filepath.Join("..", "..", "bench", "queries", name+".json")
}

// benchQ1Rows counts t's rows with a > 900000 straight from the formulas.
func benchQ1Rows() int {
	n := 0
	for i := int64(0); i < benchTestRows; i++ {
		if bench.RowT(i).A > 900000 {
			n++
		}
	}
	return n
}

var benchLineRE = regexp.MustCompile(`^(\S+) median_s=([0-9.]+) min_s=([0-9.]+) max_s=([0-9.]+)( optimize_s=[0-9.]+)? cpu_s=[0-9.]+ rows=(\d+)( .*)?$`)

func TestBenchCommand(t *testing.T) {
	data := benchTestData(t)
	wantQ1 := strconv.Itoa(benchQ1Rows())
	tests := []struct {
		name  string
		extra []string
		mode  string
		opt   bool
	}{
		{"parquet", nil, "parquet", true},
		{"memory", []string{"--memory"}, "memory", true},
		{"no-opt", []string{"--no-opt"}, "parquet", false},
		{"flags", []string{"--flags", "predicate_pushdown=false,projection_pruning=false", "--flags", "filter_fusion=0"}, "parquet", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"bench", benchQueryFile("q1"), "-n", "2", "--data", data, benchQueryFile("q5")}, tc.extra...)
			stdout, stderr, status := runCLI(args...)
			if status != exitOK {
				t.Fatalf("status %d, stderr %s", status, stderr)
			}
			lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
			if len(lines) != 4 {
				t.Fatalf("want a header, two query lines and a summary:\n%s", stdout)
			}
			if want := "bench: mode=" + tc.mode + " opt=" + strconv.FormatBool(tc.opt) + " runs=2 "; !strings.HasPrefix(lines[0], want) {
				t.Errorf("header %q, want prefix %q", lines[0], want)
			}
			for i, name := range []string{"q1", "q5"} {
				m := benchLineRE.FindStringSubmatch(lines[1+i])
				if m == nil || m[1] != name {
					t.Fatalf("line %q does not match the %s format", lines[1+i], name)
				}
				if (m[5] != "") != tc.opt {
					t.Errorf("line %q: optimize_s present = %v with opt=%v", lines[1+i], m[5] != "", tc.opt)
				}
				med, _ := strconv.ParseFloat(m[2], 64)
				lo, _ := strconv.ParseFloat(m[3], 64)
				hi, _ := strconv.ParseFloat(m[4], 64)
				if !(lo <= med && med <= hi) {
					t.Errorf("line %q: min/median/max out of order", lines[1+i])
				}
				if name == "q1" {
					if m[6] != wantQ1 || !strings.Contains(m[7], "sum(id)=") || !strings.Contains(m[7], "sum(a)=") {
						t.Errorf("q1 line %q, want rows=%s and sums of id and a", lines[1+i], wantQ1)
					}
				}
			}
			if want := "bench: ok queries=2 mode=" + tc.mode; !strings.HasPrefix(lines[3], want) ||
				!strings.Contains(lines[3], " total_median_s=") {
				t.Errorf("summary %q, want prefix %q and total_median_s", lines[3], want)
			}
		})
	}
}

// TestBenchChecksumsAgree: the optimized and unoptimized runs, from Parquet
// and from memory, print the same rows and checksums.
func TestBenchChecksumsAgree(t *testing.T) {
	data := benchTestData(t)
	var first []string
	for _, extra := range [][]string{nil, {"--no-opt"}, {"--memory"}, {"--memory", "--no-opt"}} {
		args := append([]string{"bench", benchQueryFile("q4"), benchQueryFile("q6"), "-n", "1", "--data", data}, extra...)
		stdout, stderr, status := runCLI(args...)
		if status != exitOK {
			t.Fatalf("%v: status %d, stderr %s", extra, status, stderr)
		}
		var got []string
		for _, line := range strings.Split(stdout, "\n") {
			if i := strings.Index(line, " rows="); i >= 0 {
				got = append(got, line[i:])
			}
		}
		if first == nil {
			first = got
		} else if strings.Join(got, "\n") != strings.Join(first, "\n") {
			t.Errorf("%v:\n%s\nwant\n%s", extra, strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
	if len(first) != 2 {
		t.Fatalf("got %d query lines", len(first))
	}
}

func TestBenchBadInvocations(t *testing.T) {
	data := benchTestData(t)
	q1 := benchQueryFile("q1")
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"no files", []string{"bench"}, exitBadArgs, "usage: dfopt bench"},
		{"zero runs", []string{"bench", q1, "-n", "0", "--data", data}, exitBadArgs, "-n 0"},
		{"unknown optimizer flag", []string{"bench", q1, "--flags", "warp_drive=true", "--data", data}, exitBadArgs, "warp_drive"},
		{"flag without value", []string{"bench", q1, "--flags", "predicate_pushdown", "--data", data}, exitBadArgs, "want name=true"},
		{"flag not a bool", []string{"bench", q1, "--flags", "predicate_pushdown=maybe", "--data", data}, exitBadArgs, "not a boolean"},
		{"missing file", []string{"bench", "nope.json", "--data", data}, exitBadArgs, "nope.json"},
		{"missing data", []string{"bench", q1, "--data", t.TempDir()}, exitBadArgs, "t.parquet"},
		{"missing data in memory", []string{"bench", q1, "--memory", "--data", t.TempDir()}, exitBadArgs, "t.parquet"},
		{"unknown flag", []string{"bench", q1, "--fast"}, exitBadArgs, "-fast"},
		{"zero threads", []string{"bench", q1, "--threads", "1,0", "--data", data}, exitBadArgs, "--threads: \"0\""},
		{"threads not a number", []string{"bench", q1, "--threads", "two", "--data", data}, exitBadArgs, "--threads: \"two\""},
		{"worth without the optimizer", []string{"bench", q1, "--worth", "--no-opt", "--data", data}, exitBadArgs, "--worth needs the optimizer"},
		{"worth timeout not positive", []string{"bench", q1, "--worth", "--worth-timeout", "0s", "--data", data}, exitBadArgs, "--worth-timeout"},
		{"worth memory limit", []string{"bench", q1, "--worth", "--worth-memory-limit", "lots", "--data", data}, exitBadArgs, "--worth-memory-limit"},
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

// TestBenchThreadsAndWorth: --threads runs the suite once per thread
// count (each pass its own header and summary), and --worth prints a
// line per flag whose plan differs from the default's, with the rows the
// default gave, and the worth table after each pass: a row per such flag,
// a column per query.
func TestBenchThreadsAndWorth(t *testing.T) {
	data := benchTestData(t)
	stdout, stderr, status := runCLI("bench", benchQueryFile("q1"), benchQueryFile("q5"), "-n", "1", "--data", data, "--threads", "1,2", "--worth")
	if status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var headers, tables, worth []string
	rows := map[string]string{}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "bench: mode="):
			headers = append(headers, l)
		case strings.HasPrefix(l, "worth: mode="):
			tables = append(tables, l)
		case strings.HasPrefix(l, "worth "):
			worth = append(worth, l)
		case strings.HasPrefix(l, "q"):
			name, rest, _ := strings.Cut(l, " ")
			if i := strings.Index(rest, " rows="); i >= 0 {
				rows[name] = strings.Fields(rest[i:])[0]
			}
		}
	}
	if len(headers) != 2 || !strings.Contains(headers[0], " gomaxprocs=1") || !strings.Contains(headers[1], " gomaxprocs=2") {
		t.Fatalf("pass headers %q, want gomaxprocs=1 then 2", headers)
	}
	if len(tables) != 2 {
		t.Fatalf("worth tables %q, want one per pass", tables)
	}
	if len(worth) == 0 {
		t.Fatalf("no worth line:\n%s", stdout)
	}
	for _, w := range worth {
		f := strings.Fields(w)
		if len(f) < 3 || !strings.HasPrefix(f[2], "flag=") {
			t.Fatalf("worth line %q", w)
		}
		if strings.Contains(w, "off_median_s=") && !strings.HasSuffix(w, " "+rows[f[1]]) {
			t.Errorf("worth line %q: want the default's %s", w, rows[f[1]])
		}
	}
	i := strings.Index(stdout, "worth: mode=")
	table := strings.Split(stdout[i:], "\n")
	if !strings.HasPrefix(table[1], "flag off") || !strings.Contains(table[1], "q1") || !strings.Contains(table[1], "q5") {
		t.Errorf("worth table header %q", table[1])
	}
	if !strings.Contains(stdout[i:], "predicate_pushdown") {
		t.Errorf("the worth table has no predicate_pushdown row:\n%s", stdout[i:])
	}
	if !strings.Contains(stdout[i:], "\n"+worthAllOff) {
		t.Errorf("the worth table has no %s row:\n%s", worthAllOff, stdout[i:])
	}
	if !strings.Contains(stdout, "worth q1 flag="+worthAllOff+" off_median_s=") {
		t.Errorf("no as-written line for q1:\n%s", stdout)
	}
}
