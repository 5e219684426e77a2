package legality

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// RulePredicatePushdown names the rule of package rules whose cells are
// decided here (the pp.* cells): also its flag and file name.
const RulePredicatePushdown = "predicate_pushdown"

// PushdownConjunct decides whether a conjunct may move at all (cell
// pp.deterministic): a conjunct that calls a non-deterministic UDF stays
// where it is, whatever is below it.
func (t *Table) PushdownConjunct(e plan.Expr) Decision {
	return t.orDefault().decide(PPDeterministic, func() (bool, string) {
		if e == nil {
			return false, "missing conjunct"
		}
		if !plan.IsDeterministic(e) {
			return false, "`" + e.String() + "` is non-deterministic"
		}
		return true, ""
	})
}

// PushdownSplit decides whether a filter's conjuncts may separate (cell
// pp.split): stays are the conjuncts that would be left above while others
// move below (or are taken by a source), evaluated over rows of schema in
// (the output of the node they stay above). They then see fewer rows, so
// each must be total and deterministic.
func (t *Table) PushdownSplit(stays []plan.Expr, in plan.Schema) Decision {
	t = t.orDefault()
	return t.decide(PPSplit, func() (bool, string) { return t.firstImmovable(stays, in) })
}

// ScanFate is what predicate pushdown would do with one conjunct of a
// filter that reached a scan: keep it above (ScanStays), hand it to the
// source and keep it above as well (ScanInexact), or hand it to the source
// and drop it from the plan (ScanExact).
type ScanFate uint8

// The fates of a conjunct at a scan.
const (
	ScanStays ScanFate = iota
	ScanInexact
	ScanExact
)

// PushdownScanSplit is pp.split at a scan: conjuncts[i] would meet fates[i].
// The conjuncts left above the scan (those that stay and the Inexact ones)
// then see only the rows the source returns, so each must be total and
// deterministic (PushdownSplit) — except a lone Inexact conjunct when none
// is Exact: the source then skips only rows on which that conjunct is false
// or null without raising, so the filter above loses no row it would keep
// and no error it would raise. When nothing is handed to the source, or
// nothing is left above, the filter does not separate and the Decision names
// no cell. The conjuncts read the scan's source rows, of schema in.
func (t *Table) PushdownScanSplit(conjuncts []plan.Expr, fates []ScanFate, in plan.Schema) Decision {
	exact, inexact := 0, 0
	for _, f := range fates {
		switch f {
		case ScanExact:
			exact++
		case ScanInexact:
			inexact++
		}
	}
	lone := exact == 0 && inexact == 1
	var left []plan.Expr
	for i, e := range conjuncts {
		if fates[i] == ScanExact || (lone && fates[i] == ScanInexact) {
			continue
		}
		left = append(left, e)
	}
	if exact+inexact == 0 || len(left) == 0 {
		return Decision{Allowed: true}
	}
	return t.PushdownSplit(left, in)
}

// PushdownScanMerge decides whether a conjunct the source classifies Exact
// may join a scan's pushed list that already holds another filter's Exact
// conjuncts (cell pp.scan.merge). The source applies its pushed list as one
// filter, every conjunct over all the rows it reads (plan.PredicateClassifier),
// so the joining conjunct would meet the rows the earlier filter removed: it
// must be total and deterministic, as the outer filter of filter fusion
// (ff.total_outer). It reads the source's rows, of schema in.
func (t *Table) PushdownScanMerge(e plan.Expr, in plan.Schema) Decision {
	t = t.orDefault()
	return t.decide(PPScanMerge, func() (bool, string) {
		if e == nil {
			return false, "missing conjunct"
		}
		return t.firstImmovable([]plan.Expr{e}, in)
	})
}

// PushdownScanSkip decides whether conjuncts the source classifies Inexact
// may join a scan's pushed list whose Exact conjuncts are exact (cell
// pp.scan.skip): those already pushed and those joining with them. A source
// may skip rows by an Inexact conjunct (row groups by statistics) before it
// applies its Exact conjuncts, so every Exact conjunct would meet fewer
// rows: each must be total and deterministic. They read the source's rows,
// of schema in.
func (t *Table) PushdownScanSkip(exact []plan.Expr, in plan.Schema) Decision {
	t = t.orDefault()
	return t.decide(PPScanSkip, func() (bool, string) {
		return t.firstImmovable(exact, in)
	})
}

