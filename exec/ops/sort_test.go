package ops

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSortIndices(t *testing.T) {
	cases := []struct {
		name      string
		keys      []keySpec
		desc      []bool
		nullsLast []bool
		want      []int32
	}{
		{"empty", []keySpec{{tI64, nil}}, nil, nil, i32s()},
		{"int64 stable, nulls first", []keySpec{{tI64, []any{3, nil, 1, 3, minInt64, maxInt64, nil, 1}}}, nil, nil,
			i32s(1, 6, 4, 2, 7, 0, 3, 5)},
		{"int64 desc keeps nulls first", []keySpec{{tI64, []any{3, nil, 1, 3, minInt64, maxInt64, nil, 1}}}, []bool{true}, nil,
			i32s(1, 6, 5, 0, 3, 2, 7, 4)},
		{"int64 nulls last", []keySpec{{tI64, []any{3, nil, 1, 3, minInt64, maxInt64, nil, 1}}}, nil, []bool{true},
			i32s(4, 2, 7, 0, 3, 5, 1, 6)},
		{"int64 desc nulls last", []keySpec{{tI64, []any{3, nil, 1, 3, minInt64, maxInt64, nil, 1}}}, []bool{true}, []bool{true},
			i32s(5, 0, 3, 2, 7, 4, 1, 6)},
		{"float total order", []keySpec{{tF64, []any{qNaN, 0.0, negZero, posInf, negInf, nil, hwNaN, -1.5, 1.5, sNaN, negZero}}}, nil, nil,
			i32s(5, 4, 7, 2, 10, 1, 8, 3, 0, 6, 9)},
		{"float desc", []keySpec{{tF64, []any{qNaN, 0.0, negZero, posInf, negInf, nil, hwNaN, -1.5, 1.5, sNaN, negZero}}}, []bool{true}, []bool{true},
			i32s(0, 6, 9, 3, 8, 1, 2, 10, 7, 4, 5)},
		{"int32", []keySpec{{tI32, []any{-2147483648, 2147483647, 0, -1}}}, nil, nil, i32s(0, 3, 2, 1)},
		{"strings by bytes", []keySpec{{tStr, []any{"b", "", "a\x00", "a", "B", "é", "abcdefgh", "abcdefgh\x00", "abcdefgg", nil}}}, nil, nil,
			i32s(9, 1, 4, 3, 2, 8, 6, 7, 0, 5)},
		{"strings desc", []keySpec{{tStr, []any{"b", "", "a\x00", "a", "B", "é", "abcdefgh", "abcdefgh\x00", "abcdefgg", nil}}}, []bool{true}, nil,
			i32s(9, 5, 0, 7, 6, 8, 2, 3, 4, 1)},
		{"bool", []keySpec{{tBool, []any{true, false, nil, true, false}}}, nil, nil, i32s(2, 1, 4, 0, 3)},
		{"bool desc", []keySpec{{tBool, []any{true, false, nil, true, false}}}, []bool{true}, []bool{true}, i32s(0, 3, 1, 4, 2)},
		{"two keys", []keySpec{{tI64, []any{2, 1, 2, 1, nil, 2, nil}}, {tStr, []any{"b", "z", "a", "a", "q", "b", "p"}}},
			[]bool{false, true}, nil, i32s(4, 6, 1, 3, 0, 5, 2)},
		{"three keys with null runs", []keySpec{{tBool, []any{true, true, true, true, true}}, {tF64, []any{nil, 1.0, nil, 1.0, nil}}, {tI64, []any{3, 2, 1, nil, 2}}},
			nil, []bool{false, true, true}, i32s(1, 3, 2, 4, 0)},
		// inputs already ordered by their leading key(s): the presorted shortcut
		{"whole input sorted", []keySpec{{tI64, []any{1, 1, 2, 3}}, {tI64, []any{1, 2, 0, 5}}}, nil, nil, i32s(0, 1, 2, 3)},
		{"leading sorted, ties refined", []keySpec{{tI64, []any{1, 1, 1, 2, 2, 3}}, {tI64, []any{5, 3, 4, 9, 8, 0}}}, nil, nil,
			i32s(1, 2, 0, 4, 3, 5)},
		{"leading sorted, ties stay stable", []keySpec{{tI64, []any{1, 1, 1, 2}}, {tI64, []any{7, 7, 6, 1}}}, nil, nil,
			i32s(2, 0, 1, 3)},
		{"leading unsorted", []keySpec{{tI64, []any{2, 1, 1, 2}}, {tI64, []any{1, 2, 1, 0}}}, nil, nil, i32s(2, 1, 3, 0)},
		{"leading sorted but last row descends", []keySpec{{tI64, []any{1, 2, 3, 0}}, {tI64, []any{0, 0, 0, 0}}}, nil, nil,
			i32s(3, 0, 1, 2)},
		{"leading desc presorted", []keySpec{{tI64, []any{3, 3, 2, 1}}, {tI64, []any{2, 1, 5, 4}}}, []bool{true, false}, nil,
			i32s(1, 0, 2, 3)},
		{"ascending input under desc is not presorted", []keySpec{{tI64, []any{1, 2, 3}}, {tI64, []any{0, 0, 0}}}, []bool{true, false}, nil,
			i32s(2, 1, 0)},
		{"nulls first presorted", []keySpec{{tI64, []any{nil, nil, 1, 1}}, {tI64, []any{2, 1, 4, 3}}}, nil, nil, i32s(1, 0, 3, 2)},
		{"nulls last presorted", []keySpec{{tI64, []any{1, 1, nil, nil}}, {tI64, []any{2, 1, 4, 3}}}, nil, []bool{true, false},
			i32s(1, 0, 3, 2)},
		{"nulls at the back but nulls first", []keySpec{{tI64, []any{1, 2, nil}}, {tI64, []any{0, 0, 0}}}, nil, nil, i32s(2, 0, 1)},
		{"nulls at the front but nulls last", []keySpec{{tI64, []any{nil, 1, 2}}, {tI64, []any{0, 0, 0}}}, nil, []bool{true, false},
			i32s(1, 2, 0)},
		{"float zeros and NaNs presorted", []keySpec{{tF64, []any{negZero, 0.0, 0.0, qNaN, sNaN}}, {tI64, []any{1, 2, 1, 2, 1}}}, nil, nil,
			i32s(0, 2, 1, 4, 3)},
		{"+0.0 before -0.0 is not presorted", []keySpec{{tF64, []any{0.0, negZero}}, {tI64, []any{0, 0}}}, nil, nil, i32s(1, 0)},
		{"strings presorted desc", []keySpec{{tStr, []any{"b", "b", "abcdefghij", "abcdefghi"}}, {tI64, []any{2, 1, 0, 0}}},
			[]bool{true, false}, nil, i32s(1, 0, 2, 3)},
		{"second key presorted within runs", []keySpec{{tI64, []any{2, 1, 2, 1}}, {tI64, []any{1, 1, 1, 1}}, {tI64, []any{4, 3, 2, 1}}},
			nil, nil, i32s(3, 1, 2, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keys := buildKeys(t, newMem(t), tc.keys...)
			got, err := SortIndices(keys, tc.desc, tc.nullsLast)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for k := 0; k <= len(got); k++ {
				top, err := TopK(keys, tc.desc, tc.nullsLast, k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(top, got[:k]) {
					t.Errorf("TopK(%d) = %v, want %v", k, top, got[:k])
				}
			}
		})
	}
}

func TestSortErrors(t *testing.T) {
	mem := newMem(t)
	a := build(t, mem, tI64, 1, 2)
	defer a.Release()
	b := build(t, mem, tI64, 1)
	defer b.Release()
	if _, err := SortIndices(nil, nil, nil); err == nil {
		t.Error("no keys: want an error")
	}
	if _, err := SortIndices([]arrow.Array{a, b}, nil, nil); err == nil {
		t.Error("ragged keys: want an error")
	}
	if _, err := SortIndices([]arrow.Array{a}, []bool{true, false}, nil); err == nil {
		t.Error("too many desc flags: want an error")
	}
	if _, err := TopK([]arrow.Array{a}, nil, nil, -1); err == nil {
		t.Error("negative k: want an error")
	}
	if got, err := TopK([]arrow.Array{a}, nil, nil, 10); err != nil || !slices.Equal(got, i32s(0, 1)) {
		t.Errorf("TopK beyond the rows = %v, %v", got, err)
	}
}

// TestSortStringsLarge runs the radix path (>= radixMin rows) on strings
// that share their 8-byte prefix and differ in length or in later bytes,
// with heavy repetition, against the reference stable sort.
func TestSortStringsLarge(t *testing.T) {
	mixed := []any{"abcdefghi", "abcdefgh\x00", "abcdefgh", "abcdefg", "abcdefgh\x00\x00", "abcdefghij", "abcdefghi\x00", nil, "", "abcdefgg"}
	// Equal prefixes AND equal lengths, differing only after byte 8.
	nine := []any{"abcdefghi", "abcdefgh\x00", "abcdefghz", "abcdefgha"}
	for _, tc := range []struct {
		vals []any
		desc bool
	}{{mixed, false}, {mixed, true}, {nine, false}, {nine, true}} {
		vals, desc := tc.vals, tc.desc
		mem := newMem(t)
		c := keyCase{keys: []tcol{{dt: tStr, vals: make([]any, 3000)}}, desc: []bool{desc}, nullsLast: []bool{desc}}
		for i := range c.keys[0].vals {
			c.keys[0].vals[i] = vals[(i*7+i/13)%len(vals)]
		}
		checkSortAgainstReference(t, mem, c)
	}
}

// TestSortPresortedMatchesReference reorders generated tables so their
// leading key (or every key) is already in sort order, optionally breaking
// it at one row, and checks the sort against the reference stable sort.
func TestSortPresortedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, mode := range []string{"leading sorted", "all sorted", "leading sorted, one swap"} {
		t.Run(mode, func(t *testing.T) {
			for iter := 0; iter < 300; iter++ {
				n := rng.Intn(600)
				nk := 1 + rng.Intn(4)
				c := keyCase{desc: make([]bool, nk), nullsLast: make([]bool, nk)}
				for i := 0; i < nk; i++ {
					dt := keyTypes[rng.Intn(len(keyTypes))]
					nullP := []float64{0, 0, 0.15, 0.5}[rng.Intn(4)]
					c.keys = append(c.keys, genCol(rng, dt, n, nullP, 1+rng.Intn(len(poolOf(dt)))))
					c.desc[i] = rng.Intn(2) == 0
					c.nullsLast[i] = rng.Intn(2) == 0
				}
				lead := c
				if mode != "all sorted" {
					lead = keyCase{keys: c.keys[:1], desc: c.desc[:1], nullsLast: c.nullsLast[:1]}
				}
				rows := make([]int, n)
				for j, r := range refSortIndices(lead) {
					rows[j] = int(r)
				}
				if mode == "leading sorted, one swap" && n > 1 {
					a, b := rng.Intn(n), rng.Intn(n)
					rows[a], rows[b] = rows[b], rows[a]
				}
				c = c.pick(rows)
				checkSortAgainstReference(t, newMem(t), c)
			}
		})
	}
}

