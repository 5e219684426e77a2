package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// scan reads a source. Pushed conjuncts classified Exact in the plan must
// hold exactly on the output; the executor applies, itself and in list
// order, every such conjunct the source does not (now) classify Exact — for
// example all of them for sources without a classifier, such as ArrowSource,
// and all of them for a *plan.Table, whose classification is a policy it
// leaves to the executor (plan.Table.WithPushdown). Inexact conjuncts are
// left to the source: the plan keeps them above the scan.
func (c *collector) scan(n *plan.ScanNode) (arrow.RecordBatch, error) {
	name := sourceLabel(n.Source)
	var apply []plan.Expr
	if len(n.Pushed) > 0 {
		exprs := make([]plan.Expr, len(n.Pushed))
		for i, p := range n.Pushed {
			exprs[i] = p.Expr
		}
		now, _ := plan.ClassifyPredicates(n.Source, exprs) // a failing classifier answers Unsupported
		_, isTable := n.Source.(*plan.Table)               // a *plan.Table classifies but never filters
		for i, p := range n.Pushed {
			if p.Support == plan.Exact && (isTable || now[i] != plan.Exact) {
				apply = append(apply, p.Expr)
			}
		}
	}
	// The columns to read: the node's, plus those the executor-applied
	// conjuncts need.
	var columns []string
	if n.Projected {
		columns = append([]string{}, n.Columns...)
		if len(apply) > 0 {
			have := map[string]bool{}
			for _, col := range columns {
				have[col] = true
			}
			for _, e := range apply {
				for _, col := range plan.Columns(e) {
					if !have[col] {
						have[col] = true
						columns = append(columns, col)
					}
				}
			}
		}
	}
	readSchema, err := readSchemaOf(n.SourceSchema, columns)
	if err != nil {
		return nil, sourceError(name, err, "scan of %s", name)
	}
	var rec arrow.RecordBatch
	switch src := n.Source.(type) {
	case *plan.Table:
		rec, err = c.scanTable(src, columns)
	case Source:
		rec, err = c.scanSource(src, name, columns, n.Pushed, readSchema)
	default:
		return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1,
			Msg: fmt.Sprintf("source %s (%T) cannot be scanned: it implements neither exec.Source nor is a *plan.Table", name, n.Source)}
	}
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := checkColumns(readSchema, rec.Columns(), rec.NumRows()); err != nil {
		return nil, sourceError(name, err, "source %s returned data that does not match its schema", name)
	}
	if len(apply) > 0 {
		filtered, err := c.filterRows(apply, rec)
		if err != nil {
			return nil, err
		}
		defer filtered.Release()
		rec = filtered
	}
	cols := make([]arrow.Array, n.Schema().Len())
	for i, f := range n.Schema().Fields() {
		if cols[i], err = columnByName(rec, f.Name); err != nil {
			return nil, err
		}
	}
	return conform(n.Schema(), cols, rec.NumRows())
}

// readSchemaOf is the schema of the columns a scan reads (nil = all).
func readSchemaOf(src plan.Schema, columns []string) (plan.Schema, error) {
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

// scanTable converts an in-memory table once per collect and selects the
// requested columns (sharing the buffers).
func (c *collector) scanTable(t *plan.Table, columns []string) (arrow.RecordBatch, error) {
	rec, ok := c.tables[t]
	if !ok {
		var err error
		if rec, err = kernel.TableRecord(c.mem, t); err != nil {
			return nil, sourceError(t.Name(), err, "cannot convert table %s", t.Name())
		}
		c.tables[t] = rec
	}
	idx, err := columnIndices(t.Schema(), columns)
	if err != nil {
		return nil, sourceError(t.Name(), err, "table %s", t.Name())
	}
	fields := make([]arrow.Field, len(idx))
	cols := make([]arrow.Array, len(idx))
	for i, j := range idx {
		fields[i] = rec.Schema().Field(j)
		cols[i] = rec.Column(j)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// scanSource drains a host source into one batch with the read schema.
func (c *collector) scanSource(src Source, name string, columns []string, pushed []plan.PushedPredicate,
	readSchema plan.Schema) (rec arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, sourceError(name, nil, "source %s panicked: %v", name, r)
		}
	}()
	rr, err := src.Scan(c.ctx, ScanRequest{Columns: columns, Predicates: pushed, Mem: c.mem})
	if err != nil {
		return nil, c.sourceFailure(name, err)
	}
	if rr == nil {
		return nil, sourceError(name, nil, "source %s returned no reader", name)
	}
	defer rr.Release()
	as, err := arrowSchemaOf(readSchema)
	if err != nil {
		return nil, err
	}
	var batches []arrow.RecordBatch
	defer func() { releaseBatches(batches) }()
	for rr.Next() {
		if err := checkCtx(c.ctx); err != nil {
			return nil, err
		}
		b := rr.RecordBatch()
		if err := checkColumns(readSchema, b.Columns(), b.NumRows()); err != nil {
			return nil, sourceError(name, err, "source %s returned data that does not match its schema", name)
		}
		batches = append(batches, array.NewRecordBatch(as, b.Columns(), b.NumRows()))
	}
	if err := rr.Err(); err != nil {
		return nil, c.sourceFailure(name, err)
	}
	if len(batches) == 0 {
		return emptyRecord(c, as, readSchema)
	}
	if len(readSchema.Fields()) == 0 {
		var rows int64
		for _, b := range batches {
			rows += b.NumRows()
		}
		return array.NewRecordBatch(as, nil, rows), nil
	}
	out, err := ops.ConcatRecords(c.mem, as, batches)
	if err != nil {
		return nil, sourceError(name, err, "source %s", name)
	}
	return out, nil
}

// sourceFailure turns a source's error into a source_error naming it
// (cancellation stays cancellation; a *plan.Error is kept).
func (c *collector) sourceFailure(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cancelledError(err)
	}
	if _, ok := plan.AsError(err); ok {
		return err
	}
	return sourceError(name, err, "source %s failed", name)
}

// emptyRecord builds a zero-row batch with the columns of s.
func emptyRecord(c *collector, as *arrow.Schema, s plan.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, s.Len())
	defer releaseAll(cols)
	for i, f := range s.Fields() {
		a, err := kernel.ArrayFromValues(c.mem, f.Type, nil)
		if err != nil {
			return nil, internalError("%v", err)
		}
		cols[i] = a
	}
	return array.NewRecordBatch(as, cols, 0), nil
}

// sourceLabel is a source's name for messages, defending against a
// panicking host Name method.
func sourceLabel(s plan.Source) (name string) {
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

// scanFrame is scan as a frame.
func (c *collector) scanFrame(n *plan.ScanNode) (*frame, error) {
	rec, err := c.scan(n)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return frameOf(n.Schema(), rec)
}
