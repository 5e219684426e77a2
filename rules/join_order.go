package rules

import (
	"fmt"
	"strconv"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// join_order joins a left-deep chain of inner and cross joins in an order
// that avoids a cross join the written order makes, or that the row
// estimates find much cheaper, and sorts the result back into the written
// order. A SQL front end writes `FROM part,
// supplier, lineitem WHERE p_partkey = l_partkey AND s_suppkey =
// l_suppkey` as cross joins in FROM order; collapse_cross_join turns the
// filters into keys but keeps the order, so part and supplier meet in a
// cross product before lineitem joins them:
//
//	join inner on=[p = lp, s = ls]               project [p, s, lp, ls]
//	  join cross                                   sort [#1, #2, #3]
//	    scan part                          ==>       join inner on=[lp_s = s]
//	    scan supplier                                  join inner on=[p = lp]
//	  scan lineitem                                      project [#1, p] (row_index #1 (scan part))
//	                                                     project [#3, lp, ls] (row_index #3 (scan lineitem))
//	                                                   project [#2, s] (row_index #2 (scan supplier))
//
// A chain joins inputs T1..Tn through plain joins (no option, no build
// mark) whose keys are plain columns (or `k as k`); every key pair equates
// a column of one input with a column of another. The new order
// (rules/join_order_cost.go) is chosen by estimated cost: the sum of the
// joins' estimated output rows, from the inputs' point estimates
// (plan.RowEstimates.Estimate, Distinct) — fewest cross joins first, then
// cheapest. The baseline is the written order, or the greedy one when it
// has fewer cross joins (T1 first, then each time the first input in
// written order a key pair links to those joined); the cheapest order
// replaces it when it has fewer cross joins or costs at most a third. So
// TPC-H Q7 written from supplier joins its filtered nation and supplier
// first, then lineitem, and Q5 written from customer starts at its
// filtered region. Key pairs between columns of one type also link, by
// transitivity, the inputs of every column they connect (Q5's customer
// and nation through supplier's nation key). The rule fires only when the
// chosen order differs from the written one, and never again on its own
// output (its order is already the cheapest). Each input gets its rows
// numbered (row_index) and its columns renamed to their names in the
// chain's output (a fresh name for a right key the chain drops), so the
// new joins neither suffix nor merge anything; a sort on the n row numbers
// restores the chain's order — lexicographic in (row of T1, ..., row of
// Tn), which the inner and cross joins' order makes it — and a project its
// columns. Each new join checks the key pairs of the chain between its
// inputs but those the pairs checked below already imply, and an implied
// pair for each of its right input's columns that no pair ties to a column
// of its class (its tuples are the chain's: legality/join_order.go). An
// input the plan already reduces by a semi join against another input of
// the chain, on key pairs of the chain between them, is numbered after
// that semi join (rules/join_order_reduce.go; cell jo.reduce). The legality table proves the
// rest: jo.deterministic and jo.errors keep the inputs' evaluation order
// from mattering. The rule resolves what it builds and fails if the
// schema differs (a bug, never a plan's fault).
//
// It is a standard-tier rule, run once right after collapse_cross_join
// (which makes the keys) and before pruning (which then narrows the
// numbered inputs to the columns used).
func joinOrder() Rule {
	return Rule{
		Name:     FlagJoinOrder,
		Doc:      "joins a chain of inner and cross joins in an order that avoids a cross join or is estimated much cheaper, then sorts the rows back into the chain's order",
		Tier:     TierStandard,
		Counters: []CounterDef{{Name: counterReorderedJoins}},
		Verbs: Verbs{Verb: Verb{Allowed: "reorders the chain of joins at", Refused: "keeps the written order of the chain at"},
			Cells: map[legality.CellID]Verb{
				legality.JODeterministic: {Allowed: "finds at most one non-deterministic input in the chain at", Refused: "keeps the written order of the chain at"},
				legality.JOReduce:        {Allowed: "numbers an input after the semi join the plan reduces it by, in the chain at", Refused: "numbers the whole input, not the semi join the plan reduces it by, in the chain at"},
			}},
		Application: "one chain of joins joined in another order, sorted back into its own",
		Matches:     []plan.Kind{plan.KindJoin},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			est := plan.NewRowEstimates()
			semis := plainSemiJoins(root)
			inner := map[plan.Node]bool{} // chain joins that are the left input of a chain join
			plan.WalkNodes(root, func(n plan.Node) bool {
				if j, ok := n.(*plan.JoinNode); ok && chainJoin(j) {
					if l, ok := j.Left.(*plan.JoinNode); ok && chainJoin(l) {
						inner[l] = true
					}
				}
				return true
			})
			return bottomUpErr(root, func(orig, n plan.Node, path *plan.Path) (plan.Node, error) {
				oj, ok := orig.(*plan.JoinNode)
				if !ok || inner[oj] || !chainJoin(oj) {
					return n, nil
				}
				nj, ok := n.(*plan.JoinNode)
				if !ok {
					return n, nil
				}
				return reorderChain(c, est, semis, oj, nj, path)
			})
		},
	}
}

