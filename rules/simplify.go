package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// ConstEvaluator computes the value of a constant expression — one that
// reads no column and holds no aggregate or over() — for simplify's
// constant folding. It is injected (Flags.Evaluator) so that the optimizer
// folds through the very kernel that would otherwise evaluate the
// expression row by row, while plan and rules import no Arrow:
// exec.ConstEvaluator is the executor's, and the front door, the CLI and
// the oracle pass it. EvalConst returns a value of e's type, the one e
// has on every row, or the error e raises on every row; an error means
// "do not fold", never a failure of the optimizer. It must be safe for
// concurrent use.
type ConstEvaluator interface {
	EvalConst(e plan.Expr) (plan.Value, error)
}

// simplify (standard tier) rewrites expressions into simpler equivalent
// ones, before every other rule, so that pushdown sees their final form:
//
//		filter [1 < a, b > 2 * 3, c and true, true]     filter [a > 1, b > 6, c]
//		  scan t                                 ==>      scan t
//
//	  - constant folding: a constant subexpression (no column, no aggregate,
//	    no over(), not a lone literal) is evaluated by Flags.Evaluator and
//	    replaced by its value, recording the constant as the literal's
//	    origin, so an error raised around it names what was written
//	    (`a + (1 + 2)`). A fold needs a deterministic constant
//	    (sx.deterministic), a value (sx.raise: one that raises stays as
//	    written and raises only where rows reach it, with its written text)
//	    and a literal of the constant's exact type and nullability
//	    (sx.field). Without an evaluator nothing is folded. The largest
//	    constant is tried first, once; inside a refused one a node folds
//	    when its operands have become literals (so each node is evaluated
//	    over literal operands: linear in the expression);
//	  - a comparison with a literal on the left and none on the right is
//	    mirrored (`1 < a` is `a > 1`, sx.flip), the form a source
//	    classifies;
//	  - Kleene-correct boolean identities: `x and true`, `x or false` (either
//	    way round) are x (sx.neutral); `x and false` is false and `x or true`
//	    true only when x is total and deterministic, since and/or evaluate
//	    both operands over every row (sx.absorb), and when the literal keeps
//	    the expression's nullability (sx.field); not(not(x)) is x
//	    (sx.not_not); if() with a literal condition is the branch that
//	    takes every row (the other sees none, so it raises nothing) when
//	    that branch has the if()'s type and shown nullability (sx.if);
//	  - a filter drops its conjuncts `true`, and goes when none is left
//	    (sx.filter_true);
//	  - a filter conjunct `(c and a) or (c and b)` becomes the conjuncts c
//	    and `a or b` (sx.factor_or: c deterministic, and total or preceded
//	    in the first arm by total conjuncts only), so that a join key each
//	    arm repeats reaches collapse_cross_join.
//
// Every replacement records what it replaced as its origin and keeps its
// type and nullability; a named expression whose output name would change
// (`a and false` is named a, false "literal") is aliased to its name. It
// looks at filters, projects, with_columns (not those owning a window),
// sorts and aggregates; join keys are left as written (a key that
// simplified to a plain column could make the join drop a right column).
// It runs until stable: each expression is simplified bottom-up, each
// rebuilt node again until nothing applies, and the whole expression again
// while that changes it (at most maxSimplifyPasses times; refusals are
// recorded in the first pass only).
func simplify() Rule {
	return Rule{
		Name: FlagSimplify,
		Doc:  "folds constant subexpressions through an injected evaluator, puts literals on the right of comparisons and applies Kleene-correct boolean identities",
		Tier: TierStandard,
		Counters: []CounterDef{{Name: counterFoldedExprs}, {Name: counterFlippedComparisons},
			{Name: counterSimplifiedBooleans}},
		Verbs: Verbs{Verb: Verb{Allowed: "simplified at", Refused: "kept as written at"},
			Cells: map[legality.CellID]Verb{
				legality.SXDeterministic: {Allowed: "folded at", Refused: "not folded at"},
				legality.SXRaise:         {Allowed: "folded at", Refused: "not folded at"},
				legality.SXFlip:          {Allowed: "flipped at", Refused: "not flipped at"},
				legality.SXFilterTrue:    {Allowed: "dropped from", Refused: "kept in"},
			}},
		Application: "one constant folded, one comparison flipped, one boolean identity applied, one true conjunct dropped",
		Matches:     []plan.Kind{plan.KindFilter, plan.KindProject, plan.KindWithColumns, plan.KindSort, plan.KindAggregate},
		Local: func(c *Context, n plan.Node, at *plan.Path) (plan.Node, error) {
			return (&simplifier{Context: c, node: n, at: at}).rewrite(), nil
		},
	}
}

