package step

import (
	"github.com/dfopt/dfopt/plan"
)

// unnest replaces each struct column by its fields (docs/semantics.md,
// unnest): a field's column is `struct.field(s, name)` evaluated by the
// shared kernel (null where the struct is null), the other columns are
// shared with the input; nothing is copied but the fields' validity.
func (e *Env) unnest(n *plan.UnnestNode, in *Frame) (*Frame, error) {
	inSchema := n.Input.Schema()
	unnested := make(map[string]bool, len(n.Columns))
	var exprs []plan.Expr
	for _, c := range n.Columns {
		unnested[c] = true
	}
	for _, f := range inSchema.Fields() {
		if !unnested[f.Name] {
			exprs = append(exprs, plan.Col(f.Name).Expr())
			continue
		}
		for _, sf := range f.Type.StructFields() {
			exprs = append(exprs, plan.Col(f.Name).StructField(sf.Name).Expr())
		}
	}
	s := n.Schema()
	if len(exprs) != s.Len() {
		return nil, e.Internal("unnest: %d columns for a schema of %d", len(exprs), s.Len())
	}
	cols, err := e.computeExprs(exprs, in)
	if err != nil {
		return nil, err
	}
	return &Frame{schema: s, rows: in.rows, cols: cols}, nil
}
