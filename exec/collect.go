package exec

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// Collect resolves root, evaluates it over Arrow and returns the rows. Every
// failure — resolution, evaluation, a source, cancellation — is returned as
// a *plan.Error; on failure nothing allocated by the collect stays alive.
// The caller releases the Result.
func Collect(ctx context.Context, root plan.Node, opts Options) (res *Result, err error) {
	if root == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "collect: no plan"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	resolved, err := plan.Resolve(root)
	if err != nil {
		return nil, atNode(err, nil)
	}
	c := &collector{
		ctx:    plan.WithCallCounter(ctx),
		mem:    opts.mem(),
		exts:   opts.extensions(),
		onEval: opts.OnEvaluate,
		memo:   newMemo(resolved),
		tables: map[*plan.Table]arrow.RecordBatch{},
	}
	c.ev = &kernel.Evaluator{Mem: c.mem}
	defer c.close()
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = internalError("panic: %v\n%s", r, debug.Stack())
		}
	}()
	rec, err := c.eval(resolved)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out, err := recolumn(resolved.Schema(), rec)
	if err != nil {
		return nil, atNode(err, resolved)
	}
	return &Result{Record: out, Schema: resolved.Schema(), MemoHits: c.hits}, nil
}

// collector is the state of one collect.
type collector struct {
	ctx    context.Context
	mem    memory.Allocator
	ev     *kernel.Evaluator
	exts   *Extensions
	onEval func(plan.Node)
	memo   *memo
	hits   int
	// tables caches the Arrow form of in-memory plan tables.
	tables map[*plan.Table]arrow.RecordBatch
}

func (c *collector) close() {
	c.memo.release()
	for _, r := range c.tables {
		r.Release()
	}
	c.tables = nil
}

// eval returns the output of n as one batch the caller owns. Children
// evaluate in order, left before right, before the node itself; a
// deterministic subtree Equal to one already evaluated in this collect is
// served from the memo (one hit) without descending into it.
func (c *collector) eval(n plan.Node) (arrow.RecordBatch, error) {
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	shared := c.memo.isShared(n)
	if shared {
		if rec := c.memo.lookup(n); rec != nil {
			c.hits++
			rec.Retain()
			return rec, nil
		}
	}
	out, err := c.evalNode(n)
	if err != nil {
		return nil, atNode(err, n)
	}
	if shared {
		c.memo.store(n, out)
	}
	return out, nil
}

// evalChildren evaluates the inputs of n in order; on failure it releases
// what it evaluated.
func (c *collector) evalChildren(children []plan.Node) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, 0, len(children))
	for _, ch := range children {
		rec, err := c.eval(ch)
		if err != nil {
			releaseBatches(out)
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// evalNode evaluates n's children, then n.
func (c *collector) evalNode(n plan.Node) (arrow.RecordBatch, error) {
	// A sort directly under a limit keeps only the first rows: evaluate it
	// as a top-k when the sort's own result is not needed by the memo.
	if l, ok := n.(*plan.LimitNode); ok {
		if s, ok := l.Input.(*plan.SortNode); ok && !c.memo.isShared(s) {
			return c.evalTopK(l, s)
		}
	}
	inputs, err := c.evalChildren(n.Children())
	if err != nil {
		return nil, err
	}
	defer releaseBatches(inputs)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	var out arrow.RecordBatch
	switch n := n.(type) {
	case *plan.ScanNode:
		out, err = c.scan(n)
	case *plan.FilterNode:
		out, err = c.filter(n, inputs[0])
	case *plan.ProjectNode:
		out, err = c.project(n, inputs[0])
	case *plan.WithColumnsNode:
		out, err = c.withColumns(n, inputs[0])
	case *plan.SortNode:
		out, err = c.sort(n, inputs[0], -1)
	case *plan.LimitNode:
		out, err = c.slice(n.Schema(), inputs[0], 0, n.N)
	case *plan.SliceNode:
		out, err = c.slice(n.Schema(), inputs[0], n.Offset, n.Len)
	case *plan.AggregateNode:
		out, err = c.aggregate(n, inputs[0])
	case *plan.JoinNode:
		out, err = c.join(n, inputs[0], inputs[1])
	case *plan.UnionNode:
		out, err = c.union(n, inputs)
	case *plan.DistinctNode:
		out, err = c.distinct(n, inputs[0])
	case *plan.WindowNode:
		out, err = c.window(n, inputs[0])
	case *plan.ExtensionNode:
		out, err = c.extension(n, inputs)
	default:
		err = internalError("unknown node type %T", n)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, internalError("%s produced no result", n.Kind())
	}
	return out, nil
}

// evalTopK evaluates limit(sort(x)) as the first rows of the sort, sorting
// only what the limit keeps. The sort node is reported to OnEvaluate like
// any evaluated node.
func (c *collector) evalTopK(l *plan.LimitNode, s *plan.SortNode) (arrow.RecordBatch, error) {
	in, err := c.eval(s.Input)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(s)
	}
	sorted, err := c.sort(s, in, l.N)
	if err != nil {
		return nil, atNode(err, s)
	}
	defer sorted.Release()
	if c.onEval != nil {
		c.onEval(l)
	}
	return c.slice(l.Schema(), sorted, 0, l.N)
}

// evalExprs evaluates exprs over rec in list order, each over all rows; on
// failure it releases what it evaluated.
func (c *collector) evalExprs(exprs []plan.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(exprs))
	for _, e := range exprs {
		a, err := c.evalExpr(e, rec)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// evalExpr evaluates one scalar expression over every row of rec (one
// evaluator call, so a non-deterministic UDF sees the rows in order).
func (c *collector) evalExpr(e plan.Expr, rec arrow.RecordBatch) (arrow.Array, error) {
	a, err := c.ev.Eval(c.ctx, e, rec, 0)
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

// columnByName returns rec's column called name.
func columnByName(rec arrow.RecordBatch, name string) (arrow.Array, error) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		return nil, internalError("input has no single column %q", name)
	}
	return rec.Column(idx[0]), nil
}

var _ = fmt.Sprintf
