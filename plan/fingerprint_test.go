package plan

import (
	"math"
	"testing"
)

// impostor has the same name as inc_wrap but is another declaration.
var impostor = func() *UDF { u, _ := BuiltinUDFs().Lookup("inc_wrap"); return u }()

// exprVariants returns expressions that are pairwise structurally
// different, each differing from some other in a single field. Every
// expression kind and every field of it appears.
func exprVariants(t testing.TB) []E {
	a, b, k := Col("a"), Col("b"), Col("k")
	incWrap, checked := builtinUDF(t, "inc_wrap"), builtinUDF(t, "checked_double")
	return []E{
		// Column: name
		a, b, Col("a "), Col(""),
		// Literal: value, type, nullness, float bits
		Lit(1), Lit(2), Lit(int32(1)), Lit(1.0), Lit(0.0), Lit(negZero), Lit(math.NaN()), Lit(nanPayload(3)),
		Lit(math.Float64frombits(0xfff8000000000001)), Lit(math.Inf(1)), Lit(math.Inf(-1)),
		Lit(""), Lit("1"), Lit(true), Lit(false), Null(Int64), Null(Int32), Null(Float64), Null(String), Null(Bool),
		Lit(int64(0)), Lit(int32(0)), Lit(uint8(0)),
		// Alias: name, operand
		a.Alias("x"), a.Alias("y"), b.Alias("x"), a.Alias("x").Alias("x"),
		// Call: function, arguments, order, arity
		a.Add(b), a.Sub(b), b.Add(a), a.Add(a), callE(FuncAdd, a), callE(FuncAdd, a, b, b), a.Mul(b), a.Div(b), a.Mod(b),
		a.Neg(), a.Abs(), a.Eq(b), a.Ne(b), a.Lt(b), a.Le(b), a.Gt(b), a.Ge(b), a.And(b), a.Or(b), a.Not(),
		a.IsNull(), a.IsNotNull(), a.IsNaN(), a.StrLen(), Concat(a, b), Concat(a), If(a, b, k), If(a, k, b),
		Coalesce(a, b), Coalesce(a, b, k),
		a.Sum(), a.Mean(), a.Min(), a.Max(), a.Count(), Len(), a.First(), a.Last(), b.Sum(),
		// Cast: target, strictness, operand
		a.Cast(Int32), a.TryCast(Int32), a.Cast(Int64), b.Cast(Int32), a.Cast(String), a.TryCast(String),
		// Over: aggregate, keys, key count
		a.Sum().Over(k), a.Max().Over(k), a.Sum().Over(b), a.Sum().Over(k, b), a.Sum().Over(b, k), a.Sum().Over(),
		// UDF: declaration, arguments
		CallUDF(incWrap, a), CallUDF(checked, a), CallUDF(incWrap, b), CallUDF(incWrap, a, a), CallUDF(nil, a),
		CallUDF(impostor, a), CallUDF(incWrap),
	}
}

func TestExprEqualAndFingerprint(t *testing.T) {
	vs := exprVariants(t)
	again := exprVariants(t) // built afresh: equal structure, different pointers
	for i := range vs {
		ei, ej := vs[i].Expr(), again[i].Expr()
		if !ExprEqual(ei, ei) || !ExprEqual(ei, ej) || !ExprEqual(ej, ei) {
			t.Errorf("%s is not equal to itself or its twin", ei)
		}
		if ExprFingerprint(ei) != ExprFingerprint(ej) {
			t.Errorf("%s: twins have different fingerprints", ei)
		}
		for j := range vs {
			if i == j {
				continue
			}
			ej := vs[j].Expr()
			if ExprEqual(ei, ej) {
				t.Errorf("ExprEqual(%s, %s) = true, want false (variants %d and %d)", ei, ej, i, j)
			}
			// The impostor UDF shares its name, so only its fingerprint may
			// collide; nothing else should.
			if ExprFingerprint(ei) == ExprFingerprint(ej) && ei.String() != ej.String() {
				t.Errorf("fingerprint collision between %s and %s", ei, ej)
			}
			// Equal plans differ too.
			pi := &ProjectNode{Input: &ScanNode{}, Exprs: []Expr{ei}}
			pj := &ProjectNode{Input: &ScanNode{}, Exprs: []Expr{ej}}
			if Equal(pi, pj) {
				t.Errorf("Equal(project [%s], project [%s]) = true", ei, ej)
			}
		}
	}
	if !ExprEqual(nil, nil) || ExprEqual(nil, Col("a").Expr()) || ExprEqual(Col("a").Expr(), nil) {
		t.Error("ExprEqual with nil is wrong")
	}
}