// FlagSimplify is simplify's flag (its name).
const FlagSimplify = legality.RuleSimplify

// simplify's counters (docs/counters.md).
const (
	counterFoldedExprs        = "foldedExprs"
	counterFlippedComparisons = "flippedComparisons"
	counterSimplifiedBooleans = "simplifiedBooleans"
)

// maxSimplifyPasses bounds the passes over one expression.
const maxSimplifyPasses = 8

// simplifier simplifies the expressions of one node.
type simplifier struct {
	*Context
	node plan.Node
	at   *plan.Path
	in   plan.Schema // the node's input schema, which its expressions read
	// anyNull: the node's expressions output no column (filter, sort), so
	// their nullability shows in no schema.
	anyNull bool
	// quiet, in the passes after an expression's first, records no
	// refusal: the first pass recorded them.
	quiet bool
	// pure memoizes isPure by node.
	pure map[plan.Expr]bool
}

// rewrite returns the node with its expressions simplified, or the node
// itself when nothing changed.
func (s *simplifier) rewrite() plan.Node {
	switch n := s.node.(type) {
	case *plan.FilterNode:
		s.in, s.anyNull = n.Input.Schema(), true
		preds, changed := s.list(n.Predicates, false)
		kept := make([]plan.Expr, 0, len(preds))
		for _, p := range preds {
			if factored := s.factorOr(p); factored != nil {
				kept = append(kept, factored...)
				changed = true
				continue
			}
			if isBoolLiteral(p, true) {
				if s.apply(s.table.SimplifyFilterTrue(), p) {
					s.Count(counterSimplifiedBooleans, 1)
					changed = true
					continue
				}
			}
			kept = append(kept, p)
		}
		switch {
		case !changed:
			return n
		case len(kept) == 0:
			return n.Input
		}
		return &plan.FilterNode{Input: n.Input, Predicates: kept}
	case *plan.ProjectNode:
		if _, owns := plan.OwnedWindow(n); owns {
			return n
		}
		s.in = n.Input.Schema()
		if exprs, changed := s.list(n.Exprs, true); changed {
			return &plan.ProjectNode{Input: n.Input, Exprs: exprs}
		}
	case *plan.WithColumnsNode:
		if _, owns := plan.OwnedWindow(n); owns {
			return n
		}
		s.in = n.Input.Schema()
		if exprs, changed := s.list(n.Exprs, true); changed {
			return &plan.WithColumnsNode{Input: n.Input, Exprs: exprs}
		}
	case *plan.SortNode:
		s.in, s.anyNull = n.Input.Schema(), true
		var keys []plan.SortKey
		for i, k := range n.Keys {
			e := s.expr(k.Expr)
			if e == k.Expr {
				continue
			}
			if keys == nil {
				keys = append([]plan.SortKey(nil), n.Keys...)
			}
			keys[i].Expr = e
		}
		if keys != nil {
			return &plan.SortNode{Input: n.Input, Keys: keys, HasLimit: n.HasLimit, Limit: n.Limit}
		}
	case *plan.AggregateNode:
		s.in = n.Input.Schema()
		keys, kc := s.list(n.Keys, true)
		aggs, ac := s.list(n.Aggs, true)
		if kc || ac {
			return &plan.AggregateNode{Input: n.Input, Keys: keys, Aggs: aggs}
		}
	}
	return s.node
}

