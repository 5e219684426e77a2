package legality

import (
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// RuleRangeProofs names the rule of package rules whose cell is decided
// here (rp.facts): also its flag and file name.
const RuleRangeProofs = "range_proofs"

// RPFacts decides whether a partial expression counts as total on the
// plan's input because the facts its sources state prove it cannot fail
// (plan.Prove's interval arithmetic).
const RPFacts CellID = "rp.facts"

// rangeProofsCells are range_proofs' cells (standard tier).
var rangeProofsCells = []Cell{
	{ID: RPFacts, Rule: RuleRangeProofs, Node: "filter, project, with_columns, sort", Verdict: CrossesIf,
		Condition: "every integer add, sub, mul, div, mod, neg, abs and strict cast in the expression provably cannot fail by interval arithmetic over the facts its columns' sources state (plan.Prove); the scans record those facts (assumes) and every executor checks them",
		Reason:    "select(a * 2 as y).filter(b > 0) with a holding 2^62 on a row where b <= 0: counting `a * 2` total without a proof lets the filter move below the projection and drop the row that overflows (a lost error)"},
}

// RangeProof decides rp.facts for a proof attempt pr of a partial
// expression: allowed when pr proves it total, the detail naming the facts
// used ("total by facts: a in [-1000000, 1000000]") or what could not be
// shown.
func (t *Table) RangeProof(pr plan.Proof) Decision {
	t = t.orDefault()
	return t.decide(RPFacts, func() (bool, string) {
		if !pr.Total {
			return false, pr.Detail
		}
		return true, FactsText(pr.Uses)
	})
}

// FactsText renders the facts a proof used: "total by facts: a in [0, 9];
// t.b in [1, 5]" (the source named when several sources are involved), or
// "total" when it used none (only literals).
func FactsText(uses []plan.FactUse) string {
	if len(uses) == 0 {
		return "total"
	}
	sources := map[plan.Source]bool{}
	for _, u := range uses {
		if u.Scan != nil {
			sources[u.Scan.Source] = true
		}
	}
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = u.Fact.String()
		if len(sources) > 1 && u.Scan != nil {
			parts[i] = u.Scan.Source.Name() + "." + parts[i]
		}
	}
	return "total by facts: " + strings.Join(parts, "; ")
}
