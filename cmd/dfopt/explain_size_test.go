package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chainFile writes a plan file whose plan is a chain of n nodes alternating
// with_columns(a + 1 as c_i) and filter(a > i) over a scan, the shape whose
// explain used to grow with the square of its depth.
func chainFile(t testing.TB, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"format": "dfopt-plan/1", "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 2, 3]}]}}, "plan": `)
	for i := n; i > 0; i-- {
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"op": "with_columns", "exprs": [{"alias": {"fn": "add", "args": [{"col": "a"}, {"lit": 1, "type": "int64"}]}, "name": "c%d"}], "input": `, i)
		} else {
			fmt.Fprintf(&b, `{"op": "filter", "predicates": [{"fn": "gt", "args": [{"col": "a"}, {"lit": %d, "type": "int64"}]}], "input": `, i)
		}
	}
	b.WriteString(`{"op": "scan", "table": "t"}`)
	b.WriteString(strings.Repeat("}", n))
	b.WriteString("}\n")
	path := filepath.Join(dir, fmt.Sprintf("chain%d.json", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wideFile writes a project of cols columns over a with_columns of 2*cols
// aliases: every trace line names the project, whose label is long.
func wideFile(t testing.TB, dir string, cols int) string {
	t.Helper()
	var with, sel []string
	for i := 0; i < 2*cols; i++ {
		with = append(with, fmt.Sprintf(`{"alias": {"col": "a"}, "name": "w%d"}`, i))
	}
	for i := 0; i < cols; i++ {
		sel = append(sel, fmt.Sprintf(`{"col": "w%d"}`, 2*i))
	}
	doc := `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 2, 3]}]}},
	  "plan": {"op": "project", "exprs": [` + strings.Join(sel, ", ") + `],
	    "input": {"op": "with_columns", "exprs": [` + strings.Join(with, ", ") + `], "input": {"op": "scan", "table": "t"}}}}`
	path := filepath.Join(dir, fmt.Sprintf("wide%d.json", cols))
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExplainOutputLinear: every explain format works on deep chains, and
// its output per node stays flat from 500 to 5,000 nodes (it grew with the
// depth: two spaces of indentation per level); a wide plan's --why output
// per column stays flat from 150 to 1,500 columns (every trace line printed
// the whole label of the project: 117 MB for a 151 KB file).
func TestExplainOutputLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("explains 5,000-node plans")
	}
	dir := t.TempDir()
	size := func(t *testing.T, args ...string) float64 {
		out, errOut, code := runCLI(append([]string{"explain"}, args...)...)
		if code != exitOK {
			t.Fatalf("explain %v: exit %d\n%.2000s", args, code, errOut)
		}
		return float64(len(out))
	}
	small, large := chainFile(t, dir, 500), chainFile(t, dir, 5000)
	for _, args := range [][]string{{"--why"}, {"--raw"}, {"--format", "json"}, {"--format", "dot"}} {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			perSmall, perLarge := size(t, append([]string{small}, args...)...)/500, size(t, append([]string{large}, args...)...)/5000
			if perLarge > 1.5*perSmall {
				t.Errorf("explain %s: %.0f bytes per node at 500 nodes, %.0f at 5,000", name, perSmall, perLarge)
			}
		})
	}
	t.Run("wide --why", func(t *testing.T) {
		perSmall, perLarge := size(t, wideFile(t, dir, 150), "--why")/150, size(t, wideFile(t, dir, 1500), "--why")/1500
		if perLarge > 1.5*perSmall {
			t.Errorf("explain --why: %.0f bytes per column at 150 columns, %.0f at 1,500", perSmall, perLarge)
		}
	})
}
