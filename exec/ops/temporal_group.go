package ops

import (
	"github.com/dfopt/dfopt/plan"
)

// This file finds the windows of a temporal_group (docs/semantics.md,
// temporal_group) by a two-pointer sweep over each group's rows, whose
// index is sorted (the caller verified it): every window is a run of
// consecutive rows of its group, so it is a range of the group's row list.

// Windows are a temporal_group's windows in output order: window w holds
// the rows Rows[Start[w]:Start[w+1]] (input row numbers, in row order),
// shows the by-keys of row KeyRow[w] and the label Label[w].
type Windows struct {
	Start  []int32
	Rows   []int32
	KeyRow []int32
	Label  []int64
}

// Count returns the number of windows.
func (w *Windows) Count() int { return len(w.KeyRow) }

// IDs returns the window of every entry of Rows.
func (w *Windows) IDs() []int32 {
	ids := make([]int32, len(w.Rows))
	for k := 0; k < w.Count(); k++ {
		for i := w.Start[k]; i < w.Start[k+1]; i++ {
			ids[i] = int32(k)
		}
	}
	return ids
}

// GroupLists lists each group's rows in row order (counting sort): group
// g's rows are rows[start[g]:start[g+1]].
func GroupLists(ids []int32, groups int) (start, rows []int32) {
	start = make([]int32, groups+1)
	for _, g := range ids {
		start[g+1]++
	}
	for g := 0; g < groups; g++ {
		start[g+1] += start[g]
	}
	rows = make([]int32, len(ids))
	fill := append([]int32(nil), start[:groups]...)
	for r, g := range ids {
		rows[fill[g]] = int32(r)
		fill[g]++
	}
	return start, rows
}

// lowerBound and upperBound say whether index t lies at or after a
// window's start, or at or before its end, under closed c.
func afterStart(c plan.WindowClosed, s, t int64) bool {
	if c == plan.ClosedLeft || c == plan.ClosedBoth {
		return t >= s
	}
	return t > s
}

func beforeEnd(c plan.WindowClosed, e, t int64) bool {
	if c == plan.ClosedRight || c == plan.ClosedBoth {
		return t <= e
	}
	return t < e
}

// DynamicWindows returns group_by_dynamic's non-empty windows: per group
// in group order, the grid windows [offset + k × every, + period] in
// increasing k, skipping the empty ones by jumping k to the first window
// that may hold the next row. t is every row's index; label is the
// node's label kind.
func DynamicWindows(t []int64, start, rows []int32, prm plan.TemporalParams, label plan.WindowLabel) *Windows {
	w := &Windows{Start: []int32{0}}
	e, p, o := prm.Every, prm.Period, prm.Offset
	for g := 0; g+1 < len(start); g++ {
		list := rows[start[g]:start[g+1]]
		if len(list) == 0 {
			continue
		}
		lo, hi := 0, 0
		// The first window that may hold t: ceil((t - o - p) / e).
		firstK := func(t int64) int64 { return -plan.FloorDiv(-(t - o - p), e) }
		k := firstK(t[list[0]])
		for lo < len(list) {
			s := o + k*e
			end := s + p
			for lo < len(list) && !afterStart(prm.Closed, s, t[list[lo]]) {
				lo++
			}
			if lo == len(list) {
				break
			}
			if hi < lo {
				hi = lo
			}
			if !beforeEnd(prm.Closed, end, t[list[lo]]) {
				// Empty: jump to the first window that may hold row lo.
				if nk := firstK(t[list[lo]]); nk > k {
					k = nk
				} else {
					k++
				}
				continue
			}
			for hi < len(list) && beforeEnd(prm.Closed, end, t[list[hi]]) {
				hi++
			}
			for _, r := range list[lo:hi] {
				w.Rows = append(w.Rows, r)
			}
			w.Start = append(w.Start, int32(len(w.Rows)))
			w.KeyRow = append(w.KeyRow, list[0])
			switch label {
			case plan.LabelLeft:
				w.Label = append(w.Label, s)
			case plan.LabelRight:
				w.Label = append(w.Label, end)
			default:
				w.Label = append(w.Label, t[list[lo]])
			}
			k++
		}
	}
	return w
}

// RollingWindows returns rolling's windows, one per input row in input
// order: row r's window holds the rows of its group whose index lies in
// [t + offset, t + offset + period] under closed. ids are the rows'
// groups, start and rows the group lists (GroupLists).
func RollingWindows(t []int64, ids []int32, start, rows []int32, prm plan.TemporalParams) *Windows {
	n := len(t)
	from, to := make([]int32, n), make([]int32, n) // positions in rows
	for g := 0; g+1 < len(start); g++ {
		list := rows[start[g]:start[g+1]]
		lo, hi := 0, 0
		for _, r := range list {
			s := t[r] + prm.Offset
			end := s + prm.Period
			for lo < len(list) && !afterStart(prm.Closed, s, t[list[lo]]) {
				lo++
			}
			if hi < lo {
				hi = lo
			}
			for hi < len(list) && beforeEnd(prm.Closed, end, t[list[hi]]) {
				hi++
			}
			from[r], to[r] = start[g]+int32(lo), start[g]+int32(hi)
		}
	}
	w := &Windows{Start: make([]int32, 1, n+1), KeyRow: make([]int32, n), Label: make([]int64, n)}
	total := 0
	for r := 0; r < n; r++ {
		total += int(to[r] - from[r])
	}
	w.Rows = make([]int32, 0, total)
	for r := 0; r < n; r++ {
		w.Rows = append(w.Rows, rows[from[r]:to[r]]...)
		w.Start = append(w.Start, int32(len(w.Rows)))
		w.KeyRow[r] = int32(r)
		w.Label[r] = t[r]
	}
	return w
}
