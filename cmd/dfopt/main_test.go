package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runCLI runs one command line in-process and returns its streams and status.
func runCLI(args ...string) (stdout, stderr string, status int) {
	var out, errOut bytes.Buffer
	status = dispatch(&environment{stdout: &out, stderr: &errOut}, args)
	return out.String(), errOut.String(), status
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/dfopt -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./cmd/dfopt -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenOutputs(t *testing.T) {
	ex := func(name string) string { return filepath.Join("..", "..", "examples", name) }
	for _, tc := range []struct {
		golden string
		args   []string
		status int
	}{
		{"explain_why.golden", []string{"explain", ex("filter_over_partial_with_columns.json"), "--why"}, exitOK},
		{"explain_pushdown.golden", []string{"explain", "--why", ex("pushdown_through_select.json")}, exitOK},
		{"explain_raw.golden", []string{"explain", ex("self_join_shared_subplan.json"), "--raw"}, exitOK},
		{"explain_dot.golden", []string{"explain", ex("pushdown_through_select.json"), "--format", "dot"}, exitOK},
		{"run_table.golden", []string{"run", ex("group_by.json")}, exitOK},
		{"run_csv.golden", []string{"run", ex("pushdown_through_select.json"), "--format", "csv"}, exitOK},
		{"run_json.golden", []string{"run", ex("pushdown_through_select.json"), "--format=json"}, exitOK},
		{"run_json_error.golden", []string{"run", ex("divide_by_zero.json"), "--format", "json"}, exitFailed},
		{"run_noopt.golden", []string{"run", ex("self_join_shared_subplan.json"), "--no-opt"}, exitOK},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errOut, status := runCLI(tc.args...)
			if status != tc.status {
				t.Fatalf("status %d, want %d; stderr:\n%s", status, tc.status, errOut)
			}
			checkGolden(t, tc.golden, strings.ReplaceAll(out, filepath.Join("..", "..")+string(filepath.Separator), ""))
		})
	}
}

// The machine-readable outputs must parse and carry the fields docs/design.md §10
// promises.
func TestJSONOutputsParse(t *testing.T) {
	out, _, status := runCLI("run", "../../examples/divide_by_zero.json", "--format", "json")
	if status != exitFailed {
		t.Fatalf("status %d", status)
	}
	var failed struct {
		Schema []map[string]any `json:"schema"`
		Rows   *[][]any         `json:"rows"`
		Error  *struct {
			Kind, Expr string
			Row        *int64
		} `json:"error"`
		Counters map[string]int `json:"counters"`
	}
	if err := json.Unmarshal([]byte(out), &failed); err != nil {
		t.Fatalf("run --format json is not JSON: %v\n%s", err, out)
	}
	if failed.Rows != nil || failed.Error == nil || failed.Error.Kind != "divide_by_zero" || failed.Error.Expr != "notional / qty" {
		t.Errorf("failed run JSON: %+v", failed)
	}
	if _, ok := failed.Counters["sharedSubplans"]; !ok {
		t.Errorf("counters lack sharedSubplans: %v", failed.Counters)
	}
	out, _, status = runCLI("explain", "../../examples/pushdown_through_select.json", "--format", "json")
	if status != exitOK {
		t.Fatalf("explain json status %d", status)
	}
	var explained map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &explained); err != nil {
		t.Fatalf("explain --format json is not JSON: %v", err)
	}
	for _, key := range []string{"plan", "optimized", "counters", "trace"} {
		if _, ok := explained[key]; !ok {
			t.Errorf("explain JSON lacks %q", key)
		}
	}
}

func TestBadInvocations(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": "dfopt-plan/1", "tables": {}, "plan": {"op": "scan", "table": "nope"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	badFlag := filepath.Join(dir, "flag.json")
	if err := os.WriteFile(badFlag, []byte(`{"format": "dfopt-plan/1", "tables": {"t": {"columns": []}},
		"plan": {"op": "scan", "table": "t"}, "flags": {"predicate_pushdwon": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		stderr string // a fragment the error must contain
	}{
		{"no command", nil, exitBadArgs, "usage"},
		{"unknown command", []string{"optimise"}, exitBadArgs, `unknown command "optimise"`},
		{"missing file", []string{"run", filepath.Join(dir, "missing.json")}, exitBadArgs, "missing.json"},
		{"unknown table", []string{"explain", bad}, exitBadArgs, "nope"},
		{"unknown flag name in file", []string{"run", badFlag}, exitBadArgs, "predicate_pushdwon"},
		{"bad format", []string{"run", bad, "--format", "xml"}, exitBadArgs, "xml"},
		{"two files", []string{"explain", bad, bad}, exitBadArgs, "usage"},
		{"unknown option", []string{"legality", "--html"}, exitBadArgs, "html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, status := runCLI(tc.args...)
			if status != tc.status {
				t.Errorf("status %d, want %d; stderr:\n%s", status, tc.status, errOut)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errOut)
			}
		})
	}
}

// docs/legality.md is what `dfopt legality --markdown` prints.
func TestLegalityMarkdownMatchesDocs(t *testing.T) {
	out, _, status := runCLI("legality", "--markdown")
	if status != exitOK {
		t.Fatalf("status %d", status)
	}
	want, err := os.ReadFile("../../docs/legality.md")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("docs/legality.md is stale: regenerate it with `go run ./cmd/dfopt legality --markdown > docs/legality.md`")
	}
}
