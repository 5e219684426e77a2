package rules

import (
	"slices"
	"sort"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// predicate_pushdown moves filter conjuncts down the plan, one conjunct at a
// time, as far as the legality table allows:
//
//	filter(a > 1)                      with_columns(b as c)
//	  with_columns(b as c)     ==>       scan t pushed=[a > 1 (exact)]
//	    scan t
//
// through project and with_columns when every expression there is total and
// the conjunct reads only same-name identity outputs (pp.project[.shadow],
// pp.with_columns[.shadow]), through sorts with total keys (pp.sort),
// through host operators declaring row_preserving, order_preserving,
// deterministic and column_passthrough when the conjunct reads only their
// input's columns (pp.extension.*), and into sources that accept the
// conjunct (pp.scan: Exact leaves the plan, Inexact stays above as well). It stops at every other node (pp.limit, pp.join, ...,
// pp.unknown) and never moves a conjunct below another filter's remaining
// conjuncts (pp.filter): adjacent filters are filter_fusion's. A filter's
// conjuncts separate only when those left behind are total (pp.split), and a
// non-deterministic conjunct never moves (pp.deterministic). "Total" is the
// tier's (legality.Table.Total): in the standard tier a conjunct also moves
// past another filter's total conjuncts when it is total (pp.filter.total),
// below an aggregate on its plain keys (pp.aggregate.total,
// pp.aggregate.keys), below a distinct on its subset (pp.distinct.keys),
// into every input of a union (pp.union.inputs) and, under the arm
// join_pushdown, into the inputs of a join that preserves their rows
// (pp.join.keys, pp.join.preserved, pp.join.key_equivalence; never into an
// input supplying nulls).
//
// The walk is one top-down pass. Pending conjuncts travel as a stack of
// groups, one group per original filter, the oldest (highest) on top; a
// group that stops stops every group above it. A node is crossed by the whole
// stack at a cost proportional to the node's own expressions: only the
// conjuncts reading a name the node redefines are asked about individually,
// found through an index of readers. So pushing 50,000 filters through
// 50,000 total with_columns costs linear time, and each conjunct's journey is
// recorded as one trace entry per cell it crossed under, at its landing.
func predicatePushdown() Rule {
	return Rule{
		Name:     FlagPredicatePushdown,
		Doc:      "moves filter conjuncts below total projections and sorts and into sources",
		Arms:     []string{FlagScanPushdown, FlagJoinPushdown},
		ArmTiers: map[string]Tier{FlagJoinPushdown: TierStandard},
		Counters: []CounterDef{{Name: counterPushedFilters, Position: 1}},
		Verbs: Verbs{Verb: Verb{Allowed: "pushed past", Refused: "stopped at"},
			Kinds: map[plan.Kind]Verb{plan.KindScan: {Allowed: "pushed into"}}},
		Application: "one conjunct moving below one node (a project or with_columns and the window it owns count as one; " +
			"into every input of a union, or into a join input with its key-equivalent copy in the other, as one), " +
			"and one conjunct handed to a source; a unit taken for a conjunct another cell then stops anyway " +
			"(pp.split, pp.filter) is not given back: the plan is then the one of the limit below, so a bisection never names it",
		Matches: []plan.Kind{plan.KindFilter},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			p := &pushdown{Context: c, byCell: map[legality.CellID][]int{}}
			return p.sink(root, &pdStack{}, &plan.Path{}), nil
		},
	}
}

// predicate_pushdown's flags: its name and its arm.
const (
	FlagPredicatePushdown = legality.RulePredicatePushdown
	// FlagScanPushdown gates the arm that hands conjuncts to sources
	// (ScanNode.Pushed).
	FlagScanPushdown = "scan_pushdown"
	// FlagJoinPushdown gates the standard tier's arm that moves conjuncts
	// into the inputs of joins (legality.Table.PushdownJoin); off, or under
	// the bounded tier's totality, a join stops every conjunct (pp.join).
	FlagJoinPushdown = "join_pushdown"
)

// counterPushedFilters counts the conjuncts moved below a node or handed to
// a source, each once.
const counterPushedFilters = "pushedFilters"

// pdConj is one pending conjunct.
type pdConj struct {
	item  int
	orig  plan.Expr // as the user wrote it: the trace's subject
	expr  plan.Expr // as it reads where it is now (differs only under a shadowing mutant)
	cols  []string
	group *pdGroup
	live  bool
	// det is the pp.deterministic decision taken when the conjunct joined;
	// a refused one pins the conjunct where it is.
	det    legality.Decision
	pinned bool
	// start is the number of steps logged when the conjunct joined: it
	// crossed every step logged after that.
	start   int
	scanned bool // a source accepted it
	copyOf  bool // a copy pushed into a further union input (mutants only)

	// scratch of one crossing
	epoch   int
	stay    bool
	stayDec legality.Decision
	next    plan.Expr
	support plan.PredicateSupport
}

// pdGroup is the pending part of one original filter.
type pdGroup struct {
	seq    int
	origin *plan.FilterNode
	// path locates origin in the plan the rule received: the trace names
	// this filter when its remaining conjuncts stop a higher group
	// (pp.filter).
	path  *plan.Path
	conjs []*pdConj
	// intact: conjs are exactly origin.Predicates.
	intact bool
}

