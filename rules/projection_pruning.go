package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// projection_pruning removes what nothing downstream reads:
//
//	select(a)                          select(a)
//	  with_columns(b as x)     ==>       scan t columns=[a]
//	    scan t
//
// It walks the plan once from the root with the set of column names each
// node must produce (the root: its whole schema, which never changes).
// Dead project and with_columns entries go only if total and deterministic
// (pr.project, pr.with_columns); with error_guards enabled, a dead partial
// with_columns entry with a cheap error condition, listed before every
// kept partial entry, leaves too, a guard of it going below the node
// (pr.with_columns.guard, docs/adr/0004-error-guards.md); an emptied
// with_columns goes too unless it owns a window (pr.with_columns.empty);
// requirements pass through filters, sorts, limits and slices with their own
// columns added (pr.passthrough), distinct adds its subset (pr.distinct), a
// window its over() columns (pr.window); an aggregate needs exactly its key
// and aggregate columns (pr.aggregate); a scan reads only what is needed
// (pr.scan, arm scan_projection); a join passes each input the narrowed
// requirement — its key columns, the columns read above and every left
// column a kept right column shares a name with — and pruning continues
// below it with the same cells, inserting nothing (pr.join, arm
// join_pruning; ADR 0002 supersedes docs/design.md §6 here); a host operator
// declaring column_passthrough
// passes requirements through plus the columns it reads
// (pr.extension.passthrough); other extensions and unknown nodes keep every
// input column (pr.extension, pr.unknown), and so do unions, except in the
// standard tier under the arm union_pruning, where every input narrows to
// the same columns (pr.union.inputs, pr.union).
//
// In the standard tier under the arm twin_pruning, deterministic subtrees
// that are equal before pruning (twins: a subquery written as a second copy
// of the same join) are each asked for the union of what all their
// consumers need (pr.twins), so that they stay equal and the executor's
// memo evaluates them once instead of once per copy (see twinSet).
func projectionPruning() Rule {
	return Rule{
		Name:     FlagProjectionPruning,
		Doc:      "drops dead total entries, emptied with_columns nodes and unread source columns",
		Arms:     []string{FlagScanProjection, FlagJoinPruning, FlagUnionPruning, FlagTwinPruning},
		ArmTiers: map[string]Tier{FlagUnionPruning: TierStandard, FlagTwinPruning: TierStandard},
		Counters: []CounterDef{{Name: counterPrunedProjections, Position: 2}, {Name: counterDroppedColumns, Position: 3},
			{Name: counterDroppedNodes, Position: 4}, {Name: counterScanProjections, Position: 8}},
		Verbs: Verbs{Verb: Verb{Allowed: "pruned at", Refused: "kept at"},
			Cells: map[legality.CellID]Verb{legality.PRTwins: {
				Allowed: "asked for what its twins' consumers need at", Refused: "pruned for its own consumers only at"}}},
		Application: "one dead project or with_columns entry dropped, one emptied with_columns dropped, one scan narrowed; " +
			"passing requirements through a node (pr.passthrough, pr.join, ...) changes no node by itself and is not one",
		Matches: []plan.Kind{plan.KindProject, plan.KindWithColumns, plan.KindScan, plan.KindAggregate,
			plan.KindJoin, plan.KindFilter, plan.KindSort, plan.KindLimit, plan.KindSlice, plan.KindDistinct,
			plan.KindWindow, plan.KindUnion, plan.KindExtension, plan.KindTail, plan.KindReverse, plan.KindRowIndex, plan.KindAsOfJoin, plan.KindTemporalGroup,
			plan.KindHStack, plan.KindMergeSorted, plan.KindUnpivot, plan.KindUnnest, plan.KindExplode},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			var twins *twinSet
			if c.Enabled(FlagTwinPruning) && c.table.Totality() == legality.StandardTotality {
				twins = findTwins(root)
			}
			if twins == nil {
				pr := &pruning{Context: c, predicted: map[predictKey][]string{}}
				return pr.visit(root, allNames(root), true, &plan.Path{}), nil
			}
			return pruneTwins(c, root, twins), nil
		},
	}
}

