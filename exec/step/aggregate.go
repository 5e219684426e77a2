package step

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// aggregate groups the input by its keys (groups in first-appearance order;
// with no keys exactly one group, also over no rows) and computes each
// aggregate per group. Order of evaluation: every key over all rows, in
// list order; then, per aggregate in list order, its argument over all rows
// and its reduction. An input that is most of a larger batch's rows (a
// filter's output) may be read through its selection (selectedInput).
func (e *Env) aggregate(n *plan.AggregateNode, f *Frame) (*Frame, error) {
	if base, sel, ok := e.selectedInput(n, f); ok {
		defer base.Release()
		return e.aggregateOver(n, base, sel)
	}
	in, err := e.exprBatch(f, append(append([]plan.Expr(nil), n.Keys...), n.Aggs...))
	if err != nil {
		return nil, err
	}
	defer in.Release()
	return e.aggregateOver(n, in, nil)
}

// aggregateOver is aggregate over the rows of in, or, with sel not nil,
// over rows sel of in.
func (e *Env) aggregateOver(n *plan.AggregateNode, in arrow.RecordBatch, sel []int32) (*Frame, error) {
	var keys []arrow.Array
	var g *ops.Grouping
	var err error
	if sel == nil {
		keys, g, err = e.group(n.Keys, in, true)
	} else {
		keys, g, err = e.groupSelected(n.Keys, in, sel)
	}
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	defer g.Close()
	first := g.First
	if sel != nil {
		first = make([]int32, len(g.First))
		for i, r := range g.First {
			first[i] = sel[r]
		}
	}
	cols := make([]arrow.Array, 0, len(keys)+len(n.Aggs))
	defer func() { releaseAll(cols) }()
	for _, k := range keys {
		kc, err := e.take(k, first)
		if err != nil {
			return nil, err
		}
		cols = append(cols, kc)
	}
	aggCols, err := e.reduceAll(n.Aggs, in, sel, g)
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

// aggregateSelection enables selectedInput; tests turn it off to compare
// the two ways.
var aggregateSelection = true

// selMinShare is the least share, in 1/4ths, of its batch's rows a
// selection must keep for an aggregate to read through it: below it,
// evaluating the arguments over every row of the batch costs more than
// gathering the kept ones.
const selMinShare = 3

// selectedInput returns, when the aggregate may read f through a
// selection, a batch of the columns its keys and arguments read and the
// rows of it that are f's (sel, in f's order). That is when there is no
// memory limit, every key is a plain column, every argument is total
// (plan.Total, trusting only the language: it raises on no rows) and
// deterministic, every column read is a gather of one batch through one
// index vector with no null row, and that vector keeps at least
// selMinShare/4 of the batch. Then the arguments are evaluated over all of
// the batch's rows, which raises nothing and yields the kept rows' values
// at sel, the keys and the arguments the aggregate reduces are read at sel
// (ops.GroupSelected, ops.AggregateFused) or gathered, and no column is
// gathered before that: TPC-H Q1 keeps 98% of its rows and gathered seven
// columns of them.
func (e *Env) selectedInput(n *plan.AggregateNode, f *Frame) (arrow.RecordBatch, []int32, bool) {
	if !aggregateSelection || e.budget != nil || len(n.Keys) == 0 || f.rec != nil {
		return nil, nil, false
	}
	for _, k := range n.Keys {
		if _, ok := isPlainColumn(k); !ok {
			return nil, nil, false
		}
	}
	for _, a := range n.Aggs {
		c, ok := plan.Unalias(a).(*plan.Call)
		if !ok {
			return nil, nil, false
		}
		if len(c.Args) > 0 && (!plan.IsDeterministic(c.Args[0]) || !plan.Total(c.Args[0], f.schema, plan.TrustLanguage)) {
			return nil, nil, false
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, x := range append(append([]plan.Expr(nil), n.Keys...), n.Aggs...) {
		for _, name := range plan.Columns(x) {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	var sel []int32
	fields := make([]arrow.Field, 0, len(names))
	cols := make([]arrow.Array, 0, len(names))
	for _, name := range names {
		arr, rows, ok := e.gatheredColumn(f, name, sel, cols)
		if !ok {
			return nil, nil, false
		}
		sel = rows
		fld, _ := f.schema.Lookup(name)
		dt, err := kernel.ArrowType(fld.Type)
		if err != nil || !arrow.TypeEqual(dt, arr.DataType()) {
			return nil, nil, false
		}
		// The batch's rows are not all f's: a column f holds without
		// nulls may have some in the other rows.
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: true})
		cols = append(cols, arr)
	}
	if len(cols) == 0 || 4*len(sel) < selMinShare*cols[0].Len() {
		return nil, nil, false
	}
	for _, r := range sel {
		if r < 0 {
			return nil, nil, false
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len())), sel, true
}

// gatheredColumn returns column name of f when f holds it as a gather of
// a base column: the base and the gather's rows, which must be sel (the
// rows of the columns read before it, nil: none read yet), over bases of
// the length of those columns' (read); ok is false otherwise.
func (e *Env) gatheredColumn(f *Frame, name string, sel []int32, read []arrow.Array) (base arrow.Array, rows []int32, ok bool) {
	fc, err := e.col(f, name)
	if err != nil || fc.idx == nil || fc.seq != nil {
		return nil, nil, false
	}
	if sel != nil && !sameRows(sel, fc.idx.rows) {
		return nil, nil, false
	}
	if len(read) > 0 && fc.arr.Len() != read[0].Len() {
		return nil, nil, false
	}
	return fc.arr, fc.idx.rows, true
}

// sameRows reports whether a and b are one index vector (the same
// backing array and length).
func sameRows(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// groupSelected is group for rows sel of in: the keys (plain columns)
// over all rows of in, and the grouping of rows sel of them
// (ops.GroupSelected; no memory limit).
func (e *Env) groupSelected(exprs []plan.Expr, in arrow.RecordBatch, sel []int32) ([]arrow.Array, *ops.Grouping, error) {
	keys, err := e.evalExprs(exprs, in)
	if err != nil {
		return nil, nil, err
	}
	var g *ops.Grouping
	if err = e.CheckCtx(); err == nil {
		if g, err = ops.GroupSelected(e.Mem, keys, sel, e.par); err != nil {
			err = e.opFailure(err)
		}
	}
	if err != nil {
		releaseAll(keys)
		return nil, nil, err
	}
	return keys, g, nil
}

// reduceAll evaluates each aggregate entry's argument over all rows of in
// and reduces it per group of g (over rows sel of the argument when sel
// is not nil), in list order, and returns the columns in list order. The
// float sums and means, lens and counts among them (ops.Fusable) cannot
// fail, so their reductions wait until every other entry is done and then
// run together in one pass (ops.AggregateFused): the results, and the
// error of the first entry that fails, are those of reducing each in
// turn. They are reduced in turn instead when the grouping counts its
// memory (a memory limit: the deferred arguments would be held together)
// and when there are fewer than two, one of them a sum or mean.
func (e *Env) reduceAll(aggs []plan.Expr, in arrow.RecordBatch, sel []int32, g *ops.Grouping) (_ []arrow.Array, err error) {
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
	// Through a selection every argument is total and deterministic: an
	// argument holding an earlier one reads that one's column instead.
	var rewritten []plan.Expr
	var keep []string
	if sel != nil {
		rewritten, keep = shareArgs(aggs)
	}
	cur := in // in, and the kept arguments' columns
	defer func() {
		if cur != in {
			cur.Release()
		}
	}()
	for i, a := range aggs {
		var call *plan.Call
		var arg arrow.Array
		var err error
		if rewritten != nil && rewritten[i] != nil {
			call = plan.Unalias(a).(*plan.Call)
			arg, err = e.evalExpr(rewritten[i], cur)
		} else {
			call, arg, err = e.aggArg(a, cur)
		}
		if err != nil {
			return nil, err
		}
		if keep != nil && keep[i] != "" && arg != nil {
			next := withColumn(cur, keep[i], arg)
			if cur != in {
				cur.Release()
			}
			cur = next
		}
		if canFuse && ops.Fusable(call.Fn, arg) {
			fused = append(fused, i)
			fargs = append(fargs, ops.FusedAgg{Fn: call.Fn, Arg: arg})
			continue
		}
		col, err := e.reduceSel(call, arg, sel, g)
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
			col, err := e.reduceSel(call, fargs[k].Arg, sel, g)
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
	outs, err := g.AggregateFused(e.Mem, fargs, sel, e.par)
	if err != nil {
		return nil, e.opFailure(err)
	}
	for k, i := range fused {
		cols[i] = outs[k]
	}
	return cols, nil
}

// shareArgs finds the aggregate arguments that hold an earlier argument
// as a subexpression (TPC-H Q1: sum(ext * (1 - disc) * (1 + tax)) after
// sum(ext * (1 - disc))): rewritten[k] is argument k with each such
// subexpression replaced by a column named keep[j] (a name no schema has),
// which the caller adds to the batch after evaluating argument j; nil
// when no argument holds another. The values are those of evaluating
// each argument whole when the arguments are deterministic and total.
func shareArgs(aggs []plan.Expr) (rewritten []plan.Expr, keep []string) {
	args := make([]plan.Expr, len(aggs))
	for i, a := range aggs {
		if c, ok := plan.Unalias(a).(*plan.Call); ok && len(c.Args) > 0 {
			if _, isCall := c.Args[0].(*plan.Call); isCall {
				args[i] = c.Args[0]
			}
		}
	}
	rewritten = make([]plan.Expr, len(aggs))
	keep = make([]string, len(aggs))
	found := false
	for k, x := range args {
		if x == nil {
			continue
		}
		y := x
		for j := range k {
			if args[j] == nil {
				continue
			}
			name := fmt.Sprintf("\x00arg%d", j)
			if z, n := replaceSub(y, args[j], name); n > 0 {
				y, keep[j], found = z, name, true
			}
		}
		if y != x {
			rewritten[k] = y
		}
	}
	if !found {
		return nil, nil
	}
	return rewritten, keep
}

// replaceSub replaces each subexpression of x equal to target (through
// calls, casts and aliases) by the column name, and returns the result
// and the number of replacements.
func replaceSub(x, target plan.Expr, name string) (plan.Expr, int) {
	if plan.ExprEqual(x, target) {
		return plan.Col(name).Expr(), 1
	}
	switch x.(type) {
	case *plan.Call, *plan.Cast, *plan.Alias:
	default:
		return x, 0
	}
	kids := x.Children()
	out := make([]plan.Expr, len(kids))
	total := 0
	for i, c := range kids {
		var n int
		out[i], n = replaceSub(c, target, name)
		total += n
	}
	if total == 0 {
		return x, 0
	}
	return x.WithChildren(out), total
}

// withColumn is rec with one more column (retained by the new batch).
func withColumn(rec arrow.RecordBatch, name string, a arrow.Array) arrow.RecordBatch {
	fields := append(append([]arrow.Field(nil), rec.Schema().Fields()...), arrow.Field{Name: name, Type: a.DataType(), Nullable: true})
	cols := append(append([]arrow.Array(nil), rec.Columns()...), a)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// reduceSel is reduce over rows sel of arg (all of them when sel is nil),
// gathered first.
func (e *Env) reduceSel(call *plan.Call, arg arrow.Array, sel []int32, g *ops.Grouping) (arrow.Array, error) {
	if sel == nil || arg == nil {
		return e.reduce(call, arg, g)
	}
	kept, err := e.take(arg, sel)
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	return e.reduce(call, kept, g)
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
