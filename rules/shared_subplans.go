package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// shared_subplans rewrites nothing: it predicts how many subtree results the
// executor's per-collect memo will serve (counter sharedSubplans), so that
// the oracle can check the executor against it.
//
// The executor memoizes every resolved deterministic subtree, of any node
// kind (a bare scan too), by plan.Fingerprint and plan.Equal, evaluating
// children left before right. When it meets a subtree equal to one it has
// already evaluated in this collect, it serves the stored result and does
// not descend. The prediction replays that walk: post-order, left before
// right; a subtree is served if it is deterministic — its expressions
// (ss.deterministic) and its host operators (ss.extension.deterministic) —
// and structurally equal to one completed earlier (ss.structural); nothing
// inside a served subtree is counted (ss.nested). So union(join(S, S),
// join(S, S)) serves 2: the second S, then the second join whole. A
// deterministic subtree inside a non-deterministic one can still be served.
func sharedSubplans() Rule {
	return Rule{
		Name:     FlagSharedSubplans,
		Doc:      "predicts how many subtree results the executor's memo will serve",
		Counters: []CounterDef{{Name: counterSharedSubplans, Position: 7}},
		Verbs: Verbs{Verb: Verb{Allowed: "served from the memo at", Refused: "not shared at"},
			Cells: map[legality.CellID]Verb{legality.SSNested: {
				Allowed: "nested subtrees counted inside", Refused: "nested subtrees not counted inside"}}},
		Analysis: true,
		Matches:  plan.Kinds(),
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			s := &sharing{Context: c, done: map[uint64][]plan.Node{}, seenND: map[uint64][]plan.Node{}}
			s.visit(root, &plan.Path{})
			return root, nil
		},
	}
}

// FlagSharedSubplans is shared_subplans' flag (its name).
const FlagSharedSubplans = legality.RuleSharedSubplans

// counterSharedSubplans counts the subtree results the executor's memo is
// predicted to serve.
const counterSharedSubplans = "sharedSubplans"

type sharing struct {
	*Context
	// done holds the deterministic subtrees evaluated so far, by fingerprint.
	done map[uint64][]plan.Node
	// seenND holds non-deterministic subtrees met so far, only to record
	// the refusals of later equal ones.
	seenND map[uint64][]plan.Node
}

// visit replays the executor's evaluation of root with an explicit stack:
// a node is checked against the memo when first met (pre-order), and stored
// once its inputs are done (post-order), left before right.
func (s *sharing) visit(root plan.Node, path *plan.Path) {
	type item struct {
		n        plan.Node
		path     *plan.Path
		fp       uint64
		det      legality.Ruling
		expanded bool
		served   bool // served, and a mutant ss.nested counts inside it
	}
	stack := []item{{n: root, path: path}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.expanded {
			if top.det.Allowed && !top.served {
				s.done[top.fp] = append(s.done[top.fp], top.n)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		n := top.n
		top.expanded = true
		top.fp = plan.Fingerprint(n)
		top.det = s.table.ShareRuling(n)
		if !top.det.Allowed {
			for _, m := range s.seenND[top.fp] {
				if plan.Equal(m, n) {
					refusal, _ := top.det.Refusal()
					s.record(refusal, s.nextItem(), n, top.path, nil)
					break
				}
			}
			s.seenND[top.fp] = append(s.seenND[top.fp], n)
		} else if served, inside := s.served(n, top.fp, top.det, top.path); served {
			if !inside {
				stack = stack[:len(stack)-1]
				continue
			}
			top.served = true
		}
		p := top.path
		children := n.Children()
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, item{n: children[i], path: p.Input(n, i)})
		}
	}
}

// served reports whether the memo serves n, counting it; inside reports
// that a mutant ss.nested also counts what is inside it.
func (s *sharing) served(n plan.Node, fp uint64, det legality.Ruling, path *plan.Path) (served, inside bool) {
	for _, m := range s.done[fp] {
		d := s.table.ShareStructural(m, n)
		item := s.nextItem()
		if !d.Allowed {
			s.record(d, item, n, path, nil)
			continue
		}
		for _, dd := range det.Decisions {
			s.record(dd, item, n, path, nil)
		}
		s.record(d, item, n, path, nil)
		s.Count(counterSharedSubplans, 1)
		if len(n.Children()) > 0 {
			nested := s.table.ShareNested(n)
			s.record(nested, item, n, path, nil)
			return true, nested.Allowed
		}
		return true, false
	}
	return false, false
}
