package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// filterRows keeps the rows of rec where every conjunct is valid and true.
// Every conjunct is evaluated over all rows, in list order, before any row
// is dropped. The result has rec's Arrow schema.
func (c *collector) filterRows(conjuncts []plan.Expr, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sel, err := c.ev.EvalPredicate(c.ctx, conjuncts, rec, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	out, err := ops.FilterRecord(c.mem, rec, sel)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}

// filter evaluates the conjuncts over the columns they read and keeps the
// surviving rows by composing an index vector (no column is copied).
func (c *collector) filter(n *plan.FilterNode, in *frame) (*frame, error) {
	b, err := c.exprBatch(in, n.Predicates)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	sel, err := c.ev.EvalPredicate(c.ctx, n.Predicates, b, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	rows, err := ops.SelectTrue(in.rows, sel)
	if err != nil {
		return nil, internalError("%v", err)
	}
	if len(rows) == in.rows {
		return in.withSchema(n.Schema()), nil
	}
	return in.gather(n.Schema(), rows), nil
}

// computeExprs evaluates exprs in list order, each over all rows of in,
// reading a compact batch of the columns they use; a plain column
// reference (possibly aliased) passes its column through unevaluated. The
// returned columns are new references.
func (c *collector) computeExprs(exprs []plan.Expr, in *frame) ([]fcol, error) {
	var evaluated []plan.Expr
	for _, e := range exprs {
		if _, ok := isPlainColumn(e); !ok {
			evaluated = append(evaluated, e)
		}
	}
	var b arrow.RecordBatch
	if len(evaluated) > 0 {
		var err error
		if b, err = c.exprBatch(in, evaluated); err != nil {
			return nil, err
		}
		defer b.Release()
	}
	out := make([]fcol, 0, len(exprs))
	fail := func(err error) ([]fcol, error) {
		for _, fc := range out {
			fc.arr.Release()
		}
		return nil, err
	}
	for _, e := range exprs {
		if name, ok := isPlainColumn(e); ok {
			fc, err := in.col(name)
			if err != nil {
				return fail(err)
			}
			fc.arr.Retain()
			out = append(out, fc)
			continue
		}
		a, err := c.evalExpr(e, b)
		if err != nil {
			return fail(err)
		}
		out = append(out, fcol{arr: a})
	}
	return out, nil
}

// project computes one column per expression, each over every input row (a
// literal is broadcast to the input's height by the evaluator).
func (c *collector) project(n *plan.ProjectNode, in *frame) (*frame, error) {
	cols, err := c.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	return &frame{schema: n.Schema(), rows: in.rows, cols: cols}, nil
}

// withColumns evaluates every expression over the input (a simultaneous
// assignment) and lays the output out by the node's resolved schema: a
// computed column where an expression produces the name, the input column
// of that name otherwise. The temporaries of a synthesized window below are
// not in the resolved schema, so they are not passed through.
func (c *collector) withColumns(n *plan.WithColumnsNode, in *frame) (*frame, error) {
	computed, err := c.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, fc := range computed {
			fc.arr.Release()
		}
	}()
	byName := make(map[string]fcol, len(computed))
	for i, e := range n.Exprs {
		byName[plan.OutputName(e)] = computed[i]
	}
	s := n.Schema()
	cols := make([]fcol, s.Len())
	for i, f := range s.Fields() {
		fc, ok := byName[f.Name]
		if !ok {
			if fc, err = in.col(f.Name); err != nil {
				return nil, err
			}
		}
		cols[i] = fc
	}
	for _, fc := range cols {
		fc.arr.Retain()
	}
	return &frame{schema: s, rows: in.rows, cols: cols}, nil
}

// sort orders the input stably by its keys (each evaluated over all rows,
// in order) by composing the permutation into the columns. With k >= 0 only
// the first k rows of the order are produced (top-k; the same rows as
// sorting everything and keeping k).
func (c *collector) sort(n *plan.SortNode, in *frame, k int64) (*frame, error) {
	exprs := make([]plan.Expr, len(n.Keys))
	desc := make([]bool, len(n.Keys))
	nullsLast := make([]bool, len(n.Keys))
	for i, key := range n.Keys {
		exprs[i], desc[i], nullsLast[i] = key.Expr, key.Desc, key.NullsLast
	}
	b, err := c.exprBatch(in, exprs)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	keys, err := c.evalExprs(exprs, b)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var perm []int32
	if k >= 0 && k < int64(in.rows) {
		perm, err = ops.TopK(keys, desc, nullsLast, int(k))
	} else {
		perm, err = ops.SortIndices(keys, desc, nullsLast)
	}
	if err != nil {
		return nil, internalError("%v", err)
	}
	return c.reorder(n.Schema(), in, perm), nil
}

// reorder returns the rows idx of in (-1 = a row of nulls), sharing the
// input when idx is the identity.
func (c *collector) reorder(s plan.Schema, in *frame, idx []int32) *frame {
	if isIdentity(idx, in.rows) {
		return in.withSchema(s)
	}
	return in.gather(s, idx)
}
