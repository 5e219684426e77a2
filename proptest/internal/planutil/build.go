package planutil

import "github.com/dfopt/dfopt/plan"

// Col references a column.
func Col(name string) plan.Expr { return &plan.Column{Name: name} }

// Lit is a literal of v.
func Lit(v plan.Value) plan.Expr { return &plan.Literal{Value: v} }

// Call applies a built-in function.
func Call(fn plan.Func, args ...plan.Expr) plan.Expr { return &plan.Call{Fn: fn, Args: args} }

// UDFCall applies a UDF.
func UDFCall(u *plan.UDF, args ...plan.Expr) plan.Expr { return &plan.UDFCall{UDF: u, Args: args} }

// Alias names e.
func Alias(e plan.Expr, name string) plan.Expr { return &plan.Alias{Expr: e, Name: name} }

// Named gives e the output name: bare when e already is the column of that
// name, else aliased.
func Named(e plan.Expr, name string) plan.Expr {
	if c, ok := e.(*plan.Column); ok && c.Name == name {
		return e
	}
	return Alias(e, name)
}

// ScanOf is a scan of t.
func ScanOf(t *plan.Table) plan.Node { return &plan.ScanNode{Source: t, SourceSchema: t.Schema()} }

// WithPolicyOf returns t with the pushdown policy of src (plan.Table's
// Exact, Inexact, exact_all or zone_map test policies; none leaves t as it
// is), for
// tables rebuilt from another one's values.
func WithPolicyOf(t, src *plan.Table) *plan.Table {
	switch {
	case src.ExactAllPushdown():
		return t.WithExactAllPushdown()
	case src.ZoneRows() > 0:
		return t.WithZoneMaps(src.ZoneRows())
	case src.Pushdown() != plan.Unsupported:
		return t.WithPushdown(src.Pushdown())
	}
	return t
}
