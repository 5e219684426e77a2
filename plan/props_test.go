package plan

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// Property tests. They run with a fixed seed (DFOPT_SEED overrides it);
// gopter prints the seed of a failing run.

func propParams(t *testing.T, n int) *gopter.TestParameters {
	seed := int64(20261130)
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DFOPT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = n
	p.Workers = 1 // one worker keeps a seed reproducible
	t.Logf("gopter seed %d (set DFOPT_SEED to replay another)", seed)
	return p
}

// genExpr wraps an expression so that gopter prints its canonical text.
type genExpr struct{ E Expr }

func (g genExpr) String() string { return render(g.E, 0) }

// exprPair is an expression and a small mutation of it.
type exprPair struct{ A, B Expr }

func (p exprPair) String() string { return render(p.A, 0) + "  vs  " + render(p.B, 0) }

var (
	propNames   = []string{"a", "b", "s", "x y", "and", "__over_0"}
	propAliases = []string{"x", "y", "x y", "and", "a"}
	propLits    = []Value{
		Int64Value(0), Int64Value(1), Int64Value(-1), Int64Value(math.MinInt64), Int64Value(math.MaxInt64),
		Int32Value(0), Int32Value(-5), Int32Value(math.MinInt32),
		Float64Value(0), Float64Value(negZero), Float64Value(1.5), Float64Value(-1.5), Float64Value(math.NaN()),
		Float64Value(nanPayload(3)), Float64Value(math.Float64frombits(0xfff8000000000001)), Float64Value(math.Inf(1)),
		Float64Value(math.Inf(-1)), Float64Value(1e300), Float64Value(5e-324), Float64Value(1),
		StringValue(""), StringValue("x"), StringValue(`a"b`), StringValue("as"), StringValue("1"),
		BoolValue(true), BoolValue(false),
		NullValue(Int64), NullValue(Int32), NullValue(Float64), NullValue(String), NullValue(Bool),
	}
)

// randExpr draws an arbitrary (often ill-typed) expression of every kind.
func randExpr(r *rand.Rand, depth int) Expr {
	if depth <= 0 || r.Intn(4) == 0 {
		if r.Intn(2) == 0 {
			return &Column{Name: propNames[r.Intn(len(propNames))]}
		}
		return &Literal{Value: propLits[r.Intn(len(propLits))]}
	}
	switch r.Intn(10) {
	case 0:
		return &Alias{Expr: randExpr(r, depth-1), Name: propAliases[r.Intn(len(propAliases))]}
	case 1:
		return &Cast{Expr: randExpr(r, depth-1), To: Types()[r.Intn(5)], Strict: r.Intn(2) == 0}
	case 2:
		keys := make([]Expr, r.Intn(3))
		for i := range keys {
			keys[i] = randExpr(r, depth-1)
		}
		return &Over{Agg: randExpr(r, depth-1), PartitionBy: keys}
	case 3:
		udfs := []*UDF{nil, mustUDF("inc_wrap"), mustUDF("nd_seq")}
		args := make([]Expr, r.Intn(3))
		for i := range args {
			args[i] = randExpr(r, depth-1)
		}
		return &UDFCall{UDF: udfs[r.Intn(len(udfs))], Args: args}
	default:
		fs := Funcs()
		f := fs[r.Intn(len(fs))]
		lo, hi := f.Arity()
		n := lo
		switch {
		case r.Intn(8) == 0:
			n = r.Intn(4) // a wrong arity now and then
		case hi < 0:
			n = lo + r.Intn(3)
		}
		args := make([]Expr, n)
		for i := range args {
			args[i] = randExpr(r, depth-1)
		}
		return &Call{Fn: f, Args: args}
	}
}

func mustUDF(name string) *UDF {
	u, ok := testUDFs.Lookup(name)
	if !ok {
		panic(name)
	}
	return u
}

// mutate changes e at one random place, without touching e: it replaces a
// subtree with a fresh small one or tweaks one node (a field, or a
// rotation that keeps the operands in order but changes the nesting). The
// tweaks are the near misses an ambiguous canonical text would print
// alike.
func mutate(r *rand.Rand, e Expr) Expr {
	kids := e.Children()
	if len(kids) == 0 || r.Intn(3) == 0 {
		if e != nil && r.Intn(2) == 0 {
			return tweak(r, e)
		}
		return randExpr(r, 1)
	}
	i := r.Intn(len(kids))
	if kids[i] == nil {
		return e
	}
	fresh := append([]Expr(nil), kids...)
	fresh[i] = mutate(r, kids[i])
	return e.WithChildren(fresh)
}

