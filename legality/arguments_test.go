package legality

import (
	"strings"
	"testing"
)

// TestCellArguments checks the arguments cells carry beyond their
// condition and counterexample: each equivalent-mutant and impossible-
// outcome note says why at some length and is rendered next to its cell in
// the Markdown page.
func TestCellArguments(t *testing.T) {
	md := Markdown(Default())
	equivalent := 0
	for _, c := range Default().Cells() {
		row := ""
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| `"+string(c.ID)+"` |") {
				row = line
			}
		}
		for _, n := range []struct{ mark, why string }{
			{"**EQUIVALENT MUTANT**: ", c.Equivalent},
			{"**NEVER ALLOWS**", c.NeverAllows},
			{"**NEVER REFUSES**", c.NeverRefuses},
		} {
			if n.why == "" {
				continue
			}
			if len(n.why) < 30 {
				t.Errorf("%s: the argument %q is too short to say why", c.ID, n.why)
			}
			if !strings.Contains(row, n.mark) || !strings.Contains(row, esc(n.why)) {
				t.Errorf("%s: the page's row does not carry %s %q:\n%s", c.ID, n.mark, n.why, row)
			}
		}
		if c.Equivalent != "" {
			equivalent++
			if EquivalentMutant(c.ID) != c.Equivalent {
				t.Errorf("%s: EquivalentMutant disagrees with the cell", c.ID)
			}
		}
	}
	if equivalent == 0 {
		t.Fatal("no equivalent mutants documented")
	}
	if EquivalentMutant(PPLimit) != "" {
		t.Error("pp.limit is documented as equivalent, but its mutant is killable")
	}
}

// TestOutcomes checks the outcomes a cell can have: its verdict's, minus
// what its condition rules out while it keeps its declared verdict, and
// twin sources bring back a TwinsReach cell's.
func TestOutcomes(t *testing.T) {
	d := Default()
	flippedScan, err := d.Flipped(PRScan)
	if err != nil {
		t.Fatal(err)
	}
	flippedLimit, err := d.Flipped(PPLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		table         *Table
		id            CellID
		twins         bool
		allow, refuse bool
	}{
		{"crosses-if", d, PPSort, false, true, true},
		{"barrier", d, PPLimit, false, false, true},
		{"flipped barrier", flippedLimit, PPLimit, false, true, false},
		{"crosses", d, PRPassthrough, false, true, false},
		{"never refuses", d, PRScan, false, true, false},
		{"never refuses, flipped to crosses", flippedScan, PRScan, false, true, false},
		{"never allows", d, SSNested, false, false, true},
		{"unreachable barrier", d, PPUnknown, false, false, false},
		{"twins reach a refusal", d, SSStructural, true, true, true},
		{"no twins, no refusal", d, SSStructural, false, true, false},
		{"unknown cell", d, "pp.nope", false, false, true},
	} {
		a, r := c.table.Outcomes(c.id, c.twins)
		if a != c.allow || r != c.refuse {
			t.Errorf("%s: Outcomes(%s) = %v, %v, want %v, %v", c.name, c.id, a, r, c.allow, c.refuse)
		}
	}
	// The argument holds only under the declared verdict: a barrier
	// override of a never-refusing cell refuses.
	barrier, err := d.WithOverride(PRScan, Barrier)
	if err != nil {
		t.Fatal(err)
	}
	if a, r := barrier.Outcomes(PRScan, false); a || !r {
		t.Errorf("pr.scan overridden to a barrier: Outcomes = %v, %v, want false, true", a, r)
	}
}

// TestWith checks that a host's cells join a table as built-in ones are:
// looked up, decided, flipped and reported as overrides against their own
// declared verdict, never the default table's closed world.
func TestWith(t *testing.T) {
	host := Cell{ID: "host.fold", Rule: "host_fold", Node: "extension fold", Verdict: CrossesIf,
		Condition: "the operator's width is 1", Reason: "fold(5) is not the identity: 7 goes to 1",
		NeverRefuses: "", Equivalent: ""}
	tb, err := Default().With(host)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := tb.Lookup("host.fold"); !ok || c.Reason != host.Reason {
		t.Fatalf("Lookup(host.fold) = %+v, %v", c, ok)
	}
	if len(tb.Overrides()) != 0 {
		t.Errorf("a host cell at its declared verdict is not an override: %v", tb.Overrides())
	}
	if len(tb.IDs()) != len(Default().IDs())+1 || len(Default().IDs()) != len(defaultCells) {
		t.Errorf("With changed the default table or lost a cell")
	}
	yes := func() (bool, string) { return true, "" }
	no := func() (bool, string) { return false, "width 5" }
	if d := tb.Decide("host.fold", yes); !d.Allowed || d.Cell != "host.fold" {
		t.Errorf("Decide allowed: %v", d)
	}
	if d := tb.Decide("host.fold", no); d.Allowed || d.Detail != "width 5" {
		t.Errorf("Decide refused: %v", d)
	}
	if d := Default().Decide("host.fold", yes); d.Allowed {
		t.Errorf("a table without the cell must refuse (closed world): %v", d)
	}
	mut, err := tb.Flipped("host.fold")
	if err != nil {
		t.Fatal(err)
	}
	if d := mut.Decide("host.fold", no); !d.Allowed {
		t.Errorf("the flipped host cell must allow without its condition: %v", d)
	}
	if got := mut.Overrides(); len(got) != 1 || got[0] != "host.fold" {
		t.Errorf("Overrides of the mutant = %v", got)
	}
	if _, err := mut.With(Cell{ID: "host.other", Rule: "r", Node: "n", Verdict: Barrier, Reason: "why"}); err != nil {
		t.Errorf("With on an overridden table: %v", err)
	}
	for _, bad := range []Cell{
		{ID: PPLimit, Rule: "r", Node: "n", Verdict: Barrier, Reason: "a duplicate"},
		{ID: "", Rule: "r", Node: "n", Verdict: Barrier, Reason: "no ID"},
		{ID: "a b", Rule: "r", Node: "n", Verdict: Barrier, Reason: "a space"},
		{ID: "x.y", Node: "n", Verdict: Barrier, Reason: "no rule"},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Barrier},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: CrossesIf, Reason: "no condition"},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Barrier, Condition: "c", Reason: "a barrier's condition"},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Barrier, Reason: "r", NeverAllows: "a barrier never allows anyway"},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Crosses, Reason: "r", NeverRefuses: "crosses never refuses anyway"},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Crosses, Reason: "r", TwinsReach: true},
		{ID: "x.y", Rule: "r", Node: "n", Verdict: Crosses, Reason: "two\nlines"},
	} {
		if _, err := Default().With(bad); err == nil {
			t.Errorf("With accepted %+v", bad)
		}
	}
	if _, err := Default().With(host, host); err == nil {
		t.Error("With accepted one cell twice")
	}
}
