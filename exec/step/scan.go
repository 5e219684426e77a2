package step

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Tables holds the Arrow form of the in-memory plan tables one evaluation
// scans, each converted once. It is safe for concurrent use. Release it
// when the evaluation ends.
type Tables struct {
	mu   sync.Mutex
	recs map[*plan.Table]arrow.RecordBatch
}

// NewTables returns an empty cache.
func NewTables() *Tables { return &Tables{recs: map[*plan.Table]arrow.RecordBatch{}} }

// record returns t's Arrow form (borrowed: valid until Release).
func (c *Tables) record(e *Env, t *plan.Table) (arrow.RecordBatch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec, ok := c.recs[t]; ok {
		return rec, nil
	}
	rec, err := kernel.TableRecord(e.Mem, t)
	if err != nil {
		return nil, SourceError(t.Name(), err, "cannot convert table %s", t.Name())
	}
	c.recs[t] = rec
	return rec, nil
}

// Release drops every converted table.
func (c *Tables) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, r := range c.recs {
		r.Release()
		delete(c.recs, t)
	}
}

// ExactConjuncts returns the scan's pushed conjuncts the plan marks Exact,
// in list order: those its output must satisfy. A driver applies all of
// them over data a source did not filter (a *plan.Table, which never
// filters, or a naive full read), and those the source does not classify
// Exact over a source's answer. Inexact conjuncts are never applied: the
// plan keeps them above the scan.
func ExactConjuncts(n *plan.ScanNode) []plan.Expr {
	var out []plan.Expr
	for _, p := range n.Pushed {
		if p.Support == plan.Exact {
			out = append(out, p.Expr)
		}
	}
	return out
}

// ReadColumns is what a scan reads when it applies the conjuncts apply
// itself and checks the assumptions checks (Checks): nil (every column)
// for an unprojected scan, else the projected columns, in order, followed
// by the other columns apply needs, then the checked columns and then the
// columns the scan's guards read: every assumption checked is checked, and
// every guard evaluated, against every row the source yields, whether or
// not the plan reads its column (docs/semantics.md, scan), so pruning a
// column never drops the check of a fact about it nor a guard's test.
func ReadColumns(n *plan.ScanNode, apply []plan.Expr, checks []plan.Assumption) []string {
	if !n.Projected {
		return nil
	}
	columns := append([]string{}, n.Columns...)
	if len(apply) == 0 && len(checks) == 0 && len(n.Guards) == 0 {
		return columns
	}
	have := map[string]bool{}
	for _, col := range columns {
		have[col] = true
	}
	add := func(col string) {
		if !have[col] {
			have[col] = true
			columns = append(columns, col)
		}
	}
	for _, x := range apply {
		for _, col := range plan.Columns(x) {
			add(col)
		}
	}
	for _, a := range checks {
		add(a.Column)
	}
	for _, g := range n.Guards {
		for _, col := range plan.Columns(g) {
			add(col)
		}
	}
	return columns
}

// ComputedFacts answers the facts of a source's column that the
// evaluation computed itself from the source's immutable data (a
// *plan.Table's values, an exec.ArrowSource's arrays), or false. Facts a
// source merely states (a host's FactsReporter, Parquet statistics,
// plan.Table.WithStatedFacts) must never be given as computed.
type ComputedFacts func(column string) (plan.ColumnFacts, bool)

