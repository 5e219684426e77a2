package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestTakeRuns checks the block copies of runs of consecutive indices
// (runEnd) against a row-by-row gather: runs shorter and longer than
// minRunCopy, runs that end at the array's end, runs broken by -1, by a
// repeated or a descending index, and over a sliced input, for each
// gathered type, sequentially and split over partitions.
func TestTakeRuns(t *testing.T) {
	const n = 40
	run := func(from, k int) []int32 {
		out := make([]int32, k)
		for j := range out {
			out[j] = int32(from + j)
		}
		return out
	}
	cat := func(parts ...[]int32) []int32 { return slices.Concat(parts...) }
	cases := []struct {
		name string
		idx  []int32
	}{
		{"identity", run(0, n)},
		{"one long run in the middle", run(5, 20)},
		{"run to the end", run(n-minRunCopy, minRunCopy)},
		{"short runs", cat(run(0, minRunCopy-1), run(10, 2), run(20, 1))},
		{"runs broken by nulls", cat(run(0, 9), []int32{-1}, run(9, 12), []int32{-1, -1}, run(30, 10))},
		{"repeat breaks a run", cat(run(0, 10), run(9, 10))},
		{"descending", []int32{39, 38, 37, 36, 35, 34, 33, 32, 31, 30}},
		{"run then jump back", cat(run(20, 15), run(0, 15))},
		{"all null", []int32{-1, -1, -1}},
		{"empty", []int32{}},
	}
	rng := rand.New(rand.NewSource(7))
	for r := 0; r < 20; r++ {
		var idx []int32
		for len(idx) < 3*n {
			switch rng.Intn(4) {
			case 0:
				idx = append(idx, -1)
			case 1:
				idx = append(idx, int32(rng.Intn(n)))
			default:
				from := rng.Intn(n)
				idx = append(idx, run(from, 1+rng.Intn(n-from))...)
			}
		}
		cases = append(cases, struct {
			name string
			idx  []int32
		}{fmt.Sprintf("random %d", r), idx})
	}
	mem := newMem(t)
	for _, dt := range []arrow.DataType{tI64, tI32, tF64, tStr, tBool} {
		for _, nulls := range []bool{false, true} {
			vals := make([]any, n+3)
			for i := range vals {
				switch {
				case nulls && i%7 == 3:
				case dt == tStr:
					vals[i] = strings.Repeat("é", i%4) + fmt.Sprint(i) // varying widths
				case dt == tBool:
					vals[i] = i%3 == 0
				case dt == tF64:
					vals[i] = float64(i) + 0.25
				default:
					vals[i] = i
				}
			}
			whole := build(t, mem, dt, vals...)
			a := sliceArray(whole, 2, n+2) // rows 2..n+1 of vals
			for _, tc := range cases {
				want := make([]any, len(tc.idx))
				for j, i := range tc.idx {
					if i >= 0 {
						want[j] = vals[i+2]
					}
				}
				for _, p := range []Parallel{{}, {Workers: 3, MinRows: 1}} {
					out, err := TakeParallel(mem, a, tc.idx, p)
					if err != nil {
						t.Fatalf("%s nulls=%v %s: %v", dt, nulls, tc.name, err)
					}
					if got, w := cellsOf(out), expectCells(dt, want...); !slices.Equal(got, w) {
						t.Errorf("%s nulls=%v %s workers=%d: got %v, want %v", dt, nulls, tc.name, p.Workers, got, w)
					}
					checkArray(t, out)
					out.Release()
				}
			}
			a.Release()
			whole.Release()
		}
	}
}

// TestTakeRunErrors checks that a bad index inside or right after a run is
// reported at its own position, as the row-by-row gather reports it.
func TestTakeRunErrors(t *testing.T) {
	mem := newMem(t)
	for _, dt := range []arrow.DataType{tI64, tF64, tStr} {
		vals := make([]any, 20)
		for i := range vals {
			switch dt {
			case tStr:
				vals[i] = fmt.Sprint(i)
			case tF64:
				vals[i] = float64(i)
			default:
				vals[i] = i
			}
		}
		a := build(t, mem, dt, vals...)
		for _, tc := range []struct {
			idx  []int32
			want string
		}{
			{[]int32{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, "index 20 at position 10"},
			{[]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -2, 30}, "index -2 at position 10"},
			{[]int32{-1, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, "index 20 at position 9"},
		} {
			for _, p := range []Parallel{{}, {Workers: 3, MinRows: 1}} {
				out, err := TakeParallel(mem, a, tc.idx, p)
				if err == nil {
					out.Release()
					t.Errorf("%s %v: want an error", dt, tc.idx)
					continue
				}
				if want := "take: " + tc.want + " is out of range for 20 rows"; err.Error() != want {
					t.Errorf("%s %v: got %q, want %q", dt, tc.idx, err, want)
				}
			}
		}
		a.Release()
	}
}
