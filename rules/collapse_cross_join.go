package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// collapse_cross_join turns a filter over a cross join — what a SQL front
// end writes for `FROM l, r WHERE l.k = r.k AND p` (plan.Frame.JoinWhere)
// — into an inner hash join on the conjuncts that equate a left
// expression with a right one, the other conjuncts staying in a filter
// above:
//
//	filter [k = k_right, a + 1 = z, p]        filter [p]
//	  join cross                        ==>     join inner on=[k = k as k, a + 1 = z]
//	    scan l                                    scan l
//	    scan r                                    scan r
//
// A conjunct `x = y` (either way round) is a key candidate when one side
// reads columns of the left input only and the other columns of the right
// input only (each at least one); the right side is rewritten to the right
// input's column names (k_right reads the right input's k), recording the
// name it was written with as its origin. A candidate becomes a key pair
// when both sides are deterministic (ccj.deterministic) and total
// (ccj.total) and do not compare as float64 (ccj.float: IEEE = is not the
// join's key equality on NaN); the others stay above. With at least one
// key, the collapse happens when every conjunct left above is total and
// deterministic (ccj.rest), since it then meets only the matching pairs.
// legality/collapse_cross_join.go proves what the two plans share: the
// pairs kept (= and join keys compare in one promoted type and drop
// nulls), their order (left rows in order, each followed by its matches in
// right order) and their values. The inner join keeps the cross join's
// schema exactly: a pair of two plain columns of one name, which
// plan.DroppedRightKeys would drop from the output (ccj.key_column), is
// written with its right key as `k as k`, so the right column stays under
// the cross join's suffixed name; the rule resolves what it builds and
// fails if the schema differs all the same (a bug, never a plan's fault).
//
// It is a standard-tier rule, run after filter fusion (which gathers
// stacked filters into one) and before pruning (which then narrows the
// join's inputs to its keys).
func collapseCrossJoin() Rule {
	return Rule{
		Name:     FlagCollapseCrossJoin,
		Doc:      "turns a filter over a cross join into an inner join on the conjuncts that equate a left expression with a right one",
		Tier:     TierStandard,
		Counters: []CounterDef{{Name: counterCollapsedJoins}},
		Verbs: Verbs{Verb: Verb{Allowed: "becomes a key of", Refused: "stays above"},
			Cells: map[legality.CellID]Verb{
				legality.CCJKeyColumn: {Allowed: "is keyed as written at", Refused: "is keyed with its right column aliased at"},
				legality.CCJRest:      {Allowed: "collapsed into an inner join, was a filter over", Refused: "kept as a filter over"},
			}},
		Application: "one filter over a cross join replaced by an inner join (and a filter of the conjuncts left)",
		Matches:     []plan.Kind{plan.KindFilter},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			return bottomUpErr(root, func(orig, n plan.Node, path *plan.Path) (plan.Node, error) {
				return collapse(c, orig, n, path)
			})
		},
	}
}

// FlagCollapseCrossJoin is collapse_cross_join's flag (its name).
const FlagCollapseCrossJoin = legality.RuleCollapseCrossJoin

// counterCollapsedJoins counts the cross joins replaced by inner joins.
const counterCollapsedJoins = "collapsedJoins"

