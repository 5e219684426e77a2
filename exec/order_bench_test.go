package exec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

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

// BenchmarkSortRowNumbers sorts 262,144 rows on six int64 columns shaped
// like the row numbers join_order sorts a reordered chain back on (SQL-style
// TPC-H Q9): the first non-decreasing in runs of about 30 rows, the second
// drawn from 10,000 values, the third increasing (it tells the rows of a
// run apart), the last three random, and keeps the first column.
func BenchmarkSortRowNumbers(b *testing.B) {
	const rows = 1 << 18
	rng := rand.New(rand.NewPCG(5, 6))
	mem := memory.DefaultAllocator
	vals := make([][]int64, 6)
	for k := range vals {
		vals[k] = make([]int64, rows)
	}
	run := int64(0)
	for i := 0; i < rows; i++ {
		if rng.IntN(30) == 0 {
			run++
		}
		vals[0][i] = run
		vals[1][i] = rng.Int64N(10000)
		vals[2][i] = int64(i) * 18
		for k := 3; k < 6; k++ {
			vals[k][i] = rng.Int64N(6_000_000)
		}
	}
	var fields []arrow.Field
	var cols []arrow.Array
	names := []string{"r1", "r2", "r3", "r4", "r5", "r6"}
	for k, name := range names {
		bld := array.NewInt64Builder(mem)
		bld.AppendValues(vals[k], nil)
		cols = append(cols, bld.NewArray())
		bld.Release()
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	src, err := exec.NewArrowSource("numbers", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Release()
	runBench(b, plan.Scan(src).SortBy(names...).Select(plan.Col("r1")).Node(), recordBytes(rec, names))
}
