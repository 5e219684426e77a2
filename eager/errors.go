package eager

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// quoteName renders a column name the way plan errors name it: bare when it
// is a plain identifier, Go-quoted otherwise. It is plan's rule, derived
// from Column.String (which adds col(...) around the quoted form) so the
// two cannot drift.
func quoteName(name string) string {
	if s := (&plan.Column{Name: name}).String(); s == name {
		return name
	}
	return strconv.Quote(name)
}

// exprError fills in the path of an expression error that has none.
func exprError(err error, p string) error {
	if pe, ok := plan.AsError(err); ok && pe.Path == "" {
		c := *pe
		c.Path = p
		return &c
	}
	return err
}

// located fills in where an error happened (the node's label and path),
// keeping a location already set, and turns any other error into a
// *plan.Error; context errors become kind cancelled.
func located(err error, label, p string) error {
	if err == nil {
		return nil
	}
	pe, ok := plan.AsError(err)
	if !ok {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return &plan.Error{Kind: plan.Cancelled, Row: -1, Node: label, Path: p, Msg: "eager evaluation cancelled", Err: err}
		}
		return &plan.Error{Kind: plan.InvalidPlan, Row: -1, Node: label, Path: p, Msg: err.Error(), Err: err}
	}
	if pe.Node != "" && pe.Path != "" {
		return pe
	}
	c := *pe
	if c.Node == "" {
		c.Node = label
	}
	if c.Path == "" {
		c.Path = p
	}
	return &c
}

// internalError reports a failure of the eager chain itself (a kernel
// contract broken, an Arrow call that should not fail). It is an
// invalid_plan error so that callers always receive a *plan.Error.
func internalError(format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "eager: " + fmt.Sprintf(format, args...)}
}

// opsError keeps an operator's *plan.Error (an aggregate's overflow) and
// turns anything else into an internal error.
func opsError(err error) error {
	if _, ok := plan.AsError(err); ok {
		return err
	}
	return internalError("%v", err)
}

// checkCtx returns a cancelled error when ctx is done.
func checkCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "eager evaluation cancelled", Err: err}
	}
	return nil
}

// planErr builds a node-level error at path p.
func planErr(kind plan.ErrorKind, expr, p, format string, args ...any) *plan.Error {
	return &plan.Error{Kind: kind, Expr: expr, Row: -1, Path: p, Msg: fmt.Sprintf(format, args...)}
}

// field names a field of a node in plan-file path syntax: p.field[i].
func field(p, name string, i int) string {
	return p + "." + name + "[" + strconv.Itoa(i) + "]"
}
