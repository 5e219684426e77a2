package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/plan"
)

// This file is the as-of join's matching (docs/semantics.md, asof_join):
// one merge pass over the left rows with, per by-group, three cursors into
// that group's right rows, which only move forward because both inputs
// are sorted on the key within each group (the caller verifies it first,
// with FirstUnsorted).

// KeyInts returns the values of an int32, int64, date32 or timestamp
// column as int64 (dates in days, datetimes in µs), sharing the memory of
// an int64 or timestamp column and converting the others.
func KeyInts(a arrow.Array) ([]int64, error) {
	if v, ok := phys.Int64(a); ok {
		return v, nil
	}
	if v, ok := phys.Int32(a); ok {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("asof: key column of type %s", a.DataType())
}

// AsofByIDs puts the rows of both inputs of an as-of join in the ids of
// their by-keys: right rows get dense ids (-1 when a by-key is null),
// left rows the id of the right rows with equal by-keys (-1 when a by-key
// is null or no right row has them). Keys compare as join keys do.
func AsofByIDs(left, right []arrow.Array, p Parallel) (lids, rids []int32, groups int, err error) {
	lids = make([]int32, left[0].Len())
	rids = make([]int32, right[0].Len())
	groups, err = joinIDs(left, right, lids, rids, p)
	if err != nil {
		return nil, nil, 0, err
	}
	return lids, rids, groups, nil
}

// SideIDs puts the rows of one input in groups of its own by-keys, for
// the order check: -1 for a row with a null by-key (it is not checked).
// With no by-keys every row is in group 0.
func SideIDs(by []arrow.Array, rows int) ([]int32, int, error) {
	if len(by) == 0 {
		return make([]int32, rows), 1, nil
	}
	ids, first, err := GroupIDs(by)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range by {
		if c.NullN() == 0 {
			continue
		}
		for i := range ids {
			if c.IsNull(i) {
				ids[i] = -1
			}
		}
	}
	return ids, len(first), nil
}

// FirstUnsorted returns the first row, in row order, whose non-null key is
// smaller than the previous non-null key of its group (ids from SideIDs or
// AsofByIDs; -1 rows are skipped), and the row it follows; -1 when the
// keys are sorted within every group.
func FirstUnsorted(keys []int64, valid arrow.Array, ids []int32, groups int) (row, prev int) {
	lastRow := make([]int32, groups)
	for i := range lastRow {
		lastRow[i] = -1
	}
	nulls := valid.NullN() > 0
	for r, k := range keys {
		g := ids[r]
		if g < 0 || (nulls && valid.IsNull(r)) {
			continue
		}
		if p := lastRow[g]; p >= 0 && k < keys[p] {
			return r, int(p)
		}
		lastRow[g] = int32(r)
	}
	return -1, -1
}

// AsofSpec is an as-of join's matching rule, keys in one unit.
type AsofSpec struct {
	Strategy     plan.AsofStrategy
	ExcludeExact bool
	HasTolerance bool
	Tolerance    uint64
}

// AsofMatch returns, for every left row, the right row it joins (-1 for
// none): lk and rk are the keys, lnull and rnull their columns (for
// nulls), lids and rids the by-group ids (nil without by-keys; -1 matches
// nothing) and groups their number. Both inputs must be sorted on the key
// within each group.
func AsofMatch(spec AsofSpec, lk, rk []int64, lcol, rcol arrow.Array, lids, rids []int32, groups int) []int32 {
	if lids == nil {
		groups = 1
	}
	// The right rows of each group with a non-null key, in row order
	// (counting sort by group).
	start := make([]int32, groups+1)
	rnulls := rcol.NullN() > 0
	keep := func(r int) int32 {
		if rnulls && rcol.IsNull(r) {
			return -1
		}
		if rids == nil {
			return 0
		}
		return rids[r]
	}
	for r := range rk {
		if g := keep(r); g >= 0 {
			start[g+1]++
		}
	}
	for g := 0; g < groups; g++ {
		start[g+1] += start[g]
	}
	list := make([]int64, start[groups]) // right keys, grouped
	rows := make([]int32, start[groups])
	fill := append([]int32(nil), start[:groups]...)
	for r := range rk {
		if g := keep(r); g >= 0 {
			list[fill[g]], rows[fill[g]] = rk[r], int32(r)
			fill[g]++
		}
	}
	// Per group: cLE = first position with key > v, cLT = first with key
	// >= v, cF = first with key > the forward candidate's key.
	cLE := append([]int32(nil), start[:groups]...)
	cLT := append([]int32(nil), start[:groups]...)
	cF := append([]int32(nil), start[:groups]...)
	out := make([]int32, len(lk))
	lnulls := lcol.NullN() > 0
	for l, v := range lk {
		out[l] = -1
		g := int32(0)
		if lids != nil {
			g = lids[l]
		}
		if g < 0 || (lnulls && lcol.IsNull(l)) {
			continue
		}
		lo, hi := start[g], start[g+1]
		le, lt := cLE[g], cLT[g]
		for le < hi && list[le] <= v {
			le++
		}
		for lt < hi && list[lt] < v {
			lt++
		}
		cLE[g], cLT[g] = le, lt
		back, fwd := le-1, lt // allow exact: last <= v, first >= v
		if spec.ExcludeExact {
			back, fwd = lt-1, le // last < v, first > v
		}
		best := int32(-1)
		var dist uint64
		switch spec.Strategy {
		case plan.AsofBackward:
			if back >= lo {
				best, dist = back, uint64(v)-uint64(list[back])
			}
		case plan.AsofForward:
			if fwd < hi {
				best, dist = fwd, uint64(list[fwd])-uint64(v)
			}
		case plan.AsofNearest:
			if fwd < hi {
				kf := list[fwd]
				f := cF[g]
				if f < fwd {
					f = fwd
				}
				for f < hi && list[f] <= kf {
					f++
				}
				cF[g] = f
				best, dist = f-1, uint64(kf)-uint64(v) // the last row of key kf
			}
			if back >= lo {
				if d := uint64(v) - uint64(list[back]); best < 0 || d < dist {
					best, dist = back, d
				}
			}
		}
		if best >= 0 && (!spec.HasTolerance || dist <= spec.Tolerance) {
			out[l] = rows[best]
		}
	}
	return out
}
