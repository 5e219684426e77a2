package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// GroupSelected groups rows sel of keys (each a row of every key column,
// none negative), with no memory limit: the grouping, ids and first rows
// (positions in sel) of GroupIDsParallel over the gathered keys, Take(key,
// sel) for each key. Keys that are all one-byte flags (byteIDsOf) are
// grouped straight through sel, with no gather; any other key list is
// gathered and grouped. An aggregate over a filter's high-selectivity
// output (TPC-H Q1) groups this way instead of gathering its keys first.
func GroupSelected(mem memory.Allocator, keys []arrow.Array, sel []int32, p Parallel) (*Grouping, error) {
	n, err := checkKeys(keys)
	if err != nil {
		return nil, fmt.Errorf("group: %w", err)
	}
	if err := checkRows(len(sel)); err != nil {
		return nil, fmt.Errorf("group: %w", err)
	}
	for i, r := range sel {
		if r < 0 || int(r) >= n {
			return nil, fmt.Errorf("group: selected row %d is %d, want [0, %d)", i, r, n)
		}
	}
	if ids, groups, ok := byteKeyIDs(keys, sel); ok {
		return NewGrouping(ids, firstRowsOf(ids, groups), groups), nil
	}
	taken := make([]arrow.Array, 0, len(keys))
	defer func() { releaseAll(taken) }()
	for _, k := range keys {
		t, err := TakeParallel(mem, k, sel, p)
		if err != nil {
			return nil, fmt.Errorf("group: %w", err)
		}
		taken = append(taken, t)
	}
	ids, first, err := GroupIDsParallel(mem, taken, p)
	if err != nil {
		return nil, err
	}
	return NewGrouping(ids, first, len(first)), nil
}

// byteKeyIDs groups rows sel of keys when every key is a string column of
// one-byte flags (byteIDsOf) and the pairs of their ids fold through
// direct maps (pairIDs): groupInto's ids over the gathered rows. ok is
// false otherwise.
func byteKeyIDs(keys []arrow.Array, sel []int32) (ids []int32, groups int, ok bool) {
	for _, k := range keys {
		if _, isStr := k.(*array.String); !isStr {
			return nil, 0, false
		}
	}
	ids = make([]int32, len(sel))
	groups, _, ok = byteIDsOf(keys[0].(*array.String), validityOf(keys[0]), sel, true, ids)
	if !ok {
		return nil, 0, false
	}
	var col []int32
	for _, k := range keys[1:] {
		if col == nil {
			col = make([]int32, len(sel))
		}
		g, _, ok := byteIDsOf(k.(*array.String), validityOf(k), sel, true, col)
		if !ok || int64(groups)*int64(g) > directSpan(int64(len(sel))) {
			return nil, 0, false
		}
		groups = pairIDs(ids, col, groups, g)
	}
	return ids, groups, true
}
