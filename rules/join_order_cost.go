package rules

import (
	"math/bits"
	"slices"

	"github.com/dfopt/dfopt/plan"
)

// The order join_order joins a chain in, chosen by estimated cost. The key
// pairs link the inputs; pairs between columns of one type also link, by
// transitivity, every two inputs holding columns of one class (the
// columns a path of such pairs connects): a tuple on which every pair
// holds has all of a class's columns non-null and equal, since the join's
// key equality is, within one type, an equivalence on non-null values (all
// NaNs equal, -0.0 = +0.0; docs/semantics.md, Keys). So TPC-H Q5's
// c_nationkey = s_nationkey and s_nationkey = n_nationkey let customer join
// nation before supplier joins either.
//
// The cost of an order is the sum of its joins' estimated output rows (the
// rows each join gathers and the next one probes with), each join's from
// the previous one's by chainGraph.step, plus buildWeight times the rows of
// every input it hashes (all but the first). The cheapest order of a chain of
// at most maxChainDP inputs is found over its subsets, fewest cross joins
// first (each subset keeps its cheapest order's estimate); longer chains
// take the greedy order. chainGraph.choose decides whether it replaces the
// written order.

// maxChainDP is the longest chain whose order is chosen over all subsets
// (2^n states).
const maxChainDP = 12

// chainGraph holds what join_order knows of a chain's inputs: the key
// pairs, the classes of same-typed columns they connect, the inputs each
// input is linked to, and the estimates.
type chainGraph struct {
	n     int
	edges []chainEdge
	// class numbers every column an edge names by its same-type class;
	// sameType tells the edges whose columns have one type (classed ones).
	class    map[chainCol]int
	sameType []bool
	// members lists each class's columns, in input then ordinal order.
	members [][]chainCol
	// adj is each input's set of linked inputs (bit i: input i), adjKeys
	// the inputs its own key pairs link it to.
	adj, adjKeys []uint64
	// rows is each input's estimated rows; groups are the estimation
	// classes (every edge's columns, whatever their types), each holding
	// per input the most distinct values of its columns in the group (0:
	// none).
	rows   []float64
	groups [][]float64
	// base is groups' distinct values before filters
	// (plan.RowEstimates.BaseDistinct).
	base [][]float64
}

// newChainGraph analyses the chain's inputs and key pairs.
func newChainGraph(inputs []plan.Node, edges []chainEdge, est *plan.RowEstimates) *chainGraph {
	n := len(inputs)
	g := &chainGraph{n: n, edges: edges, class: map[chainCol]int{}, sameType: make([]bool, len(edges)), adj: make([]uint64, n), rows: make([]float64, n)}
	typ := func(c chainCol) plan.Field { return inputs[c.input].Schema().Field(c.ordinal) }
	// Union-find over the columns: same-type edges for the classes, all
	// edges for the estimation groups.
	var cols []chainCol
	id := map[chainCol]int{}
	colID := func(c chainCol) int {
		if i, ok := id[c]; ok {
			return i
		}
		id[c] = len(cols)
		cols = append(cols, c)
		return id[c]
	}
	for _, e := range edges {
		colID(e.a)
		colID(e.b)
	}
	same, all := newUnionFind(len(cols)), newUnionFind(len(cols))
	for i, e := range edges {
		a, b := id[e.a], id[e.b]
		all.union(a, b)
		if typ(e.a).Type == typ(e.b).Type {
			g.sameType[i] = true
			same.union(a, b)
		}
	}
	sorted := slices.Clone(cols)
	slices.SortFunc(sorted, func(x, y chainCol) int {
		if x.input != y.input {
			return x.input - y.input
		}
		return x.ordinal - y.ordinal
	})
	classOf, groupOf := map[int]int{}, map[int]int{}
	for _, c := range sorted {
		root := same.find(id[c])
		k, ok := classOf[root]
		if !ok {
			k = len(g.members)
			classOf[root] = k
			g.members = append(g.members, nil)
		}
		g.class[c] = k
		g.members[k] = append(g.members[k], c)
		groot := all.find(id[c])
		gk, ok := groupOf[groot]
		if !ok {
			gk = len(g.groups)
			groupOf[groot] = gk
			g.groups = append(g.groups, make([]float64, n))
			g.base = append(g.base, make([]float64, n))
		}
		d := est.Distinct(inputs[c.input], typ(c).Name)
		g.groups[gk][c.input] = max(g.groups[gk][c.input], d)
		b := est.BaseDistinct(inputs[c.input], typ(c).Name)
		g.base[gk][c.input] = max(g.base[gk][c.input], b)
	}
	g.adjKeys = make([]uint64, n)
	for _, e := range edges {
		g.adjKeys[e.a.input] |= 1 << e.b.input
		g.adjKeys[e.b.input] |= 1 << e.a.input
	}
	for i, e := range edges {
		if !g.sameType[i] {
			g.adj[e.a.input] |= 1 << e.b.input
			g.adj[e.b.input] |= 1 << e.a.input
		}
	}
	for _, m := range g.members {
		var set uint64
		for _, c := range m {
			set |= 1 << c.input
		}
		for _, c := range m {
			g.adj[c.input] |= set &^ (1 << c.input)
		}
	}
	for i, in := range inputs {
		g.rows[i] = est.Estimate(in)
	}
	return g
}

