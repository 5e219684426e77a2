package reference

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/dfopt/dfopt/plan"
)

// windowFunc computes one window function over() as docs/semantics.md
// (Window functions and ordered windows) defines it, row at a time: the
// argument over all rows, the partition keys, then the order keys, each
// over all rows in list order; then, per partition, its rows in window
// order (sorted stably by the order keys, input order without them), and
// the function's value for each row, written back at that row.
func (c *collector) windowFunc(over *plan.Over, call *plan.Call, in *Result, v *env) ([]plan.Value, error) {
	var arg []plan.Value
	argType := plan.Invalid
	var err error
	if len(call.Args) > 0 {
		if arg, err = evalPE(v, call.Args[0]); err != nil {
			return nil, err
		}
		argType = staticType(call.Args[0], in.Schema)
	}
	keys := make([][]plan.Value, len(over.PartitionBy))
	for i, k := range over.PartitionBy {
		if keys[i], err = evalPE(v, k); err != nil {
			return nil, err
		}
	}
	order := make([][]plan.Value, len(over.OrderBy))
	for i, k := range over.OrderBy {
		if order[i], err = evalPE(v, k.Expr); err != nil {
			return nil, err
		}
	}
	col := make([]plan.Value, in.Rows)
	overflowAt := -1 // the smallest row whose running sum does not fit
	for _, rows := range groupRows(keys, in.Rows) {
		rows = append([]int(nil), rows...) // input order within the partition
		sort.SliceStable(rows, func(i, j int) bool {
			return compareSortKeys(over.OrderBy, order, rows[i], rows[j]) < 0
		})
		at, err := windowPartition(call, arg, argType, rows, col)
		if err != nil {
			return nil, err
		}
		if at >= 0 && (overflowAt < 0 || at < overflowAt) {
			overflowAt = at
		}
	}
	if overflowAt >= 0 {
		return nil, evalError(plan.Overflow, call, int64(overflowAt), fmt.Sprintf("reference: %s overflows its result type", plan.Written(call)))
	}
	return col, nil
}

// compareSortKeys compares rows a and b by sort keys as the sort node
// does: per key nulls first unless nulls_last, otherwise the values in
// their order, reversed by desc (which does not move nulls).
func compareSortKeys(ks []plan.SortKey, vals [][]plan.Value, a, b int) int {
	for k, key := range ks {
		x, y := vals[k][a], vals[k][b]
		var cmp int
		switch {
		case x.IsNull() && y.IsNull():
		case x.IsNull():
			cmp = -1
			if key.NullsLast {
				cmp = 1
			}
		case y.IsNull():
			cmp = 1
			if key.NullsLast {
				cmp = -1
			}
		default:
			cmp = compareOrdered(x, y)
			if key.Desc {
				cmp = -cmp
			}
		}
		if cmp != 0 {
			return cmp
		}
	}
	return 0
}

// windowPartition writes the function's value for each of rows (one
// partition, in window order) into col. It returns the smallest row whose
// running integer sum does not fit its result type, or -1.
func windowPartition(call *plan.Call, arg []plan.Value, argType plan.Type, rows []int, col []plan.Value) (int, error) {
	overflowAt := -1
	switch call.Fn {
	case plan.FuncRowNumber:
		for i, r := range rows {
			col[r] = plan.Int64Value(int64(i + 1))
		}
	case plan.FuncCumCount:
		n := int64(0)
		for _, r := range rows {
			if !arg[r].IsNull() {
				n++
			}
			col[r] = plan.Int64Value(n)
		}
	case plan.FuncCumSum:
		if isFloat(argType) {
			// A float32 running sum is a float64 one over the values
			// widened (its NaNs keep their sign and payload).
			var s float64
			started := false
			for _, r := range rows {
				x := arg[r]
				if x.IsNull() {
					col[r] = plan.NullValue(plan.Float64)
					continue
				}
				f := promote(x, plan.Float64).Float()
				if !started {
					s, started = f, true
				} else {
					s = floatArith(plan.FuncAdd, s, f)
				}
				col[r] = plan.Float64Value(s)
			}
			break
		}
		// Exact in math/big, each row's sum checked against the result
		// type: int64, uint64 for a uint64 argument.
		rt := plan.Int64
		if argType == plan.Uint64 {
			rt = plan.Uint64
		}
		total := new(big.Int)
		for _, r := range rows {
			x := arg[r]
			if x.IsNull() {
				col[r] = plan.NullValue(rt)
				continue
			}
			total.Add(total, bigOf(x))
			s, ok := fromBig(rt, total)
			if !ok {
				if overflowAt < 0 || r < overflowAt {
					overflowAt = r
				}
				continue
			}
			col[r] = s
		}
	case plan.FuncCumMin, plan.FuncCumMax:
		best, found := plan.Value{}, false
		for _, r := range rows {
			x := arg[r]
			if x.IsNull() {
				col[r] = plan.NullValue(argType)
				continue
			}
			if !found {
				best, found = x, true
			} else if c := compareOrdered(x, best); call.Fn == plan.FuncCumMin && c < 0 || call.Fn == plan.FuncCumMax && c > 0 {
				best = x // only a strictly better value: the earliest bits win
			}
			col[r] = best
		}
	case plan.FuncRank:
		method, err := plan.RankMethod(call)
		if err != nil {
			return -1, err
		}
		for _, r := range rows {
			x := arg[r]
			if x.IsNull() {
				col[r] = plan.NullValue(plan.Int64)
				continue
			}
			smaller := int64(0)
			var distinct []plan.Value
			for _, o := range rows {
				y := arg[o]
				if y.IsNull() || compareOrdered(y, x) >= 0 {
					continue
				}
				smaller++
				seen := false
				for _, d := range distinct {
					if compareOrdered(d, y) == 0 {
						seen = true
						break
					}
				}
				if !seen {
					distinct = append(distinct, y)
				}
			}
			if method == "dense" {
				col[r] = plan.Int64Value(int64(len(distinct)) + 1)
			} else {
				col[r] = plan.Int64Value(smaller + 1)
			}
		}
	case plan.FuncShift:
		n, def, err := plan.ShiftParams(call, argType)
		if err != nil {
			return -1, err
		}
		for i, r := range rows {
			// The row n places earlier: index i - n, computed without
			// overflow for any int64 n.
			from := int64(i)
			ok := true
			switch {
			case n > 0:
				ok = n <= from
				from -= n
			case n < 0:
				ok = -(n + 1) < int64(len(rows))-1-from // -n <= len-1-i
				from = from - n
			}
			if ok && from >= 0 && from < int64(len(rows)) {
				col[r] = arg[rows[from]]
			} else {
				col[r] = def
			}
		}
	default:
		return -1, &plan.Error{Kind: plan.InvalidPlan, Expr: call.String(), Row: -1, Msg: "reference: not a window function"}
	}
	return overflowAt, nil
}
