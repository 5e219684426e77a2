package eager

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// Options configure a Session.
type Options struct {
	// Mem is the allocator of every Arrow buffer the session creates; nil
	// means memory.DefaultAllocator.
	Mem memory.Allocator
	// Extensions maps extension operator names to implementations; nil
	// means BuiltinExtensions() ("identity" and the test operators).
	Extensions *Extensions
	// Scan reads the full data of a scanned source that is not a
	// *plan.Table. It is consulted before the Scanner interface; nil means
	// only *plan.Table and Scanner sources can be scanned.
	Scan ScanFunc
}

// ScanFunc returns ALL the data of src: one record batch with the columns
// of src.Schema(), in order, every row in source order. The eager chain
// applies a scan's pushed Exact conjuncts and its projection itself, so a
// host plugs in the most naive reader it has (the oracle wraps the
// executor's sources with one). The batch is owned by the caller (eager
// releases it); its buffers should come from mem.
type ScanFunc func(ctx context.Context, src plan.Source, mem memory.Allocator) (arrow.RecordBatch, error)

// Scanner is implemented by a plan.Source that can hand eager its full
// data directly, with the contract of ScanFunc.
type Scanner interface {
	plan.Source
	ScanAll(ctx context.Context, mem memory.Allocator) (arrow.RecordBatch, error)
}

// Session is one eager evaluation: the context (carrying a fresh
// plan.WithCallCounter, so nd_seq counts rows in this evaluation's order,
// and the cancellation of every step), the allocator, the extension
// implementations and the scan hook, held as the step.Env every node is
// evaluated in. Every frame remembers its session. The context is stored on
// purpose: the call counter is per evaluation and must be shared by every
// step of one chain. A Session may be used from one goroutine at a time.
type Session struct {
	env  *step.Env
	scan ScanFunc
}

// NewSession starts an eager evaluation under ctx (nil means
// context.Background()) with a fresh call counter.
func NewSession(ctx context.Context, opts Options) *Session {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Session{
		env:  step.NewEnv(plan.WithCallCounter(ctx), opts.Mem, opts.Extensions, "eager"),
		scan: opts.Scan,
	}
}

// Context returns the session's context (with its call counter).
func (s *Session) Context() context.Context { return s.env.Ctx }

// Allocator returns the allocator of the session's buffers.
func (s *Session) Allocator() memory.Allocator { return s.env.Mem }

// FromRecord wraps a record batch in a frame, retaining it. The frame's
// schema is the record's (names, types, and nullability from the Arrow
// fields); a non-nullable field holding a null is rejected.
func (s *Session) FromRecord(rec arrow.RecordBatch) (*DataFrame, error) {
	if rec == nil {
		return nil, internalError("FromRecord: no record batch")
	}
	schema, err := kernel.PlanSchema(rec.Schema())
	if err != nil {
		return nil, &plan.Error{Kind: plan.TypeError, Row: -1, Msg: fmt.Sprintf("FromRecord: %v", err), Err: err}
	}
	return s.newFrame(schema, rec.Columns(), rec.NumRows())
}

// FromTable converts an in-memory plan table into a frame with the table's
// schema.
func (s *Session) FromTable(t *plan.Table) (*DataFrame, error) {
	if t == nil {
		return nil, internalError("FromTable: no table")
	}
	rec, err := kernel.TableRecord(s.env.Mem, t)
	if err != nil {
		return nil, step.SourceError(t.Name(), err, "cannot convert table %s", t.Name())
	}
	defer rec.Release()
	return s.newFrame(t.Schema(), rec.Columns(), rec.NumRows())
}

// FromRecord is NewSession(ctx, opts).FromRecord(rec).
func FromRecord(ctx context.Context, rec arrow.RecordBatch, opts Options) (*DataFrame, error) {
	return NewSession(ctx, opts).FromRecord(rec)
}

// FromTable is NewSession(ctx, opts).FromTable(t).
func FromTable(ctx context.Context, t *plan.Table, opts Options) (*DataFrame, error) {
	return NewSession(ctx, opts).FromTable(t)
}
