package rules

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// planGen builds random, mostly well-typed plans over the test tables from a
// seed: filters with total, partial and non-deterministic conjuncts,
// projections, with_columns (windows too), sorts, limits, slices,
// distinct, aggregates, joins, unions and extensions.
type planGen struct {
	rng *rand.Rand
}

// colsOf returns the names of s's columns of type t.
func colsOf(s plan.Schema, t plan.Type) []string {
	var out []string
	for i := 0; i < s.Len(); i++ {
		if f := s.Field(i); f.Type == t {
			out = append(out, f.Name)
		}
	}
	return out
}

func (g *planGen) pick(xs []string) string { return xs[g.rng.Intn(len(xs))] }

// intExpr is a random int64 expression over the schema.
func (g *planGen) intExpr(s plan.Schema) plan.E {
	ints := colsOf(s, plan.Int64)
	if len(ints) == 0 {
		return lit(int64(g.rng.Intn(5)))
	}
	a := col(g.pick(ints))
	switch g.rng.Intn(7) {
	case 0:
		return lit(int64(g.rng.Intn(5) - 2))
	case 1:
		return a.Add(lit(int64(1)))
	case 2:
		return a.Div(col(g.pick(ints)))
	case 3:
		return plan.CallUDF(incWrap, a)
	case 4:
		return plan.CallUDF(ndSeq, a)
	case 5:
		return plan.CallUDF(checkedX, a)
	}
	return a
}

func (g *planGen) predicate(s plan.Schema) plan.E {
	if bools := colsOf(s, plan.Bool); len(bools) > 0 && g.rng.Intn(3) == 0 {
		return col(g.pick(bools))
	}
	return g.intExpr(s).Gt(lit(int64(g.rng.Intn(3))))
}

func (g *planGen) source() plan.Frame {
	switch g.rng.Intn(4) {
	case 0:
		return scan(src)
	case 1:
		return scan(tAB)
	}
	return scan(tT)
}

func (g *planGen) build(depth int) plan.Frame {
	f := g.source()
	for i := 0; i < depth; i++ {
		r, err := plan.Resolve(f.Node())
		if err != nil {
			return f
		}
		s := r.Schema()
		names := s.Names()
		ints := colsOf(s, plan.Int64)
		next := f
		switch g.rng.Intn(13) {
		case 0, 1, 2:
			preds := []plan.E{g.predicate(s)}
			if g.rng.Intn(2) == 0 {
				preds = append(preds, g.predicate(s))
			}
			next = f.Filter(preds...)
		case 3, 4:
			name := names[g.rng.Intn(len(names))]
			if g.rng.Intn(2) == 0 {
				name = fmt.Sprintf("x%d", i)
			}
			e := g.intExpr(s)
			if g.rng.Intn(5) == 0 && len(ints) > 0 {
				e = col(g.pick(ints)).Sum().Over(col(g.pick(ints)))
			}
			next = f.WithColumns(e.Alias(name))
		case 5, 6:
			var sel []plan.E
			for _, n := range names {
				if g.rng.Intn(3) > 0 {
					sel = append(sel, col(n))
				}
			}
			if g.rng.Intn(2) == 0 {
				sel = append(sel, g.intExpr(s).Alias(fmt.Sprintf("y%d", i)))
			}
			if len(sel) == 0 {
				sel = append(sel, lit(int64(1)).Alias("one"))
			}
			next = f.Select(sel...)
		case 7:
			if len(ints) > 0 {
				next = f.Sort(plan.Asc(col(g.pick(ints))))
			}
		case 8:
			if g.rng.Intn(2) == 0 {
				next = f.Head(int64(g.rng.Intn(4)))
			} else {
				next = f.Slice(1, 2)
			}
		case 9:
			next = f.Distinct(names[g.rng.Intn(len(names))])
		case 10:
			if len(ints) > 0 {
				k := g.pick(ints)
				next = f.GroupBy(col(k)).Agg(col(g.pick(ints)).Sum().Alias("total"), plan.Len())
			}
		case 11:
			next = f.Union(f)
		case 12:
			if g.rng.Intn(2) == 0 {
				next = f.Extension(testops.Identity)
			} else if len(ints) > 0 {
				next = f.Join(scan(tL), plan.JoinKinds()[g.rng.Intn(6)], []plan.E{col(g.pick(ints))}, []plan.E{col("k")})
			}
		}
		if _, err := plan.Resolve(next.Node()); err == nil {
			f = next
		}
	}
	return f
}

