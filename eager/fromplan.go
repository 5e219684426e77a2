package eager

import (
	"context"
	"runtime/debug"

	"github.com/dfopt/dfopt/plan"
)

// FromPlan evaluates a plan tree eagerly in a new session:
// NewSession(ctx, opts).FromPlan(node).
func FromPlan(ctx context.Context, node plan.Node, opts Options) (*DataFrame, error) {
	return NewSession(ctx, opts).FromPlan(node)
}

// FromPlan evaluates a plan tree (resolved or not) step by step, without
// plan.Resolve: first every node is type-checked bottom-up, children left
// before right (the order of plan.Resolve), so a resolve-time error anywhere
// is reported before anything is evaluated, as by the executor; then every
// node is evaluated, children left before right, as an eager operation on
// its children's frames. A subtree that appears twice is evaluated twice
// (there is no memo). Errors are *plan.Error values naming the node (its
// label) and its path in plan-file syntax.
//
// A resolved tree's synthesized window nodes are evaluated as Window, and a
// with_columns directly over a window node passes through only the
// window's input columns (plan.WindowNode). Scans read *plan.Table sources
// directly and any other source through Options.Scan or Scanner.
func (s *Session) FromPlan(node plan.Node) (out *DataFrame, err error) {
	tables := tableCache{}
	defer tables.release()
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, internalError("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	w := &walker{tables: tables}
	root, err := w.check(node, "plan")
	if err != nil {
		return nil, err
	}
	return s.evaluate(root)
}

// checked is a node whose check passed: its step and its checked children.
type checked struct {
	label string
	path  string
	kids  []*checked
	step  step
}

// walker carries the state of one FromPlan's check pass.
type walker struct {
	tables tableCache
}

// childPath names the i-th child of n in plan-file syntax, as plan.Resolve
// does.
func childPath(p string, n plan.Node, i int, count int) string {
	switch n.(type) {
	case *plan.JoinNode:
		if i == 0 {
			return p + ".left"
		}
		return p + ".right"
	case *plan.UnionNode:
		return field(p, "inputs", i)
	case *plan.ExtensionNode:
		if count != 1 {
			return field(p, "inputs", i)
		}
	}
	return p + ".input"
}

// check type-checks n's subtree bottom-up and returns its steps.
func (w *walker) check(n plan.Node, p string) (*checked, error) {
	if n == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Path: p, Msg: "missing input node"}
	}
	children := n.Children()
	kids := make([]*checked, len(children))
	for i, c := range children {
		k, err := w.check(c, childPath(p, n, i, len(children)))
		if err != nil {
			if c == nil {
				// A missing input is the parent's fault: name the parent.
				err = located(err, safeLabel(n), p)
			}
			return nil, err
		}
		kids[i] = k
	}
	st, err := w.prepare(n, kids, p)
	if err != nil {
		return nil, located(err, safeLabel(n), p)
	}
	return &checked{label: safeLabel(n), path: p, kids: kids, step: st}, nil
}

// prepare checks one node over its checked children.
func (w *walker) prepare(n plan.Node, kids []*checked, p string) (step, error) {
	in := func(i int) plan.Schema { return kids[i].step.schema() }
	switch n := n.(type) {
	case *plan.ScanNode:
		out, err := checkScan(n, p)
		if err != nil {
			return nil, err
		}
		return &scanStep{node: n, out: out, tables: w.tables}, nil
	case *plan.FilterNode:
		out, err := checkFilter(in(0), n.Predicates, p)
		if err != nil {
			return nil, err
		}
		return &filterStep{preds: n.Predicates, out: out}, nil
	case *plan.ProjectNode:
		return prepareProject(in(0), n.Exprs, p)
	case *plan.WithColumnsNode:
		pass := in(0)
		if _, ok := n.Input.(*plan.WindowNode); ok && !hasOver(n.Exprs) && len(kids[0].kids) == 1 {
			// The temporaries of a window are not passed through.
			pass = kids[0].kids[0].step.schema()
		}
		return prepareWithColumns(in(0), pass, n.Exprs, p)
	case *plan.SortNode:
		out, err := checkSort(in(0), n.Keys, p)
		if err != nil {
			return nil, err
		}
		return &sortStep{keys: n.Keys, out: out}, nil
	case *plan.LimitNode:
		out, err := checkLimit(in(0), n.N, p)
		if err != nil {
			return nil, err
		}
		return &sliceStep{offset: 0, length: n.N, out: out}, nil
	case *plan.SliceNode:
		out, err := checkSlice(in(0), n.Offset, n.Len, p)
		if err != nil {
			return nil, err
		}
		return &sliceStep{offset: n.Offset, length: n.Len, out: out}, nil
	case *plan.AggregateNode:
		out, err := checkAggregate(in(0), n.Keys, n.Aggs, p)
		if err != nil {
			return nil, err
		}
		return &aggregateStep{keys: n.Keys, aggs: n.Aggs, out: out}, nil
	case *plan.JoinNode:
		return prepareJoin(in(0), in(1), n.How, n.LeftOn, n.RightOn, n.Suffix, p)
	case *plan.UnionNode:
		ins := make([]plan.Schema, len(kids))
		for i := range kids {
			ins[i] = in(i)
		}
		out, err := checkUnion(ins, p)
		if err != nil {
			return nil, err
		}
		return &unionStep{out: out}, nil
	case *plan.DistinctNode:
		out, err := checkDistinct(in(0), n.Subset, p)
		if err != nil {
			return nil, err
		}
		return &distinctStep{subset: n.Subset, out: out}, nil
	case *plan.WindowNode:
		return prepareWindow(in(0), n.Exprs, p)
	case *plan.ExtensionNode:
		ins := make([]plan.Schema, len(kids))
		for i := range kids {
			ins[i] = in(i)
		}
		out, err := checkExtension(n.Def, ins, p)
		if err != nil {
			return nil, err
		}
		return &extensionStep{node: n, out: out}, nil
	}
	return nil, internalError("unknown node type %T", n)
}

// evaluate runs a checked tree: children in order, left before right, then
// the node; every intermediate frame is released once its parent has run.
func (s *Session) evaluate(c *checked) (*DataFrame, error) {
	if err := checkCtx(s.ctx); err != nil {
		return nil, located(err, c.label, c.path)
	}
	ins := make([]*DataFrame, 0, len(c.kids))
	defer func() { releaseFrames(ins) }()
	for _, k := range c.kids {
		f, err := s.evaluate(k)
		if err != nil {
			return nil, err
		}
		ins = append(ins, f)
	}
	if err := checkCtx(s.ctx); err != nil {
		return nil, located(err, c.label, c.path)
	}
	out, err := c.step.run(s, ins)
	if err != nil {
		return nil, located(err, c.label, c.path)
	}
	return out, nil
}
