package step

import (
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// join evaluates the left keys over the left input, then the right keys
// over the right input (each over all rows, in order), matches them (a null
// key matches nothing; keys of different numeric types compare promoted)
// and gathers the output in the order docs/semantics.md defines per kind.
// Output columns follow the resolved schema: the left's, then the right's
// except the right keys plan.DroppedRightKeys drops, colliding names
// suffixed (the names come from the schema, the data from the inputs). An
// inner join with BuildLeft hashes its left keys instead of its right
// ones (ops.BuildLeft): the pairs, their order and the errors are the
// same; only which side's keys fill the hash table changes.
func (e *Env) join(n *plan.JoinNode, left, right *Frame) (*Frame, error) {
	lk, err := e.evalOn(left, n.LeftOn)
	if err != nil {
		return nil, err
	}
	defer releaseAll(lk)
	rk, err := e.evalOn(right, n.RightOn)
	if err != nil {
		return nil, err
	}
	defer releaseAll(rk)
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	var li, ri []int32
	var held int64 // the pair vectors' reservation under a memory limit
	if n.How == plan.CrossJoin {
		li, ri, held, err = ops.CrossIndicesLimited(e.spill(), left.rows, right.rows)
	} else {
		build := ops.BuildRight
		if n.BuildLeft {
			build = ops.BuildLeft
		}
		li, ri, held, err = ops.JoinIndicesLimitedBuild(e.spill(), n.How, build, lk, rk, e.par)
	}
	if err != nil {
		return nil, e.opFailure(err)
	}
	// The output frames count the vectors they keep (gather); the pairs'
	// own reservation ends with the join.
	defer e.release(held)
	s := n.Schema()
	// Every left row exactly once, in order (a lookup join against a
	// dimension with unique keys): the left columns pass through as they are.
	lf, err := e.reorder(left, left.schema, li)
	if err != nil {
		return nil, err
	}
	defer lf.Release()
	cols := append([]fcol(nil), lf.cols...)
	if n.How != plan.SemiJoin && n.How != plan.AntiJoin {
		rf, err := e.reorder(right, right.schema, ri)
		if err != nil {
			return nil, err
		}
		defer rf.Release()
		dropped := plan.DroppedRightKeys(n)
		for i, f := range right.schema.Fields() {
			if !dropped[f.Name] {
				cols = append(cols, rf.cols[i])
			}
		}
	}
	if len(cols) != s.Len() {
		return nil, e.Internal("join produced %d columns, its schema has %d", len(cols), s.Len())
	}
	for _, fc := range cols {
		fc.retain()
	}
	return &Frame{schema: s, rows: len(li), cols: cols}, nil
}

// union concatenates its inputs in order.
func (e *Env) union(n *plan.UnionNode, inputs []*Frame) (*Frame, error) {
	as, err := e.arrowSchemaOf(n.Schema())
	if err != nil {
		return nil, err
	}
	recs, err := e.materializeAll(inputs)
	if err != nil {
		return nil, err
	}
	defer releaseBatches(recs)
	out, err := ops.ConcatRecords(e.Mem, as, recs)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	defer out.Release()
	return e.FromRecord(n.Schema(), out)
}
