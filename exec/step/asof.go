package step

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// asofJoin joins every left row, in left order, with at most one right row
// (docs/semantics.md, asof_join). It reads the key and by-key columns of
// both inputs, verifies the left input's order, then the right's (an
// invalid_input error at the first row out of order: never trusted), then
// matches in one merge pass (ops.AsofMatch). The left columns pass through
// as they are; the right ones are gathered by the match vector (-1 gives
// nulls), names from the resolved schema.
func (e *Env) asofJoin(n *plan.AsOfJoinNode, left, right *Frame) (*Frame, error) {
	cols := func(names ...string) []plan.Expr {
		out := make([]plan.Expr, len(names))
		for i, c := range names {
			out[i] = &plan.Column{Name: c}
		}
		return out
	}
	la, err := e.evalOn(left, cols(append([]string{n.LeftOn}, n.LeftBy...)...))
	if err != nil {
		return nil, err
	}
	defer releaseAll(la)
	ra, err := e.evalOn(right, cols(append([]string{n.RightOn}, n.RightBy...)...))
	if err != nil {
		return nil, err
	}
	defer releaseAll(ra)
	lk, err := ops.KeyInts(la[0])
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	rk, err := ops.KeyInts(ra[0])
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	for _, side := range []struct {
		name, key string
		keys      []int64
		arrs      []arrow.Array
	}{{"left", n.LeftOn, lk, la}, {"right", n.RightOn, rk, ra}} {
		ids, groups, err := ops.SideIDs(side.arrs[1:], len(side.keys))
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		if r, p := ops.FirstUnsorted(side.keys, side.arrs[0], ids, groups); r >= 0 {
			name := (&plan.Column{Name: side.key}).String()
			return nil, &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("asof_join: the %s input is not sorted on %s: row %d (%s) follows row %d (%s)",
					side.name, name, r, keyText(side.arrs[0], r), p, keyText(side.arrs[0], p))}
		}
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	var lids, rids []int32
	groups := 1
	if len(n.LeftBy) > 0 {
		if lids, rids, groups, err = ops.AsofByIDs(la[1:], ra[1:], e.par); err != nil {
			return nil, e.Internal("%v", err)
		}
	}
	spec := ops.AsofSpec{Strategy: n.Strategy, ExcludeExact: n.ExcludeExact}
	if tol, ok := n.AsofTolerance(); ok {
		spec.HasTolerance, spec.Tolerance = true, uint64(tol)
	}
	work := 12 * int64(len(rk)+len(lk))
	if err := e.reserve(work, "the as-of join's match vectors"); err != nil {
		return nil, err
	}
	match := ops.AsofMatch(spec, lk, rk, la[0], ra[0], lids, rids, groups)
	e.release(work)
	s := n.Schema()
	// Every left row once, in order: the left columns as they are.
	lf := left
	if left.store != nil {
		if lf, err = e.flat(left); err != nil {
			return nil, err
		}
		defer lf.Release()
	}
	out := append([]fcol(nil), lf.cols...)
	rf, err := e.gather(right, right.schema, match)
	if err != nil {
		return nil, err
	}
	defer rf.Release()
	dropped := plan.DroppedAsofRightColumns(n)
	for i, f := range right.schema.Fields() {
		if !dropped[f.Name] {
			out = append(out, rf.cols[i])
		}
	}
	if len(out) != s.Len() {
		return nil, e.Internal("asof_join produced %d columns, its schema has %d", len(out), s.Len())
	}
	for _, fc := range out {
		fc.retain()
	}
	return &Frame{schema: s, rows: left.rows, cols: out}, nil
}

// keyText renders row r of a key column for an error message.
func keyText(a arrow.Array, r int) string {
	if r < 0 || r >= a.Len() {
		return "?"
	}
	return a.ValueStr(r)
}