// list simplifies es; named keeps each expression's output name (an alias
// is added where simplifying would change it).
func (s *simplifier) list(es []plan.Expr, named bool) ([]plan.Expr, bool) {
	var out []plan.Expr
	for i, e := range es {
		ne := s.expr(e)
		if ne == e {
			continue
		}
		if named {
			if name := plan.OutputName(e); plan.OutputName(ne) != name {
				ne = &plan.Alias{Expr: ne, Name: name}
			}
		}
		if out == nil {
			out = append([]plan.Expr(nil), es...)
		}
		out[i] = ne
	}
	if out == nil {
		return es, false
	}
	return out, true
}

// expr simplifies e until it stops changing (at most maxSimplifyPasses
// passes).
func (s *simplifier) expr(e plan.Expr) plan.Expr {
	if e == nil {
		return e
	}
	cur := e
	for pass := 0; pass < maxSimplifyPasses; pass++ {
		s.quiet = pass > 0
		next := s.simplify(cur, false)
		if next == cur {
			break
		}
		cur = next
	}
	s.quiet = false
	return cur
}

// simplify is one pass over e. A constant (see foldable) is folded whole
// when it may be, the largest first; when it may not, its operands are
// simplified with refused set, and inside it a node is folded only once
// its operands are literals, so that every node is evaluated in O(1) after
// the one attempt at the largest constant (a deep constant that raises at
// its bottom is not re-evaluated at every level). Otherwise its operands
// are simplified, then the node itself: folded when its operands have all
// become literals, else its identities.
func (s *simplifier) simplify(e plan.Expr, refused bool) plan.Expr {
	switch e.(type) {
	case *plan.Literal, *plan.Column, nil:
		return e
	}
	attempted := false
	if !refused && s.foldable(e) {
		attempted = true
		if lit, ok := s.fold(e); ok {
			return lit
		}
	}
	children := e.Children()
	var out []plan.Expr
	for i, ch := range children {
		nc := s.simplify(ch, refused || attempted)
		if nc != ch && out == nil {
			out = append([]plan.Expr(nil), children...)
		}
		if out != nil {
			out[i] = nc
		}
	}
	cur := e
	if out != nil {
		cur = e.WithChildren(out)
	}
	if !attempted && len(children) > 0 && allLiterals(children, out) && s.foldable(cur) {
		if lit, ok := s.fold(cur); ok {
			return plan.WithOrigin(lit, e)
		}
	}
	return s.identities(cur, e)
}

