package step

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Env is what evaluating a node needs from its driver: the context (which
// carries the evaluation's plan.WithCallCounter, so nd_seq counts rows in
// evaluation order), the allocator, the extension implementations and the
// driver's name for messages. One collect (or one eager session) has one
// Env. An Env is never written after NewEnv, so nodes of one evaluation may
// be evaluated from several goroutines (the allocator must then be safe for
// concurrent use, as Arrow's are; kernel.Evaluator is).
type Env struct {
	// Ctx is the evaluation's context: cancellation and the call counter.
	Ctx context.Context
	// Mem allocates every Arrow buffer the node functions create.
	Mem memory.Allocator
	// Extensions pairs extension node names with implementations.
	Extensions *Extensions
	// Who names the driver ("executor", "eager") in internal errors, whose
	// message starts "Who: " (the oracle recognises such errors as broken
	// contracts, not outcomes).
	Who string
	par ops.Parallel
	// budget is the memory limit of the evaluation (nil: none).
	budget *memlimit.Budget
	// flatFrames keeps every frame flat (lazy.go), as under a memory
	// limit: the tests compare the two representations.
	flatFrames bool
	// stageRows is the fewest rows a filter evaluates in stages (0: the
	// default, filterStageRows).
	stageRows int
}

// NewEnv returns an Env. A nil ctx means context.Background(), a nil mem
// memory.DefaultAllocator and nil exts BuiltinExtensions(). ctx is used as
// given: the driver attaches the call counter (plan.WithCallCounter).
func NewEnv(ctx context.Context, mem memory.Allocator, exts *Extensions, who string) *Env {
	if ctx == nil {
		ctx = context.Background()
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if exts == nil {
		exts = BuiltinExtensions()
	}
	return &Env{Ctx: ctx, Mem: mem, Extensions: exts, Who: who}
}

// WithParallel returns a copy of e whose nodes may split their rows over
// goroutines as p says (NewEnv's Env is sequential). The rows, order, bits
// and errors of every node are the same whatever p is.
func (e *Env) WithParallel(p ops.Parallel) *Env {
	c := *e
	c.par = p
	return &c
}

// WithFilterStageRows returns a copy of e whose filters evaluate their
// conjuncts in stages (the total ones only over the rows the others keep)
// from n rows on; n <= 0 keeps the default. The kept rows and the first
// error do not depend on n: the oracle lowers it so that its small random
// tables reach the staged evaluation too.
func (e *Env) WithFilterStageRows(n int) *Env {
	c := *e
	c.stageRows = n
	return &c
}

// Parallel returns how e's nodes may split their rows (see WithParallel).
func (e *Env) Parallel() ops.Parallel { return e.par }

// WithBudget returns a copy of e whose nodes hold at most what b allows
// (docs/performance.md, "Memory limit"): e.Mem must already be
// b.Allocator of the driver's allocator, so that every Arrow buffer is
// counted. Joins and aggregates spill to b's directory when their hash
// tables do not fit; what cannot spill fails with resource_exhausted. A
// nil b is no limit. Rows, order, bits and errors are those of an Env
// without a budget whenever the evaluation fits.
func (e *Env) WithBudget(b *memlimit.Budget) *Env {
	c := *e
	c.budget = b
	return &c
}

// spill is what the kernels need to run under the Env's memory limit: its
// allocator always, its budget when it has one (without one the kernels
// take their unlimited paths over e.Mem).
func (e *Env) spill() *ops.Spill {
	return &ops.Spill{Ctx: e.Ctx, Mem: e.Mem, Budget: e.budget}
}

// reserve counts n bytes of Go heap for what in the budget, or returns a
// resource_exhausted error; release gives them back. Both are no-ops
// without a limit.
func (e *Env) reserve(n int64, what string) error {
	if err := e.budget.Reserve(n, what); err != nil {
		return e.exhausted(err)
	}
	return nil
}

// release gives back n bytes reserved with reserve.
func (e *Env) release(n int64) { e.budget.Release(n) }

// exhausted is the resource_exhausted error of a memory limit error (the
// driver names the node); its message is the limit error's own, without
// the kernels' context.
func (e *Env) exhausted(err error) *plan.Error {
	msg := err.Error()
	if x, ok := memlimit.AsExceeded(err); ok {
		msg = x.Error()
	}
	return &plan.Error{Kind: plan.ResourceExhausted, Row: -1, Msg: msg}
}

// opFailure turns a kernel's failure into a *plan.Error: a memory limit
// error or a failed spill (disk full, spill directory missing) is
// resource_exhausted, a cancelled context cancelled, a
// *plan.Error (an aggregate's overflow) stays as it is, and anything else
// is internal.
func (e *Env) opFailure(err error) error {
	if _, ok := memlimit.AsExceeded(err); ok {
		return e.exhausted(err)
	}
	if x, ok := memlimit.AsSpillError(err); ok {
		return &plan.Error{Kind: plan.ResourceExhausted, Row: -1, Msg: x.Error()}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Cancelled(err)
	}
	return e.opsError(err)
}

// evaluator returns the expression evaluator over the Env's allocator and
// partitioning (kernel.Evaluator holds nothing else).
func (e *Env) evaluator() *kernel.Evaluator {
	return &kernel.Evaluator{Mem: e.Mem, Par: e.par}
}

// Internal reports a failure of the driver or of this package (an Arrow call
// that should not fail, an operator contract broken). It is an invalid_plan
// error whose message starts with the driver's name, so that callers always
// receive a *plan.Error and the oracle can tell a broken contract from an
// outcome.
func (e *Env) Internal(format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: e.Who + ": " + fmt.Sprintf(format, args...)}
}

// Cancelled is the error of an evaluation stopped by its context.
func Cancelled(cause error) *plan.Error {
	return &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "evaluation cancelled", Err: cause}
}

