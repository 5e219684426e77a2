package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""}, {"1000000", 1000000, ""}, {"512MiB", 512 << 20, ""}, {"512mib", 512 << 20, ""},
		{"1.5GB", 1500000000, ""}, {"2K", 2048, ""}, {"3 kb", 3000, ""}, {"7B", 7, ""},
		{"", 0, "not a size"}, {"MB", 0, "not a size"}, {"-1", 0, "not a size"}, {"5 parsecs", 0, "not a size"},
		{"1.2.3", 0, "not a non-negative number"}, {"99999999TiB", 0, "too large"},
	} {
		got, err := parseSize(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSize(%q) = %d, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestRunMemoryLimit: run --memory-limit bounds the collect (a cross join
// over the limit fails with resource_exhausted, exit 1) and a bad size is a
// usage error.
func TestRunMemoryLimit(t *testing.T) {
	var vals []string
	for i := 0; i < 300; i++ {
		vals = append(vals, "1")
	}
	doc := `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [` + strings.Join(vals, ", ") + `]}]}},
	  "plan": {"op": "join", "kind": "cross", "left": {"op": "scan", "table": "t"}, "right": {"op": "scan", "table": "t"}}}`
	file := filepath.Join(t.TempDir(), "cross.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("run", file, "--memory-limit", "64KiB", "--format", "json")
	if code != exitFailed || !strings.Contains(out+errOut, "resource_exhausted") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, _, code := runCLI("run", file, "--memory-limit", "64KiB", "--no-opt", "--format", "csv"); code != exitFailed {
		t.Errorf("--no-opt under the limit: exit %d", code)
	}
	if _, errOut, code := runCLI("run", file, "--memory-limit", "lots"); code != exitBadArgs || !strings.Contains(errOut, "--memory-limit") {
		t.Errorf("a bad size: exit %d, %s", code, errOut)
	}
	if _, _, code := runCLI("run", file, "--memory-limit", "1GiB", "--format", "csv"); code != exitOK {
		t.Errorf("a limit that fits: exit %d", code)
	}
}
