package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documentation runs: every `go run ./cmd/dfopt ...` line in a fenced
// code block of README.md or docs/*.md is run in-process from the module
// root, and must exit with status 0, or with the status its comment
// documents ("# ... exit 1"). Where a block of expected output follows the
// command's block, marked by the line <!-- output --> between them, the
// command's stdout must match it after normalization. docs/cli.md
// ("Documentation that runs") states the conventions; this file is their
// definition.

// docCommand is one documented command line.
type docCommand struct {
	file string
	line int
	text string   // the command as written, comment removed
	args []string // the arguments after "go run ./cmd/dfopt"
	exit int      // the documented exit status
	want []string // the expected stdout lines, when an output block follows
}

var (
	docCommandLine = regexp.MustCompile(`^\s*(?:\$ )?go run \./cmd/dfopt\s+(.*)$`)
	docExitStatus  = regexp.MustCompile(`\bexit (\d+)\b`)
	// docVolatile matches the key=value fields whose values are timings or
	// machine figures; normalization replaces each value with "*".
	docVolatile = regexp.MustCompile(`\b(elapsed|cpu|plans/s|plans/cpu-s|workers|seconds|gomaxprocs|load_s|median_s|min_s|max_s|optimize_s|cpu_s|total_median_s|total_cpu_s)=[^ ]+`)
	// docDuration matches a trailing " in 8ms" (bisect's oracle-call line).
	docDuration = regexp.MustCompile(`( in )[0-9.]+[a-zµ]*s$`)
)

// outputMarker separates a command block from the block of its output.
const outputMarker = "<!-- output -->"

// parseDocCommands extracts the documented commands of one Markdown file.
func parseDocCommands(t *testing.T, file string) []*docCommand {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cmds []*docCommand
	var last *docCommand // the last command of the last block closed
	fence := ""
	var output *[]string // collecting an output block for last
	pendingOutput := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if fence == "" {
			switch {
			case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
				fence = trimmed[:3]
				if pendingOutput {
					output = &last.want
					pendingOutput = false
				} else {
					last = nil
				}
			case trimmed == outputMarker:
				if last == nil {
					t.Errorf("%s:%d: %s follows no command block", file, i+1, outputMarker)
				}
				pendingOutput = last != nil
			case trimmed != "":
				pendingOutput = false
				last = nil
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) {
			fence, output = "", nil
			continue
		}
		if output != nil {
			*output = append(*output, line)
			continue
		}
		m := docCommandLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text, comment, _ := strings.Cut(m[1], " #")
		c := &docCommand{file: file, line: i + 1, text: "go run ./cmd/dfopt " + strings.TrimSpace(text)}
		c.args = strings.Fields(text)
		if e := docExitStatus.FindStringSubmatch(comment); e != nil {
			c.exit, _ = strconv.Atoi(e[1])
		}
		cmds = append(cmds, c)
		last = c
	}
	return cmds
}

// docRun is the state the documented commands share: a temporary
// directory standing in for the paths they write.
type docRun struct {
	tmp      string
	replaced map[string]string // temporary path -> path as documented
}

// substitute returns the arguments to run for a documented command: glob
// patterns expanded, and the substitutions that keep a test run small and
// inside a temporary directory (docs/cli.md lists them):
//   - gen-bench writes -rows 20000 -rowgroup 5000 into the temporary
//     directory instead of 10M rows into -out;
//   - bench runs each query once (-n 1) over that directory's data
//     (--data), generating it first when no gen-bench ran;
//   - mutate flips two cells (-cells pp.limit,pr.scan), not all of them;
//   - oracle writes counterexamples (-out) and bisect its case (-o) into
//     the temporary directory; both run -quiet where they can.
func (r *docRun) substitute(t *testing.T, c *docCommand) []string {
	t.Helper()
	var args []string
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		if (a == "-out" || a == "-o") && i+1 < len(c.args) {
			args = append(args, a, r.temp(c.args[i+1]))
			i++
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			matches, err := filepath.Glob(a)
			if err != nil || len(matches) == 0 {
				t.Fatalf("%s:%d: %s names no file", c.file, c.line, a)
			}
			args = append(args, matches...)
			continue
		}
		args = append(args, a)
	}
	has := func(flag string) bool {
		for _, a := range args {
			if a == flag || strings.HasPrefix(a, flag+"=") {
				return true
			}
		}
		return false
	}
	switch args[0] {
	case "gen-bench":
		args = append(args, "-rows", "20000", "-rowgroup", "5000")
	case "bench":
		data := r.temp("bench/data")
		if _, err := os.Stat(filepath.Join(data, "t.parquet")); err != nil {
			if out, errOut, status := runCLI("gen-bench", "-rows", "20000", "-rowgroup", "5000", "-out", data); status != exitOK {
				t.Fatalf("generating bench data: %d\n%s%s", status, out, errOut)
			}
		}
		args = append(args, "-n", "1", "--data", data)
	case "mutate":
		args = append(args, "-cells", "pp.limit,pr.scan", "-quiet")
	case "oracle":
		if !has("-out") {
			args = append(args, "-out", r.temp("oracle-counterexamples"))
		}
		args = append(args, "-quiet")
	case "bisect":
		if !has("-o") {
			args = append(args, "-o", r.temp("bisect.min.json"))
		}
	}
	return args
}