// pdStack is the set of pending groups above the current node, oldest
// first.
type pdStack struct {
	groups  []*pdGroup
	readers map[string][]*pdConj
	pinned  []*pdConj
}

func (s *pdStack) empty() bool { return len(s.groups) == 0 }

func (s *pdStack) clear() {
	s.groups = nil
	s.readers = nil
	s.pinned = nil
}

func (s *pdStack) index(c *pdConj) {
	if s.readers == nil {
		s.readers = map[string][]*pdConj{}
	}
	for _, name := range c.cols {
		s.readers[name] = append(s.readers[name], c)
	}
}

// pdStep is one node the stack crossed (byCell indexes the steps by the
// cell they crossed under).
type pdStep struct {
	node plan.Node
	path *plan.Path
}

type pushdown struct {
	*Context
	steps     []pdStep
	byCell    map[legality.CellID][]int
	cellOrder []legality.CellID
	seq       int
	epoch     int
}

func (p *pushdown) step(n plan.Node, path *plan.Path, cell legality.CellID) {
	if _, seen := p.byCell[cell]; !seen {
		p.cellOrder = append(p.cellOrder, cell)
	}
	p.byCell[cell] = append(p.byCell[cell], len(p.steps))
	p.steps = append(p.steps, pdStep{node: n, path: path})
}

// sink returns the rewritten subtree n with the stack's conjuncts, which sit
// directly above n, placed as low as the table allows. It walks down chains
// of single-input nodes in a loop, keeping one small frame per node, and
// recurses only into the inputs of multi-input nodes: a 100,000-node chain
// needs no deep Go stack.
func (p *pushdown) sink(n plan.Node, st *pdStack, path *plan.Path) plan.Node {
	var frames []pdFrame
	var out plan.Node
down:
	for {
		var f pdFrame
		switch x := n.(type) {
		case *plan.FilterNode:
			p.join(st, x, path)
			n, path = x.Input, path.Child(".input")
			continue
		case *plan.ProjectNode:
			f, n, path = p.unary(x, x.Input, x.Exprs, st, path)
		case *plan.WithColumnsNode:
			f, n, path = p.unary(x, x.Input, x.Exprs, st, path)
		case *plan.SortNode:
			f, n, path = p.unary(x, x.Input, nil, st, path)
		case *plan.ReverseNode:
			// Like a sort without keys (pp.reverse): the kept rows are the
			// same, in the opposite order.
			f, n, path = p.unary(x, x.Input, nil, st, path)
		case *plan.ScanNode:
			out = p.scan(x, st, path)
			break down
		case *plan.JoinNode:
			if p.Enabled(FlagJoinPushdown) && p.table.Totality() == legality.StandardTotality {
				out = p.intoJoin(x, st, path)
			} else {
				out = p.barrier(n, st, path)
			}
			break down
		case *plan.ExtensionNode:
			if len(x.Inputs) != 1 {
				out = p.barrier(n, st, path)
				break down
			}
			f, n, path = p.extension(x, st, path)
		default:
			if len(n.Children()) != 1 {
				out = p.barrier(n, st, path)
				break down
			}
			f, n, path = p.barrier1(n, st, path)
		}
		frames = append(frames, f)
	}
	for i := len(frames) - 1; i >= 0; i-- {
		out = frames[i].up(p, out)
	}
	return out
}

// pdFrame is one single-input node on the way down: rebuilt over its new
// input on the way up, with the groups that stopped above it.
type pdFrame struct {
	node    plan.Node
	below   plan.Node        // the node's original input (or its window's)
	window  *plan.WindowNode // the window the node owns, if any
	stopped []*pdGroup
}

func (f *pdFrame) up(p *pushdown, newBelow plan.Node) plan.Node {
	out := f.node
	if newBelow != f.below {
		if f.window != nil {
			out = f.node.WithChildren([]plan.Node{f.window.WithChildren([]plan.Node{newBelow})})
		} else {
			out = f.node.WithChildren([]plan.Node{newBelow})
		}
	}
	return p.emit(f.stopped, out)
}

// join adds a filter's conjuncts to the bottom of the stack.
func (p *pushdown) join(st *pdStack, f *plan.FilterNode, path *plan.Path) {
	p.seq++
	g := &pdGroup{seq: p.seq, origin: f, path: path, intact: true}
	for _, e := range f.Predicates {
		c := &pdConj{item: p.nextItem(), orig: e, expr: e, cols: plan.Columns(e), group: g, live: true, start: len(p.steps)}
		c.det = p.table.PushdownConjunct(e)
		if !c.det.Allowed {
			c.pinned = true
			st.pinned = append(st.pinned, c)
		}
		g.conjs = append(g.conjs, c)
		st.index(c)
	}
	st.groups = append(st.groups, g)
}