// tweak changes one thing about the node e itself.
func tweak(r *rand.Rand, e Expr) Expr {
	switch e := e.(type) {
	case *Column:
		return &Column{Name: propNames[r.Intn(len(propNames))]}
	case *Literal:
		if r.Intn(2) == 0 && !e.Value.IsNull() && (e.Value.Type() == Int64 || e.Value.Type() == Float64) {
			// -x as a literal versus neg(x)
			// v as a literal versus neg(-v): the same value, two trees
			if e.Value.Type() == Int64 {
				return &Call{Fn: FuncNeg, Args: []Expr{&Literal{Value: Int64Value(-e.Value.Int())}}}
			}
			return &Call{Fn: FuncNeg, Args: []Expr{&Literal{Value: Float64Value(-e.Value.Float())}}}
		}
		return &Literal{Value: propLits[r.Intn(len(propLits))]}
	case *Alias:
		if c, ok := e.Expr.(*Call); ok && len(c.Args) > 0 && r.Intn(2) == 0 {
			// move the alias onto the first operand
			args := append([]Expr(nil), c.Args...)
			args[0] = &Alias{Expr: args[0], Name: e.Name}
			return &Call{Fn: c.Fn, Args: args}
		}
		return &Alias{Expr: e.Expr, Name: propAliases[r.Intn(len(propAliases))]}
	case *Cast:
		if r.Intn(2) == 0 {
			return &Cast{Expr: e.Expr, To: e.To, Strict: !e.Strict}
		}
		return &Cast{Expr: e.Expr, To: Types()[r.Intn(5)], Strict: e.Strict}
	case *Over:
		if len(e.PartitionBy) > 0 && r.Intn(2) == 0 {
			return &Over{Agg: e.Agg, PartitionBy: e.PartitionBy[1:]}
		}
		return &Over{Agg: e.Agg, PartitionBy: append(append([]Expr(nil), e.PartitionBy...), &Column{Name: "a"})}
	case *UDFCall:
		return &UDFCall{UDF: []*UDF{nil, mustUDF("inc_wrap"), mustUDF("nd_seq")}[r.Intn(3)], Args: e.Args}
	case *Call:
		if len(e.Args) == 2 {
			// rotate: f(g(x, y), z) <-> g(x, f(y, z)), operands kept in order
			if l, ok := e.Args[0].(*Call); ok && len(l.Args) == 2 && r.Intn(2) == 0 {
				return &Call{Fn: l.Fn, Args: []Expr{l.Args[0], &Call{Fn: e.Fn, Args: []Expr{l.Args[1], e.Args[1]}}}}
			}
			if rr, ok := e.Args[1].(*Call); ok && len(rr.Args) == 2 && r.Intn(2) == 0 {
				return &Call{Fn: rr.Fn, Args: []Expr{&Call{Fn: e.Fn, Args: []Expr{e.Args[0], rr.Args[0]}}, rr.Args[1]}}
			}
			// wrap the right operand in a unary or a cast
			if r.Intn(3) == 0 {
				return &Call{Fn: e.Fn, Args: []Expr{e.Args[0], &Call{Fn: FuncNeg, Args: []Expr{e.Args[1]}}}}
			}
		}
		// another function of the same arity
		lo, _ := e.Fn.Arity()
		var same []Func
		for _, f := range Funcs() {
			if flo, _ := f.Arity(); flo == lo {
				same = append(same, f)
			}
		}
		return &Call{Fn: same[r.Intn(len(same))], Args: e.Args}
	}
	return e
}

// clone deep-copies an expression into fresh nodes.
func clone(e Expr) Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *Column:
		return &Column{Name: e.Name}
	case *Literal:
		return &Literal{Value: e.Value}
	}
	kids := e.Children()
	fresh := make([]Expr, len(kids))
	for i, k := range kids {
		fresh[i] = clone(k)
	}
	return e.WithChildren(fresh)
}

