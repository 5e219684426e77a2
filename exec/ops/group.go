package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// GroupIDs assigns each row the id of its key's group, ids dense and in
// first-appearance order (the first row's group is 0, the next new key's
// group 1, ...). Keys compare per docs/semantics.md: all NaNs equal, -0.0
// equal to +0.0, a null equal to a null. firstRows[g] is the first row of
// group g (so len(firstRows) is the number of groups); Take each key column
// by firstRows to get the group keys with their first row's bits.
//
// keys must be at least one column, all of the same length. An aggregate
// without keys has exactly one group even over no rows: use OneGroup.
func GroupIDs(keys []arrow.Array) (ids []int32, firstRows []int32, err error) {
	n, err := checkKeys(keys)
	if err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	ids = make([]int32, n)
	groups, err := groupInto(keys, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("group: %w", err)
	}
	// Ids are in first-appearance order, so group g's first row is where
	// the running maximum id first reaches g.
	return ids, firstRowsOf(ids, groups), nil
}

// OneGroup returns the group ids of a keyless aggregate or an over() with no
// partition keys: every one of rows rows in group 0. Aggregate with these ids
// and groups = 1 yields the one output row, also for rows = 0 (count and len
// 0, the other aggregates null).
func OneGroup(rows int) []int32 { return make([]int32, rows) }

// FirstRows returns the first row of each group given each row's group id
// (ids in [0, groups)); a group with no row gets -1. GroupIDs already
// returns these; FirstRows serves callers that hold only the ids.
func FirstRows(ids []int32, groups int) []int32 {
	first := make([]int32, groups)
	for g := range first {
		first[g] = -1
	}
	for i := len(ids) - 1; i >= 0; i-- {
		first[ids[i]] = int32(i)
	}
	return first
}

// DistinctRows returns the first row of each distinct key, in input order:
// the distinct operator (keys are the subset columns, or all columns). Keys
// compare as in GroupIDs.
func DistinctRows(keys []arrow.Array) ([]int32, error) {
	_, first, err := GroupIDs(keys)
	if err != nil {
		return nil, fmt.Errorf("distinct: %w", err)
	}
	return first, nil
}

// checkKeys validates a key list and returns its row count.
func checkKeys(keys []arrow.Array) (int, error) {
	if len(keys) == 0 {
		return 0, fmt.Errorf("no key columns")
	}
	for k, c := range keys {
		if c == nil {
			return 0, fmt.Errorf("key %d is nil", k)
		}
	}
	n := keys[0].Len()
	for k, c := range keys[1:] {
		if c.Len() != n {
			return 0, fmt.Errorf("key %d has %d rows, key 0 has %d", k+1, c.Len(), n)
		}
	}
	return n, checkRows(n)
}

// groupInto fills ids with dense first-appearance group ids of the key rows
// and returns the number of groups. Multi-column keys fold left to right:
// the ids of the first k columns pair with the next column's ids into one
// word per row, which is encoded again.
func groupInto(keys []arrow.Array, ids []int32) (int, error) {
	c, err := groupCol(keys[0])
	if err != nil {
		return 0, fmt.Errorf("key 0: %w", err)
	}
	groups := encodeGroup(c, ids)
	if len(keys) == 1 {
		return groups, nil
	}
	col := make([]int32, len(ids))
	for k := 1; k < len(keys); k++ {
		c, err := groupCol(keys[k])
		if err != nil {
			return 0, fmt.Errorf("key %d: %w", k, err)
		}
		g := encodeGroup(c, col)
		if int64(groups)*int64(g) <= directSpan(int64(len(ids))) {
			groups = pairIDs(ids, col, groups, g)
			continue
		}
		words, v := pairWords(ids, col, g)
		groups, _ = encodeWords(words, v, true, ids)
	}
	return groups, nil
}

// encodeGroup is encode for a grouping key (nulls one group), without the
// dictionary: a word column with no nulls whose words never decrease (a
// key the input is sorted by, such as lineitem's l_orderkey) gets its
// ids from its runs, in one sequential pass instead of a map. Each value
// is then one run, so the run's number is its first-appearance id.
func encodeGroup(c *keyCol, ids []int32) int {
	if c.dom != domString && c.valid.all() && nonDecreasing(c.words[:c.n]) {
		return runIDs(c.words[:c.n], ids)
	}
	groups, _ := encode(c, true, ids)
	return groups
}

// nonDecreasing reports whether words never decrease; it stops at the
// first decrease, so an unsorted column costs a few rows.
func nonDecreasing(words []int64) bool {
	for i := 1; i < len(words); i++ {
		if words[i] < words[i-1] {
			return false
		}
	}
	return true
}

// runIDs numbers the runs of equal words, ids[i] the run of row i, and
// returns the number of runs.
func runIDs(words []int64, ids []int32) int {
	ids = ids[:len(words)]
	next := int32(-1)
	var prev int64
	for i, w := range words {
		if i == 0 || w != prev {
			next++
			prev = w
		}
		ids[i] = next
	}
	return int(next + 1)
}

// pairIDs folds the ids of the first k key columns (ids, in [0, ga)) with
// the next column's (col, in [0, gb)) into first-appearance ids of the
// pairs, written over ids, and returns their number: the pairs' words
// (pairWords) encoded through a direct map of all ga*gb pairs, in one
// pass with no words. Dense first-appearance ids depend only on which
// rows are equal, so they are encodeWords's exactly. Grouping ids are
// never -1 (nulls form a group), which keeps every pair in the map.
func pairIDs(ids, col []int32, ga, gb int) int {
	slots := make([]int32, ga*gb)
	next := int32(0)
	col = col[:len(ids)]
	for i, a := range ids {
		s := &slots[int(a)*gb+int(col[i])]
		if *s == 0 {
			next++
			*s = next
		}
		ids[i] = *s - 1
	}
	return int(next)
}

// groupCol normalizes a grouping key column in its own domain.
func groupCol(a arrow.Array) (*keyCol, error) {
	dom, err := keyDomain(a)
	if err != nil {
		return nil, err
	}
	return newKeyCol(a, dom)
}