// unary handles project, with_columns (with the window they own, if any)
// and sort: nodes the table may let conjuncts cross. It decides the
// crossing and returns the frame and the node to continue with.
func (p *pushdown) unary(n, input plan.Node, exprs []plan.Expr, st *pdStack, path *plan.Path) (pdFrame, plan.Node, *plan.Path) {
	below, belowPath := input, path.Child(".input")
	w, owns := plan.OwnedWindow(n)
	f := pdFrame{node: n}
	if owns {
		below, belowPath = w.Input, belowPath.Child(".input")
		f.window = w
	}
	f.below = below
	if st.empty() {
		// Nothing pending: no question for the table.
		st.pinned = nil
		return f, below, belowPath
	}
	x := crossing{nodes: []plan.Node{n}, paths: []*plan.Path{path}, checks: []*legality.NodeCheck{p.table.PushdownNode(n)}, defsOf: exprs}
	if owns {
		x.nodes = append(x.nodes, w)
		x.paths = append(x.paths, path.Child(".input"))
		x.checks = append(x.checks, p.table.PushdownNode(w))
		x.feasible = namesOf(w.Input.Schema())
		x.generic = x.checks[1].Decision().Allowed // a mutant: check each conjunct against the window's input
	}
	f.stopped = p.cross(st, x)
	return f, below, belowPath
}

// barrier1 handles a single-input node the default table stops conjuncts
// at (limit, slice, aggregate, distinct, window).
// When a mutant table lets them cross, those it can express below move into
// the input.
func (p *pushdown) barrier1(n plan.Node, st *pdStack, path *plan.Path) (pdFrame, plan.Node, *plan.Path) {
	child := n.Children()[0]
	if st.empty() {
		st.pinned = nil
		return pdFrame{node: n, below: child}, child, path.Input(n, 0)
	}
	chk := p.table.PushdownNode(n)
	x := crossing{nodes: []plan.Node{n}, paths: []*plan.Path{path}, checks: []*legality.NodeCheck{chk}, generic: true,
		feasible: map[string]bool{}}
	if chk.Decision().Allowed {
		switch n := n.(type) {
		case *plan.AggregateNode:
			if chk.Generic() {
				// The standard tier's cells decide which columns a
				// conjunct may read; below, any input column exists.
				x.feasible = namesOf(child.Schema())
				break
			}
			for _, k := range n.Keys {
				if legality.IsIdentity(k) {
					x.feasible[plan.OutputName(k)] = true
				}
			}
		case *plan.WindowNode:
			x.feasible = namesOf(n.Input.Schema())
		default:
			x.feasible = namesOf(child.Schema())
		}
	}
	// A refusal empties the stack: the input starts with nothing pending.
	f := pdFrame{node: n, below: child, stopped: p.cross(st, x)}
	return f, child, path.Input(n, 0)
}

// extension handles a one-input host operator. The table decides from the
// properties it declares (pp.extension.row_preserving, .order_preserving,
// .deterministic, then pp.extension.passthrough for each conjunct reading a
// column it adds, or any column when it does not pass its input's columns
// through), and stops every conjunct at an operator declaring nothing
// (pp.extension). A conjunct that crosses reads the same columns below, so
// it can only cross if they are input columns.
func (p *pushdown) extension(n *plan.ExtensionNode, st *pdStack, path *plan.Path) (pdFrame, plan.Node, *plan.Path) {
	child := n.Inputs[0]
	if st.empty() {
		st.pinned = nil
		return pdFrame{node: n, below: child}, child, path.Input(n, 0)
	}
	x := crossing{nodes: []plan.Node{n}, paths: []*plan.Path{path}, checks: []*legality.NodeCheck{p.table.PushdownNode(n)},
		feasible: namesOf(child.Schema())}
	f := pdFrame{node: n, below: child, stopped: p.cross(st, x)}
	return f, child, path.Input(n, 0)
}

// barrier handles the multi-input nodes (join, union, hstack,
// merge_sorted, extension) the default table stops conjuncts at. When a
// mutant table lets them cross, it moves those it can express below into a
// join's or an hstack's first input or into every union or merge_sorted
// input.
func (p *pushdown) barrier(n plan.Node, st *pdStack, path *plan.Path) plan.Node {
	children := n.Children()
	target := -1 // the child the moving stack enters
	var stopped []*pdGroup
	if st.empty() {
		st.pinned = nil
	} else {
		chk := p.table.PushdownNode(n)
		x := crossing{nodes: []plan.Node{n}, paths: []*plan.Path{path}, checks: []*legality.NodeCheck{chk}, generic: true,
			feasible: map[string]bool{}}
		if chk.Decision().Allowed && len(children) > 0 {
			switch n := n.(type) {
			case *plan.JoinNode:
				target, x.feasible = 0, namesOf(n.Left.Schema())
			case *plan.AsOfJoinNode:
				// Into the left input only (pp.asof_join): the left
				// columns keep their names.
				target, x.feasible = 0, namesOf(n.Left.Schema())
			case *plan.UnionNode, *plan.MergeSortedNode:
				// Every input has the same columns: a copy into each.
				target, x.feasible = 0, namesOf(children[0].Schema())
			case *plan.HStackNode:
				// Into the first input, whose columns it reads.
				target, x.feasible = 0, namesOf(children[0].Schema())
			}
		}
		stopped = p.cross(st, x)
	}
	stacks := make([]*pdStack, len(children))
	for i := range children {
		switch {
		case i == target:
			stacks[i] = st
		case target == 0 && (n.Kind() == plan.KindUnion || n.Kind() == plan.KindMergeSorted):
			stacks[i] = p.cloneStack(st)
		default:
			stacks[i] = &pdStack{}
		}
	}
	newChildren := make([]plan.Node, len(children))
	changed := false
	for i, c := range children {
		newChildren[i] = p.sink(c, stacks[i], path.Input(n, i))
		changed = changed || newChildren[i] != c
	}
	out := n
	if changed {
		out = n.WithChildren(newChildren)
	}
	return p.emit(stopped, out)
}

