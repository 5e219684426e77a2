package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// smallParallels are the ways the small-build tests split the probe rows:
// sequentially, and in partitions of 8 to a few dozen rows (the probe is
// cut at different places, so a partition can hold no match, one, or
// end right before or after one).
var smallParallels = []Parallel{{}, {Workers: 3, MinRows: 8}, {Workers: 2, MinRows: 24}}

// checkSmallJoin runs every join kind over c, in memory with each of
// smallParallels and under a memory limit that fits, and compares the
// pairs with the nested-loop reference. small says whether the inner join
// must take the small-build path, and every kind is checked to take it
// exactly when it applies, so that a case meant for it does not silently
// test the general path instead.
func checkSmallJoin(t *testing.T, c joinCase, small bool) string {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var left, right []arrow.Array
	for k := range c.left {
		left = append(left, c.left[k].array(t, mem))
		right = append(right, c.right[k].array(t, mem))
	}
	defer releaseAll(left)
	defer releaseAll(right)
	if applies := smallJoinApplies(plan.InnerJoin, left, right); applies != small {
		return fmt.Sprintf("inner: smallJoinApplies = %v, want %v", applies, small)
	}
	for _, kind := range allKinds {
		// The kinds the path serves, with the listed side (the left one of
		// a right join) short and one key column that is not a string.
		list := c.right
		if kind == plan.RightJoin {
			list = c.left
		}
		want := kind != plan.FullJoin && len(c.left) == 1 && len(list[0].vals) <= smallBuildRows && c.left[0].dt.ID() != arrow.STRING
		if applies := smallJoinApplies(kind, left, right); applies != want {
			return fmt.Sprintf("%s: smallJoinApplies = %v, want %v", joinName(kind), applies, want)
		}
		wl, wr := refJoin(kind, c)
		for _, p := range smallParallels {
			li, ri, err := JoinIndicesParallel(kind, left, right, p)
			if err != nil {
				return fmt.Sprintf("%s %+v: %v", joinName(kind), p, err)
			}
			if !slices.Equal(li, wl) || !slices.Equal(ri, wr) || (ri == nil) != (wr == nil) {
				return fmt.Sprintf("%s %+v: got %v %v\nwant %v %v", joinName(kind), p, head(li), head(ri), head(wl), head(wr))
			}
		}
		s, _, _ := newSpill(t, 1<<30, 0)
		li, ri, held, err := JoinIndicesLimited(s, kind, left, right, Parallel{Workers: 2, MinRows: 8})
		if err != nil {
			return fmt.Sprintf("%s limited: %v", joinName(kind), err)
		}
		if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
			return fmt.Sprintf("%s limited: got %v %v\nwant %v %v", joinName(kind), head(li), head(ri), head(wl), head(wr))
		}
		// The output's reservation is the general path's: 8 bytes per
		// pair and one spare pair, or 4 bytes per semi / anti row.
		wantHeld := 8 * int64(len(li)+1)
		if kind == plan.SemiJoin || kind == plan.AntiJoin {
			wantHeld = 4 * int64(len(li))
		}
		if held != wantHeld || s.Budget.Used() != held {
			return fmt.Sprintf("%s limited: held %d, budget used %d, want %d", joinName(kind), held, s.Budget.Used(), wantHeld)
		}
		s.Budget.Release(held)
	}
	return ""
}

// col is a tcol of values of one type; untyped integer constants become
// the column's type, as the reference compares typed values.
func col(dt arrow.DataType, vals ...any) tcol {
	for i, v := range vals {
		if n, isInt := v.(int); isInt {
			switch dt.ID() {
			case arrow.INT64:
				vals[i] = int64(n)
			case arrow.INT32:
				vals[i] = int32(n)
			case arrow.FLOAT64:
				vals[i] = float64(n)
			}
		}
	}
	return tcol{dt: dt, vals: vals}
}

// repeat is n copies of the values, in turn.
func repeat(n int, vals ...any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = vals[i%len(vals)]
	}
	return out
}

