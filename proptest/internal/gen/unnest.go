package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The nested template's reshaping step: unnest of the struct column s
// (docs/semantics.md, unnest), then a node above it that its cells are
// about:
//
//	filter(k > 1, a > 0) . unnest [s]   (pp.unnest: k crosses, a stops)
//	limit 2 . unnest [s]                (lp.unnest crosses)
//	project(a, k) . unnest [s]          (pr.unnest keeps s whole below)
//
// The struct's first field is sometimes named s, like the struct
// (nestedTableOf), so a conjunct on that field reads a name the input
// also has, as a struct: the case pp.unnest's refusal is about.

// nestedReshape applies unnest (when in has the struct column s) or
// explode (of its lists l and m: one, or both zipped) and puts a filter, a
// limit or a projection over it; budget is the levels left, and it returns
// how many it used.
func (g *gen) nestedReshape(in frame, budget int) (frame, int) {
	if g.r.Intn(2) == 0 {
		if out, used, ok := g.explode(in, budget); ok {
			return out, used
		}
	}
	f, ok := in.schema().Lookup("s")
	if !ok || !f.Type.IsStruct() {
		return in, 0
	}
	out, err := g.tryFinish(&plan.UnnestNode{Input: in.raw, Columns: []string{"s"}}, in.rows, in)
	if err != nil {
		g.fallbacks++
		g.lastErr = err
		return in, 0
	}
	used := 1
	if budget < 2 {
		return out, used
	}
	fields := f.Type.StructFields()
	return g.overReshaped(out, fields[g.r.Intn(len(fields))].Name), used + 1
}

// explode explodes l (most often), m, or both zipped, when in has them as
// lists: both zipped often have unequal lengths (invalid_input), the case
// pp.explode's refusal for several columns is about.
func (g *gen) explode(in frame, budget int) (frame, int, bool) {
	var lists []string
	for _, name := range []string{"l", "m"} {
		if f, ok := in.schema().Lookup(name); ok && f.Type.IsList() {
			lists = append(lists, name)
		}
	}
	if len(lists) == 0 {
		return in, 0, false
	}
	cols := []string{lists[0]}
	switch x := g.r.Intn(8); {
	case len(lists) == 1:
	case x < 2:
		cols = []string{"m"}
	case x < 4:
		cols = []string{"l", "m"}
	case x == 4:
		cols = []string{"m", "l"}
	}
	out, err := g.tryFinish(&plan.ExplodeNode{Input: in.raw, Columns: cols}, in.rows*2, in)
	if err != nil {
		g.fallbacks++
		g.lastErr = err
		return in, 0, false
	}
	if budget < 2 {
		return out, 1, true
	}
	return g.overReshaped(out, cols[g.r.Intn(len(cols))]), 2, true
}

// overReshaped puts one node over the output of an unnest or explode:
// a filter of one or two conjuncts (one on k, which the node passes
// through, or on made, a column the node makes), a limit, or a
// projection keeping some columns.
func (g *gen) overReshaped(out frame, made string) frame {
	switch x := g.r.Intn(10); {
	case x < 5:
		var preds []plan.Expr
		k := call(plan.FuncGt, col("k"), lit(plan.Int64Value(int64(g.r.Intn(4)))))
		switch g.r.Intn(4) {
		case 0:
			preds = []plan.Expr{k}
		case 1:
			preds = []plan.Expr{call(plan.FuncIsNotNull, col(made))}
		case 2:
			preds = []plan.Expr{k, call(plan.FuncIsNull, col(made))}
		default:
			preds = []plan.Expr{g.predicate(g.ctx(out, anyMode), g.predMode())}
		}
		return g.finish(&plan.FilterNode{Input: out.raw, Predicates: preds}, out.rows, out)
	case x < 8:
		return g.limit(out)
	}
	var keep []plan.Expr
	for _, f := range out.schema().Fields() {
		if len(keep) == 0 || g.r.Intn(2) == 0 {
			keep = append(keep, col(f.Name))
		}
	}
	return g.finish(&plan.ProjectNode{Input: out.raw, Exprs: keep}, out.rows, out)
}