// intoJoin handles a join under the arm join_pushdown
// (legality.Table.PushdownJoin): each conjunct the table lets through moves
// into the input whose columns it reads, under that input's names; on an
// inner join one reading only keys also filters the other input by their
// partners (pp.join.key_equivalence: a copy, counted with the original).
// The others stay above the join.
func (p *pushdown) intoJoin(j *plan.JoinNode, st *pdStack, path *plan.Path) plan.Node {
	var stopped []*pdGroup
	sides := [2]*pdStack{{}, {}}
	if st.empty() {
		st.pinned = nil
	} else {
		chk := p.table.PushdownJoin(j)
		x := crossing{nodes: []plan.Node{j}, paths: []*plan.Path{path}, checks: []*legality.NodeCheck{chk}, generic: true,
			expressible: func(e plan.Expr) bool { return chk.JoinInput(e) >= 0 }}
		stopped = p.cross(st, x)
		sides = p.splitJoin(j, path, chk, st)
	}
	left := p.sink(j.Left, sides[0], path.Input(j, 0))
	right := p.sink(j.Right, sides[1], path.Input(j, 1))
	var out plan.Node = j
	if left != j.Left || right != j.Right {
		out = j.WithChildren([]plan.Node{left, right})
	}
	return p.emit(stopped, out)
}

// splitJoin deals the conjuncts moving below join j (what cross left in
// st) into one stack per input, each group split in two, renaming the
// right input's suffixed columns back to its own names, and adds the
// key-equivalent copies the table allows to the other input's stack.
func (p *pushdown) splitJoin(j *plan.JoinNode, path *plan.Path, chk *legality.NodeCheck, st *pdStack) [2]*pdStack {
	out := [2]*pdStack{{}, {}}
	renames := [2]map[string]plan.Expr{chk.JoinRenames(0), chk.JoinRenames(1)}
	for _, g := range st.groups {
		var parts [2]*pdGroup
		whole := true // the group goes to one input, as written
		part := func(side int) *pdGroup {
			if parts[side] == nil {
				parts[side] = &pdGroup{seq: g.seq, origin: g.origin, path: g.path}
			}
			return parts[side]
		}
		for _, c := range g.conjs {
			written := c.expr
			side := chk.JoinInput(written)
			if side < 0 {
				side = 0 // unreachable: cross keeps only conjuncts an input can evaluate
			}
			if e := substitute(written, renames[side]); e != written {
				c.expr, c.cols, whole = e, plan.Columns(e), false
			}
			c.group = part(side)
			c.group.conjs = append(c.group.conjs, c)
			ren, d, asked := chk.KeyCopy(written, side)
			if !asked {
				continue
			}
			p.record(d, c.item, j, path, c.orig)
			if !d.Allowed {
				continue
			}
			e := substitute(written, ren)
			other := part(1 - side)
			other.conjs = append(other.conjs, &pdConj{item: c.item, orig: c.orig, expr: e, cols: plan.Columns(e), group: other,
				live: true, det: c.det, start: len(p.steps), copyOf: true})
			whole = false
		}
		for side, part := range parts {
			if part == nil {
				continue
			}
			part.intact = g.intact && whole && parts[1-side] == nil
			out[side].groups = append(out[side].groups, part)
			for _, c := range part.conjs {
				out[side].index(c)
			}
		}
	}
	st.clear()
	return out
}

// cloneStack copies the moving stack for another union input (mutants
// only): the copies count as the same conjuncts.
func (p *pushdown) cloneStack(st *pdStack) *pdStack {
	cs := &pdStack{}
	for _, g := range st.groups {
		ng := &pdGroup{seq: g.seq, origin: g.origin, path: g.path, intact: g.intact}
		for _, c := range g.conjs {
			nc := &pdConj{item: c.item, orig: c.orig, expr: c.expr, cols: c.cols, group: ng, live: true, det: c.det,
				start: len(p.steps), copyOf: true}
			ng.conjs = append(ng.conjs, nc)
			cs.index(nc)
		}
		cs.groups = append(cs.groups, ng)
	}
	return cs
}

// crossing describes one attempt to move the whole stack below nodes (one
// node, or an owner and its window).
type crossing struct {
	nodes  []plan.Node
	paths  []*plan.Path
	checks []*legality.NodeCheck
	// defsOf are the node's expressions, from which the substitutions for
	// redefined names are built when a mutant lets a reader cross.
	defsOf []plan.Expr
	defs   map[string]plan.Expr
	// feasible, when set, lists the names a conjunct may read below;
	// expressible, when set, says whether a conjunct can be evaluated
	// below at all (a join: in one of its inputs).
	feasible    map[string]bool
	expressible func(plan.Expr) bool
	// generic: every conjunct is asked individually (a mutant crossing, or
	// the standard tier's crossings, whose cells decide per conjunct).
	generic bool
}

