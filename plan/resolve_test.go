package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// resolveCase resolves a raw plan and checks either its root schema or its
// error.
type resolveCase struct {
	name   string
	plan   Node
	schema string   // Schema.String() of the root, when no error
	err    *wantErr // the expected error
}

// wantErr is an expected resolution error; empty fields are not checked
// except Kind and Path, which always are.
type wantErr struct {
	kind ErrorKind
	path string
	node string
	expr string
	msg  string // a substring of Msg
}

func checkErr(t *testing.T, name string, err error, w *wantErr) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s at %s", name, w.kind, w.path)
		return
	}
	pe, ok := AsError(err)
	if !ok {
		t.Errorf("%s: %v is not a *Error", name, err)
		return
	}
	if pe.Kind != w.kind || pe.Path != w.path {
		t.Errorf("%s: got %s at %q, want %s at %q (%v)", name, pe.Kind, pe.Path, w.kind, w.path, err)
	}
	if w.node != "" && pe.Node != w.node {
		t.Errorf("%s: node %q, want %q", name, pe.Node, w.node)
	}
	if pe.Node == "" && w.path != "plan" {
		t.Errorf("%s: the error names no node", name)
	}
	if w.expr != "" && pe.Expr != w.expr {
		t.Errorf("%s: expr %q, want %q", name, pe.Expr, w.expr)
	}
	if !strings.Contains(pe.Msg, w.msg) {
		t.Errorf("%s: message %q does not contain %q", name, pe.Msg, w.msg)
	}
}

