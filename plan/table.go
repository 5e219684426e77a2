package plan

import "fmt"

// Table is an in-memory source of typed values: the inline tables of plan
// files, the generators' adversarial data, and small hand-written cases. It
// needs no Arrow; the executor converts it when it scans it. A Table is
// immutable after NewTable.
type Table struct {
	name    string
	schema  Schema
	columns [][]Value
	rows    int
	// pushdown is the support simple comparisons get (see WithPushdown).
	pushdown PredicateSupport
	// exactAll: every conjunct is Exact (see WithExactAllPushdown).
	exactAll bool
	// zoneRows > 0: a zone-map policy with row groups of zoneRows rows (see
	// WithZoneMaps).
	zoneRows int
	// facts holds the columns' facts (ColumnFacts), computed once and
	// shared by the copies the With methods make; stated replaces them
	// (WithStatedFacts).
	facts  *tableFacts
	stated map[string]ColumnFacts
}

// NewTable checks that every column has the schema's type, that columns are
// equally long, and that non-nullable columns hold no null.
func NewTable(name string, schema Schema, columns [][]Value) (*Table, error) {
	if len(columns) != schema.Len() {
		return nil, fmt.Errorf("table %q: %d columns for a schema of %d fields", name, len(columns), schema.Len())
	}
	rows := 0
	for i, col := range columns {
		f := schema.Field(i)
		if i == 0 {
			rows = len(col)
		} else if len(col) != rows {
			return nil, fmt.Errorf("table %q: column %q has %d values but column %q has %d (ragged table)",
				name, f.Name, len(col), schema.Field(0).Name, rows)
		}
		for r, v := range col {
			if v.Type() != f.Type {
				return nil, fmt.Errorf("table %q: column %q row %d: a %s value in a %s column", name, f.Name, r, v.Type(), f.Type)
			}
			if v.IsNull() && !f.Nullable {
				return nil, fmt.Errorf("table %q: column %q row %d: null in a non-nullable column", name, f.Name, r)
			}
		}
	}
	cols := make([][]Value, len(columns))
	for i, c := range columns {
		cols[i] = append([]Value(nil), c...)
	}
	return &Table{name: name, schema: schema, columns: cols, rows: rows, facts: &tableFacts{}}, nil
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// Schema returns the table's schema.
func (t *Table) Schema() Schema { return t.schema }

// Rows returns the number of rows.
func (t *Table) Rows() int { return t.rows }

// Column returns the values of the i-th column; the caller must not modify
// them.
func (t *Table) Column(i int) []Value { return t.columns[i] }

// EstimatedRows reports the exact row count.
func (t *Table) EstimatedRows() (int64, bool) { return int64(t.rows), true }

// SupportsProjection reports true: reading a subset of columns is free.
func (t *Table) SupportsProjection() bool { return true }

// WithPushdown returns a copy of the table that accepts pushed conjuncts of
// the form `column op literal` (op one of the six comparisons, in either
// order) with the given support, and answers Unsupported for every other
// conjunct. It exists so that tests and the oracle's generators can exercise
// scan pushdown without a real storage layer: an Exact table is filtered by
// the executor exactly as the filter would have done; an Inexact table
// returns all its rows, which is the weakest legal Inexact behaviour, so a
// rewrite that wrongly drops an Inexact conjunct is observable.
func (t *Table) WithPushdown(s PredicateSupport) *Table {
	c := *t
	if s > Exact {
		s = Unsupported
	}
	c.pushdown = s
	c.exactAll, c.zoneRows = false, 0
	return &c
}

// WithExactAllPushdown returns a copy of the table that classifies every
// conjunct Exact, whatever it computes, as a storage layer evaluating any
// expression would (plan files: "pushdown": "exact_all"). It is a test
// policy: the executor applies a Table's Exact conjuncts itself, in list
// order, each over all the rows it reads, as the Exact contract says
// (PredicateClassifier), so conjuncts that can raise reach the scan, and a
// rewrite that merges the conjuncts of two filters into one pushed list
// (cell pp.scan.merge) becomes observable. Pushdown then reports Exact.
func (t *Table) WithExactAllPushdown() *Table {
	c := *t
	c.pushdown = Exact
	c.exactAll, c.zoneRows = true, 0
	return &c
}

// WithZoneMaps returns a copy of the table that behaves like a storage
// layer with zone maps (plan files: "pushdown": "zone_map"): its rows form
// row groups of rows rows (at least 1); it classifies a column-literal
// comparison Inexact — it skips every row group in which the comparison
// holds on no row, as min/max statistics would let it — and every other
// conjunct Exact, evaluating it on the rows it reads. A source of this kind
// skips row groups BEFORE its Exact conjuncts meet their rows, which is
// what makes a rewrite that pushes an Inexact conjunct next to an Exact one
// that can raise (cell pp.scan.skip) observable. Pushdown then reports
// Inexact.
func (t *Table) WithZoneMaps(rows int) *Table {
	c := *t
	c.pushdown = Inexact
	c.exactAll = false
	c.zoneRows = max(rows, 1)
	return &c
}

// ZoneRows returns the row-group size of a table made by WithZoneMaps, and
// 0 for every other table.
func (t *Table) ZoneRows() int { return t.zoneRows }

// Pushdown returns the support the table gives simple comparisons.
func (t *Table) Pushdown() PredicateSupport { return t.pushdown }

// ExactAllPushdown reports whether the table classifies every conjunct
// Exact (WithExactAllPushdown), not only column-literal comparisons.
func (t *Table) ExactAllPushdown() bool { return t.exactAll }

// EvaluatesScanGuards reports that scans of an in-memory table evaluate
// ScanNode.Guards: dfopt's executor scans it (plan.ScanGuardEvaluator).
func (t *Table) EvaluatesScanGuards() bool { return true }

// ClassifyPredicates answers the table's pushdown support for each conjunct
// that compares a column with a literal, and Unsupported for the rest; a
// table made by WithExactAllPushdown answers Exact for every conjunct, and
// one made by WithZoneMaps Exact for every conjunct that is not such a
// comparison.
func (t *Table) ClassifyPredicates(conjuncts []Expr) []PredicateSupport {
	out := make([]PredicateSupport, len(conjuncts))
	if t.exactAll {
		for i := range out {
			out[i] = Exact
		}
		return out
	}
	if t.pushdown == Unsupported {
		return out
	}
	for i, c := range conjuncts {
		switch {
		case IsColumnLiteralComparison(c):
			out[i] = t.pushdown
		case t.zoneRows > 0:
			out[i] = Exact
		}
	}
	return out
}

// IsColumnLiteralComparison reports whether e is a comparison of a column
// with a non-null literal, in either order: the conjuncts storage layers
// commonly evaluate from statistics.
func IsColumnLiteralComparison(e Expr) bool {
	c, ok := e.(*Call)
	if !ok || !c.Fn.IsComparison() || len(c.Args) != 2 {
		return false
	}
	col := func(x Expr) bool { _, ok := x.(*Column); return ok }
	lit := func(x Expr) bool { l, ok := x.(*Literal); return ok && !l.Value.IsNull() }
	return (col(c.Args[0]) && lit(c.Args[1])) || (lit(c.Args[0]) && col(c.Args[1]))
}
