package exec_test

import (
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkJoinOptions measures each join option against the same join
// without it over the 1,000,000-row fact table (docs/performance.md, Join
// options): validate on the probe side (a 1,000,000-key uniqueness check)
// and on the 1,000-row dimension, nulls_equal over float keys with nulls
// on both sides (the rewritten keys), a full join's coalesced key, and a
// semi join's residual over every key-matched pair.
func BenchmarkJoinOptions(b *testing.B) {
	rec, dim := benchData()
	fact, err := exec.NewArrowSource("fact", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer fact.Release()
	dimSrc, err := exec.NewArrowSource("dim", dim)
	if err != nil {
		b.Fatal(err)
	}
	defer dimSrc.Release()
	c := plan.Col
	f := plan.Scan(fact).Select(c("id"), c("k1000"), c("f0"))
	d := plan.Scan(dimSrc)
	byK := func(o plan.JoinOptions) plan.Frame {
		return f.Join(d, plan.InnerJoin, []plan.E{c("k1000")}, []plan.E{c("key")}).WithJoinOptions(o)
	}
	byID := func(o plan.JoinOptions) plan.Frame {
		return f.Join(d, plan.InnerJoin, []plan.E{c("id")}, []plan.E{c("key")}).WithJoinOptions(o)
	}
	g := plan.Scan(fact).Head(1000).Select(c("f0").Alias("g"))
	byF := func(o plan.JoinOptions) plan.Frame {
		return f.Join(g, plan.InnerJoin, []plan.E{c("f0")}, []plan.E{c("g")}).WithJoinOptions(o)
	}
	dk := d.Select(c("key").Alias("k1000"), c("name"))
	full := func(o plan.JoinOptions) plan.Frame { return f.JoinOn(dk, plan.FullJoin, "k1000").WithJoinOptions(o) }
	semi := func(o plan.JoinOptions) plan.Frame {
		return f.Join(d, plan.SemiJoin, []plan.E{c("k1000")}, []plan.E{c("key")}).WithJoinOptions(o)
	}
	for _, q := range []struct {
		name string
		plan plan.Frame
	}{
		{"k1000/plain", byK(plan.JoinOptions{})},
		{"k1000/validate_m:1", byK(plan.JoinOptions{Validate: plan.ValidateManyToOne})},
		{"k1000/nulls_equal_no_nulls", byK(plan.JoinOptions{NullsEqual: true})},
		{"id/plain", byID(plan.JoinOptions{})},
		{"id/validate_1:1", byID(plan.JoinOptions{Validate: plan.ValidateOneToOne})},
		{"f0/plain", byF(plan.JoinOptions{})},
		{"f0/nulls_equal", byF(plan.JoinOptions{NullsEqual: true})},
		{"full/keep", full(plan.JoinOptions{})},
		{"full/coalesce", full(plan.JoinOptions{Coalesce: plan.CoalesceMerge})},
		{"semi/plain", semi(plan.JoinOptions{})},
		{"semi/residual", semi(plan.JoinOptions{Residual: c("weight").Gt(c("f0"))})},
	} {
		b.Run(q.name, func(b *testing.B) { runBench(b, q.plan.Node(), 0) })
	}
}
