package planutil

import (
	"reflect"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func table(t *testing.T) *plan.Table {
	t.Helper()
	tab, err := plan.NewTable("t0", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "k", Type: plan.String}),
		[][]plan.Value{{plan.Int64Value(1)}, {plan.StringValue("x")}})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestSubtermsAndReplaceAt(t *testing.T) {
	e := Call(plan.FuncGt, Call(plan.FuncAdd, Col("a"), Lit(plan.Int64Value(1))), Lit(plan.Int64Value(0)))
	subs := Subterms(e)
	var texts []string
	var sizes []int
	for _, s := range subs {
		texts = append(texts, s.Expr.String())
		sizes = append(sizes, s.Size)
	}
	if want := []string{"a + 1 > 0", "a + 1", "a", "1", "0"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("subterms %v, want %v", texts, want)
	}
	if want := []int{5, 3, 1, 1, 1}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("sizes %v, want %v", sizes, want)
	}
	got := ReplaceAt(e, subs[2].Path, Col("b"))
	if got.String() != "b + 1 > 0" || e.String() != "a + 1 > 0" {
		t.Errorf("ReplaceAt gave %s (original now %s)", got, e)
	}
	if ExprSize(e) != 5 {
		t.Errorf("ExprSize %d, want 5", ExprSize(e))
	}
}

func TestEntryEdits(t *testing.T) {
	tab := table(t)
	s := ScanOf(tab)
	join := &plan.JoinNode{Left: s, Right: s, How: plan.InnerJoin,
		LeftOn: []plan.Expr{Col("a"), Col("k")}, RightOn: []plan.Expr{Col("a"), Col("k")}}
	tests := []struct {
		name string
		got  plan.Node
		want string
	}{
		{"drop a join key pair", WithoutEntry(join, 0, 1), "join inner on=[a = a]"},
		{"replace a right key", WithEntry(join, 1, 0, Col("k")), "join inner on=[a = k, k = k]"},
		{"append a conjunct", WithAppended(&plan.FilterNode{Input: s, Predicates: []plan.Expr{Col("k")}}, 0, Lit(plan.BoolValue(true))), "filter [k, true]"},
		{"drop an aggregate", WithoutEntry(&plan.AggregateNode{Input: s, Keys: []plan.Expr{Col("k")}, Aggs: []plan.Expr{Call(plan.FuncLen)}}, 1, 0), "aggregate keys=[k] aggs=[]"},
		{"sort keys keep their flags", WithoutEntry(&plan.SortNode{Input: s, Keys: []plan.SortKey{{Expr: Col("a")}, {Expr: Col("k"), Desc: true}}}, 0, 0), "sort [k desc]"},
	}
	for _, tt := range tests {
		if got := tt.got.Label(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if join.Label() != "join inner on=[a = a, k = k]" {
		t.Errorf("the original join changed: %s", join.Label())
	}
}

func TestRewriteKeepsSharing(t *testing.T) {
	tab := table(t)
	s := &plan.FilterNode{Input: ScanOf(tab), Predicates: []plan.Expr{Lit(plan.BoolValue(true))}}
	u := &plan.UnionNode{Inputs: []plan.Node{s, s}}
	other, _ := plan.NewTable("t0", tab.Schema(), [][]plan.Value{{plan.NullValue(plan.Int64)}, {plan.StringValue("")}})
	got := RebindScans(u, map[*plan.Table]*plan.Table{tab: other}).(*plan.UnionNode)
	if got.Inputs[0] != got.Inputs[1] {
		t.Error("a shared subtree is no longer shared after RebindScans")
	}
	if src := got.Inputs[0].(*plan.FilterNode).Input.(*plan.ScanNode).Source; src != other {
		t.Error("the scan was not rebound")
	}
	if ScannedTables(got)[tab] || !ScannedTables(got)[other] {
		t.Error("ScannedTables is wrong after the rebind")
	}
	repl := ReplaceNode(u, s, ScanOf(tab)).(*plan.UnionNode)
	if _, ok := repl.Inputs[1].(*plan.ScanNode); !ok || len(Nodes(repl)) != 2 {
		t.Errorf("ReplaceNode did not replace both occurrences: %s", plan.Explain(repl))
	}
}

func TestResolverSchemas(t *testing.T) {
	tab := table(t)
	s := ScanOf(tab)
	w := &plan.WithColumnsNode{Input: s, Exprs: []plan.Expr{Alias(&plan.Over{Agg: Call(plan.FuncSum, Col("a")), PartitionBy: []plan.Expr{Col("k")}}, "s")}}
	f := &plan.FilterNode{Input: w, Predicates: []plan.Expr{Call(plan.FuncGt, Col("s"), Lit(plan.Int64Value(0)))}}
	bad := &plan.FilterNode{Input: f, Predicates: []plan.Expr{Col("zz")}}
	r := NewResolver()
	in, ok := r.InputSchema(f, 0)
	if !ok || in.Names()[2] != "s" {
		t.Errorf("input schema of the filter: %v %v", in, ok)
	}
	in, ok = r.InputSchema(w, 0)
	if !ok || in.Len() != 2 {
		t.Errorf("input schema of the with_columns (window synthesized below it): %v %v", in, ok)
	}
	if _, err := r.Resolve(bad); err == nil {
		t.Error("an unknown column resolved")
	}
	if _, ok := r.InputSchema(bad, 0); !ok {
		t.Error("the input of the broken node should still resolve")
	}
	ty, ok := TypeOfAny(Call(plan.FuncSum, Col("a")), tab.Schema())
	if !ok || ty != plan.Int64 {
		t.Errorf("TypeOfAny(sum(a)) = %v %v", ty, ok)
	}
}

func TestValueRanks(t *testing.T) {
	nanPayload := plan.Float64Value(mathNaNPayload())
	tests := []struct {
		v    plan.Value
		want int
	}{
		{plan.NullValue(plan.Int64), 0},
		{plan.Int64Value(0), 1},
		{plan.StringValue(""), 1},
		{plan.Float64Value(negZero()), 2},
		{plan.Int64Value(7), 2},
		{Canonical(nanPayload), 2},
		{nanPayload, 3},
	}
	for _, tt := range tests {
		if got := ValueComplexity(tt.v); got != tt.want {
			t.Errorf("ValueComplexity(%v) = %d, want %d", tt.v, got, tt.want)
		}
	}
}

func TestIntern(t *testing.T) {
	tab := table(t)
	a := &plan.FilterNode{Input: ScanOf(tab), Predicates: []plan.Expr{Col("k")}}
	b := &plan.FilterNode{Input: ScanOf(tab), Predicates: []plan.Expr{Col("k")}}
	c := &plan.FilterNode{Input: ScanOf(tab), Predicates: []plan.Expr{Lit(plan.BoolValue(true))}}
	u := Intern(&plan.UnionNode{Inputs: []plan.Node{a, b, c}}).(*plan.UnionNode)
	if u.Inputs[0] != u.Inputs[1] {
		t.Error("equal subtrees were not made one node")
	}
	if u.Inputs[2] == u.Inputs[0] {
		t.Error("different subtrees were merged")
	}
	if u.Inputs[2].(*plan.FilterNode).Input != u.Inputs[0].(*plan.FilterNode).Input {
		t.Error("the equal scans below were not made one node")
	}
	if !plan.Equal(u, &plan.UnionNode{Inputs: []plan.Node{a, b, c}}) {
		t.Error("interning changed the plan")
	}
}
