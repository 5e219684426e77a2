package rules

import (
	"fmt"
	"strings"
)

// Counters count what the rules did; docs/counters.md defines each one
// precisely. A rule whose flag is off leaves its counters at zero. JSON names
// are those of DESIGN §6.
type Counters struct {
	// PushedFilters: conjuncts predicate_pushdown moved below at least one
	// node or handed to a source (each conjunct once).
	PushedFilters int `json:"pushedFilters"`
	// PrunedProjections: project and with_columns entries projection_pruning
	// removed as dead.
	PrunedProjections int `json:"prunedProjections"`
	// DroppedColumns: columns projection_pruning stopped reading from a
	// source, counted at the scans (what a join input drops shows up at
	// the scans below it).
	DroppedColumns int `json:"droppedColumns"`
	// DroppedNodes: with_columns nodes projection_pruning removed because no
	// entry was left.
	DroppedNodes int `json:"droppedNodes"`
	// FusedFilters: filters filter_fusion merged into the filter below them.
	FusedFilters int `json:"fusedFilters"`
	// FusedProjections: with_columns values projection_fusion inlined.
	FusedProjections int `json:"fusedProjections"`
	// SharedSubplans: subtree results the executor's memo is predicted to
	// serve.
	SharedSubplans int `json:"sharedSubplans"`
	// ScanProjections: scans whose read columns projection_pruning narrowed.
	ScanProjections int `json:"scanProjections"`
}

// String renders "pushedFilters=1 prunedProjections=0 ...", in the order of
// DESIGN §6.
func (c Counters) String() string {
	var b strings.Builder
	for i, kv := range c.List() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", kv.Name, kv.Value)
	}
	return b.String()
}

// Counter is one named counter value.
type Counter struct {
	Name  string
	Value int
}

// List returns the counters by JSON name, in the order of DESIGN §6.
func (c Counters) List() []Counter {
	return []Counter{
		{"pushedFilters", c.PushedFilters},
		{"prunedProjections", c.PrunedProjections},
		{"droppedColumns", c.DroppedColumns},
		{"droppedNodes", c.DroppedNodes},
		{"fusedFilters", c.FusedFilters},
		{"fusedProjections", c.FusedProjections},
		{"sharedSubplans", c.SharedSubplans},
		{"scanProjections", c.ScanProjections},
	}
}
