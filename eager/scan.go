package eager

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// tableCache holds the Arrow form of the in-memory tables one FromPlan
// scans, converted once each.
type tableCache map[*plan.Table]arrow.RecordBatch

func (c tableCache) release() {
	for t, r := range c {
		r.Release()
		delete(c, t)
	}
}

// scanStep reads a source's full data, applies the scan's pushed Exact
// conjuncts itself (in list order, each over all source rows: the source
// would have returned exactly the rows they keep) and then keeps the
// projected columns. Inexact conjuncts are ignored: the plan keeps them in
// a filter above the scan, and reading every row is always a correct
// answer to an Inexact conjunct.
type scanStep struct {
	node   *plan.ScanNode
	out    plan.Schema
	tables tableCache
}

func (st *scanStep) schema() plan.Schema { return st.out }

func (st *scanStep) run(s *Session, _ []*DataFrame) (*DataFrame, error) {
	n := st.node
	name := sourceLabel(n.Source)
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	rec, err := s.sourceData(n.Source, name, st.tables)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := checkColumns(n.SourceSchema, rec.Columns(), rec.NumRows()); err != nil {
		return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1,
			Msg: fmt.Sprintf("source %s returned data that does not match its schema %s", name, n.SourceSchema), Err: err}
	}
	full, err := s.newFrame(n.SourceSchema, rec.Columns(), rec.NumRows())
	if err != nil {
		return nil, err
	}
	defer full.Release()
	var exact []plan.Expr
	for _, p := range n.Pushed {
		if p.Support == plan.Exact {
			exact = append(exact, p.Expr)
		}
	}
	data := full.rec
	if len(exact) > 0 {
		filtered, err := s.filterRecord(exact, full.rec)
		if err != nil {
			return nil, err
		}
		defer filtered.Release()
		data = filtered
	}
	cols := make([]arrow.Array, st.out.Len())
	for i, f := range st.out.Fields() {
		j := n.SourceSchema.Index(f.Name)
		if j < 0 {
			return nil, internalError("scan of %s: no column %q", name, f.Name)
		}
		cols[i] = data.Column(j)
	}
	return s.newFrame(st.out, cols, data.NumRows())
}

// sourceData returns all the data of a source (owned by the caller): a
// *plan.Table converted once per FromPlan, else the session's ScanFunc,
// else the source's own Scanner.
func (s *Session) sourceData(src plan.Source, name string, tables tableCache) (rec arrow.RecordBatch, err error) {
	if t, ok := src.(*plan.Table); ok {
		if r, ok := tables[t]; ok {
			r.Retain()
			return r, nil
		}
		r, err := kernel.TableRecord(s.mem, t)
		if err != nil {
			return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1, Msg: fmt.Sprintf("cannot convert table %s", name), Err: err}
		}
		if tables != nil {
			tables[t] = r
			r.Retain()
		}
		return r, nil
	}
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1, Msg: fmt.Sprintf("source %s panicked: %v", name, r)}
		}
	}()
	switch {
	case s.scan != nil:
		rec, err = s.scan(s.ctx, src, s.mem)
	default:
		sc, ok := src.(Scanner)
		if !ok {
			return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1,
				Msg: fmt.Sprintf("source %s (%T) cannot be scanned eagerly: it is not a *plan.Table, implements no eager.Scanner, and the session has no ScanFunc", name, src)}
		}
		rec, err = sc.ScanAll(s.ctx, s.mem)
	}
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "eager evaluation cancelled", Err: err}
		}
		if _, ok := plan.AsError(err); ok {
			return nil, err
		}
		return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1, Msg: fmt.Sprintf("source %s failed", name), Err: err}
	}
	if rec == nil {
		return nil, &plan.Error{Kind: plan.SourceError, Expr: name, Row: -1, Msg: fmt.Sprintf("source %s returned no data", name)}
	}
	return rec, nil
}
