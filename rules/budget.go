package rules

import (
	"fmt"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// LimitNone is the Flags.Limit value that allows no rewrite application at
// all (the rules still run and record their decisions).
const LimitNone = -1

// Application is one rewrite the driver applied, numbered in the order the
// rules applied them (Index 1, 2, ...). It is an allowed trace entry: the
// rule, the node where the rewrite happened (its label and path in the plan
// the rule received), the subject (a conjunct, a with_columns value, a dead
// entry, the outer filter) and the legality cell that allowed it; Cells lists
// every cell the decision consulted, in order (Cell is the last of them, or
// for a conjunct's move the node's or shadowing cell).
type Application struct {
	Index int
	Entry
	Cells []legality.CellID
}

// String renders "#3 predicate_pushdown: `a > 1` pushed past limit 2:
// cell pp.limit [plan.input]"; an application several cells allowed lists
// them all ("cells ff.total_outer, ff.boolean").
func (a Application) String() string {
	line := a.Entry.String()
	if len(a.Cells) > 1 && a.Cell != "" {
		names := make([]string, len(a.Cells))
		for i, c := range a.Cells {
			names[i] = string(c)
		}
		line = strings.Replace(line, ": cell "+string(a.Cell), ": cells "+strings.Join(names, ", "), 1)
	}
	s := fmt.Sprintf("#%d %s", a.Index, line)
	if p := a.Path(); p != "" {
		s += " [" + p + "]"
	}
	return s
}

// What counts as one application (the unit Flags.Limit counts) is each
// rule's Rule.Application. Units are taken in the order the rules decide
// (each rule's own traversal order, rules in Optimize's order).

// limitCell is the sentinel a rule passes as a Decision's cell when the
// rewrite limit refused the rewrite: record turns it into a Limited entry,
// which names no cell.
const limitCell legality.CellID = "\x00limit"

// limitDecision is the refusal the rewrite limit gives.
var limitDecision = legality.Decision{Cell: limitCell}

// budget counts rewrite applications against Flags.Limit.
type budget struct {
	limit int // 0: unlimited; < 0: none
	used  int
	log   []Application
}

// limited reports whether a limit is in force.
func (b *budget) limited() bool { return b.limit != 0 }

// take consumes one unit for the application e describes and reports
// whether it may happen. Without a limit nothing is counted (predicate
// pushdown moves whole stacks of conjuncts at once and would need a pass over
// the stack to count them); under a positive limit the application is
// logged, as an entry of the running rule.
func (c *Context) take(e Entry, cells []legality.CellID) bool {
	b := &c.budget
	switch {
	case b.limit == 0:
		return true
	case b.limit < 0 || b.used >= b.limit:
		return false
	}
	b.used++
	e.Allowed = true
	e.Rule, e.verbs = c.rule.Name, &c.rule.Verbs
	b.log = append(b.log, Application{Index: b.used, Entry: e, Cells: cells})
	return true
}

// budgeted returns d when it refuses or the budget allows the application
// (consuming a unit), and the limit's refusal otherwise. It is the one check
// the rewrite sites of projection_pruning and predicate_pushdown's scan arm
// make.
func (c *Context) budgeted(d legality.Decision, node plan.Node, path *plan.Path, subject plan.Expr) legality.Decision {
	if !d.Allowed {
		return d
	}
	if c.take(Entry{Cell: d.Cell, Detail: d.Detail, node: node, path: path, subject: subject},
		[]legality.CellID{d.Cell}) {
		return d
	}
	return limitDecision
}

// budgetedRuling is budgeted for a multi-cell ruling (filter_fusion,
// projection_fusion); subjectOf, when set, makes the subject a filter's
// conjunct list.
func (c *Context) budgetedRuling(ru legality.Ruling, node plan.Node, path *plan.Path, subject plan.Expr, subjectOf *plan.FilterNode) legality.Ruling {
	if !ru.Allowed {
		return ru
	}
	var cell legality.CellID
	cells := make([]legality.CellID, 0, len(ru.Decisions))
	for _, d := range ru.Decisions {
		cells = append(cells, d.Cell)
		cell = d.Cell
	}
	if c.take(Entry{Cell: cell, node: node, path: path, subject: subject, subjectOf: subjectOf}, cells) {
		return ru
	}
	return legality.Ruling{Decisions: []legality.Decision{limitDecision}}
}

// limitMoves consumes one unit per conjunct that is about to cross x, lowest
// group first and in conjunct order within a group, and turns those the
// budget refuses into stayers (with the limit's refusal). It returns the
// stayers. Only called under a limit: it visits the whole stack.
func (p *pushdown) limitMoves(st *pdStack, x crossing, stayers []*pdConj) []*pdConj {
	at, atPath := x.nodes[0], x.paths[0]
	nodeCells := make([]legality.CellID, 0, 2*len(x.checks))
	for _, chk := range x.checks {
		if cell := chk.Decision().Cell; cell != "" { // "": decided per conjunct (the standard tier)
			nodeCells = append(nodeCells, cell)
		}
	}
	var last legality.CellID
	if len(nodeCells) > 0 {
		last = nodeCells[len(nodeCells)-1]
	}
	for gi := len(st.groups) - 1; gi >= 0; gi-- {
		for _, c := range st.groups[gi].conjs {
			suspect := c.epoch == p.epoch
			if !c.live || (suspect && c.stay) {
				continue
			}
			// The cell named is the conjunct's own (shadowing) decision when
			// it has one, except across an owner and its window, where the
			// window's cell is the one that let it through.
			cell, cells := last, nodeCells
			if suspect && c.stayDec.Cell != "" {
				cells = append(append([]legality.CellID(nil), nodeCells...), c.stayDec.Cell)
				if len(nodeCells) <= 1 {
					cell = c.stayDec.Cell
				}
			}
			if p.take(Entry{Cell: cell, node: at, path: atPath, subject: c.orig}, cells) {
				continue
			}
			c.epoch = p.epoch
			c.stay, c.stayDec, c.next = true, limitDecision, nil
			stayers = append(stayers, c)
		}
	}
	return stayers
}