// equalModNaN is ExprEqual with all NaNs of a type equal: the canonical
// text does not show NaN payloads.
func equalModNaN(a, b Expr) bool {
	la, aok := a.(*Literal)
	lb, bok := b.(*Literal)
	if aok && bok {
		if la.Value.Type() == Float64 && lb.Value.Type() == Float64 && !la.Value.IsNull() && !lb.Value.IsNull() &&
			math.IsNaN(la.Value.Float()) && math.IsNaN(lb.Value.Float()) {
			return true
		}
		return la.Value.Identical(lb.Value)
	}
	if aok != bok {
		return false
	}
	if !ExprEqual(shallow(a), shallow(b)) {
		return false
	}
	ak, bk := a.Children(), b.Children()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if !equalModNaN(ak[i], bk[i]) {
			return false
		}
	}
	return true
}

// shallow replaces the children of e with a placeholder, to compare only
// e's own fields.
func shallow(e Expr) Expr {
	kids := e.Children()
	if len(kids) == 0 {
		return e
	}
	ph := make([]Expr, len(kids))
	for i := range ph {
		ph[i] = &Column{Name: "_"}
	}
	return e.WithChildren(ph)
}

// shrinkExpr offers the subtrees of an expression, then the expression with
// one child shrunk: a finite stream, smallest candidates first.
func shrinkExpr(v interface{}) gopter.Shrink {
	e := v.(genExpr).E
	var cands []interface{}
	for _, k := range e.Children() {
		if k != nil {
			cands = append(cands, genExpr{k})
		}
	}
	kids := e.Children()
	for i, k := range kids {
		if k == nil {
			continue
		}
		for _, c := range shrinkList(k) {
			fresh := append([]Expr(nil), kids...)
			fresh[i] = c
			cands = append(cands, genExpr{e.WithChildren(fresh)})
		}
	}
	i := 0
	return func() (interface{}, bool) {
		if i >= len(cands) {
			return nil, false
		}
		i++
		return cands[i-1], true
	}
}

func shrinkList(e Expr) []Expr {
	var out []Expr
	for _, v := range shrinkExpr(genExpr{e}).All() {
		out = append(out, v.(genExpr).E)
	}
	return out
}

func genExprGen(depth int) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(genExpr{randExpr(p.Rng, depth)}, shrinkExpr)
	}
}

func genPairGen(depth int) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		a := randExpr(p.Rng, depth)
		return gopter.NewGenResult(exprPair{A: a, B: mutate(p.Rng, a)}, gopter.NoShrinker)
	}
}

// nearMissGen draws pairs of different trees built from the same operands
// in the same order, the cases an ambiguous text would print alike, each
// wrapped in the same random context.
func nearMissGen() gopter.Gen {
	infix := []Func{FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod, FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe, FuncAnd, FuncOr}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		x, y, z := randExpr(r, 1), randExpr(r, 1), randExpr(r, 1)
		f, g := infix[r.Intn(len(infix))], infix[r.Intn(len(infix))]
		bin := func(fn Func, a, b Expr) Expr { return &Call{Fn: fn, Args: []Expr{a, b}} }
		neg := func(a Expr) Expr { return &Call{Fn: FuncNeg, Args: []Expr{a}} }
		alias := func(a Expr) Expr { return &Alias{Expr: a, Name: "x"} }
		lit := &Literal{Value: propLits[r.Intn(len(propLits))]}
		var a, b Expr
		over := func(a Expr) Expr { return &Over{Agg: a, PartitionBy: []Expr{z}} }
		switch r.Intn(9) {
		case 7: // what over() applies to, binary
			a, b = over(bin(f, x, y)), bin(f, x, over(y))
		case 8: // what over() applies to, unary
			a, b = over(neg(x)), neg(over(x))
		case 0: // association
			a, b = bin(f, bin(g, x, y), z), bin(g, x, bin(f, y, z))
		case 1: // unary minus scope
			a, b = bin(f, neg(x), y), neg(bin(f, x, y))
		case 2: // neg of a literal versus a negative literal
			v := lit.Value
			switch v.Type() {
			case Int64:
				a, b = &Literal{Value: Int64Value(-v.Int())}, neg(lit)
			case Float64:
				a, b = &Literal{Value: Float64Value(-v.Float())}, neg(lit)
			default:
				a, b = neg(neg(x)), x
			}
		case 3: // alias scope
			a, b = alias(bin(f, x, y)), bin(f, alias(x), y)
		case 4: // alias of an alias versus one alias
			a, b = alias(alias(x)), alias(x)
		case 5: // window scope
			a = &Over{Agg: &Call{Fn: FuncSum, Args: []Expr{bin(f, x, y)}}, PartitionBy: []Expr{z}}
			b = bin(f, &Over{Agg: &Call{Fn: FuncSum, Args: []Expr{x}}, PartitionBy: []Expr{z}}, y)
		default: // cast strictness and nesting
			a, b = &Cast{Expr: bin(f, x, y), To: Int32, Strict: true}, bin(f, &Cast{Expr: x, To: Int32, Strict: true}, y)
		}
		// The same context around both.
		ctx := randExpr(r, 2)
		hole := &Column{Name: "__hole"}
		wrap := func(e Expr) Expr {
			if r.Intn(3) == 0 {
				return e
			}
			return substitute(bin(infix[r.Intn(len(infix))], ctx, hole), hole, e)
		}
		seed := r.Int63()
		r1, r2 := rand.New(rand.NewSource(seed)), rand.New(rand.NewSource(seed))
		r = r1
		wa := wrap(a)
		r = r2
		wb := wrap(b)
		return gopter.NewGenResult(exprPair{A: wa, B: wb}, gopter.NoShrinker)
	}
}

