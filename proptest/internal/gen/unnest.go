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

// nestedReshape applies unnest (when in has the struct column s) and puts
// a filter, a limit or a projection over it; budget is the levels left,
// and it returns how many it used.
func (g *gen) nestedReshape(in frame, budget int) (frame, int) {
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

// overReshaped puts one node over the output of an unnest or explode:
// a filter of one or two conjuncts (one on k, which the node passes
// through, or on made, a column the node makes), a limit, or a
// projection keeping some columns.
func (g *gen) overReshaped(out frame, made string) frame {
	switch x := g.r.Intn(10); {
	case x < 4:
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
