package oracle

import (
	"github.com/dfopt/dfopt/legality"
)

// impossibleOutcomes lists the bounded-tier cells whose condition makes one
// outcome (or both) impossible by construction, so that a campaign does not
// report them as unexercised. Each entry says why. A campaign that sees such
// an outcome anyway marks it in the cell table: the exemption is stale.
var impossibleOutcomes = map[legality.CellID]struct {
	allowed, refused bool
	// twinsReach: proptest's twin tables (Config.TwinShare > 0) make the
	// outcome possible after all.
	twinsReach bool
	why        string
}{
	// The plan's node interface is sealed and every kind has its own cell,
	// so the closed-world catch-alls are never consulted.
	legality.PPUnknown: {allowed: true, refused: true, why: "every node kind has its own pushdown cell"},
	legality.PRUnknown: {allowed: true, refused: true, why: "every node kind has its own pruning cell"},
	// Conditions met wherever the cell is consulted (legality's `always`):
	// the cell only passes requirements through, with extra columns.
	legality.PRScan:      {refused: true, why: "a scan always narrows to the required columns"},
	legality.PRAggregate: {refused: true, why: "an aggregate input always narrows to its key and aggregate columns"},
	legality.PRDistinct:  {refused: true, why: "the subset columns are added to the requirement; never refused"},
	legality.PRWindow:    {refused: true, why: "the over() columns are added to the requirement; never refused"},
	legality.PRJoin:      {refused: true, why: "the kept columns are computed; the cell never refuses"},
	// Resolve rejects a filter whose conjunct is not bool, and the optimizer
	// sees only resolved plans.
	legality.FFBoolean: {refused: true, why: "a resolved filter's conjuncts are bool"},
	// The executor serves a shared subtree whole, so nothing inside it is
	// ever counted (the condition never holds).
	legality.SSNested: {allowed: true, why: "a subtree inside a served subtree is never evaluated"},
	// Refusing needs two different plans with equal fingerprints: twin
	// tables (one name and schema, other values), which proptest generates
	// only when Config.TwinShare > 0.
	legality.SSStructural: {refused: true, twinsReach: true, why: "a refusal needs a fingerprint collision (twin tables)"},
}

// CellOutcomes reports which outcomes cell id can produce under table t:
// a barrier never allows, a crosses cell never refuses, and a crosses-if
// cell can do both unless its condition rules one out by construction (the
// bounded-tier exemptions above, which apply only while the cell keeps its
// default verdict).
func CellOutcomes(t *legality.Table, id legality.CellID) (canAllow, canRefuse bool) {
	return cellOutcomes(t, id, false)
}

// cellOutcomes is CellOutcomes for a campaign that may generate twin
// tables.
func cellOutcomes(t *legality.Table, id legality.CellID, twins bool) (canAllow, canRefuse bool) {
	if t == nil {
		t = legality.Default()
	}
	v := t.Verdict(id)
	switch v {
	case legality.Barrier:
		canAllow, canRefuse = false, true
	case legality.Crosses:
		canAllow, canRefuse = true, false
	default:
		canAllow, canRefuse = true, true
	}
	if ex, ok := impossibleOutcomes[id]; ok && v == legality.Default().Verdict(id) && !(twins && ex.twinsReach) {
		if ex.allowed {
			canAllow = false
		}
		if ex.refused {
			canRefuse = false
		}
	}
	return canAllow, canRefuse
}