// substitute replaces the node hole (by identity) with e.
func substitute(in, hole, e Expr) Expr {
	if in == hole {
		return e
	}
	kids := in.Children()
	if len(kids) == 0 {
		return in
	}
	fresh := make([]Expr, len(kids))
	for i, k := range kids {
		fresh[i] = substitute(k, hole, e)
	}
	return in.WithChildren(fresh)
}

func TestPropNearMissesPrintDifferently(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 2000))
	props.Property("structurally different near misses have different canonical text", prop.ForAll(
		func(pr exprPair) bool {
			if equalModNaN(pr.A, pr.B) {
				return pr.A.String() == pr.B.String()
			}
			return pr.A.String() != pr.B.String()
		}, nearMissGen()))
	props.TestingRun(t)
}

func TestPropExprEqualFingerprint(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 1000))
	props.Property("ExprEqual is reflexive and a deep copy is equal with the same fingerprint and text", prop.ForAll(
		func(g genExpr) bool {
			c := clone(g.E)
			return ExprEqual(g.E, g.E) && ExprEqual(g.E, c) && ExprEqual(c, g.E) &&
				ExprFingerprint(g.E) == ExprFingerprint(c) && g.E.String() == c.String()
		}, genExprGen(5)))
	props.Property("ExprEqual is symmetric, implies equal fingerprints and text; equal text implies equal structure (up to NaN payloads)", prop.ForAll(
		func(pr exprPair) bool {
			eq := ExprEqual(pr.A, pr.B)
			if eq != ExprEqual(pr.B, pr.A) {
				return false
			}
			if eq && (ExprFingerprint(pr.A) != ExprFingerprint(pr.B) || pr.A.String() != pr.B.String()) {
				return false
			}
			if pr.A.String() == pr.B.String() && !equalModNaN(pr.A, pr.B) {
				return false
			}
			// The same holds for plans holding the expressions.
			pa := &FilterNode{Input: &ScanNode{}, Predicates: []Expr{pr.A}}
			pb := &FilterNode{Input: &ScanNode{}, Predicates: []Expr{pr.B}}
			return Equal(pa, pb) == eq && (!eq || Fingerprint(pa) == Fingerprint(pb))
		}, genPairGen(5)))
	props.Property("canonical text is stable and the helpers never panic", prop.ForAll(
		func(g genExpr) bool {
			s := g.E.String()
			_, _ = TypeOf(g.E, stdSchema())
			_, _ = AggTypeOf(g.E, stdSchema())
			_ = OutputName(g.E)
			_ = Columns(g.E)
			_ = IsDeterministic(g.E)
			return s == g.E.String() && s == render(g.E, 0)
		}, genExprGen(6)))
	props.TestingRun(t)
}

