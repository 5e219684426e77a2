package plan

import (
	"strconv"
	"strings"
)

// Explain renders a plan as an indented tree, one node per line, each line
// the node's Label, children indented two spaces under their parent in
// evaluation order. Indentation stops growing at ExplainMaxIndent levels:
// a deeper line is indented like that level and starts with its depth,
// "[depth 41] ", so the output stays linear in the plan's size however deep
// it nests. The output is stable: it depends only on the plan.
func Explain(n Node) string {
	var b strings.Builder
	explainInto(&b, n, 0, false)
	return b.String()
}

// ExplainSchemas is Explain with each resolved node's output schema appended
// to its line.
func ExplainSchemas(n Node) string {
	var b strings.Builder
	explainInto(&b, n, 0, true)
	return b.String()
}

// ExplainMaxIndent is the deepest level Explain indents (two spaces per
// level); deeper lines carry their depth instead.
const ExplainMaxIndent = 40

// explainIndent is the indentation of the deepest indented level.
var explainIndent = strings.Repeat("  ", ExplainMaxIndent)

func explainInto(b *strings.Builder, n Node, depth int, schemas bool) {
	if depth <= ExplainMaxIndent {
		b.WriteString(explainIndent[:2*depth])
	} else {
		b.WriteString(explainIndent)
		b.WriteString("[depth ")
		b.WriteString(strconv.Itoa(depth))
		b.WriteString("] ")
	}
	if isNilNode(n) {
		b.WriteString("<nil>\n")
		return
	}
	b.WriteString(n.Label())
	if schemas && n.Resolved() {
		b.WriteString("  ")
		b.WriteString(n.Schema().String())
	}
	b.WriteByte('\n')
	for _, c := range n.Children() {
		explainInto(b, c, depth+1, schemas)
	}
}

// WalkNodes calls visit on n and its descendants, parents before children,
// left before right, descending only while visit returns true. Missing
// (nil) nodes are not visited.
func WalkNodes(n Node, visit func(Node) bool) {
	if isNilNode(n) || !visit(n) {
		return
	}
	for _, c := range n.Children() {
		WalkNodes(c, visit)
	}
}

// NodeExprs returns the expressions a node evaluates, in evaluation order
// (a join's left keys before its right keys; a scan's pushed conjuncts).
func NodeExprs(n Node) []Expr {
	switch n := n.(type) {
	case *ScanNode:
		out := make([]Expr, len(n.Pushed))
		for i, p := range n.Pushed {
			out[i] = p.Expr
		}
		return out
	case *FilterNode:
		return n.Predicates
	case *ProjectNode:
		return n.Exprs
	case *WithColumnsNode:
		return n.Exprs
	case *SortNode:
		out := make([]Expr, len(n.Keys))
		for i, k := range n.Keys {
			out[i] = k.Expr
		}
		return out
	case *AggregateNode:
		return append(append([]Expr(nil), n.Keys...), n.Aggs...)
	case *JoinNode:
		out := append(append([]Expr(nil), n.LeftOn...), n.RightOn...)
		if n.Residual != nil {
			out = append(out, n.Residual)
		}
		return out
	case *WindowNode:
		return n.Exprs
	case *TemporalGroupNode:
		return n.Aggs
	}
	return nil
}
