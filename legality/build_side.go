package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleBuildSide names the rule of package rules whose cells are decided
// here (the bs.* cells): also its flag and file name.
const RuleBuildSide = "build_side"

// Which input of an inner join the executor hashes changes nothing
// observable: the left build emits the right build's pairs in the same
// order (left rows in order, each followed by its matches in right order),
// the keys are evaluated before either is chosen (left keys first), and
// both spill under a memory limit and restore that order (exec/ops). The
// cells below decide only where the executor has a left build at all
// (bs.kind) and when it is worth asking for (bs.estimate).

// BuildLeft decides whether join n should hash its left input: bs.kind
// (an inner join: the one kind the executor builds on either side, and the
// only one Resolve accepts the hint on), then bs.estimate (the left input
// is provably the smaller one: its most rows, by the row bounds left and
// right of its inputs, are fewer than the right input's fewest). The
// decisions' details show the bounds.
func (t *Table) BuildLeft(n *plan.JoinNode, left, right plan.RowBounds) Ruling {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(BSKind, func() (bool, string) {
		if n.How != plan.InnerJoin {
			return false, "a " + n.How.String() + " join"
		}
		return true, ""
	})) {
		return ru
	}
	ru.consult(t.decide(BSEstimate, func() (bool, string) {
		detail := "left " + left.String() + ", right " + right.String()
		return left.Bounded && left.Max < right.Min, detail
	}))
	return ru
}