// checkSortAgainstReference sorts c's keys and fails the test unless the
// permutation is the reference stable sort's.
func checkSortAgainstReference(t *testing.T, mem memory.Allocator, c keyCase) {
	t.Helper()
	keys := c.arrays(t, mem)
	got, err := SortIndices(keys, c.desc, c.nullsLast)
	if err != nil {
		releaseAll(keys)
		t.Fatal(err)
	}
	lazy, loaded, err := sortLazily(keys, c.desc, c.nullsLast)
	releaseAll(keys)
	if err != nil {
		t.Fatal(err)
	}
	want := refSortIndices(c)
	if !slices.Equal(got, want) {
		t.Fatalf("%v\ngot %v\nwant %v", c, head(got), head(want))
	}
	if !slices.Equal(lazy, want) {
		t.Fatalf("lazy keys: %v\ngot %v\nwant %v", c, head(lazy), head(want))
	}
	if n := neededKeys(c); loaded != n {
		t.Fatalf("lazy keys: %v: loaded %d keys, the sort needs %d", c, loaded, n)
	}
}

// sortLazily is SortIndicesLazy over keys, counting the keys it loads.
func sortLazily(keys []arrow.Array, desc, nullsLast []bool) ([]int32, int, error) {
	loaded := 0
	idx, err := SortIndicesLazy(keys[0].Len(), len(keys), func(k int) (arrow.Array, error) {
		loaded++
		return keys[k], nil
	}, desc, nullsLast)
	return idx, loaded, err
}

