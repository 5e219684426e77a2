package legality

import "fmt"

// Verdict is a cell's answer. The zero value, Barrier, is the safe one: a
// rewrite nobody declared legal does not happen.
type Verdict uint8

// The verdicts.
const (
	// Barrier: the rewrite never happens.
	Barrier Verdict = iota
	// CrossesIf: the rewrite happens when the cell's condition holds.
	CrossesIf
	// Crosses: the rewrite happens without checking any condition.
	Crosses
)

// String returns "barrier", "crosses-if" or "crosses", as in docs/legality.md.
func (v Verdict) String() string {
	switch v {
	case CrossesIf:
		return "crosses-if"
	case Crosses:
		return "crosses"
	}
	return "barrier"
}

// ParseVerdict maps "barrier", "crosses-if" or "crosses" to a Verdict.
func ParseVerdict(s string) (Verdict, error) {
	for _, v := range []Verdict{Barrier, CrossesIf, Crosses} {
		if v.String() == s {
			return v, nil
		}
	}
	return Barrier, fmt.Errorf("unknown verdict %q (want barrier, crosses-if or crosses)", s)
}

// Flip returns the mutant of a verdict, the one a mutation campaign tries:
// a Barrier or a CrossesIf becomes Crosses (the guard is removed) and
// Crosses becomes Barrier (the rewrite is disabled). A correct table has
// every Barrier and CrossesIf mutant killed by the oracle; a Crosses mutant
// only loses an optimization, so it is expected to survive.
func Flip(v Verdict) Verdict {
	if v == Crosses {
		return Barrier
	}
	return Crosses
}

// CellID names a cell. IDs are stable: the trace, explain --why, the
// mutation report and bisect all use them.
type CellID string

// Cell is one row of the legality table.
type Cell struct {
	// ID is the stable name, "pp.sort".
	ID CellID
	// Rule is the rule that consults the cell.
	Rule string
	// Node says where the cell applies: a node kind, "filter over filter",
	// "any", ...
	Node string
	// Verdict is the cell's answer.
	Verdict Verdict
	// Condition is what a CrossesIf verdict checks ("" for barriers).
	Condition string
	// Reason is one line naming the counterexample the cell exists for.
	Reason string
	// Equivalent, when set, is the argument that flipping the cell (Flip)
	// cannot change any outcome of any plan: an equivalent mutant. The
	// mutation campaign still runs it, leaves it out of its score, and
	// reports a killed one as a refutation of the argument.
	Equivalent string
	// NeverAllows and NeverRefuses, when set, say why the cell, under its
	// own verdict, cannot allow (refuse) in any resolved plan: outcomes its
	// condition rules out by construction, beyond those its verdict rules
	// out (a barrier never allows, crosses never refuses). A campaign does
	// not report them as unexercised, and flags one it sees anyway as a
	// stale argument (Table.Outcomes).
	NeverAllows, NeverRefuses string
	// TwinsReach says that twin sources — two different sources of one
	// name and schema, which a plan file cannot hold — make the outcomes
	// NeverAllows and NeverRefuses rule out possible after all.
	TwinsReach bool
}

// Decision is the table's answer to one question: whether the rewrite may
// happen and which cell decided. Detail says what the condition found
// ("`a / b as x` is partial") when a condition decided.
type Decision struct {
	Cell    CellID
	Verdict Verdict
	Allowed bool
	Detail  string
	// Reason, when set, replaces the cell's one-line reason in explanations
	// of this decision: a refusal the cell's counterexample does not
	// describe (pp.scan refusing an Unsupported conjunct).
	Reason string
}

// String renders "pp.sort allowed" or "pp.limit refused (detail)".
func (d Decision) String() string {
	s := string(d.Cell)
	if d.Allowed {
		s += " allowed"
	} else {
		s += " refused"
	}
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

// Ruling is the answer to a question that consults several cells in order:
// Decisions lists every cell consulted; when the rewrite is refused the last
// one is the cell that refused it.
type Ruling struct {
	Allowed   bool
	Decisions []Decision
}

// Refusal returns the refusing decision of a refused ruling.
func (r Ruling) Refusal() (Decision, bool) {
	if r.Allowed || len(r.Decisions) == 0 {
		return Decision{}, false
	}
	return r.Decisions[len(r.Decisions)-1], true
}

// consult appends d and reports whether it allowed the rewrite.
func (r *Ruling) consult(d Decision) bool {
	r.Decisions = append(r.Decisions, d)
	r.Allowed = d.Allowed
	return d.Allowed
}
