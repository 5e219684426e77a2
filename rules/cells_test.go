package rules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// cellCase is a data file's case that makes one legality cell allow (or
// refuse) a rewrite, in the style of CockroachDB's expect= / expect-not=
// rule tests: "optimize cell=ID allow|refuse [masked] [partial]
// [override]". Every cell has an allowing and a refusing case (see
// checkCellCoverage).
type cellCase struct {
	name  string
	where string // file:line
	cell  legality.CellID
	allow bool
	plan  plan.Node
	flags Flags
	// overridden: the case's table overrides the default one (flip= or
	// barrier=): barrier cells can only allow under their flipped mutant,
	// and cells whose condition always holds on valid plans can only refuse
	// under a barrier override.
	overridden bool
	// masked: another cell also refuses this rewrite, so flipping this cell
	// alone changes nothing (defence in depth).
	masked bool
	// override: a refusing case that exists only because the table makes
	// the cell a barrier. It tests the override switch, not the cell's
	// condition, so it does not count as the cell's refusing case.
	override bool
	// partial: the cell refuses one rewrite but another cell allows another
	// part, so the plan changes anyway.
	partial bool
}

// cellCase reads a case's cell arguments.
func (env *ddEnv) cellCase(c *ddCase) (*cellCase, error) {
	cc := &cellCase{name: c.name(), where: fmt.Sprintf("%s:%d", c.file, c.line), cell: legality.CellID(c.args["cell"]),
		overridden: c.args["flip"] != "" || c.args["barrier"] != ""}
	for _, w := range c.words {
		switch w {
		case "allow":
			cc.allow = true
		case "refuse":
		case "masked":
			cc.masked = true
		case "partial":
			cc.partial = true
		case "override":
			cc.override = true
		default:
			return nil, fmt.Errorf("unknown word %q (allow, refuse, masked, partial, override)", w)
		}
	}
	switch {
	case c.has("allow") == c.has("refuse"):
		return nil, fmt.Errorf("a cell case says exactly one of allow and refuse")
	case cc.override && (cc.allow || c.args["barrier"] != string(cc.cell)):
		return nil, fmt.Errorf("an override case refuses under barrier=%s", cc.cell)
	}
	cell, ok := legality.Default().Lookup(cc.cell)
	if !ok {
		return nil, fmt.Errorf("no cell %s", cc.cell)
	}
	if env.rule != "" && cell.Rule != env.rule {
		return nil, fmt.Errorf("cell %s belongs to %s: its cases go in testdata/%s", cc.cell, cell.Rule, cell.Rule)
	}
	if c.args["flags"] == "" && env.rule == "" {
		return nil, fmt.Errorf("a cell case outside its rule's file names its flags")
	}
	var err error
	if cc.plan, err = parsePlan(c.input, env.catalog); err != nil {
		return nil, err
	}
	if cc.flags, err = env.flags(c); err != nil {
		return nil, err
	}
	return cc, nil
}

