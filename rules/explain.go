package rules

import (
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// ExplainText renders an optimization result for people: the optimized plan
// (plan.Explain), the tier, the counters that moved (Counters.Moved), and,
// with why, one line per
// trace entry, each with its cell's condition (allowed) or counterexample
// (refused):
//
//	predicate_pushdown: `a / b > 1` stopped at limit 10: cell pp.limit — a limit keeps the first n rows ...
func ExplainText(res Result, why bool) string {
	var b strings.Builder
	if res.Plan != nil {
		b.WriteString(plan.Explain(res.Plan))
	}
	b.WriteString("tier: ")
	b.WriteString(res.Tier.String())
	b.WriteString("\ncounters: ")
	b.WriteString(res.Counters.Moved())
	b.WriteByte('\n')
	if why {
		b.WriteString("why:\n")
		if len(res.Trace) == 0 {
			b.WriteString("  (no rewrite considered)\n")
		}
		for _, line := range WhyLines(res) {
			b.WriteString("  ")
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// WhyLines renders the trace as ExplainText's why section does: an allowed
// entry with its cell's condition, a refused one with the counterexample the
// cell exists for.
func WhyLines(res Result) []string {
	out := make([]string, len(res.Trace))
	for i, e := range res.Trace {
		out[i] = e.line(explanation(res.Table, e))
	}
	return out
}

func explanation(t *legality.Table, e Entry) string {
	if e.Cell == "" {
		return ""
	}
	c, ok := t.Lookup(e.Cell)
	if !ok {
		return "closed world: no such cell"
	}
	if e.Allowed && c.Condition != "" {
		return c.Condition
	}
	if e.reason != "" {
		return e.reason
	}
	return c.Reason
}

// ExplainDOT renders the plan before and after optimization as one Graphviz
// digraph with two clusters. Filters (and scans) holding a conjunct that
// predicate_pushdown moved are filled: orange where the conjunct was, green
// where it went. The "after" cluster is titled with the counters that
// moved.
func ExplainDOT(before plan.Node, res Result) string {
	moved := map[string]bool{}
	for _, e := range res.Trace {
		if e.Rule == FlagPredicatePushdown && e.Allowed && e.Subject() != "" {
			moved[e.Subject()] = true
		}
	}
	var b strings.Builder
	b.WriteString("digraph dfopt {\n  node [shape=box, fontname=\"monospace\"];\n")
	id := 0
	cluster := func(name, title string, root plan.Node, fill string) {
		b.WriteString("  subgraph cluster_" + name + " {\n    label=" + dotQuote(title) + ";\n")
		var walk func(n plan.Node) string
		walk = func(n plan.Node) string {
			me := name + strconv.Itoa(id)
			id++
			label := "<nil>"
			if n != nil {
				label = n.Label()
			}
			b.WriteString("    " + me + " [label=" + dotQuote(label))
			if n != nil && holdsMoved(n, moved) {
				b.WriteString(", style=filled, fillcolor=" + dotQuote(fill))
			}
			b.WriteString("];\n")
			if n == nil {
				return me
			}
			for _, c := range n.Children() {
				child := walk(c)
				b.WriteString("    " + me + " -> " + child + ";\n")
			}
			return me
		}
		walk(root)
		b.WriteString("  }\n")
	}
	cluster("before", "before", before, "#f9d5b5")
	title := "after: " + res.Counters.Moved() // as explain: adding a rule changes no graph
	cluster("after", title, res.Plan, "#c8ecc0")
	b.WriteString("}\n")
	return b.String()
}

// holdsMoved reports whether a filter or scan holds a moved conjunct.
func holdsMoved(n plan.Node, moved map[string]bool) bool {
	if len(moved) == 0 {
		return false
	}
	switch n := n.(type) {
	case *plan.FilterNode:
		for _, e := range n.Predicates {
			if e != nil && moved[e.String()] {
				return true
			}
		}
	case *plan.ScanNode:
		for _, p := range n.Pushed {
			if p.Expr != nil && moved[p.Expr.String()] {
				return true
			}
		}
	}
	return false
}

// dotEscaper escapes a DOT string's backslashes, quotes and newlines.
var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	return `"` + dotEscaper.Replace(s) + `"`
}
