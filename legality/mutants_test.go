package legality

import (
	"strings"
	"testing"
)

// TestEquivalentMutants checks the equivalent-mutant notes: each names a
// cell of the table, says why, and is rendered next to its cell in the
// Markdown page.
func TestEquivalentMutants(t *testing.T) {
	md := Markdown(Default())
	if len(equivalentMutants) == 0 {
		t.Fatal("no equivalent mutants documented")
	}
	for id, why := range equivalentMutants {
		if _, ok := Default().Lookup(id); !ok {
			t.Errorf("equivalent mutant %s is not a cell", id)
		}
		if len(why) < 40 || EquivalentMutant(id) != why {
			t.Errorf("%s: the reason %q is missing or too short to say why", id, why)
		}
		var row string
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| `"+string(id)+"` |") {
				row = line
			}
		}
		if !strings.Contains(row, "**EQUIVALENT MUTANT**: "+esc(why)) {
			t.Errorf("%s: the page's row does not carry the note:\n%s", id, row)
		}
	}
	if EquivalentMutant(PPLimit) != "" {
		t.Error("pp.limit is documented as equivalent, but its mutant is killable")
	}
}
