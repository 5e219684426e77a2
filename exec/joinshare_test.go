package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestProbeClasses: the joins of a plan that share their pairs (the memo's
// probe classes) are the inner and semi equi-joins with Equal inputs,
// Equal keys and the same nulls_equal, when the class has two members that
// are not Equal and one of them is inner; and a collect gives the same
// rows, or the same error, and the same memo hits with the pairs shared as
// without, sequentially, split over goroutines and under a memory limit
// (which shares nothing).
func TestProbeClasses(t *testing.T) {
	T := tableT(t)
	U := mustTable(t, "u", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "w", Type: plan.Int64, Nullable: true}},
		ints(2, nil, 1, 2, 7, 1, 0), ints(1, 2, 3, 4, 5, 6, 0))
	nd, _ := plan.BuiltinUDFs().Lookup("nd_seq")
	left := func() plan.Frame { return plan.Scan(T) }
	right := func() plan.Frame { return plan.Scan(U).Filter(c("w").Gt(lt(int64(1)))) }
	on := func(l, r plan.Frame, how plan.JoinKind, o plan.JoinOptions) plan.Frame {
		return l.Join(r, how, []plan.E{c("k")}, []plan.E{c("k")}).WithJoinOptions(o)
	}
	join := func(how plan.JoinKind) plan.Frame { return on(left(), right(), how, plan.JoinOptions{}) }
	buildLeft := func(f plan.Frame) plan.Frame {
		j := *f.Node().(*plan.JoinNode)
		j.BuildLeft = true
		return plan.FromNode(&j)
	}
	// both keeps the left columns of a and b (a join of any kind) and
	// unions them: the two joins in one plan.
	both := func(a, b plan.Frame) plan.Frame {
		return a.Select(c("k"), c("v"), c("s")).Union(b.Select(c("k"), c("v"), c("s")))
	}
	raising := func(how plan.JoinKind) plan.Frame {
		return left().Join(right(), how, []plan.E{c("k").Div(c("k").Sub(lt(int64(2))))}, []plan.E{c("k")})
	}
	cases := []struct {
		name    string
		plan    plan.Frame
		sharing int // join occurrences in a class that shares
	}{
		{"inner and semi", both(join(plan.InnerJoin), join(plan.SemiJoin)), 2},
		{"semi then inner", both(join(plan.SemiJoin), join(plan.InnerJoin)), 2},
		{"inner built on either side", both(join(plan.InnerJoin), buildLeft(join(plan.InnerJoin))), 2},
		{"inner, semi and the inner again", both(both(join(plan.InnerJoin), join(plan.SemiJoin)), join(plan.InnerJoin)), 3},
		{"the semi validating", both(join(plan.InnerJoin), on(left(), right(), plan.SemiJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany})), 2},
		{"both validating", both(on(left(), right(), plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany}),
			on(left(), right(), plan.SemiJoin, plan.JoinOptions{Validate: plan.ValidateManyToOne})), 2},
		{"a key that raises", both(raising(plan.InnerJoin), raising(plan.SemiJoin)), 2},
		{"two semis", both(join(plan.SemiJoin), on(left(), right(), plan.SemiJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany})), 0},
		{"Equal inner joins (the memo's)", both(join(plan.InnerJoin), join(plan.InnerJoin)), 0},
		{"a left join", both(join(plan.InnerJoin), join(plan.LeftJoin)), 0},
		{"other keys", both(join(plan.InnerJoin), left().Join(right(), plan.SemiJoin, []plan.E{c("k")}, []plan.E{c("w")})), 0},
		{"other inputs", both(join(plan.InnerJoin), on(left(), plan.Scan(U), plan.SemiJoin, plan.JoinOptions{})), 0},
		{"nulls_equal on one", both(join(plan.InnerJoin), on(left(), right(), plan.SemiJoin, plan.JoinOptions{NullsEqual: true})), 0},
		{"nulls_equal on both", both(on(left(), right(), plan.InnerJoin, plan.JoinOptions{NullsEqual: true}),
			on(left(), right(), plan.SemiJoin, plan.JoinOptions{NullsEqual: true})), 2},
		{"a residual", both(join(plan.InnerJoin), on(left(), right(), plan.SemiJoin, plan.JoinOptions{Residual: c("w").Gt(lt(int64(3)))})), 0},
		{"a non-deterministic input", both(
			on(left().WithColumns(plan.CallUDF(nd, c("k")).Alias("n")), right(), plan.InnerJoin, plan.JoinOptions{}),
			on(left().WithColumns(plan.CallUDF(nd, c("k")).Alias("n")), right(), plan.SemiJoin, plan.JoinOptions{})), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.plan.Node()
			resolved, err := plan.Resolve(n)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(newMemo(resolved).probes); got != tc.sharing {
				t.Errorf("%d joins share their pairs, want %d", got, tc.sharing)
			}
			for _, opts := range []Options{{}, {Parallelism: 2, PartitionRows: 1}, {MemoryLimit: 1 << 30}} {
				got := pairsOutcome(t, n, opts)
				sharePairs = false
				want := pairsOutcome(t, n, opts)
				sharePairs = true
				if got != want {
					t.Errorf("options %+v: shared pairs:\n%s\nown pairs:\n%s", opts, got, want)
				}
			}
			t.Log(pairsOutcome(t, n, Options{}))
		})
	}
}

// pairsOutcome is a collect's columns and memo hits, or its error, as
// text.
func pairsOutcome(t *testing.T, n plan.Node, opts Options) string {
	t.Helper()
	opts.Mem = checked(t)
	res, err := Collect(context.Background(), n, opts)
	if err != nil {
		return "error: " + err.Error()
	}
	defer res.Release()
	cols, err := res.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%v (memo hits %d)", cols, res.MemoHits)
}
