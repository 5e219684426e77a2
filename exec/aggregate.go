package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// opsError keeps an operator's *plan.Error (an aggregate's overflow) and
// turns anything else into an executor error.
func opsError(err error) error {
	if _, ok := plan.AsError(err); ok {
		return err
	}
	return internalError("%v", err)
}

// aggregate groups the input by its keys (groups in first-appearance order;
// with no keys exactly one group, also over no rows) and computes each
// aggregate per group. Order of evaluation: every key over all rows, in
// list order; then, per aggregate in list order, its argument over all rows
// and its reduction.
func (c *collector) aggregate(n *plan.AggregateNode, f *frame) (*frame, error) {
	in, err := c.exprBatch(f, append(append([]plan.Expr(nil), n.Keys...), n.Aggs...))
	if err != nil {
		return nil, err
	}
	defer in.Release()
	keys, err := c.evalExprs(n.Keys, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var ids, first []int32
	groups := 1
	if len(keys) == 0 {
		ids = ops.OneGroup(int(in.NumRows()))
	} else {
		if ids, first, err = ops.GroupIDs(keys); err != nil {
			return nil, internalError("%v", err)
		}
		groups = len(first)
	}
	cols := make([]arrow.Array, 0, len(keys)+len(n.Aggs))
	defer func() { releaseAll(cols) }()
	for _, k := range keys {
		kc, err := ops.Take(c.mem, k, first)
		if err != nil {
			return nil, internalError("%v", err)
		}
		cols = append(cols, kc)
	}
	for _, a := range n.Aggs {
		col, err := c.reduce(a, in, ids, groups)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	rec, err := conform(n.Schema(), cols, int64(groups))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return frameOf(n.Schema(), rec)
}

// reduce evaluates an aggregate entry (an aggregate call, possibly aliased)
// per group: its argument over all rows, then the reduction.
func (c *collector) reduce(e plan.Expr, in arrow.RecordBatch, ids []int32, groups int) (arrow.Array, error) {
	call, ok := plan.Unalias(e).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 1 {
		return nil, internalError("`%s` is not an aggregate call", e)
	}
	var arg arrow.Array
	if len(call.Args) == 1 {
		var err error
		if arg, err = c.evalExpr(call.Args[0], in); err != nil {
			return nil, err
		}
		defer arg.Release()
	}
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	out, err := ops.Aggregate(c.mem, call.Fn, call.String(), arg, ids, groups)
	if err != nil {
		return nil, opsError(err)
	}
	return out, nil
}

// window appends one column per over() (in list order): the aggregate's
// argument is evaluated over all rows, then the partition keys in order
// (the operands of `agg.over(keys)` left to right), then the rows are
// grouped by the keys (nulls group together, all NaNs are one key, -0.0 and
// +0.0 are one key), the aggregate reduces each partition, and its value is
// broadcast back to the partition's rows.
func (c *collector) window(n *plan.WindowNode, f *frame) (*frame, error) {
	in, err := c.exprBatch(f, n.Exprs)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	var computed []arrow.Array
	defer func() { releaseAll(computed) }()
	for _, e := range n.Exprs {
		col, err := c.over(e, in)
		if err != nil {
			return nil, err
		}
		computed = append(computed, col)
	}
	if len(f.cols)+len(computed) != n.Schema().Len() {
		return nil, internalError("window produced %d columns, its schema has %d", len(f.cols)+len(computed), n.Schema().Len())
	}
	temps, err := plan.NewSchema(n.Schema().Fields()[len(f.cols):]...)
	if err != nil {
		return nil, internalError("%v", err)
	}
	if err := checkColumns(temps, computed, int64(f.rows)); err != nil {
		return nil, internalError("%v", err)
	}
	out := f.withSchema(n.Schema())
	for _, a := range computed {
		a.Retain()
		out.cols = append(out.cols, fcol{arr: a})
	}
	return out, nil
}

func (c *collector) over(e plan.Expr, in arrow.RecordBatch) (arrow.Array, error) {
	o, ok := plan.Unalias(e).(*plan.Over)
	if !ok {
		return nil, internalError("window entry `%s` is not an over()", e)
	}
	call, ok := plan.Unalias(o.Agg).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 1 {
		return nil, internalError("`%s` is not an aggregate call", o.Agg)
	}
	var arg arrow.Array
	if len(call.Args) == 1 {
		var err error
		if arg, err = c.evalExpr(call.Args[0], in); err != nil {
			return nil, err
		}
		defer arg.Release()
	}
	keys, err := c.evalExprs(o.PartitionBy, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var ids, first []int32
	groups := 1
	if len(keys) == 0 {
		ids = ops.OneGroup(int(in.NumRows()))
	} else {
		if ids, first, err = ops.GroupIDs(keys); err != nil {
			return nil, internalError("%v", err)
		}
		groups = len(first)
	}
	per, err := ops.Aggregate(c.mem, call.Fn, call.String(), arg, ids, groups)
	if err != nil {
		return nil, opsError(err)
	}
	defer per.Release()
	out, err := ops.Broadcast(c.mem, per, ids)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}
