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
func (c *collector) join(n *plan.JoinNode, left, right arrow.RecordBatch) (arrow.RecordBatch, error) {
	lk, err := c.evalExprs(n.LeftOn, left)
	if err != nil {
		return nil, err
	}
	defer releaseAll(lk)
	rk, err := c.evalExprs(n.RightOn, right)
	if err != nil {
		return nil, err
	}
	defer releaseAll(rk)
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	var li, ri []int32
	if n.How == plan.CrossJoin {
		li, ri, err = ops.CrossIndices(int(left.NumRows()), int(right.NumRows()))
	} else {
		li, ri, err = ops.JoinIndices(n.How, lk, rk)
	}
	if err != nil {
		return nil, internalError("%v", err)
	}
	s := n.Schema()
	cols := make([]arrow.Array, 0, s.Len())
	defer func() { releaseAll(cols) }()
	// Every left row exactly once, in order (a lookup join against a
	// dimension with unique keys): the left columns pass through as they are.
	leftSame := isIdentity(li, int(left.NumRows()))
	for i := 0; i < int(left.NumCols()); i++ {
		if leftSame {
			col := left.Column(i)
			col.Retain()
			cols = append(cols, col)
			continue
		}
		col, err := c.gather(left.Column(i), li)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	if n.How != plan.SemiJoin && n.How != plan.AntiJoin {
		dropped := plan.DroppedRightKeys(n)
		for i, f := range right.Schema().Fields() {
			if dropped[f.Name] {
				continue
			}
			col, err := c.gather(right.Column(i), ri)
			if err != nil {
				return nil, err
			}
			cols = append(cols, col)
		}
	}
	if len(cols) != s.Len() {
		return nil, internalError("join produced %d columns, its schema has %d", len(cols), s.Len())
	}
	return conform(s, cols, int64(len(li)))
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

func (c *collector) gather(a arrow.Array, idx []int32) (arrow.Array, error) {
	if err := checkCtx(c.ctx); err != nil {
		return nil, err
	}
	out, err := ops.Take(c.mem, a, idx)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}

// union concatenates its inputs in order.
func (c *collector) union(n *plan.UnionNode, inputs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	as, err := arrowSchemaOf(n.Schema())
	if err != nil {
		return nil, err
	}
	out, err := ops.ConcatRecords(c.mem, as, inputs)
	if err != nil {
		return nil, internalError("%v", err)
	}
	defer out.Release()
	return recolumn(n.Schema(), out)
}

// distinct keeps the first row of each distinct key (the Subset columns,
// or all columns), in input order.
func (c *collector) distinct(n *plan.DistinctNode, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	names := n.Subset
	if len(names) == 0 {
		names = n.Input.Schema().Names()
	}
	keys := make([]arrow.Array, len(names))
	for i, name := range names {
		var err error
		if keys[i], err = columnByName(in, name); err != nil {
			return nil, err
		}
	}
	var rows []int32
	if len(keys) == 0 {
		// No column at all: every row has the same (empty) key.
		if in.NumRows() > 0 {
			rows = []int32{0}
		}
	} else {
		var err error
		if rows, err = ops.DistinctRows(keys); err != nil {
			return nil, internalError("%v", err)
		}
	}
	return c.takeRecord(n.Schema(), in, rows)
}

// extension runs a host operator through the registry.
func (c *collector) extension(n *plan.ExtensionNode, inputs []arrow.RecordBatch) (out arrow.RecordBatch, err error) {
	if n.Def == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "extension: no declaration"}
	}
	name := n.Def.Name
	fn, ok := c.exts.Lookup(name)
	if !ok {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("no implementation registered for extension %q (registered: %v)", name, c.exts.Names())}
	}
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
	return recolumn(n.Schema(), rec)
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