// factorOr factors the conjuncts common to every arm of the filter
// conjunct p, a disjunction, out of it (sx.factor_or): `(c and a) or (c
// and b)` becomes the conjuncts c, `a or b`, so that a key equality every
// arm repeats (TPC-H Q19's `p_partkey = l_partkey`) reaches
// collapse_cross_join and pushdown as a conjunct of its own. The arms are
// p's or-operands (nested ors flattened, in order), each arm's conjuncts
// its and-operands; a conjunct is common when every arm holds one equal
// to it (plan.ExprEqual: origins included). Common conjuncts are asked
// in the first arm's order; one refused stays in the arms, and counts as
// preceding the later ones. Nothing is factored when that would leave an
// arm with no conjunct (`c or (c and b)` is c only when b may vanish).
// It returns the conjuncts that replace p (the factored ones in the first
// arm's order, then the or of what the arms keep), or nil.
func (s *simplifier) factorOr(p plan.Expr) []plan.Expr {
	arms := orArms(p)
	if arms == nil {
		return nil
	}
	// common[i]: arm 1's conjunct i occurs in every other arm.
	common := make([]bool, len(arms[0]))
	found := false
	for i, x := range arms[0] {
		common[i] = true
		for _, arm := range arms[1:] {
			if indexExpr(arm, x) < 0 {
				common[i] = false
				break
			}
		}
		found = found || common[i]
	}
	if !found {
		return nil
	}
	// Each arm must keep a conjunct: one of arm 1 that is not common, and
	// in every other arm one that is not equal to a common one.
	if !keepsOne(arms[0], common) {
		return nil
	}
	for _, arm := range arms[1:] {
		rest := false
		for _, y := range arm {
			if !isCommon(arms[0], common, y) {
				rest = true
				break
			}
		}
		if !rest {
			return nil
		}
	}
	var factored []plan.Expr
	var before []plan.Expr // arm 1's conjuncts that stay, so far
	for i, x := range arms[0] {
		if !common[i] {
			before = append(before, x)
			continue
		}
		if indexExpr(factored, x) >= 0 {
			continue // a repeat of a factored conjunct goes with it
		}
		if !s.apply(s.table.SimplifyFactorOr(x, before, s.in), p) {
			common[i] = false
			before = append(before, x)
			continue
		}
		factored = append(factored, x)
	}
	if len(factored) == 0 {
		return nil
	}
	var disj plan.Expr
	for _, arm := range arms {
		var conj plan.Expr
		for _, y := range arm {
			if indexExpr(factored, y) >= 0 {
				continue
			}
			if conj == nil {
				conj = y
			} else {
				conj = &plan.Call{Fn: plan.FuncAnd, Args: []plan.Expr{conj, y}}
			}
		}
		if disj == nil {
			disj = conj
		} else {
			disj = &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{disj, conj}}
		}
	}
	s.Count(counterSimplifiedBooleans, 1)
	return append(factored, disj)
}

// flattenCall lists the operands of a left- or right-nested chain of the
// two-operand call fn, in evaluation order (left to right); e itself when
// it is no such call.
func flattenCall(e plan.Expr, fn plan.Func) []plan.Expr {
	c, ok := e.(*plan.Call)
	if !ok || c.Fn != fn || len(c.Args) != 2 {
		return []plan.Expr{e}
	}
	return append(flattenCall(c.Args[0], fn), flattenCall(c.Args[1], fn)...)
}

// indexExpr is the index of the first expression of es equal to x
// (plan.ExprEqual), or -1.
func indexExpr(es []plan.Expr, x plan.Expr) int {
	for i, e := range es {
		if plan.ExprEqual(e, x) {
			return i
		}
	}
	return -1
}

// keepsOne reports whether some conjunct of arm is not marked common.
func keepsOne(arm []plan.Expr, common []bool) bool {
	for i := range arm {
		if !common[i] {
			return true
		}
	}
	return false
}

// isCommon reports whether y equals a conjunct of first marked common.
func isCommon(first []plan.Expr, common []bool, y plan.Expr) bool {
	for i, x := range first {
		if common[i] && plan.ExprEqual(x, y) {
			return true
		}
	}
	return false
}

// allLiterals reports whether the operands (out when rebuilt, else
// children) are all literals.
func allLiterals(children, out []plan.Expr) bool {
	if out != nil {
		children = out
	}
	for _, c := range children {
		if _, ok := c.(*plan.Literal); !ok {
			return false
		}
	}
	return true
}

// identities applies the node-level identities to e (whose operands are
// simplified; orig is e as this pass found it, the origin a replacement
// records) until none applies.
func (s *simplifier) identities(e, orig plan.Expr) plan.Expr {
	for {
		c, ok := e.(*plan.Call)
		if !ok {
			return e
		}
		next := s.identity(c)
		if next == nil {
			return e
		}
		e = plan.WithOrigin(next, orig)
		if _, isLit := next.(*plan.Literal); isLit {
			return e
		}
	}
}

