package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostilePlan is a plan file whose names and values attack the output:
// terminal escapes, a newline in a column name, a null next to an empty
// string, and int64 values a float64 JSON reader would round.
const hostilePlan = `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [
  {"name": "s\nx", "type": "string", "values": ["\u001b[2J\u001b[31mred", null, ""]},
  {"name": "\u001b]0;title\u0007", "type": "int64", "values": ["9007199254740993", -9007199254740992, "-9223372036854775808"]}
]}}, "plan": {"op": "scan", "table": "t"}}`

func writeHostile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(path, []byte(hostilePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunTableEscapesControlCharacters(t *testing.T) {
	out, errOut, status := runCLI("run", writeHostile(t))
	if status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("table output holds raw control characters:\n%q", out)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], `"s\nx"`) || !strings.Contains(lines[0], `"\x1b]0;title\a"`) {
		t.Errorf("header line %q: want the names escaped on one line", lines[0])
	}
	if !strings.Contains(out, `"\x1b[2J\x1b[31mred"`) {
		t.Errorf("the escape value is not shown escaped:\n%s", out)
	}
}

func TestRunCSVTellsNullFromEmptyString(t *testing.T) {
	out, errOut, status := runCLI("run", writeHostile(t), "--format", "csv")
	if status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 6 || lines[3] != ",-9007199254740992" || lines[4] != `"",-9223372036854775808` {
		t.Errorf("csv rows: want a null as an empty field and \"\" for the empty string:\n%q", out)
	}
}

func TestRunJSONQuotesLargeInt64(t *testing.T) {
	out, errOut, status := runCLI("run", writeHostile(t), "--format", "json")
	if status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{`"9007199254740993"]`, `,-9007199254740992]`, `"-9223372036854775808"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("json lacks %s:\n%s", want, out)
		}
	}
}
