package proptest

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestFeaturesOnHandBuiltCases checks the shape names Features reports
// (and does not report) on small plans.
func TestFeaturesOnHandBuiltCases(t *testing.T) {
	tab, err := plan.NewTable("t0", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "p", Type: plan.Bool}),
		[][]plan.Value{{plan.Int64Value(1)}, {plan.Int64Value(0)}, {plan.BoolValue(true)}})
	if err != nil {
		t.Fatal(err)
	}
	s := scanOf(tab)
	gt0 := func(name string) plan.Expr { return call(plan.FuncGt, col(name), lit(plan.Int64Value(0))) }
	total := &plan.WithColumnsNode{Input: s, Exprs: []plan.Expr{named(lit(plan.Int64Value(1)), "x")}}
	partial := &plan.WithColumnsNode{Input: s, Exprs: []plan.Expr{named(call(plan.FuncDiv, col("a"), col("b")), "x")}}
	withU := &plan.WithColumnsNode{Input: s, Exprs: append(append([]plan.Expr(nil), partial.Exprs...), named(lit(plan.Int64Value(2)), "u"))}
	nd := &plan.WithColumnsNode{Input: s, Exprs: []plan.Expr{named(&plan.UDFCall{UDF: mustUDF(t, "nd_seq"), Args: []plan.Expr{col("a")}}, "n")}}
	selfJoin := &plan.JoinNode{Left: nd, Right: nd, How: plan.InnerJoin, LeftOn: []plan.Expr{col("a")}, RightOn: []plan.Expr{col("a")}}
	tests := []struct {
		name    string
		plan    plan.Node
		want    []string
		notWant []string
	}{
		{"filter over total with_columns", &plan.FilterNode{Input: total, Predicates: []plan.Expr{col("p")}},
			[]string{"node:filter", "node:with_columns", "shape:filter/with_columns+total", "node:scan"},
			[]string{"shape:filter/with_columns+partial", "shape:filter_chain"}},
		{"filter over partial with_columns", &plan.FilterNode{Input: partial, Predicates: []plan.Expr{gt0("a")}},
			[]string{"shape:filter/with_columns+partial", "fn:div", "fn:gt", "expr:alias"},
			[]string{"shape:filter/with_columns+total"}},
		{"adjacent filters, total outer", &plan.FilterNode{Input: &plan.FilterNode{Input: s, Predicates: []plan.Expr{gt0("a")}}, Predicates: []plan.Expr{col("p")}},
			[]string{"shape:filter_chain", "shape:filter_chain_total_outer", "shape:filter/filter"}, nil},
		{"adjacent filters, partial outer", &plan.FilterNode{Input: &plan.FilterNode{Input: s, Predicates: []plan.Expr{col("p")}}, Predicates: []plan.Expr{gt0("a")}},
			[]string{"shape:filter_chain"}, []string{"shape:filter_chain_total_outer"}},
		{"non-deterministic self-join under a nested union", &plan.UnionNode{Inputs: []plan.Node{selfJoin, selfJoin}},
			[]string{"shape:self_join", "shape:union_same", "shape:nested_shared", "shape:nd_shared", "udf:nd_seq", "join:inner"}, nil},
		{"select reading a with_columns value twice, one output dead", &plan.ProjectNode{Input: withU,
			Exprs: []plan.Expr{named(call(plan.FuncAdd, col("x"), col("x")), "y")}},
			[]string{"shape:project/with_columns", "shape:fusion_ref2", "shape:dead_entry"}, []string{"shape:fusion_ref1"}},
		{"rename and shadow", &plan.ProjectNode{Input: s, Exprs: []plan.Expr{named(col("a"), "z"), named(col("b"), "a")}},
			[]string{"shape:rename", "shape:shadow"}, nil},
		{"window under a filter", &plan.FilterNode{Input: &plan.WithColumnsNode{Input: s, Exprs: []plan.Expr{
			named(&plan.Over{Agg: call(plan.FuncSum, col("a")), PartitionBy: []plan.Expr{col("p")}}, "w")}}, Predicates: []plan.Expr{gt0("w")}},
			[]string{"node:window", "expr:over", "fn:sum", "shape:filter/window+partial"}, []string{"node:with_columns"}},
		{"nd_seq filter over a computed sort", &plan.FilterNode{Input: &plan.SortNode{Input: s, Keys: []plan.SortKey{{Expr: call(plan.FuncNeg, col("a"))}}},
			Predicates: []plan.Expr{call(plan.FuncGt, &plan.UDFCall{UDF: mustUDF(t, "nd_seq"), Args: []plan.Expr{col("a")}}, lit(plan.Int64Value(1)))}},
			[]string{"shape:nd_filter_over_sort", "shape:sort_computed_key", "shape:filter/sort+partial"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]bool{}
			for _, f := range Features(Case{Tables: []*plan.Table{tab}, Plan: tt.plan}) {
				got[f] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("missing %s in %v", w, got)
				}
			}
			for _, w := range tt.notWant {
				if got[w] {
					t.Errorf("unexpected %s", w)
				}
			}
		})
	}
}

func mustUDF(t *testing.T, name string) *plan.UDF {
	t.Helper()
	u, ok := UDFs().Lookup(name)
	if !ok {
		t.Fatalf("no UDF %s", name)
	}
	return u
}
