package legality

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// The rules of package rules whose cells are decided here (ff.*, pf.*):
// their names, which are also their flags and file names.
const (
	RuleFilterFusion     = "filter_fusion"
	RuleProjectionFusion = "projection_fusion"
)

// FilterFacts summarizes one resolved filter for filter fusion, computed
// once per filter so that fusing a chain of filters stays linear.
type FilterFacts struct {
	boolOK     bool
	boolDetail string
	movable    bool
	movDetail  string
}

// FactsOf is Default().FactsOf: the facts under the bounded tier's
// totality.
func FactsOf(f *plan.FilterNode) FilterFacts { return Default().FactsOf(f) }

// FactsOf computes the facts of a filter: whether every conjunct resolves
// to bool over the filter's input, and whether every conjunct is total (for
// the table, over the filter's input: fused, the conjuncts see the rows of
// the filter below, which has the same input schema) and deterministic. A
// resolved filter has had its conjuncts checked bool by plan.Resolve, which
// FactsOf relies on; only an unresolved one is type checked here.
func (t *Table) FactsOf(f *plan.FilterNode) FilterFacts {
	t = t.orDefault()
	var in plan.Schema
	if f.Input != nil {
		in = f.Input.Schema()
	}
	ff := FilterFacts{boolOK: true}
	ff.movable, ff.movDetail = t.firstImmovable(f.Predicates, in)
	if f.Resolved() {
		return ff
	}
	for _, e := range f.Predicates {
		if e == nil {
			ff.boolOK, ff.boolDetail = false, "missing conjunct"
			break
		}
		fl, err := plan.TypeOf(e, in)
		if err != nil {
			ff.boolOK, ff.boolDetail = false, fmt.Sprintf("`%s` does not resolve: %v", e, err)
			break
		}
		if fl.Type != plan.Bool {
			ff.boolOK, ff.boolDetail = false, fmt.Sprintf("`%s` is %s, not bool", e, fl.Type)
			break
		}
	}
	return ff
}

// FuseFilters decides whether the outer filter may fuse into the inner one
// directly below it, consulting ff.total_outer and then ff.boolean.
func (t *Table) FuseFilters(outer, inner FilterFacts) Ruling {
	t = t.orDefault()
	var r Ruling
	if !r.consult(t.decide(FFTotalOuter, func() (bool, string) { return outer.movable, outer.movDetail })) {
		return r
	}
	r.consult(t.decide(FFBoolean, func() (bool, string) {
		if !inner.boolOK {
			return false, "inner: " + inner.boolDetail
		}
		if !outer.boolOK {
			return false, "outer: " + outer.boolDetail
		}
		return true, ""
	}))
	return r
}

// InlineCheck is the table's view of one project over one with_columns for
// projection fusion. It indexes the projection's references once. The rule
// asks about the values from the last to the first (Value), and reports each
// inlining (Inlined) and each rewritten projection expression (Replace), so
// that every answer reflects the plan as it will be: the values still left
// in the with_columns, and the projection expressions as rewritten.
type InlineCheck struct {
	t      *Table
	exprs  []plan.Expr
	values []plan.Expr
	names  []string
	// refs maps a with_columns output name to the indices of the projection
	// expressions referencing it, one entry per reference.
	refs map[string][]int
	// redefined: the names the remaining values assign other than by a
	// same-name identity.
	redefined map[string]bool
	remaining []bool
	// firstPartial is the index of the first partial projection expression.
	firstPartial int
	// lastPartial is the index of the last partial value still in the
	// with_columns, -1 when there is none; it only decreases.
	lastPartial int
	ownsWindow  bool
	// valueTotal[j] says whether value j is total over the with_columns'
	// input; exprTotal[k] whether projection expression k, as rewritten so
	// far, is total where it is evaluated. Inlining a value of the type of
	// the reference it replaces changes no operand type, so the rewritten
	// expression is total exactly when the expression and the value were
	// (Replace).
	valueTotal, exprTotal []bool
	// in and out are the with_columns' input and output schemas; cur, built
	// when asked while curStale is false, is the schema the projection's
	// expressions read now: out, with the name of each inlined value read
	// from in (or gone, when in has no such column). The standard totality
	// of a part of a rewritten expression is decided over it.
	in, out  plan.Schema
	cur      plan.Schema
	curValid bool
}

