package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The order template: tail, reverse and row_index (docs/semantics.md), the
// shapes their cells are about.
//
//	filter(a > 1) . reverse . scan t          (pp.reverse lets it cross)
//	project(a, b) . row_index(x, offset) . t  (pr.row_index.drop)
//	limit 2 . tail 3 . scan t                 (lp.tail stops it)
//
// A row_index's offset is sometimes at the top of the int64 range, so that
// its numbering overflows on a second row: a dead one must still raise
// (pr.row_index.drop refuses) and a limit must not hide its later rows
// (lp.row_index).

// rowIndexOffsets are the offsets a row_index draws: small ones, and ones
// whose numbering overflows on the second or third row.
var rowIndexOffsets = []int64{0, 0, 0, 1, 7, 1000, math.MaxInt64 - 1, math.MaxInt64}

// order builds one of the order nodes over a subplan within depth levels,
// and, a third of the time, a projection over a row_index that reads only
// its input's columns (its own column dead: projection_pruning drops it
// when its numbering cannot overflow).
func (g *gen) order(depth int) frame {
	// The order-verifying nodes share this move (so that the other moves'
	// shares stay as they were): asof_join and temporal_group, 2 in 5.
	switch g.r.Intn(5) {
	case 0:
		return g.asof(depth)
	case 1:
		return g.temporal(depth)
	}
	dead := depth >= 2 && g.r.Intn(3) == 0
	d := depth - 1
	if dead {
		d--
	}
	in := g.node(d)
	if dead {
		ri := g.rowIndex(in)
		if ri.raw == in.raw {
			return ri
		}
		keep := make([]plan.Expr, 0, in.schema().Len())
		for _, f := range in.schema().Fields() {
			if len(keep) == 0 || g.r.Intn(3) > 0 {
				keep = append(keep, col(f.Name))
			}
		}
		return g.finish(&plan.ProjectNode{Input: ri.raw, Exprs: keep}, ri.rows, ri)
	}
	return g.orderNode(in)
}

// orderNode puts a tail, a reverse or a row_index over in.
func (g *gen) orderNode(in frame) frame {
	switch x := g.r.Intn(100); {
	case x < 33:
		n := limitSizes[g.r.Intn(len(limitSizes))]
		return g.finish(&plan.TailNode{Input: in.raw, N: n}, min(in.rows, int(n)), in)
	case x < 66:
		return g.finish(&plan.ReverseNode{Input: in.raw}, in.rows, in)
	}
	return g.rowIndex(in)
}

// rowIndex puts a row_index under a fresh name over in.
func (g *gen) rowIndex(in frame) frame {
	name := g.freshName(nil, newScope(in.schema()))
	off := rowIndexOffsets[g.r.Intn(len(rowIndexOffsets))]
	return g.finish(&plan.RowIndexNode{Input: in.raw, Name: name, Offset: off}, in.rows, in)
}
