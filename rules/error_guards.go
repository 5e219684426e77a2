package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// error_guards (standard tier) lets a filter move below a with_columns
// whose partial expressions stop predicate_pushdown, without
// losing an error: the filter moves, and a guard of those expressions
// (plan.GuardNode) takes the node's place in evaluation order, below the
// filter:
//
//	filter [k < 10]                      with_columns [a * 2 + 1 as c]
//	  with_columns [a * 2 + 1 as c]  ==>   filter [k < 10]
//	    scan t                               guard [a * 2 + 1]
//	                                           scan t
//
// The guard evaluates only the error condition of what the filter crossed
// — a range test of a for `a * 2 + 1`, `b = 0` and MinInt / -1 for `a / b`
// (plan.CompileGuard) — over every row the node saw, in its evaluation
// order, and raises what the node would have raised (kind, written
// expression, first row); the value is then computed only on the rows the
// filter keeps. docs/adr/0004-error-guards.md proves the first error
// unchanged. A filter moves when its conjuncts and the node's expressions
// are deterministic (eg.deterministic), it reads only columns the node
// passes through (eg.columns) and every partial expression has a cheap
// error condition (eg.cost: a strict parse has none). A guard is left out
// when a guard below, reached through filters and guards only, already
// lists its expressions (eg.covered); it is never left out otherwise
// (eg.unguarded, the barrier whose mutant is the engines' lost error).
//
// It runs once, bottom up, after projection_pruning (a guard keeps every
// column below it, pr.guard, so pruning must come first) and before
// limit_pushdown; a filter that moved is tried again against the node it
// now sits on, so a chain of filters moves below the same node, each
// reusing the first one's guard. Where a filter stops, it splits when it
// holds total and partial conjuncts (eg.split, splitFilter): the total
// ones first, above a guard of the partial ones (pp.split's case). A project is not crossed: the filter
// below it would no longer need a column pruning kept for it, and the
// plan would change again on a second run. A filter of total conjuncts
// left over guards directly over a scan (the split's total part, or a
// filter that moved below a with_columns onto a scan) moves into the scan
// with its guards (eg.scan, intoScan): the scan evaluates the guards over
// every row its source yields, then the conjuncts the source accepts.
// Counters: guardedFilters (filters moved), guards (guard nodes made),
// splitFilters (filters split), guardedScans (filters moved into a scan
// with their guards).
func errorGuards() Rule {
	return Rule{
		Name:     FlagErrorGuards,
		Doc:      "moves a filter below a with_columns holding partial expressions, leaving a guard of their error conditions; splits a filter's total conjuncts below its partial ones, above a guard of them",
		Tier:     TierStandard,
		Counters: []CounterDef{{Name: counterGuardedFilters}, {Name: counterGuards}, {Name: counterSplitFilters}, {Name: counterGuardedScans}},
		Verbs: Verbs{Verb: Verb{Allowed: "moved below", Refused: "stopped at"},
			Cells: map[legality.CellID]Verb{
				legality.EGCovered:   {Allowed: "moved below, its guard already below,", Refused: "moved below, leaving a guard,"},
				legality.EGUnguarded: {Allowed: "left no guard at", Refused: "left a guard at"},
				legality.EGSplit:     {Allowed: "split above", Refused: "not split above"},
				legality.EGScan:      {Allowed: "moved with its guards into", Refused: "kept its guards above"},
			}},
		Application: "one filter moved below one with_columns, or split (with its guard)",
		Matches:     []plan.Kind{plan.KindFilter},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			g := &guards{Context: c, resolved: map[plan.Node]plan.Node{}}
			return bottomUp(root, &plan.Path{}, func(orig, n plan.Node, path *plan.Path) plan.Node {
				g.resolved[n] = orig
				f, ok := n.(*plan.FilterNode)
				if !ok {
					return n
				}
				return g.moveOrSplit(f, path.Input(f, 0))
			}), nil
		},
	}
}

// FlagErrorGuards is error_guards' flag (its name).
const FlagErrorGuards = legality.RuleErrorGuards

// error_guards' counters.
const (
	counterGuardedFilters = "guardedFilters"
	counterGuards         = "guards"
	counterSplitFilters   = "splitFilters"
	counterGuardedScans   = "guardedScans"
)

