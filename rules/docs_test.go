package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docTable returns the rows of the Markdown table that follows heading in
// page, each as its cells (trimmed, backquotes kept).
func docTable(t *testing.T, page, heading string) [][]string {
	t.Helper()
	i := strings.Index(page, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/counters.md has no %q section", heading)
	}
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(page[i+len(heading)+2:], "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		for k := range cells {
			cells[k] = strings.ReplaceAll(cells[k], "\x00", "|")
			cells[k] = strings.TrimSpace(cells[k])
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) > 0 {
		rows = rows[1:] // the header
	}
	return rows
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// TestRulesDocumented: docs/counters.md documents every registered rule
// (a row naming its arms, what it does and what one application is) and
// every counter (a row naming its rule, what it counts and which trace
// entries add up to it), and nothing else.
func TestRulesDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "counters.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	reg := Builtin()
	documented := map[string][]string{}
	for _, row := range docTable(t, page, "## The rules") {
		name := strings.Trim(row[0], "`")
		if _, ok := reg.Rule(name); !ok {
			t.Errorf("docs/counters.md documents rule %q, which is not registered", name)
			continue
		}
		if len(row) != 5 || row[2] == "" || row[3] == "" || row[4] == "" {
			t.Errorf("docs/counters.md: the row of %s lacks a column: %q", name, row)
			continue
		}
		documented[name] = row
	}
	for _, r := range reg.Rules() {
		row, ok := documented[r.Name]
		if !ok {
			t.Errorf("docs/counters.md does not document rule %s (a row in \"The rules\")", r.Name)
			continue
		}
		var arms []string
		for _, m := range backquoted.FindAllStringSubmatch(row[1], -1) {
			arms = append(arms, m[1])
		}
		if strings.Join(arms, ",") != strings.Join(r.Arms, ",") {
			t.Errorf("docs/counters.md: rule %s's arms are %v, the page says %v", r.Name, r.Arms, arms)
		}
		if mode := r.Mode.String(); !strings.Contains(strings.ReplaceAll(row[4], " ", "_"), mode) {
			t.Errorf("docs/counters.md: rule %s runs %s, the page says %q", r.Name, mode, row[4])
		}
	}
	var counters []string
	for _, row := range docTable(t, page, "## The counters") {
		name := strings.Trim(row[0], "`")
		counters = append(counters, name)
		if len(row) != 4 || row[2] == "" || row[3] == "" {
			t.Errorf("docs/counters.md: the row of counter %s lacks a column: %q", name, row)
			continue
		}
		if i, ok := reg.counterIndex[name]; !ok || reg.counterRule[i] != row[1] {
			t.Errorf("docs/counters.md: counter %s of rule %s is not one the registry declares", name, row[1])
		}
	}
	slices.Sort(counters)
	want := reg.CounterNames()
	slices.Sort(want)
	if got, want := strings.Join(counters, " "), strings.Join(want, " "); got != want {
		t.Errorf("docs/counters.md documents the counters %s, the registry declares %s", got, want)
	}
}
