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
	// shared holds, per fingerprint, one entry for every deterministic
	// subtree that occurs more than once.
	shared map[uint64][]*memoEntry
}

// memoEntry is one shared subtree and, once evaluated, its result.
type memoEntry struct {
	node plan.Node
	out  *step.Frame
	// count is how many times the subtree occurs in the plan.
	count int
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
	m := &memo{shared: map[uint64][]*memoEntry{}}
	for fp, cs := range byFP {
		for _, c := range cs {
			if c.count > 1 {
				m.shared[fp] = append(m.shared[fp], &memoEntry{node: c.node, count: c.count})
			}
		}
	}
	return m
}

// entry returns the entry of the shared subtree Equal to n, or nil when n
// is not a deterministic subtree that occurs more than once in the plan
// (only such subtrees are stored and served).
func (m *memo) entry(n plan.Node) *memoEntry {
	if !plan.IsDeterministicPlan(n) {
		return nil
	}
	for _, e := range m.shared[plan.Fingerprint(n)] {
		if plan.Equal(e.node, n) {
			return e
		}
	}
	return nil
}

// release drops every stored result.
func (m *memo) release() {
	for _, es := range m.shared {
		for _, e := range es {
			if e.out != nil {
				e.out.Release()
				e.out = nil
			}
		}
	}
}
