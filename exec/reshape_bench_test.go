package exec_test

import (
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkReshapeNodes collects hstack, merge_sorted and unpivot over the
// 1,000,000-row benchmark table, beside their inputs alone (base: the
// projection to id, f0, s0; sorted: id sorted, which the table already
// is): the difference is the node's cost, result materialization included.
// merge_sorted merges two copies of the 1,000,000 rows (2,000,000 out);
// unpivot turns two float columns into 2,000,000 rows.
func BenchmarkReshapeNodes(b *testing.B) {
	rec, _ := benchData()
	fact, err := exec.NewArrowSource("fact", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer fact.Release()
	scan := plan.Scan(fact)
	base := scan.Select(plan.Col("id"), plan.Col("f0"), plan.Col("s0"))
	other := scan.Select(plan.Col("k1000"), plan.Col("f1"))
	bytes := recordBytes(rec, []string{"id", "f0", "s0"})
	for _, q := range []struct {
		name string
		plan plan.Frame
	}{
		{"base", base},
		{"hstack", base.HStack(other)},
		{"merge_sorted", base.MergeSorted(base, "id")},
		{"unpivot", scan.Select(plan.Col("id"), plan.Col("f0"), plan.Col("f1")).Unpivot([]string{"f0", "f1"}, nil, "", "")},
	} {
		b.Run(q.name, func(b *testing.B) { runBench(b, q.plan.Node(), bytes) })
	}
}