// projection_pruning's flags: its name and its arms.
const (
	FlagProjectionPruning = legality.RuleProjectionPruning
	// FlagScanProjection gates the arm that narrows the columns a scan
	// reads (ScanNode.Projected/Columns).
	FlagScanProjection = "scan_projection"
	// FlagJoinPruning gates the arm that narrows join inputs.
	FlagJoinPruning = "join_pruning"
	// FlagUnionPruning gates the standard tier's arm that narrows union
	// inputs (legality.Table.PruneUnion); off, or under the bounded tier's
	// totality, every union input keeps every column (pr.union).
	FlagUnionPruning = "union_pruning"
	// FlagTwinPruning gates the standard tier's arm that prunes subtrees
	// equal before pruning for the union of their consumers' requirements
	// (pr.twins), so that the executor's memo still shares them.
	FlagTwinPruning = "twin_pruning"
)

// projection_pruning's counters (docs/counters.md).
const (
	counterPrunedProjections = "prunedProjections"
	counterDroppedColumns    = "droppedColumns"
	counterDroppedNodes      = "droppedNodes"
	counterScanProjections   = "scanProjections"
)

type pruning struct {
	*Context
	// dry marks a prediction (predict): its result only says which
	// columns a subtree produces.
	dry bool
	// predicted holds the run's predictions of union inputs' columns,
	// shared with the dry prunings it makes.
	predicted map[predictKey][]string
	// twins, when set, holds the subtrees equal before pruning and the
	// union of their requirements (arm twin_pruning).
	twins *twinSet
}

// names maps each column a node must produce to why: needValue (something
// reads it) and/or needPosition (it must exist where it is, so that a
// with_columns above replacing it in place keeps the column order). A
// missing name is not required.
//
// A requirement passed to visit belongs to it: along a chain of
// single-input nodes each node changes it in place into its input's (a
// chain growing by a column per node would pay the whole width per node
// to copy it), so a caller handing one requirement to several inputs — a
// union's, a multi-input node's — gives each its own copy.
type names map[string]uint8

const (
	needValue    uint8 = 1
	needPosition uint8 = 2
)

func allNames(n plan.Node) names {
	s := n.Schema()
	m := make(names, s.Len())
	for i := 0; i < s.Len(); i++ {
		m[s.Field(i).Name] = needValue
	}
	return m
}

// set returns the required names as a set.
func (req names) set() map[string]bool {
	m := make(map[string]bool, len(req))
	for k, v := range req {
		if v != 0 {
			m[k] = true
		}
	}
	return m
}

// with adds the columns es read to req, in place (req belongs to the
// caller), and returns it.
func (req names) with(es ...plan.Expr) names {
	for _, e := range es {
		eachColumn(e, func(c string) { req[c] |= needValue })
	}
	return req
}

// withNames adds the columns cols to req, in place, and returns it.
func (req names) withNames(cols []string) names {
	for _, c := range cols {
		req[c] |= needValue
	}
	return req
}

// eachColumn calls fn for every column reference in e (repeats included),
// without allocating.
func eachColumn(e plan.Expr, fn func(string)) {
	if c, ok := e.(*plan.Column); ok {
		fn(c.Name)
		return
	}
	if e == nil {
		return
	}
	for _, a := range e.Children() {
		eachColumn(a, fn)
	}
}

func columnsOf(es []plan.Expr) names {
	m := names{}
	for _, e := range es {
		eachColumn(e, func(c string) { m[c] = needValue })
	}
	return m
}

