package ops

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestTake(t *testing.T) {
	long := strings.Repeat("0123456789", 10)
	cases := []struct {
		name string
		dt   arrow.DataType
		vals []any
		idx  []int32
		want []any
	}{
		{"int64", tI64, []any{minInt64, nil, maxInt64, 0}, i32s(2, -1, 1, 0, 0, 3), []any{maxInt64, nil, nil, minInt64, minInt64, 0}},
		{"int32 no nulls", tI32, []any{1, 2, 3}, i32s(2, 1, 0), []any{3, 2, 1}},
		{"float bits", tF64, []any{negZero, sNaN, hwNaN, nil}, i32s(1, 0, 2, 3, -1), []any{sNaN, negZero, hwNaN, nil, nil}},
		{"string", tStr, []any{"", "ab", nil, "é"}, i32s(3, 0, 1, 2, -1, 1), []any{"é", "", "ab", nil, nil, "ab"}},
		{"bool", tBool, []any{true, false, nil}, i32s(0, 1, 2, -1, 0, 0, 1, 0, 1), []any{true, false, nil, nil, true, true, false, true, false}},
		{"string buffer growth", tStr, []any{"", "", "", long}, i32s(3, 3, 0, 3, 3, 3, 3), []any{long, long, "", long, long, long, long}},
		{"empty index", tStr, []any{"a"}, i32s(), []any{}},
		{"empty input all -1", tI64, []any{}, i32s(-1, -1), []any{nil, nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := newMem(t)
			a := build(t, mem, tc.dt, tc.vals...)
			defer a.Release()
			out, err := Take(mem, a, tc.idx)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if got, want := cellsOf(out), expectCells(tc.dt, tc.want...); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			checkArray(t, out)
			b, err := Broadcast(mem, a, tc.idx)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Release()
			if !slices.Equal(cellsOf(b), cellsOf(out)) {
				t.Error("Broadcast differs from Take")
			}
		})
	}
}

func TestTakeSliced(t *testing.T) {
	mem := newMem(t)
	for _, dt := range []arrow.DataType{tI64, tF64, tStr, tBool, tI32} {
		var vals []any
		for i := 0; i < 20; i++ {
			switch {
			case i%3 == 0:
				vals = append(vals, nil)
			case dt == tStr:
				vals = append(vals, string(rune('a'+i)))
			case dt == tBool:
				vals = append(vals, i%2 == 0)
			case dt == tF64:
				vals = append(vals, float64(i)+0.5)
			default:
				vals = append(vals, i)
			}
		}
		a := build(t, mem, dt, vals...)
		s := sliceArray(a, 5, 17)
		out, err := Take(mem, s, i32s(0, 1, 2, 11, -1, 7))
		if err != nil {
			t.Fatal(err)
		}
		want := expectCells(dt, vals[5], vals[6], vals[7], vals[16], nil, vals[12])
		if got := cellsOf(out); !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", dt, got, want)
		}
		out.Release()
		s.Release()
		a.Release()
	}
}

func TestTakeErrors(t *testing.T) {
	mem := newMem(t)
	for _, dt := range []arrow.DataType{tI64, tF64, tStr, tBool} {
		a := build(t, mem, dt)
		for _, idx := range [][]int32{{0}, {-2}, {1, -1}} {
			if out, err := Take(mem, a, idx); err == nil {
				out.Release()
				t.Errorf("%s: index %v on an empty array: want an error", dt, idx)
			}
		}
		a.Release()
	}
	if _, err := Take(mem, nil, nil); err == nil {
		t.Error("nil array: want an error")
	}
}

// record builds a record from columns named c0, c1, ...
func record(cols ...arrow.Array) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: "c" + string(rune('0'+i)), Type: c.DataType(), Nullable: true}
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
}

// recCells reads every column of a record.
func recCells(r arrow.RecordBatch) [][]any {
	out := make([][]any, r.NumCols())
	for i := range out {
		out[i] = cellsOf(r.Column(i))
	}
	return out
}

