package plan

import (
	"fmt"
	"strconv"
)

// MaxDepth is the deepest plan dfopt accepts: at most MaxDepth plan nodes
// along any path from the root, and at most MaxDepth levels of nesting in
// any one expression. Every walk in dfopt recurses over nodes and
// expressions, so a deeper plan could exhaust a goroutine's stack (a fatal
// error, not a panic) instead of failing cleanly. Resolve, which every entry
// point (the optimizer, the executor, the eager chain) calls first, rejects
// deeper plans with an invalid_plan error naming the limit, and the
// plan-file decoder caps JSON nesting at the same number. It admits the
// 100,000-node chains the benchmarks measure, with room to spare, and keeps
// the deepest recursion at a few hundred megabytes of stack, below Go's
// limit of one gigabyte.
const MaxDepth = 200_000

// MaxExprNodes bounds the size of one expression as a tree. Subexpressions
// built once and used twice (e := a + b; e.Mul(e)) are walked once per use,
// so a few dozen such steps make an expression whose text and evaluation
// would never end; Resolve rejects it instead.
const MaxExprNodes = 10_000_000

// exprShape walks e as a tree, stopping as soon as it nests deeper than
// budget levels or has more than MaxExprNodes nodes, and reports which
// limit was crossed ("" when none). Its recursion is bounded by budget.
func exprShape(e Expr, budget int) string {
	nodes := 0
	var walk func(x Expr, depth int) string
	walk = func(x Expr, depth int) string {
		if x == nil {
			return ""
		}
		if depth > budget {
			return "depth"
		}
		if nodes++; nodes > MaxExprNodes {
			return "size"
		}
		for _, c := range x.Children() {
			if why := walk(c, depth+1); why != "" {
				return why
			}
		}
		return ""
	}
	return walk(e, 1)
}

// checkDepth rejects a node at path p that lies deeper than MaxDepth nodes,
// or whose expressions nest deeper than MaxDepth or are too large. Its
// errors name the node by its kind: the label of such a node renders its
// expressions, which may be what makes it too large to render.
func checkDepth(n Node, p *Path) error {
	if p.nodeDepth() > MaxDepth {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Node: n.Kind().String(),
			Msg: fmt.Sprintf("the plan nests deeper than %d nodes (plan.MaxDepth)", MaxDepth)}
	}
	for i, e := range NodeExprs(n) {
		switch exprShape(e, MaxDepth) {
		case "depth":
			return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Node: n.Kind().String(),
				Msg: fmt.Sprintf("expression %d of the node nests deeper than %d levels (plan.MaxDepth)", i, MaxDepth)}
		case "size":
			return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Node: n.Kind().String(),
				Msg: fmt.Sprintf("expression %d of the node has more than %d subexpressions as a tree (plan.MaxExprNodes)", i, MaxExprNodes)}
		}
	}
	return nil
}

// depth is the number of segments from the root to p.
func (p *Path) depth() int {
	if p == nil {
		return 0
	}
	return int(p.n)
}

// nodeDepth is the number of plan nodes from the root to the node at p
// (the root is 1): Resolve walks nodes only through their inputs, so every
// segment of a node's path is an input.
func (p *Path) nodeDepth() int { return p.depth() + 1 }

// pathRun is the shortest run of one repeated segment that String writes
// folded.
const pathRun = 8

// writePath renders segs (root first) after "plan", folding a run of at
// least pathRun equal segments into one with its count ("plan.input*20000"
// for a 20,000-deep chain), so that a path is short whatever the depth.
func writePath(segs []string) string {
	out := []byte("plan")
	for i := 0; i < len(segs); {
		j := i + 1
		for j < len(segs) && segs[j] == segs[i] {
			j++
		}
		if j-i >= pathRun {
			out = append(out, segs[i]...)
			out = append(out, '*')
			out = strconv.AppendInt(out, int64(j-i), 10)
		} else {
			for k := i; k < j; k++ {
				out = append(out, segs[k]...)
			}
		}
		i = j
	}
	return string(out)
}

// Tail renders p like String when it has at most n segments; a deeper path
// is cut to its last n segments after a count of those left out,
// "plan.…(99968 more).input*32". It costs O(n) whatever the depth: a trace
// names a path per entry, and rendering each whole would make the trace of
// a deep plan grow with the square of its depth.
func (p *Path) Tail(n int) string {
	d := p.depth()
	if d <= n {
		return p.String()
	}
	segs := make([]string, n)
	q := p
	for i := n - 1; i >= 0; i-- {
		segs[i] = q.seg
		q = q.parent
	}
	return "plan.…(" + strconv.Itoa(d-n) + " more)" + writePath(segs)[len("plan"):]
}
