package dfopt_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// The import rules of docs/design.md §1, enforced with `go list` (golang.org/x/tools
// is not a dependency): the optimizer core stays embeddable without Arrow or
// the executor, and the executors never reach into the optimizer.

const module = "github.com/dfopt/dfopt"

// layerRule forbids every package matched by a pattern to depend, directly
// or transitively, on any package under one of the forbidden prefixes, and,
// when onlyModule is set, on any package of this module other than the
// patterns' own packages and exactly those listed.
type layerRule struct {
	why        string
	patterns   []string
	forbidden  []string
	onlyModule []string
}

var layerRules = []layerRule{
	{
		why:       "plan, legality and rules import neither Arrow nor exec: a plan can be built, resolved, optimized and explained with no data anywhere",
		patterns:  []string{"./plan/...", "./legality/...", "./rules/..."},
		forbidden: []string{"github.com/apache/arrow-go", module + "/exec"},
	},
	{
		why:       "the embedding example (examples/embed) is a host engine with its own interpreter: it must need nothing but plan, legality and rules",
		patterns:  []string{"./examples/embed/..."},
		forbidden: []string{"github.com/apache/arrow-go", module + "/exec", module + "/eager", module + "/oracle"},
	},
	{
		why:       "exec and eager import plan and the kernel, never rules: the executors must not depend on the optimizer they check",
		patterns:  []string{"./exec/...", "./eager/..."},
		forbidden: []string{module + "/rules"},
	},
	{
		why: "the Parquet source (exec/parquet) is a source like a host's: it imports exec (exec.ScanRequest), and the executor " +
			"(exec, its kernel, operators and steps) and the eager chain never import it",
		patterns:  []string{"./exec", "./exec/kernel/...", "./exec/ops/...", "./exec/step/...", "./eager/..."},
		forbidden: []string{module + "/exec/parquet"},
	},
	{
		why:       "the executors and the optimizer produce values, not text: result formatting (package format) belongs to the CLI and the front door",
		patterns:  []string{"./exec/...", "./eager/...", "./plan/...", "./legality/...", "./rules/..."},
		forbidden: []string{module + "/format"},
	},
	{
		why: "reference is the oracle's independent fourth way: it imports nothing of the module but plan (not even plan/planjson), and no Arrow, " +
			"so that a bug in the kernel, the executors or the optimizer cannot reach it; it may also import plan/testops, the declarations " +
			"(not implementations) of the built-in extension operators, whose pointers it must hold to run its own implementations of them",
		patterns:   []string{"./reference/..."},
		forbidden:  []string{"github.com/apache/arrow-go"},
		onlyModule: []string{module + "/plan", module + "/plan/testops"},
	},
}

// listedPackage is the part of `go list -json` output the test reads.
type listedPackage struct {
	ImportPath string
	DepOnly    bool
	Imports    []string
	Deps       []string
}

// goList runs `go list -e -deps -json` on one pattern and returns every
// package it printed, by import path, and the import paths the pattern
// itself matched. A pattern that matches nothing yields no packages.
func goList(t *testing.T, pattern string) (all map[string]*listedPackage, roots []string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-e", "-deps", "-json", pattern)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list %s: %v\n%s", pattern, err, stderr.String())
	}
	all = map[string]*listedPackage{}
	dec := json.NewDecoder(&stdout)
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list %s: decoding: %v", pattern, err)
		}
		all[p.ImportPath] = &p
		if !p.DepOnly {
			roots = append(roots, p.ImportPath)
		}
	}
	sort.Strings(roots)
	return all, roots
}

// under reports whether path is prefix or a package below it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// chain returns the shortest import chain from root to target, for the
// failure message.
func chain(all map[string]*listedPackage, root, target string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == target {
			var out []string
			for p := cur; p != ""; p = prev[p] {
				out = append([]string{p}, out...)
			}
			return out
		}
		if p := all[cur]; p != nil {
			for _, imp := range p.Imports {
				if _, seen := prev[imp]; !seen {
					prev[imp] = cur
					queue = append(queue, imp)
				}
			}
		}
	}
	return []string{root, "...", target}
}

// violations checks one rule's pattern and returns one line per forbidden
// dependency, naming the import chain.
func violations(t *testing.T, pattern string, forbidden []string) (found []string, checked int) {
	all, roots := goList(t, pattern)
	for _, root := range roots {
		checked++
		for _, dep := range all[root].Deps {
			for _, f := range forbidden {
				if under(dep, f) {
					found = append(found, root+" depends on "+dep+": "+strings.Join(chain(all, root, dep), " -> "))
				}
			}
		}
	}
	return found, checked
}

func TestLayering(t *testing.T) {
	for _, rule := range layerRules {
		for _, pattern := range rule.patterns {
			found, checked := violations(t, pattern, rule.forbidden)
			if checked == 0 {
				t.Logf("%s: no packages yet, skipped", pattern)
				continue
			}
			if rule.onlyModule != nil {
				found = append(found, moduleViolations(t, pattern, rule.onlyModule)...)
			}
			for _, v := range found {
				t.Errorf("%s\n  rule: %s", v, rule.why)
			}
		}
	}
}

// moduleViolations checks that the packages pattern matches depend on no
// package of this module but each other and the allowed ones (exact import
// paths), and returns one line per other dependency with its import chain.
func moduleViolations(t *testing.T, pattern string, allowed []string) []string {
	all, roots := goList(t, pattern)
	ok := map[string]bool{}
	for _, p := range allowed {
		ok[p] = true
	}
	for _, r := range roots {
		ok[r] = true
	}
	var found []string
	for _, root := range roots {
		for _, dep := range all[root].Deps {
			if under(dep, module) && !ok[dep] {
				found = append(found, root+" depends on "+dep+", which is not among "+strings.Join(allowed, ", ")+": "+
					strings.Join(chain(all, root, dep), " -> "))
			}
		}
	}
	return found
}

// TestLayeringCheckerCanFail runs the checker on packages known to break the
// core rule (the executor is built on Arrow), so that TestLayering cannot
// pass by checking nothing.
func TestLayeringCheckerCanFail(t *testing.T) {
	found, checked := violations(t, "./exec/...", []string{"github.com/apache/arrow-go"})
	if checked == 0 {
		t.Skip("no exec packages yet")
	}
	if len(found) == 0 {
		t.Fatal("the checker found no Arrow dependency in exec/..., which is built on Arrow")
	}
	t.Logf("example violation: %s", found[0])
	if !strings.Contains(found[0], " -> ") {
		t.Errorf("a violation does not show its import chain: %s", found[0])
	}
	// And it sees the core packages at all.
	if _, n := violations(t, "./plan/...", nil); n == 0 {
		t.Error("the checker lists no plan packages")
	}
	// The module rule sees a module dependency that is not allowed: the
	// oracle depends on exec.
	if v := moduleViolations(t, "./oracle", []string{module + "/plan"}); len(v) == 0 {
		t.Error("the module rule found no dependency of oracle beyond plan, which imports exec")
	}
}
