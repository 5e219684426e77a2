package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// or_implied (standard tier) adds to a filter above a join the conjuncts
// its disjunctions imply on one column, so that predicate_pushdown, which
// runs next, can move them into the join's inputs (TPC-H Q7's `(n1 =
// "JAPAN" and n2 = "INDIA") or (n1 = "INDIA" and n2 = "JAPAN")` filters
// each nation scan):
//
//	filter [a == 1 and b == 2 or a == 3 and b == 4]        filter [is_in(a, [1, 3]), is_in(b, [2, 4]), a == 1 and b == 2 or a == 3 and b == 4]
//	  join inner on=[k = k]                         ==>      join inner on=[k = k]
//
// For a conjunct F = D1 or ... or Dk (or-operands flattened, in order),
// each Di a conjunction (and-operands flattened), and a column c, Ci is the
// list of Di's conjuncts that read c and no other column. When every Ci is
// non-empty and some Di holds a conjunct outside Ci (else F' would be F),
// F implies F' = C1 or ... or Ck (each Ci the and of its conjuncts): a row
// where F is true has some Di true, so its Ci and F' are. The rule puts F'
// right before F when legality.Table.OrImplied allows it (oi.deterministic,
// oi.total: F' is evaluated first, so it must raise nothing and advance no
// counter); legality/or_implied.go proves the rows, order, values and
// errors unchanged. F' is written in its simplest equal form: repeated
// arms once (p or p is p; a single arm left gives its conjuncts one by
// one), and arms that are each one `c == v` (v a literal) as is_in(c, [v1,
// ..., vk]), which is exactly that disjunction (docs/semantics.md, Sets and
// ranges).
//
// Idempotence: a conjunct is not derived when the filter, or any filter or
// scan's pushed list of the plan, already holds a conjunct of its shape
// (the same expression up to column names: pushdown renames a join's
// suffixed right columns), so a second Optimize does not derive again what
// the first pushed below the join. The price is a derivation missed when
// an unrelated filter has the shape; the plan is then only not improved.
// The work is linear in the plan's expressions: one pass gathers the
// shapes, when a candidate exists, and each disjunction is read once.
func orImplied() Rule {
	return Rule{
		Name:        FlagOrImplied,
		Doc:         "adds to a filter above a join the conjuncts its disjunctions imply on one column, for predicate_pushdown to move into the join's inputs",
		Tier:        TierStandard,
		Counters:    []CounterDef{{Name: counterImpliedConjuncts}},
		Verbs:       Verbs{Verb: Verb{Allowed: "added to", Refused: "not added to"}},
		Application: "one conjunct implied by a disjunction added to its filter",
		Matches:     []plan.Kind{plan.KindFilter},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			o := &orImplier{Context: c, root: root, joinBelow: map[plan.Node]bool{}}
			return bottomUp(root, &plan.Path{}, o.node), nil
		},
	}
}

// FlagOrImplied is or_implied's flag (its name).
const FlagOrImplied = legality.RuleOrImplied

// counterImpliedConjuncts counts the conjuncts added to filters.
const counterImpliedConjuncts = "impliedConjuncts"

// orImplier is one run of or_implied.
type orImplier struct {
	*Context
	root plan.Node
	// joinBelow: the node (of the plan as received) is a join or has one
	// below it.
	joinBelow map[plan.Node]bool
	// shapes holds the shape (shapeOf) of every conjunct of every filter
	// and scan pushed list of the plan received, gathered at the first
	// candidate.
	shapes map[string]bool
}

// node is bottomUp's callback: orig is the node as received, n the same
// over rewritten inputs.
func (o *orImplier) node(orig, n plan.Node, path *plan.Path) plan.Node {
	below := false
	if _, ok := orig.(*plan.JoinNode); ok {
		below = true
	}
	for _, ch := range orig.Children() {
		below = below || o.joinBelow[ch]
	}
	if below {
		o.joinBelow[orig] = true
	}
	of, ok := orig.(*plan.FilterNode)
	if !ok || !o.joinBelow[of.Input] {
		return n
	}
	var out []plan.Expr // the new conjunct list, once something is added
	for i, p := range of.Predicates {
		derived := o.derive(of, path, p, of.Predicates, out)
		if len(derived) == 0 {
			if out != nil {
				out = append(out, p)
			}
			continue
		}
		if out == nil {
			out = append([]plan.Expr(nil), of.Predicates[:i]...)
		}
		out = append(out, derived...)
		out = append(out, p)
	}
	if out == nil {
		return n
	}
	return &plan.FilterNode{Input: n.(*plan.FilterNode).Input, Predicates: out}
}