// identity returns what the call c simplifies to by one identity, or nil.
func (s *simplifier) identity(c *plan.Call) plan.Expr {
	switch {
	case c.Fn.IsComparison() && len(c.Args) == 2:
		_, leftLit := c.Args[0].(*plan.Literal)
		_, rightLit := c.Args[1].(*plan.Literal)
		if !leftLit || rightLit {
			return nil
		}
		if !s.apply(s.table.SimplifyFlip(), c) {
			return nil
		}
		s.Count(counterFlippedComparisons, 1)
		return &plan.Call{Fn: c.Fn.Mirrored(), Args: []plan.Expr{c.Args[1], c.Args[0]}}
	case (c.Fn == plan.FuncAnd || c.Fn == plan.FuncOr) && len(c.Args) == 2:
		neutral := c.Fn == plan.FuncAnd // x and true, x or false
		a, b := c.Args[0], c.Args[1]
		var keep, other plan.Expr
		switch {
		case isBoolLiteral(b, neutral):
			keep = a
		case isBoolLiteral(a, neutral):
			keep = b
		case isBoolLiteral(b, !neutral):
			other = a
		case isBoolLiteral(a, !neutral):
			other = b
		default:
			return nil
		}
		if keep != nil {
			if !s.apply(s.table.SimplifyNeutral(), c) {
				return nil
			}
			s.Count(counterSimplifiedBooleans, 1)
			return keep
		}
		// x and false, x or true: the absorbing literal, when x may vanish.
		v := plan.BoolValue(!neutral)
		var ru legality.Ruling
		ru.Allowed = true
		d := s.table.SimplifyAbsorb(other, s.in)
		ru.Decisions = append(ru.Decisions, d)
		ru.Allowed = d.Allowed
		if d.Allowed {
			want, err := plan.TypeOf(c, s.in)
			if err != nil {
				return nil
			}
			fd := s.table.SimplifyField(v, want, s.anyNull)
			if !fd.Allowed {
				fd.Reason = "select(p and false as r) with p nullable: r is a nullable bool, the literal false is not, so the plan's schema would change"
			}
			ru.Decisions = append(ru.Decisions, fd)
			ru.Allowed = fd.Allowed
		}
		if !s.decide(ru, c) {
			return nil
		}
		s.Count(counterSimplifiedBooleans, 1)
		return &plan.Literal{Value: v}
	case c.Fn == plan.FuncIf && len(c.Args) == 3:
		cond, ok := c.Args[0].(*plan.Literal)
		if !ok || cond.Value.Type() != plan.Bool {
			return nil
		}
		branch := c.Args[2] // false or null: the else branch takes every row
		if !cond.Value.IsNull() && cond.Value.Bool() {
			branch = c.Args[1]
		}
		want, err := plan.TypeOf(c, s.in)
		if err != nil {
			return nil
		}
		got, err := plan.TypeOf(branch, s.in)
		if err != nil {
			return nil
		}
		if !s.apply(s.table.SimplifyIf(got, want, s.anyNull), c) {
			return nil
		}
		s.Count(counterSimplifiedBooleans, 1)
		return branch
	case c.Fn == plan.FuncNot && len(c.Args) == 1:
		inner, ok := c.Args[0].(*plan.Call)
		if !ok || inner.Fn != plan.FuncNot || len(inner.Args) != 1 {
			return nil
		}
		if !s.apply(s.table.SimplifyNotNot(), c) {
			return nil
		}
		s.Count(counterSimplifiedBooleans, 1)
		return inner.Args[0]
	}
	return nil
}

// fold evaluates the constant e and returns the literal that replaces it,
// when the cells allow (see legality.Table.SimplifyFold). Without an
// evaluator nothing is folded and nothing recorded.
func (s *simplifier) fold(e plan.Expr) (plan.Expr, bool) {
	ev := s.flags.Evaluator
	if ev == nil {
		return nil, false
	}
	want, err := plan.TypeOf(e, s.in)
	if err != nil {
		return nil, false
	}
	ru, v := s.table.SimplifyFold(e, func() (plan.Value, error) { return evalConst(ev, e, want.Type) }, want, s.anyNull)
	if !s.decide(ru, e) {
		return nil, false
	}
	s.Count(counterFoldedExprs, 1)
	return plan.WithOrigin(&plan.Literal{Value: v}, e), true
}

