package rules

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// The rule tests are data, in the style of CockroachDB's optimizer tests:
// one file per rule under testdata/, named after the rule (and "optimize"
// for the whole optimizer). A file is a list of cases; a case is
//
//	# comment lines (optional)
//	optimize case=pp_sort_allow cell=pp.sort allow
//	filter [b > 1]
//	  sort [a]
//	    scan t
//	----
//	sort [a]
//	  filter [b > 1]
//	    scan t
//	counters: pushedFilters=1 ...
//	why:
//	  predicate_pushdown: `b > 1` pushed past sort [a]: cell pp.sort — ...
//
// a directive line, the input, a "----" line and the expected output,
// which ends at a blank line (or, when the output holds blank lines,
// between a "----" line after the first and a "----\n----" pair). go test
// ./rules -rewrite writes every expected output — and the input in its
// canonical form — from what the code does now.
//
// The input plan is written as plan.Explain prints it: one node per line,
// each input indented two spaces under its node, expressions in their
// canonical text (plan.Expr.String). Scans read the catalog's tables
// (testCatalog: t, t2, twin, l, r, src, bad, ex, zone) or a table the file
// declares with the table directive. The directives:
//
//	optimize [case=NAME] [flags=R,A,...|all|none] [tier=bounded|standard] [limit=N]
//	         [cell=ID allow|refuse [masked] [partial] [override]]
//	         [flip=ID] [barrier=ID] [verify=false] [eval=none]
//	    Optimizes the input and prints plan.ExplainText with the why lines.
//	    flags: the rules and arms on (default: the file's rule and its arms;
//	    in "optimize", all); flip/barrier: the legality table with that cell
//	    flipped (legality.Flip) or made a barrier; eval=none: no constant
//	    evaluator (simplify folds through the reference interpreter
//	    otherwise, refEvaluator). A case naming a cell is a
//	    cell case (TestData checks it; see cellCase).
//	explain-dot [flags=...]
//	    Prints ExplainDOT of the input and its optimization.
//	table name=NAME [zone_maps=N] [rows=N]
//	    Declares a table for the rest of the file: one "column type
//	    [not null]" per input line; no output. rows=N gives it N rows of
//	    zeros (and so a row estimate of N, which build_side reads).
var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs (and inputs, canonically) of rules/testdata")

// ddCase is one case of a data file.
type ddCase struct {
	file    string
	line    int // the directive's line, from 1
	command string
	args    map[string]string
	// flagArgs are the bare words of the directive (allow, refuse, masked,
	// partial, override), in order.
	words    []string
	input    []string
	expected string
	// at is where the case's lines are in the file: the directive, the
	// input, the separator and the output (rewritten in place).
	start, end int
}

// name is the case's name: its case= argument, else file:line.
func (c *ddCase) name() string {
	if n := c.args["case"]; n != "" {
		return n
	}
	return fmt.Sprintf("%s:%d", c.file, c.line)
}

func (c *ddCase) has(word string) bool {
	for _, w := range c.words {
		if w == word {
			return true
		}
	}
	return false
}

// ddFile is a parsed data file: its lines and cases.
type ddFile struct {
	path  string
	lines []string
	cases []*ddCase
}

// parseDataFile reads a data file into cases.
func parseDataFile(path string) (*ddFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(string(raw), "\n")
	f := &ddFile{path: path, lines: strings.Split(text, "\n")}
	name := filepath.Base(path)
	for i := 0; i < len(f.lines); {
		line := strings.TrimSpace(f.lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			i++
			continue
		}
		c := &ddCase{file: name, line: i + 1, start: i, args: map[string]string{}}
		fields := strings.Fields(line)
		c.command = fields[0]
		for _, w := range fields[1:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				c.args[k] = v
			} else {
				c.words = append(c.words, w)
			}
		}
		i++
		for ; i < len(f.lines) && f.lines[i] != "----"; i++ {
			if strings.TrimSpace(f.lines[i]) == "" {
				return nil, fmt.Errorf("%s:%d: a blank line inside the input of the case at line %d", name, i+1, c.line)
			}
			c.input = append(c.input, f.lines[i])
		}
		if i == len(f.lines) {
			return nil, fmt.Errorf("%s:%d: the case has no ---- line", name, c.line)
		}
		i++
		var out []string
		if i < len(f.lines) && f.lines[i] == "----" {
			// The long form: the output ends at a "----" "----" pair.
			for i++; i < len(f.lines) && !(f.lines[i] == "----" && i+1 < len(f.lines) && f.lines[i+1] == "----"); i++ {
				out = append(out, f.lines[i])
			}
			if i == len(f.lines) {
				return nil, fmt.Errorf("%s:%d: the output has no closing ---- ---- pair", name, c.line)
			}
			i += 2
		} else {
			for ; i < len(f.lines) && f.lines[i] != ""; i++ {
				out = append(out, f.lines[i])
			}
		}
		if len(out) > 0 {
			c.expected = strings.Join(out, "\n") + "\n"
		}
		c.end = i
		f.cases = append(f.cases, c)
	}
	return f, nil
}

