package step

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/plan"
)

// Eval evaluates one resolved node over its inputs' frames (borrowed, one
// per child, in order) and returns its output, a new frame the caller
// releases. Scans are not evaluated here: reading a source is the
// driver's (see ScanTable and ScanOutput). The first error is returned as
// a *plan.Error; Eval does not locate it (Env.Locate does).
func Eval(e *Env, n plan.Node, in []*Frame) (*Frame, error) {
	if n == nil || !n.Resolved() {
		return nil, e.Internal("Eval of an unresolved node")
	}
	if want := len(n.Children()); len(in) != want {
		return nil, e.Internal("%s: %d inputs for a node of %d", n.Kind(), len(in), want)
	}
	for _, f := range in {
		if f == nil {
			return nil, e.Internal("%s: a missing input", n.Kind())
		}
	}
	var out *Frame
	var err error
	switch n := n.(type) {
	case *plan.FilterNode:
		out, err = e.filter(n, in[0])
	case *plan.ProjectNode:
		out, err = e.project(n, in[0])
	case *plan.WithColumnsNode:
		out, err = e.withColumns(n, in[0])
	case *plan.SortNode:
		k := int64(-1)
		if n.HasLimit {
			k = n.Limit // a top-k sort (docs/semantics.md, sort)
		}
		out, err = e.sort(n, in[0], k)
	case *plan.LimitNode:
		out = in[0].Slice(n.Schema(), 0, n.N)
	case *plan.SliceNode:
		out = in[0].Slice(n.Schema(), n.Offset, n.Len)
	case *plan.TailNode:
		out = e.tail(n, in[0])
	case *plan.ReverseNode:
		out, err = e.reverse(n, in[0])
	case *plan.RowIndexNode:
		out, err = e.rowIndex(n, in[0])
	case *plan.AsOfJoinNode:
		out, err = e.asofJoin(n, in[0], in[1])
	case *plan.TemporalGroupNode:
		out, err = e.temporalGroup(n, in[0])
	case *plan.HStackNode:
		out, err = e.hstack(n, in)
	case *plan.MergeSortedNode:
		out, err = e.mergeSorted(n, in[0], in[1])
	case *plan.UnpivotNode:
		out, err = e.unpivot(n, in[0])
	case *plan.UnnestNode:
		out, err = e.unnest(n, in[0])
	case *plan.ExplodeNode:
		out, err = e.explode(n, in[0])
	case *plan.AggregateNode:
		out, err = e.aggregate(n, in[0])
	case *plan.JoinNode:
		out, err = e.join(n, in[0], in[1])
	case *plan.UnionNode:
		out, err = e.union(n, in)
	case *plan.DistinctNode:
		out, err = e.distinct(n, in[0])
	case *plan.WindowNode:
		out, err = e.window(n, in[0])
	case *plan.ExtensionNode:
		out, err = e.extension(n, in)
	case *plan.GuardNode:
		out, err = e.guard(n, in[0])
	case *plan.ScanNode:
		err = e.Internal("a scan is read by its driver, not by Eval")
	default:
		err = e.Internal("unknown node type %T", n)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, e.Internal("%s produced no result", n.Kind())
	}
	return out, nil
}

// TopK evaluates a sort keeping only the first k rows of its order (the
// same rows, in the same order, as sorting everything and keeping k); a
// driver uses it for limit(sort(x)) when nothing needs the whole sort. A
// top-k sort (plan.SortNode.HasLimit) keeps at most its own limit too. The
// result is under the sort's schema.
func TopK(e *Env, n *plan.SortNode, in *Frame, k int64) (*Frame, error) {
	if k < 0 {
		return nil, e.Internal("top-k of %d rows", k)
	}
	if n.HasLimit && n.Limit >= 0 {
		k = min(k, n.Limit)
	}
	return e.sort(n, in, k)
}

// evalOn evaluates exprs over every row of f, in list order (the columns
// they read, as one batch); on failure it releases what it evaluated.
func (e *Env) evalOn(f *Frame, exprs []plan.Expr) ([]arrow.Array, error) {
	b, err := e.exprBatch(f, exprs)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return e.evalExprs(exprs, b)
}

// evalExprs evaluates exprs over rec in list order, each over all rows; on
// failure it releases what it evaluated.
func (e *Env) evalExprs(exprs []plan.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(exprs))
	for _, x := range exprs {
		a, err := e.evalExpr(x, rec)
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
func (e *Env) evalExpr(x plan.Expr, rec arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.evaluator().Eval(e.Ctx, x, rec, 0)
	if err != nil {
		return nil, err
	}
	if int64(a.Len()) != rec.NumRows() {
		n := a.Len()
		a.Release()
		return nil, e.Internal("`%s` produced %d rows over %d", x, n, rec.NumRows())
	}
	return a, nil
}

// computeExprs evaluates exprs in list order, each over all rows of in,
// reading a compact batch of the columns they use; a plain column
// reference (possibly aliased) passes its column through unevaluated. The
// returned columns are new references.
func (e *Env) computeExprs(exprs []plan.Expr, in *Frame) ([]fcol, error) {
	var evaluated []plan.Expr
	for _, x := range exprs {
		if _, ok := isPlainColumn(x); !ok {
			evaluated = append(evaluated, x)
		}
	}
	var b arrow.RecordBatch
	if len(evaluated) > 0 {
		var err error
		if b, err = e.exprBatch(in, evaluated); err != nil {
			return nil, err
		}
		defer b.Release()
	}
	out := make([]fcol, 0, len(exprs))
	fail := func(err error) ([]fcol, error) {
		for _, fc := range out {
			fc.release()
		}
		return nil, err
	}
	for _, x := range exprs {
		if name, ok := isPlainColumn(x); ok {
			fc, err := e.col(in, name)
			if err != nil {
				return fail(err)
			}
			fc.retain()
			out = append(out, fc)
			continue
		}
		a, err := e.evalExpr(x, b)
		if err != nil {
			return fail(err)
		}
		out = append(out, fcol{arr: a})
	}
	return out, nil
}

// isPlainColumn returns the column an expression merely references
// (possibly under an alias), which can pass through without evaluation.
func isPlainColumn(x plan.Expr) (string, bool) {
	col, ok := plan.Unalias(x).(*plan.Column)
	if !ok {
		return "", false
	}
	return col.Name, true
}
