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
	// PPExplode: a conjunct crossing an explode.
	PPExplode CellID = "pp.explode"
	// PRExplode: requirements narrowing below an explode.
	PRExplode CellID = "pr.explode"
	// LPExplode: a limit crossing an explode.
	LPExplode CellID = "lp.explode"
)

// nestedNodeCells are the cells of unnest and explode, by rule in the
// order the rules run.
var nestedNodeCells = []Cell{
	{ID: PPUnnest, Rule: RulePredicatePushdown, Node: "unnest", Verdict: CrossesIf,
		Condition: "the conjunct reads no column the unnest makes from a struct's field (it reads only columns the unnest passes through, unchanged, row for row)",
		Reason: "unnest keeps every row in order and raises nothing, so a conjunct over passed-through columns keeps the same rows and raises the same errors on the same set of rows below; " +
			"one reading a field column reads another value below: unnest([t]) . filter(is_not_null(t)) over t: struct{t: float64} and the row {t: null} tests the field (null: the row goes); below, the name t is the struct (not null: the row stays), and a field with no input column of its name (a of s) is not expressible below at all; " +
			"dfopt does not rewrite a field into struct.field(s, \"a\") to move it (a choice: the filter stays above)"},
	{ID: PRUnnest, Rule: RuleProjectionPruning, Node: "unnest", Verdict: Crosses,
		Reason:     "unnest reads its struct columns whole and passes the others through: unnest([s]) . select(a) needs only s below; an unread field is dropped above, by the projection that does not read it (the struct is not narrowed)",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: LPUnnest, Rule: RuleLimitPushdown, Node: "unnest", Verdict: Crosses,
		Reason:     "unnest keeps every row in order and raises nothing: unnest([s]) . head(n) is head(n) . unnest([s]), row i of its output being row i of its input's",
		Equivalent: "a crosses cell: its mutant (barrier) keeps the limit above the unnest (an optimization lost, never another outcome)"},
	{ID: PPExplode, Rule: RulePredicatePushdown, Node: "explode", Verdict: CrossesIf,
		Condition: "the explode has one column (so it raises nothing) and the conjunct reads no exploded column",
		Reason: "proof: a one-column explode gives each input row n >= 1 output rows that repeat its other values, so a conjunct over those values keeps all of a row's copies or none, and filter . explode keeps exactly the rows of explode . filter, in order; " +
			"it meets the same SET of values above (each row at least once) as below (each row once), and an operation's error depends on that set only (docs/semantics.md, Errors), so a partial conjunct raises the same error (kind and expression; only Row, for people, may differ), and the explode, which raises nothing, cannot raise first. " +
			"Refused: a conjunct reading an exploded column tests elements, and below the name is the list: explode([l]) . filter(is_not_null(l)) over l = [[]] keeps nothing (the element is null), below it keeps the row and explode gives (null); " +
			"several columns: explode([l, m]) . filter(k > 0) over the row k = 0, l = [1, 2], m = [3] raises invalid_input (unequal lengths); below, the filter removes the row and the error vanishes (a partial conjunct could also raise its own error first)"},
	{ID: PRExplode, Rule: RuleProjectionPruning, Node: "explode", Verdict: Crosses,
		Reason:     "explode reads its list columns (row counts, unequal lengths) and repeats the others: explode([l]) . select(l) needs only l below, explode([l]) . select(k) needs k and l",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: LPExplode, Rule: RuleLimitPushdown, Node: "explode", Verdict: Barrier,
		Reason: "explode([l]) . head(1) over l = [[1, 2]] keeps the row (1); moved below, head(1) keeps the input row, which explodes into two rows"},
}

// explodeCheck makes c the check of an explode: over a one-column explode
// a conjunct reading no exploded column crosses (pp.explode), decided
// conjunct by conjunct.
func (t *Table) explodeCheck(c *NodeCheck, n *plan.ExplodeNode) {
	c.decision = Decision{Allowed: true}
	c.generic, c.shadow = true, PPExplode
	c.conjunct = func(e plan.Expr) Decision {
		return t.decide(PPExplode, func() (bool, string) {
			if len(n.Columns) != 1 {
				return false, "an explode of several columns can raise invalid_input on a row the conjunct would remove"
			}
			for _, name := range plan.Columns(e) {
				if n.Exploded(name) {
					return false, "reads " + name + ", an exploded column"
				}
			}
			return true, ""
		})
	}
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
