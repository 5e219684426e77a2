package ops

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// ExpandJoin returns the pairs of an inner, left, semi or anti equi-join
// whose left rows are rows sel of a base of baseRows rows (sel[i] = -1: a
// row of nulls, whose keys are null and match nothing), given the inner
// join's pairs of the base rows themselves (bl, br: base rows in order,
// each followed by its matches in right order, as JoinIndices gives
// them). The pairs are JoinIndices's over the gathered left keys: a left
// row's matches are its base row's. A join whose left input is a wide
// gather of a small table (TPC-H Q11: 800,000 partsupp rows each holding
// one of 10,000 suppliers' nation keys) probes the small table's keys once
// instead of gathering and probing every row's. ri is nil for semi and
// anti.
func ExpandJoin(how plan.JoinKind, bl, br []int32, baseRows int, sel []int32) (li, ri []int32, err error) {
	switch how {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return nil, nil, fmt.Errorf("expand join: %s join", how)
	}
	if len(bl) != len(br) {
		return nil, nil, fmt.Errorf("expand join: %d left and %d right pair rows", len(bl), len(br))
	}
	// start[b]..start[b+1] are base row b's pairs.
	start := make([]int32, baseRows+1)
	for k, b := range bl {
		if b < 0 || int(b) >= baseRows || k > 0 && b < bl[k-1] {
			return nil, nil, fmt.Errorf("expand join: pair %d has base row %d (rows %d, in order)", k, b, baseRows)
		}
		start[b+1]++
	}
	for b := range baseRows {
		start[b+1] += start[b]
	}
	for i, r := range sel {
		if int(r) >= baseRows {
			return nil, nil, fmt.Errorf("expand join: row %d is base row %d of %d", i, r, baseRows)
		}
	}
	// The output's size, estimated from the base's average matches (the
	// appends below grow it when the estimate is short).
	est := len(sel)
	if how == plan.InnerJoin && baseRows > 0 {
		est = int(min(int64(len(sel)), int64(len(bl))*int64(len(sel))/int64(baseRows)+16))
	}
	li = make([]int32, 0, est)
	if how == plan.InnerJoin || how == plan.LeftJoin {
		ri = make([]int32, 0, est)
	}
	for i, r := range sel {
		var lo, hi int32
		if r >= 0 {
			lo, hi = start[r], start[r+1]
		}
		switch {
		case how == plan.SemiJoin:
			if hi > lo {
				li = append(li, int32(i))
			}
		case how == plan.AntiJoin:
			if hi == lo {
				li = append(li, int32(i))
			}
		case hi == lo:
			if how == plan.LeftJoin {
				li, ri = append(li, int32(i)), append(ri, -1)
			}
		default:
			for _, m := range br[lo:hi] {
				li, ri = append(li, int32(i)), append(ri, m)
			}
		}
	}
	if err := checkRows(len(li)); err != nil {
		return nil, nil, fmt.Errorf("expand join: %w", err)
	}
	return li, ri, nil
}
