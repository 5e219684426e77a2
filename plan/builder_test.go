package plan

import (
	"strings"
	"testing"
)

// TestFrameMethods checks that every Frame method builds exactly the node a
// caller would build by hand.
func TestFrameMethods(t *testing.T) {
	tt, u := std(t), table(t, "u", "k:int64", "v:string")
	st, su := Scan(tt), Scan(u)
	in, ui := st.Node(), su.Node()
	a, b, k := Col("a"), Col("b"), Col("k")
	ae, be, ke := a.Expr(), b.Expr(), k.Expr()
	pair := &ExtensionDef{Name: "pair", Inputs: 2}
	for _, tc := range []struct {
		name  string
		got   Frame
		want  Node
		label string
	}{
		{"Scan", st, &ScanNode{Source: tt, SourceSchema: tt.Schema()}, "scan t"},
		{"FromNode", FromNode(in), in, "scan t"},
		{"Filter", st.Filter(a.Gt(Lit(1)), Col("q")), &FilterNode{Input: in, Predicates: []Expr{a.Gt(Lit(1)).Expr(), Col("q").Expr()}}, "filter [a > 1, q]"},
		{"Select", st.Select(a, b.Alias("c")), &ProjectNode{Input: in, Exprs: []Expr{ae, b.Alias("c").Expr()}}, "project [a, b as c]"},
		{"WithColumns", st.WithColumns(a.Mul(Lit(2))), &WithColumnsNode{Input: in, Exprs: []Expr{a.Mul(Lit(2)).Expr()}}, "with_columns [a * 2]"},
		{"Sort", st.Sort(Asc(a), Desc(b)), &SortNode{Input: in, Keys: []SortKey{{Expr: ae}, {Expr: be, Desc: true}}}, "sort [a, b desc]"},
		{"SortBy", st.SortBy("a", "b"), &SortNode{Input: in, Keys: []SortKey{{Expr: ae}, {Expr: be}}}, "sort [a, b]"},
		{"Head", st.Head(3), &LimitNode{Input: in, N: 3}, "limit 3"},
		{"Slice", st.Slice(2, 4), &SliceNode{Input: in, Offset: 2, Len: 4}, "slice offset=2 len=4"},
		{"Distinct", st.Distinct(), &DistinctNode{Input: in}, "distinct"},
		{"Distinct subset", st.Distinct("a", "b"), &DistinctNode{Input: in, Subset: []string{"a", "b"}}, "distinct [a, b]"},
		{"GroupBy.Agg", st.GroupBy(k).Agg(a.Sum(), Len()), &AggregateNode{Input: in, Keys: []Expr{ke}, Aggs: []Expr{a.Sum().Expr(), Len().Expr()}},
			"aggregate keys=[k] aggs=[sum(a), len()]"},
		{"Agg", st.Agg(a.Mean()), &AggregateNode{Input: in, Aggs: []Expr{a.Mean().Expr()}}, "aggregate keys=[] aggs=[mean(a)]"},
		{"Join", st.Join(su, LeftJoin, []E{k}, []E{k}), &JoinNode{Left: in, Right: ui, How: LeftJoin, LeftOn: []Expr{ke}, RightOn: []Expr{ke}}, "join left on=[k = k]"},
		{"JoinOn", st.JoinOn(su, SemiJoin, "k", "a"), &JoinNode{Left: in, Right: ui, How: SemiJoin, LeftOn: []Expr{ke, ae}, RightOn: []Expr{ke, ae}},
			"join semi on=[k = k, a = a]"},
		{"WithSuffix", st.JoinOn(su, InnerJoin, "k").WithSuffix("_x"), &JoinNode{Left: in, Right: ui, How: InnerJoin, LeftOn: []Expr{ke}, RightOn: []Expr{ke}, Suffix: "_x"},
			`join inner on=[k = k] suffix="_x"`},
		{"WithSuffix elsewhere is a no-op", st.Head(1).WithSuffix("_x"), &LimitNode{Input: in, N: 1}, "limit 1"},
		{"CrossJoin", st.CrossJoin(su), &JoinNode{Left: in, Right: ui, How: CrossJoin}, "join cross"},
		{"Union", st.Union(su, st), &UnionNode{Inputs: []Node{in, ui, in}}, "union"},
		{"Extension", st.Extension(identityExt), &ExtensionNode{Def: identityExt, Inputs: []Node{in}}, "extension identity"},
		{"Extension with more inputs", st.Extension(pair, su), &ExtensionNode{Def: pair, Inputs: []Node{in, ui}}, "extension pair"},
	} {
		n := tc.got.Node()
		if !Equal(n, tc.want) {
			t.Errorf("%s built\n%s\nwant\n%s", tc.name, Explain(n), Explain(tc.want))
		}
		if n.Label() != tc.label {
			t.Errorf("%s: label %q, want %q", tc.name, n.Label(), tc.label)
		}
		if n.Kind() != KindScan && n.Kind() != KindUnion && n.Kind() != KindJoin && n.Kind() != KindExtension && n.Children()[0] != in {
			t.Errorf("%s: the input is not the receiver's node", tc.name)
		}
	}
	// WithSuffix does not touch a resolved join or the original frame.
	j := st.JoinOn(su, InnerJoin, "k")
	_ = j.WithSuffix("_z")
	if j.Node().(*JoinNode).Suffix != "" {
		t.Error("WithSuffix mutated the original join")
	}
	rj := FromNode(mustResolve(t, j.Node()))
	if rj.WithSuffix("_z").Node() != rj.Node() {
		t.Error("WithSuffix changed a resolved join")
	}
	if Scan(nil).Node().(*ScanNode).Source != nil {
		t.Error("Scan(nil) invented a source")
	}
}

