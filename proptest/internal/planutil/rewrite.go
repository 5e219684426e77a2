package planutil

import (
	"github.com/dfopt/dfopt/plan"
)

// RebindScans returns the plan with every scan of a table in remap reading
// the mapped table instead (its schema captured afresh; every other field
// of the scan kept). Shared subtrees stay shared; untouched subtrees are
// returned as they are.
func RebindScans(root plan.Node, remap map[*plan.Table]*plan.Table) plan.Node {
	return ReplaceSources(root, func(t *plan.Table) (plan.Source, bool) {
		nt, ok := remap[t]
		return nt, ok
	})
}

// ReplaceSources returns the plan with every scan of a table for which
// with returns a source reading that source instead (its schema captured
// afresh; every other field of the scan kept). Shared subtrees stay shared;
// untouched subtrees are returned as they are.
func ReplaceSources(root plan.Node, with func(*plan.Table) (plan.Source, bool)) plan.Node {
	return Rewrite(root, func(n plan.Node) plan.Node {
		s, ok := n.(*plan.ScanNode)
		if !ok {
			return n
		}
		t, ok := s.Source.(*plan.Table)
		if !ok {
			return n
		}
		src, ok := with(t)
		if !ok {
			return n
		}
		// An unresolved copy keeps every field of the scan (projection,
		// pushed conjuncts, hints) but its source.
		ns := s.WithChildren(nil).(*plan.ScanNode)
		ns.Source, ns.SourceSchema = src, src.Schema()
		return ns
	})
}

// Rewrite rebuilds the plan bottom-up: children first, then fn on the node
// (rebuilt over its new children when any changed). A subtree shared by
// pointer is rewritten once and stays shared. fn returns its argument to
// keep a node.
func Rewrite(root plan.Node, fn func(plan.Node) plan.Node) plan.Node {
	memo := map[plan.Node]plan.Node{}
	var walk func(n plan.Node) plan.Node
	walk = func(n plan.Node) plan.Node {
		if n == nil {
			return nil
		}
		if r, ok := memo[n]; ok {
			return r
		}
		ch := n.Children()
		out := n
		if len(ch) > 0 {
			nc := make([]plan.Node, len(ch))
			changed := false
			for i, c := range ch {
				nc[i] = walk(c)
				changed = changed || nc[i] != c
			}
			if changed {
				out = n.WithChildren(nc)
			}
		}
		out = fn(out)
		memo[n] = out
		return out
	}
	return walk(root)
}

// ReplaceNode returns the plan with every occurrence of old (by pointer)
// replaced by repl.
func ReplaceNode(root, old, repl plan.Node) plan.Node {
	// old's own children are rebuilt unchanged (a plan has no cycles), so
	// fn sees old itself.
	return Rewrite(root, func(n plan.Node) plan.Node {
		if n == old {
			return repl
		}
		return n
	})
}

// ScannedTables returns the tables some scan of the plan reads.
func ScannedTables(root plan.Node) map[*plan.Table]bool {
	used := map[*plan.Table]bool{}
	plan.WalkNodes(root, func(n plan.Node) bool {
		if s, ok := n.(*plan.ScanNode); ok {
			if t, ok := s.Source.(*plan.Table); ok {
				used[t] = true
			}
		}
		return true
	})
	return used
}

// Intern returns the plan with structurally equal subtrees (plan.Equal,
// found through plan.Fingerprint) made one shared node, so that an edit of
// one occurrence through ReplaceNode edits them all. A plan read from a
// file holds separate copies of what was one shared subtree; interning
// restores the sharing.
func Intern(root plan.Node) plan.Node {
	seen := map[uint64][]plan.Node{}
	return Rewrite(root, func(n plan.Node) plan.Node {
		fp := plan.Fingerprint(n)
		for _, m := range seen[fp] {
			if plan.Equal(m, n) {
				return m
			}
		}
		seen[fp] = append(seen[fp], n)
		return n
	})
}