// step returns the estimated rows of joining input t to the inputs of
// set, which yield rows estimated at rows: rows times t's rows, divided by
// the more distinct values of the two sides in the group that keeps the
// fewest matches among those linking t to set. A set's distinct values in
// a group are the fewest of its columns' (its joins made them equal), and
// at most its rows. Either side's are at most the other side's base
// distinct values (plan.RowEstimates.BaseDistinct): a foreign key's values
// are among its key's. Only one group counts: the columns of a composite
// key are often correlated (partsupp's part and supplier), and a product
// of their selectivities would take a join that keeps every row for one
// that keeps almost none.
func (g *chainGraph) step(set uint64, rows float64, t int) float64 {
	div := 1.0
	for k, grp := range g.groups {
		dt, bt := grp[t], g.base[k][t]
		if dt == 0 {
			continue
		}
		ds, bs := 0.0, 0.0
		for s := set; s != 0; s &= s - 1 {
			i := bits.TrailingZeros64(s)
			if d := grp[i]; d > 0 && (ds == 0 || d < ds) {
				ds = d
			}
			if b := g.base[k][i]; b > 0 && (bs == 0 || b < bs) {
				bs = b
			}
		}
		if ds == 0 {
			continue
		}
		ds = min(ds, max(rows, 1), bt)
		dt = min(dt, bs)
		div = max(div, dt, ds)
	}
	return rows * g.rows[t] / div
}

// cost returns the cost of joining in order: the sum of the estimated rows
// of every join's output.
func (g *chainGraph) cost(order []int) float64 {
	set := uint64(1) << order[0]
	rows, c := g.rows[order[0]], 0.0
	for _, t := range order[1:] {
		rows = g.step(set, rows, t)
		set |= 1 << t
		c += rows + buildWeight*g.rows[t]
	}
	return c
}

// buildWeight is what hashing an input row costs beside producing an output
// row: a join's output rows are gathered column by column and probe the
// next join, while its right input is only hashed once. Measured on TPC-H
// SF1 (docs/performance.md): Q17 in SQL style hashing lineitem's 6M rows
// instead of probing them costs about as much as 300,000 joined rows.
const buildWeight = 0.05

// order returns the order to join the chain in and its cross joins: the
// cheapest of those with the fewest cross joins when the chain has at most
// maxChainDP inputs, else the greedy one. ok is false for a chain too long
// for the link sets.
func (g *chainGraph) order() (order []int, crosses int, ok bool) {
	n := g.n
	if n > 64 {
		return nil, 0, false
	}
	if n > maxChainDP {
		order, crosses = g.greedy(g.adj)
		return order, crosses, true
	}
	type state struct {
		crosses    int
		cost, rows float64
		last       int
		ok         bool
	}
	best := make([]state, 1<<n)
	for i := range n {
		best[1<<i] = state{rows: g.rows[i], last: i, ok: true}
	}
	for set := uint64(1); set < 1<<n; set++ {
		if bits.OnesCount64(set) < 2 {
			continue
		}
		for s := set; s != 0; s &= s - 1 {
			t := bits.TrailingZeros64(s)
			prev := best[set&^(1<<t)]
			e := g.step(set&^(1<<t), prev.rows, t)
			cand := state{crosses: prev.crosses, cost: prev.cost + e + buildWeight*g.rows[t], rows: e, last: t, ok: true}
			if g.adj[t]&(set&^(1<<t)) == 0 {
				cand.crosses++
			}
			cur := best[set]
			if !cur.ok || cand.crosses < cur.crosses || cand.crosses == cur.crosses && cand.cost < cur.cost {
				best[set] = cand
			}
		}
	}
	full := uint64(1)<<n - 1
	order = make([]int, n)
	for set, k := full, n-1; k >= 0; k-- {
		t := best[set].last
		order[k] = t
		set &^= 1 << t
	}
	return order, best[full].crosses, true
}

