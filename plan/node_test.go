package plan

import (
	"strings"
	"testing"
)

// nodeCase is one node of every kind with its expected label.
type nodeCase struct {
	n     Node
	label string
}

// everyKind returns one raw node of every kind over scans of t (and u for
// the binary nodes), with the label each must render.
func everyKind(t testing.TB) []nodeCase {
	t.Helper()
	tt, u := std(t), table(t, "u", "k:int64", "a:float64?", "v:string")
	scanT := Scan(tt)
	scanU := Scan(u)
	identity := identityExt
	pair := &ExtensionDef{Name: "zip", Inputs: 2}
	projected := &ScanNode{Source: tt, SourceSchema: tt.Schema(), Projected: true, Columns: []string{"a", "s"},
		Pushed: []PushedPredicate{{Expr: Col("a").Gt(Lit(1)).Expr(), Support: Exact}, {Expr: Col("s").IsNull().Expr(), Support: Inexact}}}
	return []nodeCase{
		{scanT.Node(), "scan t"},
		{projected, "scan t columns=[a, s] pushed=[a > 1 (exact), is_null(s) (inexact)]"},
		{&ScanNode{Source: tt, SourceSchema: tt.Schema(), Projected: true}, "scan t columns=[]"},
		{scanT.Filter(Col("a").Gt(Lit(1)), Col("b").Ne(Lit(0))).Node(), "filter [a > 1, b != 0]"},
		{scanT.Select(Col("a"), Col("b").Mul(Lit(2)).Alias("c")).Node(), "project [a, b * 2 as c]"},
		{scanT.WithColumns(Col("a").Div(Col("b")).Alias("x")).Node(), "with_columns [a / b as x]"},
		{scanT.Sort(Desc(Col("a")), Asc(Col("b")), SortKey{Expr: Col("s").Expr(), Desc: true, NullsLast: true}, SortKey{Expr: Col("f").Expr(), NullsLast: true}).Node(),
			"sort [a desc, b, s desc nulls_last, f nulls_last]"},
		{scanT.Head(10).Node(), "limit 10"},
		{scanT.Slice(5, 10).Node(), "slice offset=5 len=10"},
		{scanT.Tail(3).Node(), "tail 3"},
		{scanT.Reverse().Node(), "reverse"},
		{scanT.WithRowIndex("idx", 0).Node(), "row_index idx offset=0"},
		{scanT.WithRowIndex("row no", 7).Node(), `row_index "row no" offset=7`},
		{scanT.JoinAsof(scanU, AsofOptions{LeftOn: "k"}).Node(), "asof_join backward on=[k = k]"},
		{scanT.JoinAsof(scanU, AsofOptions{LeftOn: "a", RightOn: "k", LeftBy: []string{"k"}, Strategy: AsofNearest,
			Tolerance: Lit(int64(5)), ExcludeExact: true, Suffix: "_r"}).Node(),
			"asof_join nearest on=[a = k] by=[k = k] tolerance=5 exact=false suffix=_r"},
		{scanT.GroupByDynamic("a", Lit(int64(10)), WindowOptions{Period: Lit(int64(20)), Closed: ClosedBoth, Label: LabelRight, By: []string{"k"}},
			Col("b").Sum()).Node(), "temporal_group dynamic index=a every=10 period=20 closed=both label=right by=[k] aggs=[sum(b)]"},
		{scanT.Rolling("a", Lit(int64(3)), WindowOptions{}, Len()).Node(), "temporal_group rolling index=a period=3 aggs=[len()]"},
		{scanT.Select(Col("a")).HStack(scanT.Select(Col("b"))).Node(), "hstack"},
		{scanT.MergeSorted(scanT, "k").Node(), "merge_sorted key=k"},
		{scanT.Unpivot([]string{"a", "b"}, nil, "", "").Node(), "unpivot on=[a, b] index=* variable=variable value=value"},
		{scanT.Unpivot([]string{"a"}, []string{"k"}, "var", "my val").Node(), `unpivot on=[a] index=[k] variable=var value="my val"`},
		{scanT.Unnest("s", "my s").Node(), `unnest [s, "my s"]`},
		{scanT.Explode("l", "m").Node(), `explode [l, m]`},
		{scanT.GroupBy(Col("k")).Agg(Col("a").Sum().Alias("s"), Len()).Node(), "aggregate keys=[k] aggs=[sum(a) as s, len()]"},
		{scanT.Agg(Col("a").Sum()).Node(), "aggregate keys=[] aggs=[sum(a)]"},
		{scanT.JoinOn(scanU, InnerJoin, "k").Node(), "join inner on=[k = k]"},
		{scanT.Join(scanU, LeftJoin, []E{Col("k"), Col("a")}, []E{Col("k"), Col("a").Cast(Int64)}).WithSuffix("_r").Node(),
			`join left on=[k = k, a = cast(a, int64)] suffix="_r"`},
		{scanT.JoinOn(scanU, FullJoin, "k").WithSuffix(DefaultJoinSuffix).Node(), "join full on=[k = k]"},
		{scanT.CrossJoin(scanU).Node(), "join cross"},
		{&JoinNode{Left: scanT.Node(), Right: scanU.Node(), How: SemiJoin, LeftOn: []Expr{Col("k").Expr()}}, "join semi on=[k = ?]"},
		{&JoinNode{Left: scanT.Node(), Right: scanU.Node(), How: AntiJoin, RightOn: []Expr{Col("k").Expr()}}, "join anti on=[? = k]"},
		{&JoinNode{Left: scanT.Node(), Right: scanU.Node(), How: JoinKind(9)}, "join invalid"},
		{scanT.Union(scanT, scanT).Node(), "union"},
		{scanT.Distinct().Node(), "distinct"},
		{scanT.Distinct("a", "x y").Node(), `distinct [a, "x y"]`},
		{&WindowNode{Input: scanT.Node(), Exprs: []Expr{Col("a").Sum().Over(Col("k")).Alias("__over_0").Expr()}}, "window [sum(a).over(k) as __over_0]"},
		{scanT.Extension(identity).Node(), "extension identity"},
		{&GuardNode{Input: scanT.Node(), Exprs: []Expr{Col("a").Mul(Lit(2)).Add(Lit(1)).Expr(), Col("a").Div(Col("b")).Expr()}}, "guard [a * 2 + 1, a / b]"},
		{scanT.Extension(pair, scanU).Node(), "extension zip"},
		{&ExtensionNode{Inputs: []Node{scanT.Node()}}, "extension <undeclared>"},
		{&ScanNode{}, "scan <no source>"},
		{&ScanNode{Source: panicSource{}}, "scan <source>"},
		{Scan(table(t, "my table", "a:int64")).Node(), `scan "my table"`},
	}
}