// NewInlineCheck indexes exprs (the projection's expressions, not modified)
// over w. in and out are w's input and output schemas (w itself may be a
// rebuilt, unresolved node: the rule passes the schemas of the node it
// stands for); the table's totality decides the values over in and the
// projection's expressions over out.
func (t *Table) NewInlineCheck(exprs []plan.Expr, w *plan.WithColumnsNode, in, out plan.Schema) *InlineCheck {
	c := &InlineCheck{t: t.orDefault(), exprs: append([]plan.Expr(nil), exprs...), values: w.Exprs,
		refs: map[string][]int{}, redefined: map[string]bool{}, lastPartial: -1, in: in, out: out}
	_, c.ownsWindow = plan.OwnedWindow(w)
	c.names = make([]string, len(w.Exprs))
	c.remaining = make([]bool, len(w.Exprs))
	c.valueTotal = make([]bool, len(w.Exprs))
	for j, v := range w.Exprs {
		c.names[j] = plan.OutputName(v)
		c.remaining[j] = true
		if !IsIdentity(v) {
			c.redefined[c.names[j]] = true
		}
		c.valueTotal[j] = c.t.Total(v, in)
		if !c.valueTotal[j] {
			c.lastPartial = j
		}
	}
	c.firstPartial = len(c.exprs)
	c.exprTotal = make([]bool, len(c.exprs))
	for k, e := range c.exprs {
		c.index(k, e, +1)
		c.exprTotal[k] = c.t.Total(e, out)
		if c.firstPartial == len(c.exprs) && !c.exprTotal[k] {
			c.firstPartial = k
		}
	}
	return c
}

// current returns the schema the projection's expressions read now (see
// InlineCheck.cur); the zero schema when it cannot be built.
func (c *InlineCheck) current() plan.Schema {
	if c.curValid {
		return c.cur
	}
	gone := map[string]bool{}
	for j, name := range c.names {
		if !c.remaining[j] {
			gone[name] = true
		}
	}
	fields := make([]plan.Field, 0, c.out.Len())
	for _, f := range c.out.Fields() {
		if gone[f.Name] {
			g, ok := c.in.Lookup(f.Name)
			if !ok {
				continue
			}
			f = g
		}
		fields = append(fields, f)
	}
	c.cur, _ = plan.NewSchema(fields...)
	c.curValid = true
	return c.cur
}

func (c *InlineCheck) index(k int, e plan.Expr, delta int) {
	plan.Walk(e, func(x plan.Expr) bool {
		if col, ok := x.(*plan.Column); ok {
			if delta > 0 {
				c.refs[col.Name] = append(c.refs[col.Name], k)
			} else {
				list := c.refs[col.Name]
				for i, v := range list {
					if v == k {
						c.refs[col.Name] = append(list[:i:i], list[i+1:]...)
						break
					}
				}
			}
		}
		return true
	})
}

// Users returns the indices of the projection expressions referencing value
// j, one entry per reference (so a value referenced twice by one expression
// appears twice). No users means the value is dead: pruning's business.
func (c *InlineCheck) Users(j int) []int { return c.refs[c.names[j]] }

// UserExprs returns the indices of the projection expressions referencing
// value j, each once: the expressions an inlining of j rewrites.
func (c *InlineCheck) UserExprs(j int) []int { return dedup(c.refs[c.names[j]]) }

// Replace records that the rule rewrote projection expression k to e by
// inlining value j into it.
func (c *InlineCheck) Replace(k int, e plan.Expr, j int) {
	c.index(k, c.exprs[k], -1)
	c.exprs[k] = e
	c.index(k, e, +1)
	c.exprTotal[k] = c.exprTotal[k] && c.valueTotal[j]
	if c.exprTotal[k] {
		if k == c.firstPartial {
			c.firstPartial = len(c.exprs)
			for i := range c.exprs {
				if !c.exprTotal[i] {
					c.firstPartial = i
					break
				}
			}
		}
	} else if k < c.firstPartial {
		c.firstPartial = k
	}
}

// Inlined records that value j was inlined: it leaves the with_columns.
func (c *InlineCheck) Inlined(j int) {
	if !c.remaining[j] {
		return
	}
	c.remaining[j] = false
	c.curValid = false
	if !IsIdentity(c.values[j]) {
		delete(c.redefined, c.names[j])
	}
	for c.lastPartial >= 0 && (!c.remaining[c.lastPartial] || c.valueTotal[c.lastPartial]) {
		c.lastPartial--
	}
}