// TestBuilderCopiesInputs: the caller may reuse the slices it passed.
func TestBuilderCopiesInputs(t *testing.T) {
	st := Scan(std(t))
	keys := []SortKey{Asc(Col("a"))}
	sorted := st.Sort(keys...)
	keys[0] = Desc(Col("b"))
	subset := []string{"a"}
	dist := st.Distinct(subset...)
	subset[0] = "b"
	preds := []E{Col("q")}
	filt := st.Filter(preds...)
	preds[0] = Col("p")
	if sorted.Node().Label() != "sort [a]" || dist.Node().Label() != "distinct [a]" || filt.Node().Label() != "filter [q]" {
		t.Errorf("a builder kept the caller's slice: %s / %s / %s", sorted.Node().Label(), dist.Node().Label(), filt.Node().Label())
	}
	// Building on a frame twice gives independent plans.
	x, y := st.Head(1), st.Head(2)
	if x.Node() == y.Node() || x.Node().Children()[0] != y.Node().Children()[0] {
		t.Error("branching a frame does not share the common prefix")
	}
}

func TestLitAndWrap(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want Value
	}{
		{7, Int64Value(7)}, {int64(-7), Int64Value(-7)}, {int32(7), Int32Value(7)}, {2.5, Float64Value(2.5)},
		{"s", StringValue("s")}, {true, BoolValue(true)}, {NullValue(Bool), NullValue(Bool)},
		{Float64Value(negZero), Float64Value(negZero)}, {uint(1), NullValue(Invalid)}, {float32(1), Float32Value(1)}, {uint8(7), Uint8Value(7)},
		{nil, NullValue(Invalid)},
	} {
		l, ok := Lit(tc.v).Expr().(*Literal)
		if !ok || !l.Value.Identical(tc.want) {
			t.Errorf("Lit(%#v) = %v, want %v", tc.v, Lit(tc.v), tc.want)
		}
	}
	if !Null(String).Expr().(*Literal).Value.Identical(NullValue(String)) {
		t.Error("Null(String) is wrong")
	}
	e := Col("a").Add(Lit(1)).Expr()
	if Wrap(e).Expr() != e || Wrap(e).String() != "a + 1" {
		t.Error("Wrap does not round-trip")
	}
	u := builtinUDF(t, "inc_wrap")
	if c := CallUDF(u, Col("a")).Expr().(*UDFCall); c.UDF != u || len(c.Args) != 1 {
		t.Error("CallUDF is wrong")
	}
	if c := If(Col("p"), Lit(1), Lit(2)).Expr().(*Call); c.Fn != FuncIf || len(c.Args) != 3 {
		t.Error("If is wrong")
	}
	if c := Col("a").Cast(Int32).Expr().(*Cast); !c.Strict || c.To != Int32 {
		t.Error("Cast is not strict")
	}
	if c := Col("a").TryCast(Int32).Expr().(*Cast); c.Strict {
		t.Error("TryCast is strict")
	}
	o := Col("a").Sum().Over(Col("k"), Col("s")).Expr().(*Over)
	if o.Agg.String() != "sum(a)" || len(o.PartitionBy) != 2 {
		t.Error("Over is wrong")
	}
	// Every fluent method builds the function its name says.
	a, b := Col("a"), Col("b")
	for _, tc := range []struct {
		e  E
		fn Func
		n  int
	}{
		{a.Add(b), FuncAdd, 2}, {a.Sub(b), FuncSub, 2}, {a.Mul(b), FuncMul, 2}, {a.Div(b), FuncDiv, 2}, {a.Mod(b), FuncMod, 2},
		{a.Neg(), FuncNeg, 1}, {a.Abs(), FuncAbs, 1}, {a.Eq(b), FuncEq, 2}, {a.Ne(b), FuncNe, 2}, {a.Lt(b), FuncLt, 2},
		{a.Le(b), FuncLe, 2}, {a.Gt(b), FuncGt, 2}, {a.Ge(b), FuncGe, 2}, {a.And(b), FuncAnd, 2}, {a.Or(b), FuncOr, 2},
		{a.Not(), FuncNot, 1}, {a.IsNull(), FuncIsNull, 1}, {a.IsNotNull(), FuncIsNotNull, 1}, {a.IsNaN(), FuncIsNaN, 1},
		{a.StrLen(), FuncStrLen, 1}, {Concat(a, b, a), FuncConcat, 3}, {If(a, b, a), FuncIf, 3}, {Coalesce(a, b), FuncCoalesce, 2},
		{a.Sum(), FuncSum, 1}, {a.Mean(), FuncMean, 1}, {a.Min(), FuncMin, 1}, {a.Max(), FuncMax, 1}, {a.Count(), FuncCount, 1},
		{Len(), FuncLen, 0}, {a.First(), FuncFirst, 1}, {a.Last(), FuncLast, 1},
	} {
		c, ok := tc.e.Expr().(*Call)
		if !ok || c.Fn != tc.fn || len(c.Args) != tc.n {
			t.Errorf("%s: built %v, want %s with %d args", tc.e, tc.e.Expr(), tc.fn, tc.n)
		}
	}
}

