package reference

import (
	"context"
	"errors"
	"fmt"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// builtinDefs maps each built-in extension declaration (the pointers
// testops.Registry holds) to its implementation. An extension node
// runs a built-in implementation only when its declaration is the built-in
// one: a host's own operator under the same name is the host's.
var builtinDefs = func() map[*plan.ExtensionDef]ExtensionFunc {
	impls := map[string]ExtensionFunc{
		"identity":        identityOp,
		"passthrough_tag": tagOp(false),
		"checked_tag":     tagOp(true),
		"swap_pairs":      swapPairsOp,
		"nd_tag":          ndTagOp,
		"null_first":      nullFirstOp,
		"lag_first":       lagFirstOp,
	}
	reg := testops.Registry()
	out := make(map[*plan.ExtensionDef]ExtensionFunc, len(impls))
	for _, name := range reg.Names() {
		def, _ := reg.Lookup(name)
		if fn, ok := impls[name]; ok {
			out[def] = fn
		}
	}
	return out
}()

// extension runs an extension node over its evaluated inputs: a built-in
// declaration by its implementation here, a host's by Options.Extensions.
func (c *collector) extension(n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	name := "<undeclared>"
	if n.Def != nil {
		name = n.Def.Name
	}
	fn, ok := builtinDefs[n.Def]
	if !ok {
		if fn, ok = c.opts.Extensions[name]; !ok || fn == nil {
			return nil, fmt.Errorf("%w: extension %s: no reference implementation of the host operator", ErrUnsupported, name)
		}
	}
	out, err := callExtension(c.ctx, fn, n, ins)
	if err != nil {
		var pe *plan.Error
		switch {
		case errors.As(err, &pe):
			return nil, pe
		case errors.Is(err, ErrUnsupported), errors.Is(err, ErrInternal):
			return nil, err
		}
		return nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: err.Error(), Err: err}
	}
	if err := checkResult(out, n.Schema(), "extension "+name); err != nil {
		return nil, err
	}
	return &Result{Schema: n.Schema(), Rows: out.Rows, Columns: out.Columns}, nil
}

// callExtension calls an implementation, turning a panic into an internal
// error.
func callExtension(ctx context.Context, fn ExtensionFunc, n *plan.ExtensionNode, ins []*Result) (out *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: extension %s panicked: %v", ErrInternal, n.Label(), p)
		}
	}()
	return fn(ctx, n, ins)
}

// one returns the single input of a one-input built-in operator.
func one(n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	if len(ins) != 1 {
		return nil, fmt.Errorf("%w: %s takes one input, got %d", ErrInternal, n.Label(), len(ins))
	}
	return ins[0], nil
}

// identityOp returns its input unchanged.
func identityOp(_ context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	return one(n, ins)
}

// tagOp is passthrough_tag (checked false) and checked_tag (checked true):
// the input's columns unchanged, then tag: bool, true where the first
// column is null (false everywhere when the input has no column).
// checked_tag instead raises udf_error, expression text "checked_tag", at
// the first row whose first column is null.
func tagOp(checked bool) ExtensionFunc {
	return func(_ context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
		in, err := one(n, ins)
		if err != nil {
			return nil, err
		}
		tag := make([]plan.Value, in.Rows)
		for r := range tag {
			null := len(in.Columns) > 0 && in.Columns[0][r].IsNull()
			if null && checked {
				return nil, &plan.Error{Kind: plan.UDFError, Expr: n.Def.Name, Row: int64(r),
					Msg: fmt.Sprintf("%s: the first column (%s) is null", n.Def.Name, in.Schema.Field(0).Name)}
			}
			tag[r] = plan.BoolValue(null)
		}
		return appendColumn(n, in, tag), nil
	}
}

// ndTagOp appends tag: int64, the collect's call counter, read once per
// row in row order.
func ndTagOp(ctx context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	in, err := one(n, ins)
	if err != nil {
		return nil, err
	}
	tag := make([]plan.Value, in.Rows)
	for r := range tag {
		tag[r] = plan.Int64Value(plan.CallCount(ctx))
	}
	return appendColumn(n, in, tag), nil
}

// appendColumn returns in with one more column, under the node's schema.
func appendColumn(n *plan.ExtensionNode, in *Result, col []plan.Value) *Result {
	cols := append(append([][]plan.Value(nil), in.Columns...), col)
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: cols}
}

// swapPairsOp swaps rows 0 and 1, 2 and 3, ...; an odd last row stays.
func swapPairsOp(_ context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	in, err := one(n, ins)
	if err != nil {
		return nil, err
	}
	order := make([]int, in.Rows)
	for r := range order {
		switch {
		case r%2 == 0 && r+1 < in.Rows:
			order[r] = r + 1
		case r%2 == 1:
			order[r] = r - 1
		default:
			order[r] = r
		}
	}
	return takeRows(n.Schema(), in, order), nil
}

// nullFirstOp replaces the first column (if any) by nulls of its type.
func nullFirstOp(_ context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	in, err := one(n, ins)
	if err != nil {
		return nil, err
	}
	return replaceFirst(n, in, func(col []plan.Value, t plan.Type) []plan.Value {
		out := make([]plan.Value, len(col))
		for r := range out {
			out[r] = plan.NullValue(t)
		}
		return out
	}), nil
}

// lagFirstOp shifts the first column (if any) down one row: row 0 gets a
// null, row i the value of row i-1.
func lagFirstOp(_ context.Context, n *plan.ExtensionNode, ins []*Result) (*Result, error) {
	in, err := one(n, ins)
	if err != nil {
		return nil, err
	}
	return replaceFirst(n, in, func(col []plan.Value, t plan.Type) []plan.Value {
		out := make([]plan.Value, len(col))
		for r := range out {
			if r == 0 {
				out[r] = plan.NullValue(t)
			} else {
				out[r] = col[r-1]
			}
		}
		return out
	}), nil
}

// replaceFirst returns in with its first column rewritten by f.
func replaceFirst(n *plan.ExtensionNode, in *Result, f func([]plan.Value, plan.Type) []plan.Value) *Result {
	cols := append([][]plan.Value(nil), in.Columns...)
	if len(cols) > 0 {
		cols[0] = f(cols[0], in.Schema.Field(0).Type)
	}
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: cols}
}
