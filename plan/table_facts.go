package plan

import "sync"

// tableFacts caches a Table's computed facts, one per column.
type tableFacts struct {
	once  sync.Once
	facts []ColumnFacts
}

// ColumnFacts returns the exact facts of the column named column
// (FactsReporter): its null count, and for int32, int64 and float64
// columns the range of its non-null non-NaN values and whether it holds a
// NaN; computed once for all columns on the first call. A table made by
// WithStatedFacts answers what was stated for the columns it names.
func (t *Table) ColumnFacts(column string) (ColumnFacts, bool) {
	if f, ok := t.stated[column]; ok {
		return f, true
	}
	return t.ComputedFacts(column)
}

// ComputedFacts returns the facts of the column named column that the
// table computes from its own values, ignoring any WithStatedFacts gave
// it: facts that cannot be wrong, since a Table's values never change. An
// evaluation need not check an assumption these facts imply
// (Assumption.ImpliedBy; docs/semantics.md, scan): no row can break it.
func (t *Table) ComputedFacts(column string) (ColumnFacts, bool) {
	i := t.schema.Index(column)
	if i < 0 {
		return ColumnFacts{}, false
	}
	if t.facts == nil {
		return ComputeFacts(t.schema.Field(i).Type, t.columns[i]), true
	}
	t.facts.once.Do(func() {
		t.facts.facts = make([]ColumnFacts, len(t.columns))
		for j, col := range t.columns {
			t.facts.facts[j] = ComputeFacts(t.schema.Field(j).Type, col)
		}
	})
	return t.facts.facts[i], true
}

// WithStatedFacts returns a copy of the table that states facts of its
// own for the columns stated names (plan files: "facts"), in place of the
// ones it computes, whether or not they are true. It is a test policy: a
// source that states wrong facts must make the collect fail with a
// source_error when the optimized plan relied on them (docs/semantics.md,
// scan), never give a wrong answer.
func (t *Table) WithStatedFacts(stated map[string]ColumnFacts) *Table {
	c := *t
	c.stated = make(map[string]ColumnFacts, len(stated))
	for k, v := range stated {
		c.stated[k] = v
	}
	return &c
}

// StatedFacts returns the facts WithStatedFacts gave the table (nil when
// none).
func (t *Table) StatedFacts() map[string]ColumnFacts { return t.stated }
