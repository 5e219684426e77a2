package exec

import (
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// memo is the per-collect store of evaluated deterministic subtrees (see the
// package documentation for the exact rule). A subtree is looked up by its
// fingerprint and confirmed with plan.Equal, never by the hash alone.
//
// Only subtrees that occur at least twice in the plan (by the same
// fingerprint-and-Equal identity) can ever be served, so only those are
// stored: the hit count is the same as storing everything, and a long chain
// does not keep every intermediate result alive until the end.
type memo struct {
	// shared holds, per fingerprint, one representative of every
	// deterministic subtree that occurs more than once.
	shared map[uint64][]plan.Node
	// done holds the evaluated results of shared subtrees.
	done map[uint64][]memoEntry
}

type memoEntry struct {
	node plan.Node
	out  *step.Frame
}

// newMemo scans the resolved plan for repeated deterministic subtrees.
func newMemo(root plan.Node) *memo {
	type class struct {
		node  plan.Node
		count int
	}
	byFP := map[uint64][]*class{}
	plan.WalkNodes(root, func(n plan.Node) bool {
		if !plan.IsDeterministicPlan(n) {
			return true
		}
		fp := plan.Fingerprint(n)
		for _, c := range byFP[fp] {
			if plan.Equal(c.node, n) {
				c.count++
				return true
			}
		}
		byFP[fp] = append(byFP[fp], &class{node: n, count: 1})
		return true
	})
	m := &memo{shared: map[uint64][]plan.Node{}, done: map[uint64][]memoEntry{}}
	for fp, cs := range byFP {
		for _, c := range cs {
			if c.count > 1 {
				m.shared[fp] = append(m.shared[fp], c.node)
			}
		}
	}
	return m
}

// isShared reports whether n is a deterministic subtree that occurs more
// than once in the plan (only such subtrees are stored and served).
func (m *memo) isShared(n plan.Node) bool {
	if !plan.IsDeterministicPlan(n) {
		return false
	}
	for _, s := range m.shared[plan.Fingerprint(n)] {
		if plan.Equal(s, n) {
			return true
		}
	}
	return false
}

// lookup returns the stored result of a subtree Equal to n, as a new
// reference, or nil.
func (m *memo) lookup(n plan.Node) *step.Frame {
	for _, e := range m.done[plan.Fingerprint(n)] {
		if plan.Equal(e.node, n) {
			return e.out.Share(e.out.Schema())
		}
	}
	return nil
}

// store keeps (a reference to) the result of n.
func (m *memo) store(n plan.Node, f *step.Frame) {
	fp := plan.Fingerprint(n)
	m.done[fp] = append(m.done[fp], memoEntry{node: n, out: f.Share(f.Schema())})
}

// release drops every stored result.
func (m *memo) release() {
	for _, es := range m.done {
		for _, e := range es {
			e.out.Release()
		}
	}
	m.done = nil
}
