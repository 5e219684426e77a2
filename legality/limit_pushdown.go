package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleLimitPushdown names the rule of package rules whose cells are decided
// here (the lp.* cells): also its flag and file name.
const RuleLimitPushdown = "limit_pushdown"

// LimitPast decides what a limit directly above n may do there (a slice
// counts as a limit of the rows it keeps, offset + len): go below n
// (project and with_columns: lp.window when the node owns a window, then
// lp.deterministic, then lp.project or lp.with_columns), fold into n as a
// top-k sort (lp.sort), put a copy of itself into every input of n
// (lp.union), or give n a max-rows hint (lp.scan). Every other node kind
// has a barrier cell of its own (lp.filter, lp.aggregate, lp.join,
// lp.distinct, lp.window, lp.extension, lp.limit), and a kind without one
// is refused by lp.unknown: the world is closed. The ruling lists the cells
// consulted in order; when it refuses, the last one refused.
func (t *Table) LimitPast(n plan.Node) Ruling {
	t = t.orDefault()
	var r Ruling
	switch n := n.(type) {
	case *plan.ProjectNode:
		t.limitPastProjection(&r, n, n.Input, n.Exprs, LPProject)
	case *plan.WithColumnsNode:
		t.limitPastProjection(&r, n, n.Input, n.Exprs, LPWithColumns)
	case *plan.SortNode:
		r.consult(t.decide(LPSort, always))
	case *plan.UnionNode:
		r.consult(t.decide(LPUnion, always))
	case *plan.ScanNode:
		r.consult(t.decide(LPScan, func() (bool, string) { return t.hintSafe(n) }))
	case *plan.FilterNode:
		r.consult(t.barrier(LPFilter, n))
	case *plan.AggregateNode:
		r.consult(t.barrier(LPAggregate, n))
	case *plan.JoinNode:
		r.consult(t.barrier(LPJoin, n))
	case *plan.DistinctNode:
		r.consult(t.barrier(LPDistinct, n))
	case *plan.WindowNode:
		r.consult(t.barrier(LPWindow, n))
	case *plan.ExtensionNode:
		r.consult(t.barrier(LPExtension, n))
	case *plan.LimitNode, *plan.SliceNode:
		r.consult(t.barrier(LPLimit, n))
	case *plan.GuardNode:
		r.consult(t.barrier(LPGuard, n))
	case *plan.TailNode:
		r.consult(t.barrier(LPTail, n))
	case *plan.ReverseNode:
		r.consult(t.barrier(LPReverse, n))
	case *plan.RowIndexNode:
		r.consult(t.barrier(LPRowIndex, n))
	case *plan.AsOfJoinNode:
		r.consult(t.limitPastAsof(n))
	case *plan.TemporalGroupNode:
		r.consult(t.barrier(LPTemporalGroup, n))
	case *plan.HStackNode:
		r.consult(t.barrier(LPHStack, n))
	case *plan.MergeSortedNode:
		r.consult(t.barrier(LPMergeSorted, n))
	case *plan.UnpivotNode:
		r.consult(t.barrier(LPUnpivot, n))
	case *plan.UnnestNode:
		r.consult(t.decide(LPUnnest, always))
	case *plan.ExplodeNode:
		r.consult(t.barrier(LPExplode, n))
	default:
		r.consult(t.barrier(LPUnknown, n))
	}
	return r
}

// barrier decides a barrier cell at n, saying so in the detail.
func (t *Table) barrier(id CellID, n plan.Node) Decision {
	d := t.decide(id, always)
	if !d.Allowed && n != nil {
		d.Detail = n.Kind().String() + " is a barrier"
	}
	return d
}

// limitPastProjection consults the cells of a limit moving below a project
// or with_columns n over in: its owned window first (lp.window: the window
// would be crossed with it), then its expressions' determinism
// (lp.deterministic) and totality (cell, lp.project or lp.with_columns)
// over the node's input, under the table's totality (Table.Total: in the
// standard tier, the rule's, plan.Total trusting declared-total UDFs).
func (t *Table) limitPastProjection(r *Ruling, n plan.Node, in plan.Node, exprs []plan.Expr, cell CellID) {
	if w, owns := plan.OwnedWindow(n); owns {
		if !r.consult(t.barrier(LPWindow, w)) {
			return
		}
	}
	if !r.consult(t.decide(LPDeterministic, func() (bool, string) {
		for _, e := range exprs {
			if e == nil {
				return false, "missing expression"
			}
			if !plan.IsDeterministic(e) {
				return false, "`" + e.String() + "` is non-deterministic"
			}
		}
		return true, ""
	})) {
		return
	}
	var schema plan.Schema
	if in != nil {
		schema = in.Schema()
	}
	r.consult(t.decide(cell, func() (bool, string) {
		for _, e := range exprs {
			if !t.Total(e, schema) {
				return false, "`" + e.String() + "` is partial"
			}
		}
		return true, ""
	}))
}

// hintSafe is lp.scan's condition: a source may stop after the hinted rows
// only when no pushed conjunct needs the rows after them — every Exact
// conjunct total and deterministic (it could raise, or advance a counter,
// on a row the source no longer reads), and no Inexact one (the plan keeps
// an Inexact conjunct in a filter above the scan, so a hinted scan never
// holds one).
func (t *Table) hintSafe(n *plan.ScanNode) (bool, string) {
	for _, p := range n.Pushed {
		switch {
		case p.Expr == nil:
			return false, "missing pushed conjunct"
		case p.Support != plan.Exact:
			return false, "`" + p.Expr.String() + "` is pushed " + p.Support.String()
		case !plan.IsDeterministic(p.Expr):
			return false, "`" + p.Expr.String() + "` (exact) is non-deterministic"
		case !t.Total(p.Expr, n.SourceSchema):
			return false, "`" + p.Expr.String() + "` (exact) is partial"
		}
	}
	return true, ""
}
