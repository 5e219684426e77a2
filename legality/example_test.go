package legality_test

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Pushdown asks the table whether one conjunct may move below one node,
// and names every cell it consulted: a filter crosses a total with_columns,
// but not one whose value can raise.
func ExampleTable_Pushdown() {
	t, _ := plan.NewTable("t", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Int64, Nullable: true},
	), [][]plan.Value{nil, nil})
	conjunct := plan.Col("b").Ne(plan.Lit(0)).Expr()
	for _, value := range []plan.E{plan.Col("a"), plan.Col("a").Div(plan.Col("b"))} {
		n, err := plan.Resolve(plan.Scan(t).WithColumns(value.Alias("x")).Node())
		if err != nil {
			fmt.Println(err)
			return
		}
		r := legality.Default().Pushdown(conjunct, n)
		fmt.Printf("%s below %s: allowed=%v\n", conjunct, n.Label(), r.Allowed)
		for _, d := range r.Decisions {
			fmt.Println("  ", d)
		}
	}
	// Output:
	// b != 0 below with_columns [a as x]: allowed=true
	//    pp.deterministic allowed
	//    pp.with_columns allowed
	//    pp.with_columns.shadow allowed
	// b != 0 below with_columns [a / b as x]: allowed=false
	//    pp.deterministic allowed
	//    pp.with_columns refused (`a / b as x` is partial)
}

// A host operator crosses only as far as its declared properties let it:
// each property has its own cell.
func ExampleTable_PushdownNode() {
	t, _ := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true}), [][]plan.Value{nil})
	ops := []*plan.ExtensionDef{
		{Name: "audit", Inputs: 1, Properties: []plan.ExtensionProperty{plan.RowPreserving, plan.OrderPreserving, plan.DeterministicOp, plan.ColumnPassthrough}},
		{Name: "shuffle", Inputs: 1, Properties: []plan.ExtensionProperty{plan.RowPreserving, plan.DeterministicOp, plan.ColumnPassthrough}},
		{Name: "opaque", Inputs: 1},
	}
	for _, op := range ops {
		n, err := plan.Resolve(plan.Scan(t).Extension(op).Node())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(op.Name+":", legality.Default().PushdownNode(n).Decision())
	}
	// Output:
	// audit: pp.extension.deterministic allowed
	// shuffle: pp.extension.order_preserving refused (shuffle does not declare order_preserving)
	// opaque: pp.extension refused (extension is a barrier)
}

// A mutation campaign flips one cell at a time; the table is immutable, so
// a flipped copy affects nobody else.
func ExampleTable_Flipped() {
	mutant, err := legality.Default().Flipped(legality.PPSort)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(legality.Default().Verdict(legality.PPSort), "->", mutant.Verdict(legality.PPSort), mutant.Overrides())
	// Output:
	// crosses-if -> crosses [pp.sort]
}