// TestPropTypeOfErrorsNameASubexpression: a type error's expression text is
// the text of a subexpression of the checked expression (the innermost
// failing one), and TypeOf is deterministic.
func TestPropTypeOfErrors(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 1000))
	props.Property("errors name a subexpression", prop.ForAll(
		func(g genExpr) bool {
			in := sch("a:int64?", "b:float64", "s:string?", "x y:bool", "and:int32", "__over_0:int64")
			_, err1 := TypeOf(g.E, in)
			_, err2 := TypeOf(g.E, in)
			if (err1 == nil) != (err2 == nil) {
				return false
			}
			if err1 == nil {
				return true
			}
			e1, ok1 := AsError(err1)
			e2, ok2 := AsError(err2)
			if !ok1 || !ok2 || !e1.Same(e2) || e1.Msg != e2.Msg {
				return false
			}
			found := false
			Walk(g.E, func(x Expr) bool {
				found = found || x.String() == e1.Expr
				return !found
			})
			return found
		}, genExprGen(5)))
	props.TestingRun(t)
}

// genPlan wraps a plan so that gopter prints it.
type genPlan struct{ N Node }

func (g genPlan) String() string { return "\n" + Explain(g.N) }

// planGen draws plans over std (and u for joins and unions): a chain of
// steps with mostly well-typed expressions, so that most resolve, and some
// ill-typed ones, so that errors are exercised too.
func planGen(t *testing.T) gopter.Gen {
	tt := std(t)
	u := table(t, "u", "k:int64", "a:float64?", "v:string")
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		n := Scan(tt).Node()
		steps := 1 + r.Intn(6)
		for i := 0; i < steps; i++ {
			n = randStep(r, n, tt, u)
		}
		return gopter.NewGenResult(genPlan{n}, gopter.NoShrinker)
	}
}

// randStep puts one random node on top of n. Expressions are typed against
// the standard schema; steps that change the schema may make later
// expressions ill-typed, which Resolve must then report.
func randStep(r *rand.Rand, n Node, tt, u *Table) Node {
	boolE := func() Expr { return typedExpr(r, Bool, 3) }
	anyE := func() Expr { return typedExpr(r, Types()[r.Intn(5)], 3) }
	aliased := func(e Expr, i int) Expr {
		if r.Intn(3) == 0 {
			return e
		}
		return &Alias{Expr: e, Name: []string{"x", "y", "a", "b", "s", "z" + strconv.Itoa(i)}[r.Intn(6)]}
	}
	list := func(f func() Expr, min int) []Expr {
		out := make([]Expr, min+r.Intn(3))
		for i := range out {
			out[i] = f()
		}
		return out
	}
	keyCols := []string{"k", "s", "p", "q", "b"}
	window := func() Expr {
		aggs := []Expr{Col("b").Sum().Expr(), Len().Expr(), Col("f").Mean().Expr(), Col("s").Max().Expr(), Col("a").Count().Expr()}
		return &Over{Agg: aggs[r.Intn(len(aggs))], PartitionBy: []Expr{&Column{Name: keyCols[r.Intn(len(keyCols))]}}}
	}
	if r.Intn(12) == 0 {
		// an ill-typed or misplaced expression somewhere
		return &FilterNode{Input: n, Predicates: []Expr{randExpr(r, 3)}}
	}
	switch r.Intn(14) {
	case 0:
		return &FilterNode{Input: n, Predicates: list(boolE, 1)}
	case 1:
		exprs := list(anyE, 1)
		for i := range exprs {
			exprs[i] = aliased(exprs[i], i)
		}
		if r.Intn(2) == 0 {
			exprs = append(exprs, &Alias{Expr: window(), Name: "w"})
		}
		if r.Intn(2) == 0 {
			return &ProjectNode{Input: n, Exprs: append(exprs, &Column{Name: "k"}, &Column{Name: "b"}, &Column{Name: "q"})}
		}
		return &WithColumnsNode{Input: n, Exprs: exprs}
	case 2:
		return &WithColumnsNode{Input: n, Exprs: []Expr{window(), &Alias{Expr: window(), Name: "w" + strconv.Itoa(r.Intn(3))}}}
	case 3:
		keys := make([]SortKey, 1+r.Intn(2))
		for i := range keys {
			keys[i] = SortKey{Expr: anyE(), Desc: r.Intn(2) == 0, NullsLast: r.Intn(2) == 0}
		}
		return &SortNode{Input: n, Keys: keys}
	case 4:
		return &LimitNode{Input: n, N: int64(r.Intn(5)) - 1}
	case 5:
		return &SliceNode{Input: n, Offset: int64(r.Intn(4)) - 1, Len: int64(r.Intn(4))}
	case 6:
		return &DistinctNode{Input: n, Subset: []string{keyCols[r.Intn(len(keyCols))]}[:r.Intn(2)]}
	case 7:
		keys := []Expr{&Column{Name: keyCols[r.Intn(len(keyCols))]}}[:r.Intn(2)]
		aggs := []Expr{Col("b").Sum().Alias("sb").Expr(), Len().Expr(), Col("a").Count().Alias("ca").Expr(), Col("f").Min().Alias("mf").Expr()}[:1+r.Intn(4)]
		return &AggregateNode{Input: n, Keys: keys, Aggs: aggs}
	case 8:
		how := JoinKinds()[r.Intn(7)]
		j := &JoinNode{Left: n, Right: Scan(u).Node(), How: how, Suffix: []string{"", "_r", "_right"}[r.Intn(3)]}
		if how != CrossJoin {
			j.LeftOn, j.RightOn = []Expr{&Column{Name: "k"}}, []Expr{&Column{Name: "k"}}
		}
		return j
	case 9:
		return &UnionNode{Inputs: []Node{n, n}}
	case 10:
		return &ExtensionNode{Def: identityExt, Inputs: []Node{n}}
	case 11:
		return &ProjectNode{Input: n, Exprs: []Expr{Col("k").Expr(), Col("b").Expr(), Col("q").Expr(), Col("s").Expr(), Col("f").Expr(), Col("a").Expr(), Col("p").Expr(), Col("i").Expr()}}
	case 12:
		return &FilterNode{Input: n, Predicates: []Expr{CallUDF(mustUDF("nd_seq"), Col("b")).Gt(Lit(0)).Expr()}}
	default:
		return &ScanNode{Source: tt, SourceSchema: tt.Schema(), Projected: true, Columns: []string{"k", "b", "q"}[:r.Intn(4)],
			Pushed: []PushedPredicate{{Expr: boolE(), Support: PredicateSupport(1 + r.Intn(2))}}[:r.Intn(2)]}
	}
}

