package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// hostRule is a full host rule for driver tests: it matches kinds and
// rewrites with fn; its one cell and counter are its own.
func hostRule(name string, kinds []plan.Kind, fn func(*Context, plan.Node) (plan.Node, error)) Rule {
	return Rule{Name: name, Doc: "a test rule", Application: "one call", Matches: kinds,
		Verbs:    Verbs{Verb: Verb{Allowed: "did", Refused: "did not"}},
		Counters: []CounterDef{{Name: strings.ReplaceAll(name, "_", "") + "Calls"}},
		Cells: []legality.Cell{{ID: legality.CellID(name + ".ok"), Rule: name, Node: "any", Verdict: legality.Crosses,
			Reason: "a test cell"}},
		Rewrite: fn}
}

// TestInternalError: a panicking rule gives a typed, one-line error and
// keeps the applications made before it.
func TestInternalError(t *testing.T) {
	reg, err := Builtin().With(hostRule("boom", plan.Kinds(), func(*Context, plan.Node) (plan.Node, error) { panic("boom\nsecond line") }))
	if err != nil {
		t.Fatal(err)
	}
	flags := flagsIn(reg, FlagPredicatePushdown, "boom")
	flags.Limit = 100
	in := scan(tT).SortBy("a").Filter(col("a").Gt(lit(1))).Node()
	res, err := Optimize(in, flags)
	var ie *InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("want an *InternalError, got %T %v", err, err)
	}
	if ie.Rule != "boom" || ie.Stage != "rule boom" || len(ie.Stack) == 0 {
		t.Errorf("InternalError %+v", ie)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || msg != "optimize: internal error in rule boom: boom second line" {
		t.Errorf("Error() = %q, want one line", msg)
	}
	if res.Applied == 0 || len(res.Applications) != res.Applied {
		t.Errorf("the partial application log is lost: Applied=%d, %d applications", res.Applied, len(res.Applications))
	}
}

// TestDriverDispatchesOnMatches: a rule runs only on a plan holding a node
// of a kind it matches.
func TestDriverDispatchesOnMatches(t *testing.T) {
	calls := 0
	reg, err := Builtin().With(hostRule("join_watcher", []plan.Kind{plan.KindJoin},
		func(_ *Context, root plan.Node) (plan.Node, error) { calls++; return root, nil }))
	if err != nil {
		t.Fatal(err)
	}
	flags := flagsIn(reg, "join_watcher")
	if _, err := Optimize(scan(tT).Filter(col("p")).Node(), flags); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a rule matching joins ran on a plan without one")
	}
	if _, err := Optimize(scan(tL).JoinOn(scan(tR), plan.InnerJoin, "k").Node(), flags); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("a rule matching joins did not run on a join (%d calls)", calls)
	}
	// The declared rules: filter_fusion matches filters only.
	res, err := Optimize(scan(tT).SortBy("a").Node(), flagsOn(FlagFilterFusion))
	if err != nil || len(res.Trace) != 0 {
		t.Errorf("filter_fusion on a plan without filters: %v %v", err, res.Trace)
	}
}

// TestRuleCells: each built-in rule's Cells are the default table's cells
// of its rule, in table order.
func TestRuleCells(t *testing.T) {
	for _, r := range Rules() {
		want := legality.Default().CellsOf(r.Name)
		var got []legality.CellID
		for _, c := range r.Cells {
			got = append(got, c.ID)
		}
		if len(want) == 0 || strings.Join(idStrings(got), ",") != strings.Join(idStrings(want), ",") {
			t.Errorf("rule %s cells %v, want %v", r.Name, got, want)
		}
	}
}

func idStrings(ids []legality.CellID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// TestFlagsEnabled: Enabled agrees with Map for every flag and allocates
// nothing.
func TestFlagsEnabled(t *testing.T) {
	for _, f := range []Flags{DefaultFlags(), NoFlags(), verified(flagsOn(FlagJoinPruning))} {
		for name, v := range f.Map() {
			if f.Enabled(name) != v {
				t.Errorf("Enabled(%s) = %v, Map says %v", name, !v, v)
			}
		}
		if f.Enabled("no_such_flag") {
			t.Error("an unknown flag is enabled")
		}
	}
	f := DefaultFlags()
	if a := testing.AllocsPerRun(100, func() { _ = f.Enabled(FlagSharedSubplans) }); a != 0 {
		t.Errorf("Enabled allocates %.0f times per call", a)
	}
}
