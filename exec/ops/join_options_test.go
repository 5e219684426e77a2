package ops

import (
	"slices"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestNullsEqualKeys: the rewritten keys make the plain join pair null
// keys with each other, per key pair, and leave a pair alone when one side
// has no null.
func TestNullsEqualKeys(t *testing.T) {
	cases := []struct {
		name        string
		kind        plan.JoinKind
		left, right []keySpec
		li, ri      []int32
	}{
		{"int nulls pair up", plan.InnerJoin, []keySpec{{tI64, []any{nil, 0, 1, nil}}}, []keySpec{{tI64, []any{0, nil, nil}}},
			i32s(0, 0, 1, 3, 3), i32s(1, 2, 0, 1, 2)},
		{"a zero is not a null", plan.InnerJoin, []keySpec{{tI64, []any{0}}}, []keySpec{{tI64, []any{nil, 0}}}, i32s(0), i32s(1)},
		{"strings", plan.LeftJoin, []keySpec{{tStr, []any{nil, "", "a"}}}, []keySpec{{tStr, []any{"", nil}}},
			i32s(0, 1, 2), i32s(1, 0, -1)},
		{"one side without nulls", plan.InnerJoin, []keySpec{{tI64, []any{nil, 1}}}, []keySpec{{tI64, []any{1, 2}}}, i32s(1), i32s(0)},
		{"two keys, null in one", plan.InnerJoin,
			[]keySpec{{tI64, []any{1, 1, nil}}, {tF64, []any{nil, 2.0, nil}}},
			[]keySpec{{tI64, []any{1, nil, 1}}, {tF64, []any{nil, nil, 2.0}}},
			i32s(0, 1, 2), i32s(0, 2, 1)},
		{"bools", plan.AntiJoin, []keySpec{{tBool, []any{nil, false, true}}}, []keySpec{{tBool, []any{false, nil}}}, i32s(2), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			l, r := buildKeys(t, mem, tc.left...), buildKeys(t, mem, tc.right...)
			l2, r2, err := NullsEqualKeys(mem, l, r)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, a := range append(l2, r2...) {
					a.Release()
				}
			}()
			li, ri, err := JoinIndices(tc.kind, l2, r2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(li, tc.li) || !slices.Equal(ri, tc.ri) {
				t.Errorf("li %v ri %v, want %v %v", li, ri, tc.li, tc.ri)
			}
		})
	}
}

// TestDuplicateKey: the first repeated key in row order, compared in the
// pair's promoted type; null keys repeat only under nulls_equal.
func TestDuplicateKey(t *testing.T) {
	cases := []struct {
		name        string
		side, other []keySpec
		nullsEqual  bool
		first, dup  int32
	}{
		{"unique", []keySpec{{tI64, []any{1, 2, 3}}}, []keySpec{{tI64, []any{1}}}, false, 0, -1},
		{"first repeat in row order", []keySpec{{tI64, []any{5, 1, 2, 2, 5}}}, []keySpec{{tI64, []any{1}}}, false, 2, 3},
		{"nulls are not duplicates", []keySpec{{tI64, []any{nil, 1, nil}}}, []keySpec{{tI64, []any{1}}}, false, 0, -1},
		{"nulls are duplicates under nulls_equal", []keySpec{{tI64, []any{nil, 1, nil}}}, []keySpec{{tI64, []any{1}}}, true, 0, 2},
		{"promoted to float64", []keySpec{{tI64, []any{9007199254740993, 9007199254740992}}}, []keySpec{{tF64, []any{1.0}}}, false, 0, 1},
		{"NaN and zeros", []keySpec{{tF64, []any{negZero, 0.0}}}, []keySpec{{tF64, []any{1.0}}}, false, 0, 1},
		{"two keys", []keySpec{{tI64, []any{1, 1, 1}}, {tStr, []any{"a", "b", "a"}}}, []keySpec{{tI64, []any{1}}, {tStr, []any{"a"}}}, false, 0, 2},
		{"two keys, a null in one", []keySpec{{tI64, []any{1, 1}}, {tStr, []any{nil, nil}}}, []keySpec{{tI64, []any{1}}, {tStr, []any{"a"}}}, false, 0, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			first, dup, err := DuplicateKey(buildKeys(t, mem, tc.side...), buildKeys(t, mem, tc.other...), tc.nullsEqual)
			if err != nil {
				t.Fatal(err)
			}
			if dup != tc.dup || (dup >= 0 && first != tc.first) {
				t.Errorf("first %d dup %d, want %d %d", first, dup, tc.first, tc.dup)
			}
		})
	}
}
