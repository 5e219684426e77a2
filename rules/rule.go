package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Rule is one rewrite rule, declared as data: its name (also its flag,
// file name and trace name), the risky arms it has (each with its own flag),
// the node kinds it matches, the legality cells it consults and the rewrite.
type Rule struct {
	// Name is the rule's identifier, used everywhere: flag, trace, counters
	// documentation, mutation report.
	Name string
	// Arms are the flag names of the rule's risky arms.
	Arms []string
	// Matches lists the node kinds the rule looks at: Optimize runs the
	// rule only on a plan holding at least one node of one of them.
	Matches []plan.Kind
	// Cells lists the legality cells the rule consults: every cell of the
	// table in use (RulesFor) whose Rule is this rule's name.
	Cells []legality.CellID
	// Doc says in one sentence what the rule does.
	Doc string

	rewrite func(r *run, root plan.Node) (plan.Node, error)
}

// Rules returns the rules in the fixed order Optimize runs them (DESIGN §6),
// their Cells taken from legality.Default().
func Rules() []Rule { return RulesFor(legality.Default()) }

// RulesFor returns the rules as Optimize runs them with table t (nil:
// legality.Default()): their Cells are the cells t holds for each rule.
func RulesFor(t *legality.Table) []Rule {
	rules := []Rule{predicatePushdown(), filterFusion(), projectionFusion(), projectionPruning(), sharedSubplans()}
	for i := range rules {
		rules[i].Cells = t.CellsOf(rules[i].Name)
	}
	return rules
}

// matches reports whether the plan holding the kinds present has a node
// the rule matches.
func (r *Rule) matches(present map[plan.Kind]bool) bool {
	for _, k := range r.Matches {
		if present[k] {
			return true
		}
	}
	return false
}

// run is the state one Optimize call shares between its rules.
type run struct {
	table    *legality.Table
	flags    Flags
	trace    traceBuf
	counters Counters
	item     int
	budget   budget
}

func (r *run) nextItem() int {
	r.item++
	return r.item
}

// traceBuf collects a run's trace entries in chunks, so that a long trace
// is copied once, into the Result, instead of at every doubling of one
// slice: entries are large, and a 5,000-step chain records over 20,000.
type traceBuf struct {
	// done holds the filled chunks, cur the one being filled; n counts
	// the entries of both.
	done [][]Entry
	cur  []Entry
	n    int
}

// traceChunk is the capacity of every chunk after the first (which is
// sized by an estimate).
const traceChunk = 4096

// newTraceBuf returns a buffer whose first chunk holds estimate entries.
func newTraceBuf(estimate int) traceBuf {
	return traceBuf{cur: make([]Entry, 0, max(2*estimate, 16))}
}

// add appends e.
func (b *traceBuf) add(e Entry) {
	if len(b.cur) == cap(b.cur) {
		if cap(b.cur) > 0 {
			b.done = append(b.done, b.cur)
		}
		b.cur = make([]Entry, 0, traceChunk)
	}
	b.cur = append(b.cur, e)
	b.n++
}

// trace returns the entries in order as one Trace.
func (b *traceBuf) trace() Trace {
	if len(b.done) == 0 {
		return b.cur
	}
	out := make(Trace, 0, b.n)
	for _, c := range b.done {
		out = append(out, c...)
	}
	return append(out, b.cur...)
}

// record appends an entry for decision d.
func (r *run) record(rule string, d legality.Decision, item int, node plan.Node, path *plan.Path, subject plan.Expr) {
	r.recordEntry(d, Entry{Rule: rule, Item: item, node: node, path: path, subject: subject})
}

// recordEntry appends e completed with decision d: its cell and outcome,
// or the Limited mark for the rewrite limit's refusal. A decision naming no
// cell is not recorded.
func (r *run) recordEntry(d legality.Decision, e Entry) {
	switch d.Cell {
	case "":
		return
	case limitCell:
		e.Limited = true
	default:
		e.Cell, e.Allowed, e.Detail, e.reason = d.Cell, d.Allowed, d.Detail, d.Reason
	}
	r.trace.add(e)
}

// recordFlag appends an entry for a rewrite an arm flag stopped.
func (r *run) recordFlag(rule, flag string, item int, node plan.Node, path *plan.Path, subject plan.Expr) {
	r.trace.add(Entry{Rule: rule, Flag: flag, Item: item, node: node, path: path, subject: subject})
}

// ruling records a multi-cell ruling: every cell when the rewrite happens,
// only the refusing cell when it does not. subjectOf, when set, makes the
// subject a filter's conjunct list.
func (r *run) ruling(rule string, ru legality.Ruling, item int, node plan.Node, path *plan.Path, subject plan.Expr, subjectOf *plan.FilterNode) {
	ds := ru.Decisions
	if d, refused := ru.Refusal(); refused {
		ds = []legality.Decision{d}
	}
	for _, d := range ds {
		r.recordEntry(d, Entry{Rule: rule, Item: item, node: node, path: path, subject: subject, subjectOf: subjectOf})
	}
}
