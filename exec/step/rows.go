package step

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// filterRows keeps the rows of rec where every conjunct is valid and true.
// Every conjunct is evaluated over all rows, in list order, before any row
// is dropped. The result has rec's Arrow schema.
func (e *Env) filterRows(conjuncts []plan.Expr, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sel, err := e.evaluator().EvalPredicate(e.Ctx, conjuncts, rec, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	if int64(sel.Len()) != rec.NumRows() {
		return nil, e.Internal("a predicate selected %d rows of %d", sel.Len(), rec.NumRows())
	}
	out, err := ops.FilterRecord(e.Mem, rec, sel)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// filter evaluates the conjuncts over the columns they read, each over all
// rows in list order, and keeps the surviving rows by composing an index
// vector (no column is copied).
func (e *Env) filter(n *plan.FilterNode, in *Frame) (*Frame, error) {
	if rows, ok, err := e.filterOnBase(n.Predicates, in); ok {
		if err != nil {
			return nil, err
		}
		return e.selectRows(in, n.Schema(), rows)
	} else if err != nil {
		return nil, err
	}
	b, err := e.exprBatch(in, n.Predicates)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	sel, err := e.evaluator().EvalPredicate(e.Ctx, n.Predicates, b, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	// The selection's bitmap words and its row vector.
	work := int64(in.rows)/8 + 4*int64(in.rows) + 64
	if err := e.reserve(work, "the filter's selection"); err != nil {
		return nil, err
	}
	rows, err := ops.SelectTrueParallel(e.par, in.rows, sel)
	e.release(work)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return e.selectRows(in, n.Schema(), rows)
}

// project computes one column per expression, each over every input row (a
// literal is broadcast to the input's height by the evaluator).
func (e *Env) project(n *plan.ProjectNode, in *Frame) (*Frame, error) {
	cols, err := e.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	return &Frame{schema: n.Schema(), rows: in.rows, cols: cols}, nil
}

// withColumns evaluates every expression over the input (a simultaneous
// assignment) and lays the output out by the node's resolved schema: a
// computed column where an expression produces the name, the input column
// of that name otherwise. The temporaries of a synthesized window below are
// not in the resolved schema, so they are not passed through.
func (e *Env) withColumns(n *plan.WithColumnsNode, in *Frame) (*Frame, error) {
	computed, err := e.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, fc := range computed {
			fc.release()
		}
	}()
	byName := make(map[string]fcol, len(computed))
	for i, x := range n.Exprs {
		byName[plan.OutputName(x)] = computed[i]
	}
	s := n.Schema()
	if _, owns := plan.OwnedWindow(n); !owns && e.lazyEnabled() {
		// A lazy frame: the input's columns shared, the computed ones
		// replacing theirs or appended in the schema's order.
		set := map[int]fcol{}
		var add []fcol
		for i := in.width(); i < s.Len(); i++ {
			fc, ok := byName[s.Field(i).Name]
			if !ok {
				return nil, e.Internal("with_columns: no entry computes column %q", s.Field(i).Name)
			}
			add = append(add, fc)
		}
		for name, fc := range byName {
			if i := in.schema.Index(name); i >= 0 {
				set[i] = fc
			}
		}
		if len(set)+len(add) != len(computed) || s.Len() != in.width()+len(add) {
			return nil, e.Internal("with_columns produced %d columns, its schema has %d", in.width()+len(add), s.Len())
		}
		computed = nil // handed over to the frame
		return extend(in, s, set, add), nil
	}
	cols := make([]fcol, s.Len())
	for i, f := range s.Fields() {
		fc, ok := byName[f.Name]
		if !ok {
			if fc, err = e.col(in, f.Name); err != nil {
				return nil, err
			}
		}
		cols[i] = fc
	}
	for _, fc := range cols {
		fc.retain()
	}
	return &Frame{schema: s, rows: in.rows, cols: cols}, nil
}

// sort orders the input stably by its keys (each evaluated over all rows,
// in order) by composing the permutation into the columns. With k >= 0 only
// the first k rows of the order are produced (top-k; the same rows as
// sorting everything and keeping k).
func (e *Env) sort(n *plan.SortNode, in *Frame, k int64) (*Frame, error) {
	exprs := make([]plan.Expr, len(n.Keys))
	desc := make([]bool, len(n.Keys))
	nullsLast := make([]bool, len(n.Keys))
	for i, key := range n.Keys {
		exprs[i], desc[i], nullsLast[i] = key.Expr, key.Desc, key.NullsLast
	}
	keys, err := e.evalOn(in, exprs)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	// The permutation, per-key words, scratch and merge pairs.
	work := int64(in.rows) * (40 + 8*int64(len(keys)))
	if err := e.reserve(work, "the sort's permutation"); err != nil {
		return nil, err
	}
	var perm []int32
	if k >= 0 && k < int64(in.rows) {
		perm, err = ops.TopK(keys, desc, nullsLast, int(k))
	} else {
		perm, err = ops.SortIndices(keys, desc, nullsLast)
	}
	e.release(work)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return e.selectRows(in, n.Schema(), perm)
}

// distinct keeps the first row of each distinct key (the Subset columns,
// or all columns), in input order.
func (e *Env) distinct(n *plan.DistinctNode, in *Frame) (*Frame, error) {
	names := n.Subset
	if len(names) == 0 {
		names = in.schema.Names()
	}
	var rows []int32
	if len(names) == 0 {
		// No column at all: every row has the same (empty) key.
		if in.rows > 0 {
			rows = []int32{0}
		}
	} else {
		keys, err := e.batch(in, names)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		work := ops.GroupBound(keys.Columns(), e.par)
		if err := e.reserve(work, "the distinct's hash table"); err != nil {
			return nil, err
		}
		_, rows, err = ops.GroupIDsParallel(e.Mem, keys.Columns(), e.par)
		e.release(work)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
	}
	return e.reorder(in, n.Schema(), rows)
}
