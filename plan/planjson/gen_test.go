package planjson

import (
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// docGen draws random Documents for the round-trip property: random schemas
// and adversarial values (NaN with payloads, ±0, ±Inf, MinInt64, values
// beyond ±2^53, control characters), and random plans of every node kind
// with random expressions — about half drawn against the input's real
// schema (so that a good share resolves, window synthesis included), the
// rest arbitrary (ill-typed plans must round-trip too: the oracle compares
// their resolve errors).
type docGen struct {
	r      *rand.Rand
	udfs   *plan.UDFRegistry
	exts   *plan.ExtensionRegistry
	tables []*plan.Table
	fresh  int
}

// testExtensions adds a two-input operator to the built-in registry, so that
// the multi-input "inputs" form is exercised.
func testExtensions() *plan.ExtensionRegistry {
	r := testops.Registry()
	if err := r.Register(&plan.ExtensionDef{Name: "pair", Inputs: 2, Properties: []plan.ExtensionProperty{plan.DeterministicOp}}); err != nil {
		panic(err)
	}
	return r
}

var (
	nameParts = []string{"a", "b", "k", "x", "id", "my col", "é", "__over_0", "len", "literal", "q\"uote", "tab\t", "\u2028", "s"}
	strPool   = []string{"", "a", "A", "naïve", "\x00", "\n", "\"", "\\", "\u2028", "日本", "NaN", "-0", "1e30", "null", "\x7f", "🙂"}
)

func (g *docGen) pick(n int) int { return g.r.Intn(n) }

func (g *docGen) chance(num, den int) bool { return g.r.Intn(den) < num }

func (g *docGen) name() string { return nameParts[g.pick(len(nameParts))] }

func (g *docGen) freshName() string {
	g.fresh++
	return "e" + strconv.Itoa(g.fresh)
}

func (g *docGen) str() string {
	if g.chance(1, 3) {
		var b strings.Builder
		for i := g.pick(6); i > 0; i-- {
			r := rune(g.pick(0x3000))
			if r >= 0xd800 && r < 0xe000 {
				r = 'x'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return strPool[g.pick(len(strPool))]
}

func (g *docGen) int64v() int64 {
	special := []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 1 << 53, -(1 << 53), 1<<53 + 1, -(1<<53 + 1), math.MinInt32, math.MaxInt32 + 1}
	if g.chance(1, 2) {
		return special[g.pick(len(special))]
	}
	return int64(g.r.Uint64())
}

func (g *docGen) float64v() float64 {
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.SmallestNonzeroFloat64,
		0.1, 1e300, 1 << 53, 2.5, -7}
	switch g.pick(4) {
	case 0:
		return special[g.pick(len(special))]
	case 1:
		// A NaN with a random payload and sign: the format keeps only "NaN".
		return math.Float64frombits(0x7ff0000000000001 | g.r.Uint64()&0x800fffffffffffff)
	case 2:
		return math.Float64frombits(g.r.Uint64()) // any bits at all
	}
	return g.r.NormFloat64() * math.Pow(10, float64(g.pick(40)-20))
}

func (g *docGen) value(t plan.Type, nullable bool) plan.Value {
	if nullable && g.chance(1, 5) {
		return plan.NullValue(t)
	}
	switch t {
	case plan.Int64:
		return plan.Int64Value(g.int64v())
	case plan.Int32:
		return plan.Int32Value(int32(g.int64v()))
	case plan.Float64:
		return plan.Float64Value(g.float64v())
	case plan.String:
		return plan.StringValue(g.str())
	case plan.Date:
		return plan.DateValue(int32(g.int64v()))
	case plan.Datetime:
		return plan.DatetimeValue(g.int64v())
	case plan.Duration:
		return plan.DurationValue(g.int64v())
	case plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32:
		lo, hi, _ := plan.IntRange(t)
		edges := []int64{lo, int64(hi), 0, 1}
		if g.chance(1, 2) {
			v, _ := plan.IntValue(t, edges[g.pick(len(edges))])
			return v
		}
		v, _ := plan.IntValue(t, lo+int64(g.r.Uint64()%(hi-uint64(lo)+1)))
		return v
	case plan.Uint64:
		edges := []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<53 + 1}
		if g.chance(1, 2) {
			return plan.Uint64Value(edges[g.pick(len(edges))])
		}
		return plan.Uint64Value(g.r.Uint64())
	case plan.Float32:
		f := plan.Float64To32(g.float64v())
		if f != f {
			f = plan.Float64To32(math.NaN()) // the format keeps only "NaN"
		}
		return plan.Float32Value(f)
	}
	return plan.BoolValue(g.chance(1, 2))
}

func (g *docGen) typ() plan.Type { ts := plan.Types(); return ts[g.pick(len(ts))] }

func (g *docGen) table(name string) *plan.Table {
	ncols, nrows := g.pick(5), g.pick(6)
	var fields []plan.Field
	seen := map[string]bool{}
	for len(fields) < ncols {
		n := g.name()
		if seen[n] {
			n += strconv.Itoa(len(fields))
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		fields = append(fields, plan.Field{Name: n, Type: g.typ(), Nullable: g.chance(3, 4)})
	}
	cols := make([][]plan.Value, ncols)
	for i, f := range fields {
		cols[i] = make([]plan.Value, nrows)
		for r := range cols[i] {
			cols[i][r] = g.value(f.Type, f.Nullable)
		}
	}
	t, err := plan.NewTable(name, plan.MustSchema(fields...), cols)
	if err != nil {
		panic(err) // the generator builds valid tables; a failure is a generator bug
	}
	return t
}

// document draws a whole Document.
func (g *docGen) document() *Document {
	doc := &Document{Tables: map[string]*TableSpec{}}
	names := []string{"t", "orders", "my table", "ünï", "t2"}
	for i := 1 + g.pick(3); i > 0; i-- {
		name := names[g.pick(len(names))]
		if doc.Tables[name] != nil {
			continue
		}
		t := g.table(name)
		g.tables = append(g.tables, t)
		doc.Tables[name] = &TableSpec{Inline: t}
	}
	if g.chance(1, 5) {
		doc.Tables["pq"] = &TableSpec{Parquet: "data/" + g.str() + ".parquet"}
	}
	if g.chance(1, 3) {
		doc.Description = g.str()
	}
	doc.Plan = g.node(g.pick(5), false)
	if g.chance(1, 2) {
		doc.Flags = map[string]bool{}
		for i := g.pick(4); i > 0; i-- {
			doc.Flags[g.name()] = g.chance(1, 2)
		}
	}
	if g.chance(1, 2) {
		doc.Expect = &Expect{}
		if g.chance(1, 2) {
			doc.Expect.Counters = map[string]int64{}
			for i := g.pick(4); i > 0; i-- {
				doc.Expect.Counters[g.name()] = g.int64v()
			}
		}
		if g.chance(2, 3) {
			kinds := plan.ErrorKinds()
			k := plan.ErrorKind("")
			if g.chance(1, 2) {
				k = kinds[g.pick(len(kinds))]
			}
			doc.Expect.Error = &k
		}
	}
	return doc
}

// schemaOf returns the resolved schema of n, when it resolves.
func schemaOf(n plan.Node) (plan.Schema, bool) {
	r, err := plan.Resolve(n)
	if err != nil {
		return plan.Schema{}, false
	}
	return r.Schema(), true
}

// node draws a plan of the given depth. A window is never drawn directly
// under a project or with_columns (underProject): Encode folds such a
// window into its parent when that is exact, which is a different (tested)
// property. Elsewhere a drawn window gets a with_columns owner reading none
// of its columns (Resolve accepts a window only under an owner).
func (g *docGen) node(depth int, underProject bool) plan.Node {
	if depth <= 0 || g.chance(1, 8) {
		return g.scan()
	}
	kinds := []plan.Kind{plan.KindFilter, plan.KindProject, plan.KindWithColumns, plan.KindSort, plan.KindLimit,
		plan.KindSlice, plan.KindAggregate, plan.KindJoin, plan.KindUnion, plan.KindDistinct, plan.KindWindow, plan.KindExtension, plan.KindGuard,
		plan.KindTail, plan.KindReverse, plan.KindRowIndex, plan.KindAsOfJoin, plan.KindTemporalGroup, plan.KindHStack, plan.KindMergeSorted, plan.KindUnpivot,
		plan.KindUnnest, plan.KindExplode, plan.KindWindow} // window twice: windows stay above 2% of the cases
	k := kinds[g.pick(len(kinds))]
	if (k == plan.KindAsOfJoin || k == plan.KindTemporalGroup || k == plan.KindUnnest || k == plan.KindExplode) && g.chance(7, 8) {
		k = kinds[g.pick(len(kinds))] // at an eighth of the weight, so windows stay frequent
	}
	for underProject && k == plan.KindWindow {
		k = kinds[g.pick(len(kinds))]
	}
	isProject := k == plan.KindProject || k == plan.KindWithColumns
	in := g.node(depth-1, isProject)
	schema, typed := schemaOf(in)
	typed = typed && g.chance(2, 3) && schema.Len() > 0
	ex := func(allowOver bool) plan.Expr {
		if typed {
			return g.typedExpr(schema, allowOver)
		}
		return g.expr(2)
	}
	list := func(n int, allowOver bool) []plan.Expr {
		var out []plan.Expr
		for ; n > 0; n-- {
			out = append(out, ex(allowOver))
		}
		return out
	}
	switch k {
	case plan.KindFilter:
		var preds []plan.Expr
		for i := g.pick(3); i >= 0; i-- {
			if typed {
				preds = append(preds, g.typedPredicate(schema))
			} else {
				preds = append(preds, g.expr(2))
			}
		}
		return &plan.FilterNode{Input: in, Predicates: preds}
	case plan.KindProject:
		return &plan.ProjectNode{Input: in, Exprs: list(1+g.pick(3), true)}
	case plan.KindGuard:
		return &plan.GuardNode{Input: in, Exprs: list(1+g.pick(2), false)}
	case plan.KindWithColumns:
		return &plan.WithColumnsNode{Input: in, Exprs: list(1+g.pick(3), true)}
	case plan.KindWindow:
		var es []plan.Expr
		for i := 1 + g.pick(2); i > 0; i-- {
			var over plan.Expr
			if typed {
				over = g.typedOver(schema)
			} else {
				over = &plan.Over{Agg: g.expr(1), PartitionBy: []plan.Expr{g.expr(1)}}
			}
			es = append(es, &plan.Alias{Expr: over, Name: g.freshName()})
		}
		win := &plan.WindowNode{Input: in, Exprs: es}
		if underProject {
			return win
		}
		// A window resolves only directly under a project or with_columns
		// (plan.OwnedWindow): give it an owner that reads none of its
		// columns, so that Encode cannot fold it.
		return &plan.WithColumnsNode{Input: win, Exprs: list(1+g.pick(2), false)}
	case plan.KindSort:
		var keys []plan.SortKey
		for i := 1 + g.pick(2); i > 0; i-- {
			keys = append(keys, plan.SortKey{Expr: ex(false), Desc: g.chance(1, 2), NullsLast: g.chance(1, 2)})
		}
		n := &plan.SortNode{Input: in, Keys: keys}
		if g.chance(1, 4) {
			n.HasLimit, n.Limit = true, g.count()
		}
		return n
	case plan.KindLimit:
		return &plan.LimitNode{Input: in, N: g.count()}
	case plan.KindSlice:
		return &plan.SliceNode{Input: in, Offset: g.count(), Len: g.count()}
	case plan.KindTail:
		return &plan.TailNode{Input: in, N: g.count()}
	case plan.KindReverse:
		return &plan.ReverseNode{Input: in}
	case plan.KindRowIndex:
		return &plan.RowIndexNode{Input: in, Name: g.freshName(), Offset: g.count()}
	case plan.KindHStack:
		return &plan.HStackNode{Inputs: []plan.Node{in, g.node(depth-1, false)}}
	case plan.KindMergeSorted:
		right := g.node(depth-1, false)
		if typed && g.chance(1, 2) {
			right = in // a shared subtree that also resolves
		}
		key := g.name()
		if typed {
			key = schema.Field(g.pick(schema.Len())).Name
		}
		return &plan.MergeSortedNode{Left: in, Right: right, Key: key}
	case plan.KindExplode:
		n := &plan.ExplodeNode{Input: in, Columns: []string{g.name()}}
		if typed {
			n.Columns = []string{schema.Field(g.pick(schema.Len())).Name}
		}
		return n
	case plan.KindUnnest:
		n := &plan.UnnestNode{Input: in, Columns: []string{g.name()}}
		if typed {
			n.Columns = []string{schema.Field(g.pick(schema.Len())).Name}
		}
		return n
	case plan.KindUnpivot:
		n := &plan.UnpivotNode{Input: in, On: []string{g.name()}}
		if typed {
			n.On = []string{schema.Field(g.pick(schema.Len())).Name}
		}
		if g.chance(1, 3) {
			n.Index = []string{}
		}
		if g.chance(1, 3) {
			n.VariableName, n.ValueName = g.freshName(), g.freshName()
		}
		return n
	case plan.KindAggregate:
		n := &plan.AggregateNode{Input: in}
		if typed {
			if g.chance(1, 2) {
				n.Keys = []plan.Expr{&plan.Column{Name: schema.Field(g.pick(schema.Len())).Name}}
			}
			for i := g.pick(3); i > 0; i-- {
				c := &plan.Column{Name: schema.Field(g.pick(schema.Len())).Name}
				n.Aggs = append(n.Aggs, &plan.Alias{Expr: &plan.Call{Fn: plan.FuncCount, Args: []plan.Expr{c}}, Name: g.freshName()})
			}
			return n
		}
		n.Keys, n.Aggs = list(g.pick(3), false), list(g.pick(3), false)
		return n
	case plan.KindJoin:
		right := g.node(depth-1, false)
		j := &plan.JoinNode{Left: in, Right: right, How: plan.JoinKinds()[g.pick(len(plan.JoinKinds()))]}
		if g.chance(1, 3) {
			j.Suffix = g.name()
		}
		rs, rtyped := schemaOf(right)
		if typed && rtyped {
			// Equal-typed key pairs, or a cross join when there are none.
			j.How, j.Suffix = plan.JoinKinds()[g.pick(6)], "_r"+strconv.Itoa(g.pick(100))
			for i := 0; i < schema.Len() && len(j.LeftOn) < 2; i++ {
				for k := 0; k < rs.Len(); k++ {
					if schema.Field(i).Type == rs.Field(k).Type && g.chance(1, 2) {
						j.LeftOn = append(j.LeftOn, &plan.Column{Name: schema.Field(i).Name})
						j.RightOn = append(j.RightOn, &plan.Column{Name: rs.Field(k).Name})
						break
					}
				}
			}
			if len(j.LeftOn) == 0 {
				j.How = plan.CrossJoin
			}
			return j
		}
		nk := g.pick(3)
		j.LeftOn, j.RightOn = list(nk, false), list(nk+g.pick(2)*(g.pick(3)-1), false)
		return j
	case plan.KindAsOfJoin:
		right := g.node(depth-1, false)
		j := &plan.AsOfJoinNode{Left: in, Right: right, LeftOn: g.name(), RightOn: g.name(),
			Strategy: plan.AsofStrategy(g.pick(3)), ExcludeExact: g.chance(1, 3)}
		if g.chance(1, 2) {
			j.LeftBy, j.RightBy = []string{g.name()}, []string{g.name()}
		}
		if g.chance(1, 2) {
			j.Tolerance = &plan.Literal{Value: plan.Int64Value(int64(g.pick(10)))}
		}
		if g.chance(1, 3) {
			j.Suffix = "_r" + strconv.Itoa(g.pick(100))
		}
		return j
	case plan.KindTemporalGroup:
		n := &plan.TemporalGroupNode{Input: in, Mode: plan.TemporalMode(g.pick(2)), Index: g.name(),
			Closed: plan.WindowClosed(g.pick(5)), Aggs: list(1+g.pick(2), false)}
		lit := func() plan.Expr { return &plan.Literal{Value: plan.Int64Value(int64(1 + g.pick(20)))} }
		if n.Mode == plan.TemporalDynamic {
			n.Every, n.LabelKind = lit(), plan.WindowLabel(g.pick(3))
			if g.chance(1, 2) {
				n.Period = lit()
			}
		} else {
			n.Period = lit()
		}
		if g.chance(1, 2) {
			n.Offset = &plan.Literal{Value: plan.Int64Value(int64(g.pick(7) - 3))}
		}
		if g.chance(1, 2) {
			n.By = []string{g.name()}
		}
		return n
	case plan.KindUnion:
		ins := []plan.Node{in}
		for i := g.pick(3); i > 0; i-- {
			if typed && g.chance(2, 3) {
				ins = append(ins, in) // a shared subtree that also resolves
			} else {
				ins = append(ins, g.node(depth-1, false))
			}
		}
		return &plan.UnionNode{Inputs: ins}
	case plan.KindDistinct:
		var subset []string
		if typed && g.chance(1, 2) {
			subset = append(subset, schema.Field(g.pick(schema.Len())).Name)
		} else {
			for i := g.pick(3); i > 0; i-- {
				subset = append(subset, g.name())
			}
		}
		return &plan.DistinctNode{Input: in, Subset: subset}
	}
	// Extension: identity over one input, or "pair" over two.
	if g.chance(1, 2) {
		return &plan.ExtensionNode{Def: testops.Identity, Inputs: []plan.Node{in}}
	}
	pair, _ := g.exts.Lookup("pair")
	return &plan.ExtensionNode{Def: pair, Inputs: []plan.Node{in, g.node(depth-1, false)}}
}

func (g *docGen) count() int64 {
	if g.chance(1, 6) {
		return g.int64v()
	}
	return int64(g.pick(5))
}

func (g *docGen) scan() plan.Node {
	t := g.tables[g.pick(len(g.tables))]
	n := &plan.ScanNode{Source: t, SourceSchema: t.Schema()}
	if g.chance(1, 4) {
		n.Projected = true
		for _, name := range t.Schema().Names() {
			if g.chance(1, 2) {
				n.Columns = append(n.Columns, name)
			}
		}
		if g.chance(1, 5) {
			n.Columns = append(n.Columns, g.name())
		}
	}
	if g.chance(1, 5) {
		for i := 1 + g.pick(2); i > 0; i-- {
			support := []plan.PredicateSupport{plan.Exact, plan.Inexact, plan.Unsupported}[g.pick(3)]
			n.Pushed = append(n.Pushed, plan.PushedPredicate{Expr: g.expr(1), Support: support})
		}
	}
	if g.chance(1, 6) {
		n.HasMaxRows, n.MaxRows = true, g.count()
	}
	return n
}

// expr draws an arbitrary expression (well-typed or not).
func (g *docGen) expr(depth int) plan.Expr {
	if depth <= 0 || g.chance(1, 3) {
		if g.chance(1, 2) {
			return &plan.Column{Name: g.name()}
		}
		return &plan.Literal{Value: g.value(g.typ(), true)}
	}
	args := func(n int) []plan.Expr {
		var out []plan.Expr
		for ; n > 0; n-- {
			out = append(out, g.expr(depth-1))
		}
		return out
	}
	switch g.pick(6) {
	case 0:
		return &plan.Cast{Expr: g.expr(depth - 1), To: g.typ(), Strict: g.chance(1, 2)}
	case 1:
		return &plan.Alias{Expr: g.expr(depth - 1), Name: g.name()}
	case 2:
		return &plan.Over{Agg: g.expr(depth - 1), PartitionBy: args(g.pick(3))}
	case 3:
		names := g.udfs.Names()
		u, _ := g.udfs.Lookup(names[g.pick(len(names))])
		return &plan.UDFCall{UDF: u, Args: args(g.pick(3))}
	}
	fns := plan.Funcs()
	fn := fns[g.pick(len(fns))]
	lo, hi := fn.Arity()
	n := lo
	if hi < 0 {
		n += g.pick(3)
	}
	if g.chance(1, 8) {
		n = g.pick(4) // the wrong arity now and then
	}
	return &plan.Call{Fn: fn, Args: args(n)}
}

// typedExpr draws an expression that resolves against schema, aliased to a
// fresh name so that a list of them has no duplicate outputs.
func (g *docGen) typedExpr(schema plan.Schema, allowOver bool) plan.Expr {
	f := schema.Field(g.pick(schema.Len()))
	c := &plan.Column{Name: f.Name}
	var e plan.Expr
	switch g.pick(5) {
	case 0:
		e = &plan.Literal{Value: g.value(g.typ(), true)}
	case 1:
		e = &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{c}}
	case 2:
		if allowOver {
			e = g.typedOver(schema)
		} else {
			e = &plan.Call{Fn: plan.FuncCoalesce, Args: []plan.Expr{c, c}}
		}
	case 3:
		e = &plan.Cast{Expr: c, To: plan.String, Strict: g.chance(1, 2)}
	default:
		e = c
	}
	return &plan.Alias{Expr: e, Name: g.freshName()}
}

// typedOver draws first/last/count(col).over(col), which resolve for any
// column types, sometimes inside another call.
func (g *docGen) typedOver(schema plan.Schema) plan.Expr {
	col := func() plan.Expr { return &plan.Column{Name: schema.Field(g.pick(schema.Len())).Name} }
	fn := []plan.Func{plan.FuncFirst, plan.FuncLast, plan.FuncCount}[g.pick(3)]
	var o plan.Expr = &plan.Over{Agg: &plan.Call{Fn: fn, Args: []plan.Expr{col()}}, PartitionBy: []plan.Expr{col()}}
	if g.chance(1, 3) {
		o = &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{o}}
	}
	return o
}

func (g *docGen) typedPredicate(schema plan.Schema) plan.Expr {
	c := &plan.Column{Name: schema.Field(g.pick(schema.Len())).Name}
	switch g.pick(3) {
	case 0:
		return &plan.Call{Fn: plan.FuncIsNotNull, Args: []plan.Expr{c}}
	case 1:
		return &plan.Call{Fn: plan.FuncEq, Args: []plan.Expr{c, c}}
	}
	return &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{c}}
}
