package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// twinSet is what projection_pruning's arm twin_pruning knows of a plan: its
// twins — deterministic subtrees that occur more than once, by the identity
// the executor's memo shares by (plan.Fingerprint confirmed by plan.Equal) —
// in classes, and per class the union of the requirements its occurrences
// met.
//
// A subquery written as a second copy of a join (TPC-H Q17's
// part ⋈ lineitem, once under the per-part average and once beside it) is
// one subtree twice. Pruned for its own consumers, each copy would read
// other columns (lineitem [l_partkey, l_quantity] here,
// [l_partkey, l_quantity, l_extendedprice] there), the copies would differ
// and the memo would evaluate both. So every occurrence is asked for the
// union of what all the occurrences' consumers need (pr.twins): the copies
// stay equal, and the memo evaluates the subtree once.
//
// The union is known only once pruning has reached every occurrence, and
// what reaches an occurrence depends on the unions of the twins above it.
// pruneTwins therefore repeats the pruning, each pass on its own copy of
// the context, merging each occurrence's requirement into its class's union
// and asking it for that union, until a pass merges nothing new: in that
// pass every occurrence was asked for the final union, and its result,
// trace and counters are the rule's.
type twinSet struct {
	// class maps every occurrence (by node: one node reached twice is
	// one occurrence twice) to its class.
	class map[plan.Node]int
	// req and ordered are, per class, the union of the requirements met
	// so far and whether any occurrence's column order mattered.
	req     []names
	ordered []bool
	// grew records that the running pass merged something new.
	grew bool
	// frozen stops the merging: the unions are final (pruneTwins' last
	// pass under a rewrite limit).
	frozen bool
}

// maxTwinPasses bounds pruneTwins' passes. Each pass but the last grows a
// union, so a plan needs about one pass per level of twins nested in
// twins, plus one; past the bound the last pass is kept, which is sound
// (every occurrence was asked for at least its own requirement) but may
// leave twins unequal.
const maxTwinPasses = 8

// findTwins returns the twins of root, or nil when it has none.
func findTwins(root plan.Node) *twinSet {
	// Only nodes whose fingerprint occurs twice can be twins; most plans
	// have none, found with one walk and a sort.
	var fps []uint64
	plan.WalkNodes(root, func(n plan.Node) bool {
		fps = append(fps, plan.Fingerprint(n))
		return true
	})
	slices.Sort(fps)
	dup := map[uint64]bool{}
	for i := 1; i < len(fps); i++ {
		if fps[i] == fps[i-1] {
			dup[fps[i]] = true
		}
	}
	if len(dup) == 0 {
		return nil
	}
	// Classify pre-order, left before right. A node equal to an earlier
	// one (its class's representative, whose subtree is classified by
	// then: an equal subtree is never an ancestor) passes that one's
	// children to its own as partners, which are equal to them without a
	// comparison.
	type item struct{ n, partner plan.Node }
	ids := map[plan.Node]int{}
	var reps []plan.Node
	var counts []int
	byFP := map[uint64][]int{}
	stack := []item{{n: root}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, partner := it.n, it.partner
		if fp := plan.Fingerprint(n); dup[fp] {
			id, seen := ids[n]
			if !seen && partner != nil {
				id, seen = ids[partner]
			}
			if !seen {
				id = -1
				for _, c := range byFP[fp] {
					if plan.Equal(reps[c], n) {
						id = c
						break
					}
				}
				if id < 0 {
					id = len(reps)
					reps, counts = append(reps, n), append(counts, 0)
					byFP[fp] = append(byFP[fp], id)
				}
			}
			ids[n] = id
			counts[id]++
			partner = nil
			if reps[id] != n {
				partner = reps[id]
			}
		} else {
			partner = nil
		}
		children := n.Children()
		var pc []plan.Node
		if partner != nil {
			pc = partner.Children()
		}
		for i := len(children) - 1; i >= 0; i-- {
			next := item{n: children[i]}
			if pc != nil {
				next.partner = pc[i]
			}
			stack = append(stack, next)
		}
	}
	tw := &twinSet{class: map[plan.Node]int{}}
	index := map[int]int{}
	for n, id := range ids {
		if counts[id] < 2 || !plan.IsDeterministicPlan(reps[id]) {
			continue
		}
		k, ok := index[id]
		if !ok {
			k = len(tw.req)
			index[id] = k
			tw.req = append(tw.req, names{})
			tw.ordered = append(tw.ordered, false)
		}
		tw.class[n] = k
	}
	if len(tw.req) == 0 {
		return nil
	}
	return tw
}

// pruneTwins runs projection_pruning over root with the twins tw (see
// twinSet): passes on copies of c without a rewrite limit until one merges
// nothing new. Without a limit that pass is the rule's run: its result,
// trace and counters become c's. Under a limit the unions stay those of the
// unlimited run (as predictions do, so that a limited run decides as the
// unlimited one and its applications are a prefix of it), and a last pass
// on c itself prunes with them.
func pruneTwins(c *Context, root plan.Node, tw *twinSet) plan.Node {
	for pass := 1; ; pass++ {
		// A copy of the context: its trace appends past c's (never into
		// it), its counters are its own.
		run := *c
		run.counters = slices.Clone(c.counters)
		run.budget = budget{}
		tw.grew = false
		pr := &pruning{Context: &run, predicted: map[predictKey][]string{}, twins: tw}
		out := pr.visit(root, allNames(root), true, &plan.Path{})
		if tw.grew && pass < maxTwinPasses {
			continue
		}
		if !c.budget.limited() {
			*c = run
			return out
		}
		tw.frozen = true
		pr = &pruning{Context: c, predicted: map[predictKey][]string{}, twins: tw}
		return pr.visit(root, allNames(root), true, &plan.Path{})
	}
}

// twin merges req (and ordered), the requirement met at n, an occurrence
// of twin class c, into the class's union — not in a prediction (dry),
// whose requirement is a hypothesis, nor once the unions are final
// (frozen) — and returns the requirement n is
// pruned for: the union when pr.twins allows it, else req. req belongs to
// the caller's visit and is widened in place.
func (p *pruning) twin(c int, n plan.Node, req names, ordered bool, path *plan.Path) (names, bool) {
	tw := p.twins
	u := tw.req[c]
	if !p.dry && !tw.frozen {
		for k, v := range req {
			if v != 0 && u[k]|v != u[k] {
				u[k] |= v
				tw.grew = true
			}
		}
		if ordered && !tw.ordered[c] {
			tw.ordered[c] = true
			tw.grew = true
		}
	}
	var more []string
	for k, v := range u {
		if v&^req[k] != 0 {
			more = append(more, k)
		}
	}
	order := tw.ordered[c] && !ordered
	if len(more) == 0 && !order {
		return req, ordered
	}
	slices.Sort(more)
	d := p.table.PruneTwins()
	if d.Allowed {
		var why []string
		if len(more) > 0 {
			why = append(why, "also "+strings.Join(more, ", "))
		}
		if order {
			why = append(why, "its column order")
		}
		d.Detail = fmt.Sprintf("%s, which an equal subtree's consumers need", strings.Join(why, " and "))
	}
	p.record(d, p.nextItem(), n, path, nil)
	if !d.Allowed {
		return req, ordered
	}
	for _, k := range more {
		req[k] |= u[k]
	}
	return req, ordered || order
}