// TestLitRejectsUnsupportedGoTypes: a Go value Lit cannot type is an error
// naming its Go type when the plan resolves, not a silent null.
func TestLitRejectsUnsupportedGoTypes(t *testing.T) {
	tbl, err := NewTable("t", MustSchema(Field{Name: "a", Type: Int64}), [][]Value{{Int64Value(1)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    any
		typ  string
		text string
	}{
		{uint(3), "uint", "invalid(uint 3)"},
		{complex64(1.5), "complex64", "invalid(complex64 (1.5+0i))"},
		{uintptr(1 << 63), "uintptr", "invalid(uintptr 9223372036854775808)"},
		{nil, "<nil>", "invalid(<nil> <nil>)"},
		{[]int{1}, "[]int", "invalid([]int [1])"},
	} {
		e := Lit(tc.v)
		if got := e.Expr().String(); got != tc.text {
			t.Errorf("Lit(%#v) renders %q, want %q", tc.v, got, tc.text)
		}
		_, err := Resolve(Scan(tbl).Select(e.Alias("x")).Node())
		pe, ok := AsError(err)
		if !ok || pe.Kind != TypeError || !strings.Contains(err.Error(), "a Go value of type "+tc.typ+" has no dfopt type") {
			t.Errorf("Lit(%#v): resolve error %v", tc.v, err)
		}
	}
}