func TestPropertiesRandomPlans(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20261130)
	params.MinSuccessfulTests = 500
	props := gopter.NewProperties(params)
	valid, nodes := 0, 0
	fired := map[string][2]int{}
	props.Property("optimize: verified, idempotent, counters agree with the trace, disabled rules silent", prop.ForAll(
		func(seed int64, depth int, mask uint8) string {
			g := &planGen{rng: rand.New(rand.NewSource(seed))}
			in := g.build(depth).Node()
			if _, err := plan.Resolve(in); err != nil {
				return "" // the generator produced an invalid plan: nothing to check
			}
			flags := allFlags()
			names := []string{FlagPredicatePushdown, FlagFilterFusion, FlagProjectionFusion, FlagProjectionPruning, FlagSharedSubplans}
			for i, n := range names {
				if mask&(1<<i) != 0 {
					if err := setFlag(&flags, n, false); err != nil {
						return err.Error()
					}
				}
			}
			res, err := Optimize(in, flags)
			if err != nil {
				return fmt.Sprintf("seed %d: %v\n%s", seed, err, plan.Explain(in))
			}
			again, err := Optimize(res.Plan, flags)
			if err != nil {
				return fmt.Sprintf("seed %d: second run: %v", seed, err)
			}
			if !plan.Equal(again.Plan, res.Plan) {
				return fmt.Sprintf("seed %d: not idempotent\ninput:\n%s\nfirst:\n%s\nsecond:\n%s", seed,
					plan.Explain(in), plan.Explain(res.Plan), plan.Explain(again.Plan))
			}
			if problems := agreement(res); len(problems) > 0 {
				return fmt.Sprintf("seed %d: %v\n%s", seed, problems, ExplainText(res, true))
			}
			valid++
			nodes += plan.Size(res.Plan)
			for cell, n := range res.Trace.Cells() {
				c := fired[string(cell)]
				c[0] += n[0]
				c[1] += n[1]
				fired[string(cell)] = c
			}
			for _, e := range res.Trace {
				if !flags.Enabled(e.Rule) {
					return fmt.Sprintf("seed %d: disabled rule %s in the trace", seed, e.Rule)
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 14), gen.UInt8Range(0, 31),
	))
	props.Property("optimize never panics, whichever single cell is flipped", prop.ForAll(
		func(seed int64, depth int) string {
			g := &planGen{rng: rand.New(rand.NewSource(seed))}
			in := g.build(depth).Node()
			if _, err := plan.Resolve(in); err != nil {
				return ""
			}
			for _, id := range legality.Default().IDs() {
				tb, err := legality.Default().Flipped(id)
				if err != nil {
					return err.Error()
				}
				flags := DefaultFlags()
				flags.Table = tb
				if _, err := Optimize(in, flags); err != nil && strings.Contains(err.Error(), "internal error") {
					return fmt.Sprintf("seed %d, %s flipped: %v", seed, id, err)
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 14),
	))
	props.TestingRun(t)
	t.Logf("%d valid plans, %.1f nodes on average after optimization", valid, float64(nodes)/float64(max(valid, 1)))
	for _, id := range []string{"pp.with_columns", "pp.sort", "pp.scan", "pp.split", "pp.limit", "ff.total_outer",
		"pf.inline", "pr.project", "pr.with_columns", "pr.scan", "ss.structural"} {
		t.Logf("cell %-16s allowed %4d refused %4d", id, fired[id][0], fired[id][1])
	}
	if valid < 400 {
		t.Errorf("only %d of the generated plans resolve", valid)
	}
	for _, id := range []string{"pp.with_columns", "pr.scan", "ss.structural", "ff.total_outer"} {
		if fired[id][0] == 0 {
			t.Errorf("cell %s never allowed a rewrite: the generator misses it", id)
		}
	}
}
