package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// checkFusedLikeAggregate reduces aggs with AggregateFused (sequentially
// and over two workers) and each with Aggregate alone, and reports the
// first difference in bits, or "".
func checkFusedLikeAggregate(t *testing.T, aggs []FusedAgg, ids []int32, groups int) string {
	for _, p := range []Parallel{{}, {Workers: 2, MinRows: 1}} {
		mem := newMem(t)
		outs, err := AggregateFused(mem, aggs, nil, ids, groups, p)
		if err != nil {
			return fmt.Sprintf("workers %d: %v", p.Workers, err)
		}
		for j, a := range aggs {
			want, err := Aggregate(mem, Plain(a.Fn), "agg", a.Arg, ids, groups)
			if err != nil {
				return fmt.Sprintf("aggregate %d (%s): %v", j, a.Fn, err)
			}
			checkArray(t, outs[j])
			if !arrow.TypeEqual(outs[j].DataType(), want.DataType()) {
				return fmt.Sprintf("aggregate %d (%s): type %s, want %s", j, a.Fn, outs[j].DataType(), want.DataType())
			}
			if got, w := cellsOf(outs[j]), cellsOf(want); !slices.Equal(got, w) {
				return fmt.Sprintf("workers %d, aggregate %d (%s): got %v, want %v", p.Workers, j, a.Fn, got, w)
			}
			want.Release()
		}
		releaseAll(outs)
	}
	return ""
}

func TestAggregateFused(t *testing.T) {
	// Three groups plus an empty fourth one (ids never name it).
	ids := i32s(0, 1, 0, 2, 1, 0)
	const groups = 4
	mem := newMem(t)
	f := func(vals ...any) arrow.Array { return build(t, mem, tF64, vals...) }
	inRowOrder := f(1e308, negZero, 1e308, 2.5, negZero, -1e308)
	firstKept := f(negZero, 1.0, 2.0, sNaN, 3.0, 4.0)
	nan := f(1.0, 1.0, payNaN, 1.0, 1.0, 3.0)
	infs := f(negZero, 1.0, posInf, posInf, 2.0, negInf)
	str := build(t, mem, tStr, "a", "b", "c", "d", "e", "f")
	ints := f(1, 2, 3, 4, 5, 6)
	defer releaseAll([]arrow.Array{inRowOrder, firstKept, nan, infs, str, ints})
	cases := []struct {
		name string
		aggs []FusedAgg
	}{
		{"len alone", []FusedAgg{{plan.FuncLen, nil}}},
		{"one sum", []FusedAgg{{plan.FuncSum, inRowOrder}, {plan.FuncLen, nil}}},
		{"sum and mean share a column", []FusedAgg{{plan.FuncSum, firstKept}, {plan.FuncMean, firstKept}, {plan.FuncCount, str}}},
		{"two", []FusedAgg{{plan.FuncMean, nan}, {plan.FuncSum, infs}}},
		{"three", []FusedAgg{{plan.FuncSum, nan}, {plan.FuncSum, infs}, {plan.FuncMean, inRowOrder}}},
		{"four", []FusedAgg{{plan.FuncSum, nan}, {plan.FuncSum, infs}, {plan.FuncMean, inRowOrder}, {plan.FuncSum, firstKept}}},
		{"five columns in two blocks", []FusedAgg{
			{plan.FuncSum, nan}, {plan.FuncLen, nil}, {plan.FuncSum, infs}, {plan.FuncMean, inRowOrder},
			{plan.FuncMean, firstKept}, {plan.FuncSum, ints}, {plan.FuncMean, nan},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if msg := checkFusedLikeAggregate(t, tc.aggs, ids, groups); msg != "" {
				t.Error(msg)
			}
		})
	}
	// The keyless aggregate over no rows: one group, len 0, sums null.
	empty := f()
	defer empty.Release()
	if msg := checkFusedLikeAggregate(t, []FusedAgg{{plan.FuncSum, empty}, {plan.FuncMean, empty}, {plan.FuncLen, nil}}, OneGroup(0), 1); msg != "" {
		t.Errorf("no rows: %s", msg)
	}
}