// panicSource is a host source whose every method panics.
type panicSource struct{}

func (panicSource) Name() string   { panic("Name") }
func (panicSource) Schema() Schema { panic("Schema") }

func TestKindNames(t *testing.T) {
	want := []string{"scan", "filter", "project", "with_columns", "sort", "limit", "slice", "aggregate", "join", "union", "distinct", "window", "extension", "guard", "tail", "reverse", "row_index", "asof_join", "temporal_group", "hstack", "merge_sorted", "unpivot", "unnest", "explode"}
	ks := Kinds()
	if len(ks) != len(want) {
		t.Fatalf("Kinds() = %v", ks)
	}
	for i, k := range ks {
		if k.String() != want[i] {
			t.Errorf("%d.String() = %q, want %q", k, k, want[i])
		}
	}
	if KindInvalid.String() != "invalid" || Kind(200).String() != "invalid" {
		t.Error("invalid kinds misrender")
	}
	jk := []string{"inner", "left", "right", "full", "semi", "anti", "cross"}
	for i, k := range JoinKinds() {
		if k.String() != jk[i] {
			t.Errorf("join kind %d = %q", k, k)
		}
		if back, ok := ParseJoinKind(jk[i]); !ok || back != k {
			t.Errorf("ParseJoinKind(%q) = %v, %v", jk[i], back, ok)
		}
	}
	if _, ok := ParseJoinKind("outer"); ok {
		t.Error("ParseJoinKind(outer) succeeded")
	}
	if JoinKind(7).String() != "invalid" {
		t.Error("invalid join kind misrenders")
	}
	for _, tc := range []struct {
		p    PredicateSupport
		want string
	}{{Unsupported, "unsupported"}, {Inexact, "inexact"}, {Exact, "exact"}, {PredicateSupport(9), "unsupported"}} {
		if tc.p.String() != tc.want {
			t.Errorf("%d.String() = %q", tc.p, tc.p)
		}
	}
}

func TestNodeLabelsAndChildren(t *testing.T) {
	seen := map[Kind]bool{}
	for _, tc := range everyKind(t) {
		seen[tc.n.Kind()] = true
		if got := tc.n.Label(); got != tc.label {
			t.Errorf("Label() = %q, want %q", got, tc.label)
		}
		if tc.n.Resolved() || tc.n.Schema().Len() != 0 {
			t.Errorf("%s: a freshly built node claims to be resolved", tc.label)
		}
	}
	for _, k := range Kinds() {
		if !seen[k] {
			t.Errorf("no case for kind %s", k)
		}
	}
}