// cross decides which conjuncts of st move below the crossing's nodes. It
// leaves the moving ones in st, logs the crossing, and returns the groups
// that stop above, in stack order (oldest first), their conjuncts landed and
// their refusals recorded.
func (p *pushdown) cross(st *pdStack, x crossing) []*pdGroup {
	if st.empty() {
		st.pinned = nil
		return nil
	}
	for i, chk := range x.checks {
		if d := chk.Decision(); !d.Allowed {
			return p.stopAll(st, x.nodes[i], x.paths[i], d)
		}
	}
	at, atPath := x.nodes[0], x.paths[0]
	p.epoch++
	var suspects []*pdConj
	add := func(c *pdConj) {
		if c.live && c.epoch != p.epoch {
			c.epoch = p.epoch
			suspects = append(suspects, c)
		}
	}
	for _, c := range st.pinned {
		add(c)
	}
	st.pinned = nil
	if x.generic {
		for _, g := range st.groups {
			for _, c := range g.conjs {
				add(c)
			}
		}
	} else {
		for _, name := range x.checks[0].Watch() {
			list := st.readers[name]
			kept := list[:0]
			for _, c := range list {
				if c.live && slices.Contains(c.cols, name) {
					kept = append(kept, c)
					add(c)
				}
			}
			if len(kept) == 0 {
				delete(st.readers, name)
			} else {
				st.readers[name] = kept
			}
		}
	}
	last := x.checks[len(x.checks)-1].Decision()
	var stayers []*pdConj
	for _, c := range suspects {
		c.stay, c.next = false, nil
		if c.pinned {
			c.stay, c.stayDec = true, c.det
			stayers = append(stayers, c)
			continue
		}
		d := x.checks[0].Conjunct(c.expr)
		if !d.Allowed {
			c.stay, c.stayDec = true, d
			stayers = append(stayers, c)
			continue
		}
		next := c.expr
		if d.Cell != "" {
			// A mutant let a reader of a redefined name cross: it reads the
			// definition below.
			if x.defs == nil {
				x.defs = definitions(x.defsOf)
			}
			next = substitute(c.expr, x.defs)
		}
		if (x.feasible != nil && !allIn(plan.Columns(next), x.feasible)) || (x.expressible != nil && !x.expressible(c.expr)) {
			c.stay = true
			cell := last
			if x.checks[0].Generic() && d.Cell != "" {
				cell = d // a mutant of the conjunct's own cell let it through
			}
			c.stayDec = legality.Decision{Cell: cell.Cell, Verdict: cell.Verdict, Detail: "cannot be expressed below " + x.nodes[len(x.nodes)-1].Kind().String()}
			stayers = append(stayers, c)
			continue
		}
		c.next, c.stayDec = next, d
	}
	if p.budget.limited() {
		stayers = p.limitMoves(st, x, stayers)
	}
	var stopped []*pdGroup
	if len(stayers) > 0 {
		stopped = p.settle(st, stayers, at, atPath)
	}
	if !st.empty() {
		for i, n := range x.nodes {
			for _, d := range x.checks[i].Decisions() {
				if d.Cell != "" { // the standard tier's crossings decided per conjunct
					p.step(n, x.paths[i], d.Cell)
				}
			}
			if sc := x.checks[i].ShadowCell(); sc != "" {
				p.step(n, x.paths[i], sc)
			}
		}
		own := x.checks[0].Generic()
		for _, c := range suspects {
			if c.live && c.next != nil {
				if own && c.stayDec.Cell != "" && c.stayDec.Cell != x.checks[0].ShadowCell() {
					// A mutant of a refusing cell let it through: the
					// landing records the crossing's usual cells only.
					p.record(c.stayDec, c.item, at, atPath, c.orig)
				}
				if c.next != c.expr {
					c.stayDec.Detail = "substituted: `" + c.next.String() + "`"
					p.record(c.stayDec, c.item, at, atPath, c.orig)
					c.expr, c.cols = c.next, plan.Columns(c.next)
					c.group.intact = false
					st.index(c)
				}
			}
			c.next = nil
		}
	}
	return stopped
}