// TestSmallJoin: the small-build path (a listed side of at most
// smallBuildRows rows, one word key) gives the nested-loop reference's
// pairs for every kind, on the shapes a wrong fast path would get wrong;
// the cases just outside it (9 build rows, two keys, string keys) take the
// general path and agree too.
func TestSmallJoin(t *testing.T) {
	eight := col(tI64, 7, -3, 0, 1<<40, 5, 6, 1, 2)
	nine := col(tI64, 7, -3, 0, 1<<40, 5, 6, 1, 2, 9)
	probe := col(tI64, repeat(50, 7, 2, nil, 0, -3, 8, 1<<40, 9, 6, 7, 5, nil, 1)...)
	cases := []struct {
		name        string
		left, right []tcol
		small       bool
	}{
		{"one build row", []tcol{col(tI64, 3, 7, 7, 1, 7)}, []tcol{col(tI64, 7)}, true},
		{"no match", []tcol{col(tI64, 3, 1, 2)}, []tcol{col(tI64, 7)}, true},
		// A null's slot holds 0 in Arrow: a build key 0 must not match it.
		{"null probe keys under a key of 0", []tcol{col(tI64, 0, nil, 0, nil, 5)}, []tcol{col(tI64, 0)}, true},
		{"null build keys", []tcol{col(tI64, 0, nil, 7, 3)}, []tcol{col(tI64, nil, 7, nil, 0)}, true},
		{"all-null build", []tcol{col(tI64, 0, nil, 7)}, []tcol{col(tI64, nil, nil)}, true},
		{"empty build", []tcol{col(tI64, 0, nil, 7)}, []tcol{col(tI64)}, true},
		{"empty probe", []tcol{col(tI64)}, []tcol{col(tI64, 7, 7)}, true},
		{"empty both", []tcol{col(tI64)}, []tcol{col(tI64)}, true},
		{"duplicate build keys", []tcol{col(tI64, 7, 3, nil, 7, 9, 3)}, []tcol{col(tI64, 7, 3, 7, nil, 3, 7)}, true},
		{"one key, many build rows", []tcol{col(tI64, 7, 3, 7)}, []tcol{col(tI64, repeat(8, 7)...)}, true},
		{"eight distinct keys", []tcol{probe}, []tcol{eight}, true},
		{"nine build rows (general path)", []tcol{probe}, []tcol{nine}, false},
		{"int32 probe, int64 build", []tcol{col(tI32, 7, -1, nil, 2147483647)}, []tcol{col(tI64, 2147483647, 7, 4294967295)}, true},
		{"int probe, float build", []tcol{col(tI64, 1, 2, 0, 9007199254740993, nil)}, []tcol{col(tF64, 2.0, 1.5, negZero, 9007199254740992.0)}, true},
		{"NaNs and zeros", []tcol{col(tF64, qNaN, 0.0, negZero, nil, hwNaN, posInf, sNaN)}, []tcol{col(tF64, hwNaN, negZero, posInf)}, true},
		{"null float probe keys under 0.0", []tcol{col(tF64, nil, 0.0, nil)}, []tcol{col(tF64, 0.0)}, true},
		{"bools", []tcol{col(tBool, true, nil, false, true)}, []tcol{col(tBool, false, true, true, nil)}, true},
		{"bool null under false", []tcol{col(tBool, nil, false, nil)}, []tcol{col(tBool, false)}, true},
		{"extreme keys", []tcol{col(tI64, minInt64, maxInt64, 0, -1)}, []tcol{col(tI64, maxInt64, minInt64, -1)}, true},
		{"two key columns (general path)", []tcol{col(tI64, 1, 1, 2, nil), col(tI64, 1, 2, 1, 1)}, []tcol{col(tI64, 1, 2), col(tI64, 2, 1)}, false},
		{"string keys (general path)", []tcol{col(tStr, "a", "b", nil, "a")}, []tcol{col(tStr, "a")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if msg := checkSmallJoin(t, joinCase{left: tc.left, right: tc.right}, tc.small); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestSmallJoinProbeSizes: one build row against probes of 0 to 10,000
// rows (partitions of many sizes; more than hitChunk matches in one
// partition), matching every row, none, or every third.
func TestSmallJoinProbeSizes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, hitChunk + 1, 10000} {
		for _, pattern := range [][]any{{7}, {1}, {7, nil, 3}} {
			c := joinCase{left: []tcol{col(tI64, repeat(n, pattern...)...)}, right: []tcol{col(tI64, 7)}}
			if n == 0 {
				c.left[0].vals = nil
			}
			if msg := checkSmallJoin(t, c, true); msg != "" {
				t.Errorf("%d rows of %v: %s", n, pattern, msg)
			}
		}
	}
}

// genSmallJoinCase draws a join with one key column and a build side of 0
// to smallBuildRows+1 rows (the last one past the small path), both sides
// from one small domain so that keys repeat and match.
func genSmallJoinCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		tp := joinTypePairs[rng.Intn(len(joinTypePairs))]
		nullP := []float64{0, 0.1, 0.4}[rng.Intn(3)]
		dom := 1 + rng.Intn(8)
		nl := rng.Intn(200)
		nr := rng.Intn(smallBuildRows + 2)
		c := joinCase{left: []tcol{genCol(rng, tp[0], nl, nullP, dom)}, right: []tcol{genCol(rng, tp[1], nr, nullP, dom)}}
		return gopter.NewGenResult(c, gopter.NoShrinker)
	}
}