// guards is one pass of the rule: resolved maps each node of the plan
// being rebuilt to the resolved node it stands for (the same node when
// unchanged), so that decisions read schemas without resolving again.
type guards struct {
	*Context
	resolved map[plan.Node]plan.Node
}

func (g *guards) resolvedOf(n plan.Node) plan.Node {
	if n.Resolved() {
		return n
	}
	return g.resolved[n]
}

// moveOrSplit moves filter f below the with_columns under it (at path)
// when the table allows (guardFilter), and otherwise splits it where it is
// (splitFilter).
func (g *guards) moveOrSplit(f *plan.FilterNode, path *plan.Path) plan.Node {
	if out := g.guardFilter(f, path); out != plan.Node(f) {
		return out
	}
	if out := g.splitFilter(f, path); out != plan.Node(f) {
		return out
	}
	return g.intoScan(f, path)
}

// intoScan moves filter f, whose conjuncts are all total and
// deterministic, over a chain of guard nodes directly over a scan (f sits
// on the node at path, in the plan the rule received), into that scan when
// the table allows (eg.scan):
//
//	filter [k = 1]                   scan t pushed=[k = 1 (exact)] guards=[a / b > 1]
//	  guard [a / b > 1]      ==>
//	    scan t
//
// The guards become the scan's, in evaluation order (the lowest first),
// and each conjunct the source accepts is pushed after them (an Exact one
// leaves the plan, an Inexact one stays above as well): the scan evaluates
// its guards over every row its source yields before any pushed conjunct
// (docs/semantics.md, scan), so the guards meet the rows they met above
// it, and the conjuncts are applied in the scan, by the source where it
// can (docs/adr/0004-error-guards.md, "Guards in a scan"). It returns the
// new subtree, or f.
func (g *guards) intoScan(f *plan.FilterNode, path *plan.Path) plan.Node {
	if !g.Enabled(FlagPredicatePushdown) || !g.Enabled(FlagScanPushdown) {
		return f
	}
	var chain []*plan.GuardNode
	at, n := path, f.Input
	for {
		gn, ok := n.(*plan.GuardNode)
		if !ok {
			break
		}
		chain = append(chain, gn)
		if g.resolved[gn] != nil {
			at = at.Input(gn, 0) // a guard of the plan received
		}
		n = gn.Input
	}
	s, ok := n.(*plan.ScanNode)
	if !ok || len(chain) == 0 {
		return f
	}
	rs := g.resolvedOf(s)
	if rs == nil {
		return f
	}
	in := rs.Schema()
	for _, e := range f.Predicates {
		if !plan.IsDeterministic(e) || !g.table.Total(e, in) {
			return f
		}
	}
	sup, err := plan.ClassifyPredicates(s.Source, f.Predicates)
	if err != nil {
		return f
	}
	accepted := false
	for _, x := range sup {
		accepted = accepted || x == plan.Exact || x == plan.Inexact
	}
	if !accepted {
		return f // nothing to gain: the guards stay nodes
	}
	var guards []plan.Expr
	for i := len(chain) - 1; i >= 0; i-- {
		guards = append(guards, chain[i].Exprs...)
	}
	d := g.table.GuardScan(f.Predicates, guards, rs.(*plan.ScanNode))
	if !g.Apply(d, s, at, nil) {
		return f
	}
	ns := s.WithChildren(nil).(*plan.ScanNode)
	ns.Guards = append(append([]plan.Expr(nil), s.Guards...), guards...)
	ns.Pushed = append([]plan.PushedPredicate(nil), s.Pushed...)
	var keep []plan.Expr
	for i, e := range f.Predicates {
		switch sup[i] {
		case plan.Exact:
			ns.Pushed = append(ns.Pushed, plan.PushedPredicate{Expr: e, Support: plan.Exact})
		case plan.Inexact:
			ns.Pushed = append(ns.Pushed, plan.PushedPredicate{Expr: e, Support: plan.Inexact})
			keep = append(keep, e)
		default:
			keep = append(keep, e)
		}
	}
	g.resolved[ns] = rs
	g.Count(counterGuardedScans, 1)
	if len(keep) == 0 {
		return ns
	}
	out := &plan.FilterNode{Input: ns, Predicates: keep}
	return out
}

