package dfopt_test

import (
	"context"
	"fmt"

	"github.com/dfopt/dfopt"
	"github.com/dfopt/dfopt/plan"
)

func tradesTable() *plan.Table {
	schema := plan.MustSchema(
		plan.Field{Name: "symbol", Type: plan.String, Nullable: true},
		plan.Field{Name: "qty", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "notional", Type: plan.Int64, Nullable: true},
	)
	t, err := plan.NewTable("trades", schema, [][]plan.Value{
		{plan.StringValue("ACME"), plan.StringValue("BOLT"), plan.StringValue("ACME")},
		{plan.Int64Value(10), plan.Int64Value(0), plan.Int64Value(4)},
		{plan.Int64Value(1000), plan.Int64Value(90), plan.Int64Value(260)},
	})
	if err != nil {
		panic(err)
	}
	return t
}

// A filter on an input column is pushed below a with_columns whose value is
// total, but not below one whose value can raise.
func ExampleLazyFrame_Explain() {
	lf := dfopt.Lazy(plan.Scan(tradesTable()).
		WithColumns(plan.Col("qty").Alias("q")).
		Filter(plan.Col("symbol").Eq(plan.Lit("ACME"))))
	text, err := lf.Explain(false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	// Output:
	// with_columns [qty as q]
	//   filter [symbol == "ACME"]
	//     scan trades
	// tier: standard
	// counters: pushedFilters=1
}

// A division by zero in a computed column is an error value naming the
// expression, whether or not a later filter would have removed the row.
func ExampleLazyFrame_Collect() {
	lf := dfopt.Lazy(plan.Scan(tradesTable()).
		WithColumns(plan.Col("notional").Div(plan.Col("qty")).Alias("price")).
		Filter(plan.Col("qty").Gt(plan.Lit(0))))
	res, err := lf.Collect(context.Background())
	if pe, ok := plan.AsError(err); ok {
		fmt.Println(pe.Kind, pe.Expr)
		return
	}
	defer res.Release()
	table, err := dfopt.FormatTable(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(table)
	// Output:
	// divide_by_zero notional / qty
}

// The first program: build a table, filter it and add a column, collect,
// and print the rows. Only packages dfopt and plan are needed.
func Example() {
	trades := tradesTable()
	lf := dfopt.Lazy(plan.Scan(trades).
		Filter(plan.Col("qty").Gt(plan.Lit(0))).
		WithColumns(plan.Col("notional").Div(plan.Col("qty")).Alias("price")))
	res, err := lf.Collect(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Release()
	table, err := dfopt.FormatTable(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(table)
	// Output:
	// symbol  | qty    | notional | price
	// string? | int64? | int64?   | int64?
	// --------+--------+----------+-------
	// ACME    |     10 |     1000 |    100
	// ACME    |      4 |      260 |     65
	// (2 rows)
}