// TestPropSmallJoin: random small-build joins equal the reference for
// every kind, split or not, in memory and under a memory limit.
func TestPropSmallJoin(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	props.Property("the small-build path equals the nested-loop reference", prop.ForAll(
		func(c joinCase) string {
			small := len(c.right[0].vals) <= smallBuildRows && c.left[0].dt.ID() != arrow.STRING
			return checkSmallJoin(t, c, small)
		}, genSmallJoinCase()))
	props.TestingRun(t)
}

// TestSmallBuildTableSeparatesKeys: the perfect table of newSmallBuild
// gives every one of up to smallBuildRows keys its own slot, for keys
// that a weak hash would put together (multiples of the table size,
// neighbours, extremes), and finds each key's id and no other word's.
func TestSmallBuildTableSeparatesKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sets := [][]int64{
		{0, 32, 64, 96, 128, 160, 192, 224},
		{0, 1 << 59, 2 << 59, 3 << 59, 4 << 59, 5 << 59, 6 << 59, 7 << 59},
		{minInt64, maxInt64, 0, -1, 1, 2, 3, 4},
		{5, 6},
	}
	for i := 0; i < 200; i++ {
		keys := make([]int64, 2+rng.Intn(smallBuildRows-1))
		for j := range keys {
			keys[j] = rng.Int63() - rng.Int63()
		}
		sets = append(sets, keys)
	}
	for _, keys := range sets {
		c := &keyCol{dom: domInt, words: keys, n: len(keys)}
		b, ok := newSmallBuild(c)
		if !ok {
			t.Errorf("%v: no perfect table", keys)
			continue
		}
		for id, k := range keys {
			if got := b.id(k); got != id {
				t.Errorf("%v: id(%d) = %d, want %d", keys, k, got, id)
			}
			for _, d := range []int64{1, -1, 32, 1 << 59} {
				if w := k + d; !slices.Contains(keys, w) && b.id(w) != -1 {
					t.Errorf("%v: id(%d) = %d, want -1", keys, w, b.id(w))
				}
			}
		}
	}
}

// TestSmallJoinTemporalKeys: date and datetime keys compare by their
// integers on the small-build path as on the general one, and a null
// (whose slot holds 0) does not match a key of 0.
func TestSmallJoinTemporalKeys(t *testing.T) {
	mem := newMem(t)
	probe := []int64{5, 0, 7, 5, 0}
	probeValid := []bool{true, false, true, true, true}
	keys := []int64{5, 0}
	date := func(vals []int64, valid []bool) arrow.Array {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		for i, v := range vals {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Date32(v))
		}
		return b.NewArray()
	}
	stamp := func(vals []int64, valid []bool) arrow.Array {
		b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
		defer b.Release()
		for i, v := range vals {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Timestamp(v))
		}
		return b.NewArray()
	}
	want := map[plan.JoinKind][2][]int32{
		plan.InnerJoin: {i32s(0, 3, 4), i32s(0, 0, 1)},
		plan.LeftJoin:  {i32s(0, 1, 2, 3, 4), i32s(0, -1, -1, 0, 1)},
		plan.SemiJoin:  {i32s(0, 3, 4), nil},
		plan.AntiJoin:  {i32s(1, 2), nil},
	}
	for name, mk := range map[string]func([]int64, []bool) arrow.Array{"date": date, "datetime": stamp} {
		l, r := mk(probe, probeValid), mk(keys, nil)
		for kind, w := range want {
			left, right := []arrow.Array{l}, []arrow.Array{r}
			if !smallJoinApplies(kind, left, right) {
				t.Errorf("%s %s: the small-build path does not apply", name, joinName(kind))
			}
			li, ri, err := JoinIndices(kind, left, right)
			if err != nil {
				t.Fatalf("%s %s: %v", name, joinName(kind), err)
			}
			if !slices.Equal(li, w[0]) || !slices.Equal(ri, w[1]) || (ri == nil) != (w[1] == nil) {
				t.Errorf("%s %s: got %v %v, want %v %v", name, joinName(kind), li, ri, w[0], w[1])
			}
		}
		l.Release()
		r.Release()
	}
}