// typedExpr draws an expression of type t over the standard schema.
func typedExpr(r *rand.Rand, t Type, depth int) Expr {
	cols := map[Type][]string{Int64: {"a", "b", "k"}, Int32: {"i"}, Float64: {"f"}, String: {"s"}, Bool: {"p", "q"}}
	lits := map[Type][]Value{
		Int64:   {Int64Value(0), Int64Value(1), Int64Value(-1), Int64Value(math.MaxInt64), NullValue(Int64)},
		Int32:   {Int32Value(2), Int32Value(math.MinInt32), NullValue(Int32)},
		Float64: {Float64Value(negZero), Float64Value(math.NaN()), Float64Value(math.Inf(1)), Float64Value(0.5), NullValue(Float64)},
		String:  {StringValue(""), StringValue("x"), NullValue(String)},
		Bool:    {BoolValue(true), BoolValue(false), NullValue(Bool)},
	}
	if depth <= 0 || r.Intn(3) == 0 {
		if r.Intn(3) > 0 {
			cs := cols[t]
			return &Column{Name: cs[r.Intn(len(cs))]}
		}
		ls := lits[t]
		return &Literal{Value: ls[r.Intn(len(ls))]}
	}
	sub := func(t Type) Expr { return typedExpr(r, t, depth-1) }
	switch r.Intn(4) {
	case 0:
		return &Call{Fn: FuncIf, Args: []Expr{sub(Bool), sub(t), sub(t)}}
	case 1:
		return &Call{Fn: FuncCoalesce, Args: []Expr{sub(t), sub(t)}}
	case 2:
		return &Cast{Expr: sub(Types()[r.Intn(5)]), To: t, Strict: r.Intn(2) == 0}
	}
	switch t {
	case Int64, Int32, Float64:
		if r.Intn(4) == 0 {
			return &Call{Fn: []Func{FuncNeg, FuncAbs}[r.Intn(2)], Args: []Expr{sub(t)}}
		}
		if t == Int64 && r.Intn(4) == 0 {
			if r.Intn(2) == 0 {
				return &Call{Fn: FuncStrLen, Args: []Expr{sub(String)}}
			}
			return &UDFCall{UDF: mustUDF("inc_wrap"), Args: []Expr{sub(Int64)}}
		}
		return &Call{Fn: []Func{FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod}[r.Intn(5)], Args: []Expr{sub(t), sub(t)}}
	case String:
		return &Call{Fn: FuncConcat, Args: []Expr{sub(String), sub(String)}}
	default:
		switch r.Intn(4) {
		case 0:
			ct := Types()[r.Intn(5)]
			return &Call{Fn: []Func{FuncEq, FuncNe, FuncLt, FuncLe, FuncGt, FuncGe}[r.Intn(6)], Args: []Expr{sub(ct), sub(ct)}}
		case 1:
			return &Call{Fn: []Func{FuncAnd, FuncOr}[r.Intn(2)], Args: []Expr{sub(Bool), sub(Bool)}}
		case 2:
			return &Call{Fn: []Func{FuncNot, FuncIsNull, FuncIsNotNull}[r.Intn(3)], Args: []Expr{sub(Bool)}}
		default:
			return &Call{Fn: FuncIsNaN, Args: []Expr{sub(Float64)}}
		}
	}
}