func TestAggregateFusedErrors(t *testing.T) {
	mem := newMem(t)
	fl := build(t, mem, tF64, 1.0, 2.0)
	withNull := build(t, mem, tF64, 1.0, nil)
	ints := build(t, mem, tI64, 1, 2)
	defer releaseAll([]arrow.Array{fl, withNull, ints})
	for name, tc := range map[string]struct {
		aggs []FusedAgg
		ids  []int32
	}{
		"id out of range":   {[]FusedAgg{{plan.FuncSum, fl}}, i32s(0, 2)},
		"negative id":       {[]FusedAgg{{plan.FuncSum, fl}}, i32s(0, -1)},
		"length mismatch":   {[]FusedAgg{{plan.FuncSum, fl}}, i32s(0)},
		"a null":            {[]FusedAgg{{plan.FuncSum, withNull}}, i32s(0, 0)},
		"an integer sum":    {[]FusedAgg{{plan.FuncSum, ints}}, i32s(0, 0)},
		"min":               {[]FusedAgg{{plan.FuncMin, fl}}, i32s(0, 0)},
		"count with a null": {[]FusedAgg{{plan.FuncCount, withNull}}, i32s(0, 0)},
	} {
		if outs, err := AggregateFused(mem, tc.aggs, nil, tc.ids, 2, Parallel{}); err == nil {
			releaseAll(outs)
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestPropAggregateFused: any mix of fusable aggregates over float columns
// drawn from the special values (NaN payloads, zeros, infinities), some
// sharing a column, gives each aggregate's bits alone.
func TestPropAggregateFused(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	gen := func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Int63(), gopter.NoShrinker)
	}
	props.Property("fused == one at a time", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewSource(seed))
		n := rng.Intn(40)
		if rng.Intn(6) == 0 {
			n = 1000 + rng.Intn(3000)
		}
		groups := 1 + rng.Intn(6)
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(rng.Intn(groups))
		}
		mem := newMem(t)
		var cols []arrow.Array
		for range 1 + rng.Intn(6) {
			cols = append(cols, genCol(rng, tF64, n, 0, 1+rng.Intn(len(poolOf(tF64)))).array(t, mem))
		}
		defer releaseAll(cols)
		var aggs []FusedAgg
		for range 1 + rng.Intn(9) {
			switch r := rng.Intn(8); {
			case r == 0:
				aggs = append(aggs, FusedAgg{plan.FuncLen, nil})
			case r == 1:
				aggs = append(aggs, FusedAgg{plan.FuncCount, cols[rng.Intn(len(cols))]})
			case r < 5:
				aggs = append(aggs, FusedAgg{plan.FuncSum, cols[rng.Intn(len(cols))]})
			default:
				aggs = append(aggs, FusedAgg{plan.FuncMean, cols[rng.Intn(len(cols))]})
			}
		}
		return checkFusedLikeAggregate(t, aggs, ids, groups)
	}, gen))
	props.TestingRun(t)
}

// BenchmarkAggregateFused is Q1's reductions over its four groups (two
// one-letter flags): five float columns, four sums and three means (two
// of them over summed columns) and a len, fused ("fused") and one at a
// time as before ("separate").
func BenchmarkAggregateFused(b *testing.B) {
	ids, first, err := GroupIDs([]arrow.Array{flagStrings(benchRows, "ANR"), flagStrings(benchRows, "FO")})
	if err != nil {
		b.Fatal(err)
	}
	var cols []arrow.Array
	for k := range 5 {
		cols = append(cols, benchFloat64(benchRows, int64(100+k)))
	}
	defer releaseAll(cols)
	aggs := []FusedAgg{
		{plan.FuncSum, cols[0]}, {plan.FuncSum, cols[1]}, {plan.FuncSum, cols[2]}, {plan.FuncSum, cols[3]},
		{plan.FuncMean, cols[0]}, {plan.FuncMean, cols[1]}, {plan.FuncMean, cols[4]}, {plan.FuncLen, nil},
	}
	b.Run("fused", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			outs, err := AggregateFused(benchMem, aggs, nil, ids, len(first), Parallel{})
			if err != nil {
				b.Fatal(err)
			}
			releaseAll(outs)
		}
		perRow(b, benchRows)
	})
	b.Run("separate", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			for _, a := range aggs {
				out, err := Aggregate(benchMem, Plain(a.Fn), "agg", a.Arg, ids, len(first))
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		}
		perRow(b, benchRows)
	})
}

