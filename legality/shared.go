package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// ShareDeterministic decides whether subtree n may be served from the
// executor's memo at all (ss.deterministic): only a deterministic subtree
// may; a deterministic subtree inside a non-deterministic one still may.
func (t *Table) ShareDeterministic(n plan.Node) Decision {
	return t.orDefault().decide(SSDeterministic, func() (bool, string) {
		if !plan.IsDeterministicPlan(n) {
			return false, "the subtree is non-deterministic"
		}
		return true, ""
	})
}

// ShareStructural decides whether later, whose fingerprint equals that of
// the earlier evaluated subtree, is the same plan (ss.structural): the
// fingerprint is only a hash, so the subtrees must also be structurally
// equal.
func (t *Table) ShareStructural(earlier, later plan.Node) Decision {
	return t.orDefault().decide(SSStructural, func() (bool, string) {
		if !plan.Equal(earlier, later) {
			return false, "equal fingerprints but different plans"
		}
		return true, ""
	})
}

// ShareNested decides whether the prediction may count subtrees inside the
// served subtree n as served too (ss.nested). The executor serves n whole and
// never evaluates what is inside it, so the condition never holds.
func (t *Table) ShareNested(n plan.Node) Decision {
	return t.orDefault().decide(SSNested, func() (bool, string) {
		return false, "served with its enclosing subtree"
	})
}
