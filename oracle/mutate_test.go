package oracle

import (
	"context"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/proptest"
)

// TestMutationSmall runs a small mutation campaign over a few cells: the
// guards the default table needs are killed, the documented equivalent
// mutant survives and is left out of the score, and the results (but the
// seconds) do not depend on the number of workers. 2,000 plans leave the
// kills room when generators change (pp.limit's first kill is near plan
// 350 at seed 1 with the limit shapes, near plan 1,200 with the standard
// tier's join shapes alone: its mutant changes the optimized plan in about
// 1 plan in 30, the outcome far less often); the campaign stops as soon as
// every countable cell died.
func TestMutationSmall(t *testing.T) {
	cells := []legality.CellID{legality.PPScan, legality.PPLimit, legality.SSNested, legality.PRUnion, legality.FFBoolean}
	run := func(workers int) *MutationReport {
		var last [4]int // the final progress report
		m := &Mutation{Seed: 1, N: 2000, Workers: workers, Cells: cells,
			Progress: func(done, total, killed, cells int) { last = [4]int{done, total, killed, cells} }}
		rep, err := m.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		killed, _, _ := rep.Score()
		if want := [4]int{rep.Plans, 2000, killed, len(cells)}; last != want {
			t.Errorf("%d workers: last progress (done, total, killed, cells) = %v, want %v", workers, last, want)
		}
		return rep
	}
	one, two := run(1), run(2)
	if len(one.Results) != len(cells) {
		t.Fatalf("%d results for %d cells", len(one.Results), len(cells))
	}
	for i, r := range one.Results {
		if r.Cell != cells[i] {
			t.Fatalf("result %d is %s, want %s", i, r.Cell, cells[i])
		}
		o := two.Results[i]
		if r.Killed != o.Killed || r.Index != o.Index || r.Class != o.Class || r.Changed != o.Changed {
			t.Errorf("%s: 1 worker %+v, 2 workers %+v", r.Cell, r, o)
		}
		switch {
		case r.Cell == legality.FFBoolean:
			if r.Killed || r.Equivalent == "" || r.Status() != "equivalent" || r.Changed != 0 {
				t.Errorf("ff.boolean: %+v, want an unkilled documented equivalent mutant the generators never change", r)
			}
		case !r.Killed:
			t.Errorf("%s survived 2000 plans:\n%s", r.Cell, one.Table())
		case r.Changed == 0 || r.Plans != r.Index+1 || r.Seconds <= 0:
			t.Errorf("%s: inconsistent kill %+v", r.Cell, r)
		}
	}
	killed, counted, score := one.Score()
	if killed != 4 || counted != 4 || score != 1 || len(one.Survivors()) != 0 {
		t.Errorf("score %d/%d = %v, survivors %v", killed, counted, score, one.Survivors())
	}
	md := one.Markdown("2026-01-01")
	for _, want := range []string{"`dfopt mutate -n 2000 -seed 1`", "Score: **4 / 4 = 100.0%**", "| `pp.limit` | predicate_pushdown | barrier → crosses | killed |",
		"| `ff.boolean` | filter_fusion | crosses-if → crosses | equivalent | - | - | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestMutationKillReplays checks a kill against the oracle directly: the
// killing plan diverges under the flipped table and agrees under the real
// one.
func TestMutationKillReplays(t *testing.T) {
	m := &Mutation{Seed: 1, N: 2000, Workers: 2, Cells: []legality.CellID{legality.PPLimit}}
	rep, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if !r.Killed {
		t.Fatalf("pp.limit survived 2000 plans")
	}
	pc := proptest.Generate(r.Seed, rep.Config)
	flipped, _ := legality.Default().Flipped(legality.PPLimit)
	mutant := DefaultFlags()
	mutant.Table = flipped
	if got := Check(context.Background(), Case{Plan: pc.Plan, Flags: &mutant}); got.Class() != r.Class {
		t.Errorf("the killing plan diverges as %q under the mutant, the campaign said %q", got.Class(), r.Class)
	}
	if got := Check(context.Background(), Case{Plan: pc.Plan}); !got.Agree() {
		t.Errorf("the killing plan diverges under the real table: %s", got.Summary())
	}
}