func TestFilter(t *testing.T) {
	mem := newMem(t)
	n := 150 // more than two bitmap words, and a partial last word
	vals := make([]any, n)
	m1 := make([]any, n)
	m2 := make([]any, n)
	var want []int32
	for i := range vals {
		vals[i] = i
		switch i % 5 {
		case 0:
			m1[i] = nil
		case 1:
			m1[i] = false
		default:
			m1[i] = true
		}
		m2[i] = i%7 != 0
		if i%11 == 0 {
			m2[i] = nil
		}
		if m1[i] == true && m2[i] == true {
			want = append(want, int32(i))
		}
	}
	a := build(t, mem, tI64, vals...)
	defer a.Release()
	b1 := build(t, mem, tBool, m1...)
	defer b1.Release()
	b2 := build(t, mem, tBool, m2...)
	defer b2.Release()
	sel, err := SelectTrue(n, b1, b2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel, want) {
		t.Errorf("SelectTrue = %v, want %v", sel, want)
	}
	// Sliced masks (a bit offset that is not a multiple of 8).
	s1, s2 := sliceArray(b1, 3, 140), sliceArray(b2, 3, 140)
	defer s1.Release()
	defer s2.Release()
	sel, err = SelectTrue(137, s1, s2)
	if err != nil {
		t.Fatal(err)
	}
	var wantS []int32
	for _, w := range want {
		if w >= 3 && w < 140 {
			wantS = append(wantS, w-3)
		}
	}
	if !slices.Equal(sel, wantS) {
		t.Errorf("sliced SelectTrue = %v, want %v", sel, wantS)
	}
	// Byte-aligned slice.
	s3 := sliceArray(b1, 8, 100)
	defer s3.Release()
	sel, err = SelectTrue(92, s3)
	if err != nil {
		t.Fatal(err)
	}
	var wantA []int32
	for i := 8; i < 100; i++ {
		if m1[i] == true {
			wantA = append(wantA, int32(i-8))
		}
	}
	if !slices.Equal(sel, wantA) {
		t.Errorf("aligned-slice SelectTrue = %v, want %v", sel, wantA)
	}

	rec := record(a)
	defer rec.Release()
	out, err := FilterRecord(mem, rec, b1, b2)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.NumRows() != int64(len(want)) {
		t.Fatalf("FilterRecord kept %d rows, want %d", out.NumRows(), len(want))
	}
	for j, w := range want {
		if got := out.Column(0).(*array.Int64).Value(j); got != int64(w) {
			t.Fatalf("row %d = %d, want %d", j, got, w)
		}
	}
	// Keeping everything returns the input itself.
	all, err := FilterRecord(mem, rec)
	if err != nil {
		t.Fatal(err)
	}
	if all != rec {
		t.Error("FilterRecord with no masks should return the input")
	}
	all.Release()

	if _, err := SelectTrue(n, a); err == nil {
		t.Error("an int64 mask: want an error")
	}
	if _, err := SelectTrue(n+1, b1); err == nil {
		t.Error("a mask of the wrong length: want an error")
	}
	if got, err := SelectTrue(0); err != nil || len(got) != 0 {
		t.Errorf("SelectTrue(0) = %v, %v", got, err)
	}
}

func TestSliceAndConcatRecords(t *testing.T) {
	mem := newMem(t)
	a := build(t, mem, tI64, 0, 1, 2, 3, 4)
	defer a.Release()
	s := build(t, mem, tStr, "a", nil, "c", "d", "e")
	defer s.Release()
	rec := record(a, s)
	defer rec.Release()
	for _, tc := range []struct {
		off, n int64
		want   []any
	}{
		{0, 2, []any{int64(0), int64(1)}},
		{3, 10, []any{int64(3), int64(4)}},
		{5, 1, []any{}},
		{9, 1, []any{}},
		{-3, 1, []any{int64(0)}},
		{1, -1, []any{}},
	} {
		sl := SliceRecord(rec, tc.off, tc.n)
		if got := cellsOf(sl.Column(0)); !slices.Equal(got, tc.want) {
			t.Errorf("slice(%d, %d) = %v, want %v", tc.off, tc.n, got, tc.want)
		}
		sl.Release()
	}
	s1 := SliceRecord(rec, 3, 2)
	defer s1.Release()
	s2 := SliceRecord(rec, 0, 2)
	defer s2.Release()
	cat, err := ConcatRecords(mem, rec.Schema(), []arrow.RecordBatch{s1, rec, s2})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Release()
	got := recCells(cat)
	want := [][]any{
		expectCells(tI64, 3, 4, 0, 1, 2, 3, 4, 0, 1),
		expectCells(tStr, "d", "e", "a", nil, "c", "d", "e", "a", nil),
	}
	for c := range want {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("concat column %d = %v, want %v", c, got[c], want[c])
		}
	}
	empty, err := ConcatRecords(mem, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if empty.NumRows() != 0 || empty.NumCols() != 2 {
		t.Errorf("empty concat: %d rows %d cols", empty.NumRows(), empty.NumCols())
	}
	empty.Release()
	other := record(s, a)
	defer other.Release()
	if _, err := ConcatRecords(mem, rec.Schema(), []arrow.RecordBatch{rec, other}); err == nil {
		t.Error("mismatched column types: want an error")
	}
}

func TestTakeRecord(t *testing.T) {
	mem := newMem(t)
	a := build(t, mem, tI64, 10, 11, 12)
	defer a.Release()
	s := build(t, mem, tStr, "x", "y", nil)
	defer s.Release()
	rec := record(a, s)
	defer rec.Release()
	out, err := TakeRecord(mem, rec, i32s(2, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := recCells(out)
	if !slices.Equal(got[0], expectCells(tI64, 12, nil, 10)) || !slices.Equal(got[1], expectCells(tStr, nil, nil, "x")) {
		t.Errorf("got %v", got)
	}
	if _, err := TakeRecord(mem, rec, i32s(3)); err == nil {
		t.Error("out of range: want an error")
	}
}
