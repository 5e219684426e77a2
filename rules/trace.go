package rules

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Entry is one trace line: a rule allowed or refused one rewrite of one
// subject (a conjunct, a with_columns value, a filter, a subtree) at one
// node, because of one legality cell (or, for an arm switched off, one
// flag). Labels, paths and texts are rendered on demand, so recording a
// trace costs no string building.
type Entry struct {
	// Rule is the rule's name.
	Rule string
	// Cell is the legality cell that decided; empty when a flag did.
	Cell legality.CellID
	// Flag is the arm flag that stopped the rewrite, when no cell decided.
	Flag string
	// Limited says that the rewrite limit (Flags.Limit) stopped the
	// rewrite: the legality table would have allowed it. Cell and Flag are
	// then empty.
	Limited bool
	// Allowed says whether the rewrite happened.
	Allowed bool
	// Item numbers the subject within its rule (1, 2, ...), so that entries
	// about the same conjunct or value can be grouped.
	Item int
	// Count is, for a conjunct's move, how many nodes it crossed under
	// Cell; 0 otherwise.
	Count int
	// Detail says what the cell's condition found, or what happened.
	Detail string

	// reason, when set, replaces the cell's reason in explanations
	// (legality.Decision.Reason).
	reason string
	// verbs are the wording of the entry's rule (Rule.Verbs).
	verbs   *Verbs
	node    plan.Node
	path    *plan.Path
	subject plan.Expr
	// subjectOf, when set, makes the subject this filter's conjunct list.
	subjectOf *plan.FilterNode
}

// Node returns the label of the node where the decision was made (for a
// move, the first node crossed under Cell).
func (e Entry) Node() string {
	if e.node == nil {
		return ""
	}
	return e.node.Label()
}

// Kind returns the kind of the node where the decision was made.
func (e Entry) Kind() string {
	if e.node == nil {
		return ""
	}
	return e.node.Kind().String()
}

// Path locates that node in the plan the rule received, in plan-file syntax
// ("plan.input.input"); "" when the entry names no node.
func (e Entry) Path() string {
	if e.path == nil {
		return ""
	}
	return e.path.String()
}

// tracePathSegments is how many trailing segments of a path a JSON trace
// entry renders (plan.Path.Tail).
const tracePathSegments = 32

// shortPath is Path cut to its last tracePathSegments segments.
func (e Entry) shortPath() string {
	if e.path == nil {
		return ""
	}
	return e.path.Tail(tracePathSegments)
}

// Subject returns the canonical text of the conjunct or expression
// concerned ("" when the subject is a whole node).
func (e Entry) Subject() string {
	if e.subjectOf != nil {
		parts := make([]string, len(e.subjectOf.Predicates))
		for i, x := range e.subjectOf.Predicates {
			parts[i] = x.String()
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if e.subject == nil {
		return ""
	}
	return e.subject.String()
}

// String renders the entry in one line without the cell's reason:
// "predicate_pushdown: `a / b > 1` stopped at limit 10: cell pp.limit".
func (e Entry) String() string { return e.line("") }

// traceEcho is how many bytes of a node label, subject or detail a trace
// line repeats (plan.Abbrev): a trace names the same big node on many
// lines, and its text must stay linear in the plan's size.
const traceEcho = 160

func (e Entry) line(reason string) string {
	var b strings.Builder
	b.WriteString(e.Rule)
	b.WriteString(": ")
	subj := e.Subject()
	if subj != "" {
		b.WriteString("`" + plan.Abbrev(subj, traceEcho) + "` ")
	}
	b.WriteString(e.verb())
	if n := e.Node(); n != "" {
		b.WriteString(" " + plan.Abbrev(n, traceEcho))
	}
	if e.Count > 1 {
		fmt.Fprintf(&b, " (and %d more)", e.Count-1)
	}
	switch {
	case e.Cell != "":
		b.WriteString(": cell " + string(e.Cell))
	case e.Flag != "":
		b.WriteString(": flag " + e.Flag + " is off")
	case e.Limited:
		b.WriteString(": rewrite limit reached")
	}
	if reason != "" {
		b.WriteString(" — " + reason)
	}
	if e.Detail != "" {
		b.WriteString(" (" + plan.Abbrev(e.Detail, traceEcho) + ")")
	}
	return b.String()
}

// verb is what the entry says between its subject and its node, from its
// rule's Verbs.
func (e Entry) verb() string {
	kind, hasKind := plan.KindInvalid, e.node != nil
	if hasKind {
		kind = e.node.Kind()
	}
	return e.verbs.phrase(e.Cell, kind, hasKind, e.Allowed)
}

type entryJSON struct {
	Rule    string `json:"rule"`
	Cell    string `json:"cell,omitempty"`
	Flag    string `json:"flag,omitempty"`
	Limited bool   `json:"limited,omitempty"`
	Allowed bool   `json:"allowed"`
	Item    int    `json:"item,omitempty"`
	Count   int    `json:"count,omitempty"`
	Node    string `json:"node,omitempty"`
	Path    string `json:"path,omitempty"`
	Subject string `json:"subject,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// MarshalJSON renders the entry with its node label, path and subject text,
// each cut (to plan.MaxEcho bytes, the path to its last 32 segments), so
// that a trace stays linear in the plan's size.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(entryJSON{Rule: e.Rule, Cell: string(e.Cell), Flag: e.Flag, Limited: e.Limited, Allowed: e.Allowed, Item: e.Item,
		Count: e.Count, Node: plan.Abbrev(e.Node(), plan.MaxEcho), Path: e.shortPath(),
		Subject: plan.Abbrev(e.Subject(), plan.MaxEcho), Detail: plan.Abbrev(e.Detail, plan.MaxEcho)})
}

// Trace is the list of entries in the order the rules recorded them.
type Trace []Entry

// Lines renders every entry, each followed by its cell's reason from table
// (nil: legality.Default()).
func (t Trace) Lines(table *legality.Table) []string {
	out := make([]string, len(t))
	for i, e := range t {
		reason := e.reason
		if c, ok := table.Lookup(e.Cell); ok && e.Cell != "" && reason == "" {
			reason = c.Reason
		}
		out[i] = e.line(reason)
	}
	return out
}

// Cells returns, per cell, how many entries it allowed and refused.
func (t Trace) Cells() map[legality.CellID][2]int {
	m := map[legality.CellID][2]int{}
	for _, e := range t {
		if e.Cell == "" {
			continue
		}
		c := m[e.Cell]
		if e.Allowed {
			c[0]++
		} else {
			c[1]++
		}
		m[e.Cell] = c
	}
	return m
}

// Rule returns the entries of one rule.
func (t Trace) Rule(name string) Trace {
	var out Trace
	for _, e := range t {
		if e.Rule == name {
			out = append(out, e)
		}
	}
	return out
}
