package eager

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/plan"
)

// step is a type-checked operation, ready to run over its input frames.
// The DataFrame methods and FromPlan share the steps: the method checks and
// runs one at once, FromPlan checks a whole tree of them before running
// any (as the executor resolves before it collects).
type step interface {
	// schema is the output schema the check computed.
	schema() plan.Schema
	// run evaluates the operation over its inputs (borrowed) and returns a
	// new frame the caller owns.
	run(s *Session, in []*DataFrame) (*DataFrame, error)
}

// evalExprs evaluates exprs over rec in list order, each over all rows in
// one evaluator call; on failure it releases what it evaluated.
func (s *Session) evalExprs(exprs []plan.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(exprs))
	for _, e := range exprs {
		a, err := s.evalExpr(e, rec)
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// evalExpr evaluates one scalar expression over every row of rec.
func (s *Session) evalExpr(e plan.Expr, rec arrow.RecordBatch) (arrow.Array, error) {
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	a, err := s.ev.Eval(s.ctx, e, rec, 0)
	if err != nil {
		return nil, err
	}
	if int64(a.Len()) != rec.NumRows() {
		n := a.Len()
		a.Release()
		return nil, internalError("`%s` produced %d rows over %d", e, n, rec.NumRows())
	}
	return a, nil
}

// releaseArrays releases every non-nil array.
func releaseArrays(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// releaseFrames releases every non-nil frame.
func releaseFrames(fs []*DataFrame) {
	for _, f := range fs {
		f.Release()
	}
}

// frameOf turns a record the session computed (owned, released here) into
// a frame under schema.
func (s *Session) frameOf(schema plan.Schema, rec arrow.RecordBatch) (*DataFrame, error) {
	defer rec.Release()
	return s.newFrame(schema, rec.Columns(), rec.NumRows())
}

// isIdentity reports whether idx is exactly 0, 1, ..., n-1.
func isIdentity(idx []int32, n int) bool {
	if len(idx) != n {
		return false
	}
	for i, j := range idx {
		if int(j) != i {
			return false
		}
	}
	return true
}

// arity checks that a step received the number of inputs it needs.
func arity(in []*DataFrame, n int) error {
	if len(in) != n {
		return internalError("%d inputs for an operation of %d", len(in), n)
	}
	for _, f := range in {
		if err := f.live(); err != nil {
			return err
		}
	}
	return nil
}
