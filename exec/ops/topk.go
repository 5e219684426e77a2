package ops

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// TopK is hand-written because nothing in Arrow selects the first k rows of
// a sort order: a bounded max-heap of k rows costs one comparison with the
// heap's top for almost every row, instead of sorting all of them.

// topKHeapDiv bounds the heap: when k*topKHeapDiv >= rows, sorting every
// row and truncating is as cheap, so TopK does that.
const topKHeapDiv = 8

// TopK returns the first k rows of the sort order: exactly
// SortIndices(keys, desc, nullsLast)[:min(k, rows)], without sorting every
// row (the sort+limit operator). k < 0 is an error.
func TopK(keys []arrow.Array, desc, nullsLast []bool, k int) ([]int32, error) {
	if k < 0 {
		return nil, fmt.Errorf("top-k: negative k %d", k)
	}
	s, n, err := newSorter(keys, desc, nullsLast)
	if err != nil {
		return nil, fmt.Errorf("top-k: %w", err)
	}
	if k == 0 {
		return []int32{}, nil
	}
	if k*topKHeapDiv >= n {
		return s.sortAll(n)[:min(k, n)], nil
	}
	order := s.rowOrder()
	h := &rowHeap{rows: make([]int32, k), cmp: order}
	for i := range h.rows {
		h.rows[i] = int32(i)
	}
	h.init()
	if c := &s.cols[0]; len(s.cols) == 1 && !c.isStr && c.valid.all() {
		// One numeric key without nulls: a later row enters only with a
		// strictly smaller word than the top's (a tie loses on row order).
		w := c.words
		for i := k; i < n; i++ {
			if w[i] < w[h.rows[0]] {
				h.replaceTop(int32(i))
			}
		}
	} else {
		for i := k; i < n; i++ {
			if order(int32(i), h.rows[0]) < 0 {
				h.replaceTop(int32(i))
			}
		}
	}
	slices.SortFunc(h.rows, order)
	return h.rows, nil
}

// rowOrder returns the strict total order of rows under the sort keys, ties
// broken by row index (which is what stability means). It is a closure over
// the key columns rather than a method: the scan over every row calls it,
// and as a method value it made the string cases of BenchmarkTopK100 about
// 15% slower.
func (s *sorter) rowOrder() func(a, b int32) int {
	cols := s.cols
	return func(a, b int32) int {
		for k := range cols {
			if r := cols[k].cmpRows(a, b); r != 0 {
				return r
			}
		}
		return cmp.Compare(a, b)
	}
}

// rowHeap is a fixed-size max-heap of rows under cmp: the top is the row
// that leaves first.
type rowHeap struct {
	rows []int32
	cmp  func(a, b int32) int
}

// init establishes the heap order.
func (h *rowHeap) init() {
	for i := len(h.rows)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// replaceTop puts r in place of the top and restores the heap order.
func (h *rowHeap) replaceTop(r int32) {
	h.rows[0] = r
	h.down(0)
}

// down sifts the row at i down to its place.
func (h *rowHeap) down(i int) {
	rows, n := h.rows, len(h.rows)
	for {
		big := i
		if l := 2*i + 1; l < n && h.cmp(rows[big], rows[l]) < 0 {
			big = l
		}
		if r := 2*i + 2; r < n && h.cmp(rows[big], rows[r]) < 0 {
			big = r
		}
		if big == i {
			return
		}
		rows[i], rows[big] = rows[big], rows[i]
		i = big
	}
}
