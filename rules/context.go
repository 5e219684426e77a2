package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Context is one Optimize call's state as the running rule sees it: the
// legality table and flags in force, and the means to record trace
// entries, move the rule's counters and take rewrite applications from the
// limit (Flags.Limit). Optimize makes one per call and hands it to every
// rule in turn; a Context is not safe for concurrent use, and not valid
// after the rule returns.
type Context struct {
	table    *legality.Table
	flags    Flags
	reg      *Registry
	rule     *Rule
	trace    traceBuf
	counters []int // by counter index of reg
	item     int
	budget   budget
	// misuse is the first thing the running rule did that its declaration
	// does not allow (a counter or cell of another rule): Optimize returns
	// it when the rule ends.
	misuse error
}

// Table returns the legality table in force (a mutant, in a mutation
// campaign), which holds the rule's own cells.
func (c *Context) Table() *legality.Table { return c.table }

// Enabled reports whether flag (one of the running rule's arms, usually)
// is on.
func (c *Context) Enabled(flag string) bool { return c.flags.Enabled(flag) }

// Decide takes the decision of one of the running rule's cells: its
// verdict in force, and cond when the verdict is crosses-if
// (legality.Table.Decide). A cell of another rule, or one the table does
// not hold, refuses (the closed world) and is reported as a misuse.
func (c *Context) Decide(id legality.CellID, cond func() (bool, string)) legality.Decision {
	if cell, ok := c.table.Lookup(id); !ok || cell.Rule != c.rule.Name {
		c.misused(fmt.Errorf("consulted cell %s, which is not one of its own", id))
		return legality.Decision{Cell: id}
	}
	return c.table.Decide(id, cond)
}

// Apply records decision d about a rewrite of subject (nil: the node
// itself) at node n, found at path at of the plan the rule received, and
// reports whether the rewrite may happen: d allows it and the rewrite limit
// has a unit left for it (one application; when it has none the entry is
// marked Limited instead). A rule calls it once per application, before
// rewriting.
func (c *Context) Apply(d legality.Decision, n plan.Node, at *plan.Path, subject plan.Expr) bool {
	d = c.budgeted(d, n, at, subject)
	c.record(d, c.nextItem(), n, at, subject)
	return d.Allowed
}

// Record records decision d about subject at node n without taking an
// application: a decision that changes nothing by itself (requirements
// passed through a node, a prediction).
func (c *Context) Record(d legality.Decision, n plan.Node, at *plan.Path, subject plan.Expr) {
	c.record(d, c.nextItem(), n, at, subject)
}

// Count adds n to the running rule's counter name. A counter the rule does
// not declare is a misuse, reported by Optimize when the rule ends.
func (c *Context) Count(name string, n int) {
	i, ok := c.reg.counterIndex[name]
	if !ok || c.reg.counterRule[i] != c.rule.Name {
		c.misused(fmt.Errorf("moved counter %q, which it does not declare", name))
		return
	}
	c.counters[i] += n
}

func (c *Context) misused(err error) {
	if c.misuse == nil {
		c.misuse = err
	}
}

func (c *Context) nextItem() int {
	c.item++
	return c.item
}

// add appends e as an entry of the running rule.
func (c *Context) add(e Entry) {
	e.Rule, e.verbs = c.rule.Name, &c.rule.Verbs
	c.trace.add(e)
}

// record appends an entry for decision d.
func (c *Context) record(d legality.Decision, item int, node plan.Node, path *plan.Path, subject plan.Expr) {
	c.recordEntry(d, Entry{Item: item, node: node, path: path, subject: subject})
}

// recordEntry appends e completed with decision d: its cell and outcome,
// or the Limited mark for the rewrite limit's refusal. A decision naming no
// cell is not recorded.
func (c *Context) recordEntry(d legality.Decision, e Entry) {
	switch d.Cell {
	case "":
		return
	case limitCell:
		e.Limited = true
	default:
		e.Cell, e.Allowed, e.Detail, e.reason = d.Cell, d.Allowed, d.Detail, d.Reason
	}
	c.add(e)
}

// recordFlag appends an entry for a rewrite an arm flag stopped.
func (c *Context) recordFlag(flag string, item int, node plan.Node, path *plan.Path, subject plan.Expr) {
	c.add(Entry{Flag: flag, Item: item, node: node, path: path, subject: subject})
}

// ruling records a multi-cell ruling: every cell when the rewrite happens,
// only the refusing cell when it does not. subjectOf, when set, makes the
// subject a filter's conjunct list.
func (c *Context) ruling(ru legality.Ruling, item int, node plan.Node, path *plan.Path, subject plan.Expr, subjectOf *plan.FilterNode) {
	ds := ru.Decisions
	if d, refused := ru.Refusal(); refused {
		ds = []legality.Decision{d}
	}
	for _, d := range ds {
		c.recordEntry(d, Entry{Item: item, node: node, path: path, subject: subject, subjectOf: subjectOf})
	}
}