// visit prunes below n, which must produce the columns req names; req
// belongs to visit, which changes it in place (see names). ordered says
// whether some consumer above depends on the order of n's columns (the
// root, a union, an extension), up to the nearest project or aggregate,
// whose output order is its own. It walks down chains of single-input nodes
// in a loop with one small frame per node and recurses only into the inputs
// of multi-input nodes.
//
// Each node costs what its own expressions name, not the width of the
// requirement: exact records that every name req holds is a column of n
// (established once by a scan of req where it is not known, then kept by
// every step), so that a node passing its input's columns through
// (filter, sort, limit, slice) needs no scan of req to know that its
// input has them all.
func (p *pruning) visit(n plan.Node, req names, ordered bool, path *plan.Path) plan.Node {
	var frames []prFrame
	var out plan.Node
	exact := false
	for out == nil {
		if p.twins != nil {
			if c, ok := p.twins.class[n]; ok {
				req, ordered = p.twin(c, n, req, ordered, path)
				exact = false
			}
		}
		var f prFrame
		// Whether req, after this node, names only columns of its input:
		// true after childReq (which restricts it to them), kept by a
		// with_columns (whose input has every column it passes through and
		// every column its entries read), unknown otherwise.
		nextExact := true
		switch x := n.(type) {
		case *plan.ScanNode:
			out = p.scan(x, req, path)
			continue
		case *plan.JoinNode:
			out = p.join(x, req, ordered, path)
			continue
		case *plan.AsOfJoinNode:
			out = p.asofJoin(x, req, ordered, path)
			continue
		case *plan.UnionNode:
			if p.Enabled(FlagUnionPruning) && p.table.Totality() == legality.StandardTotality {
				out = p.union(x, req, path)
				continue
			}
			// Every input keeps every column (pr.union).
			ordered = true
			if len(n.Children()) != 1 {
				d, _ := p.table.PruneThrough(n)
				out = p.descend(n, d, req, ordered, path)
				continue
			}
			d, _ := p.table.PruneThrough(n)
			f, req = p.narrow1(n, d, req, path)
		case *plan.ProjectNode:
			f, req = p.project(x, req, path)
			ordered = false
			nextExact = false // the columns its entries read: few, checked by the next node that needs it
		case *plan.WithColumnsNode:
			f, req = p.withColumns(x, req, ordered, path)
			nextExact = exact
		case *plan.FilterNode:
			f, req = p.through(x, req, exact, path, x.Predicates...)
		case *plan.SortNode:
			keys := make([]plan.Expr, len(x.Keys))
			for i, k := range x.Keys {
				keys[i] = k.Expr
			}
			f, req = p.through(x, req, exact, path, keys...)
		case *plan.LimitNode, *plan.SliceNode, *plan.TailNode, *plan.ReverseNode:
			f, req = p.through(x, req, exact, path)
		case *plan.RowIndexNode:
			f, req = p.rowIndex(x, req, path)
		case *plan.HStackNode:
			out = p.hstack(x, req, ordered, path)
			continue
		case *plan.UnnestNode:
			// The struct columns whole, and what is required above of the
			// columns passed through (pr.unnest); a field's name is no
			// input column, so it falls away below.
			d, extra := p.table.PruneThrough(x)
			f, req = p.narrow1(x, d, req.withNames(extra), path)
		case *plan.ExplodeNode:
			// The list columns always (they decide the rows), and what is
			// required above of the others (pr.explode).
			d, extra := p.table.PruneThrough(x)
			f, req = p.narrow1(x, d, req.withNames(extra), path)
		case *plan.UnpivotNode:
			f, req = p.unpivot(x, req, path)
			ordered = true // a default index follows the input's column order
		case *plan.DistinctNode:
			d, extra := p.table.PruneThrough(x)
			f, req = p.narrow1(x, d, req.withNames(extra), path)
		case *plan.WindowNode:
			d, extra := p.table.PruneThrough(x)
			in := x.Input.Schema()
			childReq := names{}
			for c, v := range req {
				if in.Index(c) >= 0 {
					childReq[c] = v
				}
			}
			for _, c := range extra {
				childReq[c] |= needValue
			}
			f, req = p.narrow1(x, d, childReq, path)
		case *plan.TemporalGroupNode:
			// Like an aggregate (pr.temporal_group): its input needs the
			// by-keys, the index and what the aggregates read.
			d, _ := p.table.PruneThrough(x)
			reads := columnsOf(x.Aggs)
			for _, b := range append([]string{x.Index}, x.By...) {
				reads[b] = needValue
			}
			f, req = p.narrow1(x, d, reads, path)
			ordered = false
		case *plan.AggregateNode:
			d, _ := p.table.PruneThrough(x)
			f, req = p.narrow1(x, d, columnsOf(append(append([]plan.Expr(nil), x.Keys...), x.Aggs...)), path)
			ordered = false
		case *plan.ExtensionNode:
			// A host operator: its input's column order may matter to it
			// (it may find columns by position), so it stays ordered. One
			// declaring column_passthrough needs the columns required
			// above plus those it reads (pr.extension.passthrough); any
			// other keeps every input column (pr.extension).
			d, extra := p.table.PruneThrough(x)
			ordered = true
			if len(x.Inputs) != 1 {
				out = p.descend(x, d, req, ordered, path)
				continue
			}
			f, req = p.narrow1(x, d, req.withNames(extra), path)
		default:
			// union, anything else: every input keeps every column unless
			// a mutant table says otherwise; their inputs' order matters.
			d, _ := p.table.PruneThrough(n)
			ordered = true
			if len(n.Children()) != 1 {
				out = p.descend(n, d, req, ordered, path)
				continue
			}
			f, req = p.narrow1(n, d, req, path)
		}
		frames = append(frames, f)
		n, path, exact = f.input, path.Input(f.node, 0), nextExact
	}
	for i := len(frames) - 1; i >= 0; i-- {
		out = frames[i].up(out)
	}
	return out
}