// derive returns the conjuncts p implies on each of its columns that the
// cells allow adding before it, none of them already in the filter (its
// conjuncts preds, or those added so far, added) or in the plan.
func (o *orImplier) derive(of *plan.FilterNode, path *plan.Path, p plan.Expr, preds, added []plan.Expr) []plan.Expr {
	arms := orArms(p)
	if arms == nil {
		return nil
	}
	// on[k][col]: arm k's conjuncts that read col alone, in order; whole[k]:
	// how many conjuncts arm k has.
	on := make([]map[string][]plan.Expr, len(arms))
	var cols []string // arm 1's single-column columns, in order
	for k, arm := range arms {
		on[k] = map[string][]plan.Expr{}
		for _, x := range arm {
			col, single := soleColumn(x)
			if !single {
				continue
			}
			if k == 0 && on[0][col] == nil {
				cols = append(cols, col)
			}
			on[k][col] = append(on[k][col], x)
		}
	}
	var out []plan.Expr
	for _, col := range cols {
		all, narrower := true, false
		for k := range arms {
			n := len(on[k][col])
			all = all && n > 0
			narrower = narrower || n < len(arms[k])
		}
		if !all || !narrower {
			continue
		}
		var used, add []plan.Expr
		for k := range arms {
			used = append(used, on[k][col]...)
		}
		exprs, alt := o.implied(on, col, of.Input.Schema())
		for _, e := range exprs {
			if !o.present(e, preds, added, out, add) && (alt == nil || !o.present(alt, preds, added, out, add)) {
				add = append(add, e)
			}
		}
		if len(add) == 0 {
			continue
		}
		ru := o.table.OrImplied(used, of.Input.Schema())
		for _, e := range add {
			eru := o.budgetedRuling(ru, of, path, e, nil)
			o.ruling(eru, o.nextItem(), of, path, e, nil)
			if eru.Allowed {
				out = append(out, e)
				o.Count(counterImpliedConjuncts, 1)
			}
		}
	}
	return out
}

// implied builds the disjunction of the arms' conjuncts on col (on[k][col]
// for arm k) in its simplest form: repeated arms once, a single arm left as
// its conjuncts, arms that are each one `col == literal` as is_in. It
// returns the conjuncts to add and, for an is_in, the disjunction it
// stands for (a filter holding either form holds the conjunct).
func (o *orImplier) implied(on []map[string][]plan.Expr, col string, in plan.Schema) (exprs []plan.Expr, alt plan.Expr) {
	var arms [][]plan.Expr
	var conjs []plan.Expr // each arm's and, for the repeat test
	for k := range on {
		arm := on[k][col]
		conj := arm[0]
		for _, y := range arm[1:] {
			conj = &plan.Call{Fn: plan.FuncAnd, Args: []plan.Expr{conj, y}}
		}
		if indexExpr(conjs, conj) >= 0 {
			continue
		}
		arms, conjs = append(arms, arm), append(conjs, conj)
	}
	if len(arms) == 1 {
		return arms[0], nil
	}
	disj := conjs[0]
	for _, y := range conjs[1:] {
		disj = &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{disj, y}}
	}
	if in := isInOf(arms, col, in); in != nil {
		return []plan.Expr{in}, disj
	}
	return []plan.Expr{disj}, nil
}

// isInOf returns is_in(col, [v1, ..., vk]) when every arm is the one
// conjunct `col == vi` (either way round, vi a literal) and the is_in
// types over in; nil otherwise.
func isInOf(arms [][]plan.Expr, col string, in plan.Schema) plan.Expr {
	args := []plan.Expr{&plan.Column{Name: col}}
	for _, arm := range arms {
		if len(arm) != 1 {
			return nil
		}
		eq, ok := arm[0].(*plan.Call)
		if !ok || eq.Fn != plan.FuncEq || len(eq.Args) != 2 {
			return nil
		}
		a, b := eq.Args[0], eq.Args[1]
		if _, isLit := a.(*plan.Literal); isLit {
			a, b = b, a
		}
		ac, ok := a.(*plan.Column)
		if !ok || ac.Name != col {
			return nil
		}
		if _, ok := b.(*plan.Literal); !ok {
			return nil
		}
		args = append(args, b)
	}
	e := &plan.Call{Fn: plan.FuncIsIn, Args: args}
	if f, err := plan.TypeOf(e, in); err != nil || f.Type != plan.Bool {
		return nil
	}
	return e
}

// soleColumn returns the one column e reads, when it reads exactly one
// (perhaps several times).
func soleColumn(e plan.Expr) (string, bool) {
	cols := plan.Columns(e)
	if len(cols) == 0 {
		return "", false
	}
	for _, c := range cols[1:] {
		if c != cols[0] {
			return "", false
		}
	}
	return cols[0], true
}

// present reports whether e is already one of the filter's conjuncts, or a
// conjunct of its shape filters somewhere in the plan (see orImplied).
func (o *orImplier) present(e plan.Expr, lists ...[]plan.Expr) bool {
	for _, l := range lists {
		if indexExpr(l, e) >= 0 {
			return true
		}
	}
	if o.shapes == nil {
		o.shapes = map[string]bool{}
		plan.WalkNodes(o.root, func(n plan.Node) bool {
			switch x := n.(type) {
			case *plan.FilterNode:
				for _, p := range x.Predicates {
					o.addShapes(p)
				}
			case *plan.ScanNode:
				for _, p := range x.Pushed {
					o.addShapes(p.Expr)
				}
			}
			return true
		})
	}
	return o.shapes[shapeOf(e)]
}

// addShapes adds the shape of each and-operand of p.
func (o *orImplier) addShapes(p plan.Expr) {
	for _, x := range flattenCall(p, plan.FuncAnd) {
		o.shapes[shapeOf(x)] = true
	}
}

// shapeOf is e's canonical text with every column name replaced by one
// placeholder: the same for two expressions that differ only in the
// columns they read.
func shapeOf(e plan.Expr) string {
	return anonymous(e).String()
}

// anonymous returns e with every column named "?".
func anonymous(e plan.Expr) plan.Expr {
	if _, ok := e.(*plan.Column); ok {
		return &plan.Column{Name: "?"}
	}
	children := e.Children()
	if len(children) == 0 {
		return e
	}
	out := make([]plan.Expr, len(children))
	for i, ch := range children {
		out[i] = anonymous(ch)
	}
	return e.WithChildren(out)
}
