package ops

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/plan"
)

// TestJoinOrder pins the output order of every join kind on one input with
// duplicates, nulls and unmatched rows on both sides.
func TestJoinOrder(t *testing.T) {
	// left rows:  0:1 1:2 2:null 3:1 4:9
	// right rows: 0:2 1:1 2:null 3:1 4:7 5:2
	left := keySpec{tI64, []any{1, 2, nil, 1, 9}}
	right := keySpec{tI64, []any{2, 1, nil, 1, 7, 2}}
	cases := []struct {
		kind   plan.JoinKind
		li, ri []int32
	}{
		{plan.InnerJoin, i32s(0, 0, 1, 1, 3, 3), i32s(1, 3, 0, 5, 1, 3)},
		{plan.LeftJoin, i32s(0, 0, 1, 1, 2, 3, 3, 4), i32s(1, 3, 0, 5, -1, 1, 3, -1)},
		{plan.RightJoin, i32s(1, 0, 3, -1, 0, 3, -1, 1), i32s(0, 1, 1, 2, 3, 3, 4, 5)},
		{plan.FullJoin, i32s(0, 0, 1, 1, 2, 3, 3, 4, -1, -1), i32s(1, 3, 0, 5, -1, 1, 3, -1, 2, 4)},
		{plan.SemiJoin, i32s(0, 1, 3), nil},
		{plan.AntiJoin, i32s(2, 4), nil},
	}
	for _, tc := range cases {
		t.Run(joinName(tc.kind), func(t *testing.T) {
			mem := newMem(t)
			li, ri, err := JoinIndices(tc.kind, buildKeys(t, mem, left), buildKeys(t, mem, right))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(li, tc.li) || (tc.ri != nil && !slices.Equal(ri, tc.ri)) || (tc.ri == nil && ri != nil) {
				t.Errorf("li %v ri %v, want %v %v", li, ri, tc.li, tc.ri)
			}
		})
	}
}

// joinName names a join kind in test output.
func joinName(k plan.JoinKind) string {
	return [...]string{"inner", "left", "right", "full", "semi", "anti", "cross"}[k]
}

// TestJoinKeys covers key equality: promotion, NaN, zeros, strings, bools
// and multi-column keys.
func TestJoinKeys(t *testing.T) {
	cases := []struct {
		name        string
		left, right []keySpec
		li, ri      []int32
	}{
		{"int32 with int64", []keySpec{{tI32, []any{-1, 2147483647, nil}}}, []keySpec{{tI64, []any{2147483647, -1, nil, 4294967295}}},
			i32s(0, 1), i32s(1, 0)},
		{"int with float", []keySpec{{tI64, []any{1, 2, 0, 9007199254740993}}}, []keySpec{{tF64, []any{2.0, 1.5, negZero, 1.0, 9007199254740992.0}}},
			i32s(0, 1, 2, 3), i32s(3, 0, 2, 4)},
		{"float NaN and zeros", []keySpec{{tF64, []any{qNaN, 0.0, negZero, posInf, nil}}}, []keySpec{{tF64, []any{hwNaN, negZero, sNaN, posInf, negInf, nil}}},
			i32s(0, 0, 1, 2, 3), i32s(0, 2, 1, 1, 3)},
		{"strings", []keySpec{{tStr, []any{"", "a", nil, "a\x00"}}}, []keySpec{{tStr, []any{"a\x00", "", nil, "a"}}},
			i32s(0, 1, 3), i32s(1, 3, 0)},
		{"bools", []keySpec{{tBool, []any{true, nil, false}}}, []keySpec{{tBool, []any{false, true, true, nil}}},
			i32s(0, 0, 2), i32s(1, 2, 0)},
		{"two keys, null in either misses", []keySpec{{tI64, []any{1, 1, 2, nil, 1}}, {tStr, []any{"x", "y", "x", "x", nil}}},
			[]keySpec{{tI32, []any{1, 2, 1, 1, nil}}, {tStr, []any{"y", "x", "x", nil, "x"}}},
			i32s(0, 1, 2), i32s(2, 0, 1)},
		{"all-null build", []keySpec{{tI64, []any{1, nil}}}, []keySpec{{tI64, []any{nil, nil}}}, i32s(), i32s()},
		{"empty sides", []keySpec{{tI64, nil}}, []keySpec{{tF64, []any{1.0}}}, i32s(), i32s()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			li, ri, err := JoinIndices(plan.InnerJoin, buildKeys(t, mem, tc.left...), buildKeys(t, mem, tc.right...))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(li, tc.li) || !slices.Equal(ri, tc.ri) {
				t.Errorf("li %v ri %v, want %v %v", li, ri, tc.li, tc.ri)
			}
		})
	}
}

func TestJoinErrors(t *testing.T) {
	mem := newMem(t)
	i := build(t, mem, tI64, 1)
	defer i.Release()
	s := build(t, mem, tStr, "1")
	defer s.Release()
	b := build(t, mem, tBool, true)
	defer b.Release()
	for name, call := range map[string]func() error{
		"string with int": func() error { _, _, err := JoinIndices(plan.InnerJoin, []arrow.Array{i}, []arrow.Array{s}); return err },
		"bool with int":   func() error { _, _, err := JoinIndices(plan.LeftJoin, []arrow.Array{b}, []arrow.Array{i}); return err },
		"key count": func() error {
			_, _, err := JoinIndices(plan.InnerJoin, []arrow.Array{i, i}, []arrow.Array{i})
			return err
		},
		"no keys": func() error { _, _, err := JoinIndices(plan.InnerJoin, nil, nil); return err },
		"cross":   func() error { _, _, err := JoinIndices(plan.CrossJoin, []arrow.Array{i}, []arrow.Array{i}); return err },
		"unknown kind": func() error {
			_, _, err := JoinIndices(plan.JoinKind(99), []arrow.Array{i}, []arrow.Array{i})
			return err
		},
		"cross too big":  func() error { _, _, err := CrossIndices(1<<16, 1<<16); return err },
		"cross negative": func() error { _, _, err := CrossIndices(-1, 1); return err },
	} {
		if call() == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestCrossIndices(t *testing.T) {
	li, ri, err := CrossIndices(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(li, i32s(0, 0, 0, 1, 1, 1)) || !slices.Equal(ri, i32s(0, 1, 2, 0, 1, 2)) {
		t.Errorf("li %v ri %v", li, ri)
	}
	li, ri, err = CrossIndices(0, 3)
	if err != nil || len(li) != 0 || len(ri) != 0 {
		t.Errorf("empty cross: %v %v %v", li, ri, err)
	}
}
