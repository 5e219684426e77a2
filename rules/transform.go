package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// TransformUp rewrites the tree root bottom-up, as a local rule runs: fn
// sees each node, resolved, over its already rewritten inputs, with its
// path in root, and returns the node itself to keep it or a replacement.
// A window node belongs to the project or with_columns above it (Resolve
// makes it from over()): fn sees the owner, not the window.
// Every replacement is resolved and must have the schema of the node it
// replaces — the schema guard: otherwise TransformUp stops with an error
// naming the node and its path. The result is root resolved, and root
// itself when nothing was replaced; no node of root is modified. Chains of
// single-input nodes are walked in a loop, so a deep chain needs no deep Go
// stack.
func TransformUp(root plan.Node, fn func(n plan.Node, at *plan.Path) (plan.Node, error)) (plan.Node, error) {
	if root == nil {
		return nil, ErrNilPlan
	}
	in, err := plan.Resolve(root)
	if err != nil {
		return nil, fmt.Errorf("transform: resolve the plan: %w", err)
	}
	var failed error
	out := bottomUp(in, &plan.Path{}, func(orig, n plan.Node, at *plan.Path) plan.Node {
		if _, window := orig.(*plan.WindowNode); failed != nil || window {
			// A window belongs to the project or with_columns that owns it
			// (Resolve synthesizes it from over()): it resolves only with
			// its owner, and fn sees the owner.
			return n
		}
		if n != orig {
			// Rebuilt over new inputs: resolved (only n itself is new).
			if n, err = plan.Resolve(n); err != nil {
				failed = fmt.Errorf("%s at %s does not resolve over its rewritten inputs: %w", label(orig), at, err)
				return orig
			}
		}
		m, err := fn(n, at)
		switch {
		case err != nil:
			failed = err
			return n
		case m == nil:
			failed = fmt.Errorf("%s at %s was replaced by no node", label(orig), at)
			return n
		case m == n:
			return n
		}
		resolved, err := plan.Resolve(m)
		if err != nil {
			failed = fmt.Errorf("the replacement of %s at %s does not resolve: %w", label(orig), at, err)
			return n
		}
		if got, want := resolved.Schema(), orig.Schema(); !got.Equal(want) {
			failed = fmt.Errorf("replacing %s at %s changes its schema from %s to %s", label(orig), at, want, got)
			return n
		}
		return resolved
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// label is a node's label cut for an error message.
func label(n plan.Node) string { return plan.Abbrev(n.Label(), traceEcho) }
