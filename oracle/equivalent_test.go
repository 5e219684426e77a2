package oracle

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// TestPFOnceEquivalentMutant backs the equivalent-mutant note of pf.once
// (legality.Cell.Equivalent): its mutant is reachable — a value read twice
// is inlined into both readers — yet changes no outcome while
// pf.deterministic stands, because only a non-deterministic value can
// differ between two evaluations; with both cells flipped the oracle sees
// the duplicated counter.
func TestPFOnceEquivalentMutant(t *testing.T) {
	tab := testTable(t)
	ndTick, ok := plan.BuiltinUDFs().Lookup("nd_tick")
	if !ok {
		t.Fatal("no nd_tick")
	}
	twice := func(v plan.E) plan.Node {
		return plan.Scan(tab).WithColumns(v.Alias("x")).Select(plan.Col("x"), plan.Col("x").Alias("y")).Node()
	}
	partial := twice(plan.Col("a").Div(plan.Col("b")))
	nd := twice(plan.CallUDF(ndTick, plan.Col("a")))
	flip := func(ids ...legality.CellID) *rules.Flags {
		tb := legality.Default()
		for _, id := range ids {
			var err error
			if tb, err = tb.Flipped(id); err != nil {
				t.Fatal(err)
			}
		}
		f := DefaultFlags()
		f.Table = tb
		return &f
	}
	for _, tc := range []struct {
		name    string
		plan    plan.Node
		flags   *rules.Flags
		fused   int
		diverge bool
	}{
		{"real table, partial value", partial, nil, 0, false},
		{"pf.once flipped, partial value: inlined twice, same outcome", partial, flip(legality.PFOnce), 1, false},
		{"pf.once flipped, non-deterministic value: pf.deterministic refuses", nd, flip(legality.PFOnce), 0, false},
		{"pf.deterministic flipped, read twice: pf.once refuses", nd, flip(legality.PFDeterministic), 0, false},
		{"both flipped: the counter runs twice", nd, flip(legality.PFOnce, legality.PFDeterministic), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check(context.Background(), Case{Plan: tc.plan, Flags: tc.flags})
			if rep.Counters.Get("fusedProjections") != tc.fused {
				t.Errorf("fusedProjections=%d, want %d\n%s", rep.Counters.Get("fusedProjections"), tc.fused, rep)
			}
			if got := !rep.Agree(); got != tc.diverge {
				t.Errorf("diverges=%v, want %v\n%s", got, tc.diverge, rep)
			}
		})
	}
}