// settle splits the stack around the conjuncts that stay: groups below the
// lowest group holding a stayer move whole; that group splits (pp.split) or
// stops; the groups above it stop too unless pp.filter lets them pass.
func (p *pushdown) settle(st *pdStack, stayers []*pdConj, at plan.Node, atPath *plan.Path) []*pdGroup {
	lowest := stayers[0].group
	for _, c := range stayers {
		if c.group.seq > lowest.seq {
			lowest = c.group
		}
	}
	idx := sort.Search(len(st.groups), func(i int) bool { return st.groups[i].seq >= lowest.seq })
	var stopped, moving []*pdGroup
	stop, move := p.resolveGroup(lowest, at, atPath)
	if stop != nil {
		stopped = append(stopped, stop)
	}
	if move != nil {
		moving = append(moving, move)
	}
	if idx > 0 {
		// staying holds the conjuncts the groups below group i leave above
		// at: its movers would pass them.
		staying := p.table.NewMovability(at.Schema())
		if stop != nil {
			addExprs(staying, stop.conjs)
		}
		// below is the filter directly under group i, whose conjuncts
		// stopped: pp.filter decides at that filter, not at the node the
		// lower group stopped at.
		below := st.groups[idx]
		for i := idx - 1; i >= 0; i-- {
			g := st.groups[i]
			var movers []plan.Expr
			for _, c := range g.conjs {
				if !c.stay {
					movers = append(movers, c.expr)
				}
			}
			past := p.table.PushdownPastFilter(movers, staying)
			if !past.Allowed {
				p.stopAbove(g, below, past, at, atPath, func(c *pdConj) (legality.Decision, bool) { return c.stayDec, c.stay })
				stopped = append(stopped, g)
				below = g
				addExprs(staying, g.conjs)
				continue
			}
			// A mutant: this group is decided on its own.
			s, m := p.resolveGroup(g, at, atPath)
			if s != nil {
				stopped = append(stopped, s)
			}
			if m != nil {
				for _, c := range m.conjs {
					p.record(past, c.item, below.origin, below.path, c.orig)
				}
				moving = append(moving, m)
			}
			if s != nil {
				below = g
				addExprs(staying, s.conjs)
			}
		}
	}
	bySeq := func(gs []*pdGroup) {
		sort.Slice(gs, func(i, j int) bool { return gs[i].seq < gs[j].seq })
	}
	bySeq(stopped)
	bySeq(moving)
	rest := st.groups[idx+1:]
	switch {
	case len(moving) == 0:
		st.groups = rest
	case len(moving) == 1 && moving[0] == st.groups[idx]:
		st.groups = st.groups[idx:]
	default:
		st.groups = append(moving, rest...)
	}
	if st.empty() {
		st.clear()
	}
	return stopped
}

// stopAbove lands every conjunct of group g, which pp.filter (decision
// past, a refusal) keeps above the filter of the group below it: a
// conjunct its own decision already stopped (own reports it) lands at the
// node at, where that decision was taken; the others land at below's
// filter, refused by past.
func (p *pushdown) stopAbove(g, below *pdGroup, past legality.Decision, at plan.Node, atPath *plan.Path,
	own func(*pdConj) (legality.Decision, bool)) {
	for _, c := range g.conjs {
		if d, ok := own(c); ok {
			p.land(c, at, atPath)
			p.record(d, c.item, at, atPath, c.orig)
			continue
		}
		p.land(c, below.origin, below.path)
		p.record(past, c.item, below.origin, below.path, c.orig)
	}
}

// resolveGroup decides one group holding stayers: the stayers stop, the
// others move if pp.split lets the group separate. It returns the part that
// stops and the part that moves (either may be nil).
func (p *pushdown) resolveGroup(g *pdGroup, at plan.Node, atPath *plan.Path) (stop, move *pdGroup) {
	var stays, movers []*pdConj
	for _, c := range g.conjs {
		if c.stay {
			stays = append(stays, c)
		} else {
			movers = append(movers, c)
		}
	}
	if len(stays) == 0 {
		return nil, g
	}
	if len(movers) > 0 {
		exprs := make([]plan.Expr, len(stays))
		for i, c := range stays {
			exprs[i] = c.expr
		}
		d := p.table.PushdownSplit(exprs, at.Schema())
		if d.Allowed {
			for _, c := range movers {
				p.record(d, c.item, at, atPath, c.orig)
			}
			for _, c := range stays {
				p.land(c, at, atPath)
				p.record(c.stayDec, c.item, at, atPath, c.orig)
			}
			g.conjs = movers
			g.intact = false
			return &pdGroup{seq: g.seq, origin: g.origin, conjs: stays}, g
		}
		for _, c := range movers {
			c.stay, c.stayDec, c.next = true, d, nil
		}
	}
	for _, c := range g.conjs {
		p.land(c, at, atPath)
		p.record(c.stayDec, c.item, at, atPath, c.orig)
	}
	return g, nil
}

// stopAll stops every pending conjunct at node n because of decision d (a
// pinned conjunct records its own refusal).
func (p *pushdown) stopAll(st *pdStack, n plan.Node, path *plan.Path, d legality.Decision) []*pdGroup {
	groups := st.groups
	for _, g := range groups {
		for _, c := range g.conjs {
			dd := d
			if c.pinned {
				dd = c.det
			}
			p.land(c, n, path)
			p.record(dd, c.item, n, path, c.orig)
		}
	}
	st.clear()
	return groups
}

// land ends a conjunct's journey: if it moved, it records one allowed entry
// per cell it crossed under (and its pp.deterministic decision) and counts
// it once in pushedFilters.
func (p *pushdown) land(c *pdConj, at plan.Node, atPath *plan.Path) {
	if !c.live {
		return
	}
	c.live = false
	if c.start >= len(p.steps) && !c.scanned {
		return
	}
	if c.start < len(p.steps) {
		at, atPath = p.steps[c.start].node, p.steps[c.start].path
	}
	p.record(c.det, c.item, at, atPath, c.orig)
	if c.start < len(p.steps) {
		for _, cell := range p.cellOrder {
			idx := p.byCell[cell]
			i := sort.SearchInts(idx, c.start)
			if i == len(idx) {
				continue
			}
			s := p.steps[idx[i]]
			p.add(Entry{Cell: cell, Allowed: true, Item: c.item,
				Count: len(idx) - i, node: s.node, path: s.path, subject: c.orig})
		}
	}
	if !c.copyOf {
		p.Count(counterPushedFilters, 1)
	}
}

