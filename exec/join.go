package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// join evaluates the left keys over the left input, then the right keys
// over the right input (each over all rows, in order), matches them (a null
// key matches nothing; keys of different numeric types compare promoted)
// and gathers the output in the order docs/semantics.md defines per kind.
// Output columns follow the resolved schema: the left's, then the right's
// except the right keys plan.DroppedRightKeys drops, colliding names
// suffixed (the names come from the schema, the data from the inputs).
func (c *collector) join(n *plan.JoinNode, left, right *frame) (*frame, error) {
	lb, err := c.exprBatch(left, n.LeftOn)
	if err != nil {
		return nil, err
	}
	defer lb.Release()
	lk, err := c.evalExprs(n.LeftOn, lb)
	if err != nil {
		return nil, err
	}
	defer releaseAll(lk)
	rb, err := c.exprBatch(right, n.RightOn)
	if err != nil {
		return nil, err
	}
	defer rb.Release()
	rk, err := c.evalExprs(n.RightOn, rb)
	if err != nil {
		return nil, err
	}
	defer releaseAll(rk)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var li, ri []int32
	if n.How == plan.CrossJoin {
		li, ri, err = ops.CrossIndices(left.rows, right.rows)
	} else {
		li, ri, err = ops.JoinIndices(n.How, lk, rk)
	}
	if err != nil {
		return nil, internalError("%v", err)
	}
	s := n.Schema()
	// Every left row exactly once, in order (a lookup join against a
	// dimension with unique keys): the left columns pass through as they are.
	lf := c.reorder(left.schema, left, li)
	defer lf.release()
	cols := append([]fcol(nil), lf.cols...)
	if n.How != plan.SemiJoin && n.How != plan.AntiJoin {
		rf := c.reorder(right.schema, right, ri)
		defer rf.release()
		dropped := plan.DroppedRightKeys(n)
		for i, f := range right.schema.Fields() {
			if !dropped[f.Name] {
				cols = append(cols, rf.cols[i])
			}
		}
	}
	if len(cols) != s.Len() {
		return nil, internalError("join produced %d columns, its schema has %d", len(cols), s.Len())
	}
	for _, fc := range cols {
		fc.arr.Retain()
	}
	return &frame{schema: s, rows: len(li), cols: cols}, nil
}

// isIdentity reports whether idx is exactly 0, 1, ..., n-1.
func isIdentity(idx []int32, n int) bool {
	if len(idx) != n {
		return false
	}
	for i, j := range idx {
		if int(j) != i {
			return false
		}
	}
	return true
}

// union concatenates its inputs in order.
func (c *collector) union(n *plan.UnionNode, inputs []*frame) (*frame, error) {
	as, err := arrowSchemaOf(n.Schema())
	if err != nil {
		return nil, err
	}
	recs, err := c.materializeAll(inputs)
	if err != nil {
		return nil, err
	}
	defer releaseBatches(recs)
	out, err := ops.ConcatRecords(c.mem, as, recs)
	if err != nil {
		return nil, internalError("%v", err)
	}
	defer out.Release()
	return frameOf(n.Schema(), out)
}

// materializeAll materializes frames in order.
func (c *collector) materializeAll(fs []*frame) ([]arrow.RecordBatch, error) {
	recs := make([]arrow.RecordBatch, 0, len(fs))
	for _, f := range fs {
		r, err := c.materialize(f)
		if err != nil {
			releaseBatches(recs)
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// distinct keeps the first row of each distinct key (the Subset columns,
// or all columns), in input order.
func (c *collector) distinct(n *plan.DistinctNode, in *frame) (*frame, error) {
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
		b, err := c.batch(in, names)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		if rows, err = ops.DistinctRows(b.Columns()); err != nil {
			return nil, internalError("%v", err)
		}
	}
	return c.reorder(n.Schema(), in, rows), nil
}

// extension runs a host operator through the registry.
func (c *collector) extension(n *plan.ExtensionNode, frames []*frame) (out *frame, err error) {
	if n.Def == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "extension: no declaration"}
	}
	name := n.Def.Name
	fn, ok := c.exts.Lookup(name)
	if !ok {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("no implementation registered for extension %q (registered: %v)", name, c.exts.Names())}
	}
	inputs, err := c.materializeAll(frames)
	if err != nil {
		return nil, err
	}
	defer releaseBatches(inputs)
	rec, err := callExtension(c.ctx, fn, n, inputs, c)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := checkColumns(n.Schema(), rec.Columns(), rec.NumRows()); err != nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("extension %q returned data that does not match its declared schema %s: %v", name, n.Schema(), err)}
	}
	for i, f := range n.Schema().Fields() {
		if got := rec.Schema().Field(i).Name; got != f.Name {
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
				Msg: fmt.Sprintf("extension %q returned column %q where its schema has %q", name, got, f.Name)}
		}
	}
	return frameOf(n.Schema(), rec)
}

func callExtension(ctx context.Context, fn ExtensionFunc, n *plan.ExtensionNode, inputs []arrow.RecordBatch, c *collector) (rec arrow.RecordBatch, err error) {
	name := n.Def.Name
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q panicked: %v", name, r)}
		}
	}()
	rec, err = fn(ctx, n, inputs, c.mem)
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		if _, ok := plan.AsError(err); ok {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, cancelledError(err)
		}
		return nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q failed", name), Err: err}
	}
	if rec == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q returned no data", name)}
	}
	return rec, nil
}
