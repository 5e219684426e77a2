package reference

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/dfopt/dfopt/plan"
)

// Result is a relation of plain values: the outcome of Collect, the input
// and output of a host extension operator. Columns holds one slice of Rows
// values per schema field, in schema order; every value has its field's
// type (a null is the typed null of that type). Results returned by this
// package share slices with each other and with inline tables: treat them
// as immutable.
type Result struct {
	// Schema names and types the columns (and says which may hold nulls).
	Schema plan.Schema
	// Rows is the number of rows; it is meaningful also without columns.
	Rows int
	// Columns holds the cells, column by column.
	Columns [][]plan.Value
}

// Column returns the named column's values, or nil when there is none.
func (r *Result) Column(name string) []plan.Value {
	if r == nil {
		return nil
	}
	i := r.Schema.Index(name)
	if i < 0 || i >= len(r.Columns) {
		return nil
	}
	return r.Columns[i]
}

// ScanFunc reads a source that is not a *plan.Table (a Parquet file, a
// host's own table). It returns one column per field of want — the schema
// the scan captured when the plan was built — in that order, each with the
// same number of values of the field's type. A source the function cannot
// read should be answered with an error wrapping ErrUnsupported, so that
// the caller skips the plan; any other error becomes a source_error.
type ScanFunc func(ctx context.Context, src plan.Source, want plan.Schema) ([][]plan.Value, error)

// ExtensionFunc implements a host extension operator over plain values: it
// receives the resolved node and its evaluated inputs (which it must not
// modify) and returns a result with the node's resolved schema. An error
// that is a *plan.Error is passed through; any other error becomes a
// udf_error naming the operator, as for the executor's implementations.
type ExtensionFunc func(ctx context.Context, node *plan.ExtensionNode, inputs []*Result) (*Result, error)

// Options configure one Collect.
type Options struct {
	// Scan reads the sources that are not *plan.Table. Nil means such a
	// source is unsupported (the plan is skipped, see ErrUnsupported).
	Scan ScanFunc
	// Extensions implements host extension operators by name. The
	// built-in operators of testops.Registry are always available
	// (for their own declarations); an extension node whose declaration is
	// not a built-in one and whose name is not here is unsupported.
	Extensions map[string]ExtensionFunc
}

// ErrUnsupported marks a plan the reference cannot run: a host extension
// operator without an implementation, or a source it cannot read. It is
// not a disagreement with anything; errors.Is finds it in Collect's error.
var ErrUnsupported = errors.New("reference: unsupported")

// ErrInternal marks a broken invariant: a recovered panic, a host operator
// or source that returned values of the wrong shape or type, or a result
// that contradicts its own schema. errors.Is finds it in Collect's error.
var ErrInternal = errors.New("reference: internal error")

// Collect runs root the reference way and returns its result, or the error
// the plan raises. It resolves root first (a resolve error is returned as
// plan.Resolve reports it), starts a fresh call counter for the collect
// (plan.WithCallCounter, read by nd_seq, nd_tick and nd_tag), then
// evaluates the resolved tree bottom-up, children in order, each node's
// expressions in list order, exactly as docs/semantics.md says. It never
// panics.
func Collect(ctx context.Context, root plan.Node, opts Options) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: panic: %v\n%s", ErrInternal, p, debug.Stack())
		}
	}()
	resolved, err := plan.Resolve(root)
	if err != nil {
		return nil, err
	}
	c := &collector{ctx: plan.WithCallCounter(ctx), opts: opts}
	out, err := c.node(resolved)
	if err != nil {
		return nil, err
	}
	if err := checkResult(out, resolved.Schema(), "the plan's result"); err != nil {
		return nil, err
	}
	return out, nil
}

// EvalExpr evaluates the row expression e over every row of in, as a
// project would, and returns one value per row. ctx should carry a call
// counter (plan.WithCallCounter) when e calls a non-deterministic UDF. An
// error is a *plan.Error whose Row is the first failing row of the failing
// expression's input plus rowOffset (the position of in's first row in a
// larger input). Aggregates and over() are not row expressions: they are
// evaluated by the aggregate and window nodes.
func EvalExpr(ctx context.Context, e plan.Expr, in *Result, rowOffset int64) (vals []plan.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			vals, err = nil, fmt.Errorf("%w: panic: %v\n%s", ErrInternal, p, debug.Stack())
		}
	}()
	if in == nil {
		return nil, fmt.Errorf("%w: EvalExpr: no input", ErrInternal)
	}
	env := newEnv(ctx, in, rowOffset)
	out, perr := env.eval(e, env.all)
	if perr != nil {
		return nil, perr
	}
	return out, nil
}

// checkResult verifies a relation against the schema it must have: the
// column count, every column's length, every value's type, and no null in
// a field that cannot hold one. A violation is an internal error: the
// reference (or a host operator, or Resolve's nullability) is wrong.
func checkResult(r *Result, s plan.Schema, what string) error {
	if r == nil {
		return fmt.Errorf("%w: %s: no result", ErrInternal, what)
	}
	if len(r.Columns) != s.Len() {
		return fmt.Errorf("%w: %s has %d columns, its schema %s has %d", ErrInternal, what, len(r.Columns), s, s.Len())
	}
	for i, col := range r.Columns {
		f := s.Field(i)
		if len(col) != r.Rows {
			return fmt.Errorf("%w: %s: column %d (%s) has %d values for %d rows", ErrInternal, what, i, f.Name, len(col), r.Rows)
		}
		for row, v := range col {
			if v.Type() != f.Type {
				return fmt.Errorf("%w: %s: column %d (%s) row %d holds a %s value where the schema says %s",
					ErrInternal, what, i, f.Name, row, v.Type(), f.Type)
			}
			if v.IsNull() && !f.Nullable {
				return fmt.Errorf("%w: %s: column %d (%s) row %d is null but the schema says the column is never null",
					ErrInternal, what, i, f.Name, row)
			}
		}
	}
	return nil
}

// evalError builds the error an expression raises at one row, naming the
// expression as written (docs/semantics.md, Errors).
func evalError(kind plan.ErrorKind, e plan.Expr, row int64, msg string) *plan.Error {
	return &plan.Error{Kind: kind, Expr: plan.Written(e), Row: row, Msg: msg}
}

// cancelled is the error of a collect whose context ended.
func cancelled(err error) *plan.Error {
	return &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "reference: " + err.Error(), Err: err}
}
