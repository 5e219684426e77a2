package kernel

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// cancelEvery is how many UDF rows run between two checks of the context.
const cancelEvery = 1024

// udf calls a user-defined function once per row, in row order, with the
// row's argument values (a null argument is a null Value). Every row is a
// call, even when all arguments are literals, because a non-deterministic
// UDF (nd_seq) must advance once per row evaluated. The first row whose call
// fails aborts with a udf_error naming the call and wrapping the UDF's own
// error; a panicking UDF is a udf_error too, not a crash.
func (x *evalCtx) udf(e *plan.UDFCall, in *input, args []datum) (datum, error) {
	u := e.UDF
	if u == nil || u.Fn == nil {
		return datum{}, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: "udf: missing definition"}
	}
	n := in.n
	vs := make([]view, len(args))
	for i := range args {
		vs[i] = viewOf(args[i])
	}
	dt, err := ArrowType(u.Result)
	if err != nil {
		return datum{}, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: err.Error()}
	}
	bld := array.NewBuilder(x.mem, dt)
	defer bld.Release()
	bld.Reserve(n)
	var backing []plan.Value
	for i := 0; i < n; i++ {
		if i%cancelEvery == 0 {
			if err := x.checkCancel(e); err != nil {
				return datum{}, err
			}
			// Each call gets its own argument slice (a UDF may keep it),
			// carved from a block allocated once per cancelEvery rows.
			backing = make([]plan.Value, cancelEvery*len(args))
		}
		k := (i % cancelEvery) * len(args)
		argv := backing[k : k+len(args) : k+len(args)]
		for j := range vs {
			argv[j] = vs[j].valueAt(i)
		}
		r, err := callUDF(x, u, argv)
		if err != nil {
			return datum{}, x.fail(plan.UDFError, e, in, i, fmt.Sprintf("%s failed", u.Name), err)
		}
		if !r.IsNull() && r.Type() != u.Result {
			return datum{}, x.fail(plan.UDFError, e, in, i,
				fmt.Sprintf("%s returned a %s value, declared %s", u.Name, r.Type(), u.Result), nil)
		}
		appendValue(bld, r)
	}
	return freshDatum(u.Result, bld.NewArray()), nil
}

// callUDF runs u.Fn, turning a panic into an error.
func callUDF(x *evalCtx, u *plan.UDF, args []plan.Value) (v plan.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v", u.Name, r)
		}
	}()
	return u.Fn(x.ctx, args)
}
