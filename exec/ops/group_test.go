package ops

import (
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// keySpec is one key column of a test: its type and values.
type keySpec struct {
	dt   arrow.DataType
	vals []any
}

// buildKeys builds key columns from mem, released when the test ends.
func buildKeys(t testing.TB, mem memory.Allocator, specs ...keySpec) []arrow.Array {
	t.Helper()
	keys := make([]arrow.Array, len(specs))
	for k, ks := range specs {
		keys[k] = build(t, mem, ks.dt, ks.vals...)
	}
	t.Cleanup(func() { releaseAll(keys) })
	return keys
}

func TestGroupIDs(t *testing.T) {
	cases := []struct {
		name  string
		keys  []keySpec
		ids   []int32
		first []int32
	}{
		{"empty", []keySpec{{tI64, nil}}, i32s(), i32s()},
		{"int64 dense", []keySpec{{tI64, []any{3, 1, 3, 2, 1}}}, i32s(0, 1, 0, 2, 1), i32s(0, 1, 3)},
		{"int64 nulls group together", []keySpec{{tI64, []any{nil, 1, nil, 1, 2}}}, i32s(0, 1, 0, 1, 2), i32s(0, 1, 4)},
		{"int64 extremes (hash path)", []keySpec{{tI64, []any{maxInt64, minInt64, 0, -1, maxInt64, minInt64, nil}}},
			i32s(0, 1, 2, 3, 0, 1, 4), i32s(0, 1, 2, 3, 6)},
		{"int64 min and max span overflows", []keySpec{{tI64, []any{minInt64, -5, maxInt64, -5}}}, i32s(0, 1, 2, 1), i32s(0, 1, 2)},
		{"all null", []keySpec{{tI64, []any{nil, nil, nil}}}, i32s(0, 0, 0), i32s(0)},
		{"int32", []keySpec{{tI32, []any{-1, 5, -1, nil}}}, i32s(0, 1, 0, 2), i32s(0, 1, 3)},
		{"float NaNs and zeros", []keySpec{{tF64, []any{qNaN, 0.0, hwNaN, negZero, sNaN, payNaN, 1.5, nil, posInf, negInf, posInf}}},
			i32s(0, 1, 0, 1, 0, 0, 2, 3, 4, 5, 4), i32s(0, 1, 6, 7, 8, 9)},
		{"string", []keySpec{{tStr, []any{"", "a", nil, "", "a\x00", "a", nil}}}, i32s(0, 1, 2, 0, 3, 1, 2), i32s(0, 1, 2, 4)},
		{"bool", []keySpec{{tBool, []any{true, nil, false, true, nil}}}, i32s(0, 1, 2, 0, 1), i32s(0, 1, 2)},
		{"two keys", []keySpec{{tI64, []any{1, 1, 2, 1, 2, nil, nil}}, {tStr, []any{"x", "y", "x", "x", nil, nil, "x"}}},
			i32s(0, 1, 2, 0, 3, 4, 5), i32s(0, 1, 2, 4, 5, 6)},
		{"three keys with float", []keySpec{{tBool, []any{true, true, true, true}}, {tF64, []any{0.0, negZero, qNaN, hwNaN}}, {tI32, []any{7, 7, 7, 7}}},
			i32s(0, 0, 1, 1), i32s(0, 2)},
		{"heavy duplicates", []keySpec{{tI64, []any{5, 5, 5, 5, 5, 5, 5, 5}}}, i32s(0, 0, 0, 0, 0, 0, 0, 0), i32s(0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keys := buildKeys(t, newMem(t), tc.keys...)
			ids, first, err := GroupIDs(keys)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, tc.ids) || !slices.Equal(first, tc.first) {
				t.Errorf("ids %v first %v, want %v %v", ids, first, tc.ids, tc.first)
			}
			distinct, err := DistinctRows(keys)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(distinct, tc.first) {
				t.Errorf("distinct %v, want %v", distinct, tc.first)
			}
		})
	}
}

func TestGroupIDsSliced(t *testing.T) {
	mem := newMem(t)
	a := build(t, mem, tI64, 9, nil, 4, 9, nil, 4, 8)
	defer a.Release()
	s := sliceArray(a, 1, 6) // nil, 4, 9, nil, 4
	defer s.Release()
	ids, first, err := GroupIDs([]arrow.Array{s})
	if err != nil {
		t.Fatal(err)
	}
	if want := i32s(0, 1, 2, 0, 1); !slices.Equal(ids, want) || !slices.Equal(first, i32s(0, 1, 2)) {
		t.Errorf("ids %v first %v, want %v [0 1 2]", ids, first, want)
	}
}

func TestGroupIDsErrors(t *testing.T) {
	mem := newMem(t)
	a := build(t, mem, tI64, 1, 2)
	defer a.Release()
	b := build(t, mem, tI64, 1)
	defer b.Release()
	if _, _, err := GroupIDs(nil); err == nil {
		t.Error("no keys: want an error")
	}
	if _, _, err := GroupIDs([]arrow.Array{a, b}); err == nil {
		t.Error("ragged keys: want an error")
	}
	if _, _, err := GroupIDs([]arrow.Array{a, nil}); err == nil {
		t.Error("nil key: want an error")
	}
}