// CheckMemory returns a resource_exhausted error when the evaluation has
// held more than its memory limit at any moment (memlimit.Budget.Check);
// nil without a limit. A driver calls it after each node, once the node's
// inputs are released.
func (e *Env) CheckMemory() error {
	if e.budget == nil {
		return nil
	}
	if err := e.budget.Check("the arrays and index vectors the collect held"); err != nil {
		return e.exhausted(err)
	}
	return nil
}

// CheckCtx returns a cancelled error when the Env's context is done and,
// under a memory limit, a resource_exhausted error when the evaluation
// has held more than the limit (an Arrow allocation no check announced,
// such as an expression's result, went over it).
func (e *Env) CheckCtx() error {
	if err := e.Ctx.Err(); err != nil {
		return Cancelled(err)
	}
	return e.CheckMemory()
}

// Locate fills in where an error happened — the label of the node at fault
// and its path in plan-file syntax ("" when unknown) — keeping a location
// already set, and turns any other error into a *plan.Error: context errors
// become kind cancelled, anything else invalid_plan.
func Locate(err error, label, path string) error {
	if err == nil {
		return nil
	}
	pe, ok := plan.AsError(err)
	if !ok {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			pe = Cancelled(err)
		} else {
			pe = &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: err.Error(), Err: err}
		}
	} else {
		if pe.Node != "" && (pe.Path != "" || path == "") {
			return pe
		}
		c := *pe
		pe = &c
	}
	if pe.Node == "" {
		pe.Node = label
	}
	if pe.Path == "" {
		pe.Path = path
	}
	return pe
}

// opsError keeps an operator's *plan.Error (an aggregate's overflow) and
// turns anything else into an internal error.
func (e *Env) opsError(err error) error {
	if _, ok := plan.AsError(err); ok {
		return err
	}
	return e.Internal("%v", err)
}

// SourceError builds the error of a source that failed to produce its data:
// kind source_error, the source's name as the offending name, and the cause.
func SourceError(src string, cause error, format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.SourceError, Expr: src, Row: -1,
		Msg: fmt.Sprintf(format, args...), Err: cause}
}

// SourceFailure turns the error a source (or a host's scan hook) returned
// into a source_error naming it; cancellation stays cancellation and a
// *plan.Error is kept.
func SourceFailure(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Cancelled(err)
	}
	if _, ok := plan.AsError(err); ok {
		return err
	}
	return SourceError(name, err, "source %s failed", name)
}

// Label is n's explain label, defending against a panic on a malformed
// node.
func Label(n plan.Node) (label string) {
	defer func() {
		if recover() != nil {
			label = fmt.Sprintf("%s <unprintable>", n.Kind())
		}
	}()
	return n.Label()
}