// neededKeys is how many keys a sort reads: 1, plus one for each key k
// after which some group of rows equal on keys 0..k-1 has two rows.
func neededKeys(c keyCase) int {
	n := c.rows()
	need := 1
	for k := 1; k < len(c.keys); k++ {
		seen := map[string]bool{}
		dup := false
		for i := 0; i < n && !dup; i++ {
			key := fmt.Sprint(refKeyPrefix(c, i, k))
			dup = seen[key]
			seen[key] = true
		}
		if !dup {
			break
		}
		need++
	}
	return need
}

// refKeyPrefix is row i's values of keys 0..k-1, with every NaN alike.
func refKeyPrefix(c keyCase, i, k int) []any {
	out := make([]any, k)
	for j := range out {
		v := c.keys[j].vals[i]
		if f, ok := v.(float64); ok && math.IsNaN(f) {
			v = "NaN"
		}
		out[j] = v
	}
	return out
}

// TestSortPackedRuns sorts runs of 17 to 300 rows (the lengths sorted as
// packed words when their words span less than 2^32, by pairs otherwise)
// on int64 keys whose values span just under, exactly and just over 2^32,
// under a leading key that makes runs of equal values, and compares with
// the reference stable sort.
func TestSortPackedRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	bases := []int64{0, -1 << 40, math.MaxInt64 - 1<<33, math.MinInt64}
	for iter := 0; iter < 400; iter++ {
		n := 17 + rng.Intn(284)
		base := bases[rng.Intn(len(bases))]
		span := []int64{3, 1 << 20, 1<<32 - 1, 1 << 32, 1<<32 + 1}[rng.Intn(5)]
		lead := tcol{dt: tI64, vals: make([]any, n)}
		key := tcol{dt: tI64, vals: make([]any, n)}
		for i := 0; i < n; i++ {
			lead.vals[i] = int64(rng.Intn(3))
			switch rng.Intn(8) {
			case 0:
				key.vals[i] = base
			case 1:
				key.vals[i] = base + span
			case 2:
				if rng.Intn(4) == 0 {
					key.vals[i] = nil
					continue
				}
				fallthrough
			default:
				key.vals[i] = base + rng.Int63n(span+1)
			}
		}
		c := keyCase{keys: []tcol{lead, key}, desc: []bool{false, rng.Intn(2) == 0}, nullsLast: []bool{false, rng.Intn(2) == 0}}
		if rng.Intn(3) == 0 {
			c = keyCase{keys: []tcol{key}, desc: c.desc[1:], nullsLast: c.nullsLast[1:]}
		}
		checkSortAgainstReference(t, newMem(t), c)
	}
}