func TestPropResolve(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 600))
	resolvedOK, failed := 0, 0
	props.Property("Resolve is idempotent, pure, and stable", prop.ForAll(
		func(g genPlan) (string, error) {
			before := Explain(g.N)
			r, err := Resolve(g.N)
			if Explain(g.N) != before {
				return "Resolve mutated its input", nil
			}
			r2, err2 := Resolve(g.N)
			if err != nil {
				failed++
				e1, ok1 := AsError(err)
				e2, ok2 := AsError(err2)
				if !ok1 || !ok2 || !e1.Same(e2) || e1.Path != e2.Path || e1.Node != e2.Node || e1.Path == "" {
					return "errors differ between runs or lack a location: " + err.Error(), nil
				}
				return "", nil
			}
			resolvedOK++
			if err2 != nil || !Equal(r, r2) || ExplainSchemas(r) != ExplainSchemas(r2) || Fingerprint(r) != Fingerprint(r2) {
				return "two resolutions differ", nil
			}
			if again, err := Resolve(r); err != nil || again != r {
				return "resolving a resolved plan was not the identity", nil
			}
			fresh, err := Resolve(Unresolved(r))
			if err != nil {
				return "re-resolution failed: " + err.Error(), nil
			}
			if !Equal(fresh, r) || ExplainSchemas(fresh) != ExplainSchemas(r) || Fingerprint(fresh) != Fingerprint(r) ||
				IsDeterministicPlan(fresh) != IsDeterministicPlan(r) || Size(fresh) != Size(r) {
				return "re-resolution differs:\n" + ExplainSchemas(fresh) + "\nvs\n" + ExplainSchemas(r), nil
			}
			// Structural identity agrees with fingerprints.
			rb := Unresolved(r)
			if !Equal(rb, r) || Fingerprint(rb) != Fingerprint(r) {
				return "a rebuild is not Equal", nil
			}
			// Every resolved node's cached metadata matches a fresh computation.
			bad := ""
			WalkNodes(r, func(n Node) bool {
				fp, det, opDet := fingerprintNode(n)
				e, o := Determinism(n)
				if !n.Resolved() || fp != Fingerprint(n) || det != e || opDet != o {
					bad = n.Label()
				}
				return bad == ""
			})
			if bad != "" {
				return "stale metadata at " + bad, nil
			}
			return "", nil
		}, planGen(t)))
	props.TestingRun(t)
	t.Logf("%d plans resolved, %d failed to resolve", resolvedOK, failed)
	if resolvedOK < 100 || failed < 20 {
		t.Errorf("the plan generator is lopsided: %d resolved, %d failed", resolvedOK, failed)
	}
}