// prFrame is one single-input node on the way down, rebuilt on the way up.
type prFrame struct {
	node  plan.Node
	input plan.Node
	// rebuild builds the node over a new input; nil means "the same node
	// with the new input".
	rebuild func(child plan.Node) plan.Node
}

func (f *prFrame) up(child plan.Node) plan.Node {
	if f.rebuild != nil {
		return f.rebuild(child)
	}
	if child == f.input {
		return f.node
	}
	return f.node.WithChildren([]plan.Node{child})
}

// through handles nodes that pass their input's columns through, needing
// their own expressions' columns too. When exact says req names only
// columns of n — so of its input, whose columns n's are — and d allows
// narrowing, req passes on as it is, with what childReq would record, and
// without childReq's scan of it.
func (p *pruning) through(n plan.Node, req names, exact bool, path *plan.Path, own ...plan.Expr) (prFrame, names) {
	d, _ := p.table.PruneThrough(n)
	req = req.with(own...)
	if !exact || !d.Allowed {
		return p.narrow1(n, d, req, path)
	}
	child := n.Children()[0]
	if len(req) < child.Schema().Len() {
		p.record(d, p.nextItem(), n, path, nil)
	}
	return prFrame{node: n, input: child}, req
}

// narrow1 returns the frame and the input's requirement for a single-input
// node: childReq when d allows narrowing, else every input column.
func (p *pruning) narrow1(n plan.Node, d legality.Decision, childReq names, path *plan.Path) (prFrame, names) {
	child := n.Children()[0]
	return prFrame{node: n, input: child}, p.childReq(n, d, childReq, child, path)
}

// childReq is what child must produce under n: childReq restricted to the
// child's columns when d allows narrowing, else every column. It records
// the decision when it matters (something narrowed, or a refusal kept
// columns).
func (p *pruning) childReq(n plan.Node, d legality.Decision, childReq names, child plan.Node, path *plan.Path) names {
	cs := child.Schema()
	var r names
	switch {
	case !d.Allowed:
		r = allNames(child)
		if len(childReq) < cs.Len() {
			p.record(d, p.nextItem(), n, path, nil)
		}
		return r
	case within(childReq, cs):
		r = childReq // the common case: no copy
	default:
		r = names{}
		for k, v := range childReq {
			if v != 0 && cs.Index(k) >= 0 {
				r[k] = v
			}
		}
	}
	if len(r) < cs.Len() {
		p.record(d, p.nextItem(), n, path, nil)
	}
	return r
}

// descend visits the inputs of a multi-input node with childReq when d
// allows narrowing (each input gets the names it has), else with every
// column of each input.
func (p *pruning) descend(n plan.Node, d legality.Decision, childReq names, ordered bool, path *plan.Path) plan.Node {
	return rebuildChildren(n, path, func(c plan.Node, cp *plan.Path) plan.Node {
		// Each input changes its requirement: its own copy.
		return p.visit(c, maps.Clone(p.childReq(n, d, childReq, c, path)), ordered, cp)
	})
}

