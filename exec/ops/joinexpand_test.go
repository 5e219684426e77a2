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

// TestPropExpandJoin: the pairs of a join whose left rows are rows sel of
// a base, expanded from the base's inner-join pairs (ExpandJoin), are the
// pairs of joining the gathered left keys (JoinIndices), for inner, left,
// semi and anti joins, any selection (repeats, any order, rows of nulls)
// and keys of one or two columns with nulls and duplicates on both sides.
func TestPropExpandJoin(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 300))
	gen := func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Int63(), gopter.NoShrinker)
	}
	props.Property("expanded == joined gathered", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewSource(seed))
		mem := newMem(t)
		nb, nr := rng.Intn(12), rng.Intn(12)
		var base, right []arrow.Array
		for range 1 + rng.Intn(2) {
			dt := []arrow.DataType{tI64, tStr}[rng.Intn(2)]
			base = append(base, genCol(rng, dt, nb, 0.15, 3).array(t, mem))
			right = append(right, genCol(rng, dt, nr, 0.15, 3).array(t, mem))
		}
		defer releaseAll(base)
		defer releaseAll(right)
		sel := []int32{}
		for range rng.Intn(40) {
			r := int32(-1)
			if nb > 0 && rng.Intn(8) > 0 {
				r = int32(rng.Intn(nb))
			}
			sel = append(sel, r)
		}
		gathered := make([]arrow.Array, 0, len(base))
		defer func() { releaseAll(gathered) }()
		for _, b := range base {
			g, err := Take(mem, b, sel)
			if err != nil {
				return err.Error()
			}
			gathered = append(gathered, g)
		}
		bl, br, err := JoinIndices(plan.InnerJoin, base, right)
		if err != nil {
			return err.Error()
		}
		for _, how := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin} {
			li, ri, err := ExpandJoin(how, bl, br, nb, sel)
			if err != nil {
				return fmt.Sprintf("%s: %v", how, err)
			}
			wl, wr, err := JoinIndices(how, gathered, right)
			if err != nil {
				return fmt.Sprintf("%s: %v", how, err)
			}
			if !slices.Equal(li, wl) || (how == plan.InnerJoin || how == plan.LeftJoin) && !slices.Equal(ri, wr) {
				return fmt.Sprintf("%s: pairs %v %v, want %v %v", how, li, ri, wl, wr)
			}
		}
		return ""
	}, gen))
	props.TestingRun(t)
}

func TestExpandJoinErrors(t *testing.T) {
	for name, call := range map[string]func() error{
		"a right join": func() error { _, _, err := ExpandJoin(plan.RightJoin, nil, nil, 1, nil); return err },
		"pair lengths": func() error { _, _, err := ExpandJoin(plan.InnerJoin, i32s(0), nil, 1, nil); return err },
		"base row out of range": func() error {
			_, _, err := ExpandJoin(plan.InnerJoin, i32s(1), i32s(0), 1, i32s(0))
			return err
		},
		"pairs out of order": func() error {
			_, _, err := ExpandJoin(plan.InnerJoin, i32s(1, 0), i32s(0, 0), 2, i32s(0))
			return err
		},
		"selected row out of range": func() error {
			_, _, err := ExpandJoin(plan.InnerJoin, i32s(0), i32s(0), 1, i32s(1))
			return err
		},
	} {
		if call() == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// BenchmarkExpandJoin is Q11's second join: 1M left rows gathered from
// 10,000 base rows (a supplier's nation key), joined to one right key
// (MOZAMBIQUE's), "expand" matching the base rows and expanding, "gather"
// joining the gathered keys as before.
func BenchmarkExpandJoin(b *testing.B) {
	const baseRows = 10_000
	base := benchInt64(baseRows, 25, 0)
	defer base.Release()
	rng := rand.New(rand.NewSource(9))
	sel := make([]int32, benchRows)
	for i := range sel {
		sel[i] = int32(rng.Intn(baseRows))
	}
	right := benchInt64(1, 25, 0)
	defer right.Release()
	b.Run("expand", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			bl, br, err := JoinIndices(plan.InnerJoin, []arrow.Array{base}, []arrow.Array{right})
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := ExpandJoin(plan.InnerJoin, bl, br, baseRows, sel); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b, benchRows)
	})
	b.Run("gather", func(b *testing.B) {
		resetTimer(b)
		for range b.N {
			g, err := Take(benchMem, base, sel)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := JoinIndices(plan.InnerJoin, []arrow.Array{g}, []arrow.Array{right}); err != nil {
				b.Fatal(err)
			}
			g.Release()
		}
		perRow(b, benchRows)
	})
}
