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
