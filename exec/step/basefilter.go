package step

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// A filter above a join usually reads columns of the join's smaller side:
// a frame column gathered through the join's index vector from, say, a
// 1,000-row dimension, for 10M rows. Gathering those columns and comparing
// 10M values costs far more than comparing the 1,000 base values once and
// looking each row's answer up through the index vector (late
// materialization). filterOnBase does the latter when it is invisible:
//
//   - every column the conjuncts read is gathered through the SAME index
//     vector, from base arrays of one length no greater than the frame's
//     row count (so it never does more work than the plain filter);
//   - every conjunct is deterministic (a value per base row stands for the
//     value per frame row) and provably cannot raise on any row
//     (kernel.CannotRaise): the base holds rows the frame does not
//     reference, and those must not raise an error the filter would not.
//
// A row whose index is -1 (the null side of an outer join) reads nulls in
// every column: the conjuncts are evaluated once over a row of nulls for
// it. The selected rows, their order and the absence of errors are exactly
// the plain filter's.

// filterOnBase returns the rows of in the conjuncts keep, evaluated on the
// base rows of in's index vector, and ok; ok is false when the filter does
// not qualify (see above) and must be evaluated as usual.
func (e *Env) filterOnBase(conjuncts []plan.Expr, in *Frame) (rows []int32, ok bool, err error) {
	var names []string
	seen := map[string]bool{}
	for _, c := range conjuncts {
		for _, name := range plan.Columns(c) {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return nil, false, nil
	}
	var g *gatherIdx
	base := -1
	fields := make([]arrow.Field, 0, len(names))
	pfields := make([]plan.Field, 0, len(names))
	cols := make([]arrow.Array, 0, len(names))
	for _, name := range names {
		fc, err := e.col(in, name)
		if err != nil {
			return nil, false, err
		}
		if fc.idx == nil || fc.seq != nil || (g != nil && fc.idx != g) || (base >= 0 && fc.arr.Len() != base) {
			return nil, false, nil
		}
		g, base = fc.idx, fc.arr.Len()
		f, _ := in.schema.Lookup(name)
		dt, err := kernel.ArrowType(f.Type)
		if err != nil {
			return nil, false, e.Internal("column %q: %v", name, err)
		}
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: true})
		pfields = append(pfields, plan.Field{Name: name, Type: f.Type, Nullable: true})
		cols = append(cols, fc.arr)
	}
	if base > in.rows {
		return nil, false, nil
	}
	ps, err := plan.NewSchema(pfields...)
	if err != nil {
		return nil, false, e.Internal("%v", err)
	}
	for _, c := range conjuncts {
		if !plan.IsDeterministic(c) || !kernel.CannotRaise(c, ps) {
			return nil, false, nil
		}
	}
	as := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(as, cols, int64(base))
	defer rec.Release()
	// lut[r+1] is 1 when base row r is kept; lut[0] is the answer for a
	// row of nulls (index -1).
	lut := make([]byte, base+1)
	if err := e.selectInto(conjuncts, rec, lut[1:]); err != nil {
		return nil, true, err
	}
	// The answer for a row of nulls, whether or not some index is -1
	// (cheaper than looking).
	nulls := nullRecord(e.Mem, as)
	defer nulls.Release()
	if err := e.selectInto(conjuncts, nulls, lut[:1]); err != nil {
		return nil, true, err
	}
	if err := e.CheckCtx(); err != nil {
		return nil, true, err
	}
	return lookupRows(g.rows, lut, e.par), true, nil
}

// selectInto evaluates the conjuncts over rec and writes 1 into out[i]
// where row i is selected, 0 elsewhere.
func (e *Env) selectInto(conjuncts []plan.Expr, rec arrow.RecordBatch, out []byte) error {
	sel, err := e.evaluator().EvalPredicate(e.Ctx, conjuncts, rec, 0)
	if err != nil {
		return err
	}
	defer sel.Release()
	if sel.Len() != len(out) {
		return e.Internal("a predicate selected over %d rows of %d", sel.Len(), len(out))
	}
	for i := range out {
		if sel.Value(i) {
			out[i] = 1
		}
	}
	return nil
}

// nullRecord is a one-row batch of nulls with the columns of as.
func nullRecord(mem memory.Allocator, as *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, as.NumFields())
	for i, f := range as.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 1)
	}
	defer releaseAll(cols)
	return array.NewRecordBatch(as, cols, 1)
}

// lookupRows returns, in order, the positions i where lut[idx[i]+1] is 1,
// each partition of idx (p) counting, then writing, its own positions.
func lookupRows(idx []int32, lut []byte, p ops.Parallel) []int32 {
	parts := p.Split(len(idx))
	counts := make([]int, len(parts)+1)
	// The closures cannot panic (the indices are the frame's own).
	_ = p.Run(len(parts), func(k int) {
		n := 0
		for _, r := range idx[parts[k].Lo:parts[k].Hi] {
			n += int(lut[r+1])
		}
		counts[k+1] = n
	})
	for k := range parts {
		counts[k+1] += counts[k]
	}
	total := counts[len(parts)]
	out := make([]int32, total+1) // one spare slot: the loops write before they know
	_ = p.Run(len(parts), func(k int) {
		lo, j := parts[k].Lo, counts[k]
		if k < len(parts)-1 {
			// Only the last partition may write past its end (the
			// spare slot); the others test before writing.
			for i, r := range idx[lo:parts[k].Hi] {
				if lut[r+1] != 0 {
					out[j] = int32(lo + i)
					j++
				}
			}
			return
		}
		for i, r := range idx[lo:parts[k].Hi] {
			out[j] = int32(lo + i)
			j += int(lut[r+1])
		}
	})
	return out[:total:total]
}
