package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// projection_fusion inlines a with_columns value into the one projection
// expression that references it:
//
//	select(a, x)                         select(a, a / b as x)
//	  with_columns(a / b as x)   ==>       scan t
//	    scan t
//
// The substitution is structural (no reassociation), an alias keeps the
// output name, and the value leaves the with_columns, which disappears when
// nothing is left in it. Legality is pf.holder, pf.deterministic, pf.once,
// pf.capture and pf.inline (error order); the inlined value records the
// reference it replaces as its origin (plan.WithOrigin), so errors around it
// still name what the user wrote. Values are decided from
// the last to the first, in passes until nothing more inlines, so that every
// decision sees the with_columns and the projection as they will be — and a
// second run finds nothing left to do. When a with_columns is emptied the
// projection continues with the with_columns below it.
func projectionFusion() Rule {
	return Rule{
		Name:        FlagProjectionFusion,
		Doc:         "inlines a with_columns value into the one projection expression that uses it",
		Counters:    []CounterDef{{Name: counterFusedProjections, Position: 6}},
		Verbs:       Verbs{Verb: Verb{Allowed: "inlined into", Refused: "not inlined into"}},
		Application: "one with_columns value inlined",
		Matches:     []plan.Kind{plan.KindProject, plan.KindWithColumns},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			f := &projFusion{Context: c}
			return f.visit(root, &plan.Path{}), nil
		},
	}
}

// FlagProjectionFusion is projection_fusion's flag (its name).
const FlagProjectionFusion = legality.RuleProjectionFusion

// counterFusedProjections counts the with_columns values inlined.
const counterFusedProjections = "fusedProjections"

type projFusion struct{ *Context }

func (f *projFusion) visit(n plan.Node, path *plan.Path) plan.Node {
	return bottomUp(n, path, func(orig, n plan.Node, path *plan.Path) plan.Node {
		if p, ok := n.(*plan.ProjectNode); ok {
			return f.fuse(orig, p, path)
		}
		return n
	})
}

// fuse inlines into project p (orig is p as it was in the rule's input, for
// the trace and the schemas: p and the with_columns below it may be rebuilt,
// unresolved nodes, and each stands for the node of orig's subtree at its
// place, whose schema it keeps).
func (f *projFusion) fuse(orig plan.Node, p *plan.ProjectNode, path *plan.Path) plan.Node {
	exprs, input := p.Exprs, p.Input
	var origInput plan.Node
	if op, ok := orig.(*plan.ProjectNode); ok {
		origInput = op.Input
	}
	changed := false
	for {
		w, ok := input.(*plan.WithColumnsNode)
		if !ok {
			break
		}
		origW, _ := origInput.(*plan.WithColumnsNode)
		remaining, newExprs, inlined := f.pair(orig, path, exprs, w, origW)
		if inlined == 0 {
			break
		}
		changed, exprs = true, newExprs
		if len(remaining) == 0 {
			input = w.Input
			if origW != nil {
				origInput = origW.Input
			} else {
				origInput = nil
			}
			continue
		}
		input = &plan.WithColumnsNode{Input: w.Input, Exprs: remaining}
		break
	}
	if !changed {
		return p
	}
	return &plan.ProjectNode{Input: input, Exprs: exprs}
}

