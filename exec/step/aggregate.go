package step

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// aggregate groups the input by its keys (groups in first-appearance order;
// with no keys exactly one group, also over no rows) and computes each
// aggregate per group. Order of evaluation: every key over all rows, in
// list order; then, per aggregate in list order, its argument over all rows
// and its reduction.
func (e *Env) aggregate(n *plan.AggregateNode, f *Frame) (*Frame, error) {
	in, err := e.exprBatch(f, append(append([]plan.Expr(nil), n.Keys...), n.Aggs...))
	if err != nil {
		return nil, err
	}
	defer in.Release()
	keys, ids, first, groups, err := e.groupBy(n.Keys, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	cols := make([]arrow.Array, 0, len(keys)+len(n.Aggs))
	defer func() { releaseAll(cols) }()
	for _, k := range keys {
		kc, err := ops.TakeParallel(e.Mem, k, first, e.par)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		cols = append(cols, kc)
	}
	for _, a := range n.Aggs {
		call, arg, err := e.aggArg(a, in)
		if err != nil {
			return nil, err
		}
		col, err := e.reduce(call, arg, ids, groups)
		if arg != nil {
			arg.Release()
		}
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	rec, err := e.conform(n.Schema(), cols, int64(groups))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return e.FromRecord(n.Schema(), rec)
}

// groupBy evaluates the key expressions over all rows of in, in list
// order, and groups the rows by them (nulls group together, all NaNs are
// one key, -0.0 and +0.0 are one key): the evaluated keys (the caller
// releases them), the group of every row, the first row of every group
// (nil without keys) and the number of groups. With no keys every row is in
// one group, also over no rows.
func (e *Env) groupBy(exprs []plan.Expr, in arrow.RecordBatch) (keys []arrow.Array, ids, first []int32, groups int, err error) {
	if keys, err = e.evalExprs(exprs, in); err != nil {
		return nil, nil, nil, 0, err
	}
	if err = e.CheckCtx(); err == nil {
		if len(keys) == 0 {
			return keys, ops.OneGroup(int(in.NumRows())), nil, 1, nil
		}
		if ids, first, err = ops.GroupIDsParallel(e.Mem, keys, e.par); err != nil {
			err = e.Internal("%v", err)
		}
	}
	if err != nil {
		releaseAll(keys)
		return nil, nil, nil, 0, err
	}
	return keys, ids, first, len(first), nil
}

// aggArg unpacks an aggregate entry (an aggregate call, possibly aliased)
// and evaluates its argument over all rows of in (nil for len()).
func (e *Env) aggArg(x plan.Expr, in arrow.RecordBatch) (*plan.Call, arrow.Array, error) {
	call, ok := plan.Unalias(x).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 1 {
		return nil, nil, e.Internal("`%s` is not an aggregate call", x)
	}
	if len(call.Args) == 0 {
		return call, nil, nil
	}
	arg, err := e.evalExpr(call.Args[0], in)
	if err != nil {
		return nil, nil, err
	}
	return call, arg, nil
}

// reduce reduces an evaluated aggregate argument per group.
func (e *Env) reduce(call *plan.Call, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	out, err := ops.AggregateParallel(e.Mem, call.Fn, call.String(), arg, ids, groups, e.par)
	if err != nil {
		return nil, e.opsError(err)
	}
	return out, nil
}

// window appends one column per over() (in list order): the aggregate's
// argument is evaluated over all rows, then the partition keys in order
// (the operands of `agg.over(keys)` left to right), then the rows are
// grouped by the keys (nulls group together, all NaNs are one key, -0.0 and
// +0.0 are one key), the aggregate reduces each partition, and its value is
// broadcast back to the partition's rows.
func (e *Env) window(n *plan.WindowNode, f *Frame) (*Frame, error) {
	in, err := e.exprBatch(f, n.Exprs)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	var computed []arrow.Array
	defer func() { releaseAll(computed) }()
	for _, x := range n.Exprs {
		col, err := e.over(x, in)
		if err != nil {
			return nil, err
		}
		computed = append(computed, col)
	}
	if len(f.cols)+len(computed) != n.Schema().Len() {
		return nil, e.Internal("window produced %d columns, its schema has %d", len(f.cols)+len(computed), n.Schema().Len())
	}
	temps, err := plan.NewSchema(n.Schema().Fields()[len(f.cols):]...)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	if err := CheckColumns(temps, computed, int64(f.rows)); err != nil {
		return nil, e.Internal("%v", err)
	}
	out := f.Share(n.Schema())
	if out.rec != nil {
		// The record does not hold the appended columns.
		out.rec.Release()
		out.rec = nil
	}
	for _, a := range computed {
		a.Retain()
		out.cols = append(out.cols, fcol{arr: a})
	}
	return out, nil
}

// over computes one window column.
func (e *Env) over(x plan.Expr, in arrow.RecordBatch) (arrow.Array, error) {
	o, ok := plan.Unalias(x).(*plan.Over)
	if !ok {
		return nil, e.Internal("window entry `%s` is not an over()", x)
	}
	call, arg, err := e.aggArg(o.Agg, in)
	if err != nil {
		return nil, err
	}
	if arg != nil {
		defer arg.Release()
	}
	keys, ids, _, groups, err := e.groupBy(o.PartitionBy, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	per, err := e.reduce(call, arg, ids, groups)
	if err != nil {
		return nil, err
	}
	defer per.Release()
	out, err := ops.TakeParallel(e.Mem, per, ids, e.par) // broadcast
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}
