package plan_test

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// A plan is built with the fluent Frame API over a source, resolved (names
// and types checked, schemas computed) and explained, with no data and no
// executor anywhere.
func ExampleScan() {
	schema := plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Int64, Nullable: true},
	)
	t, err := plan.NewTable("t", schema, [][]plan.Value{
		{plan.Int64Value(1), plan.Int64Value(2)},
		{plan.Int64Value(10), plan.NullValue(plan.Int64)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := plan.Scan(t).
		WithColumns(plan.Col("a").Div(plan.Col("b")).Alias("ratio")).
		Filter(plan.Col("a").Gt(plan.Lit(1))).
		Select(plan.Col("ratio"))
	resolved, err := plan.Resolve(p.Node())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan.ExplainSchemas(resolved))
	// Output:
	// project [ratio]  [ratio: int64?]
	//   filter [a > 1]  [a: int64?, b: int64?, ratio: int64?]
	//     with_columns [a / b as ratio]  [a: int64?, b: int64?, ratio: int64?]
	//       scan t  [a: int64?, b: int64?]
}

// hostTable is a host's own table as the optimizer sees it: a name, a
// schema, and which filter conjuncts its storage can apply.
type hostTable struct {
	name   string
	schema plan.Schema
}

func (h *hostTable) Name() string        { return h.name }
func (h *hostTable) Schema() plan.Schema { return h.schema }

// ClassifyPredicates: the storage applies comparisons of a column with a
// literal exactly, and nothing else. One answer per conjunct, in order.
func (h *hostTable) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conjuncts))
	for i, e := range conjuncts {
		if plan.IsColumnLiteralComparison(e) {
			out[i] = plan.Exact
		}
	}
	return out
}

// A host implements plan.Source on its own tables, and optionally
// plan.PredicateClassifier; the optimizer asks through ClassifyPredicates,
// which turns a misbehaving answer into the safe one (Unsupported).
func ExampleSource() {
	src := &hostTable{name: "events", schema: plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64},
		plan.Field{Name: "kind", Type: plan.String, Nullable: true},
	)}
	conjuncts := []plan.Expr{
		plan.Col("id").Ge(plan.Lit(100)).Expr(),
		plan.Col("kind").IsNull().Expr(),
	}
	answers, err := plan.ClassifyPredicates(src, conjuncts)
	for i, a := range answers {
		fmt.Printf("%s: %s\n", conjuncts[i], a)
	}
	fmt.Println("error:", err)
	// Output:
	// id >= 100: exact
	// is_null(kind): unsupported
	// error: <nil>
}

// A host operator is declared with the properties it guarantees; the
// legality table lets rules cross it accordingly. Resolve derives its
// output schema and checks it against what it declares.
func ExampleExtensionDef() {
	tag := &plan.ExtensionDef{
		Name:       "geo_tag",
		Inputs:     1,
		Properties: []plan.ExtensionProperty{plan.RowPreserving, plan.OrderPreserving, plan.ColumnPassthrough, plan.DeterministicOp},
		OutputSchema: func(in []plan.Schema) (plan.Schema, error) {
			return plan.NewSchema(append(in[0].Fields(), plan.Field{Name: "region", Type: plan.String, Nullable: true})...)
		},
		Reads: func(plan.Schema) []string { return []string{"lat"} },
	}
	reg, err := plan.NewExtensionRegistry(tag)
	if err != nil {
		fmt.Println(err)
		return
	}
	def, _ := reg.Lookup("geo_tag")
	src := &hostTable{name: "points", schema: plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64},
		plan.Field{Name: "lat", Type: plan.Float64},
	)}
	n, err := plan.Resolve(plan.Scan(src).Extension(def).Node())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Label(), n.Schema())
	// An undeclarable property is rejected.
	err = reg.Register(&plan.ExtensionDef{Name: "x", Inputs: 1, Properties: []plan.ExtensionProperty{"commutative"}})
	fmt.Println(err)
	// Output:
	// extension geo_tag [id: int64, lat: float64, region: string?]
	// register extension "x": unknown property "commutative" (declarable: [row_preserving column_passthrough order_preserving deterministic])
}