// PartialAfter reports whether a value after j that is still in the
// with_columns is partial: while one is, pf.inline refuses a partial j.
// It costs constant time (amortized over the values that leave).
func (c *InlineCheck) PartialAfter(j int) bool { return c.lastPartial > j }

// Value decides whether with_columns value j may be inlined into the
// projection expressions that reference it, consulting pf.holder,
// pf.deterministic, pf.once, pf.capture and pf.inline in that order. (There is
// no text cell: the inlined value records the reference it replaces as its
// origin, so an error around it still names the reference as written.)
// Ask about the values from the last to the first.
func (c *InlineCheck) Value(j int) Ruling {
	t, v, name := c.t, c.values[j], c.names[j]
	users := c.refs[name]
	var r Ruling
	if !r.consult(t.decide(PFHolder, func() (bool, string) {
		if c.ownsWindow {
			return false, "the with_columns owns a window"
		}
		return true, ""
	})) {
		return r
	}
	if !r.consult(t.decide(PFDeterministic, func() (bool, string) {
		if !plan.IsDeterministic(v) {
			return false, "`" + v.String() + "` is non-deterministic"
		}
		return true, ""
	})) {
		return r
	}
	if !r.consult(t.decide(PFOnce, func() (bool, string) {
		if len(users) != 1 {
			return false, fmt.Sprintf("%s is referenced %d times", name, len(users))
		}
		return true, ""
	})) {
		return r
	}
	if !r.consult(t.decide(PFCapture, func() (bool, string) {
		for _, col := range plan.Columns(v) {
			// A value reading the input column it replaces (col == name) is
			// fine: inlined, the reference still reads the input's column,
			// since nothing else assigns it once the value leaves.
			if c.redefined[col] && col != name {
				return false, fmt.Sprintf("`%s` reads %s, which the same with_columns assigns", v, col)
			}
		}
		return true, ""
	})) {
		return r
	}
	r.consult(t.decide(PFInline, func() (bool, string) {
		if c.valueTotal[j] {
			return true, ""
		}
		if c.PartialAfter(j) {
			return false, fmt.Sprintf("`%s` is partial and a later with_columns value is partial", v)
		}
		for _, k := range dedup(users) {
			if c.firstPartial < k {
				return false, fmt.Sprintf("`%s` is partial and `%s`, evaluated before its user, is partial", v, c.exprs[c.firstPartial])
			}
			if ok, detail := c.evaluatedBeforeTotal(c.exprs[k], name); !ok {
				return false, fmt.Sprintf("`%s` is partial and %s", v, detail)
			}
		}
		return true, ""
	}))
	return r
}

func dedup(ks []int) []int {
	out := make([]int, 0, len(ks))
	for i, k := range ks {
		if i == 0 || ks[i-1] != k {
			out = append(out, k)
		}
	}
	return out
}

// evaluatedBeforeTotal reports whether every operand e evaluates before its
// reference to name is total (over the schema the projection reads now), and
// that the reference is not inside an if() branch (which sees only some
// rows).
func (c *InlineCheck) evaluatedBeforeTotal(e plan.Expr, name string) (bool, string) {
	var cur plan.Schema
	if c.t.totality == StandardTotality {
		cur = c.current()
	}
	found := false
	var walk func(x plan.Expr, inBranch bool) (bool, string)
	walk = func(x plan.Expr, inBranch bool) (bool, string) {
		if col, ok := x.(*plan.Column); ok && col.Name == name {
			found = true
			if inBranch {
				return false, fmt.Sprintf("the reference to %s is inside an if() branch", name)
			}
			return true, ""
		}
		call, isIf := x.(*plan.Call)
		isIf = isIf && call.Fn == plan.FuncIf
		for i, a := range x.Children() {
			if ok, d := walk(a, inBranch || (isIf && i > 0)); !ok || found {
				return ok, d
			}
			// a was evaluated completely before the reference.
			if !c.t.Total(a, cur) {
				return false, fmt.Sprintf("`%s` is evaluated before the reference to %s and is partial", a, name)
			}
		}
		return true, ""
	}
	return walk(e, false)
}
