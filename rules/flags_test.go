package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// busy is a plan on which every rule fires.
func busy() plan.Node {
	x := scan(tT).
		WithColumns(col("b").Alias("x")).
		Filter(col("a").Gt(lit(1))).
		Filter(col("p")).
		Select(col("a"), col("x"), col("s"))
	return x.JoinOn(x, plan.InnerJoin, "a").Select(col("x"), col("x_right")).Node()
}

func TestBusyPlanFiresEveryRule(t *testing.T) {
	res, err := Optimize(busy(), allFlags())
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counters
	if c.Get("pushedFilters") == 0 || c.Get("fusedFilters") == 0 || c.Get("fusedProjections") == 0 || c.Get("prunedProjections") == 0 ||
		c.Get("scanProjections") == 0 || c.Get("sharedSubplans") == 0 {
		t.Errorf("expected every rule to fire on the busy plan: %s\n%s", c, ExplainText(res, true))
	}
	if !plan.Equal(resolve(t, dataPlan(t, wholeOptimizer, "busy")), resolve(t, busy())) {
		t.Error("testdata/optimize's busy case is not busy()")
	}
	checkAgreement(t, res)
}

func TestFlagOffSilencesRule(t *testing.T) {
	plans := []plan.Node{busy(), scan(tT).Filter(col("a").Gt(lit(1))).Filter(col("p")).Node()}
	for _, rule := range Rules() {
		for i, p := range plans {
			f := allFlags()
			if err := setFlag(&f, rule.Name, false); err != nil {
				t.Fatal(err)
			}
			res, err := Optimize(p, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range Builtin().CountersOf(rule.Name) {
				if n := res.Counters.Get(name); n != 0 {
					t.Errorf("plan %d, %s off: its counter %s is %d", i, rule.Name, name, n)
				}
			}
			for _, e := range res.Trace {
				if e.Rule == rule.Name {
					t.Errorf("plan %d, %s off: trace entry %s", i, rule.Name, e)
				}
				cell, _ := res.Table.Lookup(e.Cell)
				if e.Cell != "" && cell.Rule == rule.Name {
					t.Errorf("plan %d, %s off: its cell %s is in the trace", i, rule.Name, e.Cell)
				}
			}
			checkAgreement(t, res)
		}
	}
}

func setFlag(f *Flags, name string, v bool) error {
	m := f.Map()
	m[name] = v
	nf, err := FlagsFromMap(m)
	if err != nil {
		return err
	}
	nf.Table = f.Table
	*f = nf
	return nil
}

func TestArmFlags(t *testing.T) {
	cases := []struct {
		arm  string
		plan plan.Node
	}{
		{FlagScanPushdown, scan(src).Filter(col("a").Gt(lit(1))).Node()},
		{FlagScanProjection, scan(tAB).Select(col("a")).Node()},
		{FlagJoinPruning, scan(tL).JoinOn(scan(tR), plan.InnerJoin, "k").Select(col("v_right")).Node()},
	}
	for _, c := range cases {
		t.Run(c.arm, func(t *testing.T) {
			on, err := Optimize(c.plan, allFlags())
			if err != nil {
				t.Fatal(err)
			}
			f := allFlags()
			if err := setFlag(&f, c.arm, false); err != nil {
				t.Fatal(err)
			}
			off, err := Optimize(c.plan, f)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Equal(on.Plan, off.Plan) {
				t.Errorf("switching %s off changed nothing", c.arm)
			}
			if !plan.Equal(off.Plan, resolve(t, c.plan)) {
				t.Errorf("with %s off the plan should be unchanged:\n%s", c.arm, plan.Explain(off.Plan))
			}
			found := false
			for _, e := range off.Trace {
				found = found || e.Flag == c.arm
			}
			if !found {
				t.Errorf("the trace does not say that %s stopped a rewrite", c.arm)
			}
		})
	}
}

func TestFlagsFromMap(t *testing.T) {
	f, err := FlagsFromMap(map[string]bool{"predicate_pushdown": false, "verify": true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Enabled(FlagPredicatePushdown) || !f.Enabled(FlagFilterFusion) || !f.Verify || !f.Enabled(FlagScanPushdown) {
		t.Errorf("FlagsFromMap should start from the defaults: %+v", f)
	}
	_, err = FlagsFromMap(map[string]bool{"predicate_pushdwn": true, "fusion": false})
	if err == nil {
		t.Fatal("unknown flags must be rejected")
	}
	for _, want := range []string{`"fusion"`, `"predicate_pushdwn"`, "predicate_pushdown", "scan_pushdown"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q should mention %s", err, want)
		}
	}
	if !NoFlags().Equal(Flags{}) || DefaultFlags().Equal(NoFlags()) {
		t.Error("NoFlags runs nothing")
	}
	for _, r := range Rules() {
		if !DefaultFlags().Enabled(r.Name) {
			t.Errorf("rule %s is off by default", r.Name)
		}
		for _, a := range r.Arms {
			if !DefaultFlags().Enabled(a) {
				t.Errorf("arm %s is off by default", a)
			}
		}
	}
	if DefaultFlags().Verify {
		t.Error("verify is a test mode, off by default")
	}
	names := FlagNames()
	if len(names) != len(Builtin().RuleFlags())+1 || !slices.IsSorted(names) || !slices.Contains(names, FlagVerify) {
		t.Errorf("FlagNames = %v", names)
	}
}

func TestRulesAreDeclared(t *testing.T) {
	// The seed's rules keep the order of docs/design.md §6 among the others.
	order := []string{FlagPredicatePushdown, FlagFilterFusion, FlagProjectionFusion, FlagProjectionPruning, FlagSharedSubplans}
	if err := Builtin().Err(); err != nil {
		t.Fatal(err)
	}
	rules := Rules()
	seen := map[legality.CellID]bool{}
	next := 0
	for i, r := range rules {
		if next < len(order) && r.Name == order[next] {
			next++
		}
		if r.Analysis != (i == len(rules)-1) && r.Name == FlagSharedSubplans {
			t.Errorf("shared_subplans' prediction must run last")
		}
		if err := r.check(); err != nil || len(r.Matches) == 0 || !r.builtin {
			t.Errorf("rule %s is incompletely declared: %v", r.Name, err)
		}
		for _, c := range r.Cells {
			seen[c.ID] = true
		}
	}
	if next != len(order) {
		t.Errorf("the rules %v do not run in the order %v", Builtin().RuleFlags(), order)
	}
	for _, id := range legality.Default().IDs() {
		if !seen[id] {
			t.Errorf("cell %s is consulted by no rule", id)
		}
	}
}

func TestNoFlagsOnlyResolves(t *testing.T) {
	in := busy()
	res, err := Optimize(in, NoFlags())
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Equal(res.Plan, resolve(t, in)) || len(res.Trace) != 0 || !res.Counters.IsZero() {
		t.Errorf("NoFlags changed something: %s", ExplainText(res, true))
	}
}

func TestOptimizeErrors(t *testing.T) {
	if _, err := Optimize(nil, DefaultFlags()); err == nil {
		t.Error("nil plan")
	}
	_, err := Optimize(scan(tT).Filter(col("nope").Gt(lit(1))).Node(), DefaultFlags())
	if err == nil || !strings.Contains(err.Error(), "resolve") {
		t.Errorf("an unresolvable plan must fail to resolve: %v", err)
	}
	pe, ok := plan.AsError(err)
	if !ok || pe.Kind != plan.UnknownColumn {
		t.Errorf("the resolve error must stay a *plan.Error: %v", err)
	}
}