// scan offers the pending conjuncts to the source, lowest group first. Each
// conjunct is decided by pp.scan (the source's classification); an Exact one
// joining the pushed list after another filter's Exact conjuncts by
// pp.scan.merge; and a group whose conjuncts would separate by pp.split
// (PushdownScanSplit).
func (p *pushdown) scan(s *plan.ScanNode, st *pdStack, path *plan.Path) plan.Node {
	if st.empty() {
		st.pinned = nil
		return s
	}
	if !p.Enabled(FlagScanPushdown) {
		groups := st.groups
		for _, g := range groups {
			for _, c := range g.conjs {
				p.land(c, s, path)
				p.recordFlag(FlagScanPushdown, c.item, s, path, c.orig)
			}
		}
		st.clear()
		return p.emit(groups, s)
	}
	// Conjuncts an earlier run already handed to the source as Inexact stay
	// above, unchanged and not offered again.
	already := map[uint64][]plan.Expr{}
	for _, pp := range s.Pushed {
		if pp.Support == plan.Inexact {
			fp := plan.ExprFingerprint(pp.Expr)
			already[fp] = append(already[fp], pp.Expr)
		}
	}
	isAlready := func(e plan.Expr) bool {
		for _, x := range already[plan.ExprFingerprint(e)] {
			if plan.ExprEqual(x, e) {
				return true
			}
		}
		return false
	}
	var offer []*pdConj
	for gi := len(st.groups) - 1; gi >= 0; gi-- {
		for _, c := range st.groups[gi].conjs {
			c.support, c.stay = plan.Unsupported, false
			switch {
			case c.pinned:
			case len(already) > 0 && isAlready(c.expr):
				c.stay = true // already in the source: nothing to decide
			default:
				offer = append(offer, c)
			}
		}
	}
	if len(offer) > 0 {
		exprs := make([]plan.Expr, len(offer))
		for i, c := range offer {
			exprs[i] = c.expr
		}
		sup, err := plan.ClassifyPredicates(s.Source, exprs)
		if err != nil {
			// Not a legality decision: the host's answer is discarded and
			// every conjunct counts as Unsupported.
			p.add(Entry{Detail: "source error: " + err.Error(), node: s, path: path})
		}
		for i, c := range offer {
			c.support = sup[i]
		}
	}
	var pushed []plan.PushedPredicate
	var stopped []*pdGroup
	blocked := false
	// exactBefore: the pushed list already holds an Exact conjunct of
	// another filter (an earlier run's, or a lower group's).
	exactBefore := false
	for _, pp := range s.Pushed {
		exactBefore = exactBefore || pp.Support == plan.Exact
	}
	// staying: the conjuncts the lower groups leave above the scan.
	staying := p.table.NewMovability(s.SourceSchema)
	for gi := len(st.groups) - 1; gi >= 0; gi-- {
		g := st.groups[gi]
		// passed: the decision that let g's conjuncts past the lower
		// groups' filter, recorded for those the source takes.
		var passed *legality.Decision
		var below *pdGroup
		if blocked {
			var movers []plan.Expr
			for _, c := range g.conjs {
				if !c.pinned {
					movers = append(movers, c.expr)
				}
			}
			past := p.table.PushdownPastFilter(movers, staying)
			// The filter directly below g: the nearest lower group that
			// kept conjuncts above the scan. pp.filter decides there.
			below = stopped[len(stopped)-1]
			if !past.Allowed {
				p.stopAbove(g, below, past, s, path, func(c *pdConj) (legality.Decision, bool) { return c.det, c.pinned })
				stopped = append(stopped, g)
				addExprs(staying, g.conjs)
				continue
			}
			passed = &past
		}
		fate := make([]legality.ScanFate, len(g.conjs))
		decided := make([]legality.Decision, len(g.conjs))
		// merged: the pp.scan.merge decisions that let a conjunct join.
		var merged []legality.Decision
		for i, c := range g.conjs {
			switch {
			case c.pinned:
				decided[i] = c.det
			case c.stay: // already pushed
			default:
				d := p.budgeted(p.table.PushdownScan(c.support), s, path, c.orig)
				decided[i] = d
				if !d.Allowed {
					continue
				}
				if c.support == plan.Inexact {
					fate[i] = legality.ScanInexact
					continue
				}
				if exactBefore {
					m := p.table.PushdownScanMerge(c.expr, s.SourceSchema)
					if !m.Allowed {
						decided[i] = m
						continue
					}
					if merged == nil {
						merged = make([]legality.Decision, len(g.conjs))
					}
					merged[i] = m
				}
				fate[i] = legality.ScanExact
			}
		}
		// The source may skip rows by an Inexact conjunct before its Exact
		// conjuncts meet them: pp.scan.skip (skip holds its allowing
		// decision, recorded with the conjunct's others).
		var skip *legality.Decision
		if slices.Contains(fate, legality.ScanInexact) {
			var exact []plan.Expr
			for _, lists := range [][]plan.PushedPredicate{s.Pushed, pushed} {
				for _, pp := range lists {
					if pp.Support == plan.Exact {
						exact = append(exact, pp.Expr)
					}
				}
			}
			for i, c := range g.conjs {
				if fate[i] == legality.ScanExact {
					exact = append(exact, c.expr)
				}
			}
			if len(exact) > 0 {
				d := p.table.PushdownScanSkip(exact, s.SourceSchema)
				if d.Allowed {
					skip = &d
				} else {
					for i := range g.conjs {
						if fate[i] == legality.ScanInexact {
							fate[i], decided[i] = legality.ScanStays, d
						}
					}
				}
			}
		}
		// Conjuncts left above now see fewer rows: pp.split.
		exprs := make([]plan.Expr, len(g.conjs))
		for i, c := range g.conjs {
			exprs[i] = c.expr
		}
		if d := p.table.PushdownScanSplit(exprs, fate, s.SourceSchema); d.Cell != "" {
			for i, c := range g.conjs {
				if fate[i] == legality.ScanStays {
					continue
				}
				if d.Allowed {
					p.record(d, c.item, s, path, c.orig)
				} else {
					fate[i], decided[i] = legality.ScanStays, d
				}
			}
		}
		var remain []*pdConj
		for i, c := range g.conjs {
			if fate[i] != legality.ScanStays {
				c.scanned = true
				pushed = append(pushed, plan.PushedPredicate{Expr: c.expr, Support: c.support})
			}
			p.land(c, s, path)
			if passed != nil && fate[i] != legality.ScanStays {
				p.record(*passed, c.item, below.origin, below.path, c.orig)
			}
			if decided[i].Cell != "" {
				p.record(decided[i], c.item, s, path, c.orig)
			}
			if fate[i] == legality.ScanExact && merged != nil && merged[i].Cell != "" {
				p.record(merged[i], c.item, s, path, c.orig)
			}
			if fate[i] == legality.ScanInexact && skip != nil {
				p.record(*skip, c.item, s, path, c.orig)
			}
			c.stay = false
			if fate[i] != legality.ScanExact {
				remain = append(remain, c)
			}
		}
		for i := range g.conjs {
			exactBefore = exactBefore || fate[i] == legality.ScanExact
		}
		if len(remain) > 0 {
			blocked = true
			addExprs(staying, remain)
			if len(remain) != len(g.conjs) {
				g.intact = false
			}
			g.conjs = remain
			stopped = append(stopped, g)
		}
	}
	st.clear()
	// stopped was built lowest first; emit wants oldest first.
	for i, j := 0, len(stopped)-1; i < j; i, j = i+1, j-1 {
		stopped[i], stopped[j] = stopped[j], stopped[i]
	}
	var out plan.Node = s
	if len(pushed) > 0 {
		ns := s.WithChildren(nil).(*plan.ScanNode)
		ns.Pushed = append(append([]plan.PushedPredicate(nil), s.Pushed...), pushed...)
		out = ns
	}
	return p.emit(stopped, out)
}

