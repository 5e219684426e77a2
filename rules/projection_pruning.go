package rules

import (
	"fmt"

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
// (pr.project, pr.with_columns); an emptied with_columns goes too;
// requirements pass through filters, sorts, limits and slices with their own
// columns added (pr.passthrough), distinct adds its subset (pr.distinct), a
// window its over() columns (pr.window); an aggregate needs exactly its key
// and aggregate columns (pr.aggregate); a scan reads only what is needed
// (pr.scan, arm scan_projection); a join's inputs are narrowed by a
// projection directly above each (pr.join, arm join_pruning) and nothing
// below a join is pruned; unions, extensions and unknown nodes keep every
// input column (pr.union, pr.extension, pr.unknown).
func projectionPruning() Rule {
	return Rule{
		Name: FlagProjectionPruning,
		Arms: []string{FlagScanProjection, FlagJoinPruning},
		Matches: []plan.Kind{plan.KindProject, plan.KindWithColumns, plan.KindScan, plan.KindAggregate,
			plan.KindJoin, plan.KindFilter, plan.KindSort, plan.KindLimit, plan.KindSlice, plan.KindDistinct,
			plan.KindWindow, plan.KindUnion, plan.KindExtension},
		Cells: legality.Default().CellsOf(legality.RuleProjectionPruning),
		Doc:   "drops dead total entries, emptied with_columns nodes and unread source columns",
		rewrite: func(r *run, root plan.Node) (plan.Node, error) {
			pr := &pruning{run: r}
			return pr.visit(root, allNames(root), true, &tpath{}), nil
		},
	}
}

type pruning struct{ *run }

// names maps each column a node must produce to why: needValue (something
// reads it) and/or needPosition (it must exist where it is, so that a
// with_columns above replacing it in place keeps the column order). A
// missing name is not required.
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

// with returns req plus the columns es read, copying req only if it grows.
func (req names) with(es ...plan.Expr) names {
	var out names
	for _, e := range es {
		for _, c := range plan.Columns(e) {
			if req[c]&needValue != 0 || out[c]&needValue != 0 {
				continue
			}
			if out == nil {
				out = make(names, len(req)+4)
				for k, v := range req {
					out[k] = v
				}
			}
			out[c] |= needValue
		}
	}
	if out == nil {
		return req
	}
	return out
}

func columnsOf(es []plan.Expr) names {
	m := names{}
	for _, e := range es {
		for _, c := range plan.Columns(e) {
			m[c] = needValue
		}
	}
	return m
}

// visit prunes below n, which must produce the columns req names. ordered
// says whether some consumer above depends on the order of n's columns (the
// root, a union, an extension), up to the nearest project or aggregate,
// whose output order is its own.
func (p *pruning) visit(n plan.Node, req names, ordered bool, path *tpath) plan.Node {
	switch n := n.(type) {
	case *plan.ScanNode:
		return p.scan(n, req, path)
	case *plan.ProjectNode:
		return p.project(n, req, path)
	case *plan.WithColumnsNode:
		return p.withColumns(n, req, ordered, path)
	case *plan.JoinNode:
		return p.join(n, req, ordered, path)
	case *plan.FilterNode:
		return p.through(n, req, ordered, path, n.Predicates...)
	case *plan.SortNode:
		keys := make([]plan.Expr, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = k.Expr
		}
		return p.through(n, req, ordered, path, keys...)
	case *plan.LimitNode, *plan.SliceNode:
		return p.through(n, req, ordered, path)
	case *plan.DistinctNode:
		d, extra := p.table.PruneThrough(n)
		childReq := req
		for _, c := range extra {
			childReq = childReq.with(&plan.Column{Name: c})
		}
		return p.descend(n, d, childReq, ordered, path)
	case *plan.WindowNode:
		d, extra := p.table.PruneThrough(n)
		in := n.Input.Schema()
		childReq := names{}
		for c, v := range req {
			if in.Index(c) >= 0 {
				childReq[c] = v
			}
		}
		for _, c := range extra {
			childReq[c] |= needValue
		}
		return p.descend(n, d, childReq, ordered, path)
	case *plan.AggregateNode:
		d, _ := p.table.PruneThrough(n)
		return p.descend(n, d, columnsOf(append(append([]plan.Expr(nil), n.Keys...), n.Aggs...)), false, path)
	}
	// union, extension, anything else: every input keeps every column
	// unless a mutant table says otherwise; their inputs' order matters.
	d, _ := p.table.PruneThrough(n)
	return p.descend(n, d, req, true, path)
}

// through handles nodes that pass their input's columns through, needing
// their own expressions' columns too.
func (p *pruning) through(n plan.Node, req names, ordered bool, path *tpath, own ...plan.Expr) plan.Node {
	d, _ := p.table.PruneThrough(n)
	return p.descend(n, d, req.with(own...), ordered, path)
}

// descend visits n's children with childReq when d allows narrowing (each
// child gets the names it has), else with every column of each child.
func (p *pruning) descend(n plan.Node, d legality.Decision, childReq names, ordered bool, path *tpath) plan.Node {
	children := n.Children()
	narrowed := false
	out := rebuildChildrenIndexed(n, path, func(i int, c plan.Node, cp *tpath) plan.Node {
		all := allNames(c)
		r := all
		if d.Allowed {
			r = names{}
			for k, v := range childReq {
				if all[k] != 0 && v != 0 {
					r[k] = v
				}
			}
		}
		if len(r) < len(all) {
			narrowed = true
		} else if !d.Allowed && len(childReq) < len(all) {
			p.record(FlagProjectionPruning, d, p.nextItem(), n, path, nil)
		}
		return p.visit(c, r, ordered, cp)
	})
	if narrowed && len(children) > 0 {
		p.record(FlagProjectionPruning, d, p.nextItem(), n, path, nil)
	}
	return out
}

func (p *pruning) project(n *plan.ProjectNode, req names, path *tpath) plan.Node {
	kept := make([]plan.Expr, 0, len(n.Exprs))
	for _, e := range n.Exprs {
		if req[plan.OutputName(e)] != 0 {
			kept = append(kept, e)
			continue
		}
		d := p.table.PruneEntry(n, e)
		p.record(FlagProjectionPruning, d, p.nextItem(), n, path, e)
		if d.Allowed {
			p.counters.PrunedProjections++
			continue
		}
		kept = append(kept, e)
	}
	child := p.visit(n.Input, columnsOf(kept), false, path.child(".input"))
	if len(kept) == len(n.Exprs) && child == n.Input {
		return n
	}
	return &plan.ProjectNode{Input: child, Exprs: kept}
}

func (p *pruning) withColumns(n *plan.WithColumnsNode, req names, ordered bool, path *tpath) plan.Node {
	// The columns the node passes through: a with_columns owning a window
	// does not pass the window's temporaries on.
	in := n.Input.Schema()
	if w, owns := n.Input.(*plan.WindowNode); owns {
		in = w.Input.Schema()
	}
	kept := make([]plan.Expr, 0, len(n.Exprs))
	assigned := names{}
	childReq := names{}
	for _, e := range n.Exprs {
		name := plan.OutputName(e)
		assigned[name] = needValue
		replaces := in.Index(name) >= 0
		// A column replaced in place keeps its place only while the input
		// still has it: when the order matters, the input must keep it.
		keepPlace := replaces && ordered
		switch {
		case req[name]&needValue != 0, req[name] != 0 && !replaces:
			// Read above, or an appended column whose place must stay.
			kept = append(kept, e)
			if keepPlace {
				childReq[name] |= needPosition
			}
			continue
		}
		d := p.table.PruneEntry(n, e)
		p.record(FlagProjectionPruning, d, p.nextItem(), n, path, e)
		if d.Allowed {
			p.counters.PrunedProjections++
		} else {
			kept = append(kept, e)
		}
		if req[name] != 0 && replaces {
			// Only its place is needed: the input's column keeps it.
			childReq[name] |= needPosition
		}
	}
	for _, e := range kept {
		for _, c := range plan.Columns(e) {
			childReq[c] |= needValue
		}
	}
	for c, v := range req {
		if assigned[c] == 0 {
			childReq[c] |= v
		}
	}
	child := p.visit(n.Input, childReq, ordered, path.child(".input"))
	if len(kept) == 0 {
		d := p.table.PruneEmpty(n)
		if d.Detail == "" && d.Allowed {
			d.Detail = "no entry left: the node goes"
		}
		p.record(FlagProjectionPruning, d, p.nextItem(), n, path, nil)
		if d.Allowed {
			p.counters.DroppedNodes++
			return child
		}
	}
	if len(kept) == len(n.Exprs) && child == n.Input {
		return n
	}
	return &plan.WithColumnsNode{Input: child, Exprs: kept}
}

func (p *pruning) scan(n *plan.ScanNode, req names, path *tpath) plan.Node {
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
	if !p.flags.ScanProjection {
		p.recordFlag(FlagProjectionPruning, FlagScanProjection, p.nextItem(), n, path, nil)
		return n
	}
	d, _ := p.table.PruneThrough(n)
	if d.Allowed {
		d.Detail = fmt.Sprintf("reads %d of %d columns", len(keep), len(current))
	}
	p.record(FlagProjectionPruning, d, p.nextItem(), n, path, nil)
	if !d.Allowed {
		return n
	}
	ns := n.WithChildren(nil).(*plan.ScanNode)
	ns.Projected, ns.Columns = true, keep
	p.counters.ScanProjections++
	p.counters.DroppedColumns += len(current) - len(keep)
	return ns
}

// join narrows each input to the columns legality.PruneJoin says it must
// keep (arm join_pruning), by passing that requirement down; nothing is
// inserted, so a second run finds the same requirement.
func (p *pruning) join(n *plan.JoinNode, req names, ordered bool, path *tpath) plan.Node {
	reqL, reqR := allNames(n.Left), allNames(n.Right)
	d, keepL, keepR := p.table.PruneJoin(n, req.set())
	switch {
	case keepL == nil && keepR == nil:
	case !p.flags.JoinPruning:
		p.recordFlag(FlagProjectionPruning, FlagJoinPruning, p.nextItem(), n, path, nil)
	default:
		p.record(FlagProjectionPruning, d, p.nextItem(), n, path, nil)
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
	left := p.visit(n.Left, reqL, ordered, path.child(".left"))
	right := p.visit(n.Right, reqR, ordered, path.child(".right"))
	if left == n.Left && right == n.Right {
		return n
	}
	return n.WithChildren([]plan.Node{left, right})
}

func setOf(cols []string) names {
	m := make(names, len(cols))
	for _, c := range cols {
		m[c] = needValue
	}
	return m
}

// rebuildChildrenIndexed is rebuildChildren with the child's index.
func rebuildChildrenIndexed(n plan.Node, path *tpath, visit func(int, plan.Node, *tpath) plan.Node) plan.Node {
	children := n.Children()
	if len(children) == 0 {
		return n
	}
	var out []plan.Node
	for i, c := range children {
		nc := visit(i, c, childPath(path, n, i))
		if nc != c && out == nil {
			out = append([]plan.Node(nil), children...)
		}
		if out != nil {
			out[i] = nc
		}
	}
	if out == nil {
		return n
	}
	return n.WithChildren(out)
}
