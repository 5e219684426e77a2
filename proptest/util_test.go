package proptest

import (
	"flag"

	"github.com/dfopt/dfopt/plan"
)

// seedFlag overrides the fixed seed of the property tests (gopter has no
// seed flag of its own): go test ./proptest -args -proptest.seed=N.
var seedFlag = flag.Int64("proptest.seed", 20260601, "seed of the proptest property tests")

// depthOf is the number of nodes above a scan on the longest path.
func depthOf(n plan.Node) int {
	d := 0
	for _, c := range n.Children() {
		if x := depthOf(c) + 1; x > d {
			d = x
		}
	}
	return d
}

// sortOverFilter is the synthetic failure of the shrinking tests: a
// well-typed plan with a sort directly over a filter.
func sortOverFilter(c Case) bool {
	if c.IllTyped {
		return false
	}
	found := false
	plan.WalkNodes(c.Plan, func(n plan.Node) bool {
		if s, ok := n.(*plan.SortNode); ok {
			if _, ok := s.Input.(*plan.FilterNode); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// kindsOf lists the node kinds of a plan, parents first.
func kindsOf(n plan.Node) []string {
	var out []string
	plan.WalkNodes(n, func(x plan.Node) bool {
		out = append(out, x.Kind().String())
		return true
	})
	return out
}
