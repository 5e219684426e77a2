package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleSharedSubplans names the rule of package rules whose cells are
// decided here (the ss.* cells): also its flag and file name.
const RuleSharedSubplans = "shared_subplans"

// ShareDeterministic decides whether subtree n may be served from the
// executor's memo at all, consulting ss.deterministic (its expressions call
// no non-deterministic UDF) and then ss.extension.deterministic (each of its
// extensions declares deterministic); the decision is the refusing one, or
// the last. A deterministic subtree inside a non-deterministic one may
// still be served.
func (t *Table) ShareDeterministic(n plan.Node) Decision {
	r := t.ShareRuling(n)
	return r.Decisions[len(r.Decisions)-1]
}

// ShareRuling is ShareDeterministic with every decision it took, in order.
func (t *Table) ShareRuling(n plan.Node) Ruling {
	t = t.orDefault()
	exprs, ops := plan.Determinism(n)
	var r Ruling
	if !r.consult(t.decide(SSDeterministic, func() (bool, string) {
		if !exprs {
			return false, "the subtree calls a non-deterministic function"
		}
		return true, ""
	})) {
		return r
	}
	r.consult(t.decide(SSExtensionDeterministic, func() (bool, string) {
		if !ops {
			return false, "an extension in the subtree is not declared deterministic"
		}
		return true, ""
	}))
	return r
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
