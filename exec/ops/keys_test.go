package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestShortStrWord: a string packs into a word exactly when it has at most
// 8 bytes and its last byte is not zero, two packable strings pack alike
// exactly when they are equal, and the word does not depend on whether
// the bytes after the string are in the buffer (the 8-byte load) or not
// (the byte loop).
func TestShortStrWord(t *testing.T) {
	strs := []string{"", "a", "b", "ab", "ba", "a\x00", "\x00", "\x00a", "\x01", "\xff",
		"abcdefgh", "abcdefgg", "abcdefghi", "abcdefg\x00", "\xff\xff\xff\xff\xff\xff\xff\xff",
		"R", "F", "N", "O", "1-URGENT", "Brand#13", "REG AIR", "é"}
	type packed struct {
		s string
		w int64
	}
	var ok []packed
	for _, s := range strs {
		want := len(s) <= 8 && (len(s) == 0 || s[len(s)-1] != 0)
		// At the end of its buffer (the byte loop) and followed by
		// other bytes (the 8-byte load when they suffice).
		tail := []byte(s)
		padded := append([]byte(s), "zzzzzzzz"...)
		w1, ok1 := shortStrWord(tail, 0, len(s))
		w2, ok2 := shortStrWord(padded, 0, len(s))
		if ok1 != want || ok2 != want {
			t.Errorf("%q packs: %v (at the end), %v (followed by bytes); want %v", s, ok1, ok2, want)
			continue
		}
		if !want {
			continue
		}
		if w1 != w2 {
			t.Errorf("%q packs to %#x at the end of its buffer, %#x followed by bytes", s, w1, w2)
		}
		ok = append(ok, packed{s, w1})
	}
	for i, a := range ok {
		for _, b := range ok[i+1:] {
			if a.w == b.w {
				t.Errorf("%q and %q both pack to %#x", a.s, b.s, a.w)
			}
		}
	}
}

// TestByteIDs: a column of empty and one-byte strings gets, from byteIDs,
// the ids and group count of the packed-word encoding, and its dictionary
// looks probes up as the words' dictionary does; any other column is
// refused.
func TestByteIDs(t *testing.T) {
	mem := newMem(t)
	cases := []struct {
		name string
		vals []any
		ok   bool
	}{
		{"flags", []any{"R", "A", "R", "N", "A", "A"}, true},
		{"empty string and bytes", []any{"", "\xff", "", "\x01", "z"}, true},
		{"nulls group together", []any{nil, "F", nil, "O", "F"}, true},
		{"only nulls", []any{nil, nil}, true},
		{"no rows", []any{}, true},
		// Sliced from "x", "F", null, "long" to "F", null: a non-zero
		// offset, and a long string past the slice's end.
		{"sliced", []any{"x", "F", nil, "long"}, true},
		{"two bytes", []any{"A", "B", "AB"}, false},
		{"the zero byte", []any{"A", "\x00"}, false},
		{"long first", []any{"1-URGENT", "A"}, false},
	}
	probe := build(t, mem, tStr, "R", "", "\x00", "AB", nil, "F", "\xff", "q")
	defer probe.Release()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := build(t, mem, tStr, tc.vals...)
			defer a.Release()
			if tc.name == "sliced" {
				s := sliceArray(a, 1, 3)
				defer s.Release()
				a = s
			}
			for _, nullGroup := range []bool{true, false} {
				c, err := groupCol(a)
				if err != nil {
					t.Fatal(err)
				}
				ids := make([]int32, c.n)
				g, d, ok := byteIDs(c, nullGroup, ids)
				if ok != tc.ok {
					t.Fatalf("ok = %v, want %v", ok, tc.ok)
				}
				if !ok {
					continue
				}
				words, lo, hi, seen, wok := shortStrWords(c.strs, c.valid, 0, c.n)
				if !wok {
					t.Fatal("the words do not pack")
				}
				want := make([]int32, c.n)
				wg, wd := encodeWordsIn(words, c.valid, nullGroup, want, lo, hi, seen)
				if g != wg || !slices.Equal(ids, want) {
					t.Errorf("nullGroup %v: %d groups %v, want %d groups %v", nullGroup, g, ids, wg, want)
				}
				pc, err := groupCol(probe)
				if err != nil {
					t.Fatal(err)
				}
				got, exp := make([]int32, pc.n), make([]int32, pc.n)
				d.lookup(pc, got, 0, pc.n)
				(&shortStrDict{words: wd}).lookup(pc, exp, 0, pc.n)
				if !slices.Equal(got, exp) {
					t.Errorf("nullGroup %v: lookups %v, want %v", nullGroup, got, exp)
				}
			}
		})
	}
}

// TestEncodeGroupRuns: a grouping key's ids from its runs (a word column
// with no nulls whose words never decrease) are the map encoding's, and a
// column that is not such goes through the map.
func TestEncodeGroupRuns(t *testing.T) {
	mem := newMem(t)
	nan := math.NaN()
	cases := []struct {
		name string
		dt   arrow.DataType
		vals []any
		runs bool
	}{
		{"sorted ints with runs", tI64, []any{-5, -5, 0, 3, 3, 3, 9, maxInt64}, true},
		{"one row", tI64, []any{7}, true},
		{"no rows", tI64, []any{}, true},
		{"int32 runs", tI32, []any{1, 1, 2, 2, 2, 3}, true},
		{"zeros and NaNs are one word each", tF64, []any{0.0, negZero, 0.0, 1.5, nan, payNaN}, true},
		{"bools", tBool, []any{false, false, true}, true},
		{"a value that comes back", tI64, []any{1, 2, 2, 1}, false},
		{"decreasing", tI64, []any{3, 2, 1}, false},
		{"sorted with a null", tI64, []any{nil, 1, 1, 2}, false},
		{"strings", tStr, []any{"a", "a", "b"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := build(t, mem, tc.dt, tc.vals...)
			defer a.Release()
			c, err := groupCol(a)
			if err != nil {
				t.Fatal(err)
			}
			runs := c.dom != domString && c.valid.all() && nonDecreasing(c.words[:c.n])
			if runs != tc.runs {
				t.Fatalf("grouped by runs: %v, want %v", runs, tc.runs)
			}
			got, want := make([]int32, c.n), make([]int32, c.n)
			g := encodeGroup(c, got)
			wg, _ := encode(c, true, want)
			if g != wg || !slices.Equal(got, want) {
				t.Errorf("%d groups %v, want %d groups %v", g, got, wg, want)
			}
		})
	}
}