// render writes the file back with each case's input and output replaced
// by canon and got (by case).
func (f *ddFile) render(canon, got map[*ddCase]string) string {
	var b strings.Builder
	next := 0
	for _, c := range f.cases {
		for _, l := range f.lines[next:c.start] {
			b.WriteString(l + "\n")
		}
		b.WriteString(f.lines[c.start] + "\n")
		in := canon[c]
		if in == "" {
			in = strings.Join(c.input, "\n") + "\n"
		}
		if strings.TrimSpace(in) != "" {
			b.WriteString(in)
		}
		b.WriteString("----\n")
		out := got[c]
		if strings.Contains(strings.TrimSuffix(out, "\n"), "\n\n") {
			b.WriteString("----\n" + out + "----\n----\n")
		} else {
			b.WriteString(out)
		}
		next = c.end
	}
	for _, l := range f.lines[next:] {
		b.WriteString(l + "\n")
	}
	out := b.String()
	for strings.HasSuffix(out, "\n\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// dataFiles lists testdata's data files: every regular file without an
// extension.
func dataFiles(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && filepath.Ext(e.Name()) == "" && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join("testdata", e.Name()))
		}
	}
	return out
}

// wholeOptimizer is the data file of cases about every rule together.
const wholeOptimizer = "optimize"

// ddEnv is one data file's state while its cases run: the tables it
// declared.
type ddEnv struct {
	rule    string // the file's rule ("" for the whole optimizer)
	catalog map[string]plan.Source
}

func newEnv(file string) *ddEnv {
	env := &ddEnv{catalog: testCatalog()}
	if file != wholeOptimizer {
		env.rule = file
	}
	return env
}

// testCatalog is the tables every data file can scan: those of
// helpers_test.go, by their names, and twin, a second table named t2 (the
// same fingerprint as t2, other data: ss.structural's collision).
func testCatalog() map[string]plan.Source {
	return map[string]plan.Source{"t": tT, "t2": tAB, "twin": tTwin, "l": tL, "r": tR, "src": src, "bad": bad, "ex": exact, "zone": zone}
}

// flags are the case's optimizer flags.
func (env *ddEnv) flags(c *ddCase) (Flags, error) {
	// A case runs in the bounded tier unless it says tier=standard: the
	// bounded tier's behaviour is pinned byte for byte.
	tier := TierBounded
	if name := c.args["tier"]; name != "" {
		t, err := ParseTier(name)
		if err != nil {
			return Flags{}, err
		}
		tier = t
	}
	var f Flags
	switch names := c.args["flags"]; {
	case names == "all" || (names == "" && env.rule == ""):
		f = Builtin().TierFlags(tier)
	case names == "none":
	case names == "":
		f = only(env.rule)
	default:
		for _, n := range strings.Split(names, ",") {
			if err := f.Set(n, true); err != nil {
				return f, err
			}
		}
	}
	f.Verify = c.args["verify"] != "false"
	f.Tier = tier
	if c.args["eval"] != "none" {
		f.Evaluator = refEvaluator{} // simplify folds through the reference interpreter
	}
	if l := c.args["limit"]; l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return f, fmt.Errorf("limit=%s: %w", l, err)
		}
		f.Limit = n
	}
	switch id, bar := c.args["flip"], c.args["barrier"]; {
	case id != "" && bar != "":
		return f, fmt.Errorf("flip= and barrier= together")
	case id != "":
		t, err := legality.Default().Flipped(legality.CellID(id))
		if err != nil {
			return f, err
		}
		f.Table = t
	case bar != "":
		t, err := legality.Default().WithOverride(legality.CellID(bar), legality.Barrier)
		if err != nil {
			return f, err
		}
		f.Table = t
	}
	return f, nil
}