// PushdownScan decides, for one conjunct the source classified, whether it
// is handed to the source (cell pp.scan): Exact and Inexact are, Unsupported
// is not. The caller keeps an Inexact conjunct above the scan as well. A
// refusal of an Unsupported conjunct carries its own Reason: the cell's
// counterexample is about Inexact conjuncts.
func (t *Table) PushdownScan(s plan.PredicateSupport) Decision {
	d := t.orDefault().decide(PPScan, func() (bool, string) {
		switch s {
		case plan.Exact, plan.Inexact:
			return true, "the source classifies it " + s.String()
		}
		return false, "the source classifies it " + s.String()
	})
	if !d.Allowed && d.Verdict == CrossesIf {
		d.Reason = "the source does not take the conjunct (Unsupported, the safe answer), so it stays above the scan"
	}
	return d
}

// NodeCheck is the table's view of one node for predicate pushdown: the
// node-level decision (its kind's cell, and for project, with_columns and
// sort the totality of its expressions), and the names whose readers must be
// asked about individually (outputs that are not a same-name identity).
// Building it costs one pass over the node's expressions.
type NodeCheck struct {
	t        *Table
	decision Decision
	// decisions lists every node-level decision taken, in order, when there
	// are several (an extension's property cells); decision is the last.
	decisions []Decision
	shadow    CellID
	// ext is the extension whose conjunct-level cell is
	// pp.extension.passthrough, and inputs its input's column names.
	ext    *plan.ExtensionNode
	inputs map[string]bool
	// redefined maps each output name that is not a same-name identity to
	// its defining expression, for project and with_columns.
	redefined map[string]plan.Expr
	watch     []string
	// generic: every conjunct is asked (Conjunct), not only the readers of
	// Watch; conjunct, when set, is what Conjunct asks (the standard tier's
	// crossings); join, for PushdownJoin, maps the join's columns to its
	// inputs.
	generic  bool
	conjunct func(plan.Expr) Decision
	join     *joinView
}

// PushdownNode returns the check for moving conjuncts from directly above n
// to directly below it. Closed world: a node kind without a crossing cell is
// refused by pp.unknown.
func (t *Table) PushdownNode(n plan.Node) *NodeCheck {
	t = t.orDefault()
	c := &NodeCheck{t: t}
	switch n := n.(type) {
	case *plan.ProjectNode:
		c.decision = t.decide(PPProject, func() (bool, string) { return t.firstImmovable(n.Exprs, inputSchema(n)) })
		c.shadow = PPProjectShadow
		c.setRedefined(n.Exprs)
	case *plan.WithColumnsNode:
		c.decision = t.decide(PPWithColumns, func() (bool, string) { return t.firstImmovable(n.Exprs, inputSchema(n)) })
		c.shadow = PPWithColumnsShadow
		c.setRedefined(n.Exprs)
	case *plan.SortNode:
		if n.HasLimit {
			// A top-k sort keeps its first rows: a limit (Polars #26803).
			c.decision = t.decide(PPLimit, always)
			if !c.decision.Allowed {
				c.decision.Detail = fmt.Sprintf("a top-k sort (limit=%d) keeps its first rows", n.Limit)
			}
			break
		}
		c.decision = t.decide(PPSort, func() (bool, string) {
			keys := make([]plan.Expr, len(n.Keys))
			for i, k := range n.Keys {
				keys[i] = k.Expr
			}
			return t.firstImmovable(keys, inputSchema(n))
		})
	case *plan.ScanNode:
		// Decided per conjunct (PushdownScan, PushdownScanMerge,
		// PushdownScanSplit): no node-level cell.
		c.decision = Decision{Allowed: true}
	case *plan.FilterNode:
		if t.totality == StandardTotality {
			// Decided per conjunct: it moves past the filter's conjuncts,
			// which stay.
			c.decision, c.generic, c.shadow = Decision{Allowed: true}, true, PPFilterTotal
			c.conjunct = func(e plan.Expr) Decision {
				staying := t.NewMovability(inputSchema(n))
				staying.Add(n.Predicates...)
				return t.PushdownPastFilter([]plan.Expr{e}, staying)
			}
		} else {
			c.decision = t.decide(PPFilter, always)
		}
	case *plan.LimitNode:
		c.decision = t.decide(PPLimit, always)
	case *plan.SliceNode:
		c.decision = t.decide(PPSlice, always)
	case *plan.AggregateNode:
		if t.totality == StandardTotality {
			t.standardAggregate(c, n)
		} else {
			c.decision = t.decide(PPAggregate, always)
		}
	case *plan.JoinNode:
		c.decision = t.decide(PPJoin, always)
	case *plan.WindowNode:
		c.decision = t.decide(PPWindow, always)
	case *plan.UnionNode:
		if t.totality == StandardTotality {
			t.standardUnion(c, n)
		} else {
			c.decision = t.decide(PPUnion, always)
		}
	case *plan.DistinctNode:
		if t.totality == StandardTotality {
			t.standardDistinct(c, n)
		} else {
			c.decision = t.decide(PPDistinct, always)
		}
	case *plan.ExtensionNode:
		c.extension(n)
	case *plan.GuardNode:
		c.decision = t.decide(PPGuard, always)
	case *plan.TailNode:
		c.decision = t.decide(PPTail, always)
	case *plan.ReverseNode:
		c.decision = t.decide(PPReverse, always)
	case *plan.RowIndexNode:
		c.decision = t.decide(PPRowIndex, always)
	case *plan.AsOfJoinNode:
		t.pushdownAsof(c, n)
	case *plan.TemporalGroupNode:
		c.decision = t.decide(PPTemporalGroup, always)
	case *plan.HStackNode:
		c.decision = t.decide(PPHStack, always)
	case *plan.MergeSortedNode:
		c.decision = t.decide(PPMergeSorted, always)
	case *plan.UnpivotNode:
		t.unpivotCheck(c, n)
	case *plan.UnnestNode:
		t.unnestCheck(c, n)
	case *plan.ExplodeNode:
		t.explodeCheck(c, n)
	default:
		c.decision = t.decide(PPUnknown, always)
	}
	// A Barrier shadowing cell stops every conjunct, not only the readers of
	// redefined names.
	if c.shadow != "" && c.decision.Allowed && t.Verdict(c.shadow) == Barrier {
		c.decision = Decision{Cell: c.shadow, Verdict: Barrier, Detail: "shadowing is a barrier"}
	}
	if c.decision.Detail == "" && !c.decision.Allowed && n != nil {
		c.decision.Detail = n.Kind().String() + " is a barrier"
	}
	return c
}