// corruptExpr is randExpr with malformed pieces mixed in: nil operands,
// unknown functions and types, windows without aggregates.
func corruptExpr(r *rand.Rand, depth int) Expr {
	switch r.Intn(12) {
	case 0:
		return nil
	case 1:
		return &Call{Fn: Func(r.Intn(256)), Args: []Expr{corruptExpr(r, depth-1)}}
	case 2:
		return &Cast{Expr: corruptExpr(r, depth-1), To: Type(r.Intn(256)), Strict: true}
	case 3:
		return &Literal{Value: NullValue(Type(r.Intn(256)))}
	case 4:
		return &Over{Agg: corruptExpr(r, depth-1), PartitionBy: []Expr{corruptExpr(r, depth-1)}}
	case 5:
		return &UDFCall{Args: []Expr{corruptExpr(r, depth-1), nil}}
	}
	if depth <= 0 {
		return randExpr(r, 0)
	}
	e := randExpr(r, 1)
	kids := e.Children()
	for i := range kids {
		kids[i] = corruptExpr(r, depth-1)
	}
	if len(kids) > 0 {
		return e.WithChildren(kids)
	}
	return e
}

// corruptNode puts a malformed node on top of n.
func corruptNode(r *rand.Rand, n Node) Node {
	var child Node = n
	switch r.Intn(4) {
	case 0:
		child = nil
	case 1:
		child = (*FilterNode)(nil)
	}
	es := []Expr{corruptExpr(r, 3), corruptExpr(r, 2)}
	switch r.Intn(10) {
	case 0:
		return &FilterNode{Input: child, Predicates: es}
	case 1:
		return &ProjectNode{Input: child, Exprs: es}
	case 2:
		return &WithColumnsNode{Input: child, Exprs: es}
	case 3:
		return &SortNode{Input: child, Keys: []SortKey{{Expr: es[0]}, {Expr: es[1], Desc: true}}}
	case 4:
		return &AggregateNode{Input: child, Keys: es[:1], Aggs: es[1:]}
	case 5:
		return &JoinNode{Left: child, Right: n, How: JoinKind(r.Intn(10)), LeftOn: es[:1], RightOn: es[:r.Intn(3)]}
	case 6:
		return &UnionNode{Inputs: []Node{n, child}}
	case 7:
		return &WindowNode{Input: child, Exprs: es}
	case 8:
		return &ExtensionNode{Def: []*ExtensionDef{nil, identityExt, {Name: "z"}}[r.Intn(3)], Inputs: []Node{child}[:r.Intn(2)]}
	default:
		return &ScanNode{Source: []Source{nil, panicSource{}, std(nopTB{})}[r.Intn(3)], Projected: r.Intn(2) == 0,
			Columns: []string{"a", "", "a"}[:r.Intn(4)], Pushed: []PushedPredicate{{Expr: es[0], Support: PredicateSupport(r.Intn(256))}}}
	}
}

// nopTB lets fixtures run inside a generator (they cannot fail there).
type nopTB struct{ testing.TB }

func (nopTB) Helper()           {}
func (nopTB) Fatal(args ...any) { panic(args) }

func TestPropNoPanics(t *testing.T) {
	tt := std(t)
	props := gopter.NewProperties(propParams(t, 2000))
	props.Property("malformed plans and expressions never panic the plan layer", prop.ForAll(
		func(g genPlan) bool {
			n := g.N
			_ = Explain(n)
			_ = ExplainSchemas(n)
			_ = Fingerprint(n)
			_ = IsDeterministicPlan(n)
			_ = Size(n)
			_ = Equal(n, n)
			_ = Equal(n, Unresolved(n))
			WalkNodes(n, func(m Node) bool { _ = NodeExprs(m); _ = m.Label(); return true })
			r, err := Resolve(n)
			if err != nil {
				_, ok := AsError(err)
				return ok && err.Error() != ""
			}
			_ = ExplainSchemas(r)
			_, err = Resolve(Unresolved(r))
			return err == nil
		}, func(p *gopter.GenParameters) *gopter.GenResult {
			r := p.Rng
			n := Scan(tt).Node()
			for i := 0; i < 1+r.Intn(4); i++ {
				if r.Intn(2) == 0 {
					n = corruptNode(r, n)
				} else {
					n = randStep(r, n, tt, tt)
				}
			}
			return gopter.NewGenResult(genPlan{n}, gopter.NoShrinker)
		}))
	props.TestingRun(t)
}