// TestSortLazyErrors: a key that fails to load, or has another length,
// stops the sort with its error; a sort whose first key tells every row
// apart never asks for the second.
func TestSortLazyErrors(t *testing.T) {
	mem := newMem(t)
	bld := array.NewInt64Builder(mem)
	bld.AppendValues([]int64{3, 1, 2, 2}, nil)
	a := bld.NewArray()
	defer a.Release()
	short := array.NewSlice(a, 0, 2)
	defer short.Release()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name   string
		second arrow.Array
		err    error
		want   string
	}{
		{"failing key", nil, boom, "boom"},
		{"short key", short, nil, "not a column of 4 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SortIndicesLazy(4, 2, func(k int) (arrow.Array, error) {
				if k == 0 {
					return a, nil
				}
				return tc.second, tc.err
			}, nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("err = %v does not wrap the key's error", err)
			}
		})
	}
	distinct := array.NewSlice(a, 0, 3) // 3, 1, 2: no two rows equal
	defer distinct.Release()
	got, err := SortIndicesLazy(3, 2, func(k int) (arrow.Array, error) {
		if k > 0 {
			return nil, boom
		}
		return distinct, nil
	}, nil, nil)
	if err != nil || !slices.Equal(got, []int32{1, 2, 0}) {
		t.Fatalf("got %v, %v; want [1 2 0] without loading the second key", got, err)
	}
	if _, err := SortIndicesLazy(3, 0, nil, nil, nil); err == nil {
		t.Fatal("no keys: want an error")
	}
}
