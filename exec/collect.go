package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/exec/internal/par"
	"github.com/dfopt/dfopt/exec/step"
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
	if opts.MemoryLimit < 0 {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: fmt.Sprintf("collect: negative memory limit %d", opts.MemoryLimit)}
	}
	mem := opts.Mem
	var budget *memlimit.Budget
	if opts.MemoryLimit > 0 {
		if mem == nil {
			mem = memory.DefaultAllocator
		}
		budget = memlimit.New(opts.MemoryLimit, opts.SpillDir)
		mem = budget.Allocator(mem)
		if budgetHook != nil {
			budgetHook(budget)
		}
		defer func() {
			// The spill directory goes whatever happened; failing to
			// remove it fails a collect that otherwise succeeded.
			if cerr := budget.Cleanup(); cerr != nil && err == nil {
				res.Release()
				res = nil
				pe := &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "executor: " + cerr.Error(), Err: cerr}
				err = pe
			}
		}()
	}
	env := step.NewEnv(plan.WithCallCounter(ctx), mem, opts.Extensions, "executor").WithParallel(opts.parallel()).WithBudget(budget).WithFilterStageRows(opts.FilterStageRows)
	if err := env.CheckCtx(); err != nil {
		return nil, err
	}
	resolved, err := plan.Resolve(root)
	if err != nil {
		return nil, step.Locate(err, "", "")
	}
	c := &collector{
		env:    env,
		onEval: opts.OnEvaluate,
		memo:   newMemo(resolved),
		tables: step.NewTables(),
		root:   resolved,
	}
	defer c.close()
	defer func() {
		if r := recover(); r != nil {
			res = nil
			pe := env.Internal("internal error")
			pe.Err = par.Recovered("collect", r)
			err = pe
		}
	}()
	f, err := c.eval(resolved)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	out, err := env.Materialize(f)
	if err != nil {
		return nil, c.locate(err, resolved)
	}
	res = &Result{Record: out, Schema: resolved.Schema(), MemoHits: c.hits}
	if budget != nil {
		files, bytes := budget.Spilled()
		res.Memory = MemoryStats{Peak: budget.Peak(), SpillFiles: files, SpillBytes: bytes}
	}
	return res, nil
}

// budgetHook, when set (by tests), receives the budget of every collect
// under a memory limit, so a test can check that the collect gave back
// every reservation.
var budgetHook func(*memlimit.Budget)

// collector is the state of one collect: the plan walk, the memo and the
// sources. Node semantics are package step's.
type collector struct {
	env    *step.Env
	onEval func(plan.Node)
	memo   *memo
	hits   int
	// tables caches the Arrow form of in-memory plan tables.
	tables *step.Tables
	// hinted holds the scans whose max-rows hint a limit or slice being
	// evaluated allows (plan.HintedScan): only those give their source the
	// hint, so a hinted scan nothing bounds is read whole.
	hinted map[*plan.ScanNode]bool
	// tails holds, per scan directly under a tail being evaluated, the
	// tail's n: the scan keeps only the last n rows its source produces
	// while it reads (a ring of batches), so a tail holds O(n) rows.
	tails map[*plan.ScanNode]int64
	// keyFilters holds, per scan directly under a join being evaluated,
	// the runtime key filters the join's left input allows (keyfilter.go).
	keyFilters map[*plan.ScanNode][]KeyFilter
	// root is the resolved plan, and valueIndexes the fingerprints of its
	// row_index nodes whose column's values matter (keyfilter.go; nil
	// until a join asks).
	root         plan.Node
	valueIndexes map[uint64]bool
}

// allowTail records that the tail n, about to be evaluated, reads a scan
// that nothing else shares: that scan may keep only the last n rows of
// its source's output as it reads them (collector.scan decides whether
// nothing it must apply itself needs the others).
func (c *collector) allowTail(n plan.Node) {
	t, ok := n.(*plan.TailNode)
	if !ok {
		return
	}
	s, ok := t.Input.(*plan.ScanNode)
	if !ok || c.memo.entry(s) != nil {
		return
	}
	if c.tails == nil {
		c.tails = map[*plan.ScanNode]int64{}
	}
	c.tails[s] = max(t.N, 0)
}

