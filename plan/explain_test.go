package plan

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name.golden, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plan -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./plan -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// explainBoth renders a raw plan and its resolution (or the error).
func explainBoth(n Node) string {
	var b strings.Builder
	b.WriteString("raw:\n")
	b.WriteString(Explain(n))
	r, err := Resolve(n)
	if err != nil {
		b.WriteString("error:\n" + err.Error() + "\n")
		return b.String()
	}
	b.WriteString("resolved:\n")
	b.WriteString(ExplainSchemas(r))
	return b.String()
}

// goldenPlans has a plan of every node kind and a few longer chains.
func goldenPlans(t *testing.T) map[string]Node {
	tt := std(t)
	u := table(t, "u", "k:int64", "a:float64?", "v:string")
	st, su := Scan(tt), Scan(u)
	a, b, k, s := Col("a"), Col("b"), Col("k"), Col("s")
	inc := builtinUDF(t, "inc_wrap")
	pushedScan := &ScanNode{Source: tt, SourceSchema: tt.Schema(), Projected: true, Columns: []string{"a", "s"},
		Pushed: []PushedPredicate{{Expr: a.Gt(Lit(1)).Expr(), Support: Exact}, {Expr: s.IsNull().Expr(), Support: Inexact}}}
	return map[string]Node{
		"scan":             st.Node(),
		"scan_pushed":      pushedScan,
		"filter":           st.Filter(a.Div(b).Gt(Lit(1)), s.IsNotNull()).Node(),
		"project":          st.Select(a, b.Mul(Lit(2)).Alias("c"), Lit(1.5), s.Alias("x y")).Node(),
		"with_columns":     st.WithColumns(a.Div(b).Alias("x"), s.StrLen().Alias("a")).Node(),
		"sort":             st.Sort(Desc(a), SortKey{Expr: s.Expr(), NullsLast: true}).Node(),
		"limit":            st.Head(10).Node(),
		"slice":            st.Slice(5, 10).Node(),
		"tail":             st.Tail(3).Node(),
		"reverse":          st.Reverse().Node(),
		"row_index":        st.WithRowIndex("idx", 1).Node(),
		"asof_join":        st.JoinAsof(su, AsofOptions{LeftOn: "k", LeftBy: []string{"s"}, RightBy: []string{"v"}, Strategy: AsofForward, Tolerance: Lit(int64(2))}).Node(),
		"temporal_group":   st.GroupByDynamic("b", Lit(int64(10)), WindowOptions{By: []string{"k"}}, a.Sum().Alias("total"), Len()).Node(),
		"rolling":          st.Rolling("b", Lit(int64(5)), WindowOptions{Closed: ClosedBoth}, a.Max()).Node(),
		"hstack":           st.Select(a, b).HStack(st.Select(k.Alias("k2"))).Node(),
		"merge_sorted":     st.MergeSorted(st, "k").Node(),
		"unpivot":          st.Unpivot([]string{"a", "b"}, []string{"k"}, "", "").Node(),
		"unnest":           Scan(unnestTable(t)).Select(k, Col("s"), Col("l")).Unnest("s").Node(),
		"explode":          Scan(unnestTable(t)).Select(Col("l"), k, Col("s")).Explode("l").Node(),
		"aggregate":        st.GroupBy(k, s).Agg(a.Sum().Alias("total"), Len(), Col("f").Mean()).Node(),
		"aggregate_global": st.Agg(a.Count(), b.Max()).Node(),
		"join_inner":       st.JoinOn(su, InnerJoin, "k").Node(),
		"join_full":        st.Join(su, FullJoin, []E{k, Col("i")}, []E{k, a}).WithSuffix("_u").Node(),
		"join_cross":       st.Select(k).CrossJoin(su).Node(),
		"union":            st.Select(b).Union(st.Select(a.Alias("b"))).Node(),
		"distinct":         st.Distinct("s", "k").Node(),
		"window":           st.Select(k, b.Sum().Over(k).Alias("t"), Len().Over(s)).Node(),
		"extension":        st.Extension(identityExt).Node(),
		"guard":            &GuardNode{Input: st.Node(), Exprs: []Expr{a.Mul(Lit(2)).Add(Lit(1)).Expr(), a.Div(b).Expr()}},
		"error":            st.Select(a).Filter(s.Add(a).Gt(Lit(0))).Node(),
		"chain": st.
			Filter(a.Gt(Lit(0)), Col("q")).
			WithColumns(CallUDF(inc, b).Alias("b1"), b.Sum().Over(k).Alias("bk")).
			JoinOn(su.Filter(Col("v").Ne(Lit(""))), LeftJoin, "k").
			GroupBy(k).Agg(Col("b1").Sum(), Col("bk").Max(), Col("v").Count()).
			Sort(Desc(Col("b1"))).
			Head(5).Node(),
		"literals": st.Select(Lit(int32(-3)).Alias("i32"), Lit(negZero).Alias("nz"), Null(String).Alias("ns"),
			Lit("q\"uote").Alias("str"), a.Cast(Float64).TryCast(Int32).Alias("casts"), Lit(5).Neg().Alias("neg")).Node(),
	}
}

func TestExplainGolden(t *testing.T) {
	plans := goldenPlans(t)
	for _, k := range Kinds() {
		found := false
		for _, p := range plans {
			WalkNodes(mustResolveOrRaw(p), func(n Node) bool { found = found || n.Kind() == k; return !found })
		}
		if !found {
			t.Errorf("no golden plan contains a %s node", k)
		}
	}
	for name, p := range plans {
		t.Run(name, func(t *testing.T) { golden(t, name, explainBoth(p)) })
	}
}

func mustResolveOrRaw(n Node) Node {
	if r, err := Resolve(n); err == nil {
		return r
	}
	return n
}

func TestExplainShape(t *testing.T) {
	st := Scan(std(t))
	n := st.Filter(Col("q")).JoinOn(st.Head(1), InnerJoin, "k").Node()
	want := "join inner on=[k = k]\n  filter [q]\n    scan t\n  limit 1\n    scan t\n"
	if got := Explain(n); got != want {
		t.Errorf("Explain:\n%s\nwant\n%s", got, want)
	}
	if Explain(nil) != "<nil>\n" || ExplainSchemas(nil) != "<nil>\n" {
		t.Error("nil explains wrongly")
	}
	if got := Explain(&FilterNode{Predicates: []Expr{Col("q").Expr()}}); got != "filter [q]\n  <nil>\n" {
		t.Errorf("a missing child explains as %q", got)
	}
	if got := ExplainSchemas(&LimitNode{Input: (*ProjectNode)(nil)}); got != "limit 0\n  <nil>\n" {
		t.Errorf("a typed nil child explains as %q", got)
	}
	// ExplainSchemas of an unresolved plan has no schemas.
	if ExplainSchemas(n) != Explain(n) {
		t.Error("ExplainSchemas shows schemas of an unresolved plan")
	}
}
