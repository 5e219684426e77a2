package planjson

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// windowTable is a small table for window tests.
func windowTable(t *testing.T) *plan.Table {
	t.Helper()
	tab, err := plan.NewTable("w", plan.MustSchema(
		plan.Field{Name: "k", Type: plan.String, Nullable: true},
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
	), [][]plan.Value{
		{plan.StringValue("x"), plan.StringValue("y")},
		{plan.Int64Value(1), plan.NullValue(plan.Int64)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// roundTrip encodes a plan over tab, decodes it, and returns the decoded
// plan (rebased onto tab) and the encoding.
func roundTrip(t *testing.T, tab *plan.Table, n plan.Node) (plan.Node, string) {
	t.Helper()
	doc := &Document{Tables: map[string]*TableSpec{tab.Name(): {Inline: tab}}, Plan: n}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc2, err := Decode(out, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	back, err := rebaseScans(doc2.Plan, doc2.Tables, doc.Tables)
	if err != nil {
		t.Fatal(err)
	}
	return back, string(out)
}

// TestWindowFold: a resolved plan's synthesized window folds back into the
// over() the user wrote, and resolving the decoded plan synthesizes the same
// window again.
func TestWindowFold(t *testing.T) {
	tab := windowTable(t)
	a, k := plan.Col("a"), plan.Col("k")
	tests := []struct {
		name string
		plan plan.Node
		want plan.Node // nil: the plan as written
	}{
		{"with_columns, aliased", plan.Scan(tab).WithColumns(a.Sum().Over(k).Alias("s")).Node(), nil},
		{"project, unaliased (resolve adds the alias)", plan.Scan(tab).Select(a.Sum().Over(k)).Node(), nil},
		// The one thing folding cannot tell apart: an alias the user wrote
		// that names the expression what it would be named anyway. It is
		// dropped, which changes neither the schema nor the resolved plan.
		{"project, alias that resolve would add anyway", plan.Scan(tab).Select(k, a.Sum().Over(k).Alias("a")).Node(),
			plan.Scan(tab).Select(k, a.Sum().Over(k)).Node()},
		{"several overs in one expression and across expressions", plan.Scan(tab).Select(
			a.Sum().Over(k).Add(a.Max().Over(k)).Alias("x"), k, plan.Len().Over(k), a.Count().Over(k, a).Alias("c")).Node(), nil},
		{"over under other functions", plan.Scan(tab).WithColumns(
			plan.If(a.Gt(plan.Lit(0)), a.First().Over(k), plan.Lit(int64(7))).Alias("a")).Node(), nil},
		{"no partition key", plan.Scan(tab).WithColumns(a.Sum().Over().Alias("s"),
			plan.RowNumber().OverOrdered(nil, plan.Desc(a)).Alias("r")).Node(), nil},
		{"two windowed nodes in a chain", plan.Scan(tab).WithColumns(a.Sum().Over(k).Alias("s")).
			Filter(a.IsNotNull()).Select(plan.Col("s").Min().Over(k).Alias("m")).Node(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r1, err := plan.Resolve(tt.plan)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan.Explain(r1), "window") {
				t.Fatalf("test plan synthesizes no window:\n%s", plan.Explain(r1))
			}
			back, out := roundTrip(t, tab, r1)
			if strings.Contains(out, `"window"`) || strings.Contains(out, "__over_") {
				t.Fatalf("the window was not folded:\n%s", out)
			}
			want := tt.want
			if want == nil {
				want = tt.plan
			}
			if !plan.Equal(back, want) {
				t.Errorf("folding gave\n%s\nwant\n%s", plan.Explain(back), plan.Explain(want))
			}
			r2, err := plan.Resolve(back)
			if err != nil {
				t.Fatal(err)
			}
			if !plan.Equal(r1, r2) {
				t.Errorf("re-resolving gave\n%s\nwant\n%s", plan.Explain(r2), plan.Explain(r1))
			}
		})
	}
}

// TestWindowNoFold: when folding would change what the window evaluates
// (an unread window column, reads out of order or twice), the window is
// written as an explicit "window" node and comes back unchanged.
func TestWindowNoFold(t *testing.T) {
	tab := windowTable(t)
	scan := plan.Scan(tab).Node()
	over := func(name string, agg plan.E) plan.Expr {
		return &plan.Alias{Expr: agg.Over(plan.Col("k")).Expr(), Name: name}
	}
	win := &plan.WindowNode{Input: scan, Exprs: []plan.Expr{over("__over_0", plan.Col("a").Sum()), over("__over_1", plan.Col("a").Max())}}
	col := func(n string) plan.Expr { return &plan.Column{Name: n} }
	tests := []struct {
		name string
		plan plan.Node
	}{
		{"a window column nobody reads (pruned above)", &plan.ProjectNode{Input: win, Exprs: []plan.Expr{col("a"), col("__over_1")}}},
		{"read out of order", &plan.ProjectNode{Input: win, Exprs: []plan.Expr{col("__over_1"), col("__over_0")}}},
		{"read twice", &plan.WithColumnsNode{Input: win, Exprs: []plan.Expr{
			&plan.Alias{Expr: col("__over_0"), Name: "x"}, &plan.Alias{Expr: col("__over_0"), Name: "y"}, col("__over_1")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r1, err := plan.Resolve(tt.plan)
			if err != nil {
				t.Fatal(err)
			}
			back, out := roundTrip(t, tab, r1)
			if !strings.Contains(out, `"op": "window"`) {
				t.Fatalf("no explicit window node:\n%s", out)
			}
			if !plan.Equal(back, tt.plan) {
				t.Errorf("got\n%s\nwant\n%s", plan.Explain(back), plan.Explain(tt.plan))
			}
			r2, err := plan.Resolve(back)
			if err != nil {
				t.Fatal(err)
			}
			if !plan.Equal(r1, r2) || !r1.Schema().Equal(r2.Schema()) {
				t.Errorf("re-resolving gave\n%s\nwant\n%s", plan.ExplainSchemas(r2), plan.ExplainSchemas(r1))
			}
		})
	}
}
