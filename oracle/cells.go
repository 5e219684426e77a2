package oracle

import (
	"github.com/dfopt/dfopt/legality"
)

// CellOutcomes reports which outcomes cell id can produce under table t
// (nil: the default table): a barrier never allows, a crosses cell never
// refuses, and a crosses-if cell can do both unless its condition rules one
// out by construction (legality.Cell.NeverAllows and NeverRefuses, which
// apply only while the cell keeps its declared verdict). A campaign does
// not report such an outcome as unexercised, and marks one it sees anyway.
func CellOutcomes(t *legality.Table, id legality.CellID) (canAllow, canRefuse bool) {
	return t.Outcomes(id, false)
}

// cellOutcomes is CellOutcomes for a campaign that may generate twin
// tables (legality.Cell.TwinsReach).
func cellOutcomes(t *legality.Table, id legality.CellID, twins bool) (canAllow, canRefuse bool) {
	return t.Outcomes(id, twins)
}

// impossibleOutcomes lists the default table's cells whose condition rules
// an outcome out by construction (legality.Cell.NeverAllows,
// NeverRefuses), each with why: the exemptions a campaign applies.
var impossibleOutcomes = func() map[legality.CellID]string {
	m := map[legality.CellID]string{}
	for _, c := range legality.Default().Cells() {
		if why := c.NeverAllows + c.NeverRefuses; why != "" {
			m[c.ID] = why
		}
	}
	return m
}()