// greedy returns the greedy order by the links adj and its cross joins:
// input 0 first, then each time the first input in written order linked to
// one already taken, or the first one left when none is.
func (g *chainGraph) greedy(adj []uint64) (order []int, crosses int) {
	var taken, linked uint64
	take := func(t int) {
		taken |= 1 << t
		linked |= adj[t]
		order = append(order, t)
	}
	take(0)
	for len(order) < g.n {
		next := -1
		for t := 0; t < g.n; t++ {
			if taken&(1<<t) == 0 && linked&(1<<t) != 0 {
				next = t
				break
			}
		}
		if next < 0 {
			crosses++
			for t := 0; t < g.n; t++ {
				if taken&(1<<t) == 0 {
					next = t
					break
				}
			}
		}
		take(next)
	}
	return order, crosses
}

// choose returns the order to join the chain in, ok false when the
// written one stays. The baseline is the greedy order over the chain's own
// key pairs when it has fewer cross joins than the written one (crosses),
// else the written order. The cheapest order replaces it when it has fewer
// cross joins, or as many and worthIt says so.
func (g *chainGraph) choose(crosses int) (order []int, ok bool) {
	best, bestCrosses, ok := g.order()
	if !ok {
		return nil, false
	}
	base, baseCrosses := g.greedy(g.adjKeys)
	if baseCrosses >= crosses {
		base, baseCrosses = make([]int, g.n), crosses
		for i := range base {
			base[i] = i
		}
	}
	if bestCrosses < baseCrosses {
		return best, true
	}
	if g.n >= 3 && g.worthIt(g.cost(base), g.cost(best)) {
		return best, true
	}
	return base, baseCrosses < crosses
}

// worthIt reports whether an order of estimated cost best replaces the
// baseline of cost base: at most 1/worthFactor of it, and cheaper by more
// than the rewrite's own work, numberWeight per input row (each input's
// rows numbered, the numbers carried through the joins, the rows sorted
// back). A chain of two inputs is never reordered for cost: the only other
// order swaps the sides, which build_side does without a sort.
func (g *chainGraph) worthIt(base, best float64) bool {
	all := 0.0
	for _, r := range g.rows {
		all += r
	}
	return base > 0 && worthFactor*best <= base && base-best > numberWeight*all
}

// numberWeight is the cost of numbering an input row and carrying the
// number, in output rows (chainGraph.cost).
const numberWeight = 0.05

// worthFactor is how many times cheaper by the estimates an order must be
// than the baseline to replace it: the row numbers and the sort back cost
// something, and the estimates are rough (a default selectivity can be
// off by a factor of ten either way).
const worthFactor = 3

// keyPairs returns the key pairs that join input t to the inputs joined
// already, tied recording which columns the pairs of the earlier joins
// made equal (same-typed pairs only, so that equal means equal to each
// other: an equivalence). First every key pair of the chain between them,
// but one whose columns are tied already; then, for each class, a pair
// from the class's first column among the joined inputs to each of t's
// columns in the class that is not tied to it (a pair transitivity
// implies). Every key pair of the chain is thus checked by the join of its
// later input or implied by pairs checked, and each added pair holds on
// every tuple on which the chain's pairs do, so the joins keep exactly the
// chain's tuples. In each pair a is the joined input's column, b t's.
func (g *chainGraph) keyPairs(t int, joined []bool, tied *columnTies) []chainEdge {
	var pairs []chainEdge
	for i, e := range g.edges {
		a, b := e.a, e.b
		if b.input != t {
			a, b = b, a
		}
		if b.input != t || !joined[a.input] {
			continue
		}
		if g.sameType[i] {
			if tied.same(a, b) {
				continue
			}
			tied.tie(a, b)
		}
		pairs = append(pairs, chainEdge{a, b})
	}
	for _, m := range g.members {
		rep := -1
		for i, c := range m {
			if joined[c.input] {
				rep = i
				break
			}
		}
		if rep < 0 {
			continue
		}
		for _, c := range m {
			if c.input == t && !tied.same(m[rep], c) {
				tied.tie(m[rep], c)
				pairs = append(pairs, chainEdge{m[rep], c})
			}
		}
	}
	return pairs
}

// columnTies is a disjoint-set forest over the chain's columns: the
// columns the joins built so far made equal by same-typed key pairs.
type columnTies struct{ parent map[chainCol]chainCol }

func newColumnTies() *columnTies { return &columnTies{parent: map[chainCol]chainCol{}} }

func (c *columnTies) find(x chainCol) chainCol {
	for {
		p, ok := c.parent[x]
		if !ok || p == x {
			return x
		}
		x = p
	}
}

func (c *columnTies) same(a, b chainCol) bool { return c.find(a) == c.find(b) }

func (c *columnTies) tie(a, b chainCol) { c.parent[c.find(a)] = c.find(b) }

// unionFind is a disjoint-set forest over 0..n-1.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int) { u[u.find(a)] = u.find(b) }
