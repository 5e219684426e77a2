package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// Source is the executor's view of a data source: a plan.Source (name and
// schema, all the optimizer sees) that can also produce its rows as Arrow
// record batches. Hosts implement it to plug their own storage in; the
// package provides NewArrowSource (in-memory Arrow data), and package
// exec/parquet provides Parquet files (parquet.Open).
// The executor also scans *plan.Table directly.
//
// A source may implement plan.PredicateClassifier. A conjunct it classifies
// Exact must then be applied exactly by Scan (the optimizer removes it from
// the plan); an Inexact one may be used to skip data, and is applied again
// above the scan by the plan itself.
type Source interface {
	plan.Source
	// Scan returns the source's rows, in source order, restricted to
	// req.Columns. Every batch the reader yields must have exactly the
	// requested columns, in the requested order, with the types of the
	// source's schema (nullability is checked against the data, not the
	// Arrow field flags). The executor releases the reader.
	Scan(ctx context.Context, req ScanRequest) (array.RecordReader, error)
}

// ScanRequest is what a scan asks of a Source.
type ScanRequest struct {
	// Columns lists the columns to produce, in order; nil means all of the
	// source's columns in schema order, and an empty non-nil slice means no
	// column at all (the batches then carry only their row counts).
	Columns []string
	// Predicates are the conjuncts pushed into the scan, each with the
	// classification recorded in the plan; a source applies those it
	// classifies Exact (see Source) and may skip rows by the Inexact ones.
	// The executor passes them all, except when it applies some pushed
	// conjunct itself (the source no longer classifies it Exact): those
	// must meet every row, so the source then gets only the Exact
	// conjuncts it takes, and no Inexact one to skip rows by.
	Predicates []plan.PushedPredicate
	// Mem is the allocator every Arrow buffer of the result must come from.
	Mem memory.Allocator
	// Parallelism is how many goroutines the source may use to produce the
	// rows (the collect's Options.Parallelism, resolved); 0 or 1 means one.
	// The rows and their order must not depend on it.
	Parallelism int
	// HasMaxRows and MaxRows are the scan's max-rows hint
	// (plan.ScanNode.MaxRows, set by the optimizer's limit_pushdown): the
	// plan reads only the first MaxRows rows the source produces, so the
	// source may stop once it has produced them — a Parquet file reads
	// only the row groups that hold them. It must still produce at least
	// those rows (all of them when it has fewer), in source order, and it
	// may produce more (ignoring the hint is always correct): a limit above
	// the scan enforces the count. Stopping early is safe because the
	// source applies every conjunct in Predicates it takes Exact to the
	// rows it produces, and the optimizer gives the hint only when those
	// conjuncts cannot raise (legality cell lp.scan); the executor passes
	// the hint only when it applies no pushed conjunct itself, and only
	// while a limit or slice above the scan allows it. MaxRows is
	// meaningful only when HasMaxRows is set (0: no row is read).
	HasMaxRows bool
	MaxRows    int64
	// Guards are the scan's error guards (plan.ScanNode.Guards), given
	// only to a source that declares it honours them (GuardedSource) and
	// only together with Inexact Predicates to skip rows by: the executor
	// evaluates the guards over every row the source yields, so the source
	// must yield every row on which a guard may raise. It may skip a row
	// only where some conjunct of Predicates rules it out AND it proves
	// that no guard raises on it (a Parquet file: a row group whose
	// statistics exclude a conjunct and prove every guard total over the
	// group's values, plan.Prove). A source that does not implement
	// GuardedSource is given no pushed conjunct at all when the scan has
	// guards: it yields every row, and the executor applies the Exact
	// conjuncts itself, after the guards (docs/embedding.md).
	Guards []plan.Expr
	// KeyFilters are runtime key filters (keyfilter.go): each names a
	// column of Columns and the key values a join above the scan can match.
	// A source may skip any row whose value in that column is null or not
	// among the keys, and must yield every other row, in source order;
	// ignoring them is always correct (the join drops those rows itself).
	// The executor gives them only to a scan whose every row the source
	// yields is the scan's output (no conjunct it applies itself, no
	// guard, no assumption, no max-rows hint), directly below the join.
	KeyFilters []KeyFilter
}

// GuardedSource is implemented by a source that honours
// ScanRequest.Guards: given guards with its pushed conjuncts, it applies
// no conjunct to rows and skips only rows a conjunct rules out and on
// which it proves that no guard can raise. HonoursGuards reports whether
// it does (false: treated as a source without the capability). Package
// exec/parquet's source implements it with its row-group statistics.
type GuardedSource interface {
	Source
	HonoursGuards() bool
}

// ArrowSource is an in-memory source over an Arrow record batch or table,
// for hosts that already hold their data in Arrow. It is immutable; scans
// share its buffers (zero copy).
type ArrowSource struct {
	name    string
	schema  plan.Schema
	arrow   *arrow.Schema
	batches []arrow.RecordBatch
	rows    int64
	// facts are the columns' facts, computed when the source is made
	// (ColumnFacts).
	facts map[string]plan.ColumnFacts
}