// FlagJoinOrder is join_order's flag (its name).
const FlagJoinOrder = legality.RuleJoinOrder

// counterReorderedJoins counts the chains joined in another order.
const counterReorderedJoins = "reorderedJoins"

// chainJoin reports whether j may be a link of a chain: an inner or cross
// join without options or build mark, keyed on plain columns.
func chainJoin(j *plan.JoinNode) bool {
	if (j.How != plan.InnerJoin && j.How != plan.CrossJoin) || j.HasOptions() || j.BuildLeft {
		return false
	}
	for _, keys := range [][]plan.Expr{j.LeftOn, j.RightOn} {
		for _, k := range keys {
			if _, ok := keyColumn(k); !ok {
				return false
			}
		}
	}
	return true
}

// keyColumn returns the input column a key reads when it is a plain column
// or an alias of one (`k as k`, collapse_cross_join's right key).
func keyColumn(e plan.Expr) (string, bool) {
	if a, ok := e.(*plan.Alias); ok {
		e = a.Expr
	}
	if col, ok := e.(*plan.Column); ok {
		return col.Name, true
	}
	return "", false
}

// chainCol locates a column of the chain: input (0-based) and ordinal in
// that input's schema.
type chainCol struct{ input, ordinal int }

// chainEdge is a key pair: two columns of two inputs that must match.
type chainEdge struct{ a, b chainCol }