// TestPropSelected: grouping rows sel of some keys (GroupSelected) and
// reducing rows sel of some arguments (AggregateFused with sel) give the
// ids, first rows and result bits of gathering those rows first, for any
// selection (empty, repeated rows, any order): one-letter flags with
// nulls and the empty string, longer strings, integers.
func TestPropSelected(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	gen := func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Int63(), gopter.NoShrinker)
	}
	props.Property("through sel == gathered", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewSource(seed))
		n := rng.Intn(30)
		if rng.Intn(6) == 0 {
			n = 1000 + rng.Intn(3000)
		}
		mem := newMem(t)
		flags := func() tcol {
			c := tcol{dt: tStr, vals: make([]any, n)}
			for i := range c.vals {
				if rng.Intn(8) > 0 {
					c.vals[i] = []string{"A", "R", "", "\xff"}[rng.Intn(4)]
				}
			}
			return c
		}
		var keys []arrow.Array
		for range 1 + rng.Intn(3) {
			var c tcol
			switch rng.Intn(4) {
			case 0:
				c = genCol(rng, tStr, n, 0.1, 3)
			case 1:
				c = genCol(rng, tI64, n, 0.1, 4)
			default:
				c = flags()
			}
			keys = append(keys, c.array(t, mem))
		}
		defer releaseAll(keys)
		sel := []int32{} // not nil: AggregateFused reads nil as every row
		if n > 0 {
			for range rng.Intn(n + 1) {
				sel = append(sel, int32(rng.Intn(n)))
			}
			if rng.Intn(2) == 0 {
				slices.Sort(sel)
			}
		}
		g, err := GroupSelected(mem, keys, sel, Parallel{Workers: 1 + rng.Intn(2), MinRows: 1})
		if err != nil {
			return err.Error()
		}
		var taken []arrow.Array
		defer func() { releaseAll(taken) }()
		for _, k := range keys {
			tk, err := Take(mem, k, sel)
			if err != nil {
				return err.Error()
			}
			taken = append(taken, tk)
		}
		ids, first, err := GroupIDs(taken)
		if err != nil {
			return err.Error()
		}
		if !slices.Equal(g.IDs, ids) || !slices.Equal(g.First, first) {
			return fmt.Sprintf("ids %v first %v, want %v %v", g.IDs, g.First, ids, first)
		}
		if n == 0 {
			return ""
		}
		var cols []arrow.Array
		for range 1 + rng.Intn(6) {
			cols = append(cols, genCol(rng, tF64, n, 0, 1+rng.Intn(len(poolOf(tF64)))).array(t, mem))
		}
		defer releaseAll(cols)
		aggs := []FusedAgg{{plan.FuncLen, nil}}
		for k, c := range cols {
			aggs = append(aggs, FusedAgg{[]plan.Func{plan.FuncSum, plan.FuncMean}[k%2], c})
		}
		aggs = append(aggs, FusedAgg{plan.FuncMean, cols[0]}, FusedAgg{plan.FuncCount, cols[0]})
		outs, err := AggregateFused(mem, aggs, sel, g.IDs, g.Groups(), Parallel{})
		if err != nil {
			return err.Error()
		}
		defer releaseAll(outs)
		for j, a := range aggs {
			arg := a.Arg
			if arg != nil {
				if arg, err = Take(mem, arg, sel); err != nil {
					return err.Error()
				}
				defer arg.Release()
			}
			want, err := Aggregate(mem, Plain(a.Fn), "agg", arg, ids, len(first))
			if err != nil {
				return err.Error()
			}
			defer want.Release()
			if got, w := cellsOf(outs[j]), cellsOf(want); !slices.Equal(got, w) {
				return fmt.Sprintf("aggregate %d (%s): got %v, want %v", j, a.Fn, got, w)
			}
		}
		return ""
	}, gen))
	props.TestingRun(t)
}

// BenchmarkGroupSelected is Q1's grouping over a filter's selection (98%
// of the rows, ascending): the two one-letter keys grouped through it
// ("selected") and gathered then grouped as before ("gathered").
func BenchmarkGroupSelected(b *testing.B) {
	keys := []arrow.Array{flagStrings(benchRows, "ANR"), flagStrings(benchRows, "FO")}
	defer releaseAll(keys)
	rng := rand.New(rand.NewSource(10))
	var sel []int32
	for i := range benchRows {
		if rng.Intn(50) > 0 {
			sel = append(sel, int32(i))
		}
	}
	b.Run("selected", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			g, err := GroupSelected(benchMem, keys, sel, Parallel{})
			if err != nil {
				b.Fatal(err)
			}
			g.Close()
		}
		perRow(b, len(sel))
	})
	b.Run("gathered", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			var taken []arrow.Array
			for _, k := range keys {
				t, err := Take(benchMem, k, sel)
				if err != nil {
					b.Fatal(err)
				}
				taken = append(taken, t)
			}
			if _, _, err := GroupIDs(taken); err != nil {
				b.Fatal(err)
			}
			releaseAll(taken)
		}
		perRow(b, len(sel))
	})
}