// NewArrowSource wraps data (an arrow.RecordBatch or an arrow.Table) as a
// named source. The source retains what it needs; call Release when done
// with it. Only the dfopt types (bool, int32, int64, float64, utf8 string)
// are accepted; a field's nullability is taken from the Arrow schema.
// The data must not be modified afterwards (Arrow arrays are immutable):
// the source computes its columns' facts here, once, and a scan does not
// re-check an assumption they imply (step.Checks).
func NewArrowSource(name string, data any) (*ArrowSource, error) {
	s := &ArrowSource{name: name}
	switch d := data.(type) {
	case arrow.RecordBatch:
		if d == nil {
			return nil, fmt.Errorf("arrow source %q: nil record batch", name)
		}
		d.Retain()
		s.arrow = d.Schema()
		s.batches = []arrow.RecordBatch{d}
		s.rows = d.NumRows()
	case arrow.Table:
		if d == nil {
			return nil, fmt.Errorf("arrow source %q: nil table", name)
		}
		s.arrow = d.Schema()
		tr := array.NewTableReader(d, -1)
		for tr.Next() {
			rec := tr.RecordBatch()
			rec.Retain()
			s.batches = append(s.batches, rec)
			s.rows += rec.NumRows()
		}
		tr.Release()
	default:
		return nil, fmt.Errorf("arrow source %q: want an arrow.RecordBatch or arrow.Table, got %T", name, data)
	}
	ps, err := kernel.PlanSchema(s.arrow)
	if err != nil {
		s.Release()
		return nil, fmt.Errorf("arrow source %q: %w", name, err)
	}
	s.schema = ps
	s.facts = arrowFacts(ps, s.batches)
	return s, nil
}

// Name returns the source's name.
func (s *ArrowSource) Name() string { return s.name }

// Schema returns the source's schema.
func (s *ArrowSource) Schema() plan.Schema { return s.schema }

// EvaluatesScanGuards reports that scans of the source evaluate
// plan.ScanNode.Guards: dfopt's executor scans it
// (plan.ScanGuardEvaluator).
func (s *ArrowSource) EvaluatesScanGuards() bool { return true }

// EstimatedRows reports the exact row count.
func (s *ArrowSource) EstimatedRows() (int64, bool) { return s.rows, true }

// SupportsProjection reports true: selecting columns is free.
func (s *ArrowSource) SupportsProjection() bool { return true }

// Release drops the source's references to its data.
func (s *ArrowSource) Release() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches = nil
}

// Scan returns the selected columns of the held batches without copying,
// stopping after the batch that meets a max-rows hint (ScanRequest.MaxRows).
// Pushed predicates are not applied (the source classifies nothing, so the
// executor applies any Exact conjunct a hand-built plan pushes).
func (s *ArrowSource) Scan(ctx context.Context, req ScanRequest) (array.RecordReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.batches == nil && s.rows > 0 {
		return nil, fmt.Errorf("arrow source %q: scanned after Release", s.name)
	}
	idx, err := req.ColumnIndices(s.schema)
	if err != nil {
		return nil, fmt.Errorf("arrow source %q: %w", s.name, err)
	}
	fields := make([]arrow.Field, len(idx))
	for i, j := range idx {
		fields[i] = s.arrow.Field(j)
	}
	schema := arrow.NewSchema(fields, nil)
	out := make([]arrow.RecordBatch, 0, len(s.batches))
	var produced int64
	for _, b := range s.batches {
		if req.HasMaxRows && produced >= req.MaxRows {
			break // the max-rows hint is met: the later batches are not needed
		}
		produced += b.NumRows()
		cols := make([]arrow.Array, len(idx))
		for i, j := range idx {
			cols[i] = b.Column(j)
		}
		out = append(out, array.NewRecordBatch(schema, cols, b.NumRows()))
	}
	rr, err := array.NewRecordReader(schema, out)
	for _, b := range out {
		b.Release()
	}
	if err != nil {
		return nil, fmt.Errorf("arrow source %q: %w", s.name, err)
	}
	return rr, nil
}

// ColumnIndices maps the requested columns (r.Columns) to their positions
// in the source's schema s, in request order: every position of s when
// Columns is nil, none when it is empty but not nil. A name s lacks is an
// error. Sources (this package's, exec/parquet's, a host's) share it so
// that they read Columns the same way.
func (r ScanRequest) ColumnIndices(s plan.Schema) ([]int, error) {
	columns := r.Columns
	if columns == nil {
		idx := make([]int, s.Len())
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	idx := make([]int, len(columns))
	for i, c := range columns {
		j := s.Index(c)
		if j < 0 {
			return nil, fmt.Errorf("no column %q", c)
		}
		idx[i] = j
	}
	return idx, nil
}