// extension decides an extension node. An operator with one input that
// declares at least one property is asked about each property a crossing
// needs, in order (pp.extension.row_preserving, .order_preserving,
// .deterministic; then, per conjunct, .passthrough); any other extension is
// a barrier (pp.extension).
func (c *NodeCheck) extension(n *plan.ExtensionNode) {
	t := c.t
	if !declaresProperties(n) {
		c.decision = t.decide(PPExtension, always)
		return
	}
	name := n.Def.Name
	requires := func(id CellID, p plan.ExtensionProperty) bool {
		d := t.decide(id, func() (bool, string) {
			if !n.Def.Has(p) {
				return false, name + " does not declare " + string(p)
			}
			return true, ""
		})
		c.decisions = append(c.decisions, d)
		c.decision = d
		return d.Allowed
	}
	if !requires(PPExtensionRowPreserving, plan.RowPreserving) ||
		!requires(PPExtensionOrderPreserving, plan.OrderPreserving) ||
		!requires(PPExtensionDeterministic, plan.DeterministicOp) {
		return
	}
	c.shadow, c.ext = PPExtensionPassthrough, n
	c.inputs = map[string]bool{}
	for _, in := range n.Inputs[0].Schema().Names() {
		c.inputs[in] = true
	}
	// Without column_passthrough every output name is suspect; with it, only
	// the columns the operator adds.
	for _, out := range n.Schema().Names() {
		if !n.Def.Has(plan.ColumnPassthrough) || !c.inputs[out] {
			c.watch = append(c.watch, out)
		}
	}
}

// inputSchema is the schema of n's first input, the rows its expressions
// are evaluated over (for a project or with_columns owning a window, the
// window's output), or the zero schema when n has none or it is not
// resolved (nothing is then total under StandardTotality).
func inputSchema(n plan.Node) plan.Schema {
	var in plan.Node
	switch n := n.(type) {
	case *plan.ProjectNode:
		in = n.Input
	case *plan.WithColumnsNode:
		in = n.Input
	case *plan.SortNode:
		in = n.Input
	case *plan.FilterNode:
		in = n.Input
	case *plan.AggregateNode:
		in = n.Input
	case *plan.DistinctNode:
		in = n.Input
	case *plan.WindowNode:
		in = n.Input
	}
	if in == nil {
		return plan.Schema{}
	}
	return in.Schema()
}

// declaresProperties reports whether an extension has one input and
// declares at least one property: the extensions the property cells
// decide. Every other extension is closed-world (pp.extension,
// pr.extension).
func declaresProperties(n *plan.ExtensionNode) bool {
	return n.Def != nil && len(n.Inputs) == 1 && n.Inputs[0] != nil && len(n.Def.Properties) > 0
}

// IsIdentity reports whether e is a same-name identity reference: col(a),
// possibly aliased back to a.
func IsIdentity(e plan.Expr) bool {
	c, ok := plan.Unalias(e).(*plan.Column)
	return ok && c.Name == plan.OutputName(e)
}

func (c *NodeCheck) setRedefined(exprs []plan.Expr) {
	for _, e := range exprs {
		if IsIdentity(e) {
			continue
		}
		if c.redefined == nil {
			c.redefined = make(map[string]plan.Expr)
		}
		name := plan.OutputName(e)
		if _, dup := c.redefined[name]; !dup {
			c.watch = append(c.watch, name)
		}
		c.redefined[name] = e
	}
}