// nodeVariants returns plans that are pairwise structurally different, each
// differing from a neighbour in one node field (or one child).
func nodeVariants(t testing.TB) []Node {
	tt := std(t)
	tt2 := std(t) // same name and schema, another source
	narrow := table(t, "t", "a:int64?")
	u := table(t, "u", "k:int64", "v:string")
	a, b, k := Col("a"), Col("b"), Col("k")
	st, su := Scan(tt), Scan(u)
	det := &ExtensionDef{Name: "identity", Inputs: 1, Properties: []ExtensionProperty{DeterministicOp}}
	scan := func(src *Table, schema Schema, projected bool, cols []string, pushed ...PushedPredicate) Node {
		return &ScanNode{Source: src, SourceSchema: schema, Projected: projected, Columns: cols, Pushed: pushed}
	}
	gt := a.Gt(Lit(1)).Expr()
	return []Node{
		// scan: source identity, captured schema, projection, columns, pushed conjuncts
		st.Node(), Scan(tt2).Node(), scan(tt, narrow.Schema(), false, nil), Scan(narrow).Node(),
		scan(tt, tt.Schema(), true, nil), scan(tt, tt.Schema(), true, []string{"a"}), scan(tt, tt.Schema(), true, []string{"b"}),
		scan(tt, tt.Schema(), true, []string{"a", "b"}), scan(tt, tt.Schema(), true, []string{"b", "a"}),
		scan(tt, tt.Schema(), false, nil, PushedPredicate{Expr: gt, Support: Exact}),
		scan(tt, tt.Schema(), false, nil, PushedPredicate{Expr: gt, Support: Inexact}),
		scan(tt, tt.Schema(), false, nil, PushedPredicate{Expr: b.Gt(Lit(1)).Expr(), Support: Exact}),
		scan(tt, tt.Schema(), false, nil, PushedPredicate{Expr: gt, Support: Exact}, PushedPredicate{Expr: gt, Support: Exact}),
		// filter: predicates, order, count, input
		st.Filter(a.Gt(Lit(1))).Node(), st.Filter(a.Gt(Lit(2))).Node(), st.Filter(a.Gt(Lit(1)), Col("q")).Node(),
		st.Filter(Col("q"), a.Gt(Lit(1))).Node(), Scan(tt2).Filter(a.Gt(Lit(1))).Node(),
		// project and with_columns: expressions
		st.Select(a).Node(), st.Select(b).Node(), st.Select(a, b).Node(), st.Select().Node(),
		st.WithColumns(a).Node(), st.WithColumns(b).Node(), st.WithColumns().Node(),
		// sort: key, desc, nulls_last, count
		st.Sort(Asc(a)).Node(), st.Sort(Desc(a)).Node(), st.Sort(SortKey{Expr: a.Expr(), NullsLast: true}).Node(),
		st.Sort(SortKey{Expr: a.Expr(), Desc: true, NullsLast: true}).Node(), st.Sort(Asc(b)).Node(), st.Sort(Asc(a), Asc(b)).Node(),
		st.Sort().Node(),
		// limit and slice
		st.Head(1).Node(), st.Head(2).Node(), st.Head(0).Node(), st.Slice(0, 1).Node(), st.Slice(1, 1).Node(), st.Slice(1, 0).Node(),
		// aggregate: keys, aggs, and which list an expression is in
		st.GroupBy(k).Agg(a.Sum()).Node(), st.GroupBy(b).Agg(a.Sum()).Node(), st.GroupBy(k).Agg(a.Max()).Node(),
		st.GroupBy(k, b).Agg(a.Sum()).Node(), st.GroupBy(k).Agg().Node(), st.Agg(k).Node(), st.Agg(a.Sum()).Node(),
		// join: kind, keys, suffix, children order
		st.JoinOn(su, InnerJoin, "k").Node(), st.JoinOn(su, LeftJoin, "k").Node(), st.JoinOn(su, RightJoin, "k").Node(),
		st.JoinOn(su, FullJoin, "k").Node(), st.JoinOn(su, SemiJoin, "k").Node(), st.JoinOn(su, AntiJoin, "k").Node(),
		st.CrossJoin(su).Node(), su.CrossJoin(st).Node(), st.JoinOn(su, InnerJoin, "k").WithSuffix("_r").Node(),
		st.Join(su, InnerJoin, []E{b}, []E{k}).Node(), st.Join(su, InnerJoin, []E{k}, []E{k.Add(Lit(0))}).Node(),
		st.Join(su, InnerJoin, []E{k, a}, []E{k, k}).Node(),
		// union: inputs, order, count
		st.Union(su).Node(), su.Union(st).Node(), st.Union(su, su).Node(), st.Union().Node(),
		// distinct: subset
		st.Distinct().Node(), st.Distinct("a").Node(), st.Distinct("b").Node(), st.Distinct("a", "b").Node(), st.Distinct("b", "a").Node(),
		// window: expressions
		&WindowNode{Input: st.Node(), Exprs: []Expr{a.Sum().Over(k).Alias("__over_0").Expr()}},
		&WindowNode{Input: st.Node(), Exprs: []Expr{a.Sum().Over(k).Alias("__over_1").Expr()}},
		&WindowNode{Input: st.Node(), Exprs: []Expr{a.Max().Over(k).Alias("__over_0").Expr()}},
		// extension: declaration (by identity), inputs
		st.Extension(identityExt).Node(), st.Extension(det).Node(), su.Extension(identityExt).Node(),
		st.Extension(identityExt, su).Node(), &ExtensionNode{Inputs: []Node{st.Node()}},
		// same parameters, different kinds or children
		st.Head(1).Head(1).Node(), st.Select(a).Head(1).Node(),
	}
}