// checkCellCase checks what a cell case claims: the trace has an entry of
// its cell with its outcome, the plan changed exactly when it allowed
// (unless partial), the counters and the trace agree, and a second run
// changes nothing (under the default table).
func checkCellCase(t *testing.T, c *cellCase) {
	t.Helper()
	cell, _ := legality.Default().Lookup(c.cell)
	rule, _ := Builtin().Rule(cell.Rule)
	in := resolve(t, c.plan)
	res, err := Optimize(c.plan, c.flags)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range res.Trace {
		if e.Cell == c.cell && e.Allowed == c.allow {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no entry with cell %s allowed=%v in the trace:\n%s", c.where, c.cell, c.allow, strings.Join(WhyLines(res), "\n"))
	}
	changed := !plan.Equal(res.Plan, in)
	switch {
	case rule.Analysis:
		if c.allow && len(Builtin().Rewrote(res.Counters)) == 0 {
			t.Errorf("%s: the analysis cell allowed but no counter moved", c.where)
		}
	case c.allow && !changed:
		t.Errorf("%s: the cell allowed a rewrite but the plan is unchanged", c.where)
	case !c.allow && changed && !c.partial:
		t.Errorf("%s: the cell refused but the plan changed:\n%s", c.where, plan.Explain(res.Plan))
	}
	checkAgreement(t, res)
	if !c.overridden {
		again, err := Optimize(res.Plan, c.flags)
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Equal(again.Plan, res.Plan) {
			t.Errorf("%s: not idempotent: a second run gives\n%s", c.where, plan.Explain(again.Plan))
		}
	}
}

// checkCellCoverage checks that the cell cases cover the table: every cell
// has an allowing case (under its mutant for a barrier), and a refusing one
// exactly when it can refuse (legality.Table.Outcomes; the catalog has twin
// sources). A cell that can do neither (the closed-world catch-alls no
// node reaches) needs no case.
func checkCellCoverage(t *testing.T, cases []*cellCase) {
	covered := map[legality.CellID][2]bool{}
	for _, c := range cases {
		v := covered[c.cell]
		switch {
		case c.allow:
			v[0] = true
		case !c.override:
			v[1] = true
		}
		covered[c.cell] = v
	}
	table := Builtin().Table()
	for _, id := range table.IDs() {
		canAllow, canRefuse := table.Outcomes(id, true)
		if !canAllow && !canRefuse {
			c, _ := table.Lookup(id)
			t.Logf("cell %s: not reachable from a plan: %s", id, c.NeverRefuses)
			continue
		}
		v := covered[id]
		if !v[0] {
			t.Errorf("cell %s lacks an allowing case", id)
		}
		switch {
		case !canRefuse && v[1]:
			t.Errorf("cell %s never refuses (its verdict or legality.Cell.NeverRefuses) but has a refusing case", id)
		case canRefuse && !v[1]:
			t.Errorf("cell %s lacks a refusing case (an override-only case does not count)", id)
		}
	}
}

// cellCases reads every cell case of the data files.
func cellCases(t *testing.T) []*cellCase {
	t.Helper()
	var out []*cellCase
	for _, path := range dataFiles(t) {
		f, err := parseDataFile(path)
		if err != nil {
			t.Fatal(err)
		}
		env := newEnv(filepath.Base(path))
		for _, c := range f.cases {
			if c.command == "table" {
				if err := env.declare(c); err != nil {
					t.Fatal(err)
				}
			}
			if c.args["cell"] == "" {
				continue
			}
			cc, err := env.cellCase(c)
			if err != nil {
				t.Fatalf("%s:%d: %v", c.file, c.line, err)
			}
			out = append(out, cc)
		}
	}
	return out
}

// Every refusing case of a cell that is not Crosses must change behaviour
// when that one cell is flipped: the override reaches the code path.
func TestFlipReachesCodePath(t *testing.T) {
	for _, c := range cellCases(t) {
		if c.allow || c.overridden || c.masked {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			flags := c.flags
			flags.Verify = false // a mutant may break the plan; that is the oracle's to find
			base, err := Optimize(c.plan, flags)
			if err != nil {
				t.Fatal(err)
			}
			flags.Table = flipped(c.cell)
			mut, err := Optimize(c.plan, flags)
			if err != nil {
				return // the mutant produced a broken plan: visible
			}
			for _, e := range mut.Trace {
				if e.Cell == c.cell && !e.Allowed {
					t.Errorf("cell %s still refuses under its flipped verdict: %s", c.cell, e)
				}
			}
			if plan.Equal(base.Plan, mut.Plan) && base.Counters.Equal(mut.Counters) {
				t.Errorf("flipping %s changed nothing", c.cell)
			}
		})
	}
}

// TestDataParser checks the plan syntax of the data files: every
// expression of the files' plans reads back from its canonical text as
// itself, and malformed inputs are errors naming the line.
func TestDataParser(t *testing.T) {
	n := 0
	for _, c := range cellCases(t) {
		plan.WalkNodes(c.plan, func(m plan.Node) bool {
			for _, e := range plan.NodeExprs(m) {
				back, err := parseExpr(e.String())
				if err != nil || !plan.ExprEqual(back, e) {
					t.Errorf("%s: %s reads back as %v (%v)", c.where, e, back, err)
				}
				n++
			}
			return true
		})
	}
	for _, s := range []string{"-5", "-(5)", "-a", "-(-a)", "a - -5", "(a > b) == true", "a - (b - c)", "-9223372036854775808",
		"int32(-3)", "null(int64)", "-0.0", "-Inf", "NaN", "1e+300", "cast(a, int32, strict=false)", `col("a b") + 1`,
		"sum(a).over(k, p) as s", "if(p, a, 0)", "is_null(s) or not(p) and a % 2 != 0", `"x\ny" == s`, "nd_seq(a) as n"} {
		e, err := parseExpr(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if e.String() != s {
			t.Errorf("%q reads back as %q", s, e.String())
		}
	}
	catalog := testCatalog()
	for _, bad := range [][]string{
		{"filter [a > ]", "  scan t"},
		{"filter [a > 1]"},
		{"scan nope"},
		{"scan t", "scan t"},
		{"filter [a > 1]", "   scan t"},
		{"join inner on=[k = k]", "  scan l"},
		{"frobnicate", "  scan t"},
		{"project [a b]", "  scan t"},
		{"scan t columns=[a]"},
		{"filter [\"open]", "  scan t"},
		{"filter [nope(a)]", "  scan t"},
	} {
		if _, err := parsePlan(bad, catalog); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