// within reports whether every name req holds is a column of s.
func within(req names, s plan.Schema) bool {
	for k, v := range req {
		if v == 0 || s.Index(k) < 0 {
			return false
		}
	}
	return true
}

func (p *pruning) project(n *plan.ProjectNode, req names, path *plan.Path) (prFrame, names) {
	kept := make([]plan.Expr, 0, len(n.Exprs))
	for _, e := range n.Exprs {
		if req[plan.OutputName(e)] != 0 {
			kept = append(kept, e)
			continue
		}
		d := p.budgeted(p.table.PruneEntry(n, e), n, path, e)
		p.record(d, p.nextItem(), n, path, e)
		if d.Allowed {
			p.Count(counterPrunedProjections, 1)
			continue
		}
		kept = append(kept, e)
	}
	f := prFrame{node: n, input: n.Input}
	if len(kept) != len(n.Exprs) {
		f.rebuild = func(child plan.Node) plan.Node { return &plan.ProjectNode{Input: child, Exprs: kept} }
	}
	return f, columnsOf(kept)
}

func (p *pruning) withColumns(n *plan.WithColumnsNode, req names, ordered bool, path *plan.Path) (prFrame, names) {
	// The columns the node passes through: a with_columns owning a window
	// does not pass the window's temporaries on.
	in := n.Input.Schema()
	if w, owns := plan.OwnedWindow(n); owns {
		in = w.Input.Schema()
	}
	kept := make([]plan.Expr, 0, len(n.Exprs))
	// What the input must produce: req, except that an assigned name is
	// required below only for its place (needPosition, set here) or
	// because a kept entry reads it (below). req becomes it in place: the
	// entries' requirements above are read first.
	above := make([]uint8, len(n.Exprs))
	for i, e := range n.Exprs {
		above[i] = req[plan.OutputName(e)]
	}
	childReq := inPlace(req)
	// A dead partial entry may become a guard below the node
	// (pr.with_columns.guard) when error_guards is enabled: guarded lists
	// them, in list order; partialKept is the first kept entry that is not
	// total (no guard may run before it).
	_, owns := plan.OwnedWindow(n)
	guardDead := p.Enabled(FlagErrorGuards) && !owns
	var guarded []plan.Expr
	var partialKept plan.Expr
	keep := func(e plan.Expr) {
		kept = append(kept, e)
		if partialKept == nil && !p.table.Total(e, n.Input.Schema()) {
			partialKept = e
		}
	}
	for i, e := range n.Exprs {
		name := plan.OutputName(e)
		replaces := in.Index(name) >= 0
		// A column replaced in place keeps its place only while the input
		// still has it: when the order matters, the input must keep it.
		keepPlace := replaces && ordered
		switch {
		case above[i]&needValue != 0, above[i] != 0 && !replaces:
			// Read above, or an appended column whose place must stay.
			keep(e)
			if keepPlace {
				childReq.set(name, needPosition)
			} else {
				childReq.set(name, 0)
			}
			continue
		}
		d := p.budgeted(p.table.PruneEntry(n, e), n, path, e)
		p.record(d, p.nextItem(), n, path, e)
		if !d.Allowed && guardDead {
			gd, raises := p.table.GuardDeadEntry(n, e, partialKept)
			gd = p.budgeted(gd, n, path, e)
			p.record(gd, p.nextItem(), n, path, e)
			if gd.Allowed {
				d.Allowed = true
				if raises {
					guarded = append(guarded, plan.Unalias(e))
				}
			}
		}
		if d.Allowed {
			p.Count(counterPrunedProjections, 1)
		} else {
			keep(e)
		}
		if above[i] != 0 && replaces {
			// Only its place is needed: the input's column keeps it.
			childReq.set(name, needPosition)
		} else {
			childReq.set(name, 0)
		}
	}
	for _, e := range kept {
		eachColumn(e, func(c string) { childReq[c] |= needValue })
	}
	for _, e := range guarded {
		eachColumn(e, func(c string) { childReq[c] |= needValue })
	}
	// guard puts the dead entries' guard, if any, on the node's input.
	guard := func(child plan.Node) plan.Node {
		if len(guarded) == 0 {
			return child
		}
		return &plan.GuardNode{Input: child, Exprs: guarded}
	}
	f := prFrame{node: n, input: n.Input}
	if len(kept) == 0 {
		d := p.budgeted(p.table.PruneEmpty(n), n, path, nil)
		if d.Detail == "" && d.Allowed {
			d.Detail = "no entry left: the node goes"
		}
		p.record(d, p.nextItem(), n, path, nil)
		if d.Allowed {
			p.Count(counterDroppedNodes, 1)
			f.rebuild = guard
			return f, names(childReq)
		}
	}
	if len(kept) != len(n.Exprs) {
		f.rebuild = func(child plan.Node) plan.Node { return &plan.WithColumnsNode{Input: guard(child), Exprs: kept} }
	}
	return f, names(childReq)
}

