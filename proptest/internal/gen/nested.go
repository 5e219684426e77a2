package gen

import (
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// The nested template: list and struct columns (docs/semantics.md, Lists
// and structs) and the functions that read them. Lists and structs may
// not be keys or compared, so the template keeps them to itself: its
// table tn is never drawn by the other moves (scannable skips it), and
// every frame it returns ends in a projection of scalar columns only.
//
//	project(k, list.len(l) as x, struct.field(s, "a") as y)
//	  . filter(list.contains(l, 3)) . sort k . join left k=k (tn, tn) . scan tn
//
// The data is adversarial: empty lists, null lists, lists of nulls,
// special elements (NaN payloads, -0.0, the integer extremes, invalid
// UTF-8), null structs and structs of null fields.

// nestedElemTypes are the element types of the template's lists.
var nestedElemTypes = []plan.Type{plan.Int64, plan.Int64, plan.Int32, plan.Float64, plan.Float64, plan.String, plan.Date, plan.Bool}

// listIndexes are list.get's literal positions: in range, from the end,
// out of range both ways.
var listIndexes = []int64{0, 0, 1, 2, -1, -1, -2, 3, 5, -4, -9223372036854775808}

// hasNested reports whether a table has a list or struct column.
func hasNested(t *plan.Table) bool {
	for _, f := range t.Schema().Fields() {
		if f.Type.IsNested() {
			return true
		}
	}
	return false
}

// nestedTableOf returns the plan's nested table, drawing it on first use:
// k (int64, low cardinality), l (a list of a drawn element type, a
// narrower number a quarter of the time), m (list<int64> with sums that
// overflow) and s (a struct of an int64 and a drawn scalar, a narrower
// number a quarter of the time).
func (g *gen) nestedTableOf() (*plan.Table, bool) {
	if g.nested != nil {
		return g.nested, true
	}
	if len(g.tables) >= g.cfg.MaxTables || g.cfg.MaxColumns < 4 {
		return nil, false
	}
	el := nestedElemTypes[g.r.Intn(len(nestedElemTypes))]
	if g.r.Intn(4) == 0 {
		el = narrowTypes[g.r.Intn(len(narrowTypes))] // list<int8>, list<uint64>, list<float32>...
	}
	b := []plan.Type{plan.String, plan.Float64, plan.Date, plan.Bool}[g.r.Intn(4)]
	if g.r.Intn(4) == 0 {
		b = narrowTypes[g.r.Intn(len(narrowTypes))]
	}
	first := "a"
	if g.r.Intn(3) == 0 {
		first = "s" // named like its struct: unnest's field s (unnest.go)
	}
	fields := []plan.Field{
		{Name: "k", Type: plan.Int64, Nullable: true},
		{Name: "l", Type: plan.MustListOf(el), Nullable: true},
		{Name: "m", Type: plan.MustListOf(plan.Int64), Nullable: g.r.Intn(2) == 0},
		{Name: "s", Type: plan.MustStructOf(plan.StructField{Name: first, Type: plan.Int64}, plan.StructField{Name: "b", Type: b}), Nullable: true},
	}
	rows := g.pickRows()
	t, err := plan.NewTable("t"+strconv.Itoa(len(g.tables)), plan.MustSchema(fields...), g.columns(fields, rows))
	if err != nil {
		return nil, false // unreachable: the columns follow the schema
	}
	g.tables = append(g.tables, t)
	g.nested = t
	return t, true
}

// nestedValue draws a non-null list or struct value: a third of the lists
// empty or all nulls, elements from the scalar generator (specials under
// profWild), struct fields null a quarter of the time each.
func (g *gen) nestedValue(t plan.Type, p profile) plan.Value {
	if t.IsList() {
		n := []int{0, 0, 1, 1, 2, 3, 4, 6}[g.r.Intn(8)]
		allNull := g.r.Intn(6) == 0
		elems := make([]plan.Value, n)
		for i := range elems {
			if allNull || g.r.Intn(5) == 0 {
				elems[i] = plan.NullValue(t.Elem())
				continue
			}
			ep := p
			if (t.Elem() == plan.Int64 || t.Elem() == plan.Uint64) && g.r.Intn(4) == 0 {
				ep = profWild // sums that overflow
			}
			elems[i] = g.value(t.Elem(), ep)
		}
		return plan.ListValue(t, elems)
	}
	fs := t.StructFields()
	vals := make([]plan.Value, len(fs))
	for i, f := range fs {
		if g.r.Intn(4) == 0 {
			vals[i] = plan.NullValue(f.Type)
		} else {
			vals[i] = g.value(f.Type, p)
		}
	}
	return plan.StructValue(t, vals)
}

// nestedShape builds the nested template when m is mNested and the plan
// has room for its table; ok is false otherwise.
func (g *gen) nestedShape(m move, depth int) (frame, bool) {
	if m != mNested || depth < 2 {
		return frame{}, false
	}
	t, ok := g.nestedTableOf()
	if !ok {
		return frame{}, false
	}
	budget := depth - 1 // the final projection
	in := g.scanOf(t)
	if budget >= 2 && g.r.Intn(4) == 0 {
		// A self-join on k: the right side's lists and structs are payload,
		// null-extended by left and full joins.
		kind := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.FullJoin, plan.LeftJoin}[g.r.Intn(4)]
		in = g.finish(&plan.JoinNode{Left: in.raw, Right: in.raw, How: kind,
			LeftOn: []plan.Expr{col("k")}, RightOn: []plan.Expr{col("k")}}, in.rows*in.rows, in, in)
		budget--
	}
	if budget > 0 && g.r.Intn(4) > 0 {
		// Unnest or explode first (unnest.go), three times in four.
		var used int
		in, used = g.nestedReshape(in, budget)
		budget -= used
	}
	for budget > 0 {
		budget--
		switch x := g.r.Intn(100); {
		case x < 30:
			c := g.ctx(in, anyMode)
			preds := []plan.Expr{g.nestedPred(c)}
			if g.r.Intn(3) == 0 {
				preds = append(preds, g.predicate(c, g.predMode()))
			}
			in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
		case x < 45:
			in = g.finish(&plan.SortNode{Input: in.raw, Keys: []plan.SortKey{{Expr: col("k"), Desc: g.r.Intn(2) == 0, NullsLast: g.r.Intn(2) == 0}}}, in.rows, in)
			if budget > 0 && g.r.Intn(4) > 0 && in.schema().Index("m") >= 0 {
				// A partial conjunct right over the sort: list.sum(m)
				// overflows on some lists, so it must not cross (pp.sort).
				budget--
				pred := call(plan.FuncGe, call(plan.FuncListSum, col("m")), lit(plan.Int64Value(int64(g.r.Intn(3)-1))))
				in = g.finish(&plan.FilterNode{Input: in.raw, Predicates: []plan.Expr{pred}}, in.rows, in)
			}
		case x < 55:
			in = g.orderNode(in)
		case x < 62:
			in = g.limit(in)
		case x < 70:
			var used int
			in, used = g.nestedReshape(in, budget+1)
			budget -= max(used-1, 0)
		case x < 80:
			c := g.ctx(in, g.nodeMode())
			exprs := g.nestedEntries(c, in.schema())
			in = g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: exprs}, in.rows, in)
		default:
			budget = 0
		}
	}
	return g.nestedProject(in), true
}