// collapse rewrites n (orig as the rule received it, n over rewritten
// inputs) when it is a filter over a cross join that may collapse, and
// returns n otherwise. Decisions read orig's resolved schemas, which the
// rewritten inputs keep.
func collapse(c *Context, orig, n plan.Node, path *plan.Path) (plan.Node, error) {
	of, ok := orig.(*plan.FilterNode)
	if !ok {
		return n, nil
	}
	oj, ok := of.Input.(*plan.JoinNode)
	if !ok || oj.How != plan.CrossJoin {
		return n, nil
	}
	joinPath := path.Child(".input")
	ls, rs, out := oj.Left.Schema(), oj.Right.Schema(), oj.Schema()
	if out.Len() != ls.Len()+rs.Len() {
		return n, nil // not resolved as a cross join: leave it
	}
	// The cross join's output names: the left's as they are, the right's
	// (suffixed when they collide) mapped back to the right input's.
	left := make(map[string]bool, ls.Len())
	for _, f := range ls.Fields() {
		left[f.Name] = true
	}
	right := make(map[string]string, rs.Len())
	for i, f := range rs.Fields() {
		right[out.Field(ls.Len()+i).Name] = f.Name
	}
	var lk, rk, rest []plan.Expr
	var keyConj []plan.Expr
	for _, conj := range of.Predicates {
		l, r, ok := keyCandidate(conj, left, right)
		if !ok {
			rest = append(rest, conj)
			continue
		}
		r = renameColumns(r, right)
		ru := c.table.CollapseKey(l, r, ls, rs)
		c.ruling(ru, c.nextItem(), oj, joinPath, conj, nil)
		if !ru.Allowed {
			rest = append(rest, conj)
			continue
		}
		lk, rk, keyConj = append(lk, l), append(rk, r), append(keyConj, conj)
	}
	if len(lk) == 0 {
		return n, nil
	}
	d := c.table.CollapseRest(rest, out)
	var kds []legality.Decision
	if d.Allowed {
		// One application: the keys' cells, how they are written, and
		// the conjuncts left above.
		cells := []legality.CellID{legality.CCJDeterministic, legality.CCJTotal, legality.CCJFloat, legality.CCJKeyColumn, legality.CCJRest}
		for i := range lk {
			kds = append(kds, c.table.CollapseKeyColumn(lk[i], rk[i]))
		}
		if !c.take(Entry{Cell: d.Cell, Detail: d.Detail, node: oj, path: joinPath, subjectOf: of}, cells) {
			d = limitDecision
		}
	}
	c.recordEntry(d, Entry{Item: c.nextItem(), node: oj, path: joinPath, subjectOf: of})
	if !d.Allowed {
		return n, nil
	}
	for i, kd := range kds {
		c.Record(kd, oj, joinPath, keyConj[i])
		if rc, ok := rk[i].(*plan.Column); ok && !kd.Allowed {
			rk[i] = &plan.Alias{Expr: rk[i], Name: rc.Name}
		}
	}
	nj := n.(*plan.FilterNode).Input.(*plan.JoinNode)
	var repl plan.Node = &plan.JoinNode{Left: nj.Left, Right: nj.Right, How: plan.InnerJoin, LeftOn: lk, RightOn: rk, Suffix: nj.Suffix}
	if len(rest) > 0 {
		repl = &plan.FilterNode{Input: repl, Predicates: rest}
	}
	res, err := plan.Resolve(repl)
	if err != nil {
		return nil, fmt.Errorf("collapse_cross_join: the inner join at %s does not resolve: %w", joinPath, err)
	}
	if !res.Schema().Equal(of.Schema()) {
		return nil, fmt.Errorf("collapse_cross_join: the inner join at %s has schema %s, the cross join %s", joinPath, res.Schema(), of.Schema())
	}
	c.Count(counterCollapsedJoins, 1)
	return res, nil
}

// keyCandidate splits conj into (left side, right side) when it is an
// equality of an expression reading only left columns (at least one) with
// one reading only right output columns (at least one), either way round.
func keyCandidate(conj plan.Expr, left map[string]bool, right map[string]string) (l, r plan.Expr, ok bool) {
	eq, isCall := conj.(*plan.Call)
	if !isCall || eq.Fn != plan.FuncEq || len(eq.Args) != 2 {
		return nil, nil, false
	}
	side := func(e plan.Expr) int { // 1 left, 2 right, 0 neither or both
		cols := plan.Columns(e)
		if len(cols) == 0 {
			return 0
		}
		s := 0
		for _, name := range cols {
			switch {
			case left[name] && s != 2:
				s = 1
			case right[name] != "" && s != 1:
				s = 2
			default:
				return 0
			}
		}
		return s
	}
	a, b := eq.Args[0], eq.Args[1]
	switch sa, sb := side(a), side(b); {
	case sa == 1 && sb == 2:
		return a, b, true
	case sa == 2 && sb == 1:
		return b, a, true
	}
	return nil, nil, false
}

// renameColumns returns e reading the right input's columns: each column
// named by an output name of the cross join is replaced by the input
// column it came from, recording the reference it replaces as its origin
// (so the expression renders as written in errors).
func renameColumns(e plan.Expr, names map[string]string) plan.Expr {
	if col, ok := e.(*plan.Column); ok {
		in, found := names[col.Name]
		if !found || in == col.Name {
			return e
		}
		return plan.WithOrigin(&plan.Column{Name: in}, e)
	}
	children := e.Children()
	var out []plan.Expr
	for i, ch := range children {
		nc := renameColumns(ch, names)
		if nc != ch && out == nil {
			out = append([]plan.Expr(nil), children...)
		}
		if out != nil {
			out[i] = nc
		}
	}
	if out == nil {
		return e
	}
	return e.WithChildren(out)
}
