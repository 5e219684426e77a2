package eager

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// aggregateStep groups by its keys (groups in first-appearance order; with
// no keys exactly one group, also over no rows) and computes each
// aggregate per group. Order: every key over all rows, in list order; then,
// per aggregate in list order, its argument over all rows and its
// reduction.
type aggregateStep struct {
	keys, aggs []plan.Expr
	out        plan.Schema
}

func (st *aggregateStep) schema() plan.Schema { return st.out }

func (st *aggregateStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	rec := in[0].rec
	keys, err := s.evalExprs(st.keys, rec)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(keys)
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	groups := 1
	var ids, first []int32
	if len(keys) == 0 {
		ids = ops.OneGroup(int(rec.NumRows()))
	} else {
		if ids, first, err = ops.GroupIDs(keys); err != nil {
			return nil, internalError("%v", err)
		}
		groups = len(first)
	}
	cols := make([]arrow.Array, 0, len(keys)+len(st.aggs))
	defer func() { releaseArrays(cols) }()
	for _, k := range keys {
		kc, err := ops.Take(s.mem, k, first)
		if err != nil {
			return nil, internalError("%v", err)
		}
		cols = append(cols, kc)
	}
	for _, a := range st.aggs {
		col, err := s.reduce(a, rec, ids, groups)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return s.newFrame(st.out, cols, int64(groups))
}

// reduce evaluates one aggregate entry per group: its argument over all
// rows, then the reduction.
func (s *Session) reduce(e plan.Expr, rec arrow.RecordBatch, ids []int32, groups int) (arrow.Array, error) {
	call, ok := plan.Unalias(e).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 1 {
		return nil, internalError("`%s` is not an aggregate call", e)
	}
	var arg arrow.Array
	if len(call.Args) == 1 {
		var err error
		if arg, err = s.evalExpr(call.Args[0], rec); err != nil {
			return nil, err
		}
		defer arg.Release()
	}
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	out, err := ops.Aggregate(s.mem, call.Fn, call.String(), arg, ids, groups)
	if err != nil {
		return nil, opsError(err)
	}
	return out, nil
}

// joinStep evaluates the left keys over the left input, then the right
// keys over the right input (each over all rows, in order), matches them
// and gathers the output in the order docs/semantics.md gives per kind:
// the left columns, then the right columns the layout keeps, renamed by the
// schema.
type joinStep struct {
	how             plan.JoinKind
	leftOn, rightOn []plan.Expr
	layout          joinLayout
}

func (st *joinStep) schema() plan.Schema { return st.layout.schema }

func (st *joinStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 2); err != nil {
		return nil, err
	}
	left, right := in[0].rec, in[1].rec
	lk, err := s.evalExprs(st.leftOn, left)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(lk)
	rk, err := s.evalExprs(st.rightOn, right)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(rk)
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	var li, ri []int32
	if st.how == plan.CrossJoin {
		li, ri, err = ops.CrossIndices(int(left.NumRows()), int(right.NumRows()))
	} else {
		li, ri, err = ops.JoinIndices(st.how, lk, rk)
	}
	if err != nil {
		return nil, internalError("%v", err)
	}
	out := st.layout.schema
	cols := make([]arrow.Array, 0, out.Len())
	defer func() { releaseArrays(cols) }()
	gather := func(a arrow.Array, idx []int32) error {
		if isIdentity(idx, a.Len()) {
			a.Retain()
			cols = append(cols, a)
			return nil
		}
		c, err := ops.Take(s.mem, a, idx)
		if err != nil {
			return internalError("%v", err)
		}
		cols = append(cols, c)
		return nil
	}
	for i := 0; i < int(left.NumCols()); i++ {
		if err := gather(left.Column(i), li); err != nil {
			return nil, err
		}
	}
	if st.how != plan.SemiJoin && st.how != plan.AntiJoin {
		if len(st.layout.keepRight) != int(right.NumCols()) {
			return nil, internalError("join layout of %d right columns over %d", len(st.layout.keepRight), right.NumCols())
		}
		for i := 0; i < int(right.NumCols()); i++ {
			if !st.layout.keepRight[i] {
				continue
			}
			if err := gather(right.Column(i), ri); err != nil {
				return nil, err
			}
		}
	}
	return s.newFrame(out, cols, int64(len(li)))
}

// unionStep concatenates its inputs in order.
type unionStep struct {
	out plan.Schema
}

func (st *unionStep) schema() plan.Schema { return st.out }

func (st *unionStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if len(in) == 0 {
		return nil, internalError("union of no inputs")
	}
	if err := arity(in, len(in)); err != nil {
		return nil, err
	}
	as, err := kernel.ArrowSchema(st.out)
	if err != nil {
		return nil, internalError("%v", err)
	}
	recs := make([]arrow.RecordBatch, len(in))
	for i, f := range in {
		recs[i] = f.rec
	}
	rec, err := ops.ConcatRecords(s.mem, as, recs)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return s.frameOf(st.out, rec)
}