// pair inlines what it can of w into exprs and returns the values left in
// w, the rewritten expressions and how many values were inlined. origW is
// the with_columns w stands for in the rule's input (resolved: its input
// and output schemas are w's), nil when unknown.
//
// It keeps one legality.InlineCheck for the pair and decides the values in
// passes, each from the last value to the first, until a pass inlines
// nothing — but after the first pass it asks only the values an inlining
// can have unblocked: a value can newly pass only when another value it
// depends on leaves. When value i leaves, the values that read its name
// (pf.capture), the values its definition reads (their references grew,
// pf.once) and the partial values refused because a partial value after
// them remained (pf.inline, legality.InlineCheck.PartialAfter) are asked
// again: in the same pass when they come before i, in the next one
// otherwise, as a full pass would. A last full pass confirms that nothing
// more inlines and leaves each refused value's latest refusal. Linear in
// the values and the references, where a full pass per inlined value was
// quadratic (a chain x1 = x0, x2 = x1, ... inlines one value per pass).
func (f *projFusion) pair(orig plan.Node, path *plan.Path, exprs []plan.Expr, w, origW *plan.WithColumnsNode) ([]plan.Expr, []plan.Expr, int) {
	cur := append([]plan.Expr(nil), exprs...)
	n := len(w.Exprs)
	in, out := withColumnsSchemas(w, origW)
	chk := f.table.NewInlineCheck(cur, w, in, out)
	names := make([]string, n)
	byName := make(map[string]int, n)
	readers := map[string][]int{} // the values reading each name
	for j, v := range w.Exprs {
		names[j] = plan.OutputName(v)
		byName[names[j]] = j
		for _, c := range plan.Columns(v) {
			readers[c] = append(readers[c], j)
		}
	}
	gone := make([]bool, n)
	refused := map[int]legality.Ruling{} // the latest refusal of each value
	pass, next := newIndexHeap(n), newIndexHeap(n)
	var later indexHeap // partial values waiting for the partial values after them
	total := 0
	// wake schedules value k again, i being the value just inlined.
	wake := func(k, i int) {
		switch {
		case gone[k]:
		case k < i:
			pass.add(k)
		default:
			next.add(k)
		}
	}
	run := func() int {
		inlined := 0
		for pass.Len() > 0 {
			j := pass.pop()
			users := chk.UserExprs(j)
			if gone[j] || len(users) == 0 {
				continue
			}
			v := w.Exprs[j]
			ruling := f.budgetedRuling(chk.Value(j), orig, path, v, nil)
			if !ruling.Allowed {
				refused[j] = ruling
				if d, _ := ruling.Refusal(); d.Cell == legality.PFInline && chk.PartialAfter(j) {
					later.push(j)
				}
				continue
			}
			delete(refused, j)
			f.ruling(ruling, f.nextItem(), orig, path, v, nil)
			name, val := names[j], plan.Unalias(v)
			for _, k := range users {
				ne := inline(cur[k], name, val)
				cur[k] = ne
				chk.Replace(k, ne, j)
			}
			chk.Inlined(j)
			gone[j] = true
			inlined++
			f.Count(counterFusedProjections, 1)
			for _, k := range readers[name] {
				wake(k, j)
			}
			for _, c := range plan.Columns(val) {
				if k, ok := byName[c]; ok {
					wake(k, j)
				}
			}
			for later.Len() > 0 && !chk.PartialAfter(later.top()) {
				wake(later.pop(), j)
			}
		}
		return inlined
	}
	for {
		// A full pass (the first, and the last that confirms).
		for j := n - 1; j >= 0; j-- {
			if !gone[j] {
				pass.add(j)
			}
		}
		k := run()
		for next.Len() > 0 {
			pass, next = next, pass
			k += run()
		}
		total += k
		if k == 0 {
			break
		}
	}
	for j, v := range w.Exprs {
		if ruling, ok := refused[j]; ok {
			f.ruling(ruling, f.nextItem(), orig, path, v, nil)
		}
	}
	if total == 0 {
		return w.Exprs, exprs, 0
	}
	var remaining []plan.Expr
	for j, v := range w.Exprs {
		if !gone[j] {
			remaining = append(remaining, v)
		}
	}
	return remaining, cur, total
}

// withColumnsSchemas returns w's input and output schemas: w's own when it
// is resolved, else those of origW, the node it stands for (a rebuilt node
// keeps its schema); the zero schemas when neither is known, under which
// the standard tier counts nothing as total.
func withColumnsSchemas(w, origW *plan.WithColumnsNode) (in, out plan.Schema) {
	switch {
	case w.Resolved() && w.Input != nil:
		return w.Input.Schema(), w.Schema()
	case origW != nil && origW.Resolved() && origW.Input != nil && len(origW.Exprs) == len(w.Exprs):
		return origW.Input.Schema(), origW.Schema()
	}
	return plan.Schema{}, plan.Schema{}
}

// indexHeap is a max-heap of value indices; add ignores an index already
// queued (when built by newIndexHeap).
type indexHeap struct {
	items  []int
	queued []bool
}

func newIndexHeap(n int) indexHeap { return indexHeap{queued: make([]bool, n)} }

func (h *indexHeap) Len() int { return len(h.items) }

func (h *indexHeap) top() int { return h.items[0] }

// add pushes j unless it is already queued.
func (h *indexHeap) add(j int) {
	if h.queued[j] {
		return
	}
	h.queued[j] = true
	h.push(j)
}

func (h *indexHeap) push(j int) {
	h.items = append(h.items, j)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if h.items[p] >= h.items[i] {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *indexHeap) pop() int {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.items[l] > h.items[m] {
			m = l
		}
		if r < last && h.items[r] > h.items[m] {
			m = r
		}
		if m == i {
			break
		}
		h.items[m], h.items[i] = h.items[i], h.items[m]
		i = m
	}
	if h.queued != nil {
		h.queued[top] = false
	}
	return top
}

// inline substitutes val for every reference to name in e, keeping e's
// output name.
func inline(e plan.Expr, name string, val plan.Expr) plan.Expr {
	out := substitute(e, map[string]plan.Expr{name: val})
	if want := plan.OutputName(e); plan.OutputName(out) != want {
		out = &plan.Alias{Expr: out, Name: want}
	}
	return out
}
