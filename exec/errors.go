package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// sourceError builds the error of a source that failed to produce its data:
// kind source_error, the source's name as the offending name, and the cause.
func sourceError(src string, cause error, format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.SourceError, Expr: src, Row: -1,
		Msg: fmt.Sprintf(format, args...), Err: cause}
}

// cancelledError is the error of a collect stopped by its context.
func cancelledError(cause error) *plan.Error {
	return &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "collect cancelled", Err: cause}
}

// checkCtx returns a cancelled error when ctx is done.
func checkCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return cancelledError(err)
	}
	return nil
}

// internalError reports a failure of the executor itself (an Arrow call that
// should not fail, an operator contract broken); it is an invalid_plan error
// so that callers always receive a *plan.Error.
func internalError(format string, args ...any) *plan.Error {
	return &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "executor: " + fmt.Sprintf(format, args...)}
}

// atNode fills in the node label of an error that does not name one yet and
// turns any other error into a *plan.Error. Context errors become kind
// cancelled.
func atNode(err error, n plan.Node) error {
	if err == nil {
		return nil
	}
	pe, ok := plan.AsError(err)
	if !ok {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			pe = cancelledError(err)
		} else {
			pe = &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: err.Error(), Err: err}
		}
	} else {
		c := *pe
		pe = &c
	}
	if pe.Node == "" && n != nil {
		pe.Node = n.Label()
	}
	return pe
}
