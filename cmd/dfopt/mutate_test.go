package main

import (
	"strings"
	"testing"
)

// TestMutateCommand runs tiny mutation campaigns through the CLI: the
// summary line, the exit status (1 when a cell that must be killed
// survives), the Markdown table, and bad usage.
func TestMutateCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout
		last string   // prefix of the last line
	}{
		{"killed", []string{"mutate", "-n", "300", "-cells", "pp.scan,ss.nested,ff.boolean", "-quiet"}, exitOK,
			[]string{"pp.scan ", "killed", "ff.boolean ", "equivalent"},
			"mutate: ok score=100.0% killed=2 counted=2 cells=3 "},
		{"survivor", []string{"mutate", "-n", "3", "-cells", "pp.limit", "-quiet"}, exitFailed,
			[]string{"SURVIVED"}, "mutate: SURVIVORS score=0.0% killed=0 counted=1 cells=1 median_plans_to_kill=0 survivors=pp.limit "},
		{"markdown", []string{"mutate", "-n", "300", "-cells", "pp.scan", "--markdown", "-quiet", "-workers", "1"}, exitOK,
			[]string{"| cell | rule | mutant | result | plans to first kill | seconds to first kill | plans changed |", "| `pp.scan` | predicate_pushdown |"},
			"| `pp.scan` |"},
		{"unknown cell", []string{"mutate", "-cells", "pp.nope", "-quiet"}, exitBadArgs, nil, ""},
		{"bad n", []string{"mutate", "-n", "0"}, exitBadArgs, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tc.name == "markdown" && !strings.HasPrefix(errOut, "mutate: ok score=100.0%") {
				t.Errorf("with --markdown the summary goes to stderr; stderr:\n%s", errOut)
			}
			if tc.last != "" {
				lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
				if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.last) {
					t.Errorf("last line %q, want prefix %q", last, tc.last)
				}
			}
		})
	}
}
