package exec_test

import (
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// BenchmarkWindows collects one window column over the 1,000,000-row
// benchmark table (partitions k1000: 1,000 of 1,000 rows; i2 random
// int64s, f0 floats with 1% nulls) projected to the
// partition key, the order key and the window: the unordered sum(i2).over
// (k1000) the window functions are measured beside, and cum_sum, rank and
// shift ordered by id descending (one stable sort of the rows), plus
// cum_sum in input order (no sort) and arg_max under over().
func BenchmarkWindows(b *testing.B) {
	rec, _ := benchData()
	fact, err := exec.NewArrowSource("fact", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer fact.Release()
	k, i2, f0, id := plan.Col("k1000"), plan.Col("i2"), plan.Col("f0"), plan.Col("id")
	byID := func(e plan.E) plan.E { return e.OverOrdered([]plan.E{k}, plan.Desc(id)) }
	bytes := recordBytes(rec, []string{"k1000", "i2", "id"})
	for _, q := range []struct {
		name string
		w    plan.E
	}{
		{"sum_over", i2.Sum().Over(k)},
		{"cum_sum_input_order", i2.CumSum().Over(k)},
		{"cum_sum", byID(i2.CumSum())},
		{"cum_sum_float", byID(f0.CumSum())},
		{"rank_dense", i2.Rank("dense").Over(k)},
		{"shift", byID(i2.Shift(1))},
		{"row_number", byID(plan.RowNumber())},
		{"arg_max_over", i2.ArgMax().Over(k)},
	} {
		p := plan.Scan(fact).Select(k, i2, id, q.w.Alias("w")).Node()
		b.Run(q.name, func(b *testing.B) { runBench(b, p, bytes) })
	}
}
