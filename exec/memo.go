package exec

import (
	"slices"

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
	// probes holds, per join occurrence, the probe class it shares its
	// pairs with (pairClass), for the classes that share.
	probes map[*plan.JoinNode]probeMember
}

// pairClass is a probe class: the deterministic inner and semi
// equi-joins of the plan without a residual (step.SharesPairs) that have
// Equal inputs, Equal keys and the same nulls_equal, so the same match
// pairs. A class shares (step.JoinShared) when it has at least two members
// that are not Equal (Equal joins are served by the memo whole) and one of
// them is an inner join (the pairs are the inner join's; a semi join's left
// rows derive from them, not the other way round): TPC-H Q17 written as
// SQL joins lineitem to the filtered parts once inner and once semi (the
// semi_reduction of its subquery), and probes lineitem once.
type pairClass struct {
	// members are the distinct (not Equal) joins of the class.
	members []*plan.JoinNode
	// evaluated marks the members evaluated in this collect; when all
	// are, nothing needs the pairs any more.
	evaluated []bool
	pairs     step.JoinPairs
	// occurrences counts the members' occurrences in the plan, Equal
	// ones included: an input chain occurring as often occurs nowhere
	// else (keyfilter.go).
	occurrences int
	// keyed is set once a member evaluated its inputs under a runtime
	// key filter (keyfilter.go): the filtered input, whose rows the
	// pairs index, which the other members take instead of evaluating it.
	keyed *keyedInput
}

// keyedInput is the key-filtered input of a probe class's joins: the
// frame and whether it is their right input.
type keyedInput struct {
	frame *step.Frame
	right bool
}

// releaseKeyed drops the class's key-filtered input.
func (c *pairClass) releaseKeyed() {
	if c.keyed != nil {
		c.keyed.frame.Release()
		c.keyed = nil
	}
}

// sharePairs enables the probe classes' shared pairs; tests turn it off
// to compare the two ways.
var sharePairs = true

// probeMember is a join occurrence's class and its member index there.
type probeMember struct {
	class  *pairClass
	member int
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
	m := &memo{shared: map[uint64][]*memoEntry{}, probes: probeClasses(root)}
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

// probeClasses groups the plan's joins into probe classes (pairClass) and
// returns, for every occurrence of a join in a class that shares, its
// class and member.
func probeClasses(root plan.Node) map[*plan.JoinNode]probeMember {
	if !sharePairs {
		return nil
	}
	byKey := map[uint64][]*pairClass{}
	occ := map[*plan.JoinNode]probeMember{}
	plan.WalkNodes(root, func(n plan.Node) bool {
		j, ok := n.(*plan.JoinNode)
		if !ok || !step.SharesPairs(j) || !plan.IsDeterministicPlan(j) {
			return true
		}
		key := probeKey(j)
		var cl *pairClass
		for _, c := range byKey[key] {
			if sameProbe(c.members[0], j) {
				cl = c
				break
			}
		}
		if cl == nil {
			cl = &pairClass{}
			byKey[key] = append(byKey[key], cl)
		}
		member := -1
		for i, o := range cl.members {
			if plan.Equal(o, j) {
				member = i
				break
			}
		}
		if member < 0 {
			member = len(cl.members)
			cl.members = append(cl.members, j)
		}
		occ[j] = probeMember{class: cl, member: member}
		cl.occurrences++
		return true
	})
	out := map[*plan.JoinNode]probeMember{}
	for j, pm := range occ {
		if pm.class.shares() {
			if pm.class.evaluated == nil {
				pm.class.evaluated = make([]bool, len(pm.class.members))
			}
			out[j] = pm
		}
	}
	return out
}

// shares reports whether the class's members share their pairs: two or
// more of them, one an inner join.
func (c *pairClass) shares() bool {
	if len(c.members) < 2 {
		return false
	}
	for _, j := range c.members {
		if j.How == plan.InnerJoin {
			return true
		}
	}
	return false
}

// probeKey hashes what sameProbe compares.
func probeKey(j *plan.JoinNode) uint64 {
	h := plan.Fingerprint(j.Left)*31 + plan.Fingerprint(j.Right)
	for _, x := range j.LeftOn {
		h = h*31 + plan.ExprFingerprint(x)
	}
	for _, x := range j.RightOn {
		h = h*37 + plan.ExprFingerprint(x)
	}
	if j.NullsEqual {
		h++
	}
	return h
}

// sameProbe reports whether joins a and b match the same pairs: Equal
// inputs, Equal keys, the same nulls_equal.
func sameProbe(a, b *plan.JoinNode) bool {
	return a.NullsEqual == b.NullsEqual && plan.Equal(a.Left, b.Left) && plan.Equal(a.Right, b.Right) &&
		slices.EqualFunc(a.LeftOn, b.LeftOn, plan.ExprEqual) && slices.EqualFunc(a.RightOn, b.RightOn, plan.ExprEqual)
}

// class returns the probe class join occurrence j shares its pairs with,
// nil when it shares none.
func (m *memo) class(j *plan.JoinNode) *pairClass {
	if pm, ok := m.probes[j]; ok {
		return pm.class
	}
	return nil
}

// pairs returns the pair store join occurrence j shares with its probe
// class (nil: j shares none), and done, which the caller calls once j is
// evaluated: once every member of the class is, the pairs are dropped.
func (m *memo) pairs(j *plan.JoinNode) (p *step.JoinPairs, done func()) {
	pm, ok := m.probes[j]
	if !ok {
		return nil, nil
	}
	c := pm.class
	return &c.pairs, func() {
		c.evaluated[pm.member] = true
		if !slices.Contains(c.evaluated, false) {
			c.pairs.Release()
			c.releaseKeyed()
		}
	}
}

// release drops every stored result.
func (m *memo) release() {
	for _, pm := range m.probes {
		pm.class.pairs.Release()
		pm.class.releaseKeyed()
	}
	for _, es := range m.shared {
		for _, e := range es {
			if e.out != nil {
				e.out.Release()
				e.out = nil
			}
		}
	}
}
