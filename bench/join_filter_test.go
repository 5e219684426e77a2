package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// optimizedPlans loads the named query files over the test data and
// returns each one's optimized plan under the given flag overrides.
func optimizedPlans(t *testing.T, files []string, flags map[string]bool) []plan.Node {
	t.Helper()
	s, err := Load(context.Background(), files, Options{DataDir: testData(t), Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []plan.Node
	for _, q := range s.Queries {
		res, err := rules.Optimize(q.Plan, q.Flags)
		if err != nil {
			t.Fatalf("%s: %v", q.File, err)
		}
		out = append(out, res.Plan)
	}
	return out
}

// TestFilterAboveJoinOptimizesToHandPushed: Q8 writes its filter above the
// join, as SQL's WHERE does, and Q8p pushes each conjunct into the side it
// reads by hand (k < 100 into both, through the key). With join_pushdown
// the standard tier turns Q8 into exactly Q8p's optimized plan, so the two
// cost the same; without it Q8's filter stays above the join.
func TestFilterAboveJoinOptimizesToHandPushed(t *testing.T) {
	files := []string{filepath.Join("queries", "q8.json"), filepath.Join("queries", "q8p.json")}
	// The plans print the same; plan.Equal would also compare the origins
	// the rewrites record on the expressions they move (what an error
	// would cite), which differ between a conjunct written above the join
	// and one written in place.
	on := optimizedPlans(t, files, nil)
	if plan.Explain(on[0]) != plan.Explain(on[1]) {
		t.Errorf("optimized Q8 differs from optimized Q8p:\n%s\nvs\n%s", plan.Explain(on[0]), plan.Explain(on[1]))
	}
	off := optimizedPlans(t, files, map[string]bool{"join_pushdown": false})
	if plan.Explain(off[0]) == plan.Explain(off[1]) {
		t.Errorf("with join_pushdown off, optimized Q8 still equals Q8p:\n%s", plan.Explain(off[0]))
	}
	if _, ok := off[0].(*plan.ProjectNode).Input.(*plan.FilterNode); !ok {
		t.Errorf("with join_pushdown off, Q8's filter moved:\n%s", plan.Explain(off[0]))
	}
}

// TestSQLShapedQueries runs the SQL-shaped queries (a filter over a cross
// join) over a 2,000-row dataset with collapse_cross_join on, off and not
// optimized at all, where the cross product is 2,000,000 rows: all three
// give the answer the formulas give, and only with the rule does the plan
// lose its cross join.
func TestSQLShapedQueries(t *testing.T) {
	const rows = 2_000
	dir := t.TempDir()
	if _, err := Generate(context.Background(), dir, GenOptions{Rows: rows, RowGroup: 512}); err != nil {
		t.Fatal(err)
	}
	want := direct(rows)
	files := sqlQueryFiles(t)
	for _, mode := range []Options{
		{Runs: 1, DataDir: dir},
		{Runs: 1, DataDir: dir, Flags: map[string]bool{"collapse_cross_join": false}},
		{Runs: 1, DataDir: dir, NoOpt: true, Memory: true},
	} {
		results, err := Run(context.Background(), files, mode)
		if err != nil {
			t.Fatalf("mode %+v: %v", mode, err)
		}
		for _, r := range results {
			e, ok := want[r.Name]
			if !ok {
				t.Fatalf("no expectation for query %s", r.Name)
			}
			e.check(t, r)
			collapsed := r.Counters.Get("collapsedJoins")
			if wantCollapsed := !mode.NoOpt && mode.Flags == nil; (collapsed == 1) != wantCollapsed {
				t.Errorf("%s in mode %+v: collapsedJoins=%d", r.Name, mode, collapsed)
			}
		}
	}
}
