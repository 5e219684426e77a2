package dfopt_test

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// statingSource is a host source that states facts about its columns
// (plan.FactsReporter): here, that a lies in [-1000000, 1000000].
type statingSource struct {
	*exec.ArrowSource
}

func (s *statingSource) ColumnFacts(column string) (plan.ColumnFacts, bool) {
	if column != "a" {
		return plan.ColumnFacts{}, false
	}
	return plan.ColumnFacts{HasRange: true, Min: plan.Int64Value(-1_000_000), Max: plan.Int64Value(1_000_000)}, true
}

// Example_factsReporter: a host source states a range for column a; the
// optimizer proves a * 2 + 1 total with it, moves the filter below the
// projection and makes the scan assume the range. Over data that keeps the
// promise the collect succeeds; over data that breaks it (a = 2^62 on the
// row the filter removes, where the plan as written overflows) it fails
// with a source_error naming the source, the column, the fact and the
// value, instead of returning rows. docs/embedding.md shows this output.
func Example_factsReporter() {
	run := func(a []int64) {
		data := make([]plan.Value, len(a))
		for i, v := range a {
			data[i] = plan.Int64Value(v)
		}
		b := []plan.Value{plan.Int64Value(1), plan.Int64Value(0), plan.Int64Value(2)}
		tbl, _ := plan.NewTable("events", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64}),
			[][]plan.Value{data, b})
		rec, _ := kernel.TableRecord(memory.DefaultAllocator, tbl)
		defer rec.Release()
		arrowSrc, _ := exec.NewArrowSource("events", rec)
		defer arrowSrc.Release()
		src := &statingSource{arrowSrc}

		p := plan.Scan(src).
			Select(plan.Col("a").Mul(plan.Lit(2)).Add(plan.Lit(1)).Alias("y"), plan.Col("b")).
			Filter(plan.Col("b").Gt(plan.Lit(0))).Node()
		res, err := rules.Optimize(p, rules.DefaultFlags())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(plan.Explain(res.Plan))
		out, err := exec.Collect(context.Background(), res.Plan, exec.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer out.Release()
		fmt.Println(out.NumRows(), "rows")
	}
	run([]int64{5, 999_999, -7})
	run([]int64{5, 1 << 62, -7})
	// Output:
	// project [a * 2 + 1 as y, b]
	//   filter [b > 0]
	//     scan events assumes=[a in [-1000000, 1000000]]
	// 2 rows
	// project [a * 2 + 1 as y, b]
	//   filter [b > 0]
	//     scan events assumes=[a in [-1000000, 1000000]]
	// scan events assumes=[a in [-1000000, 1000000]]: source_error: source events broke a fact it stated about column a: it holds 4611686018427387904, above the stated maximum 1000000 (the plan relied on a in [-1000000, 1000000]) in `events` (first failing row 1)
}