// splitFilter splits filter f, which sits on the node at path, when it
// holds total and partial conjuncts and the table allows (eg.split):
//
//	filter [a / b > 1, k = 1]        filter [a / b > 1]
//	  X                       ==>      filter [k = 1]
//	                                     guard [a / b > 1]
//	                                       X
//
// The guard raises what the partial conjuncts raise over every row X
// yields, in list order (the total ones raise nothing); the total ones
// then remove rows, and the partial ones' values are computed only on the
// rows left (docs/adr/0004-error-guards.md, "Split filters"). It returns
// the new subtree, or f.
func (g *guards) splitFilter(f *plan.FilterNode, path *plan.Path) plan.Node {
	node := g.below(f.Input)
	if node == nil || len(f.Predicates) < 2 {
		return f
	}
	in := node.Schema()
	total, partial := g.table.SplitConjuncts(f.Predicates, in)
	if len(total) == 0 || len(partial) == 0 {
		return f
	}
	ru := g.table.GuardSplit(total, partial, in)
	ruling := g.budgetedRuling(ru.Ruling, node, path, nil, f)
	g.ruling(ruling, g.nextItem(), node, path, nil, f)
	if !ruling.Allowed {
		return f
	}
	below := f.Input
	if len(ru.Guard) > 0 && !ru.Unguarded {
		below = &plan.GuardNode{Input: below, Exprs: ru.Guard}
		g.Count(counterGuards, 1)
	}
	g.Count(counterSplitFilters, 1)
	// The total conjuncts go into the scan below, with the guard, when
	// the table allows (eg.scan).
	inner := g.intoScan(&plan.FilterNode{Input: below, Predicates: total}, path)
	return &plan.FilterNode{Input: inner, Predicates: partial}
}

// below returns the resolved node n stands for (through the guards and
// filters this pass built, which keep their input's schema), or nil.
func (g *guards) below(n plan.Node) plan.Node {
	for n != nil {
		if r := g.resolvedOf(n); r != nil {
			return r
		}
		switch x := n.(type) {
		case *plan.GuardNode:
			n = x.Input
		case *plan.FilterNode:
			n = x.Input
		default:
			return nil
		}
	}
	return nil
}

// guardFilter moves filter f below the with_columns under it
// (at path, in the plan the rule received) when the table allows, and
// returns the rewritten subtree (f itself otherwise).
func (g *guards) guardFilter(f *plan.FilterNode, path *plan.Path) plan.Node {
	// Only a with_columns: it passes every input column through, so the
	// filter below it reads what it read above, and no column becomes dead
	// that projection_pruning (which runs before) kept for the filter; a
	// project crossed would leave such a column, and the optimizer would no
	// longer reach its fixed point in one run.
	if _, ok := f.Input.(*plan.WithColumnsNode); !ok {
		return f
	}
	node := g.resolvedOf(f.Input)
	if node == nil {
		return f // not reached: every node of the pass is mapped
	}
	if _, owns := plan.OwnedWindow(node); owns {
		return f
	}
	exprs := node.(*plan.WithColumnsNode).Exprs
	in := node.Children()[0].Schema()
	partial := false
	for _, e := range exprs {
		if !g.table.Total(e, in) {
			partial = true
			break
		}
	}
	if !partial {
		return f // nothing to guard: predicate_pushdown's case
	}
	below := f.Input.Children()[0]
	ru := g.table.GuardFilter(f, node, exprs, below)
	ruling := g.budgetedRuling(ru.Ruling, node, path, nil, f)
	g.ruling(ruling, g.nextItem(), node, path, nil, f)
	if !ruling.Allowed {
		return f
	}
	if len(ru.Guard) > 0 && !ru.Unguarded {
		below = &plan.GuardNode{Input: below, Exprs: ru.Guard}
		g.Count(counterGuards, 1)
	}
	g.Count(counterGuardedFilters, 1)
	// The filter now sits on the node's old input: it may move again if
	// that is another with_columns, or split where it stops.
	moved := g.moveOrSplit(&plan.FilterNode{Input: below, Predicates: f.Predicates}, path.Input(node, 0))
	out := f.Input.WithChildren([]plan.Node{moved})
	g.resolved[out] = node
	return out
}
