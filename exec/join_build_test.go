package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// buildLeft returns n with BuildLeft set on the join at its top or below
// its chain of single-input nodes.
func buildLeft(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	switch j := n.(type) {
	case *plan.JoinNode:
		c := *j
		c.BuildLeft = true
		return &c
	}
	ch := n.Children()
	if len(ch) != 1 {
		t.Fatalf("no join under %s", n.Label())
	}
	return n.WithChildren([]plan.Node{buildLeft(t, ch[0])})
}

// TestPropJoinBuildLeftCollect: an inner join built on its left input
// collects to the rows of the one built on its right, bit for bit and in
// the same order, or fails with the same error — one or two keys
// (promoted and computed ones too), nulls, NaN and -0.0 in the payload,
// an aggregate, distinct, sort or window above, sequentially and split
// over goroutines — and so does it under a memory limit small enough to
// spill, leaving no spill file, no counted byte and no Arrow buffer.
func TestPropJoinBuildLeftCollect(t *testing.T) {
	runs, spilled := 0, 0
	params := gopter.DefaultTestParametersWithSeed(20261201)
	params.MinSuccessfulTests = 300
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	props := gopter.NewProperties(params)
	props.Property("the left build changes no outcome", prop.ForAll(func(c propLimitCase) string {
		ls, rs := arrowTable(t, "l", c.left), arrowTable(t, "r", c.right)
		defer ls.Release()
		defer rs.Release()
		l, r := plan.Scan(ls), plan.Scan(rs)
		var j plan.Frame
		if c.twoKeys {
			j = l.Join(r, plan.InnerJoin, []plan.E{c2("k"), c2("s")}, []plan.E{c2("k"), c2("s")})
		} else {
			j = l.Join(r, plan.InnerJoin, []plan.E{c2("k")}, []plan.E{c2("k").Add(lt(int64(1)))})
		}
		n := j.Node()
		switch c.top {
		case 1:
			n = j.GroupBy(c2("k"), c2("s")).Agg(c2("f").Sum().Alias("sf"), c2("f").Mean().Alias("mf"),
				c2("id").Sum().Alias("si"), plan.Len().Alias("n")).Node()
		case 2:
			n = j.Distinct("k", "s").Node()
		case 3:
			n = j.Sort(plan.Desc(c2("f")), plan.Asc(c2("id"))).Node()
		case 4:
			n = j.WithColumns(c2("f").Sum().Over(c2("k")).Alias("w")).Node()
		}
		left := buildLeft(t, n)
		want := collectOutcome(t, n, c.opts)
		if msg := sameOutcome(want, collectOutcome(t, left, c.opts)); msg != "" {
			return "without a limit: " + msg
		}
		got, didSpill, msg := collectUnderShare(t, left, c)
		if msg != "" {
			return msg
		}
		if didSpill {
			spilled++
		}
		runs++
		if got.err != nil && got.err.Kind == plan.ResourceExhausted && (want.err == nil || want.err.Kind != plan.ResourceExhausted) {
			return ""
		}
		return sameOutcome(want, got)
	}, genPropLimitCase()))
	props.TestingRun(t)
	t.Logf("%d runs under a limit: %d spilled", runs, spilled)
	if 4*spilled < runs {
		t.Errorf("%d runs: only %d spilled: the limits test too little", runs, spilled)
	}
}

// TestJoinBuildLeftFitsWhereRightSpills: a small left input joined to a
// right input ten times the limit: hashed on the right the join must
// spill, hashed on the left it fits in memory; both give the rows of the
// unlimited collect, sequentially and split over goroutines.
func TestJoinBuildLeftFitsWhereRightSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	small, _ := limitSide(t, rng, "small", 2_000, 5_000, 0)
	big, bigBytes := limitSide(t, rng, "big", 20_000, 5_000, 600)
	limit := bigBytes / 10
	j := plan.Scan(small).Join(plan.Scan(big), plan.InnerJoin, []plan.E{c2("k")}, []plan.E{c2("k")})
	n := j.Select(c2("id"), c2("k"), c2("f"), c2("id_right"), c2("f_right")).Node()
	left := buildLeft(t, n)
	for _, opts := range []Options{{Parallelism: 1}, forcedParallel} {
		t.Run(fmt.Sprintf("p%d", opts.Parallelism), func(t *testing.T) {
			if msg := sameOutcome(collectOutcome(t, n, opts), collectOutcome(t, left, opts)); msg != "" {
				t.Fatal(msg)
			}
			right, _ := limited(t, n, limit, opts)
			st, _ := limited(t, left, limit, opts)
			if right.SpillFiles == 0 || st.SpillFiles != 0 {
				t.Errorf("limit %d: the right build spilled %d files, the left build %d: want some, then none", limit, right.SpillFiles, st.SpillFiles)
			}
			t.Logf("limit %d: right build peak %d with %d spill files, left build peak %d", limit, right.Peak, right.SpillFiles, st.Peak)
		})
	}
}

// TestJoinBuildLeftResolve: Resolve accepts the hint on an inner join
// only, and the label and the fingerprint show it.
func TestJoinBuildLeftResolve(t *testing.T) {
	src, _ := limitSide(t, rand.New(rand.NewPCG(1, 2)), "l", 4, 3, 0)
	for _, kind := range plan.JoinKinds() {
		j := &plan.JoinNode{Left: plan.Scan(src).Node(), Right: plan.Scan(src).Node(), How: kind, BuildLeft: true}
		if kind != plan.CrossJoin {
			j.LeftOn, j.RightOn = []plan.Expr{plan.Col("k").Expr()}, []plan.Expr{plan.Col("k").Expr()}
		}
		_, err := plan.Resolve(j)
		if (err == nil) != (kind == plan.InnerJoin) {
			t.Errorf("%s join with build=left: %v", kind, err)
		}
	}
}
