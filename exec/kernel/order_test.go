package kernel

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/internal/par"
	"github.com/dfopt/dfopt/plan"
)

// TestPropertyErrorsIgnoreRowOrder: the error an expression raises depends
// on the set of rows it sees, never on their order or on how the
// evaluator splits them (docs/semantics.md, Errors). The rows of a
// generated case (the broad generator's, or the shallow integer
// arithmetic over temporaries of TestPropertyTemporaryOperands) are
// permuted and evaluated over another partitioning:
// both raise the same error (kind and expression; the row may differ) or
// both succeed, and then every row has the same value. Expressions that
// call a non-deterministic UDF (nd_seq) are left out: their values, and
// so their errors, follow the order of evaluation.
func TestPropertyErrorsIgnoreRowOrder(t *testing.T) {
	seed := propSeed(t)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 1500
	if testing.Short() {
		params.MinSuccessfulTests = 150
	}
	params.Workers = 1
	props := gopter.NewProperties(params)
	props.Property("errors ignore row order and partitioning", prop.ForAll(func(c propCase, permSeed int64, plant bool, workers, minRows int) string {
		c.Plant = c.Plant || plant
		return checkRowOrder(t, c, permSeed, par.Parallel{Workers: workers, MinRows: minRows})
	}, gen.OneGenOf(genCase(), genTmpCase()), gen.Int64(), gen.Bool(), gen.IntRange(1, 3), gen.IntRange(1, 24)))
	if !props.Run(gopter.NewFormatedReporter(true, 100, os.Stdout)) {
		t.Errorf("property failed; replay with DFOPT_SEED=%d", seed)
	}
}

// checkRowOrder evaluates c over its rows sequentially and over a
// permutation of them split as p.
func checkRowOrder(t *testing.T, c propCase, permSeed int64, p par.Parallel) string {
	if _, err := plan.TypeOf(c.Expr, propSchema); err != nil {
		return "generator produced an ill-typed expression: " + err.Error()
	}
	if !plan.IsDeterministic(c.Expr) {
		// nd_seq's values follow the order rows are evaluated in, and so
		// may whatever is computed from them, errors included.
		return ""
	}
	data := genData(c.Seed, c.Rows, c.Plant)
	perm := rand.New(rand.NewSource(permSeed)).Perm(c.Rows)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	build := func(order []int) arrow.RecordBatch {
		cols := make([]column, 0, propSchema.Len())
		for _, f := range propSchema.Fields() {
			vals := make([]plan.Value, len(order))
			for j, r := range order {
				vals[j] = data[f.Name][r]
			}
			cols = append(cols, colOf(f.Name, f.Type, vals...))
		}
		return mkBatch(t, mem, cols...)
	}
	identity := make([]int, c.Rows)
	for i := range identity {
		identity[i] = i
	}
	rec, prec := build(identity), build(perm)
	msg := compareRowOrder(mem, c, rec, prec, perm, p)
	rec.Release()
	prec.Release()
	if msg == "" && mem.CurrentAlloc() != 0 {
		msg = fmt.Sprintf("leak: %d bytes still allocated", mem.CurrentAlloc())
	}
	return msg
}

// compareRowOrder compares c over rec, sequentially, with c over prec (rec's
// rows in the order perm), split as p.
func compareRowOrder(mem memory.Allocator, c propCase, rec, prec arrow.RecordBatch, perm []int, p par.Parallel) string {
	eval := func(ev *Evaluator, r arrow.RecordBatch) ([]plan.Value, *plan.Error, string) {
		out, err := ev.Eval(plan.WithCallCounter(context.Background()), c.Expr, r, 0)
		if err != nil {
			pe, ok := plan.AsError(err)
			if !ok {
				return nil, nil, fmt.Sprintf("not a *plan.Error: %v", err)
			}
			return nil, pe, ""
		}
		defer out.Release()
		vals := make([]plan.Value, out.Len())
		for i := range vals {
			v, err := ValueAt(out, i)
			if err != nil {
				return nil, nil, err.Error()
			}
			vals[i] = v
		}
		return vals, nil, ""
	}
	want, werr, msg := eval(&Evaluator{Mem: mem}, rec)
	if msg != "" {
		return msg
	}
	got, gerr, msg := eval(&Evaluator{Mem: mem, Par: p}, prec)
	if msg != "" {
		return msg
	}
	where := fmt.Sprintf("permutation %v, %+v", perm, p)
	switch {
	case (werr == nil) != (gerr == nil):
		return fmt.Sprintf("%s: error %v in row order, %v permuted", where, werr, gerr)
	case werr != nil:
		if werr.Kind != gerr.Kind || werr.Expr != gerr.Expr {
			return fmt.Sprintf("%s: error %s in `%s` in row order, %s in `%s` permuted", where, werr.Kind, werr.Expr, gerr.Kind, gerr.Expr)
		}
	default:
		for j, r := range perm {
			if !got[j].Identical(want[r]) {
				return fmt.Sprintf("%s: row %d is %s in row order, %s permuted", where, r, showValue(want[r]), showValue(got[j]))
			}
		}
	}
	return ""
}