// nestedProject ends the template: the input's scalar columns (some of
// them) and one to four list or struct function entries; no list or
// struct column survives.
func (g *gen) nestedProject(in frame) frame {
	c := g.ctx(in, g.nodeMode())
	var exprs []plan.Expr
	for _, f := range in.schema().Fields() {
		if !f.Type.IsNested() && (len(exprs) == 0 || g.r.Intn(2) == 0) {
			exprs = append(exprs, col(f.Name))
		}
	}
	exprs = append(exprs, g.nestedEntries(c, in.schema())...)
	out, err := g.tryFinish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
	if err != nil {
		// Never leave a list or struct column to the other moves.
		g.fallbacks++
		g.lastErr = err
		return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: []plan.Expr{alias(call(plan.FuncListLen, col("l")), "x")}}, in.rows, in)
	}
	return out
}

// nestedEntries draws one to four aliased list or struct function calls
// under names new to the schema.
func (g *gen) nestedEntries(c ectx, s plan.Schema) []plan.Expr {
	used := map[string]bool{}
	n := 1 + g.r.Intn(4)
	out := make([]plan.Expr, 0, n)
	for i := 0; i < n; i++ {
		name := g.freshName(used, c.sc)
		used[name] = true
		out = append(out, alias(g.nestedExpr(c, s), name))
	}
	return out
}