// allowHint records that the limit or slice n, about to be evaluated,
// reads at most as many rows as the max-rows hint of the scan below it, if
// any: that scan's source may stop early.
func (c *collector) allowHint(n plan.Node) {
	var keep int64
	var input plan.Node
	switch n := n.(type) {
	case *plan.LimitNode:
		keep, input = n.N, n.Input
	case *plan.SliceNode:
		keep, input = n.Offset+n.Len, n.Input
		if n.Len < 0 || keep < n.Offset {
			return // the slice reaches to the end, or past every int64 row count
		}
	default:
		return
	}
	if s, ok := plan.HintedScan(input); ok && keep <= s.MaxRows {
		if c.hinted == nil {
			c.hinted = map[*plan.ScanNode]bool{}
		}
		c.hinted[s] = true
	}
}

// maxRows is the max-rows hint a scan's source is given: the scan's own
// when a limit or slice above allows it (allowHint), else -1 (none).
func (c *collector) maxRows(n *plan.ScanNode) int64 {
	if n.HasMaxRows && c.hinted[n] {
		return n.MaxRows
	}
	return -1
}

func (c *collector) close() {
	c.memo.release()
	c.tables.Release()
}

// locate names the node at fault in an error that names none yet (the
// executor's errors carry the node's label, not its path).
func (c *collector) locate(err error, n plan.Node) error {
	return step.Locate(err, n.Label(), "")
}

// eval returns the output of n as a frame the caller owns. Children
// evaluate in order, left before right, before the node itself; a
// deterministic subtree Equal to one already evaluated in this collect is
// served from the memo (one hit) without descending into it.
func (c *collector) eval(n plan.Node) (*step.Frame, error) {
	if err := c.env.CheckCtx(); err != nil {
		return nil, err
	}
	shared := c.memo.entry(n)
	if shared != nil && shared.out != nil {
		c.hits++
		return shared.out.Share(shared.out.Schema()), nil
	}
	out, err := c.evalNode(n)
	if err == nil {
		// Under a memory limit: the node's output is held now, its inputs
		// are released; more than the limit fails here, naming the node.
		if err = c.env.CheckMemory(); err != nil {
			out.Release()
		}
	}
	if err != nil {
		return nil, c.locate(err, n)
	}
	if shared != nil {
		shared.out = out.Share(out.Schema())
	}
	return out, nil
}

// evalChildren evaluates the inputs of n in order; on failure it releases
// what it evaluated.
func (c *collector) evalChildren(children []plan.Node) ([]*step.Frame, error) {
	out := make([]*step.Frame, 0, len(children))
	for _, ch := range children {
		f, err := c.eval(ch)
		if err != nil {
			step.ReleaseFrames(out)
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// evalNode evaluates n's children, then n: a scan reads its source here,
// every other node is step.Eval.
func (c *collector) evalNode(n plan.Node) (*step.Frame, error) {
	// A sort directly under a limit keeps only the first rows: evaluate it
	// as a top-k when the sort's own result is not needed by the memo.
	if l, ok := n.(*plan.LimitNode); ok {
		if s, ok := l.Input.(*plan.SortNode); ok && c.memo.entry(s) == nil {
			return c.evalTopK(l, s)
		}
	}
	if j, ok := n.(*plan.JoinNode); ok {
		if f, err, ok := c.evalKeyFiltered(j); ok {
			return f, err
		}
	}
	c.allowHint(n)
	c.allowTail(n)
	inputs, err := c.evalChildren(n.Children())
	if err != nil {
		return nil, err
	}
	defer step.ReleaseFrames(inputs)
	if err := c.env.CheckCtx(); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	if s, ok := n.(*plan.ScanNode); ok {
		return c.scan(s)
	}
	if j, ok := n.(*plan.JoinNode); ok {
		if p, done := c.memo.pairs(j); p != nil {
			defer done()
			return step.JoinShared(c.env, j, inputs[0], inputs[1], p)
		}
	}
	return step.Eval(c.env, n, inputs)
}

// evalTopK evaluates limit(sort(x)) as the first rows of the sort, sorting
// only what the limit keeps. The sort node is reported to OnEvaluate like
// any evaluated node.
func (c *collector) evalTopK(l *plan.LimitNode, s *plan.SortNode) (*step.Frame, error) {
	in, err := c.eval(s.Input)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	if err := c.env.CheckCtx(); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(s)
	}
	sorted, err := step.TopK(c.env, s, in, l.N)
	if err != nil {
		return nil, c.locate(err, s)
	}
	defer sorted.Release()
	if c.onEval != nil {
		c.onEval(l)
	}
	return sorted.Slice(l.Schema(), 0, l.N), nil
}