// run runs one case and returns its canonical input and its output.
func (env *ddEnv) run(c *ddCase) (canon, out string, err error) {
	switch c.command {
	case "table":
		return "", "", env.declare(c)
	case "optimize", "explain-dot":
	default:
		return "", "", fmt.Errorf("unknown directive %q (optimize, explain-dot, table)", c.command)
	}
	in, err := parsePlan(c.input, env.catalog)
	if err != nil {
		return "", "", err
	}
	flags, err := env.flags(c)
	if err != nil {
		return "", "", err
	}
	res, err := Optimize(in, flags)
	if err != nil {
		return "", "", err
	}
	canon = explainInput(in, env.catalog)
	if c.command == "explain-dot" {
		resolved, err := plan.Resolve(in)
		if err != nil {
			return "", "", err
		}
		return canon, ExplainDOT(resolved, res), nil
	}
	return canon, ExplainText(res, true), nil
}

// declare adds the table of a table directive to the file's catalog.
func (env *ddEnv) declare(c *ddCase) error {
	name := c.args["name"]
	if name == "" {
		return fmt.Errorf("table: no name=")
	}
	var fields []plan.Field
	stated := map[string]plan.ColumnFacts{}
	for _, l := range c.input {
		w := strings.Fields(l)
		if len(w) > 2 && strings.HasPrefix(w[len(w)-1], "range=") {
			// "a int64 range=LO..HI": the table states that range (range_proofs).
			f, err := statedRange(w[1], strings.TrimPrefix(w[len(w)-1], "range="))
			if err != nil {
				return fmt.Errorf("table %s: %q: %w", name, l, err)
			}
			stated[w[0]] = f
			w = w[:len(w)-1]
		}
		if len(w) != 2 && !(len(w) == 4 && w[2] == "not" && w[3] == "null") {
			return fmt.Errorf("table %s: %q is not \"column type [not null]\"", name, l)
		}
		typ, ok := plan.ParseType(w[1])
		if !ok {
			return fmt.Errorf("table %s: unknown type %q", name, w[1])
		}
		fields = append(fields, plan.Field{Name: w[0], Type: typ, Nullable: len(w) == 2})
	}
	schema, err := plan.NewSchema(fields...)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	cols := make([][]plan.Value, len(fields))
	if r := c.args["rows"]; r != "" {
		n, err := strconv.Atoi(r)
		if err != nil || n < 0 {
			return fmt.Errorf("table %s: rows=%s is not a row count", name, r)
		}
		for i, f := range fields {
			zero := map[plan.Type]plan.Value{plan.Int64: plan.Int64Value(0), plan.Int32: plan.Int32Value(0),
				plan.Float64: plan.Float64Value(0), plan.String: plan.StringValue(""), plan.Bool: plan.BoolValue(false)}[f.Type]
			cols[i] = make([]plan.Value, n)
			for j := range cols[i] {
				cols[i][j] = zero
			}
		}
	}
	tbl, err := plan.NewTable(name, schema, cols)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	if z := c.args["zone_maps"]; z != "" {
		n, err := strconv.Atoi(z)
		if err != nil {
			return fmt.Errorf("table %s: zone_maps=%s: %w", name, z, err)
		}
		tbl = tbl.WithZoneMaps(n)
	}
	if len(stated) > 0 {
		tbl = tbl.WithStatedFacts(stated)
	}
	env.catalog[name] = tbl
	return nil
}

