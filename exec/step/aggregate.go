package step

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/kernel"
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
	keys, g, err := e.group(n.Keys, in, true)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	defer g.Close()
	cols := make([]arrow.Array, 0, len(keys)+len(n.Aggs))
	defer func() { releaseAll(cols) }()
	for _, k := range keys {
		kc, err := e.take(k, g.First)
		if err != nil {
			return nil, err
		}
		cols = append(cols, kc)
	}
	aggCols, err := e.reduceAll(n.Aggs, in, g)
	if err != nil {
		return nil, err
	}
	cols = append(cols, aggCols...)
	rec, err := e.conform(n.Schema(), cols, int64(g.Groups()))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return e.FromRecord(n.Schema(), rec)
}

// reduceAll evaluates each aggregate entry's argument over all rows of in
// and reduces it per group of g, in list order, and returns the columns
// in list order. The float sums and means, lens and counts among them
// (ops.Fusable) cannot fail, so their reductions wait until every other
// entry is done and then run together in one pass (ops.AggregateFused):
// the results, and the error of the first entry that fails, are those of
// reducing each in turn. They are reduced in turn instead when the
// grouping counts its memory (a memory limit: the deferred arguments
// would be held together) and when there are fewer than two, one of
// them a sum or mean.
func (e *Env) reduceAll(aggs []plan.Expr, in arrow.RecordBatch, g *ops.Grouping) (_ []arrow.Array, err error) {
	cols := make([]arrow.Array, len(aggs))
	var fused []int // the entries deferred
	var fargs []ops.FusedAgg
	defer func() {
		for _, f := range fargs {
			if f.Arg != nil {
				f.Arg.Release()
			}
		}
		if err != nil {
			releaseAll(cols)
		}
	}()
	canFuse := g.Fusable()
	for i, a := range aggs {
		call, arg, err := e.aggArg(a, in)
		if err != nil {
			return nil, err
		}
		if canFuse && ops.Fusable(call.Fn, arg) {
			fused = append(fused, i)
			fargs = append(fargs, ops.FusedAgg{Fn: call.Fn, Arg: arg})
			continue
		}
		col, err := e.reduce(call, arg, g)
		if arg != nil {
			arg.Release()
		}
		if err != nil {
			return nil, err
		}
		cols[i] = col
	}
	sums := 0
	for _, f := range fargs {
		if f.Fn == plan.FuncSum || f.Fn == plan.FuncMean {
			sums++
		}
	}
	if len(fused) < 2 || sums == 0 {
		for k, i := range fused {
			call := plan.Unalias(aggs[i]).(*plan.Call)
			col, err := e.reduce(call, fargs[k].Arg, g)
			if err != nil {
				return nil, err
			}
			cols[i] = col
		}
		return cols, nil
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	outs, err := g.AggregateFused(e.Mem, fargs, e.par)
	if err != nil {
		return nil, e.opFailure(err)
	}
	for k, i := range fused {
		cols[i] = outs[k]
	}
	return cols, nil
}

// take gathers rows idx of a (-1 gives a null), checking the result's
// bytes against the memory limit first.
func (e *Env) take(a arrow.Array, idx []int32) (arrow.Array, error) {
	if e.budget != nil {
		if err := e.budget.Fits(ops.TakeBytes(a, idx), "a gathered column"); err != nil {
			return nil, e.exhausted(err)
		}
	}
	out, err := ops.TakeParallel(e.Mem, a, idx, e.par)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// group evaluates the key expressions over all rows of in, in list
// order, and groups the rows by them (nulls group together, all NaNs are
// one key, -0.0 and +0.0 are one key): the evaluated keys (the caller
// releases them) and the grouping (the caller closes it), whose groups
// are in first-appearance order. With no keys every row is in one group,
// also over no rows. Under a memory limit a grouping that does not fit
// spills when canSpill allows it (an aggregate) and fails with
// resource_exhausted otherwise (a window, which needs every row's group).
func (e *Env) group(exprs []plan.Expr, in arrow.RecordBatch, canSpill bool) (keys []arrow.Array, g *ops.Grouping, err error) {
	if keys, err = e.evalExprs(exprs, in); err != nil {
		return nil, nil, err
	}
	if err = e.CheckCtx(); err == nil {
		if len(keys) == 0 {
			g, err = ops.OneGrouping(e.spill(), int(in.NumRows()))
		} else {
			g, err = ops.GroupLimited(e.spill(), keys, e.par, canSpill)
		}
		if err != nil {
			err = e.opFailure(err)
		}
	}
	if err != nil {
		releaseAll(keys)
		return nil, nil, err
	}
	return keys, g, nil
}

// aggArg unpacks an aggregate entry (an aggregate call, possibly aliased)
// and evaluates its argument over all rows of in (nil for len()); a
// second argument is a literal parameter (quantile's q, var's and std's
// ddof), which reduce reads.
func (e *Env) aggArg(x plan.Expr, in arrow.RecordBatch) (*plan.Call, arrow.Array, error) {
	call, ok := plan.Unalias(x).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 2 || len(call.Args) == 2 && !hasParam(call.Fn) {
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
func (e *Env) reduce(call *plan.Call, arg arrow.Array, g *ops.Grouping) (arrow.Array, error) {
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	agg, err := ops.AggOf(call)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	out, err := g.Aggregate(e.Mem, agg, plan.Written(call), arg, e.par)
	if err != nil {
		return nil, e.opFailure(err)
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
	// The temporaries are appended to a flat frame (they leave with the
	// owner, which drops them).
	f, err := e.flat(f)
	if err != nil {
		return nil, err
	}
	defer f.Release()
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
	if c, ok := plan.Unalias(o.Agg).(*plan.Call); ok && c.Fn.IsWindow() {
		return e.windowFunc(o, c, in)
	}
	call, arg, err := e.aggArg(o.Agg, in)
	if err != nil {
		return nil, err
	}
	if arg != nil {
		defer arg.Release()
	}
	keys, g, err := e.group(o.PartitionBy, in, false)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	defer g.Close()
	per, err := e.reduce(call, arg, g)
	if err != nil {
		return nil, err
	}
	defer per.Release()
	return e.take(per, g.IDs) // broadcast
}

// hasParam reports whether the aggregate f takes a literal parameter as
// its second argument.
func hasParam(f plan.Func) bool {
	return f == plan.FuncQuantile || f == plan.FuncVar || f == plan.FuncStd
}

// windowFunc computes one window function over() (docs/semantics.md,
// Window functions and ordered windows): its argument over all rows, then
// its partition keys, then its order keys, each over all rows in list
// order; the rows are grouped by the partition keys, put in window order
// by one stable sort on the order keys (a partition's rows then appear in
// its window order), and the function runs over that order, its values
// landing on the input rows.
func (e *Env) windowFunc(o *plan.Over, c *plan.Call, in arrow.RecordBatch) (arrow.Array, error) {
	spec := ops.WindowSpec{Fn: c.Fn, ExprText: plan.Written(c)}
	var arg arrow.Array
	if len(c.Args) > 0 {
		var err error
		if arg, err = e.evalExpr(c.Args[0], in); err != nil {
			return nil, err
		}
		defer arg.Release()
	}
	switch c.Fn {
	case plan.FuncRank:
		m, err := plan.RankMethod(c)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		spec.Rank = m
	case plan.FuncShift:
		t := plan.Invalid
		if len(c.Args) == 3 {
			if l, ok := plan.Unalias(c.Args[2]).(*plan.Literal); ok {
				t = l.Value.Type()
			}
		}
		n, def, err := plan.ShiftParams(c, t)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		spec.Shift = n
		if !def.IsNull() {
			d, err := kernel.ArrayFromValues(e.Mem, t, []plan.Value{def})
			if err != nil {
				return nil, e.Internal("shift default: %v", err)
			}
			defer d.Release()
			spec.Default = d
		}
	}
	keys, g, err := e.group(o.PartitionBy, in, false)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	defer g.Close()
	var order []int32
	if len(o.OrderBy) > 0 {
		exprs := make([]plan.Expr, len(o.OrderBy))
		desc := make([]bool, len(o.OrderBy))
		nullsLast := make([]bool, len(o.OrderBy))
		for i, k := range o.OrderBy {
			exprs[i], desc[i], nullsLast[i] = k.Expr, k.Desc, k.NullsLast
		}
		okeys, err := e.evalExprs(exprs, in)
		if err != nil {
			return nil, err
		}
		defer releaseAll(okeys)
		if err := e.CheckCtx(); err != nil {
			return nil, err
		}
		work := in.NumRows() * (40 + 8*int64(len(okeys)))
		if err := e.reserve(work, "the window's order"); err != nil {
			return nil, err
		}
		order, err = ops.SortIndices(okeys, desc, nullsLast)
		e.release(work)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
	}
	if g.IDs == nil && in.NumRows() > 0 {
		return nil, e.Internal("window: the partition ids were spilled")
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	out, err := ops.Window(e.Mem, spec, arg, g.IDs, g.Groups(), order)
	if err != nil {
		return nil, e.opFailure(err)
	}
	return out, nil
}