func TestPlanEqualAndFingerprint(t *testing.T) {
	vs, twins := nodeVariants(t), nodeVariants(t)
	for i := range vs {
		if !Equal(vs[i], vs[i]) {
			t.Errorf("%s is not Equal to itself", Explain(vs[i]))
		}
		// A rebuild over the same leaves (same sources) is Equal.
		rebuilt := Unresolved(vs[i])
		if !Equal(vs[i], rebuilt) || !Equal(rebuilt, vs[i]) || Fingerprint(vs[i]) != Fingerprint(rebuilt) {
			t.Errorf("a rebuild of\n%s is not Equal or has another fingerprint", Explain(vs[i]))
		}
		// Twins read other Table values (same names and schemas), so they
		// are different plans, although they hash alike.
		if Equal(vs[i], twins[i]) || Fingerprint(vs[i]) != Fingerprint(twins[i]) {
			t.Errorf("a twin over other sources is Equal or hashes differently:\n%s", Explain(vs[i]))
		}
		for j := range vs {
			if i == j {
				continue
			}
			if Equal(vs[i], vs[j]) {
				t.Errorf("Equal = true for different plans %d and %d:\n%s\n%s", i, j, Explain(vs[i]), Explain(vs[j]))
			}
			// Fingerprints hash the source name, so only plans that
			// differ by source identity alone may share one.
			if Fingerprint(vs[i]) == Fingerprint(vs[j]) && Explain(vs[i]) != Explain(vs[j]) {
				t.Errorf("fingerprint collision between\n%s\n%s", Explain(vs[i]), Explain(vs[j]))
			}
		}
	}
	if !Equal(nil, nil) || Equal(nil, vs[0]) || Equal(vs[0], nil) || Fingerprint(nil) != 0 {
		t.Error("nil handling is wrong")
	}
}

// TestEqualAcrossResolution: resolution does not change structural identity
// (absent window synthesis), and resolved and unresolved fingerprints agree.
func TestEqualAcrossResolution(t *testing.T) {
	for _, n := range nodeVariants(t) {
		r, err := Resolve(n)
		if err != nil {
			continue
		}
		if _, isWindow := n.(*WindowNode); !isWindow && !Equal(n, r) {
			t.Errorf("Equal(raw, resolved) = false for\n%s", Explain(n))
		}
		if Fingerprint(n) != Fingerprint(r) || IsDeterministicPlan(n) != IsDeterministicPlan(r) || Size(n) != Size(r) {
			t.Errorf("cached and computed metadata differ for\n%s", Explain(n))
		}
	}
}