// reorderChain rewrites the chain topped by oj (nj over rewritten inputs)
// when chainGraph.choose finds an order, and returns nj otherwise.
func reorderChain(c *Context, est *plan.RowEstimates, semis []*plan.JoinNode, oj, nj *plan.JoinNode, path *plan.Path) (plan.Node, error) {
	var ojs, njs []*plan.JoinNode // bottom-up
	for o, m := oj, nj; ; {
		ojs, njs = append(ojs, o), append(njs, m)
		ol, ok := o.Left.(*plan.JoinNode)
		if !ok || !chainJoin(ol) {
			break
		}
		ml, ok := m.Left.(*plan.JoinNode)
		if !ok {
			return nj, nil
		}
		o, m = ol, ml
	}
	crosses := 0
	for _, j := range ojs {
		if j.How == plan.CrossJoin {
			crosses++
		}
	}
	n := len(ojs) + 1
	origIn, newIn := make([]plan.Node, n), make([]plan.Node, n)
	for k := range ojs { // reverse: joins[k] joins T1..Tk+1 with Tk+2
		i := len(ojs) - 1 - k
		if k < i {
			ojs[k], ojs[i] = ojs[i], ojs[k]
			njs[k], njs[i] = njs[i], njs[k]
		}
	}
	origIn[0], newIn[0] = ojs[0].Left, njs[0].Left
	for k := range ojs {
		origIn[k+1], newIn[k+1] = ojs[k].Right, njs[k].Right
	}
	// The columns of each prefix's output, and the key pairs.
	ls := origIn[0].Schema()
	prefix := make([]chainCol, ls.Len())
	for i := range prefix {
		prefix[i] = chainCol{0, i}
	}
	var edges []chainEdge
	for k, j := range ojs {
		layout, ok := plan.LayoutOf(j)
		if !ok {
			return nj, nil
		}
		lsch, rsch := j.Left.Schema(), j.Right.Schema()
		for p := range j.LeftOn {
			ln, _ := keyColumn(j.LeftOn[p])
			rn, _ := keyColumn(j.RightOn[p])
			li, ri := lsch.Index(ln), rsch.Index(rn)
			if li < 0 || ri < 0 || li >= len(prefix) {
				return nj, nil
			}
			edges = append(edges, chainEdge{prefix[li], chainCol{k + 1, ri}})
		}
		next := make([]chainCol, 0, len(layout.Columns))
		for _, col := range layout.Columns {
			if col.Side == plan.SideLeft {
				if col.Ordinal >= len(prefix) {
					return nj, nil
				}
				next = append(next, prefix[col.Ordinal])
			} else {
				next = append(next, chainCol{k + 1, col.Ordinal})
			}
		}
		prefix = next
	}
	out := oj.Schema()
	if len(prefix) != out.Len() {
		return nj, nil
	}
	g := newChainGraph(origIn, edges, est)
	order, ok := g.choose(crosses)
	if !ok {
		return nj, nil
	}
	ru := c.table.JoinOrder(origIn)
	ru = c.budgetedRuling(ru, oj, path, nil, nil)
	c.ruling(ru, c.nextItem(), oj, path, nil, nil)
	if !ru.Allowed {
		return nj, nil
	}

	// Names: every input column under its output name, or a fresh one.
	used := map[string]bool{}
	for _, f := range out.Fields() {
		used[f.Name] = true
	}
	for _, in := range origIn {
		for _, f := range in.Schema().Fields() {
			used[f.Name] = true
		}
	}
	fresh := func(base string) string {
		name := base
		for i := 1; used[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		used[name] = true
		return name
	}
	names := make([][]string, n)
	for i, in := range origIn {
		names[i] = make([]string, in.Schema().Len())
	}
	for i, cc := range prefix {
		names[cc.input][cc.ordinal] = out.Field(i).Name
	}
	reduced := reduceInputs(c, semis, newIn, edges, oj, path)
	inputs := make([]plan.Node, n)
	idx := make([]string, n)
	for i, in := range origIn {
		idx[i] = fresh("__row" + strconv.Itoa(i+1))
		exprs := []plan.Expr{&plan.Column{Name: idx[i]}}
		for o, f := range in.Schema().Fields() {
			if names[i][o] == "" {
				names[i][o] = fresh("__" + f.Name)
			}
			var e plan.Expr = &plan.Column{Name: f.Name}
			if names[i][o] != f.Name {
				e = &plan.Alias{Expr: e, Name: names[i][o]}
			}
			exprs = append(exprs, e)
		}
		inputs[i] = &plan.ProjectNode{Input: &plan.RowIndexNode{Input: reduced[i], Name: idx[i]}, Exprs: exprs}
	}
	joined := make([]bool, n)
	joined[order[0]] = true
	cur := inputs[order[0]]
	tied := newColumnTies()
	for _, t := range order[1:] {
		j := &plan.JoinNode{Left: cur, Right: inputs[t], How: plan.CrossJoin}
		for _, p := range g.keyPairs(t, joined, tied) {
			j.How = plan.InnerJoin
			j.LeftOn = append(j.LeftOn, &plan.Column{Name: names[p.a.input][p.a.ordinal]})
			j.RightOn = append(j.RightOn, &plan.Column{Name: names[p.b.input][p.b.ordinal]})
		}
		joined[t] = true
		cur = j
	}
	keys := make([]plan.SortKey, n)
	for i := range idx {
		keys[i] = plan.SortKey{Expr: &plan.Column{Name: idx[i]}}
	}
	cols := make([]plan.Expr, out.Len())
	for i, f := range out.Fields() {
		cols[i] = &plan.Column{Name: f.Name}
	}
	var repl plan.Node = &plan.ProjectNode{Input: &plan.SortNode{Input: cur, Keys: keys}, Exprs: cols}
	res, err := plan.Resolve(repl)
	if err != nil {
		return nil, fmt.Errorf("join_order: the reordered chain at %s does not resolve: %w", path, err)
	}
	if !res.Schema().Equal(out) {
		return nil, fmt.Errorf("join_order: the reordered chain at %s has schema %s, the chain %s", path, res.Schema(), out)
	}
	c.Count(counterReorderedJoins, 1)
	return res, nil
}
