package reference

import "github.com/dfopt/dfopt/plan"

// guard is docs/semantics.md's guard: its expressions are evaluated over
// every input row, in list order, as a with_columns would evaluate them —
// so it raises exactly their first error — and their values are dropped:
// the output is the input, unchanged.
func (c *collector) guard(n *plan.GuardNode, in *Result) (*Result, error) {
	if _, err := c.exprs(n.Exprs, in); err != nil {
		return nil, err
	}
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: in.Columns}, nil
}