// TestForcedCollision: two different resolved plans with the same
// fingerprint must still be unequal. Equal may use fingerprints only to
// reject, never to accept.
func TestForcedCollision(t *testing.T) {
	st := Scan(std(t))
	x := mustResolve(t, st.Filter(Col("a").Gt(Lit(1))).Node())
	y := mustResolve(t, st.Filter(Col("a").Gt(Lit(2))).Node())
	x.meta().fingerprint = 42
	y.meta().fingerprint = 42
	if Fingerprint(x) != Fingerprint(y) {
		t.Fatal("the collision was not forced")
	}
	if Equal(x, y) {
		t.Error("Equal trusted a fingerprint collision")
	}
	// A natural collision: two sources with the same name and schema hash
	// alike (the fingerprint sees names) but are different sources.
	s1, s2 := mustResolve(t, Scan(std(t)).Node()), mustResolve(t, Scan(std(t)).Node())
	if Fingerprint(s1) != Fingerprint(s2) {
		t.Fatal("expected same-name scans to share a fingerprint")
	}
	if Equal(s1, s2) {
		t.Error("scans of different sources are Equal")
	}
	// Different fingerprints on resolved nodes reject fast, even for
	// otherwise equal plans (the fingerprint is part of the resolved node).
	z := mustResolve(t, st.Filter(Col("a").Gt(Lit(1))).Node())
	z.meta().fingerprint = 7
	if Equal(x, z) {
		t.Error("resolved nodes with different fingerprints compared Equal")
	}
}

// TestFloatLiteralsByBits: -0.0 and 0.0, and NaNs with different payloads,
// are different literals (and so different plans), although they compare
// equal or unequal under IEEE.
func TestFloatLiteralsByBits(t *testing.T) {
	st := Scan(std(t))
	plan := func(v float64) Node { return st.Filter(Col("f").Eq(Lit(v))).Node() }
	for _, pair := range [][2]float64{{0, negZero}, {math.NaN(), nanPayload(3)}, {math.NaN(), -math.NaN()}} {
		p0, p1 := mustResolve(t, plan(pair[0])), mustResolve(t, plan(pair[1]))
		if Equal(p0, p1) || Fingerprint(p0) == Fingerprint(p1) {
			t.Errorf("literals %#x and %#x are not distinguished", math.Float64bits(pair[0]), math.Float64bits(pair[1]))
		}
	}
	n1, n2 := mustResolve(t, plan(math.NaN())), mustResolve(t, plan(math.NaN()))
	if !Equal(n1, n2) || Fingerprint(n1) != Fingerprint(n2) {
		t.Error("identical NaN literals are not Equal")
	}
}

// TestJoinSuffixDefault: an empty suffix means the default one, so the two
// spellings are the same plan.
func TestJoinSuffixDefault(t *testing.T) {
	st, su := Scan(std(t)), Scan(table(t, "u", "k:int64"))
	x := st.JoinOn(su, InnerJoin, "k").Node()
	y := st.JoinOn(su, InnerJoin, "k").WithSuffix(DefaultJoinSuffix).Node()
	if !Equal(x, y) || Fingerprint(x) != Fingerprint(y) {
		t.Error(`suffix "" and "_right" are different plans`)
	}
}