// nestedCols returns the schema's list and struct columns.
func nestedCols(s plan.Schema) (lists, structs []plan.Field) {
	for _, f := range s.Fields() {
		switch {
		case f.Type.IsList():
			lists = append(lists, f)
		case f.Type.IsStruct():
			structs = append(structs, f)
		}
	}
	return lists, structs
}

// nestedExpr draws a scalar expression over a list or struct column: one
// of the functions, sometimes under arithmetic or a comparison. A partial
// list.sum (integer elements) only in anyMode.
func (g *gen) nestedExpr(c ectx, s plan.Schema) plan.Expr {
	lists, structs := nestedCols(s)
	if len(lists) == 0 && len(structs) == 0 {
		return lit(plan.Int64Value(1))
	}
	if len(structs) > 0 && (len(lists) == 0 || g.r.Intn(4) == 0) {
		f := structs[g.r.Intn(len(structs))]
		fs := f.Type.StructFields()
		e := call(plan.FuncStructField, col(f.Name), lit(plan.StringValue(fs[g.r.Intn(len(fs))].Name)))
		if g.r.Intn(5) == 0 {
			return call([]plan.Func{plan.FuncIsNull, plan.FuncIsNotNull}[g.r.Intn(2)], col(f.Name))
		}
		return e
	}
	f := lists[g.r.Intn(len(lists))]
	l := col(f.Name)
	el := f.Type.Elem()
	for {
		switch x := g.r.Intn(100); {
		case x < 18:
			e := call(plan.FuncListLen, l)
			if g.r.Intn(3) == 0 {
				return call(plan.FuncGt, e, lit(plan.Int64Value(int64(g.r.Intn(3)))))
			}
			return e
		case x < 40:
			var i plan.Expr = lit(plan.Int64Value(listIndexes[g.r.Intn(len(listIndexes))]))
			switch g.r.Intn(4) {
			case 0:
				i = lit(plan.Int32Value(int32(g.r.Intn(5) - 2)))
			case 1:
				if s.Index("k") >= 0 {
					i = col("k")
				}
			}
			return call(plan.FuncListGet, l, i)
		case x < 55:
			xt := el
			if el.IsNumeric() && g.r.Intn(3) == 0 {
				xt = g.comparableWith(el) // compared in the promoted type
			}
			return call(plan.FuncListContains, l, lit(g.literal(xt)))
		case x < 70:
			if !el.IsNumeric() || (el.IsInteger() && c.mode != anyMode) {
				continue
			}
			return call(plan.FuncListSum, l)
		case x < 90:
			return call([]plan.Func{plan.FuncListMin, plan.FuncListMax}[g.r.Intn(2)], l)
		default:
			return call([]plan.Func{plan.FuncIsNull, plan.FuncIsNotNull}[g.r.Intn(2)], l)
		}
	}
}

// nestedPred draws a bool predicate over the list and struct columns.
func (g *gen) nestedPred(c ectx) plan.Expr {
	s := plan.MustSchema(c.sc.fields...)
	for tries := 0; tries < 8; tries++ {
		e := g.nestedExpr(c, s)
		if t, _ := plan.TypeAndTotality(e, s, plan.TrustLanguage); t == plan.Bool {
			return e
		}
		if t, _ := plan.TypeAndTotality(e, s, plan.TrustLanguage); t.IsNumeric() {
			bound := plan.Int64Value(int64(g.r.Intn(3)))
			if t == plan.Uint64 {
				bound = plan.Uint64Value(uint64(g.r.Intn(3))) // uint64 does not promote with int64
			}
			return call(plan.FuncGe, e, lit(bound))
		}
	}
	return call(plan.FuncIsNotNull, col(c.sc.fields[0].Name))
}
