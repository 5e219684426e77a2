package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// TestInternalError: a panicking rule gives a typed, one-line error and
// keeps the applications made before it.
func TestInternalError(t *testing.T) {
	rules := RulesFor(nil)[:1] // predicate_pushdown
	rules = append(rules, Rule{Name: FlagFilterFusion, Matches: plan.Kinds(),
		rewrite: func(*run, plan.Node) (plan.Node, error) { panic("boom\nsecond line") }})
	flags := DefaultFlags()
	flags.Limit = 100
	in := scan(tT).SortBy("a").Filter(col("a").Gt(lit(1))).Node()
	res, err := optimize(in, flags, legality.Default(), rules)
	var ie *InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("want an *InternalError, got %T %v", err, err)
	}
	if ie.Rule != FlagFilterFusion || ie.Stage != "rule filter_fusion" || len(ie.Stack) == 0 {
		t.Errorf("InternalError %+v", ie)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || msg != "optimize: internal error in rule filter_fusion: boom second line" {
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
	rules := []Rule{{Name: FlagFilterFusion, Matches: []plan.Kind{plan.KindJoin},
		rewrite: func(_ *run, root plan.Node) (plan.Node, error) { calls++; return root, nil }}}
	flags := Flags{FilterFusion: true}
	if _, err := optimize(scan(tT).Filter(col("p")).Node(), flags, legality.Default(), rules); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a rule matching joins ran on a plan without one")
	}
	if _, err := optimize(scan(tL).JoinOn(scan(tR), plan.InnerJoin, "k").Node(), flags, legality.Default(), rules); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("a rule matching joins did not run on a join (%d calls)", calls)
	}
	// The declared rules: filter_fusion matches filters only.
	res, err := Optimize(scan(tT).SortBy("a").Node(), Flags{FilterFusion: true})
	if err != nil || len(res.Trace) != 0 {
		t.Errorf("filter_fusion on a plan without filters: %v %v", err, res.Trace)
	}
}

// TestRulesForTable: each rule's Cells are the table's cells of its rule.
func TestRulesForTable(t *testing.T) {
	tb, err := legality.Default().Flipped(legality.PPSort)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range RulesFor(tb) {
		want := tb.CellsOf(r.Name)
		if len(want) == 0 || strings.Join(idStrings(r.Cells), ",") != strings.Join(idStrings(want), ",") {
			t.Errorf("rule %s cells %v, want %v", r.Name, r.Cells, want)
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
	for _, f := range []Flags{DefaultFlags(), NoFlags(), {Verify: true, JoinPruning: true}} {
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
