package eager

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// filterStep keeps the rows where every conjunct is valid and true; each
// conjunct evaluates over all input rows, in list order, before any row is
// dropped (the evaluator's EvalPredicate).
type filterStep struct {
	preds []plan.Expr
	out   plan.Schema
}

func (st *filterStep) schema() plan.Schema { return st.out }

func (st *filterStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	rec, err := s.filterRecord(st.preds, in[0].rec)
	if err != nil {
		return nil, err
	}
	return s.frameOf(st.out, rec)
}

// filterRecord applies conjuncts to rec and returns the surviving rows
// (owned by the caller).
func (s *Session) filterRecord(preds []plan.Expr, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	sel, err := s.ev.EvalPredicate(s.ctx, preds, rec, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if int64(sel.Len()) != rec.NumRows() {
		return nil, internalError("a predicate selected %d rows of %d", sel.Len(), rec.NumRows())
	}
	out, err := ops.FilterRecord(s.mem, rec, sel)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}

// sortStep orders rows stably by its keys, each evaluated over all rows in
// order.
type sortStep struct {
	keys []plan.SortKey
	out  plan.Schema
}

func (st *sortStep) schema() plan.Schema { return st.out }

func (st *sortStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	exprs := make([]plan.Expr, len(st.keys))
	desc := make([]bool, len(st.keys))
	nullsLast := make([]bool, len(st.keys))
	for i, k := range st.keys {
		exprs[i], desc[i], nullsLast[i] = k.Expr, k.Desc, k.NullsLast
	}
	keys, err := s.evalExprs(exprs, in[0].rec)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(keys)
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	perm, err := ops.SortIndices(keys, desc, nullsLast)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return s.take(st.out, in[0], perm)
}

// take gathers rows of a frame by index (-1 gives a row of nulls).
func (s *Session) take(out plan.Schema, in *DataFrame, idx []int32) (*DataFrame, error) {
	if isIdentity(idx, int(in.rec.NumRows())) {
		return s.newFrame(out, in.rec.Columns(), in.rec.NumRows())
	}
	rec, err := ops.TakeRecord(s.mem, in.rec, idx)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return s.frameOf(out, rec)
}

// sliceStep keeps rows [offset, offset+length) clamped to the input; a
// limit is a slice from 0. The rows share the input's buffers.
type sliceStep struct {
	offset, length int64
	out            plan.Schema
}

func (st *sliceStep) schema() plan.Schema { return st.out }

func (st *sliceStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	rec := ops.SliceRecord(in[0].rec, st.offset, st.length)
	return s.frameOf(st.out, rec)
}

// distinctStep keeps the first row of each distinct key (the subset
// columns, or all columns), in input order.
type distinctStep struct {
	subset []string
	out    plan.Schema
}

func (st *distinctStep) schema() plan.Schema { return st.out }

func (st *distinctStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	df := in[0]
	names := st.subset
	if len(names) == 0 {
		names = df.schema.Names()
	}
	keys := make([]arrow.Array, len(names))
	for i, name := range names {
		var err error
		if keys[i], err = df.column(name); err != nil {
			return nil, err
		}
	}
	var rows []int32
	if len(keys) == 0 {
		// No column at all: every row has the same (empty) key.
		if df.rec.NumRows() > 0 {
			rows = []int32{0}
		}
	} else {
		var err error
		if rows, err = ops.DistinctRows(keys); err != nil {
			return nil, internalError("%v", err)
		}
	}
	return s.take(st.out, df, rows)
}
