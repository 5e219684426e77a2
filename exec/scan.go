package exec

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// scan reads a source. Pushed conjuncts classified Exact in the plan must
// hold exactly on the output; the executor applies, itself and in list
// order, every such conjunct the source does not (now) classify Exact — for
// example all of them for sources without a classifier, such as ArrowSource,
// and all of them for a *plan.Table, whose classification is a policy it
// leaves to the executor (plan.Table.WithPushdown; step.ScanTable reads
// those). Inexact conjuncts are left to the source: the plan keeps them
// above the scan. A scan with assumptions to check or guards reads every
// row and checked or guarded column of its source (step.ReadsEveryRow,
// step.ReadColumns; a GuardedSource may skip what it proves no guard
// raises on, ScanRequest.Guards); an
// ArrowSource's assumptions that the facts it computed from its arrays
// imply are not checked (step.Checks): they cannot fail.
func (c *collector) scan(n *plan.ScanNode) (*step.Frame, error) {
	maxRows := c.maxRows(n)
	if _, ok := n.Source.(*plan.Table); ok {
		return step.ScanTableHinted(c.env, c.tables, n, maxRows)
	}
	name := step.SourceLabel(n.Source)
	src, ok := n.Source.(Source)
	if !ok {
		return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1,
			Msg: fmt.Sprintf("source %s (%T) cannot be scanned: it implements neither exec.Source nor is a *plan.Table", name, n.Source)}
	}
	// The assumptions to check: all of them, but those the facts an
	// ArrowSource computed from its own arrays imply (step.Checks).
	var computed step.ComputedFacts
	if a, ok := src.(*ArrowSource); ok {
		computed = a.ColumnFacts
	}
	checks := step.Checks(n, computed)
	everyRow := step.ReadsEveryRow(n, checks)
	var apply []plan.Expr
	if everyRow {
		// The assumptions and guards meet every row the source holds: the
		// executor applies every Exact conjunct itself, after the check and
		// the guards, and the source is given no conjunct and no hint
		// (below), but for a guarded source's row skipping.
		apply = step.ExactConjuncts(n)
	} else if len(n.Pushed) > 0 {
		exprs := make([]plan.Expr, len(n.Pushed))
		for i, p := range n.Pushed {
			exprs[i] = p.Expr
		}
		now, _ := plan.ClassifyPredicates(n.Source, exprs) // a failing classifier answers Unsupported
		for i, p := range n.Pushed {
			if p.Support == plan.Exact && now[i] != plan.Exact {
				apply = append(apply, p.Expr)
			}
		}
	}
	// The columns to read: the node's, plus those the executor-applied
	// conjuncts need and the assumed ones.
	columns := step.ReadColumns(n, apply, checks)
	readSchema, err := step.ReadSchema(n.SourceSchema, columns)
	if err != nil {
		return nil, step.SourceError(name, err, "scan of %s", name)
	}
	req := ScanRequest{Columns: columns, Predicates: sourcePredicates(n.Pushed, apply)}
	if everyRow {
		req.Predicates = guardedPredicates(src, n, checks, apply)
		if len(req.Predicates) > 0 {
			req.Guards = n.Guards
		}
	} else if maxRows >= 0 && len(apply) == 0 {
		// The executor applies no conjunct itself, so the source's rows
		// are the scan's output: it may stop after maxRows of them.
		req.HasMaxRows, req.MaxRows = true, maxRows
	}
	if kf, ok := c.keyFilters[n]; ok && len(apply) == 0 && !everyRow && !req.HasMaxRows && len(n.Guards) == 0 {
		// Every row the source yields is the scan's output, and the join
		// directly above drops the rows the filters rule out.
		req.KeyFilters = kf
	}
	keepLast := int64(-1)
	if k, ok := c.tails[n]; ok && len(apply) == 0 && !everyRow {
		// A tail directly above, and every row the source yields is the
		// scan's output: only the last k matter (docs/semantics.md, tail).
		keepLast = k
	}
	rec, err := c.scanSource(src, name, req, readSchema, keepLast)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return step.ScanOutput(c.env, n, checks, readSchema, rec, apply)
}

