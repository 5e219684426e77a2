package legality

import (
	"fmt"
	"slices"
	"strings"
)

// Table is an immutable legality table: the cells, in a fixed order, and the
// verdicts in force. The zero value and a nil *Table behave as Default().
// Tables are safe for concurrent use; overrides build new tables.
type Table struct {
	cells []Cell
	index map[CellID]int
}

var defaultTable = newTable(defaultCells)

func newTable(cells []Cell) *Table {
	t := &Table{cells: cells, index: make(map[CellID]int, len(cells))}
	for i, c := range cells {
		t.index[c.ID] = i
	}
	return t
}

// Default returns the bounded-tier table (DESIGN §6.1).
func Default() *Table { return defaultTable }

func (t *Table) orDefault() *Table {
	if t == nil || t.cells == nil {
		return defaultTable
	}
	return t
}

// Cells returns a copy of the cells in table order.
func (t *Table) Cells() []Cell {
	return append([]Cell(nil), t.orDefault().cells...)
}

// IDs returns every cell ID in table order.
func (t *Table) IDs() []CellID {
	t = t.orDefault()
	ids := make([]CellID, len(t.cells))
	for i, c := range t.cells {
		ids[i] = c.ID
	}
	return ids
}

// Lookup returns the cell with the given ID.
func (t *Table) Lookup(id CellID) (Cell, bool) {
	t = t.orDefault()
	i, ok := t.index[id]
	if !ok {
		return Cell{}, false
	}
	return t.cells[i], true
}

// Verdict returns the verdict in force for id; an ID the table does not hold
// is a Barrier (closed world).
func (t *Table) Verdict(id CellID) Verdict {
	c, ok := t.Lookup(id)
	if !ok {
		return Barrier
	}
	return c.Verdict
}

// WithOverride returns a new table in which cell id has verdict v; t is not
// changed. Unknown IDs are an error (a typo must not silently test nothing).
func (t *Table) WithOverride(id CellID, v Verdict) (*Table, error) {
	t = t.orDefault()
	i, ok := t.index[id]
	if !ok {
		return nil, fmt.Errorf("legality: no cell %q (cells: %s)", id, strings.Join(idStrings(t.IDs()), ", "))
	}
	if v > Crosses {
		return nil, fmt.Errorf("legality: cell %s: invalid verdict %d", id, v)
	}
	cells := append([]Cell(nil), t.cells...)
	cells[i].Verdict = v
	return newTable(cells), nil
}

// Flipped returns a new table with cell id's verdict replaced by its mutant
// (see Flip).
func (t *Table) Flipped(id CellID) (*Table, error) {
	return t.WithOverride(id, Flip(t.Verdict(id)))
}

// Overrides lists the cells whose verdict differs from Default's, sorted.
func (t *Table) Overrides() []CellID {
	ids := []CellID{}
	for _, c := range t.orDefault().cells {
		if c.Verdict != defaultTable.Verdict(c.ID) {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// CellsOf returns the IDs of the cells a rule consults, in table order.
func (t *Table) CellsOf(rule string) []CellID {
	var ids []CellID
	for _, c := range t.orDefault().cells {
		if c.Rule == rule {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// decide applies cell id's verdict: a Barrier refuses, Crosses allows
// without evaluating cond, CrossesIf evaluates cond, which returns whether
// the condition holds and what it found.
func (t *Table) decide(id CellID, cond func() (bool, string)) Decision {
	v := t.Verdict(id)
	switch v {
	case Crosses:
		return Decision{Cell: id, Verdict: v, Allowed: true}
	case CrossesIf:
		ok, detail := cond()
		return Decision{Cell: id, Verdict: v, Allowed: ok, Detail: detail}
	}
	return Decision{Cell: id, Verdict: v}
}

// always is the condition of a CrossesIf cell whose condition is met by
// construction wherever it is consulted.
func always() (bool, string) { return true, "" }

func idStrings(ids []CellID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}