// temp maps a path a documented command writes to one in the temporary
// directory, remembering it so that outputs can name the documented path.
func (r *docRun) temp(path string) string {
	p := filepath.Join(r.tmp, strings.ReplaceAll(filepath.Clean(path), string(filepath.Separator), "_"))
	r.replaced[p] = path
	return p
}

// normalizeDocOutput rewrites the parts of an output that vary between
// runs: timing and machine fields, durations, and temporary paths.
func (r *docRun) normalize(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for tmp, doc := range r.replaced {
			l = strings.ReplaceAll(l, tmp, doc)
		}
		l = docVolatile.ReplaceAllString(l, "$1=*")
		l = docDuration.ReplaceAllString(l, "${1}*")
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// matchLines reports whether got matches want, where a want line "..."
// stands for any number of lines (none included).
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(got[k:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(got[1:], want[1:])
}

func TestDocumentedCommandsRun(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	r := &docRun{tmp: t.TempDir(), replaced: map[string]string{}}
	n := 0
	for _, file := range files {
		for _, c := range parseDocCommands(t, file) {
			n++
			t.Run(fmt.Sprintf("%s:%d", file, c.line), func(t *testing.T) {
				args := r.substitute(t, c)
				out, errOut, status := runCLI(args...)
				if status != c.exit {
					t.Fatalf("%s\nexit %d, documented %d (ran: dfopt %s)\nstderr:\n%s", c.text, status, c.exit, strings.Join(args, " "), tail(errOut, 20))
				}
				if c.want == nil {
					return
				}
				got := r.normalize(strings.Split(strings.TrimRight(out, "\n"), "\n"))
				want := r.normalize(c.want)
				if !matchLines(got, want) {
					t.Errorf("%s: the output differs from the documented output (normalized; \"...\" stands for any lines)\n--- got\n%s\n--- documented\n%s",
						c.text, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
	if n < 10 {
		t.Errorf("found %d documented commands; the extraction is broken", n)
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// The README opens with the two commands a new user runs first.
func TestReadmeOpensWithTheTwoCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	block, _, _ := strings.Cut(rest, "```")
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	want := []string{"go run ./cmd/dfopt explain examples/pushdown_through_select.json --why", "go test ./..."}
	if len(cmds) != 2 || cmds[0] != want[0] || cmds[1] != want[1] {
		t.Errorf("README.md's first block is %q, want %q", cmds, want)
	}
}

// The parser finds commands, exit statuses and output blocks, and the
// matcher honours "...", so that the test above cannot pass vacuously.
func TestDocParser(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "x.md")
	text := "text\n\n```sh\ngo run ./cmd/dfopt legality   # the table\n$ go run ./cmd/dfopt bisect a.json  # diverges: exit 1\n```\n\n" +
		outputMarker + "\n\n```\nline one\n...\nlast elapsed=3s\n```\n\n```\ngo run ./cmd/dfopt check b.json\n```\n"
	if err := os.WriteFile(md, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := parseDocCommands(t, md)
	if len(cmds) != 3 || cmds[0].args[0] != "legality" || cmds[0].exit != 0 || cmds[0].want != nil ||
		cmds[1].exit != 1 || len(cmds[1].want) != 3 || cmds[2].want != nil {
		t.Fatalf("parsed %+v %+v", cmds[0], cmds[1])
	}
	r := &docRun{replaced: map[string]string{}}
	want := r.normalize(cmds[1].want)
	for _, tc := range []struct {
		got string
		ok  bool
	}{
		{"line one\nlast elapsed=9s", true},
		{"line one\na\nb\nlast elapsed=0.1s", true},
		{"line two\nlast elapsed=9s", false},
		{"line one\nlast", false},
	} {
		if got := matchLines(r.normalize(strings.Split(tc.got, "\n")), want); got != tc.ok {
			t.Errorf("match(%q) = %v, want %v", tc.got, got, tc.ok)
		}
	}
}
