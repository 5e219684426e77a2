package planutil

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// Resolver resolves a user-written plan node by node and remembers, for each
// node of the plan (by pointer), its resolved counterpart, so that the
// generator and the shrinker know every node's input and output schemas.
type Resolver struct {
	memo map[plan.Node]plan.Node // nil value: the node does not resolve
	errs map[plan.Node]error
}

// NewResolver returns an empty resolver.
func NewResolver() *Resolver {
	return &Resolver{memo: map[plan.Node]plan.Node{}, errs: map[plan.Node]error{}}
}

// Resolve returns the resolved form of n, or the first error below or at n.
func (r *Resolver) Resolve(n plan.Node) (plan.Node, error) {
	if n == nil {
		return nil, fmt.Errorf("resolve: missing node")
	}
	if res, ok := r.memo[n]; ok {
		if res == nil {
			return nil, r.errs[n]
		}
		return res, nil
	}
	ch := n.Children()
	rc := make([]plan.Node, len(ch))
	for i, c := range ch {
		res, err := r.Resolve(c)
		if err != nil {
			r.memo[n], r.errs[n] = nil, err
			return nil, err
		}
		rc[i] = res
	}
	res, err := plan.Resolve(n.WithChildren(rc))
	if err != nil {
		r.memo[n], r.errs[n] = nil, err
		return nil, err
	}
	r.memo[n] = res
	return res, nil
}

// InputSchema returns the schema a node's expressions are typed against:
// its (first) input's output schema. ok is false when the input does not
// resolve or the node has no input.
func (r *Resolver) InputSchema(n plan.Node, i int) (plan.Schema, bool) {
	ch := n.Children()
	if i >= len(ch) {
		return plan.Schema{}, false
	}
	res, err := r.Resolve(ch[i])
	if err != nil {
		return plan.Schema{}, false
	}
	return res.Schema(), true
}
