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

func (c *collector) filter(n *plan.FilterNode, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	out, err := c.filterRows(n.Predicates, in)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return recolumn(n.Schema(), out)
}

// project computes one column per expression, each over every input row (a
// literal is broadcast to the input's height by the evaluator).
func (c *collector) project(n *plan.ProjectNode, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols, err := c.evalExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	return conform(n.Schema(), cols, in.NumRows())
}

// withColumns evaluates every expression over the input (a simultaneous
// assignment) and lays the output out by the node's resolved schema: a
// computed column where an expression produces the name, the input column
// of that name otherwise. The temporaries of a synthesized window below are
// not in the resolved schema, so they are not passed through.
func (c *collector) withColumns(n *plan.WithColumnsNode, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	computed, err := c.evalExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(computed)
	byName := make(map[string]arrow.Array, len(computed))
	for i, e := range n.Exprs {
		byName[plan.OutputName(e)] = computed[i]
	}
	s := n.Schema()
	cols := make([]arrow.Array, s.Len())
	for i, f := range s.Fields() {
		if a, ok := byName[f.Name]; ok {
			cols[i] = a
			continue
		}
		if cols[i], err = columnByName(in, f.Name); err != nil {
			return nil, err
		}
	}
	return conform(s, cols, in.NumRows())
}

// sort orders the input stably by its keys (each evaluated over all rows,
// in order). With k >= 0 only the first k rows of the order are produced
// (top-k; the same rows as sorting everything and keeping k).
func (c *collector) sort(n *plan.SortNode, in arrow.RecordBatch, k int64) (arrow.RecordBatch, error) {
	exprs := make([]plan.Expr, len(n.Keys))
	desc := make([]bool, len(n.Keys))
	nullsLast := make([]bool, len(n.Keys))
	for i, key := range n.Keys {
		exprs[i], desc[i], nullsLast[i] = key.Expr, key.Desc, key.NullsLast
	}
	keys, err := c.evalExprs(exprs, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var perm []int32
	if k >= 0 && k < in.NumRows() {
		perm, err = ops.TopK(keys, desc, nullsLast, int(k))
	} else {
		perm, err = ops.SortIndices(keys, desc, nullsLast)
	}
	if err != nil {
		return nil, internalError("%v", err)
	}
	return c.takeRecord(n.Schema(), in, perm)
}

// takeRecord gathers rows of in by index (-1 = null) under schema s.
func (c *collector) takeRecord(s plan.Schema, in arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	if isIdentity(idx, int(in.NumRows())) {
		return recolumn(s, in) // already in order, nothing dropped: no copy
	}
	out, err := ops.TakeRecord(c.mem, in, idx)
	if err != nil {
		return nil, internalError("%v", err)
	}
	defer out.Release()
	return recolumn(s, out)
}

// slice keeps rows [offset, offset+length) clamped to the input (limit is
// slice from 0); it shares the input's buffers.
func (c *collector) slice(s plan.Schema, in arrow.RecordBatch, offset, length int64) (arrow.RecordBatch, error) {
	out := ops.SliceRecord(in, offset, length)
	defer out.Release()
	return recolumn(s, out)
}
