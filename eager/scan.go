package eager

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// input is the source of a placeholder scan: the i-th frame a DataFrame
// method's step reads. plan.Resolve types the step over it (so a method
// reports exactly plan's errors and schema), and run binds it to the frame.
// It is unexported, so no plan a caller builds can contain one.
type input struct {
	i      int
	schema plan.Schema
}

// Name names the placeholder in labels.
func (in *input) Name() string { return "input" + strconv.Itoa(in.i) }

// Schema is the bound frame's schema.
func (in *input) Schema() plan.Schema { return in.schema }

// scanNode reads a scan: a placeholder's bound frame, a *plan.Table as the
// executor reads it (step.ScanTable), or any other source's full data
// through the session's hook, with every Exact pushed conjunct applied here
// (in list order, each over all source rows: the source would have returned
// exactly the rows they keep) and then the projection. Inexact conjuncts are
// ignored: the plan keeps them in a filter above the scan, and reading every
// row is always a correct answer to an Inexact conjunct.
func (s *Session) scanNode(n *plan.ScanNode, r *runner) (*DataFrame, error) {
	switch src := n.Source.(type) {
	case *input:
		if src.i >= len(r.inputs) {
			return nil, s.env.Internal("placeholder %d of %d inputs", src.i, len(r.inputs))
		}
		in := r.inputs[src.i]
		in.rec.Retain()
		return &DataFrame{s: s, schema: in.schema, rec: in.rec}, nil
	case *plan.Table:
		f, err := step.ScanTable(s.env, r.tables, n)
		if err != nil {
			return nil, err
		}
		defer f.Release()
		return s.materialize(f)
	}
	name := step.SourceLabel(n.Source)
	rec, err := s.sourceData(n.Source, name)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	f, err := step.ScanOutput(s.env, n, step.Checks(n, nil), n.SourceSchema, rec, step.ExactConjuncts(n))
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return s.materialize(f)
}

// sourceData returns all the data of a source that is not a *plan.Table
// (owned by the caller): the session's ScanFunc, else the source's own
// Scanner.
func (s *Session) sourceData(src plan.Source, name string) (rec arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, step.SourceError(name, nil, "source %s panicked: %v", name, r)
		}
	}()
	switch {
	case s.scan != nil:
		rec, err = s.scan(s.env.Ctx, src, s.env.Mem)
	default:
		sc, ok := src.(Scanner)
		if !ok {
			return nil, step.SourceError(name, nil,
				"source %s (%T) cannot be scanned eagerly: it is not a *plan.Table, implements no eager.Scanner, and the session has no ScanFunc", name, src)
		}
		rec, err = sc.ScanAll(s.env.Ctx, s.env.Mem)
	}
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		return nil, step.SourceFailure(name, err)
	}
	if rec == nil {
		return nil, step.SourceError(name, nil, "source %s returned no data", name)
	}
	return rec, nil
}