// evalConst calls the evaluator, turning a panic or a value of another
// type than t into an error (do not fold).
func evalConst(ev ConstEvaluator, e plan.Expr, t plan.Type) (v plan.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = plan.Value{}, fmt.Errorf("simplify: the constant evaluator panicked on `%s`: %v", plan.Abbrev(plan.Written(e), traceEcho), p)
		}
	}()
	v, err = ev.EvalConst(e)
	if err == nil && v.Type() != t {
		return plan.Value{}, fmt.Errorf("simplify: the constant evaluator returned a %s for `%s`, typed %s", v.Type(), plan.Abbrev(plan.Written(e), traceEcho), t)
	}
	return v, err
}

// decide takes a multi-cell ruling about subject through the budget and
// records it (a refusal only in an expression's first pass), reporting
// whether the rewrite happens.
func (s *simplifier) decide(ru legality.Ruling, subject plan.Expr) bool {
	ru = s.budgetedRuling(ru, s.node, s.at, subject, nil)
	if !ru.Allowed && s.quiet {
		return false
	}
	s.ruling(ru, s.nextItem(), s.node, s.at, subject, nil)
	return ru.Allowed
}

// apply is Context.Apply at the node, recording a refusal only in an
// expression's first pass.
func (s *simplifier) apply(d legality.Decision, subject plan.Expr) bool {
	d = s.budgeted(d, s.node, s.at, subject)
	if !d.Allowed && s.quiet {
		return false
	}
	s.record(d, s.nextItem(), s.node, s.at, subject)
	return d.Allowed
}

// foldable reports whether e is a constant simplify may fold: not a lone
// literal, column or alias, reading no column, holding no aggregate, no
// over() and no alias. It is memoized per node (s.pure), so asking it of
// every node of an expression costs linear time.
func (s *simplifier) foldable(e plan.Expr) bool {
	switch e.(type) {
	case *plan.Literal, *plan.Column, *plan.Alias, nil:
		return false
	}
	return s.isPure(e)
}

// isPure reports whether e reads no column and holds no aggregate, over()
// or alias (a literal is pure), memoized by node.
func (s *simplifier) isPure(e plan.Expr) bool {
	if p, ok := s.pure[e]; ok {
		return p
	}
	p := true
	switch x := e.(type) {
	case *plan.Literal:
	case *plan.Column, *plan.Over, *plan.Alias, nil:
		p = false
	case *plan.Call:
		p = !x.Fn.IsAggregate() && !x.Fn.IsWindow()
	}
	if p {
		for _, c := range e.Children() {
			if !s.isPure(c) {
				p = false
				break
			}
		}
	}
	if s.pure == nil {
		s.pure = map[plan.Expr]bool{}
	}
	s.pure[e] = p
	return p
}

// isBoolLiteral reports whether e is the non-null bool literal v.
func isBoolLiteral(e plan.Expr, v bool) bool {
	l, ok := e.(*plan.Literal)
	return ok && l.Value.Type() == plan.Bool && !l.Value.IsNull() && l.Value.Bool() == v
}

// orArms returns the arms of the disjunction p, each as its list of
// conjuncts, or nil when p is not an or.
func orArms(p plan.Expr) [][]plan.Expr {
	c, ok := p.(*plan.Call)
	if !ok || c.Fn != plan.FuncOr || len(c.Args) != 2 {
		return nil
	}
	var arms [][]plan.Expr
	for _, a := range flattenCall(p, plan.FuncOr) {
		arms = append(arms, flattenCall(a, plan.FuncAnd))
	}
	return arms
}