// explainInput is plan.Explain of an input plan with each scan named as
// the catalog names its source (twin, not t2).
func explainInput(n plan.Node, catalog map[string]plan.Source) string {
	names := map[plan.Source]string{}
	for k, s := range catalog {
		if s.Name() == k || names[s] == "" {
			names[s] = k
		}
	}
	var scans []string
	plan.WalkNodes(n, func(m plan.Node) bool {
		if s, ok := m.(*plan.ScanNode); ok {
			scans = append(scans, names[s.Source])
		}
		return true
	})
	lines := strings.Split(strings.TrimSuffix(plan.Explain(n), "\n"), "\n")
	k := 0
	for i, l := range lines {
		body := strings.TrimLeft(l, " ")
		if strings.HasPrefix(body, "scan ") && k < len(scans) {
			lines[i] = l[:len(l)-len(body)] + "scan " + scans[k]
			k++
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestData runs every data file: each case's output must be the expected
// one (go test ./rules -rewrite accepts the new ones), its input must be
// canonical, and the cell cases must cover the table (see checkCellCases).
func TestData(t *testing.T) {
	files := dataFiles(t)
	seenRule := map[string]bool{}
	var cells []*cellCase
	names := map[string]string{}
	for _, path := range files {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			if _, ok := Builtin().Rule(base); !ok && base != wholeOptimizer {
				t.Fatalf("testdata/%s names no rule (a data file is named after its rule, or is %q)", base, wholeOptimizer)
			}
			seenRule[base] = true
			f, err := parseDataFile(path)
			if err != nil {
				t.Fatal(err)
			}
			env := newEnv(base)
			canon, got := map[*ddCase]string{}, map[*ddCase]string{}
			for _, c := range f.cases {
				if prev, dup := names[c.name()]; dup {
					t.Errorf("%s:%d: case %s is also at %s", base, c.line, c.name(), prev)
				}
				names[c.name()] = fmt.Sprintf("%s:%d", base, c.line)
				t.Run(c.name(), func(t *testing.T) {
					in, out, err := env.run(c)
					if err != nil {
						t.Fatalf("%s:%d: %v", base, c.line, err)
					}
					canon[c], got[c] = in, out
					if !*rewrite {
						if in != "" && in != strings.Join(c.input, "\n")+"\n" {
							t.Errorf("%s:%d: the input is not canonical (go test ./rules -rewrite writes it so):\n%s", base, c.line, in)
						}
						if out != c.expected {
							t.Errorf("%s:%d: the output differs (go test ./rules -rewrite to accept):\n--- want\n%s--- got\n%s", base, c.line, c.expected, out)
						}
					}
					if id := c.args["cell"]; id != "" {
						cc, err := env.cellCase(c)
						if err != nil {
							t.Fatalf("%s:%d: %v", base, c.line, err)
						}
						checkCellCase(t, cc)
						cells = append(cells, cc)
					}
				})
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(f.render(canon, got)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	for _, r := range Builtin().Rules() {
		if !seenRule[r.Name] {
			t.Errorf("rule %s has no data file testdata/%s", r.Name, r.Name)
		}
	}
	if !t.Failed() && !*rewrite {
		checkCellCoverage(t, cells)
	}
}

// statedRange parses "LO..HI" as the stated range of a column of type typ
// (int32, int64 or float64; a float range also states the column NaN-free).
func statedRange(typ, r string) (plan.ColumnFacts, error) {
	lo, hi, ok := strings.Cut(r, "..")
	if !ok {
		return plan.ColumnFacts{}, fmt.Errorf("range %q is not LO..HI", r)
	}
	t, _ := plan.ParseType(typ)
	switch t {
	case plan.Int32, plan.Int64:
		a, err1 := strconv.ParseInt(lo, 10, 64)
		b, err2 := strconv.ParseInt(hi, 10, 64)
		if err1 != nil || err2 != nil {
			return plan.ColumnFacts{}, fmt.Errorf("range %q: bounds are not integers", r)
		}
		if t == plan.Int32 {
			return plan.ColumnFacts{HasRange: true, Min: plan.Int32Value(int32(a)), Max: plan.Int32Value(int32(b))}, nil
		}
		return plan.ColumnFacts{HasRange: true, Min: plan.Int64Value(a), Max: plan.Int64Value(b)}, nil
	case plan.Float64:
		a, err1 := strconv.ParseFloat(lo, 64)
		b, err2 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil {
			return plan.ColumnFacts{}, fmt.Errorf("range %q: bounds are not floats", r)
		}
		return plan.ColumnFacts{HasRange: true, Min: plan.Float64Value(a), Max: plan.Float64Value(b), NaNFree: true}, nil
	}
	return plan.ColumnFacts{}, fmt.Errorf("no range on a %s column", typ)
}