// inPlace is a requirement changed in place.
type inPlace names

// set makes name's requirement v (0: not required, the name is absent).
func (r inPlace) set(name string, v uint8) {
	if v == 0 {
		delete(r, name)
	} else {
		r[name] = v
	}
}

func (p *pruning) scan(n *plan.ScanNode, req names, path *plan.Path) plan.Node {
	current := n.Columns
	if !n.Projected {
		current = n.SourceSchema.Names()
	}
	keep := make([]string, 0, len(current))
	for _, c := range current {
		if req[c] != 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == len(current) {
		return n
	}
	if !p.Enabled(FlagScanProjection) {
		p.recordFlag(FlagScanProjection, p.nextItem(), n, path, nil)
		return n
	}
	d, _ := p.table.PruneThrough(n)
	d = p.budgeted(d, n, path, nil)
	if d.Allowed {
		d.Detail = fmt.Sprintf("reads %d of %d columns", len(keep), len(current))
	}
	p.record(d, p.nextItem(), n, path, nil)
	if !d.Allowed {
		return n
	}
	ns := n.WithChildren(nil).(*plan.ScanNode)
	ns.Projected, ns.Columns = true, keep
	p.Count(counterScanProjections, 1)
	p.Count(counterDroppedColumns, len(current)-len(keep))
	return ns
}

// join narrows each input to the columns legality.PruneJoin says it must
// keep (arm join_pruning), by passing that requirement down; nothing is
// inserted, so a second run finds the same requirement.
func (p *pruning) join(n *plan.JoinNode, req names, ordered bool, path *plan.Path) plan.Node {
	reqL, reqR := allNames(n.Left), allNames(n.Right)
	d, keepL, keepR := p.table.PruneJoin(n, req.set())
	switch {
	case keepL == nil && keepR == nil:
	case !p.Enabled(FlagJoinPruning):
		p.recordFlag(FlagJoinPruning, p.nextItem(), n, path, nil)
	default:
		p.record(d, p.nextItem(), n, path, nil)
		if !d.Allowed {
			break
		}
		if keepL != nil {
			reqL = setOf(keepL)
		}
		if keepR != nil {
			reqR = setOf(keepR)
		}
	}
	left := p.visit(n.Left, reqL, ordered, path.Child(".left"))
	right := p.visit(n.Right, reqR, ordered, path.Child(".right"))
	if left == n.Left && right == n.Right {
		return n
	}
	return n.WithChildren([]plan.Node{left, right})
}

// union narrows the inputs of union u to the columns required above
// (arm union_pruning, the standard tier; pr.union.inputs), one
// application. The inputs must keep identical schemas, so each must
// produce exactly the same columns (pr.union): a column one input keeps
// anyway — a filter's own, a dead partial entry it must keep, an
// aggregate's output — is required of every input, until their
// predictions agree (widen). Without anything to narrow, or when the table
// or the rewrite limit refuses, every input keeps every column.
func (p *pruning) union(u *plan.UnionNode, req names, path *plan.Path) plan.Node {
	d, keep := p.table.PruneUnion(u, req.set())
	if keep != nil {
		d = p.budgeted(d, u, path, nil)
		p.record(d, p.nextItem(), u, path, nil)
	}
	if keep == nil || !d.Allowed {
		return rebuildChildren(u, path, func(c plan.Node, cp *plan.Path) plan.Node {
			return p.visit(c, allNames(c), true, cp)
		})
	}
	keep = p.widen(u, keep, path)
	if p.dry {
		// A prediction needs only the columns the union produces.
		if len(keep) == u.Schema().Len() {
			return u
		}
		return &plan.ProjectNode{Input: u, Exprs: columnExprs(keep)}
	}
	inputs := make([]plan.Node, len(u.Inputs))
	changed := false
	for i, c := range u.Inputs {
		in := p.visit(c, setOf(keep), true, path.Input(u, i))
		// The prediction assumed no rewrite limit: under one, an input may
		// keep more than predicted, and a projection to the union's
		// columns keeps the schemas identical.
		if got, resolved := producedColumns(in); !slices.Equal(got, keep) {
			d := p.table.PruneUnionInput(i, got, keep)
			p.record(d, p.nextItem(), u, path, nil)
			if d.Allowed {
				in = resolved
			} else {
				in = &plan.ProjectNode{Input: resolved, Exprs: columnExprs(keep)}
			}
		}
		inputs[i] = in
		changed = changed || in != c
	}
	if !changed {
		return u
	}
	return u.WithChildren(inputs)
}

// widen returns the columns every input of u can be narrowed to together:
// keep, plus each column an input pruned for keep would still produce,
// until the predictions agree (pr.union refuses each input its own
// columns; a table that lets it keep them leaves the union broken).
func (p *pruning) widen(u *plan.UnionNode, keep []string, path *plan.Path) []string {
	all := u.Schema().Names()
	for range all {
		wider := make(map[string]bool, len(all))
		for _, name := range keep {
			wider[name] = true
		}
		grew := false
		for i, in := range u.Inputs {
			got := p.predict(in, keep, path.Input(u, i))
			if slices.Equal(got, keep) {
				continue
			}
			d := p.table.PruneUnionInput(i, got, keep)
			p.record(d, p.nextItem(), u, path, nil)
			if d.Allowed {
				continue
			}
			for _, name := range got {
				if !wider[name] {
					wider[name], grew = true, true
				}
			}
		}
		if !grew {
			break
		}
		keep = keep[:0:0]
		for _, name := range all {
			if wider[name] {
				keep = append(keep, name)
			}
		}
	}
	return keep
}

// predictKey names a prediction: an input and the columns asked of it.
type predictKey struct {
	input plan.Node
	keep  string
}

// predict returns the columns input would produce pruned for keep, without
// recording anything: a dry pruning of it, on a scratch copy of the
// context (its own trace and counters, no rewrite limit, so that a limited
// run decides as the unlimited one), in which a union stands in for its
// inputs. The result depends only on the input and keep: it is kept for
// the rest of the run.
func (p *pruning) predict(input plan.Node, keep []string, path *plan.Path) []string {
	key := predictKey{input, strings.Join(keep, "\x00")}
	if got, ok := p.predicted[key]; ok {
		return got
	}
	scratch := *p.Context
	scratch.trace, scratch.counters, scratch.budget, scratch.misuse = traceBuf{}, make([]int, len(p.counters)), budget{}, nil
	dry := &pruning{Context: &scratch, dry: true, predicted: p.predicted, twins: p.twins}
	got, _ := producedColumns(dry.visit(input, setOf(keep), true, path))
	p.predicted[key] = got
	return got
}

// columnExprs returns a reference to each column.
func columnExprs(cols []string) []plan.Expr {
	out := make([]plan.Expr, len(cols))
	for i, name := range cols {
		out[i] = &plan.Column{Name: name}
	}
	return out
}

// producedColumns returns the columns n produces, and n resolved (a
// rebuilt node is resolved here: only its new nodes cost anything); nil
// columns when it does not resolve.
func producedColumns(n plan.Node) ([]string, plan.Node) {
	if !n.Resolved() {
		r, err := plan.Resolve(n)
		if err != nil {
			return nil, n
		}
		n = r
	}
	return n.Schema().Names(), n
}

func setOf(cols []string) names {
	m := make(names, len(cols))
	for _, c := range cols {
		m[c] = needValue
	}
	return m
}

// rowIndex narrows below a row_index (pr.row_index: its input needs what
// is required above, its own column aside) and drops the node when nothing
// above reads its column and its numbering cannot overflow
// (pr.row_index.drop).
func (p *pruning) rowIndex(n *plan.RowIndexNode, req names, path *plan.Path) (prFrame, names) {
	used := req[n.Name] != 0
	d, _ := p.table.PruneThrough(n)
	f, childReq := p.narrow1(n, d, req, path)
	if used {
		return f, childReq
	}
	drop := p.budgeted(p.table.PruneRowIndex(n), n, path, nil)
	if drop.Detail == "" && drop.Allowed {
		drop.Detail = "its column is not read: the node goes"
	}
	p.record(drop, p.nextItem(), n, path, nil)
	if drop.Allowed {
		p.Count(counterDroppedNodes, 1)
		f.rebuild = func(child plan.Node) plan.Node { return child }
	}
	return f, childReq
}

// asofJoin narrows an as-of join's inputs (pr.asof_join): each keeps its
// key and by-key columns and the columns read above, the left also those
// a kept right column shares a name with (its suffix stays).
func (p *pruning) asofJoin(n *plan.AsOfJoinNode, req names, ordered bool, path *plan.Path) plan.Node {
	reqL, reqR := allNames(n.Left), allNames(n.Right)
	d, keepL, keepR := p.table.PruneAsof(n, req.set())
	if keepL != nil || keepR != nil {
		p.record(d, p.nextItem(), n, path, nil)
		if d.Allowed {
			if keepL != nil {
				reqL = setOf(keepL)
			}
			if keepR != nil {
				reqR = setOf(keepR)
			}
		}
	}
	left := p.visit(n.Left, reqL, ordered, path.Child(".left"))
	right := p.visit(n.Right, reqR, ordered, path.Child(".right"))
	if left == n.Left && right == n.Right {
		return n
	}
	return n.WithChildren([]plan.Node{left, right})
}

// hstack narrows each input of an hstack to the columns required above
// that it produces (pr.hstack), keeping at least one column of each: an
// input nothing reads still runs, for its height and its errors. Its
// inputs keep their column order when the hstack's matters.
func (p *pruning) hstack(n *plan.HStackNode, req names, ordered bool, path *plan.Path) plan.Node {
	d, _ := p.table.PruneThrough(n)
	return rebuildChildren(n, path, func(c plan.Node, cp *plan.Path) plan.Node {
		r := maps.Clone(p.childReq(n, d, req, c, path))
		if len(r) == 0 && c.Schema().Len() > 0 {
			r = names{c.Schema().Field(0).Name: needValue}
		}
		return p.visit(c, r, ordered, cp)
	})
}

// unpivot narrows below an unpivot (pr.unpivot): its input needs the on
// columns and the index columns required above; the index narrows to
// those (an explicit list), so the node's output loses only columns
// nothing reads.
func (p *pruning) unpivot(n *plan.UnpivotNode, req names, path *plan.Path) (prFrame, names) {
	d, _ := p.table.PruneThrough(n)
	index := n.IndexColumns()
	keep := make([]string, 0, len(index))
	childReq := names{}
	for _, c := range index {
		if req[c] != 0 {
			keep = append(keep, c)
			childReq[c] = needValue
		}
	}
	for _, c := range n.On {
		childReq[c] = needValue
	}
	f := prFrame{node: n, input: n.Input}
	r := p.childReq(n, d, childReq, n.Input, path)
	if d.Allowed && len(keep) < len(index) {
		f.rebuild = func(child plan.Node) plan.Node {
			return &plan.UnpivotNode{Input: child, On: n.On, Index: keep, VariableName: n.VariableName, ValueName: n.ValueName}
		}
	}
	return f, r
}