func runResolveCases(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		before := Explain(tc.plan)
		got, err := Resolve(tc.plan)
		if after := Explain(tc.plan); after != before {
			t.Errorf("%s: Resolve mutated its input:\n%s\nbecame\n%s", tc.name, before, after)
		}
		WalkNodes(tc.plan, func(n Node) bool {
			if n.Resolved() {
				t.Errorf("%s: Resolve marked an input node resolved: %s", tc.name, n.Label())
			}
			return true
		})
		if tc.err != nil {
			if got != nil {
				t.Errorf("%s: a failed Resolve returned a plan", tc.name)
			}
			checkErr(t, tc.name, err, tc.err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s := got.Schema().String(); s != tc.schema {
			t.Errorf("%s: schema\n got %s\nwant %s", tc.name, s, tc.schema)
		}
		WalkNodes(got, func(n Node) bool {
			if !n.Resolved() {
				t.Errorf("%s: node %s of the result is unresolved", tc.name, n.Label())
			}
			return true
		})
	}
}

const stdSchemaText = "[a: int64?, b: int64, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool]"

func TestResolveScanFilterProjectSort(t *testing.T) {
	tt := std(t)
	st := Scan(tt)
	a, b, s, k := Col("a"), Col("b"), Col("s"), Col("k")
	scan := func(projected bool, cols []string, pushed ...PushedPredicate) Node {
		return &ScanNode{Source: tt, SourceSchema: tt.Schema(), Projected: projected, Columns: cols, Pushed: pushed}
	}
	runResolveCases(t, []resolveCase{
		{name: "scan", plan: st.Node(), schema: stdSchemaText},
		{name: "scan projection", plan: scan(true, []string{"s", "a"}), schema: "[s: string?, a: int64?]"},
		{name: "scan empty projection", plan: scan(true, nil), schema: "[]"},
		{name: "scan unprojected ignores columns", plan: scan(false, []string{"zz"}), schema: stdSchemaText},
		{name: "scan pushed", plan: scan(false, nil, PushedPredicate{Expr: a.Gt(Lit(1)).Expr(), Support: Exact}), schema: stdSchemaText},
		{name: "scan pushed reads unprojected column", plan: scan(true, []string{"s"}, PushedPredicate{Expr: a.Gt(Lit(1)).Expr(), Support: Inexact}), schema: "[s: string?]"},
		{name: "scan unknown column", plan: scan(true, []string{"a", "zz"}),
			err: &wantErr{kind: UnknownColumn, path: "plan.columns[1]", node: "scan t columns=[a, zz]", expr: "zz", msg: `scan: source t has no column "zz"`}},
		{name: "scan duplicate column", plan: scan(true, []string{"a", "a"}),
			err: &wantErr{kind: DuplicateColumn, path: "plan.columns", msg: `duplicate column name "a"`}},
		{name: "scan pushed not bool", plan: scan(false, nil, PushedPredicate{Expr: a.Expr()}),
			err: &wantErr{kind: TypeError, path: "plan.pushed[0]", expr: "a", msg: "scan: a pushed predicate must be bool, got int64"}},
		{name: "scan pushed type error", plan: scan(false, nil, PushedPredicate{Expr: a.Gt(Lit(1)).Expr()}, PushedPredicate{Expr: s.Add(a).Gt(Lit(1)).Expr()}),
			err: &wantErr{kind: TypeError, path: "plan.pushed[1]", expr: "s + a", msg: "add: cannot add string and int64"}},
		{name: "scan pushed nil", plan: scan(false, nil, PushedPredicate{}),
			err: &wantErr{kind: InvalidPlan, path: "plan.pushed[0]", node: "scan t pushed=[<nil> (unsupported)]", msg: "missing expression"}},
		{name: "scan no source", plan: &ScanNode{}, err: &wantErr{kind: InvalidPlan, path: "plan.table", node: "scan <no source>", msg: "scan: no source"}},

		{name: "filter", plan: st.Filter(Col("q"), a.Gt(Lit(1))).Node(), schema: stdSchemaText},
		{name: "filter no predicates", plan: st.Filter().Node(), err: &wantErr{kind: InvalidPlan, path: "plan.predicates", node: "filter []", msg: "filter: no predicates"}},
		{name: "filter not bool", plan: st.Filter(Col("q"), a.Add(Lit(1))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.predicates[1]", node: "filter [q, a + 1]", expr: "a + 1", msg: "filter: a predicate must be bool, got int64"}},
		{name: "filter type error", plan: st.Filter(s.Add(a).Gt(Lit(0))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.predicates[0]", node: "filter [s + a > 0]", expr: "s + a", msg: "add: cannot add string and int64"}},
		{name: "filter over", plan: st.Filter(b.Sum().Over(k).Gt(Lit(0))).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.predicates[0]", expr: "sum(b).over(k)", msg: "filter: over() is allowed only in project and with_columns"}},
		{name: "filter aggregate", plan: st.Filter(b.Sum().Gt(Lit(0))).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.predicates[0]", expr: "sum(b)", msg: "an aggregate is allowed only"}},
		{name: "filter nil predicate", plan: &FilterNode{Input: st.Node(), Predicates: []Expr{nil}},
			err: &wantErr{kind: InvalidPlan, path: "plan.predicates[0]", node: "filter [<nil>]", msg: "missing expression"}},
		{name: "nested path", plan: st.Filter(a.Gt(Lit(0))).Select(a).Filter(Col("zz")).Head(1).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.input.predicates[0]", node: "filter [zz]", expr: "zz", msg: `column "zz" not found; the input has [a]`}},
		{name: "deep path", plan: st.Filter(Col("zz")).Select(a).Head(1).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.input.input.predicates[0]", node: "filter [zz]"}},

		{name: "project", plan: st.Select(a, b.Mul(Lit(2)).Alias("c"), Lit(1), s, Col("q").Not()).Node(),
			schema: "[a: int64?, c: int64, literal: int64, s: string?, q: bool]"},
		{name: "project nothing", plan: st.Select().Node(), schema: "[]"},
		{name: "project duplicate", plan: st.Select(a, b, a.Add(Lit(1))).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.exprs[2]", expr: "a", msg: "output column \"a\" is produced twice (by `a` and `a + 1`); alias one of them"}},
		{name: "project type error", plan: st.Select(a, s.Neg()).Node(),
			err: &wantErr{kind: TypeError, path: "plan.exprs[1]", node: "project [a, -s]", expr: "-s", msg: "neg: expects a number, got string"}},
		{name: "project aggregate", plan: st.Select(a.Sum()).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.exprs[0]", expr: "sum(a)", msg: "an aggregate is allowed only"}},

		{name: "sort", plan: st.Sort(Desc(a.Add(b)), Asc(s)).Node(), schema: stdSchemaText},
		{name: "sort no keys", plan: st.Sort().Node(), err: &wantErr{kind: InvalidPlan, path: "plan.keys", node: "sort []", msg: "sort: no keys"}},
		{name: "sort key error", plan: st.Sort(Asc(a), Asc(Col("zz"))).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.keys[1].expr", node: "sort [a, zz]", expr: "zz"}},
		{name: "sort over", plan: st.Sort(Asc(b.Sum().Over(k))).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.keys[0].expr", msg: "sort: over() is allowed only"}},

		{name: "limit", plan: st.Head(0).Node(), schema: stdSchemaText},
		{name: "limit negative", plan: st.Head(-1).Node(), err: &wantErr{kind: InvalidPlan, path: "plan.n", node: "limit -1", msg: "limit: n must not be negative, got -1"}},
		{name: "slice", plan: st.Slice(0, 0).Node(), schema: stdSchemaText},
		{name: "slice negative offset", plan: st.Slice(-2, 1).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.offset", node: "slice offset=-2 len=1", msg: "slice: offset must not be negative, got -2"}},
		{name: "slice negative len (to the end)", plan: st.Slice(2, -1).Node(), schema: stdSchemaText},
		{name: "nested negative limit", plan: st.Head(-5).Select(a).Node(), err: &wantErr{kind: InvalidPlan, path: "plan.input.n", node: "limit -5"}},

		{name: "missing input", plan: &FilterNode{Predicates: []Expr{Col("q").Expr()}}, err: &wantErr{kind: InvalidPlan, path: "plan.input", node: "filter [q]", msg: "missing input node"}},
		{name: "missing join input", plan: &JoinNode{Left: st.Node(), How: CrossJoin},
			err: &wantErr{kind: InvalidPlan, path: "plan.right", node: "join cross", msg: "missing input node"}},
		{name: "typed nil input", plan: &LimitNode{Input: (*FilterNode)(nil), N: 1},
			err: &wantErr{kind: InvalidPlan, path: "plan.input", node: "limit 1", msg: "missing input node"}},
		{name: "typed nil join input", plan: &JoinNode{Left: (*ScanNode)(nil), Right: st.Node(), How: CrossJoin},
			err: &wantErr{kind: InvalidPlan, path: "plan.left", node: "join cross", msg: "missing input node"}},
		{name: "nil root", plan: nil, err: &wantErr{kind: InvalidPlan, path: "plan", msg: "missing input node"}},
	})
}

func TestResolveWithColumns(t *testing.T) {
	st := Scan(std(t))
	a, b, s, k := Col("a"), Col("b"), Col("s"), Col("k")
	runResolveCases(t, []resolveCase{
		{name: "append", plan: st.WithColumns(a.Add(Lit(1)).Alias("x")).Node(), schema: strings.TrimSuffix(stdSchemaText, "]") + ", x: int64?]"},
		{name: "replace in place changes type", plan: st.WithColumns(b.Cast(String)).Node(),
			schema: "[a: int64?, b: string, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool]"},
		{name: "replace in place changes nullability", plan: st.WithColumns(Coalesce(a, Lit(0)), b.Add(a).Alias("b")).Node(),
			schema: "[a: int64, b: int64?, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool]"},
		{name: "replace and append keep order", plan: st.WithColumns(Lit(1).Alias("y"), s.StrLen().Alias("q"), Lit(true).Alias("x")).Node(),
			schema: "[a: int64?, b: int64, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: int64?, y: int64, x: bool]"},
		{name: "nothing", plan: st.WithColumns().Node(), schema: stdSchemaText},
		// simultaneous assignment: y reads the input's a, not the new x
		{name: "siblings are not visible", plan: st.WithColumns(a.Alias("x"), Col("x").Alias("y")).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.exprs[1]", expr: "x"}},
		{name: "duplicate output", plan: st.WithColumns(a.Alias("x"), b.Alias("x")).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.exprs[1]", expr: "x", msg: "output column \"x\" is produced twice (by `a as x` and `b as x`)"}},
		{name: "type error", plan: st.WithColumns(a, s.Add(a)).Node(),
			err: &wantErr{kind: TypeError, path: "plan.exprs[1]", node: "with_columns [a, s + a]", expr: "s + a", msg: "add: cannot add string and int64"}},
		{name: "aggregate", plan: st.WithColumns(k.Max()).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.exprs[0]", expr: "max(k)"}},
	})
}

func TestResolveAggregate(t *testing.T) {
	st := Scan(std(t))
	a, b, s, k := Col("a"), Col("b"), Col("s"), Col("k")
	runResolveCases(t, []resolveCase{
		{name: "grouped", plan: st.GroupBy(k, s).Agg(a.Sum().Alias("t"), a.Count(), Len(), s.First().Alias("fs"), b.Max().Alias("mb"), Col("f").Mean()).Node(),
			schema: "[k: int64, s: string?, t: int64?, a: int64, len: int64, fs: string?, mb: int64, f: float64?]"},
		// A group is never empty: over a non-null operand an aggregate is non-null, unless there are no keys.
		{name: "grouped nullability", plan: st.GroupBy(k).Agg(b.Sum(), b.Min().Alias("mn"), b.First().Alias("fb"), b.Mean().Alias("m"), Col("i").Last().Alias("li")).Node(),
			schema: "[k: int64, b: int64, mn: int64, fb: int64, m: float64, li: int32?]"},
		{name: "global nullability", plan: st.Agg(b.Sum(), b.Min().Alias("mn"), b.First().Alias("fb"), b.Mean().Alias("m"), Col("i").Last().Alias("li")).Node(),
			schema: "[b: int64?, mn: int64?, fb: int64?, m: float64?, li: int32?]"},
		{name: "global", plan: st.Agg(b.Sum(), a.Count(), Len(), Col("q").Min(), b.First().Alias("fb"), k.Count().Alias("ck")).Node(),
			schema: "[b: int64?, a: int64, len: int64, q: bool?, fb: int64?, ck: int64]"},
		{name: "computed key", plan: st.GroupBy(k.Add(Lit(1)).Alias("k1"), Col("i")).Agg(Len()).Node(), schema: "[k1: int64, i: int32?, len: int64]"},
		{name: "keys only", plan: st.GroupBy(k).Agg().Node(), schema: "[k: int64]"},
		{name: "no keys no aggs", plan: st.Agg().Node(), schema: "[]"},
		{name: "key and agg collide", plan: st.GroupBy(k).Agg(k.Sum()).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.aggs[0]", expr: "k", msg: "output column \"k\" is produced twice (by `k` and `sum(k)`)"}},
		{name: "keys collide", plan: st.GroupBy(k, k.Add(Lit(1))).Agg().Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.keys[1]", expr: "k"}},
		{name: "aggs collide", plan: st.GroupBy(k).Agg(a.Sum(), a.Max()).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.aggs[1]", expr: "a"}},
		// Past smallSchema outputs the names are indexed by a map; the
		// first producer is still the one named.
		{name: "aggs collide in a wide aggregate", plan: st.GroupBy(k, s).Agg(a.Sum().Alias("x"), a.Max(), b.Sum(), b.Min().Alias("y"),
			Col("f").Mean(), Col("i").Last(), Col("p").First(), Col("q").Max(), Len(), b.Max().Alias("x")).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.aggs[9]", expr: "x", msg: "output column \"x\" is produced twice (by `sum(a) as x` and `max(b) as x`)"}},
		{name: "agg not an aggregate", plan: st.GroupBy(k).Agg(a.Sum(), a.Add(Lit(1)).Alias("x")).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.aggs[1]", node: "aggregate keys=[k] aggs=[sum(a), a + 1 as x]", msg: "aggregate: each entry must be an aggregate call"}},
		{name: "agg over", plan: st.GroupBy(k).Agg(a.Sum().Over(k)).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.aggs[0]", msg: "aggregate: over() is allowed only"}},
		{name: "key over", plan: st.GroupBy(a.Sum().Over(k)).Agg().Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.keys[0]", msg: "aggregate keys: over() is allowed only"}},
		{name: "key aggregate", plan: st.GroupBy(a.Sum()).Agg().Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.keys[0]", expr: "sum(a)", msg: "an aggregate is allowed only"}},
		{name: "agg type error", plan: st.GroupBy(k).Agg(s.Sum()).Node(),
			err: &wantErr{kind: TypeError, path: "plan.aggs[0]", expr: "sum(s)", msg: "sum: expects a number, got string"}},
		{name: "nested aggregate", plan: st.Agg(a.Sum().Max()).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.aggs[0]", expr: "sum(a)"}},
	})
}

func TestResolveJoin(t *testing.T) {
	tt := Scan(std(t))
	u := Scan(table(t, "u", "k:int64", "a:float64?", "v:string"))
	k := Col("k")
	left := "a: int64?, b: int64, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool"
	leftNull := "a: int64?, b: int64?, i: int32?, f: float64?, s: string?, p: bool?, k: int64?, q: bool?"
	w := Scan(table(t, "w", "k:int64", "v:string", "v_right:bool"))
	x1 := Scan(table(t, "x1", "k:int64", "x:int64"))
	x2 := Scan(table(t, "x2", "k:int64", "x:int64", "x_right:int64"))
	x3 := Scan(table(t, "x3", "k:int64", "x_right:int64", "x:int64"))
	runResolveCases(t, []resolveCase{
		{name: "inner drops the right key", plan: tt.JoinOn(u, InnerJoin, "k").Node(), schema: "[" + left + ", a_right: float64?, v: string]"},
		{name: "left drops the right key, right side nullable", plan: tt.JoinOn(u, LeftJoin, "k").Node(), schema: "[" + left + ", a_right: float64?, v: string?]"},
		{name: "right merges into the right key, left side nullable", plan: tt.JoinOn(u, RightJoin, "k").Node(),
			schema: "[a: int64?, b: int64?, i: int32?, f: float64?, s: string?, p: bool?, q: bool?, k: int64, a_right: float64?, v: string]"},
		{name: "right keep keeps both", plan: tt.JoinOn(u, RightJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceKeep}).Node(),
			schema: "[" + leftNull + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "inner keep keeps both", plan: tt.JoinOn(u, InnerJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceKeep}).Node(),
			schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "full coalesce merges in the left place", plan: tt.JoinOn(u, FullJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceMerge}).Node(),
			schema: "[a: int64?, b: int64?, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool?, a_right: float64?, v: string?]"},
		{name: "full coalesce of int32 with int64 has the compare type", plan: tt.Select(Col("i").Alias("k")).JoinOn(u, FullJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceMerge}).Node(),
			schema: "[k: int64?, a: float64?, v: string?]"},
		{name: "options on a plain join", plan: tt.JoinOn(u, LeftJoin, "k").WithJoinOptions(JoinOptions{NullsEqual: true, Validate: ValidateOneToOne}).Node(),
			schema: "[" + left + ", a_right: float64?, v: string?]"},
		{name: "residual on semi reads the pair schema", plan: tt.JoinOn(u, SemiJoin, "k").WithJoinOptions(JoinOptions{Residual: Col("a_right").Gt(Col("f"))}).Node(),
			schema: "[" + left + "]"},
		{name: "residual on inner", plan: tt.JoinOn(u, InnerJoin, "k").WithJoinOptions(JoinOptions{Residual: Col("a_right").Gt(Col("f"))}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.residual", msg: "join: a residual applies to semi and anti joins only, not to the inner join here"}},
		{name: "residual not bool", plan: tt.JoinOn(u, AntiJoin, "k").WithJoinOptions(JoinOptions{Residual: Col("a_right")}).Node(),
			err: &wantErr{kind: TypeError, path: "plan.residual", expr: "a_right", msg: "join: the residual `a_right` is float64, not bool"}},
		{name: "residual unknown column", plan: tt.JoinOn(u, AntiJoin, "k").WithJoinOptions(JoinOptions{Residual: Col("zz").Gt(Col("f"))}).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.residual", expr: "zz"}},
		{name: "residual with an aggregate", plan: tt.JoinOn(u, AntiJoin, "k").WithJoinOptions(JoinOptions{Residual: Col("a").Sum().Gt(Col("f"))}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.residual"}},
		{name: "cross with nulls_equal", plan: tt.CrossJoin(u).WithJoinOptions(JoinOptions{NullsEqual: true}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.nulls_equal", msg: "join: a cross join has no keys to compare"}},
		{name: "cross with validate", plan: tt.CrossJoin(u).WithJoinOptions(JoinOptions{Validate: ValidateOneToMany}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.validate"}},
		{name: "cross with coalesce", plan: tt.CrossJoin(u).WithJoinOptions(JoinOptions{Coalesce: CoalesceKeep}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.coalesce"}},
		{name: "diagonal union", plan: x1.UnionDiagonal(x3, u.Select(k, Col("v"))).Node(),
			schema: "[k: int64, x: int64?, x_right: int64?, v: string?]"},
		{name: "diagonal union type clash", plan: x1.UnionDiagonal(u.Select(Col("v").Alias("x"))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.inputs[1]", expr: "x", msg: `union diagonal: input 1 column "x" is string, an earlier input has int64`}},
		{name: "full keeps both, all nullable", plan: tt.JoinOn(u, FullJoin, "k").Node(), schema: "[" + leftNull + ", k_right: int64?, a_right: float64?, v: string?]"},
		{name: "semi", plan: tt.JoinOn(u, SemiJoin, "k").Node(), schema: "[" + left + "]"},
		{name: "anti", plan: tt.JoinOn(u, AntiJoin, "k").Node(), schema: "[" + left + "]"},
		{name: "cross", plan: tt.CrossJoin(u).Node(), schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "computed right key is kept", plan: tt.Join(u, InnerJoin, []E{k}, []E{k.Add(Lit(0))}).Node(),
			schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "differently named keys: right kept", plan: tt.Join(u, InnerJoin, []E{Col("b")}, []E{k}).Node(),
			schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "aliased key is not plain", plan: tt.Join(u, InnerJoin, []E{k}, []E{k.Alias("k")}).Node(),
			schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "promoted key types", plan: tt.Join(u, InnerJoin, []E{Col("i")}, []E{Col("a")}).Node(),
			schema: "[" + left + ", k_right: int64, a_right: float64?, v: string]"},
		{name: "two keys", plan: tt.Join(u, LeftJoin, []E{k, Col("f")}, []E{k, Col("a")}).Node(), schema: "[" + left + ", a_right: float64?, v: string?]"},
		{name: "custom suffix", plan: tt.JoinOn(u, InnerJoin, "k").WithSuffix("_u").Node(), schema: "[" + left + ", a_u: float64?, v: string]"},
		{name: "suffix collides", plan: Scan(table(t, "l", "k:int64", "v:string", "v_right:int32")).JoinOn(w.Select(k, Col("v")), InnerJoin, "k").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.suffix", expr: "v_right", msg: `join: right column "v" collides with "v_right" even after the suffix "_right"`}},
		// A suffixed name must not take a right column's own name, in either order.
		{name: "suffix takes a right name (after)", plan: x1.JoinOn(x2, InnerJoin, "k").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.suffix", expr: "x_right"}},
		{name: "suffix takes a right name (before)", plan: x1.JoinOn(x3, InnerJoin, "k").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.suffix", expr: "x_right"}},
		{name: "non-colliding right name that looks suffixed", plan: x1.Select(k).JoinOn(x3, LeftJoin, "k").Node(),
			schema: "[k: int64, x_right: int64?, x: int64?]"},
		{name: "key type mismatch", plan: tt.Join(u, InnerJoin, []E{Col("s")}, []E{k}).Node(),
			err: &wantErr{kind: TypeError, path: "plan.right_on[0]", node: "join inner on=[s = k]", expr: "k", msg: "join: right key `k` (int64) cannot be compared with left key `s` (string)"}},
		{name: "key count mismatch", plan: tt.Join(u, InnerJoin, []E{k, Col("a")}, []E{k}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.right_on", node: "join inner on=[k = k, a = ?]", msg: "join: 2 left keys but 1 right keys"}},
		{name: "cross with keys", plan: tt.Join(u, CrossJoin, []E{k}, []E{k}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.left_on", msg: "join: a cross join takes no keys"}},
		{name: "inner without keys", plan: tt.Join(u, InnerJoin, nil, nil).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.left_on", msg: "join: a inner join needs at least one key"}},
		{name: "invalid kind", plan: &JoinNode{Left: tt.Node(), Right: u.Node(), How: JoinKind(9)},
			err: &wantErr{kind: InvalidPlan, path: "plan.kind", msg: "join: invalid kind"}},
		{name: "unknown right key", plan: tt.Join(u, InnerJoin, []E{k}, []E{Col("b")}).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.right_on[0]", expr: "b", msg: "the input has [k a v]"}},
		{name: "unknown left key", plan: tt.Join(u, InnerJoin, []E{Col("v")}, []E{Col("v")}).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.left_on[0]", expr: "v"}},
		{name: "over in key", plan: tt.Join(u, InnerJoin, []E{Col("b").Sum().Over(k)}, []E{k}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.left_on[0]", msg: "join: over() is allowed only"}},
		{name: "over in right key", plan: tt.Join(u, InnerJoin, []E{k}, []E{k.Max().Over(Col("v"))}).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.right_on[0]", msg: "join: over() is allowed only"}},
		{name: "left child error", plan: tt.Filter(Col("zz")).JoinOn(u, InnerJoin, "k").Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.left.predicates[0]", node: "filter [zz]"}},
		{name: "right child error", plan: tt.JoinOn(u.Select(Col("zz")), InnerJoin, "k").Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.right.exprs[0]", node: "project [zz]"}},
	})
}

func TestResolveUnionDistinct(t *testing.T) {
	st := Scan(std(t))
	a, b, s := Col("a"), Col("b"), Col("s")
	runResolveCases(t, []resolveCase{
		{name: "union of one", plan: st.Union().Node(), schema: stdSchemaText},
		{name: "union nullability is OR", plan: st.Select(b, s).Union(st.Select(a.Alias("b"), Lit("x").Alias("s")), st.Select(b, s)).Node(),
			schema: "[b: int64?, s: string?]"},
		{name: "union non-null stays non-null", plan: st.Select(b).Union(st.Select(Col("k").Alias("b"))).Node(), schema: "[b: int64]"},
		{name: "union width", plan: st.Select(a).Union(st.Select(a), st.Select(a, b)).Node(),
			err: &wantErr{kind: TypeError, path: "plan.inputs[2]", node: "union", msg: "union: input 2 has 2 columns, input 0 has 1"}},
		{name: "union name", plan: st.Select(a).Union(st.Select(b)).Node(),
			err: &wantErr{kind: TypeError, path: "plan.inputs[1]", expr: "b", msg: "union: input 1 column 0 is b: int64, input 0 has a: int64?"}},
		{name: "union type", plan: st.Select(a).Union(st.Select(s.Alias("a"))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.inputs[1]", expr: "a", msg: "is a: string?, input 0 has a: int64?"}},
		{name: "union promotes int32 to int64", plan: st.Select(a).Union(st.Select(Col("i").Alias("a"))).Node(), schema: "[a: int64?]"},
		{name: "union promotes int8 and uint8 to int16", plan: st.Select(Lit(int8(1)).Alias("x")).Union(st.Select(Lit(uint8(2)).Alias("x"))).Node(),
			schema: "[x: int16]"},
		{name: "union promotes across three inputs", plan: st.Select(Lit(int8(1)).Alias("x")).Union(st.Select(Lit(uint8(2)).Alias("x")),
			st.Select(Lit(float32(1)).Alias("x"))).Node(), schema: "[x: float32]"},
		{name: "union uint64 with int64 does not type", plan: st.Select(a).Union(st.Select(Lit(uint64(1)).Alias("a"))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.inputs[1]", expr: "a", msg: "is a: uint64, input 0 has a: int64?"}},
		{name: "union no inputs", plan: &UnionNode{}, err: &wantErr{kind: InvalidPlan, path: "plan.inputs", msg: "union: no inputs"}},
		{name: "union child error", plan: st.Union(st, st.Filter(Col("zz"))).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.inputs[2].predicates[0]"}},
		{name: "distinct", plan: st.Distinct().Node(), schema: stdSchemaText},
		{name: "distinct subset", plan: st.Distinct("s", "a").Node(), schema: stdSchemaText},
		{name: "distinct unknown", plan: st.Distinct("a", "zz").Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.subset[1]", node: "distinct [a, zz]", expr: "zz", msg: `distinct: column "zz" not found`}},
		{name: "distinct twice", plan: st.Distinct("a", "b", "a").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.subset[2]", expr: "a", msg: `distinct: column "a" listed twice`}},
	})
}

func TestResolveExtension(t *testing.T) {
	st := Scan(std(t))
	u := Scan(table(t, "u", "k:int64"))
	concat := &ExtensionDef{Name: "concat_cols", Inputs: 2, OutputSchema: func(in []Schema) (Schema, error) {
		return NewSchema(append(in[0].Fields(), in[1].Fields()...)...)
	}}
	failing := &ExtensionDef{Name: "failing", Inputs: 1, OutputSchema: func([]Schema) (Schema, error) { return Schema{}, errors.New("no") }}
	panicking := &ExtensionDef{Name: "panicking", Inputs: 1, OutputSchema: func([]Schema) (Schema, error) { panic("boom") }}
	zero := &ExtensionDef{Name: "zero"}
	runResolveCases(t, []resolveCase{
		{name: "identity", plan: st.Extension(identityExt).Node(), schema: stdSchemaText},
		{name: "two inputs with schema", plan: st.Select(Col("a")).Extension(concat, u).Node(), schema: "[a: int64?, k: int64]"},
		{name: "arity", plan: st.Extension(identityExt, u).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan", node: "extension identity", msg: "extension identity: takes 1 inputs, got 2"}},
		{name: "schema error", plan: st.Extension(failing).Node(), err: &wantErr{kind: InvalidPlan, path: "plan", msg: "extension failing: no"}},
		{name: "schema collision", plan: st.Extension(concat, st).Node(), err: &wantErr{kind: InvalidPlan, path: "plan", msg: "duplicate column name"}},
		{name: "schema panic", plan: st.Extension(panicking).Node(), err: &wantErr{kind: InvalidPlan, path: "plan", msg: "extension panicking: OutputSchema panicked: boom"}},
		{name: "undeclared", plan: &ExtensionNode{Inputs: []Node{st.Node()}}, err: &wantErr{kind: InvalidPlan, path: "plan.name", msg: "extension: no declaration"}},
		{name: "no inputs", plan: &ExtensionNode{Def: zero}, err: &wantErr{kind: InvalidPlan, path: "plan.input", msg: "extension zero: needs at least one input"}},
		{name: "single child path", plan: st.Filter(Col("zz")).Extension(identityExt).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.input.predicates[0]"}},
		{name: "multi child path", plan: st.Extension(concat, u.Filter(Col("zz"))).Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.inputs[1].predicates[0]"}},
	})
	// The OutputSchema error is kept as the cause.
	_, err := Resolve(st.Extension(failing).Node())
	if pe := asPlanError(t, err); pe.Err == nil || pe.Err.Error() != "no" {
		t.Errorf("the host's error is not the cause: %#v", pe)
	}
}

func TestResolveWindowSynthesis(t *testing.T) {
	st := Scan(std(t))
	a, b, k, s := Col("a"), Col("b"), Col("k"), Col("s")
	runResolveCases(t, []resolveCase{
		{name: "project", plan: st.Select(k, b.Sum().Over(k).Alias("t"), a.Sum().Over(k).Alias("u")).Node(), schema: "[k: int64, t: int64, u: int64?]"},
		{name: "project keeps the written name", plan: st.Select(b.Sum().Over(k)).Node(), schema: "[b: int64]"},
		{name: "project expression over a window", plan: st.Select(b.Sum().Over(k).Add(a.Mul(Lit(2)))).Node(), schema: "[b: int64?]"},
		{name: "project len window", plan: st.Select(k, Len().Over(k)).Node(), schema: "[k: int64, len: int64]"},
		{name: "with_columns appends", plan: st.WithColumns(b.Sum().Over(k, s).Alias("t")).Node(), schema: strings.TrimSuffix(stdSchemaText, "]") + ", t: int64]"},
		{name: "with_columns replaces in place", plan: st.WithColumns(a.Max().Over(k).Alias("b"), Col("i").First().Over(k).Alias("a")).Node(),
			schema: "[a: int32?, b: int64?, i: int32?, f: float64?, s: string?, p: bool?, k: int64, q: bool]"},
		{name: "with_columns mixes", plan: st.WithColumns(a.Count().Over(k).Alias("n"), Lit(1).Alias("one"), Len().Over(s)).Node(),
			schema: strings.TrimSuffix(stdSchemaText, "]") + ", n: int64, one: int64, len: int64]"},
		{name: "window type error names the written expression", plan: st.Select(k, s.Sum().Over(k)).Node(),
			err: &wantErr{kind: TypeError, path: "plan.exprs[1]", node: "project [k, sum(s).over(k)]", expr: "sum(s)", msg: "sum: expects a number"}},
		{name: "duplicate output", plan: st.Select(b.Sum().Over(k), b).Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.exprs[1]", node: "project [sum(b).over(k), b]", expr: "b"}},
		{name: "nested window", plan: st.Select(b.Sum().Over(k).Sum().Over(a)).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.exprs[0]", expr: "sum(b).over(k)", msg: "window cannot appear inside"}},
		{name: "window in a partition key", plan: st.WithColumns(b.Sum().Over(a.Min().Over(k))).Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.exprs[0]", expr: "min(a).over(k)", msg: "window cannot appear inside"}},
	})
}

// TestResolveWindowNode checks a window node built by hand (as a rule or a
// host might): its entries must be aliased over() calls, and it must sit
// directly under a project or with_columns (its owner).
func TestResolveWindowNode(t *testing.T) {
	st := Scan(std(t))
	b, k := Col("b"), Col("k")
	win := func(es ...E) Node { return &WindowNode{Input: st.Node(), Exprs: unwrap(es)} }
	// owned puts the window under a project passing every column through.
	owned := func(es ...E) Node {
		w := win(es...)
		var all []Expr
		for _, n := range std(t).Schema().Names() {
			all = append(all, &Column{Name: n})
		}
		for _, e := range w.(*WindowNode).Exprs {
			if a, ok := e.(*Alias); ok {
				all = append(all, &Column{Name: a.Name})
			}
		}
		return &ProjectNode{Input: w, Exprs: all}
	}
	stray := "window: a window node must sit directly under the project or with_columns that owns it"
	runResolveCases(t, []resolveCase{
		{name: "window", plan: owned(b.Sum().Over(k).Alias("w"), Len().Over(k).Alias("n")),
			schema: strings.TrimSuffix(stdSchemaText, "]") + ", w: int64, n: int64]"},
		{name: "under a with_columns", plan: &WithColumnsNode{Input: win(b.Sum().Over(k).Alias("w")), Exprs: []Expr{&Alias{Expr: &Column{Name: "w"}, Name: "x"}}},
			schema: strings.TrimSuffix(stdSchemaText, "]") + ", x: int64]"},
		{name: "not aliased", plan: owned(b.Sum().Over(k)),
			err: &wantErr{kind: InvalidPlan, path: "plan.input.exprs[0]", node: "window [sum(b).over(k)]", expr: "sum(b).over(k)", msg: "window: each entry must be an aliased over()"}},
		{name: "alias of a non-window", plan: owned(b.Sum().Over(k).Alias("w"), b.Alias("x")),
			err: &wantErr{kind: InvalidPlan, path: "plan.input.exprs[1]", expr: "b as x", msg: "window: each entry must be an aliased over()"}},
		{name: "type error", plan: owned(Col("s").Sum().Over(k).Alias("w")),
			err: &wantErr{kind: TypeError, path: "plan.input.exprs[0]", expr: "sum(s)"}},
		{name: "name taken", plan: owned(b.Sum().Over(k).Alias("b")),
			err: &wantErr{kind: DuplicateColumn, path: "plan.input.exprs", msg: `window: schema: duplicate column name "b"`}},
		{name: "at the root", plan: win(b.Sum().Over(k).Alias("w")),
			err: &wantErr{kind: InvalidPlan, path: "plan", node: "window [sum(b).over(k) as w]", msg: stray + " (Resolve synthesizes it from over()); found at the root"}},
		{name: "under a filter", plan: &FilterNode{Input: win(b.Sum().Over(k).Alias("w")), Predicates: []Expr{Col("w").Gt(Lit(1)).Expr()}},
			err: &wantErr{kind: InvalidPlan, path: "plan.input", node: "window [sum(b).over(k) as w]", msg: stray}},
		{name: "under a sort", plan: &SortNode{Input: win(b.Sum().Over(k).Alias("w")), Keys: []SortKey{{Expr: Col("w").Expr()}}},
			err: &wantErr{kind: InvalidPlan, path: "plan.input", msg: "found at the input of sort"}},
		{name: "in a union", plan: &UnionNode{Inputs: []Node{st.Node(), win(b.Sum().Over(k).Alias("w"))}},
			err: &wantErr{kind: InvalidPlan, path: "plan.inputs[1]"}},
	})
	// A resolved window taken from its owner is checked by its new parent.
	_, err := Resolve(&LimitNode{N: 1, Input: mustResolveWindow(t, owned(b.Sum().Over(k).Alias("w")))})
	checkErr(t, "resolved, then put under a limit", err, &wantErr{kind: InvalidPlan, path: "plan.input", msg: stray})
}

// mustResolveWindow resolves an owner over its window and returns the
// resolved window alone.
func mustResolveWindow(t *testing.T, owner Node) Node {
	t.Helper()
	r, err := Resolve(owner)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := OwnedWindow(r)
	if !ok {
		t.Fatalf("no owned window under %s", r.Label())
	}
	return w
}

func TestOwnedWindow(t *testing.T) {
	st := Scan(std(t))
	b, k := Col("b"), Col("k")
	for _, tc := range []struct {
		name string
		plan Frame
		want bool
	}{
		{"project using over()", st.Select(b.Sum().Over(k).Alias("s")), true},
		{"with_columns using over()", st.WithColumns(b.Sum().Over(k).Alias("s")), true},
		{"with_columns without over()", st.WithColumns(b.Alias("s")), false},
		{"sort over a project using over()", st.Select(b.Sum().Over(k).Alias("s")).SortBy("s"), false},
		{"scan", st, false},
	} {
		r, err := Resolve(tc.plan.Node())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w, ok := OwnedWindow(r)
		if ok != tc.want {
			t.Errorf("%s: OwnedWindow = %v, want %v", tc.name, ok, tc.want)
		}
		if ok && w != r.Children()[0] {
			t.Errorf("%s: OwnedWindow returned a node other than the input", tc.name)
		}
	}
	if _, ok := OwnedWindow((*ProjectNode)(nil)); ok {
		t.Error("a nil project owns a window")
	}
	if _, ok := OwnedWindow(nil); ok {
		t.Error("nil owns a window")
	}
}

// TestWindowShape checks the synthesized tree itself: the window node, its
// temporary names, and the rewritten parent.
func TestWindowShape(t *testing.T) {
	tt := table(t, "t", "k:int64", "b:int64", "__over_0:int64", "__over_2:string")
	st := Scan(tt)
	k, b := Col("k"), Col("b")
	for _, tc := range []struct {
		name    string
		plan    Frame
		explain string
	}{
		{"project, temp names avoid input columns", st.Select(k, b.Sum().Over(k).Alias("t"), b.Max().Over(k).Add(b), b.Min().Over(k).Alias("u")),
			"project [k, __over_1 as t, __over_3 + b as b, __over_4 as u]  [k: int64, t: int64, b: int64, u: int64]\n" +
				"  window [sum(b).over(k) as __over_1, max(b).over(k) as __over_3, min(b).over(k) as __over_4]  " +
				"[k: int64, b: int64, __over_0: int64, __over_2: string, __over_1: int64, __over_3: int64, __over_4: int64]\n" +
				"    scan t  [k: int64, b: int64, __over_0: int64, __over_2: string]\n"},
		{"with_columns does not pass temporaries through", st.WithColumns(b.Sum().Over(k).Alias("t"), b.Count().Over(k).Alias("__over_0")),
			"with_columns [__over_1 as t, __over_3 as __over_0]  [k: int64, b: int64, __over_0: int64, __over_2: string, t: int64]\n" +
				"  window [sum(b).over(k) as __over_1, count(b).over(k) as __over_3]  " +
				"[k: int64, b: int64, __over_0: int64, __over_2: string, __over_1: int64, __over_3: int64]\n" +
				"    scan t  [k: int64, b: int64, __over_0: int64, __over_2: string]\n"},
		{"with_columns over with_columns", st.WithColumns(b.Sum().Over(k).Alias("t")).WithColumns(Col("t").Max().Over(k).Alias("m")),
			"with_columns [__over_1 as m]  [k: int64, b: int64, __over_0: int64, __over_2: string, t: int64, m: int64]\n" +
				"  window [max(t).over(k) as __over_1]  [k: int64, b: int64, __over_0: int64, __over_2: string, t: int64, __over_1: int64]\n" +
				"    with_columns [__over_1 as t]  [k: int64, b: int64, __over_0: int64, __over_2: string, t: int64]\n" +
				"      window [sum(b).over(k) as __over_1]  [k: int64, b: int64, __over_0: int64, __over_2: string, __over_1: int64]\n" +
				"        scan t  [k: int64, b: int64, __over_0: int64, __over_2: string]\n"},
	} {
		r := mustResolve(t, tc.plan.Node())
		if got := ExplainSchemas(r); got != tc.explain {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tc.name, got, tc.explain)
		}
		// Re-resolving from scratch reproduces the same plan.
		again := mustResolve(t, Unresolved(r))
		if !Equal(again, r) || ExplainSchemas(again) != ExplainSchemas(r) {
			t.Errorf("%s: re-resolution differs:\n%s", tc.name, ExplainSchemas(again))
		}
	}
}

func TestResolveIdentityAndSharing(t *testing.T) {
	st := Scan(std(t))
	raw := st.Filter(Col("a").Gt(Lit(1))).Select(Col("a"), Col("b")).Node()
	r := mustResolve(t, raw)
	if r == raw {
		t.Fatal("Resolve returned its unresolved input")
	}
	// Resolving a resolved tree returns it unchanged.
	r2, err := Resolve(r)
	if err != nil || r2 != r {
		t.Fatalf("Resolve(resolved) = %p, %v; want %p", r2, err, r)
	}
	// A local rewrite on top re-resolves only the new node.
	lim := mustResolve(t, &LimitNode{Input: r, N: 3})
	if lim.Children()[0] != r {
		t.Error("the resolved subtree under a new node was copied")
	}
	// Replace the project by a new one over the same resolved filter.
	filter := r.Children()[0]
	newProj := &ProjectNode{Input: filter, Exprs: []Expr{Col("b").Expr()}}
	top := mustResolve(t, &LimitNode{Input: newProj, N: 1})
	if top.Children()[0] == Node(newProj) {
		t.Error("the new project node was resolved in place")
	}
	if newProj.Resolved() {
		t.Error("Resolve wrote into the caller's new node")
	}
	if top.Children()[0].Children()[0] != filter || filter.Children()[0] != r.Children()[0].Children()[0] {
		t.Error("an untouched resolved subtree was not shared by pointer")
	}
	if Size(top) != 4 || Size(raw) != 3 || Size(nil) != 0 {
		t.Errorf("Size = %d / %d", Size(top), Size(raw))
	}
	// A resolved subtree is shared, an unresolved one is copied, in the same plan.
	mixed := mustResolve(t, &UnionNode{Inputs: []Node{r, raw}})
	if mixed.Children()[0] != r || mixed.Children()[1] == raw || !Equal(mixed.Children()[1], r) {
		t.Error("mixed resolved/unresolved inputs are handled wrongly")
	}
}

// TestUnresolved checks that Unresolved drops every resolution, keeps
// synthesized windows, and leaves the original alone.
func TestUnresolved(t *testing.T) {
	st := Scan(std(t))
	r := mustResolve(t, st.WithColumns(Col("b").Sum().Over(Col("k")).Alias("t")).Filter(Col("q")).Node())
	before := ExplainSchemas(r)
	u := Unresolved(r)
	WalkNodes(u, func(n Node) bool {
		if n.Resolved() {
			t.Errorf("%s is still resolved", n.Label())
		}
		return true
	})
	if ExplainSchemas(r) != before {
		t.Error("Unresolved mutated its input")
	}
	if Explain(u) != Explain(r) {
		t.Errorf("Unresolved changed the plan:\n%s", Explain(u))
	}
	if Unresolved(nil) != nil {
		t.Error("Unresolved(nil) != nil")
	}
}

func TestDroppedRightKeys(t *testing.T) {
	k, a, b := Col("k").Expr(), Col("a").Expr(), Col("b").Expr()
	for _, how := range JoinKinds() {
		j := &JoinNode{How: how, LeftOn: []Expr{k, a, b, &Alias{Expr: k, Name: "k"}}, RightOn: []Expr{k, b, Col("b").Add(Lit(0)).Expr(), k}}
		got := DroppedRightKeys(j)
		if how != InnerJoin && how != LeftJoin {
			if got != nil {
				t.Errorf("%s join drops %v", how, got)
			}
			continue
		}
		// only k = k qualifies: a = b differ by name, b = b + 0 is computed, (k as k) = k is aliased
		if len(got) != 1 || !got["k"] {
			t.Errorf("%s join drops %v, want only k", how, got)
		}
	}
}

// TestResolveCopiedNode: a host that copies a resolved node struct and
// edits it gets the edit checked, not the cached resolution of the node it
// copied.
func TestResolveCopiedNode(t *testing.T) {
	st := Scan(std(t))
	r, err := Resolve(st.Select(Col("a"), Col("b")).Node())
	if err != nil {
		t.Fatal(err)
	}
	proj := r.(*ProjectNode)
	c := *proj
	c.Exprs = []Expr{Col("s").Expr()}
	if c.Resolved() {
		t.Error("a copy of a resolved node reports itself resolved")
	}
	if got := c.Schema(); got.Len() != 0 {
		t.Errorf("a copy of a resolved node reports the old schema %s", got)
	}
	got, err := Resolve(&c)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Schema().String(); s != "[s: string?]" {
		t.Errorf("Resolve(copy) schema %s, want [s: string?]", s)
	}
	if Fingerprint(&c) == Fingerprint(proj) {
		t.Error("the copy reports the original's cached fingerprint")
	}
	if !proj.Resolved() || proj.Schema().Len() != 2 {
		t.Error("the original lost its resolution")
	}

	rf, err := Resolve(st.Filter(Col("a").Gt(Lit(1))).Node())
	if err != nil {
		t.Fatal(err)
	}
	f := *rf.(*FilterNode)
	f.Predicates = []Expr{Col("a").Expr()} // not bool
	if _, err := Resolve(&f); err == nil {
		t.Error("Resolve accepted a copied filter whose new predicate is not bool")
	}
}

func TestJoinLayout(t *testing.T) {
	l := Scan(table(t, "l", "k:int32?", "a:int64"))
	r := Scan(table(t, "r", "a:float64", "k:int64"))
	cases := []struct {
		name string
		plan Frame
		want string
	}{
		{"inner merges into the left key", l.JoinOn(r, InnerJoin, "k"), "k=left[0]~1:int32 a=left[1]:int64 a_right=right[0]:float64 keys=[int64]"},
		{"right merges into the right key", l.JoinOn(r, RightJoin, "k"), "a=left[1]:int64 a_right=right[0]:float64 k=right[1]~0:int64 keys=[int64]"},
		{"full keeps both", l.JoinOn(r, FullJoin, "k"), "k=left[0]:int32 a=left[1]:int64 a_right=right[0]:float64 k_right=right[1]:int64 keys=[int64]"},
		{"full coalesce", l.JoinOn(r, FullJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceMerge}), "k=left[0]~1:int64 a=left[1]:int64 a_right=right[0]:float64 keys=[int64]"},
		{"keep", l.JoinOn(r, LeftJoin, "k").WithJoinOptions(JoinOptions{Coalesce: CoalesceKeep}), "k=left[0]:int32 a=left[1]:int64 a_right=right[0]:float64 k_right=right[1]:int64 keys=[int64]"},
		{"semi", l.JoinOn(r, SemiJoin, "k"), "k=left[0]:int32 a=left[1]:int64 keys=[int64]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := Resolve(c.plan.Node())
			if err != nil {
				t.Fatal(err)
			}
			lay, ok := LayoutOf(n.(*JoinNode))
			if !ok {
				t.Fatal("no layout on a resolved join")
			}
			var parts []string
			for _, col := range lay.Columns {
				s := fmt.Sprintf("%s=%s[%d]", col.Name, col.Side, col.Ordinal)
				if col.CoalescedWith >= 0 {
					s += fmt.Sprintf("~%d", col.CoalescedWith)
				}
				parts = append(parts, s+":"+col.Type.String())
			}
			got := strings.Join(parts, " ") + fmt.Sprintf(" keys=%v", lay.KeyTypes)
			if got != c.want {
				t.Errorf("layout\n got %s\nwant %s", got, c.want)
			}
			copied := *n.(*JoinNode)
			if _, ok := LayoutOf(&copied); ok {
				t.Error("a copy of a resolved join has a layout")
			}
		})
	}
}

// TestDiagonalUnionPromotes: a diagonal union promotes a name's numeric
// types by name, casting in the inputs whose column differs, and keeps the
// diagonal mode.
func TestDiagonalUnionPromotes(t *testing.T) {
	a := Scan(table(t, "a", "x:int32", "y:string"))
	b := Scan(table(t, "b", "z:bool", "x:int64"))
	n, err := Resolve(a.UnionDiagonal(b).Node())
	if err != nil {
		t.Fatal(err)
	}
	u := n.(*UnionNode)
	if !u.Diagonal || u.Schema().String() != "[x: int64, y: string?, z: bool?]" {
		t.Fatalf("got diagonal=%v %s", u.Diagonal, u.Schema())
	}
	if p, ok := u.Inputs[0].(*ProjectNode); !ok || p.Label() != "project [cast(x, int64) as x, y]" {
		t.Errorf("input 0 is %s", u.Inputs[0].Label())
	}
	if _, err := Resolve(a.UnionDiagonal(Scan(table(t, "c", "x:string"))).Node()); err == nil {
		t.Error("int32 with string resolves")
	}
}
