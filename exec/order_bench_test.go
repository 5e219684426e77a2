package exec_test

import (
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkOrderNodes collects tail, reverse and row_index over the
// 1,000,000-row benchmark table projected to three columns (id, f0, s0),
// beside the projection alone (base): the difference is the node's cost,
// result materialization included. row_index_narrowed numbers every row
// and keeps the numbers of 1% of them (a filter standing for the join a
// join_order chain narrows its numbered inputs by), beside the same
// filter without the numbering (narrowed).
func BenchmarkOrderNodes(b *testing.B) {
	rec, _ := benchData()
	fact, err := exec.NewArrowSource("fact", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer fact.Release()
	base := plan.Scan(fact).Select(plan.Col("id"), plan.Col("f0"), plan.Col("s0"))
	bytes := recordBytes(rec, []string{"id", "f0", "s0"})
	for _, q := range []struct {
		name string
		plan plan.Frame
	}{
		{"base", base},
		{"tail1000", base.Tail(1000)},
		{"reverse", base.Reverse()},
		{"row_index", base.WithRowIndex("ri", 0)},
		{"narrowed", base.Filter(plan.Col("id").Lt(plan.Lit(int64(10000)))).Select(plan.Col("f0"))},
		{"row_index_narrowed", base.WithRowIndex("ri", 0).Filter(plan.Col("id").Lt(plan.Lit(int64(10000)))).Select(plan.Col("ri"), plan.Col("f0"))},
	} {
		b.Run(q.name, func(b *testing.B) { runBench(b, q.plan.Node(), bytes) })
	}
}
