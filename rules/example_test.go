package rules_test

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// Optimize rewrites a plan with the rules the flags enable and says why:
// the counters count what happened, and each trace line names the legality
// cell that allowed or refused a rewrite.
func ExampleOptimize() {
	t, _ := plan.NewTable("t", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "s", Type: plan.String, Nullable: true},
	), [][]plan.Value{nil, nil, nil})
	p := plan.Scan(t).
		WithColumns(plan.Col("b").Alias("x")).
		Filter(plan.Col("a").Gt(plan.Lit(1))).
		Head(10).
		Select(plan.Col("a"), plan.Col("x"))
	res, err := rules.Optimize(p.Node(), rules.DefaultFlags())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan.Explain(res.Plan))
	fmt.Println(res.Counters.Moved())
	for _, e := range res.Trace {
		if e.Rule == rules.FlagPredicatePushdown {
			fmt.Println(e)
		}
	}
	// Output:
	// project [a, x]
	//   with_columns [b as x]
	//     limit 10
	//       filter [a > 1]
	//         scan t columns=[a, b]
	// pushedFilters=1 droppedColumns=1 scanProjections=1 pushedLimits=1
	// predicate_pushdown: `a > 1` pushed past with_columns [b as x]: cell pp.deterministic
	// predicate_pushdown: `a > 1` pushed past with_columns [b as x]: cell pp.with_columns
	// predicate_pushdown: `a > 1` pushed past with_columns [b as x]: cell pp.with_columns.shadow
	// predicate_pushdown: `a > 1` stopped at scan t: cell pp.scan (the source classifies it unsupported)
}

// Flags select rules and risky arms; a plan file's "flags" object maps to
// them by name.
func ExampleFlagsFromMap() {
	f, err := rules.FlagsFromMap(map[string]bool{"projection_pruning": false, "scan_pushdown": false})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Enabled(rules.FlagPredicatePushdown), f.Enabled(rules.FlagScanPushdown), f.Enabled(rules.FlagProjectionPruning))
	_, err = rules.FlagsFromMap(map[string]bool{"predicate_pushdwn": true})
	fmt.Println(err != nil)
	// Output:
	// true false false
	// true
}