// Checks returns the assumptions of n (ScanNode.Assumes) an evaluation
// must check against the rows the source yields: all of them, in order,
// except those that facts computed from the same data imply
// (plan.Assumption.ImpliedBy) — no row can break those, so checking them
// could not fail and skipping them changes no outcome (docs/semantics.md,
// scan). computed may be nil (every assumption is checked). A fact a
// source states is checked; a fact dfopt computed is not re-checked.
func Checks(n *plan.ScanNode, computed ComputedFacts) []plan.Assumption {
	if len(n.Assumes) == 0 || computed == nil {
		return n.Assumes
	}
	var out []plan.Assumption
	for _, a := range n.Assumes {
		if f, ok := computed(a.Column); ok && a.ImpliedBy(f) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// ReadsEveryRow reports whether a scan's source must yield every row it
// holds: true when the scan checks assumptions (checks, from Checks) or
// carries guards (plan.ScanNode.Guards), which meet every row
// (docs/semantics.md, scan). Such a source is given no pushed conjunct to
// apply (the driver applies the Exact ones itself, after the check and the
// guards) and no max-rows hint, and an in-memory table skips no row group;
// only a source that honours guards (exec.GuardedSource) may still skip
// what it proves no guard raises on.
func ReadsEveryRow(n *plan.ScanNode, checks []plan.Assumption) bool {
	return len(checks) > 0 || len(n.Guards) > 0
}

// ReadSchema is the schema of the columns of src a scan reads (nil = all).
func ReadSchema(src plan.Schema, columns []string) (plan.Schema, error) {
	if columns == nil {
		return src, nil
	}
	fields := make([]plan.Field, len(columns))
	for i, col := range columns {
		f, ok := src.Lookup(col)
		if !ok {
			return plan.Schema{}, fmt.Errorf("no column %q", col)
		}
		fields[i] = f
	}
	return plan.NewSchema(fields...)
}

// ScanTable reads a scan of a *plan.Table (through the evaluation's table
// cache, sharing the table's buffers): the columns ReadColumns names, every
// Exact pushed conjunct applied, then the scan's output columns. The
// executor and the eager chain read in-memory tables exactly alike; the
// eager chain reads them whole (ScanTableHinted with the executor's
// max-rows hint is the executor's).
func ScanTable(e *Env, tables *Tables, n *plan.ScanNode) (*Frame, error) {
	return ScanTableHinted(e, tables, n, -1)
}

// ScanTableHinted is ScanTable for a scan whose output is read only up to
// its first maxRows rows (the scan's max-rows hint, which the driver passes
// when a limit or slice above allows it; -1: no hint). The table then stops
// early, as a storage layer would: it reads a prefix of its rows — whole
// row groups of a zone-map table (plan.Table.WithZoneMaps), else exactly
// maxRows rows — applies its Exact conjuncts to that prefix only, and
// reads on (everything) only when fewer than maxRows rows passed. The
// output is then a prefix of the full output holding at least its first
// maxRows rows, so the limit above keeps the same rows. The conjuncts never
// meet the rows past the prefix: the optimizer gives the hint only to scans
// whose Exact conjuncts cannot raise (legality cell lp.scan). A scan that
// checks assumptions (ReadsEveryRow) ignores the hint and the zone maps:
// its facts are checked against every row of the table. An assumption the
// table's own values imply (Checks, plan.Table.ComputedFacts) is not
// checked: it cannot fail.
func ScanTableHinted(e *Env, tables *Tables, n *plan.ScanNode, maxRows int64) (*Frame, error) {
	t, ok := n.Source.(*plan.Table)
	if !ok {
		return nil, e.Internal("ScanTable of a %T", n.Source)
	}
	apply := ExactConjuncts(n)
	checks := Checks(n, t.ComputedFacts)
	columns := ReadColumns(n, apply, checks)
	read, err := ReadSchema(n.SourceSchema, columns)
	if err != nil {
		return nil, SourceError(t.Name(), err, "scan of %s", t.Name())
	}
	rec, err := tables.record(e, t)
	if err != nil {
		return nil, err
	}
	if ReadsEveryRow(n, checks) {
		// The assumptions and guards meet every row: no group skipped, no
		// prefix.
		return scanColumns(e, t, n, checks, read, columns, rec, apply)
	}
	if t.ZoneRows() > 0 {
		kept, err := e.skipZones(t, n, rec)
		if err != nil {
			return nil, err
		}
		if kept != nil {
			defer kept.Release()
			rec = kept
		}
	}
	if maxRows >= 0 && maxRows < rec.NumRows() {
		prefix := maxRows
		if z := int64(t.ZoneRows()); z > 0 {
			prefix = min(rec.NumRows(), (maxRows+z-1)/z*z) // whole row groups
		}
		head := rec.NewSlice(0, prefix)
		defer head.Release()
		f, err := scanColumns(e, t, n, checks, read, columns, head, apply)
		if err != nil || len(apply) == 0 || int64(f.NumRows()) >= maxRows {
			return f, err
		}
		f.Release() // too few rows passed: read everything
	}
	return scanColumns(e, t, n, checks, read, columns, rec, apply)
}

// scanColumns finishes ScanTable over rec, the table's rows read (all or a
// prefix): the columns ReadColumns named, then ScanOutput.
func scanColumns(e *Env, t *plan.Table, n *plan.ScanNode, checks []plan.Assumption, read plan.Schema, columns []string,
	rec arrow.RecordBatch, apply []plan.Expr) (*Frame, error) {
	if columns == nil {
		// Every column: the table's own batch.
		return ScanOutput(e, n, checks, read, rec, apply)
	}
	fields := make([]arrow.Field, read.Len())
	cols := make([]arrow.Array, read.Len())
	for i, f := range read.Fields() {
		j := t.Schema().Index(f.Name)
		if j < 0 || j >= int(rec.NumCols()) {
			return nil, SourceError(t.Name(), nil, "table %s has no column %q", t.Name(), f.Name)
		}
		fields[i] = rec.Schema().Field(j)
		cols[i] = rec.Column(j)
	}
	sel := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer sel.Release()
	return ScanOutput(e, n, checks, read, sel, apply)
}

// skipZones emulates the row-group skipping of a zone-map table
// (plan.Table.WithZoneMaps), as a storage layer does before it applies its
// Exact conjuncts: a row group is skipped when some pushed Inexact
// conjunct the table can test (a column-literal comparison, which cannot
// raise) is true on none of its rows. It returns the rows of the groups
// kept, or nil when every group is kept.
func (e *Env) skipZones(t *plan.Table, n *plan.ScanNode, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	var tests []plan.Expr
	for _, p := range n.Pushed {
		if p.Support == plan.Inexact && plan.IsColumnLiteralComparison(p.Expr) {
			tests = append(tests, p.Expr)
		}
	}
	if len(tests) == 0 {
		return nil, nil
	}
	masks, err := e.evalExprs(tests, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(masks)
	rows, size := int(rec.NumRows()), t.ZoneRows()
	var idx []int32
	for lo := 0; lo < rows; lo += size {
		hi := min(lo+size, rows)
		if zoneMayMatch(masks, lo, hi) {
			for r := lo; r < hi; r++ {
				idx = append(idx, int32(r))
			}
		}
	}
	if len(idx) == rows {
		return nil, nil
	}
	out, err := ops.TakeRecord(e.Mem, rec, idx)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// zoneMayMatch reports whether every mask is true on some row of [lo, hi).
func zoneMayMatch(masks []arrow.Array, lo, hi int) bool {
	for _, m := range masks {
		b, ok := m.(*array.Boolean)
		if !ok {
			return true
		}
		any := false
		for r := lo; r < hi && !any; r++ {
			any = b.IsValid(r) && b.Value(r)
		}
		if !any {
			return false
		}
	}
	return true
}

// ScanOutput finishes a scan over the rows its source produced: rec (the
// caller's, borrowed) must hold the columns of read — the source's answer,
// checked here (a misfit is a source_error naming the source), and then
// against the assumptions checks (Checks; CheckAssumptions), then the
// scan's guards are evaluated over every row — then the conjuncts apply
// are applied in list order, each over all rows, and the
// scan's output columns are selected by name.
func ScanOutput(e *Env, n *plan.ScanNode, checks []plan.Assumption, read plan.Schema, rec arrow.RecordBatch,
	apply []plan.Expr) (*Frame, error) {
	name := SourceLabel(n.Source)
	if err := CheckColumns(read, rec.Columns(), rec.NumRows()); err != nil {
		return nil, SourceError(name, err, "source %s returned data that does not match its schema %s", name, read)
	}
	if err := CheckAssumptions(n, checks, read, rec); err != nil {
		return nil, err
	}
	if len(n.Guards) > 0 {
		// The scan's guards, over every row read, before any conjunct.
		f, err := e.FromRecord(read, rec)
		if err != nil {
			return nil, err
		}
		err = e.guardExprs(n.Guards, f)
		f.Release()
		if err != nil {
			return nil, err
		}
	}
	if len(apply) > 0 {
		filtered, err := e.filterRows(apply, rec)
		if err != nil {
			return nil, err
		}
		defer filtered.Release()
		rec = filtered
	}
	out := n.Schema()
	if sameArrow(rec.Schema(), out) {
		// The rows read are the output, as they are.
		return e.FromRecord(out, rec)
	}
	cols := make([]arrow.Array, out.Len())
	for i, f := range out.Fields() {
		j := read.Index(f.Name)
		if j < 0 || j >= int(rec.NumCols()) {
			return nil, e.Internal("scan of %s: no column %q", name, f.Name)
		}
		cols[i] = rec.Column(j)
	}
	as, err := e.arrowSchemaOf(out)
	if err != nil {
		return nil, err
	}
	sel := array.NewRecordBatch(as, cols, rec.NumRows())
	defer sel.Release()
	return e.FromRecord(out, sel)
}

// SourceLabel is a source's name for messages, defending against a
// panicking host Name method.
func SourceLabel(s plan.Source) (name string) {
	if s == nil {
		return "<no source>"
	}
	defer func() {
		if recover() != nil {
			name = "<source>"
		}
	}()
	return s.Name()
}
