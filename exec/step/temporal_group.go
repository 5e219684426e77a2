package step

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// temporalGroup evaluates group_by_dynamic or rolling (docs/semantics.md,
// temporal_group): the by-keys over all rows, then one pass verifying the
// index (null, order within the group, range: never trusted), then the
// windows by a two-pointer sweep over each group's rows (ops), then per
// aggregate in list order its argument over all rows, gathered window by
// window (a row in several windows is gathered once per window), and
// reduced per window by the aggregate operator the aggregate node uses.
func (e *Env) temporalGroup(n *plan.TemporalGroupNode, f *Frame) (*Frame, error) {
	cols := make([]plan.Expr, 0, len(n.By)+1)
	for _, b := range n.By {
		cols = append(cols, &plan.Column{Name: b})
	}
	cols = append(cols, &plan.Column{Name: n.Index})
	in, err := e.exprBatch(f, append(append([]plan.Expr(nil), cols...), n.Aggs...))
	if err != nil {
		return nil, err
	}
	defer in.Release()
	keys, err := e.evalExprs(cols, in)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	by, idx := keys[:len(n.By)], keys[len(n.By)]
	rows := int(in.NumRows())
	t, ok := phys.Int64(idx)
	if !ok {
		return nil, e.Internal("temporal_group: index of type %s", idx.DataType())
	}
	var ids []int32
	groups := 0
	if len(by) == 0 {
		ids = make([]int32, rows)
		if rows > 0 {
			groups = 1
		}
	} else {
		var first []int32
		if ids, first, err = ops.GroupIDs(by); err != nil {
			return nil, e.Internal("%v", err)
		}
		groups = len(first)
	}
	if err := checkIndex(n, idx, t, ids, groups); err != nil {
		return nil, err
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	start, list := ops.GroupLists(ids, groups)
	prm := n.Params()
	var w *ops.Windows
	if n.Mode == plan.TemporalDynamic {
		w = ops.DynamicWindows(t, start, list, prm, n.LabelKind)
	} else {
		w = ops.RollingWindows(t, ids, start, list, prm)
	}
	if err := e.reserve(12*int64(len(w.Rows)), "the windows' rows"); err != nil {
		return nil, err
	}
	defer e.release(12 * int64(len(w.Rows)))
	wids := w.IDs()
	count := w.Count()
	out := make([]arrow.Array, 0, n.Schema().Len())
	defer func() { releaseAll(out) }()
	for _, b := range by {
		c, err := e.take(b, w.KeyRow)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	out = append(out, labelArray(e.Mem, w.Label, idx.DataType()))
	for _, a := range n.Aggs {
		call, arg, err := e.aggArg(a, in)
		if err != nil {
			return nil, err
		}
		var taken arrow.Array
		if arg != nil {
			taken, err = e.take(arg, w.Rows)
			arg.Release()
			if err != nil {
				return nil, err
			}
		}
		col, err := e.reduceIDs(call, taken, wids, count)
		if taken != nil {
			taken.Release()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, col)
	}
	rec, err := e.conform(n.Schema(), out, int64(count))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return e.FromRecord(n.Schema(), rec)
}

// checkIndex verifies a temporal_group's index in one pass in input
// order: per row, a null raises invalid_input, then an index smaller than
// the previous one of its group, then an index too close to the int64
// range for its windows (docs/semantics.md, temporal_group).
func checkIndex(n *plan.TemporalGroupNode, idx arrow.Array, t []int64, ids []int32, groups int) error {
	name := (&plan.Column{Name: n.Index}).String()
	reach := n.Params().Reach(n.Mode)
	lo, hi := int64(math.MinInt64)+reach, int64(math.MaxInt64)-reach
	last := make([]int32, groups)
	for i := range last {
		last[i] = -1
	}
	nulls := idx.NullN() > 0
	for r, v := range t {
		g := ids[r]
		if nulls && idx.IsNull(r) {
			return &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: the index %s is null at row %d", name, r)}
		}
		if p := last[g]; p >= 0 && v < t[p] {
			return &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: the index %s is not sorted within its group: row %d (%s) follows row %d (%s)",
					name, r, idx.ValueStr(r), p, idx.ValueStr(int(p)))}
		}
		if v < lo || v > hi {
			kind := plan.Overflow
			if idx.DataType().ID() == arrow.TIMESTAMP {
				kind = plan.TemporalOutOfRange
			}
			return &plan.Error{Kind: kind, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: row %d's windows around %s pass the int64 range", r, idx.ValueStr(r))}
		}
		last[g] = int32(r)
	}
	return nil
}

// labelArray builds the label column (non-null) in the index's type.
func labelArray(mem memory.Allocator, vals []int64, dt arrow.DataType) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	a := b.NewArray()
	if dt.ID() == arrow.INT64 {
		return a
	}
	defer a.Release()
	return phys.Retype(a, dt)
}

// reduceIDs reduces an aggregate's gathered argument (nil for len) per
// window, the ids giving each gathered row's window.
func (e *Env) reduceIDs(call *plan.Call, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	agg, err := ops.AggOf(call)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	out, err := ops.AggregateParallel(e.Mem, agg, plan.Written(call), arg, ids, groups, e.par)
	if err != nil {
		return nil, e.opFailure(err)
	}
	return out, nil
}