// TestWithChildren checks, for every kind, that WithChildren returns a new,
// unresolved node with the given children and the same parameters, and
// leaves the original (resolved or not) untouched.
func TestWithChildren(t *testing.T) {
	for _, tc := range everyKind(t) {
		n := tc.n
		kids := n.Children()
		want := 1
		switch {
		case n.Kind() == KindScan:
			want = 0
		case n.Kind() == KindJoin, n.Kind() == KindAsOfJoin, n.Kind() == KindHStack, n.Kind() == KindMergeSorted, tc.label == "extension zip":
			want = 2
		case n.Kind() == KindUnion:
			want = 3
		}
		if len(kids) != want {
			t.Errorf("%s: %d children, want %d", tc.label, len(kids), want)
		}
		// Replace every child by a distinct scan, then check.
		repl := make([]Node, len(kids))
		for i := range kids {
			repl[i] = Scan(table(t, "r"+string(rune('0'+i)), "k:int64")).Node()
		}
		before := Explain(n)
		fp := Fingerprint(n)
		c := n.WithChildren(repl)
		if c == n {
			t.Errorf("%s: WithChildren returned the receiver", tc.label)
		}
		if c.Kind() != n.Kind() || c.Label() != n.Label() || c.Resolved() {
			t.Errorf("%s: WithChildren gave %s (resolved=%v)", tc.label, c.Label(), c.Resolved())
		}
		got := c.Children()
		if len(got) != len(repl) {
			t.Fatalf("%s: copy has %d children", tc.label, len(got))
		}
		for i := range got {
			if got[i] != repl[i] {
				t.Errorf("%s: child %d is not the replacement", tc.label, i)
			}
		}
		if Explain(n) != before || Fingerprint(n) != fp {
			t.Errorf("%s: WithChildren mutated the original", tc.label)
		}
		// Children() of variadic nodes returns a copy.
		if len(kids) > 0 {
			kids[0] = nil
			if n.Children()[0] == nil {
				t.Errorf("%s: Children() exposes the node's own slice", tc.label)
			}
		}
		// The replacement slice may be reused by the caller.
		if len(repl) > 0 && (n.Kind() == KindUnion || n.Kind() == KindExtension) {
			repl[0] = nil
			if c.Children()[0] == nil {
				t.Errorf("%s: WithChildren kept the caller's slice", tc.label)
			}
		}
	}
}

// TestWithChildrenOfResolved checks that copying a resolved node drops its
// resolution but not the original's.
func TestWithChildrenOfResolved(t *testing.T) {
	for _, tc := range everyKind(t) {
		r, err := Resolve(tc.n)
		if err != nil {
			continue // invalid by design (undeclared extension, invalid join kind, ...)
		}
		c := r.WithChildren(r.Children())
		if c.Resolved() || c.Schema().Len() != 0 {
			t.Errorf("%s: the copy of a resolved node is resolved", tc.label)
		}
		if !r.Resolved() || r.Schema().Len() == 0 && r.Kind() != KindScan {
			t.Errorf("%s: copying unresolved the original", tc.label)
		}
		again := mustResolve(t, c)
		if !Equal(again, r) || !again.Schema().Equal(r.Schema()) || Fingerprint(again) != Fingerprint(r) {
			t.Errorf("%s: re-resolving the copy differs:\n%s\nvs\n%s", tc.label, ExplainSchemas(again), ExplainSchemas(r))
		}
	}
}

func TestNodeExprsAndWalk(t *testing.T) {
	for _, tc := range everyKind(t) {
		var want []string
		switch n := tc.n.(type) {
		case *ScanNode:
			for _, p := range n.Pushed {
				want = append(want, p.Expr.String())
			}
		case *FilterNode:
			want = strs(n.Predicates)
		case *ProjectNode:
			want = strs(n.Exprs)
		case *WithColumnsNode:
			want = strs(n.Exprs)
		case *SortNode:
			for _, k := range n.Keys {
				want = append(want, k.Expr.String())
			}
		case *AggregateNode:
			want = append(strs(n.Keys), strs(n.Aggs)...)
		case *JoinNode:
			want = append(strs(n.LeftOn), strs(n.RightOn)...)
		case *WindowNode:
			want = strs(n.Exprs)
		case *TemporalGroupNode:
			want = strs(n.Aggs)
		}
		got := strs(NodeExprs(tc.n))
		if len(got) != len(want) {
			t.Errorf("%s: NodeExprs = %q, want %q", tc.label, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: NodeExprs = %q, want %q", tc.label, got, want)
			}
		}
	}
	// WalkNodes: parents first, left before right, pruned on false.
	tt := Scan(std(t))
	n := tt.Filter(Col("q")).JoinOn(tt.Head(1), InnerJoin, "k").Node()
	var order []string
	WalkNodes(n, func(m Node) bool { order = append(order, m.Kind().String()); return m.Kind() != KindLimit })
	if got := strings.Join(order, " "); got != "join filter scan limit" {
		t.Errorf("WalkNodes order = %s", got)
	}
	WalkNodes(nil, func(Node) bool { t.Error("visited nil"); return true })
}

func strs(es []Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}
