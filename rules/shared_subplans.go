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
// right; a subtree is served if it is deterministic (ss.deterministic) and
// structurally equal to one completed earlier (ss.structural); nothing
// inside a served subtree is counted (ss.nested). So union(join(S, S),
// join(S, S)) serves 2: the second S, then the second join whole. A
// deterministic subtree inside a non-deterministic one can still be served.
func sharedSubplans() Rule {
	return Rule{
		Name:    FlagSharedSubplans,
		Matches: plan.Kinds(),
		Cells:   legality.Default().CellsOf(legality.RuleSharedSubplans),
		Doc:     "predicts how many subtree results the executor's memo will serve",
		rewrite: func(r *run, root plan.Node) (plan.Node, error) {
			s := &sharing{run: r, done: map[uint64][]plan.Node{}, seenND: map[uint64][]plan.Node{}}
			s.visit(root, &tpath{})
			return root, nil
		},
	}
}

type sharing struct {
	*run
	// done holds the deterministic subtrees evaluated so far, by fingerprint.
	done map[uint64][]plan.Node
	// seenND holds non-deterministic subtrees met so far, only to record
	// the refusals of later equal ones.
	seenND map[uint64][]plan.Node
}

// visit replays the executor's evaluation of n.
func (s *sharing) visit(n plan.Node, path *tpath) {
	fp := plan.Fingerprint(n)
	det := s.table.ShareDeterministic(n)
	if !det.Allowed {
		for _, m := range s.seenND[fp] {
			if plan.Equal(m, n) {
				s.record(FlagSharedSubplans, det, s.nextItem(), n, path, nil)
				break
			}
		}
		s.seenND[fp] = append(s.seenND[fp], n)
	} else if s.served(n, fp, det, path) {
		return
	}
	for i, c := range n.Children() {
		s.visit(c, childPath(path, n, i))
	}
	if det.Allowed {
		s.done[fp] = append(s.done[fp], n)
	}
}

// served reports whether the memo serves n, counting it (and, under a
// mutant ss.nested, what is inside it).
func (s *sharing) served(n plan.Node, fp uint64, det legality.Decision, path *tpath) bool {
	for _, m := range s.done[fp] {
		d := s.table.ShareStructural(m, n)
		item := s.nextItem()
		if !d.Allowed {
			s.record(FlagSharedSubplans, d, item, n, path, nil)
			continue
		}
		s.record(FlagSharedSubplans, det, item, n, path, nil)
		s.record(FlagSharedSubplans, d, item, n, path, nil)
		s.counters.SharedSubplans++
		if len(n.Children()) > 0 {
			nested := s.table.ShareNested(n)
			s.record(FlagSharedSubplans, nested, item, n, path, nil)
			if nested.Allowed {
				// A mutant: count what is inside as if evaluated.
				for i, c := range n.Children() {
					s.visit(c, childPath(path, n, i))
				}
			}
		}
		return true
	}
	return false
}
