package main

import (
	"strings"
	"testing"
)

// Every numeric or path flag of every command refuses a value outside its
// range with one line that names the flag, the value and what is allowed,
// before doing any work. Each case asks for a tiny run otherwise (-n 1,
// -rows 10), so that a regression fails the test instead of starting a
// long campaign.
func TestFlagValuesAreValidated(t *testing.T) {
	ex := "../../examples/pushdown_through_select.json"
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string // the flag and the value, as the line names them
	}{
		{[]string{"oracle", "-n", "-5"}, "-n -5"},
		{[]string{"oracle", "-n", "1", "-workers", "0"}, "-workers 0"},
		{[]string{"oracle", "-n", "1", "-workers", "100000"}, "-workers 100000"},
		{[]string{"oracle", "-n", "1", "-rows", "-1"}, "-rows -1"},
		{[]string{"oracle", "-n", "1", "-rows", "201"}, "-rows 201"},
		{[]string{"oracle", "-n", "1", "-twins", "5"}, "-twins 5"},
		{[]string{"oracle", "-n", "1", "-twins", "-0.5"}, "-twins -0.5"},
		{[]string{"oracle", "-n", "1", "-twins", "NaN"}, "-twins NaN"},
		{[]string{"oracle", "-n", "1", "-max-shrink", "-1"}, "-max-shrink -1"},
		{[]string{"oracle", "-n", "1", "-parallelism", "-2"}, "-parallelism -2"},
		{[]string{"oracle", "-n", "1", "-partition-rows", "-8"}, "-partition-rows -8"},
		{[]string{"oracle", "-n", "1", "-out", ""}, "-out"},
		{[]string{"oracle", "-n", "1", "-shard", "3/2"}, "-shard"},
		{[]string{"mutate", "-n", "0"}, "-n 0"},
		{[]string{"mutate", "-n", "1", "-workers", "-1"}, "-workers -1"},
		{[]string{"mutate", "-n", "1", "-rows", "-3"}, "-rows -3"},
		{[]string{"mutate", "-n", "1", "-cells", "pp.nope"}, `-cells: no cell "pp.nope"`},
		{[]string{"bisect", ex, "-shrink-calls", "-1"}, "-shrink-calls -1"},
		{[]string{"bisect", ex, "-flip", "pp.nope"}, `-flip: no cell "pp.nope"`},
		{[]string{"bisect", ex, "-o", ""}, "-o"},
		{[]string{"gen-bench", "-out", dir, "-rows", "0"}, "-rows 0"},
		{[]string{"gen-bench", "-out", dir, "-rows", "10", "-rowgroup", "-1"}, "-rowgroup -1"},
		{[]string{"gen-bench", "-out", dir, "-rows", "10", "-rowgroup", "9999999999"}, "-rowgroup 9999999999"},
		{[]string{"bench", ex, "-n", "0"}, "-n 0"},
		{[]string{"bench", ex, "-data", dir + "/missing"}, "-data " + dir + "/missing"},
		{[]string{"bench", ex, "--flags", "nope=true"}, "--flags"},
		{[]string{"run", ex, "--format", "yaml"}, `--format "yaml"`},
		{[]string{"explain", ex, "--format", "svg"}, `--format "svg"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, status := runCLI(tc.args...)
			if status != exitBadArgs {
				t.Fatalf("status %d, want %d; stdout %q stderr %q", status, exitBadArgs, out, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one line naming %q", errOut, tc.want)
			}
			if out != "" {
				t.Errorf("a refused command printed %q", out)
			}
		})
	}
}

// A wrong number of arguments says what was wrong before the usage.
func TestArgumentCountsAreExplained(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oracle", "extra"}, `unexpected argument "extra"`},
		{[]string{"mutate", "extra"}, `unexpected argument "extra"`},
		{[]string{"legality", "extra"}, `unexpected argument "extra"`},
		{[]string{"run"}, "want exactly one FILE, got 0"},
		{[]string{"bisect", "a.json", "b.json"}, "want exactly one FILE, got 2"},
		{[]string{"check"}, "want at least one FILE"},
		{[]string{"gen-bench"}, "-out DIR is required"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, status := runCLI(tc.args...)
			if status != exitBadArgs || !strings.HasPrefix(errOut, "dfopt "+tc.args[0]+": "+tc.want) {
				t.Errorf("status %d, stderr %q; want %d and a first line with %q", status, errOut, exitBadArgs, tc.want)
			}
		})
	}
}
