package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// ConstEvaluator computes constant expressions through the executor's own
// kernel, for the optimizer's constant folding (rules.ConstEvaluator, which
// it implements without exec importing rules): it evaluates the expression
// over a batch of one row and no column, exactly as a projection of the
// expression would over any row, so the folded literal is bitwise the value
// every row would get (NaN payloads and -0.0 included), and an expression
// that raises returns that error. The front door (package dfopt), the CLI
// and the oracle inject it. The zero value is ready to use and holds no
// state, so it may be shared between goroutines.
type ConstEvaluator struct{}

// EvalConst returns e's value on every row, or the error e raises. e must
// read no column; a column, an aggregate or an over() is an error (the
// kernel evaluates none of them without input).
func (ConstEvaluator) EvalConst(e plan.Expr) (plan.Value, error) {
	mem := memory.DefaultAllocator
	batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer batch.Release()
	ev := &kernel.Evaluator{Mem: mem}
	// A call counter, as a collect starts one: only the optimizer decides
	// not to fold a non-deterministic call; the kernel evaluates it as the
	// first row of a collect would.
	out, err := ev.Eval(plan.WithCallCounter(context.Background()), e, batch, 0)
	if err != nil {
		return plan.Value{}, err
	}
	defer out.Release()
	if out.Len() != 1 {
		return plan.Value{}, fmt.Errorf("exec: constant `%s` evaluated to %d values over one row", plan.Abbrev(e.String(), 200), out.Len())
	}
	v, err := kernel.ValueAt(out, 0)
	if err != nil {
		return plan.Value{}, fmt.Errorf("exec: constant `%s`: %w", plan.Abbrev(e.String(), 200), err)
	}
	return v, nil
}
