package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// GroupIDsParallel is GroupIDs with the rows split over goroutines as p
// says; the ids and first rows are GroupIDs's exactly. Each partition
// groups its own rows (local ids in local first-appearance order); the
// partitions' local groups, listed by their first rows in partition order,
// are then grouped once more: that list is in ascending row order and
// holds the first row of every key, so its first-appearance order is the
// global one, and a local id maps to a global id. mem allocates the
// temporary key columns of that list.
//
// High-cardinality keys gain nothing (the list is as long as the input),
// so after the first round of partitions, if more than a quarter of the
// rows started a group, the grouping is done sequentially instead.
func GroupIDsParallel(mem memory.Allocator, keys []arrow.Array, p Parallel) (ids, firstRows []int32, err error) {
	n, err := checkKeys(keys)
	if err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	parts := p.Split(n)
	if len(parts) == 1 {
		return GroupIDs(keys)
	}
	ids = make([]int32, n)
	firsts := make([][]int32, len(parts))
	errs := make([]error, len(parts))
	local := func(k int) {
		lo, hi := parts[k].Lo, parts[k].Hi
		sl := make([]arrow.Array, len(keys))
		for j, c := range keys {
			sl[j] = array.NewSlice(c, int64(lo), int64(hi))
		}
		defer func() {
			for _, a := range sl {
				a.Release()
			}
		}()
		g, err := groupInto(sl, ids[lo:hi])
		if err != nil {
			errs[k] = err
			return
		}
		firsts[k] = firstRowsOf(ids[lo:hi], g)
	}
	round := min(p.Workers, len(parts))
	if err := p.Run(round, local); err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	seen, started := 0, 0
	for k := 0; k < round; k++ {
		if errs[k] != nil {
			return nil, nil, fmt.Errorf("group: %w", errs[k])
		}
		seen += parts[k].Len()
		started += len(firsts[k])
	}
	if 4*started > seen {
		return GroupIDs(keys)
	}
	if err := p.Run(len(parts)-round, func(k int) { local(round + k) }); err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	offs := make([]int, len(parts)+1)
	for k := range parts {
		if errs[k] != nil {
			return nil, nil, fmt.Errorf("group: %w", errs[k])
		}
		offs[k+1] = offs[k] + len(firsts[k])
	}
	reps := make([]int32, 0, offs[len(parts)])
	for k, f := range firsts {
		for _, r := range f {
			reps = append(reps, int32(parts[k].Lo)+r)
		}
	}
	repKeys := make([]arrow.Array, 0, len(keys))
	defer func() {
		for _, a := range repKeys {
			a.Release()
		}
	}()
	for _, c := range keys {
		a, err := Take(mem, c, reps)
		if err != nil {
			return nil, nil, fmt.Errorf("group: %w", err)
		}
		repKeys = append(repKeys, a)
	}
	repIDs, repFirst, err := GroupIDs(repKeys)
	if err != nil {
		return nil, nil, err
	}
	if err := p.Run(len(parts), func(k int) {
		m := repIDs[offs[k]:offs[k+1]]
		part := ids[parts[k].Lo:parts[k].Hi]
		for i, g := range part {
			part[i] = m[g]
		}
	}); err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	firstRows = make([]int32, len(repFirst))
	for g, r := range repFirst {
		firstRows[g] = reps[r]
	}
	return ids, firstRows, nil
}

// firstRowsOf returns the first row of each of groups groups, given
// first-appearance ids.
func firstRowsOf(ids []int32, groups int) []int32 {
	first := make([]int32, 0, groups)
	for i, g := range ids {
		if int(g) == len(first) {
			first = append(first, int32(i))
			if len(first) == groups {
				break
			}
		}
	}
	return first
}
