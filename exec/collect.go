package exec

import (
	"context"
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
	f, err := c.eval(resolved)
	if err != nil {
		return nil, err
	}
	defer f.release()
	out, err := c.materialize(f)
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

// eval returns the output of n as a frame the caller owns. Children
// evaluate in order, left before right, before the node itself; a
// deterministic subtree Equal to one already evaluated in this collect is
// served from the memo (one hit) without descending into it.
func (c *collector) eval(n plan.Node) (*frame, error) {
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	shared := c.memo.isShared(n)
	if shared {
		if f := c.memo.lookup(n); f != nil {
			c.hits++
			return f, nil
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
func (c *collector) evalChildren(children []plan.Node) ([]*frame, error) {
	out := make([]*frame, 0, len(children))
	for _, ch := range children {
		f, err := c.eval(ch)
		if err != nil {
			releaseFrames(out)
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func releaseFrames(fs []*frame) {
	for _, f := range fs {
		f.release()
	}
}

// evalNode evaluates n's children, then n.
func (c *collector) evalNode(n plan.Node) (*frame, error) {
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
	defer releaseFrames(inputs)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	var out *frame
	switch n := n.(type) {
	case *plan.ScanNode:
		out, err = c.scanFrame(n)
	case *plan.FilterNode:
		out, err = c.filter(n, inputs[0])
	case *plan.ProjectNode:
		out, err = c.project(n, inputs[0])
	case *plan.WithColumnsNode:
		out, err = c.withColumns(n, inputs[0])
	case *plan.SortNode:
		out, err = c.sort(n, inputs[0], -1)
	case *plan.LimitNode:
		out = inputs[0].slice(n.Schema(), 0, n.N)
	case *plan.SliceNode:
		out = inputs[0].slice(n.Schema(), n.Offset, n.Len)
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
func (c *collector) evalTopK(l *plan.LimitNode, s *plan.SortNode) (*frame, error) {
	in, err := c.eval(s.Input)
	if err != nil {
		return nil, err
	}
	defer in.release()
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
	defer sorted.release()
	if c.onEval != nil {
		c.onEval(l)
	}
	return sorted.slice(l.Schema(), 0, l.N), nil
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