// guardedPredicates is what a source is given of the pushed list of a
// scan that reads every row (step.ReadsEveryRow): nothing, except for a
// scan whose only reason to read every row is its guards, over a source
// that honours them (GuardedSource), when the executor applies no
// conjunct itself — then the Inexact conjuncts, by which that source may
// skip the rows it proves no guard raises on (ScanRequest.Guards).
func guardedPredicates(src Source, n *plan.ScanNode, checks []plan.Assumption, apply []plan.Expr) []plan.PushedPredicate {
	gs, ok := src.(GuardedSource)
	if !ok || len(checks) > 0 || len(apply) > 0 || len(n.Guards) == 0 || !honoursGuards(gs) {
		return nil
	}
	var out []plan.PushedPredicate
	for _, p := range n.Pushed {
		if p.Support == plan.Inexact {
			out = append(out, p)
		}
	}
	return out
}

// honoursGuards asks a guarded source, defending against a panic (which
// answers no).
func honoursGuards(gs GuardedSource) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return gs.HonoursGuards()
}

// sourcePredicates is what the source is given of a scan's pushed list.
// The conjuncts the executor applies itself (apply) must meet every row the
// source has, as a filter directly above it would: a source may skip rows by
// an Inexact conjunct (row groups by statistics), and an applied conjunct
// that raises on a skipped row would lose its error. So when the executor
// applies any conjunct, the source gets only the Exact ones it takes itself.
func sourcePredicates(pushed []plan.PushedPredicate, apply []plan.Expr) []plan.PushedPredicate {
	if len(apply) == 0 {
		return pushed
	}
	var out []plan.PushedPredicate
	for _, p := range pushed {
		if p.Support == plan.Exact && !slices.Contains(apply, p.Expr) {
			out = append(out, p)
		}
	}
	return out
}

// scanSource drains a host source into one batch with the read schema.
// keepLast >= 0 keeps only the last keepLast rows: batches older than
// those the newer ones already cover are released as reading goes on, so
// at most keepLast rows and one batch are held at a time.
func (c *collector) scanSource(src Source, name string, req ScanRequest, readSchema plan.Schema, keepLast int64) (rec arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, step.SourceError(name, nil, "source %s panicked: %v", name, r)
		}
	}()
	env := c.env
	req.Mem, req.Parallelism = env.Mem, env.Parallel().Workers
	rr, err := src.Scan(env.Ctx, req)
	if err != nil {
		return nil, step.SourceFailure(name, err)
	}
	if rr == nil {
		return nil, step.SourceError(name, nil, "source %s returned no reader", name)
	}
	defer rr.Release()
	as, err := kernel.ArrowSchema(readSchema)
	if err != nil {
		return nil, env.Internal("%v", err)
	}
	var batches []arrow.RecordBatch
	var held int64 // rows in batches, when keepLast >= 0
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for rr.Next() {
		if err := env.CheckCtx(); err != nil {
			return nil, err
		}
		b := rr.RecordBatch()
		if err := step.CheckColumns(readSchema, b.Columns(), b.NumRows()); err != nil {
			return nil, step.SourceError(name, err, "source %s returned data that does not match its schema", name)
		}
		batches = append(batches, array.NewRecordBatch(as, b.Columns(), b.NumRows()))
		if keepLast >= 0 {
			held += b.NumRows()
			for len(batches) > 0 && held-batches[0].NumRows() >= keepLast {
				held -= batches[0].NumRows()
				batches[0].Release()
				batches = batches[1:]
			}
		}
	}
	if err := rr.Err(); err != nil {
		return nil, step.SourceFailure(name, err)
	}
	// No batch gives an empty record, and batches of no column keep their
	// total height.
	if keepLast >= 0 && held > keepLast {
		// The oldest batch still holds rows before the last keepLast.
		drop := held - keepLast
		first := batches[0]
		batches[0] = ops.SliceRecord(first, drop, first.NumRows()-drop)
		first.Release()
	}
	out, err := ops.ConcatRecords(env.Mem, as, batches)
	if err != nil {
		return nil, step.SourceError(name, err, "source %s", name)
	}
	return out, nil
}
