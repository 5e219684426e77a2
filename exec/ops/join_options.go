package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/phys"
)

// This file holds the join options that reshape keys before the hash join
// runs (docs/semantics.md, join options): nulls_equal rewrites the key
// lists so that the unchanged join matches null keys with each other, and
// validate looks for a duplicated key on one side.

// NullsEqualKeys returns key lists under which the ordinary join (a null
// key matches nothing) pairs exactly the rows the join with nulls_equal
// pairs: each pair whose two columns both hold a null is replaced by the
// column with its nulls turned into the zero value of its type, followed
// by a non-null bool "was null" column, on either side. A pair where one
// side has no null is kept as it is (its nulls cannot match under either
// rule). The caller releases the returned arrays (the kept ones are new
// references too).
func NullsEqualKeys(mem memory.Allocator, left, right []arrow.Array) (l2, r2 []arrow.Array, err error) {
	if len(left) != len(right) {
		return nil, nil, fmt.Errorf("join: %d left keys, %d right keys", len(left), len(right))
	}
	release := func() {
		for _, a := range l2 {
			a.Release()
		}
		for _, a := range r2 {
			a.Release()
		}
	}
	var tails [2][]arrow.Array
	for k := range left {
		l, r := left[k], right[k]
		if l.NullN() == 0 || r.NullN() == 0 {
			l.Retain()
			r.Retain()
			l2, r2 = append(l2, l), append(r2, r)
			continue
		}
		for side, a := range []arrow.Array{l, r} {
			filled, err := zeroNulls(mem, a)
			if err != nil {
				release()
				for _, t := range tails {
					for _, x := range t {
						x.Release()
					}
				}
				return nil, nil, fmt.Errorf("join: key %d: %w", k, err)
			}
			if side == 0 {
				l2 = append(l2, filled)
			} else {
				r2 = append(r2, filled)
			}
			tails[side] = append(tails[side], nullMask(mem, a))
		}
	}
	return append(l2, tails[0]...), append(r2, tails[1]...), nil
}

// nullMask is a non-null bool column, true where a is null.
func nullMask(mem memory.Allocator, a arrow.Array) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		b.UnsafeAppend(a.IsNull(i))
	}
	return b.NewArray()
}

// zeroNulls is a without nulls: each null replaced by its type's zero
// value (a temporal column as its integer, which compares the same).
func zeroNulls(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	v := phys.View(a)
	defer v.Release()
	switch v := v.(type) {
	case *array.Int64:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.Reserve(v.Len())
		for i, x := range v.Int64Values() {
			if v.IsNull(i) {
				x = 0
			}
			b.UnsafeAppend(x)
		}
		return b.NewArray(), nil
	case *array.Int32:
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(v.Len())
		for i, x := range v.Int32Values() {
			if v.IsNull(i) {
				x = 0
			}
			b.UnsafeAppend(x)
		}
		return b.NewArray(), nil
	case *array.Float64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(v.Len())
		for i, x := range v.Float64Values() {
			if v.IsNull(i) {
				x = 0
			}
			b.UnsafeAppend(x)
		}
		return b.NewArray(), nil
	case *array.Boolean:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(v.Len())
		for i := 0; i < v.Len(); i++ {
			b.UnsafeAppend(v.IsValid(i) && v.Value(i))
		}
		return b.NewArray(), nil
	case *array.String:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(v.Len())
		for i := 0; i < v.Len(); i++ {
			if v.IsNull(i) {
				b.Append("")
			} else {
				b.Append(v.Value(i))
			}
		}
		return b.NewArray(), nil
	}
	if out, ok := zeroNullsNarrow(mem, a); ok {
		return out, nil
	}
	return nil, fmt.Errorf("unsupported key type %s", a.DataType())
}

// DuplicateKey looks for two rows of one join side with equal keys, keys
// compared as the join compares them with the other side's keys (the
// pair's promoted type, all NaNs equal, -0.0 = +0.0). Without nullsEqual a
// row with a null in any key has no key and duplicates nothing; with it a
// null equals a null. It returns the first duplicated key's first row and
// the row that repeats it (the earliest such second row in row order), or
// dup = -1 when the keys are unique.
func DuplicateKey(side, other []arrow.Array, nullsEqual bool) (first, dup int32, err error) {
	n, err := checkKeys(side)
	if err != nil {
		return 0, 0, fmt.Errorf("join validate: %w", err)
	}
	if len(other) != len(side) {
		return 0, 0, fmt.Errorf("join validate: %d keys, the other side has %d", len(side), len(other))
	}
	ids := make([]int32, n)
	groups := 0
	var col []int32
	for k := range side {
		dom, err := joinDomain(side[k], other[k])
		if err != nil {
			return 0, 0, fmt.Errorf("join validate: key %d: %w", k, err)
		}
		c, err := newKeyCol(side[k], dom)
		if err != nil {
			return 0, 0, fmt.Errorf("join validate: key %d: %w", k, err)
		}
		if k == 0 {
			groups, _ = encode(c, nullsEqual, ids)
			continue
		}
		if col == nil {
			col = make([]int32, n)
		}
		g, _ := encode(c, nullsEqual, col)
		w, v := pairWords(ids, col, g)
		groups, _ = encodeWords(w, v, false, ids)
	}
	seen := make([]int32, groups)
	for i := range seen {
		seen[i] = -1
	}
	for r, g := range ids {
		if g < 0 {
			continue
		}
		if seen[g] >= 0 {
			return seen[g], int32(r), nil
		}
		seen[g] = int32(r)
	}
	return 0, -1, nil
}
