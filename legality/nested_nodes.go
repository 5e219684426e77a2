package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// The cells of the nested-reshaping nodes unnest and explode
// (docs/semantics.md): one per node kind and rule, so that no rule treats
// them by the closed-world catch-alls.
const (
	// PPUnnest: a conjunct crossing an unnest.
	PPUnnest CellID = "pp.unnest"
	// PRUnnest: requirements narrowing below an unnest.
	PRUnnest CellID = "pr.unnest"
	// LPUnnest: a limit crossing an unnest.
	LPUnnest CellID = "lp.unnest"
)

// nestedNodeCells are the cells of unnest and explode, by rule in the
// order the rules run.
var nestedNodeCells = []Cell{
	{ID: PPUnnest, Rule: RulePredicatePushdown, Node: "unnest", Verdict: CrossesIf,
		Condition: "the conjunct reads no column the unnest makes from a struct's field (it reads only columns the unnest passes through, unchanged, row for row)",
		Reason: "unnest keeps every row in order and raises nothing, so a conjunct over passed-through columns keeps the same rows and raises the same errors on the same set of rows below; " +
			"one reading a field column is not expressible below: unnest([t]) . filter(t > 1) over t: struct{t: float64} reads the field t, and below the name t is the struct (`t > 1` is a type_error); " +
			"dfopt does not rewrite a field into struct.field(t, \"t\") to move it (a choice: the filter stays above)"},
	{ID: PRUnnest, Rule: RuleProjectionPruning, Node: "unnest", Verdict: Crosses,
		Reason:     "unnest reads its struct columns whole and passes the others through: unnest([s]) . select(a) needs only s below; an unread field is dropped above, by the projection that does not read it (the struct is not narrowed)",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: LPUnnest, Rule: RuleLimitPushdown, Node: "unnest", Verdict: Crosses,
		Reason:     "unnest keeps every row in order and raises nothing: unnest([s]) . head(n) is head(n) . unnest([s]), row i of its output being row i of its input's",
		Equivalent: "a crosses cell: its mutant (barrier) keeps the limit above the unnest (an optimization lost, never another outcome)"},
}

// unnestCheck makes c the check of an unnest: a conjunct reading no
// field column crosses (pp.unnest), decided conjunct by conjunct.
func (t *Table) unnestCheck(c *NodeCheck, n *plan.UnnestNode) {
	c.decision = Decision{Allowed: true}
	c.generic, c.shadow = true, PPUnnest
	c.conjunct = func(e plan.Expr) Decision {
		return t.decide(PPUnnest, func() (bool, string) {
			for _, name := range plan.Columns(e) {
				if n.Input == nil || n.Unnested(name) {
					return false, "reads " + name + ", a field the unnest makes"
				}
			}
			return true, ""
		})
	}
}
