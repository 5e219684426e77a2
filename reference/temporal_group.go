package reference

import (
	"fmt"
	"math"
	"sort"

	"github.com/dfopt/dfopt/plan"
)

// temporalGroup follows docs/semantics.md (temporal_group): the by-keys
// group the rows, one pass checks the index (null, order, range, per row
// in input order), then every window is listed by brute force — for
// group_by_dynamic every grid window that may contain each row, for
// rolling every row of the group tested against each row's bounds — and
// the aggregates reduce each window's rows in row order.
func (c *collector) temporalGroup(n *plan.TemporalGroupNode, in *Result) (*Result, error) {
	by := make([][]plan.Value, len(n.By))
	for i, b := range n.By {
		by[i] = in.Columns[in.Schema.Index(b)]
	}
	idxField, _ := in.Schema.Lookup(n.Index)
	idx := in.Columns[in.Schema.Index(n.Index)]
	groups := groupRows(by, in.Rows)
	if len(n.By) == 0 {
		all := make([]int, in.Rows)
		for i := range all {
			all[i] = i
		}
		groups = nil
		if in.Rows > 0 {
			groups = [][]int{all}
		}
	}
	groupOf := make([]int, in.Rows)
	for g, rows := range groups {
		for _, r := range rows {
			groupOf[r] = g
		}
	}
	prm := n.Params()
	reach := prm.Reach(n.Mode)
	name := (&plan.Column{Name: n.Index}).String()
	last := make([]int, len(groups))
	for g := range last {
		last[g] = -1
	}
	for r := 0; r < in.Rows; r++ {
		g := groupOf[r]
		switch {
		case idx[r].IsNull():
			return nil, &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: the index %s is null at row %d", name, r)}
		case last[g] >= 0 && idx[r].Int() < idx[last[g]].Int():
			return nil, &plan.Error{Kind: plan.InvalidInput, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: the index %s is not sorted within its group: row %d (%s) follows row %d (%s)",
					name, r, idx[r], last[g], idx[last[g]])}
		case idx[r].Int() < math.MinInt64+reach || idx[r].Int() > math.MaxInt64-reach:
			kind := plan.Overflow
			if idxField.Type == plan.Datetime {
				kind = plan.TemporalOutOfRange
			}
			return nil, &plan.Error{Kind: kind, Expr: name, Row: int64(r),
				Msg: fmt.Sprintf("temporal_group: row %d's windows around %s pass the int64 range", r, idx[r])}
		}
		last[g] = r
	}
	mk := func(v int64) plan.Value {
		if idxField.Type == plan.Datetime {
			return plan.DatetimeValue(v)
		}
		return plan.Int64Value(v)
	}
	var windows [][]int
	var keyRows []int // the row whose by-keys each output row shows
	var labels []plan.Value
	if n.Mode == plan.TemporalDynamic {
		for _, rows := range groups {
			byK := map[int64][]int{}
			for _, r := range rows {
				t := idx[r].Int()
				// Every k whose window [o + k*e, o + k*e + p] may hold t.
				kLo := -plan.FloorDiv(-(t - prm.Offset - prm.Period), prm.Every)
				kHi := plan.FloorDiv(t-prm.Offset, prm.Every)
				for k := kLo; k <= kHi; k++ {
					s := prm.Offset + k*prm.Every
					if prm.Closed.Contains(s, s+prm.Period, t) {
						byK[k] = append(byK[k], r)
					}
				}
			}
			ks := make([]int64, 0, len(byK))
			for k := range byK {
				ks = append(ks, k)
			}
			sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
			for _, k := range ks {
				w := byK[k]
				s := prm.Offset + k*prm.Every
				windows = append(windows, w)
				keyRows = append(keyRows, rows[0])
				switch n.LabelKind {
				case plan.LabelLeft:
					labels = append(labels, mk(s))
				case plan.LabelRight:
					labels = append(labels, mk(s+prm.Period))
				default:
					labels = append(labels, idx[w[0]])
				}
			}
		}
	} else {
		for r := 0; r < in.Rows; r++ {
			t := idx[r].Int()
			lo := t + prm.Offset
			var w []int
			for _, o := range groups[groupOf[r]] {
				if prm.Closed.Contains(lo, lo+prm.Period, idx[o].Int()) {
					w = append(w, o)
				}
			}
			windows = append(windows, w)
			keyRows = append(keyRows, r)
			labels = append(labels, idx[r])
		}
	}
	cols := make([][]plan.Value, 0, n.Schema().Len())
	for _, b := range by {
		col := make([]plan.Value, len(windows))
		for i, r := range keyRows {
			col[i] = b[r]
		}
		cols = append(cols, col)
	}
	cols = append(cols, labels)
	v := c.env(in)
	for _, a := range n.Aggs {
		call, err := aggCall(a)
		if err != nil {
			return nil, err
		}
		col, err := c.reduceGroups(call, in, v, windows)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	if labels == nil {
		cols[len(n.By)] = []plan.Value{}
	}
	return &Result{Schema: n.Schema(), Rows: len(windows), Columns: cols}, nil
}
