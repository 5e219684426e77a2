package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// countKinds collects n and counts evaluated nodes per kind.
func countKinds(t *testing.T, n plan.Node, exts *Extensions) (*Result, map[plan.Kind]int) {
	t.Helper()
	counts := map[plan.Kind]int{}
	res, err := Collect(context.Background(), n, Options{Mem: checked(t), Extensions: exts,
		OnEvaluate: func(n plan.Node) { counts[n.Kind()]++ }})
	if err != nil {
		t.Fatal(err)
	}
	return res, counts
}

func TestMemo(t *testing.T) {
	T := tableT(t)
	filtered := func() plan.Frame { return plan.Scan(T).Filter(c("k").Gt(lt(1))) }
	selfJoin := func() plan.Frame { return filtered().JoinOn(filtered(), plan.InnerJoin, "k") }
	nd, _ := plan.BuiltinUDFs().Lookup("nd_seq")
	ndSide := func() plan.Frame { return plan.Scan(T).Select(plan.CallUDF(nd, c("k")).Alias("x")) }
	cases := []struct {
		name   string
		plan   plan.Node
		hits   int
		counts map[plan.Kind]int
	}{
		{"no repetition", plan.Scan(T).Filter(c("k").Gt(lt(1))).Node(), 0,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindFilter: 1}},
		{"self-join of a filtered scan", selfJoin().Node(), 1,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindFilter: 1, plan.KindJoin: 1}},
		{"self-join of a scan", plan.Scan(T).JoinOn(plan.Scan(T), plan.InnerJoin, "k").Node(), 1,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindJoin: 1}},
		{"nested sharing counts once", selfJoin().Union(selfJoin()).Node(), 2,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindFilter: 1, plan.KindJoin: 1, plan.KindUnion: 1}},
		{"different filters are not shared", plan.Scan(T).Filter(c("k").Gt(lt(1))).Union(plan.Scan(T).Filter(c("k").Gt(lt(2)))).Node(), 1,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindFilter: 2, plan.KindUnion: 1}},
		// The nd_seq projections are never shared; the scans below them are.
		{"non-deterministic subtree", ndSide().Union(ndSide()).Node(), 1,
			map[plan.Kind]int{plan.KindScan: 1, plan.KindProject: 2, plan.KindUnion: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, counts := countKinds(t, tc.plan, nil)
			defer res.Release()
			if res.MemoHits != tc.hits {
				t.Errorf("memo hits = %d, want %d", res.MemoHits, tc.hits)
			}
			for k, n := range tc.counts {
				if counts[k] != n {
					t.Errorf("%s evaluated %d times, want %d (all: %v)", k, counts[k], n, counts)
				}
			}
			for k, n := range counts {
				if tc.counts[k] == 0 {
					t.Errorf("%s evaluated %d times, want 0", k, n)
				}
			}
		})
	}
}

func TestMemoResultsAndNonDeterminism(t *testing.T) {
	T := tableT(t)
	nd, _ := plan.BuiltinUDFs().Lookup("nd_seq")
	side := plan.Scan(T).Select(plan.CallUDF(nd, c("k")).Alias("x"))
	// The counter advances once per row in evaluation order: 0..5 for the
	// first side, 6..11 for the second.
	check(t, side.Union(side).Node(), want{hits: 1, cols: []col{{"x", ints(1, 3, 3, nil, 6, 8, 7, 9, 9, nil, 12, 14)}}})
	// A shared deterministic join serves the same rows again.
	j := plan.Scan(T).Filter(c("k").Gt(lt(1))).JoinOn(plan.Scan(T).Filter(c("k").Gt(lt(1))), plan.InnerJoin, "k").Select(c("k"), c("s"), c("s_right"))
	check(t, j.Union(j).Node(), want{hits: 2, cols: []col{
		{"k", ints(2, 2, 2, 2, 3, 2, 2, 2, 2, 3)},
		{"s", strs("b", "b", "", "", "c", "b", "b", "", "", "c")},
		{"s_right", strs("b", "", "b", "", "c", "b", "", "b", "", "c")}}})
}

// An extension declared deterministic is shared; one that is not, is not.
func TestMemoExtensions(t *testing.T) {
	T := tableT(t)
	det := &plan.ExtensionDef{Name: "count_det", Inputs: 1, Properties: []plan.ExtensionProperty{plan.DeterministicOp}}
	nondet := &plan.ExtensionDef{Name: "count_nondet", Inputs: 1}
	calls := map[string]int{}
	exts := BuiltinExtensions()
	for _, name := range []string{det.Name, nondet.Name} {
		name := name
		if err := exts.Register(name, func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
			calls[name]++
			in[0].Retain()
			return in[0], nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		def   *plan.ExtensionDef
		hits  int
		calls int
	}{{det, 1, 1}, {nondet, 1, 2}} {
		side := plan.Scan(T).Filter(c("k").Gt(lt(1))).Extension(tc.def)
		res, _ := countKinds(t, side.Union(side).Node(), exts)
		if res.MemoHits != tc.hits || calls[tc.def.Name] != tc.calls {
			t.Errorf("%s: hits %d calls %d, want %d %d", tc.def.Name, res.MemoHits, calls[tc.def.Name], tc.hits, tc.calls)
		}
		if res.NumRows() != 6 {
			t.Errorf("%s: %d rows, want 6", tc.def.Name, res.NumRows())
		}
		res.Release()
	}
}

// Equal fingerprints are not enough: the memo confirms with plan.Equal.
// Two different tables with the same name and schema hash alike (a scan's
// fingerprint uses the source name) but are different sources.
func TestMemoNeedsStructuralEquality(t *testing.T) {
	a := mustTable(t, "same", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}}, ints(1, 2))
	b := mustTable(t, "same", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}}, ints(3, 4))
	n := plan.Scan(a).Union(plan.Scan(b)).Node()
	r, err := plan.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	kids := r.Children()
	if plan.Fingerprint(kids[0]) != plan.Fingerprint(kids[1]) {
		t.Skip("fingerprints differ; the collision this test needs does not arise")
	}
	check(t, n, want{hits: 0, cols: []col{{"k", ints(1, 2, 3, 4)}}})
}