// ShadowCell returns the node's conjunct-level cell (pp.project.shadow,
// pp.with_columns.shadow), or "" for nodes without one. A conjunct that
// crosses without reading a watched name satisfies its condition.
func (c *NodeCheck) ShadowCell() CellID { return c.shadow }

// Decision is the node-level decision: when it refuses, no conjunct crosses.
// When several cells decided (an extension's properties), it is the last
// one consulted: the refusing one, or the last that allowed.
func (c *NodeCheck) Decision() Decision { return c.decision }

// Decisions lists every node-level decision in the order the cells were
// consulted (usually one; an extension's property cells give up to three).
func (c *NodeCheck) Decisions() []Decision {
	if len(c.decisions) > 0 {
		return c.decisions
	}
	return []Decision{c.decision}
}

// Generic reports whether every conjunct must be asked about individually
// (Conjunct), not only the readers of Watch: the standard tier's crossings
// of aggregates, distincts, unions and joins decide conjunct by conjunct.
func (c *NodeCheck) Generic() bool { return c.generic }

// Watch lists the output names that are not same-name identities of the
// node's input. A conjunct that reads none of them needs no decision of its
// own: Conjunct allows it without consulting any cell.
func (c *NodeCheck) Watch() []string { return c.watch }

// Conjunct decides whether one conjunct may cross the node, given that the
// node-level decision allowed it: for project and with_columns it consults
// the shadowing cell (pp.project.shadow, pp.with_columns.shadow), for an
// extension declaring properties pp.extension.passthrough, and for the
// standard tier's crossings (Generic) the cells of the node's kind. For
// other nodes no conjunct-level cell exists and the answer is an allowed
// Decision with an empty Cell.
func (c *NodeCheck) Conjunct(e plan.Expr) Decision {
	if c.conjunct != nil {
		return c.conjunct(e)
	}
	if c.shadow == "" {
		return Decision{Allowed: true}
	}
	if c.ext != nil {
		return c.t.decide(c.shadow, func() (bool, string) {
			if !c.ext.Def.Has(plan.ColumnPassthrough) {
				return false, c.ext.Def.Name + " does not declare column_passthrough"
			}
			for _, name := range plan.Columns(e) {
				if !c.inputs[name] {
					return false, "reads " + name + ", added by " + c.ext.Def.Name
				}
			}
			return true, ""
		})
	}
	return c.t.decide(c.shadow, func() (bool, string) {
		for _, name := range plan.Columns(e) {
			if def, ok := c.redefined[name]; ok {
				return false, fmt.Sprintf("reads %s, computed by `%s`", name, def)
			}
		}
		return true, ""
	})
}

// Pushdown answers, for one conjunct directly above n, whether it may move
// directly below n — below the window n owns too, when n is a project or
// with_columns owning one (plan.OwnedWindow): the two are crossed together
// or not at all. It consults the cells the rule would: pp.deterministic,
// then n's cell (with its totality condition; for an extension declaring
// properties, its property cells), then the owned window's (pp.window),
// then for project and with_columns the shadowing cell (for such an
// extension, pp.extension.passthrough), and for a scan the source's
// classification (pp.scan). It is the one-conjunct form of the batched
// queries predicate_pushdown uses (PushdownConjunct, PushdownNode,
// PushdownScan); tools and tests use it. Splitting a filter (pp.split),
// passing another filter (pp.filter) and merging into a scan's pushed list
// (pp.scan.merge) concern several conjuncts and are not consulted here.
func (t *Table) Pushdown(conjunct plan.Expr, n plan.Node) Ruling {
	t = t.orDefault()
	var r Ruling
	if !r.consult(t.PushdownConjunct(conjunct)) {
		return r
	}
	chk := t.PushdownNode(n)
	decisions := chk.Decisions()
	if w, owns := plan.OwnedWindow(n); owns {
		decisions = append(append([]Decision(nil), decisions...), t.PushdownNode(w).Decisions()...)
	}
	for _, d := range decisions {
		if d.Cell == "" {
			continue // a scan: decided per conjunct below
		}
		if !r.consult(d) {
			return r
		}
	}
	if s, ok := n.(*plan.ScanNode); ok {
		sup := plan.Unsupported
		if s.Source != nil {
			if got, err := plan.ClassifyPredicates(s.Source, []plan.Expr{conjunct}); err == nil {
				sup = got[0]
			}
		}
		r.consult(t.PushdownScan(sup))
		return r
	}
	if d := chk.Conjunct(conjunct); d.Cell != "" {
		r.consult(d)
	}
	return r
}