func TestDeterminism(t *testing.T) {
	st := Scan(std(t))
	nd := builtinUDF(t, "nd_seq")
	det := &ExtensionDef{Name: "det", Inputs: 1, Properties: []ExtensionProperty{DeterministicOp, RowPreserving}}
	rowOnly := &ExtensionDef{Name: "rows", Inputs: 1, Properties: []ExtensionProperty{RowPreserving}}
	ndExpr := CallUDF(nd, Col("b"))
	for _, tc := range []struct {
		name string
		plan Frame
		want bool
	}{
		{"scan", st, true},
		{"deterministic udf", st.Select(CallUDF(builtinUDF(t, "inc_wrap"), Col("b"))), true},
		{"nd_seq in project", st.Select(ndExpr), false},
		{"nd_seq in filter", st.Filter(ndExpr.Gt(Lit(0))), false},
		{"nd_seq in with_columns", st.WithColumns(ndExpr.Alias("x")), false},
		{"nd_seq in sort key", st.Sort(Asc(ndExpr)), false},
		{"nd_seq in aggregate key", st.GroupBy(ndExpr).Agg(), false},
		{"nd_seq in aggregate", st.Agg(ndExpr.Sum()), false},
		{"nd_seq in join key", st.Join(st, InnerJoin, []E{Col("k")}, []E{ndExpr}), false},
		{"nd_seq in window", st.WithColumns(ndExpr.Sum().Over(Col("k")).Alias("w")), false},
		{"below a limit", st.Select(ndExpr).Head(1), false},
		{"in one union input", st.Select(Col("b")).Union(st.Select(ndExpr)), false},
		{"in the right join input", st.JoinOn(st.Filter(ndExpr.Gt(Lit(0))), InnerJoin, "k"), false},
		{"extension without the property", st.Extension(identityExt), false},
		{"extension declaring a different property", st.Extension(rowOnly), false},
		{"deterministic extension", st.Extension(det), true},
		{"deterministic extension over nd", st.Select(ndExpr).Extension(det), false},
	} {
		n := tc.plan.Node()
		if got := IsDeterministicPlan(n); got != tc.want {
			t.Errorf("%s: unresolved IsDeterministicPlan = %v, want %v", tc.name, got, tc.want)
		}
		r, err := Resolve(n)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := IsDeterministicPlan(r); got != tc.want {
			t.Errorf("%s: resolved IsDeterministicPlan = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A non-deterministic subtree does not taint its siblings.
	r := mustResolve(t, st.Select(Col("b")).Union(st.Select(ndExpr.Alias("b"))).Node())
	if !IsDeterministicPlan(r.Children()[0]) || IsDeterministicPlan(r.Children()[1]) {
		t.Error("determinism leaked between union inputs")
	}
	if !IsDeterministicPlan(nil) || IsDeterministicPlan(&ExtensionNode{Inputs: []Node{st.Node()}}) {
		t.Error("nil or undeclared extension misclassified")
	}
	if (*ExtensionDef)(nil).Has(DeterministicOp) || !det.Has(RowPreserving) || det.Has(OrderPreserving) {
		t.Error("ExtensionDef.Has is wrong")
	}
}

// TestTypedNilNodes: a nil pointer of a node type (a buggy rewrite's output)
// is treated as a missing node, never dereferenced.
func TestTypedNilNodes(t *testing.T) {
	var f *FilterNode
	var s *ScanNode
	st := Scan(std(t)).Node()
	if !Equal(f, s) || !Equal(f, nil) || Equal(f, st) || Equal(st, f) {
		t.Error("Equal with typed nils is wrong")
	}
	if Fingerprint(f) != 0 || Size(f) != 0 || !IsDeterministicPlan(f) {
		t.Error("metadata of a typed nil is wrong")
	}
	lim := &LimitNode{Input: f, N: 1}
	if Size(lim) != 1 || Fingerprint(lim) == 0 || !Equal(lim, &LimitNode{Input: nil, N: 1}) {
		t.Error("a typed-nil child is not a missing child")
	}
	for _, k := range []Node{(*ScanNode)(nil), (*FilterNode)(nil), (*ProjectNode)(nil), (*WithColumnsNode)(nil), (*SortNode)(nil),
		(*LimitNode)(nil), (*SliceNode)(nil), (*AggregateNode)(nil), (*JoinNode)(nil), (*UnionNode)(nil), (*DistinctNode)(nil),
		(*WindowNode)(nil), (*ExtensionNode)(nil)} {
		if !isNilNode(k) {
			t.Errorf("%T is not recognised as nil", k)
		}
		if _, err := Resolve(k); err == nil {
			t.Errorf("Resolve(%T(nil)) succeeded", k)
		}
	}
	if isNilNode(st) {
		t.Error("a real node is nil")
	}
}

// TestUnresolvedMetadataIsLinear: the fingerprint, determinism and size of
// an unresolved plan cost one visit per node. A child's hash and its
// determinism come from one pass over its subtree; two passes would double
// the work at every level of a chain (2^depth visits).
func TestUnresolvedMetadataIsLinear(t *testing.T) {
	const depth = 20
	var n Node = Scan(std(t)).Node()
	for i := 0; i < depth; i++ {
		n = &LimitNode{Input: n, N: 1}
	}
	for name, f := range map[string]func(){
		"Fingerprint":         func() { Fingerprint(n) },
		"IsDeterministicPlan": func() { IsDeterministicPlan(n) },
		"Size":                func() { Size(n) },
	} {
		if allocs := testing.AllocsPerRun(1, f); allocs > 4*depth {
			t.Errorf("%s of an unresolved %d-node chain made %.0f allocations: not linear", name, depth+1, allocs)
		}
	}
}
