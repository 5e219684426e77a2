package rules

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// TestLimitExample pins what one application is on a small plan: the
// conjunct crosses the with_columns (one application), then is handed to
// the source (another), and pruning drops the dead entry, the emptied
// with_columns and the unread scan column (three more).
func TestLimitExample(t *testing.T) {
	in := scan(src).WithColumns(col("b").Alias("c")).Filter(col("a").Gt(lit(int64(1)))).Select(col("a")).Node()
	full, err := Optimize(in, allFlags())
	if err != nil {
		t.Fatal(err)
	}
	if full.Applied != 0 || full.Applications != nil {
		t.Fatalf("unlimited: Applied=%d, Applications=%v (want nothing counted)", full.Applied, full.Applications)
	}
	flags := allFlags()
	flags.Limit = math.MaxInt
	res, err := Optimize(in, flags)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 5 || !plan.Equal(res.Plan, full.Plan) {
		t.Fatalf("limit MaxInt: Applied=%d (want 5)\n%s", res.Applied, plan.Explain(res.Plan))
	}
	flags.Limit = 5
	res, err = Optimize(in, flags)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.Applications {
		got = append(got, a.String())
	}
	want := []string{
		"#1 predicate_pushdown: `a > 1` pushed past with_columns [b as c]: cell pp.with_columns [plan.input.input]",
		"#2 predicate_pushdown: `a > 1` pushed into scan src: cell pp.scan (the source classifies it exact) [plan.input.input.input]",
		"#3 projection_pruning: `b as c` pruned at with_columns [b as c]: cell pr.with_columns [plan.input]",
		"#4 projection_pruning: pruned at with_columns [b as c]: cell pr.with_columns.empty [plan.input]",
		"#5 projection_pruning: pruned at scan src pushed=[a > 1 (exact)]: cell pr.scan [plan.input.input]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("applications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !plan.Equal(res.Plan, full.Plan) {
		t.Fatalf("limit = Applied must give the unlimited plan:\n%s\nwant\n%s", plan.Explain(res.Plan), plan.Explain(full.Plan))
	}

	flags.Limit = 1
	res, err = Optimize(in, flags)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(res.Trace.Lines(nil), "\n")
	if !strings.Contains(lines, "predicate_pushdown: `a > 1` stopped at scan src: rewrite limit reached") {
		t.Fatalf("limit 1: no limited entry at the scan in\n%s", lines)
	}
	if res.Counters.Get("pushedFilters") != 1 || res.Counters.Get("prunedProjections") != 0 {
		t.Fatalf("limit 1: counters %s", res.Counters)
	}
}

// TestLimitPrefixes checks the limit on random plans under the default table
// and every flipped cell: limit k applies exactly min(k, N) rewrites, logs
// them as a prefix of the limit-N log, records a limited entry when it
// refused one, keeps the plan valid (Verify), LimitNone leaves the plan as
// written, and limit N gives the unlimited plan.
func TestLimitPrefixes(t *testing.T) {
	rng := rand.New(rand.NewSource(20260601))
	tables := []*legality.Table{legality.Default()}
	for _, id := range legality.Default().IDs() {
		tb, err := legality.Default().Flipped(id)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	plans, maxApplied := 0, 0
	for i := 0; i < 150; i++ {
		seed := rng.Int63()
		g := &planGen{rng: rand.New(rand.NewSource(seed))}
		in := g.build(1 + rng.Intn(12)).Node()
		resolved, err := plan.Resolve(in)
		if err != nil {
			continue
		}
		plans++
		tb := tables[i%len(tables)]
		flags := allFlags()
		flags.Table = tb
		unlimited, err := Optimize(in, flags)
		if err != nil {
			continue // a mutant may break the plan; the limit is checked where it does not
		}
		flags.Limit = math.MaxInt
		full, err := Optimize(in, flags)
		if err != nil {
			t.Fatalf("seed %d (%v): limit MaxInt: %v", seed, tb.Overrides(), err)
		}
		if !plan.Equal(full.Plan, unlimited.Plan) || !full.Counters.Equal(unlimited.Counters) ||
			strings.Join(full.Trace.Lines(tb), "\n") != strings.Join(unlimited.Trace.Lines(tb), "\n") {
			t.Fatalf("seed %d (%v): limit MaxInt is not the unlimited run:\n%s\nwant\n%s", seed, tb.Overrides(),
				ExplainText(full, true), ExplainText(unlimited, true))
		}
		maxApplied = max(maxApplied, full.Applied)
		n := full.Applied
		flags.Limit = max(n, 1)
		ref, err := Optimize(in, flags)
		if err != nil {
			t.Fatalf("seed %d (%v): limit %d: %v", seed, tb.Overrides(), flags.Limit, err)
		}
		if !plan.Equal(ref.Plan, full.Plan) || len(ref.Applications) != n {
			t.Fatalf("seed %d (%v): limit N=%d differs from no limit (%d logged)", seed, tb.Overrides(), n, len(ref.Applications))
		}
		for k := LimitNone; k < n; k++ {
			if k == 0 {
				continue
			}
			flags.Limit = k
			res, err := Optimize(in, flags)
			if err != nil && len(tb.Overrides()) > 0 {
				// A mutant may need all of its rewrites to keep the plan
				// valid (flipped pr.union narrows one union input at a
				// time): an intermediate limit then breaks it, which
				// Verify reports.
				break
			}
			if err != nil {
				t.Fatalf("seed %d (%v): limit %d: %v\n%s", seed, tb.Overrides(), k, err, plan.Explain(in))
			}
			want := max(k, 0)
			if res.Applied != want || len(res.Applications) != want {
				t.Fatalf("seed %d (%v): limit %d: Applied=%d logged=%d", seed, tb.Overrides(), k, res.Applied, len(res.Applications))
			}
			for j, a := range res.Applications {
				r := ref.Applications[j]
				if a.Index != j+1 || a.String() != r.String() {
					t.Fatalf("seed %d (%v): limit %d: application %d is %s, the unlimited run's is %s", seed, tb.Overrides(), k, j+1, a, r)
				}
			}
			limited := false
			for _, e := range res.Trace {
				if e.Limited {
					limited = true
					if e.Cell != "" || e.Allowed {
						t.Fatalf("limited entry with a cell or allowed: %s", e)
					}
				}
			}
			if !limited && n > want {
				t.Fatalf("seed %d (%v): limit %d < %d refused nothing in the trace:\n%s", seed, tb.Overrides(), k, n,
					strings.Join(res.Trace.Lines(nil), "\n"))
			}
			if k == LimitNone && !plan.Equal(res.Plan, resolved) {
				t.Fatalf("seed %d: LimitNone rewrote the plan:\n%s\nfrom\n%s", seed, plan.Explain(res.Plan), plan.Explain(resolved))
			}
		}
	}
	if plans < 100 || maxApplied < 5 {
		t.Fatalf("the generator gave %d plans, at most %d applications: too little to test the limit", plans, maxApplied)
	}
	t.Logf("%d plans, up to %d applications", plans, maxApplied)
}

func ExampleApplication() {
	in := scan(tT).Filter(col("a").Gt(lit(int64(1)))).Sort(plan.Asc(col("b"))).Filter(col("p")).Node()
	flags := DefaultFlags()
	flags.Limit = 2
	res, _ := Optimize(in, flags)
	for _, a := range res.Applications {
		fmt.Println(a)
	}
	// Output:
	// #1 predicate_pushdown: `p` pushed past sort [b]: cell pp.sort [plan.input]
	// #2 filter_fusion: `p` fused into filter [a > 1]: cells ff.total_outer, ff.boolean [plan.input.input]
}
