package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// UnsortedError reports the first row of a merge input whose key orders
// before the previous row's key (docs/semantics.md, merge_sorted).
type UnsortedError struct {
	// Right is set when the unsorted input is the right one.
	Right bool
	// Row is the offending row of that input (Row-1 is the row it follows).
	Row int
}

// Error renders "right input: row 3 orders before row 2".
func (e *UnsortedError) Error() string {
	side := "left"
	if e.Right {
		side = "right"
	}
	return fmt.Sprintf("%s input: row %d orders before row %d", side, e.Row, e.Row-1)
}

// MergeSortedIndices merges two key columns, each sorted ascending with
// nulls first in SortIndices' order (floats by the total order, strings by
// bytes, false < true), into one sorted sequence: out[j] is a row of the
// concatenation left ++ right (right's rows numbered from left.Len()),
// left's row first on equal keys. It verifies sortedness first, the whole
// left column in order then the right: the first row that orders before
// its predecessor is an *UnsortedError, and nothing is merged.
func MergeSortedIndices(mem memory.Allocator, left, right arrow.Array) ([]int32, error) {
	if !arrow.TypeEqual(left.DataType(), right.DataType()) {
		return nil, fmt.Errorf("merge: key types %s and %s differ", left.DataType(), right.DataType())
	}
	nl, nr := left.Len(), right.Len()
	if err := checkRows(nl + nr); err != nil {
		return nil, err
	}
	all, err := array.Concatenate([]arrow.Array{left, right}, mem)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer all.Release()
	c := &sortCol{valid: validityOf(all)}
	if err := c.fill(all); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	for i := 1; i < nl; i++ {
		if c.cmpRows(int32(i-1), int32(i)) > 0 {
			return nil, &UnsortedError{Row: i}
		}
	}
	for i := nl + 1; i < nl+nr; i++ {
		if c.cmpRows(int32(i-1), int32(i)) > 0 {
			return nil, &UnsortedError{Right: true, Row: i - nl}
		}
	}
	out := make([]int32, 0, nl+nr)
	i, j := 0, nl
	for i < nl && j < nl+nr {
		// Left first on ties: take the right row only when it orders
		// strictly before the left one.
		if c.cmpRows(int32(j), int32(i)) < 0 {
			out = append(out, int32(j))
			j++
		} else {
			out = append(out, int32(i))
			i++
		}
	}
	for ; i < nl; i++ {
		out = append(out, int32(i))
	}
	for ; j < nl+nr; j++ {
		out = append(out, int32(j))
	}
	return out, nil
}
