package ops

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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
	releaseAll(keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := refSortIndices(c); !slices.Equal(got, want) {
		t.Fatalf("%v\ngot %v\nwant %v", c, head(got), head(want))
	}
}
