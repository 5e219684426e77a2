package legality

import (
	"fmt"
	"slices"
	"strings"
)

// Table is an immutable legality table: the cells, in a fixed order, and the
// verdicts in force. The zero value and a nil *Table behave as Default().
// Tables are safe for concurrent use; overrides build new tables. A table
// also carries the totality it decides with (WithTotality; the default
// table's is BoundedTotality).
type Table struct {
	cells []Cell
	index map[CellID]int
	// defaults holds each cell's verdict before any override (the verdict
	// it was declared with), by position: what Overrides compares with and
	// what Outcomes' by-construction arguments assume.
	defaults []Verdict
	// totality is what the table counts as total (Table.Total).
	totality Totality
}

var defaultTable = newTable(defaultCells)

func newTable(cells []Cell) *Table {
	defaults := make([]Verdict, len(cells))
	for i, c := range cells {
		defaults[i] = c.Verdict
	}
	return withDefaults(cells, defaults)
}

func withDefaults(cells []Cell, defaults []Verdict) *Table {
	t := &Table{cells: cells, index: make(map[CellID]int, len(cells)), defaults: defaults}
	for i, c := range cells {
		t.index[c.ID] = i
	}
	return t
}

// Default returns the bounded-tier table (docs/legality.md).
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
	out := withDefaults(cells, t.defaults)
	out.totality = t.totality
	return out, nil
}

// With returns a new table holding t's cells and then cells, whose declared
// verdicts become their defaults; t is not changed. It is how a host's own
// rule brings its cells into the table its rules consult (rules.Registry):
// they are then flipped, overridden, rendered and counted like the
// built-in ones. A cell must have an ID no other cell has, a rule, a node,
// a reason, a condition exactly when it is crosses-if, and no argument its
// verdict makes void (NeverAllows on a barrier, NeverRefuses on crosses).
func (t *Table) With(cells ...Cell) (*Table, error) {
	t = t.orDefault()
	all := append(append([]Cell(nil), t.cells...), cells...)
	defaults := append([]Verdict(nil), t.defaults...)
	seen := make(map[CellID]bool, len(all))
	for _, c := range t.cells {
		seen[c.ID] = true
	}
	for _, c := range cells {
		if err := c.validate(); err != nil {
			return nil, err
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("legality: cell %s is already in the table", c.ID)
		}
		seen[c.ID] = true
		defaults = append(defaults, c.Verdict)
	}
	out := withDefaults(all, defaults)
	out.totality = t.totality
	return out, nil
}

// validate checks a cell's declaration (see With).
func (c Cell) validate() error {
	switch {
	case c.ID == "" || strings.ContainsAny(string(c.ID), " \t\n,"):
		return fmt.Errorf("legality: cell ID %q is empty or holds a space or comma", c.ID)
	case c.Rule == "" || c.Node == "" || c.Reason == "":
		return fmt.Errorf("legality: cell %s needs a rule, a node and a reason (its counterexample)", c.ID)
	case c.Verdict > Crosses:
		return fmt.Errorf("legality: cell %s: invalid verdict %d", c.ID, c.Verdict)
	case (c.Verdict == CrossesIf) != (c.Condition != ""):
		return fmt.Errorf("legality: cell %s: a condition is needed exactly for a crosses-if verdict", c.ID)
	case c.Verdict == Barrier && c.NeverAllows != "", c.Verdict == Crosses && c.NeverRefuses != "":
		return fmt.Errorf("legality: cell %s: its verdict already rules out the outcome NeverAllows or NeverRefuses argues for", c.ID)
	case c.TwinsReach && c.NeverAllows == "" && c.NeverRefuses == "":
		return fmt.Errorf("legality: cell %s: TwinsReach without an outcome ruled out", c.ID)
	}
	for _, s := range []string{c.Node, c.Condition, c.Reason, c.Equivalent, c.NeverAllows, c.NeverRefuses} {
		if strings.Contains(s, "\n") {
			return fmt.Errorf("legality: cell %s: every text must be one line", c.ID)
		}
	}
	return nil
}

// DefaultVerdict returns the verdict cell id was declared with, before any
// override; an ID the table does not hold is a Barrier (closed world).
func (t *Table) DefaultVerdict(id CellID) Verdict {
	t = t.orDefault()
	i, ok := t.index[id]
	if !ok {
		return Barrier
	}
	return t.defaults[i]
}

// Outcomes reports which outcomes cell id can produce under t: a barrier
// never allows, a crosses cell never refuses, and a crosses-if cell can do
// both unless its condition rules one out by construction (NeverAllows,
// NeverRefuses). Those arguments hold only while the cell keeps its
// declared verdict, and not at all for TwinsReach cells when twins says
// that twin sources may occur. An ID the table does not hold is a barrier.
func (t *Table) Outcomes(id CellID, twins bool) (canAllow, canRefuse bool) {
	t = t.orDefault()
	v := t.Verdict(id)
	canAllow, canRefuse = v != Barrier, v != Crosses
	c, ok := t.Lookup(id)
	if !ok || v != t.DefaultVerdict(id) || (twins && c.TwinsReach) {
		return canAllow, canRefuse
	}
	if c.NeverAllows != "" {
		canAllow = false
	}
	if c.NeverRefuses != "" {
		canRefuse = false
	}
	return canAllow, canRefuse
}

// EquivalentMutant returns why flipping cell id of the default table cannot
// change any outcome (Cell.Equivalent: an equivalent mutant, rendered in
// docs/legality.md), or "" for a cell the mutation campaign must kill.
func EquivalentMutant(id CellID) string {
	c, _ := defaultTable.Lookup(id)
	return c.Equivalent
}

// Flipped returns a new table with cell id's verdict replaced by its mutant
// (see Flip).
func (t *Table) Flipped(id CellID) (*Table, error) {
	return t.WithOverride(id, Flip(t.Verdict(id)))
}

// Overrides lists the cells whose verdict differs from the one they were
// declared with (Default's for the built-in cells), sorted.
func (t *Table) Overrides() []CellID {
	t = t.orDefault()
	ids := []CellID{}
	for i, c := range t.cells {
		if c.Verdict != t.defaults[i] {
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

// Decide applies the verdict in force for cell id: a Barrier refuses,
// Crosses allows without evaluating cond, CrossesIf evaluates cond, which
// returns whether the condition holds and what it found. It is the one way
// a decision is taken, by this package's queries for the built-in cells
// and by a host's rule for its own cells (Table.With), so that an override
// or a mutant reaches every cell alike. An ID the table does not hold is a
// Barrier.
func (t *Table) Decide(id CellID, cond func() (bool, string)) Decision {
	return t.decide(id, cond)
}

// decide is Decide.
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