// addExprs adds the expressions of conjuncts to m.
func addExprs(m *legality.Movability, conjuncts []*pdConj) {
	for _, c := range conjuncts {
		m.Add(c.expr)
	}
}

// emit stacks the stopped groups, oldest on top, as filters over below,
// reusing an original filter node when nothing about it changed.
func (p *pushdown) emit(groups []*pdGroup, below plan.Node) plan.Node {
	out := below
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if len(g.conjs) == 0 {
			continue
		}
		if g.intact && g.origin.Input == out {
			out = g.origin
			continue
		}
		exprs := make([]plan.Expr, len(g.conjs))
		for j, c := range g.conjs {
			exprs[j] = c.expr
		}
		out = &plan.FilterNode{Input: out, Predicates: exprs}
	}
	return out
}

// definitions maps each name a projection defines other than by a same-name
// identity to its defining expression (aliases stripped).
func definitions(exprs []plan.Expr) map[string]plan.Expr {
	defs := map[string]plan.Expr{}
	for _, e := range exprs {
		if !legality.IsIdentity(e) {
			defs[plan.OutputName(e)] = plan.Unalias(e)
		}
	}
	return defs
}

// substitute replaces each column reference that defs names by its
// definition, copying only the changed path.
func substitute(e plan.Expr, defs map[string]plan.Expr) plan.Expr {
	if c, ok := e.(*plan.Column); ok {
		if d, ok := defs[c.Name]; ok {
			if dc, same := d.(*plan.Column); same && dc.Name == c.Name && plan.Origin(dc) == nil && plan.Origin(c) == nil {
				return d // a same-name identity: the text does not change
			}
			// The definition stands in for the reference as written: an
			// error raised around it names the reference (plan.Written).
			return plan.WithOrigin(d, c)
		}
		return e
	}
	args := e.Children()
	if len(args) == 0 {
		return e
	}
	var out []plan.Expr
	for i, a := range args {
		s := substitute(a, defs)
		if s != a && out == nil {
			out = append([]plan.Expr(nil), args...)
		}
		if out != nil {
			out[i] = s
		}
	}
	if out == nil {
		return e
	}
	return e.WithChildren(out)
}

func namesOf(s plan.Schema) map[string]bool {
	m := make(map[string]bool, s.Len())
	for i := 0; i < s.Len(); i++ {
		m[s.Field(i).Name] = true
	}
	return m
}

func allIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if !set[n] {
			return false
		}
	}
	return true
}