func TestOneGroupFirstRows(t *testing.T) {
	if got := OneGroup(3); !slices.Equal(got, i32s(0, 0, 0)) {
		t.Errorf("OneGroup(3) = %v", got)
	}
	if got := FirstRows(OneGroup(0), 1); !slices.Equal(got, i32s(-1)) {
		t.Errorf("FirstRows of an empty group = %v, want [-1]", got)
	}
}

// TestGroupIDsLarge covers the hash tables' growth beyond the sample that
// drives their size estimate: unique keys, keys that thin out, and keys
// that only start repeating late, for ints, floats and strings.
func TestGroupIDsLarge(t *testing.T) {
	const n = 60000
	patterns := map[string]func(i int) int64{
		"unique":      func(i int) int64 { return int64(i) * 7919 * 1_000_003 },
		"thinning":    func(i int) int64 { return int64(min(i, 5000+i/50)) * 1_000_003 },
		"late growth": func(i int) int64 { return int64(max(0, i-40000)+i%100) * 1_000_003 },
	}
	for name, f := range patterns {
		for _, dt := range []arrow.DataType{tI64, tF64, tStr} {
			t.Run(name+"/"+dt.String(), func(t *testing.T) {
				mem := newMem(t)
				c := tcol{dt: dt, vals: make([]any, n)}
				for i := range c.vals {
					v := f(i)
					switch dt.ID() {
					case arrow.INT64:
						c.vals[i] = v
					case arrow.FLOAT64:
						c.vals[i] = float64(v) / 3
					default:
						c.vals[i] = strconv.FormatInt(v, 36)
					}
					if i%997 == 0 {
						c.vals[i] = nil
					}
				}
				a := c.array(t, mem)
				defer a.Release()
				ids, first, err := GroupIDs([]arrow.Array{a})
				if err != nil {
					t.Fatal(err)
				}
				wantIDs, wantFirst := refGroupIDs([]tcol{c}, n)
				if !slices.Equal(ids, wantIDs) || !slices.Equal(first, wantFirst) {
					t.Fatalf("%d groups, want %d", len(first), len(wantFirst))
				}
			})
		}
	}
}

func TestFirstRowsAnyOrder(t *testing.T) {
	if got := FirstRows(i32s(2, 0, 2, 1, 0), 4); !slices.Equal(got, i32s(1, 3, 0, -1)) {
		t.Errorf("FirstRows = %v, want [1 3 0 -1]", got)
	}
}

// TestGroupIDsTwoKeysFold checks the fold of multi-column keys both ways:
// through the direct map of all pairs (pairIDs: few groups per column, as
// TPC-H Q1's one-character flags) and through the pairs' words (more pairs
// than a direct map may hold), with short and long strings, nulls, and an
// all-null column, against the reference grouping.
func TestGroupIDsTwoKeysFold(t *testing.T) {
	const n = 30000
	flag := func(i int) any { return string("ANR"[i*7%3]) }
	status := func(i int) any {
		if i%113 == 0 {
			return nil
		}
		return string("FO"[i*5%2])
	}
	cases := []struct {
		name string
		a, b func(i int) any
		dtB  arrow.DataType
	}{
		{"flags (direct pairs)", flag, status, tStr},
		{"flags and a long string", flag, func(i int) any { return "status-" + strconv.Itoa(i%5) }, tStr},
		{"flag and an all-null column", flag, func(int) any { return nil }, tStr},
		{"unique pairs (pair words)", func(i int) any { return strconv.Itoa(i % 20011) }, func(i int) any { return int64(i % 29989) }, tI64},
		{"many groups then few", func(i int) any { return strconv.Itoa(i) }, func(i int) any { return int64(i % 3) }, tI64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			ca := tcol{dt: tStr, vals: make([]any, n)}
			cb := tcol{dt: tc.dtB, vals: make([]any, n)}
			for i := 0; i < n; i++ {
				ca.vals[i], cb.vals[i] = tc.a(i), tc.b(i)
			}
			a, b := ca.array(t, mem), cb.array(t, mem)
			defer a.Release()
			defer b.Release()
			for _, keys := range [][]arrow.Array{{a, b}, {b, a}, {a, b, a}} {
				cols := []tcol{ca, cb}
				if keys[0] == b {
					cols = []tcol{cb, ca}
				}
				if len(keys) == 3 {
					cols = append(cols, ca)
				}
				ids, first, err := GroupIDs(keys)
				if err != nil {
					t.Fatal(err)
				}
				wantIDs, wantFirst := refGroupIDs(cols, n)
				if !slices.Equal(ids, wantIDs) || !slices.Equal(first, wantFirst) {
					t.Fatalf("%d keys: %d groups, want %d", len(keys), len(first), len(wantFirst))
				}
			}
		})
	}
}
