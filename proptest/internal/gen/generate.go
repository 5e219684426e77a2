package gen

import (
	"math/rand"
	"strconv"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// gen is the state of one generation: the seeded random source, the
// configuration, the tables drawn so far, and the node budget.
type gen struct {
	r *rand.Rand
	// ra draws the hand-written assumptions of scans (withAssumptions):
	// a stream of its own, so that they leave every other draw, and so
	// every other part of a seed's case, as it was without them.
	ra     *rand.Rand
	cfg    Config
	tables []*plan.Table
	scans  map[*plan.Table]frame
	// nested is the nested template's table (nested.go), nil until drawn.
	nested    *plan.Table
	nodesLeft int
	fresh     int
	// fallbacks counts nodes the generator built but could not resolve
	// (it then keeps the node's input instead); a generator bug or an
	// unlucky join-suffix collision. Tests keep it rare.
	fallbacks int
	lastErr   error
}

// frame is a generated subplan: the plan as written (raw), its resolved
// form (for schemas), and an upper bound on its output rows.
type frame struct {
	raw   plan.Node
	res   plan.Node
	rows  int
	depth int // nodes above a scan on the longest path
}

func (f frame) schema() plan.Schema { return f.res.Schema() }

// Result is one generated case: the tables, the plan over them as a user
// would write it (unresolved), and whether it was made ill-typed on purpose.
type Result struct {
	// Config is the configuration used, normalized.
	Config Config
	// Tables are the tables the plan's scans read, named t0, t1, t2.
	Tables []*plan.Table
	// Plan is the unresolved plan.
	Plan plan.Node
	// IllTyped reports a deliberately broken plan (Resolve fails), and
	// Corruption names the corruption.
	IllTyped   bool
	Corruption string
	// Fallbacks counts nodes the generator built but could not resolve (it
	// then kept their input); LastErr is the last such resolution error.
	// Both are for the generator's own tests.
	Fallbacks int
	LastErr   error
}

// Generate builds the case of one seed. It draws only from a math/rand
// source seeded with seed, so the same seed and configuration always give
// the same case. About cfg.IllTypedShare of the cases are ill-typed on
// purpose; the rest resolve.
func Generate(seed int64, cfg Config) Result {
	cfg = cfg.Normalized()
	g := &gen{r: newRand(seed), ra: newRand(seed ^ 0x0a55_0e5), cfg: cfg, nodesLeft: cfg.MaxNodes, scans: map[*plan.Table]frame{}}
	illTyped := g.r.Float64() < cfg.IllTypedShare
	g.genTables()
	depth := g.pickDepth()
	if illTyped && depth > 0 {
		depth-- // room for a corrupted node on top of the root
	}
	root := g.node(depth)
	res := Result{Config: cfg, Tables: g.usedTables(root.raw), Plan: root.raw}
	if illTyped {
		res.Plan, res.IllTyped, res.Corruption = g.corrupt(res.Plan)
	}
	res.Fallbacks, res.LastErr = g.fallbacks, g.lastErr
	return res
}

// pickDepth chooses the plan's depth budget, skewed toward the middle of
// [1, MaxDepth] with a quarter of the plans anywhere in the range.
func (g *gen) pickDepth() int {
	max := g.cfg.MaxDepth
	if max <= 0 {
		return 0
	}
	if g.r.Intn(4) == 0 {
		return 1 + g.r.Intn(max)
	}
	a, b := g.r.Intn(max), g.r.Intn(max)
	if b > a {
		a = b
	}
	return 1 + a/2 + g.r.Intn(1+a/2)
}

// usedTables lists the tables some scan of the plan reads, in table order.
func (g *gen) usedTables(root plan.Node) []*plan.Table {
	used := planutil.ScannedTables(root)
	out := make([]*plan.Table, 0, len(used))
	for _, t := range g.tables {
		if used[t] {
			out = append(out, t)
		}
	}
	return out
}

// move is one way of growing a plan: a node kind, or a template that
// builds a shape a legality cell is about.
type move uint8

const (
	mScan move = iota
	mFilter
	mProject
	mWithColumns
	mSort
	mLimit
	mSlice
	mAggregate
	mJoin
	mUnion
	mDistinct
	mExtension
	mWindow      // project or with_columns using over()
	mFusion      // with_columns, then a select reading its values (pf.inline)
	mDead        // a projection whose entries partly nothing reads (pr.*)
	mShared      // the same subtree twice: union(S, S), join(S, S), nested (ss.*)
	mFilterChain // filter over filter (ff.total_outer, pp.split)
	mPushdown    // a filter over nodes its conjuncts may cross (pp.*)
	mStandard    // the standard tier's crossings: keys, joins (standard.go)
	mOrder       // tail, reverse, row_index (order.go)
	mNested      // list and struct columns and their functions (nested.go)
	mAsof        // asof_join and what crosses it (asof.go; drawn within mOrder)
	mTemporal    // temporal_group: group_by_dynamic, rolling (asof.go; drawn within mOrder)
	mReshape     // hstack, merge_sorted, unpivot (reshape.go)
	moveCount
)

// moveWeights is the distribution of moves at each level of the plan.
var moveWeights = [moveCount]int{
	mFilter: 15, mProject: 5, mWithColumns: 4, mSort: 6, mLimit: 5, mSlice: 5, mAggregate: 8,
	mJoin: 9, mUnion: 7, mDistinct: 6, mExtension: 6, mWindow: 5, mFusion: 17, mDead: 4,
	mShared: 5, mFilterChain: 12, mPushdown: 7, mStandard: 4, mOrder: 3, mNested: 3, mReshape: 3,
}

var moveTotal = func() int {
	t := 0
	for _, w := range moveWeights {
		t += w
	}
	return t
}()

// filterChildMoves are the shapes a filter is deliberately put above, one
// per pushdown legality cell (crossing and barrier alike). The barriers
// come twice and sorts four times: the pushdown template (mPushdown) already puts
// many filters over projections and with_columns, and a barrier cell's
// mutant is killed only by a filter right over its node. Extensions come
// twice as well: each of their four pushdown cells needs a filter over the
// one operator that lacks its property. As-of joins come on their own
// beside the order move that draws them too: pp.asof_join allows only
// over a left input sorted on the key, which a filter reaches rarely
// otherwise.
var filterChildMoves = []move{mScan, mFilter, mProject, mWithColumns, mSort, mSort, mLimit, mLimit,
	mSlice, mSlice, mAggregate, mAggregate, mJoin, mJoin, mUnion, mDistinct, mDistinct, mExtension,
	mExtension, mWindow, mWindow, mShared, mFusion, mOrder, mOrder, mNested, mSort, mSort, mReshape, mReshape, mAsof}

func (g *gen) pickMove() move {
	x := g.r.Intn(moveTotal)
	for m, w := range moveWeights {
		if x < w {
			return move(m)
		}
		x -= w
	}
	return mFilter
}

// node grows a random subplan within the depth budget.
func (g *gen) node(depth int) frame { return g.nodeOf(g.pickMove(), depth) }

// nodeOf grows a subplan whose top is built by move m.
func (g *gen) nodeOf(m move, depth int) frame {
	if depth <= 0 || g.nodesLeft <= 0 || m == mScan {
		return g.scan()
	}
	if f, ok := g.limitShape(m, depth); ok { // limits.go: limit_pushdown's shapes
		return f
	}
	if f, ok := g.joinShape(m, depth); ok { // joins.go: SQL-style and unequal joins
		return f
	}
	if f, ok := g.guardShape(m, depth); ok { // guards.go: error_guards' shapes
		return f
	}
	if f, ok := g.rangeShape(m, depth); ok { // ranges.go: range_proofs' shapes
		return f
	}
	if f, ok := g.simplifyShape(m, depth); ok { // simplify.go: constants, flips, boolean identities
		return f
	}
	if f, ok := g.nestedShape(m, depth); ok { // nested.go: lists and structs
		return f
	}
	switch m {
	case mFilter:
		return g.filter(g.filterChild(depth))
	case mProject:
		return g.project(g.node(depth - 1))
	case mWithColumns:
		return g.withColumns(g.node(depth-1), false)
	case mSort:
		return g.sort(g.node(depth - 1))
	case mLimit:
		return g.limit(g.node(depth - 1))
	case mSlice:
		return g.slice(g.node(depth - 1))
	case mAggregate:
		return g.aggregate(g.node(depth - 1))
	case mJoin:
		// depth-2: room for the limit boundJoin may put under the join.
		return g.join(g.node(depth-2), g.node(g.upTo(depth-2)), depth)
	case mUnion:
		return g.union(depth)
	case mDistinct:
		return g.distinct(g.node(depth - 1))
	case mExtension:
		return g.extension(g.node(depth - 1))
	case mWindow:
		return g.window(g.node(depth - 1))
	case mFusion:
		return g.fusion(depth)
	case mDead:
		return g.dead(depth)
	case mShared:
		return g.shared(depth)
	case mFilterChain:
		return g.filterChain(depth)
	case mPushdown:
		return g.pushdownChain(depth)
	case mStandard:
		return g.standardCrossings(depth)
	case mOrder:
		return g.order(depth)
	case mNested:
		// No room for the nested table (Config.MaxTables): a filter over
		// a sort instead (pp.sort).
		return g.filter(g.nodeOf(mSort, depth-1))
	case mAsof:
		return g.asof(depth)
	case mTemporal:
		return g.temporal(depth)
	case mReshape:
		return g.reshape(depth)
	}
	return g.scan()
}

// scan reads a random table. The scan node of a table is built once, so
// two scans of one table in a plan are the same node.
func (g *gen) scan() frame { return g.scanOf(g.scannable(g.r.Intn(len(g.tables)))) }

// scannable returns table i, or when that is the nested template's table
// (whose lists and structs the other moves cannot handle), the next other
// table. The random draw stays the same whether or not the plan has one.
func (g *gen) scannable(i int) *plan.Table {
	for k := 0; k < len(g.tables); k++ {
		if t := g.tables[(i+k)%len(g.tables)]; t != g.nested {
			return t
		}
	}
	return g.tables[i]
}

// pushdownScan reads a random table that accepts pushed conjuncts (pp.scan),
// or any table when none does.
func (g *gen) pushdownScan() frame {
	var with []*plan.Table
	for _, t := range g.tables {
		if t.Pushdown() != plan.Unsupported {
			with = append(with, t)
		}
	}
	if len(with) == 0 {
		return g.scan()
	}
	return g.scanOf(with[g.r.Intn(len(with))])
}

// scanOf reads table t.
func (g *gen) scanOf(t *plan.Table) frame {
	if f, ok := g.scans[t]; ok {
		return f
	}
	raw := &plan.ScanNode{Source: t, SourceSchema: t.Schema()}
	g.withAssumptions(raw, t)
	res, err := plan.Resolve(raw)
	if err != nil {
		// Unreachable for a plan.Table; keep the raw node as its own
		// resolution so the generator can go on.
		g.fallbacks++
		g.lastErr = err
		res = raw
	}
	f := frame{raw: raw, res: res, rows: t.Rows()}
	g.scans[t] = f
	return f
}

// finish resolves raw (whose inputs are the raw nodes of inputs) over the
// inputs' resolved forms. A node that does not resolve is dropped in favour
// of its first input, and counted.
func (g *gen) finish(raw plan.Node, rows int, inputs ...frame) frame {
	out, err := g.tryFinish(raw, rows, inputs...)
	if err != nil {
		g.fallbacks++
		g.lastErr = err
		return inputs[0]
	}
	return out
}

// tryFinish is finish without the fallback.
func (g *gen) tryFinish(raw plan.Node, rows int, inputs ...frame) (frame, error) {
	rc := make([]plan.Node, len(inputs))
	depth := 0
	for i, in := range inputs {
		rc[i] = in.res
		depth = max(depth, in.depth)
	}
	res, err := plan.Resolve(raw.WithChildren(rc))
	if err != nil {
		return frame{}, err
	}
	g.nodesLeft--
	return frame{raw: raw, res: res, rows: rows, depth: depth + 1}, nil
}

// ctx returns an expression context over a frame's output schema.
func (g *gen) ctx(f frame, m mode) ectx {
	return ectx{sc: newScope(f.schema()), mode: m}
}

// nodeMode chooses the totality mode of a node's computed expressions: all
// bounded-total (so pushdown and pruning may cross), all never-raising, or
// anything.
func (g *gen) nodeMode() mode {
	switch x := g.r.Intn(100); {
	case x < 40:
		return boundedTotal
	case x < 60:
		return extTotal
	}
	return anyMode
}

// predMode chooses the totality mode of one filter conjunct.
func (g *gen) predMode() mode {
	switch x := g.r.Intn(100); {
	case x < 35:
		return boundedTotal
	case x < 65:
		return extTotal
	}
	return anyMode
}

// exprDepth draws the nesting depth of one expression, in [1,
// MaxExprDepth] (0 when MaxExprDepth asks for leaves only).
func (g *gen) exprDepth() int {
	d := nonneg(g.cfg.MaxExprDepth)
	if d == 0 {
		return 0
	}
	return 1 + g.r.Intn(d)
}

// freshName returns an output name not in used and not an input column, so
// that it adds a column.
func (g *gen) freshName(used map[string]bool, sc *scope) string {
	pool := []string{"x", "y", "z", "u", "e", "f", "g", "h", "m", "n"}
	start := g.r.Intn(len(pool))
	for i := range pool {
		name := pool[(start+i)%len(pool)]
		if used[name] || (sc != nil && sc.hasName(name)) {
			continue
		}
		return name
	}
	for {
		g.fresh++
		name := "c" + strconv.Itoa(g.fresh)
		if !used[name] && (sc == nil || !sc.hasName(name)) {
			return name
		}
	}
}

// shadowName returns an input column name not in used (to replace or
// shadow it), or "" when every input name is taken.
func (g *gen) shadowName(used map[string]bool, sc *scope) string {
	if len(sc.fields) == 0 {
		return ""
	}
	start := g.r.Intn(len(sc.fields))
	for i := range sc.fields {
		name := sc.fields[(start+i)%len(sc.fields)].Name
		if !used[name] {
			return name
		}
	}
	return ""
}

// entryName names a new computed entry and marks the name used: with
// shadow, an input column not in used (to replace or shadow it), else, or
// when every input name is taken, a fresh name.
func (g *gen) entryName(used map[string]bool, sc *scope, shadow bool) string {
	name := ""
	if shadow {
		name = g.shadowName(used, sc)
	}
	if name == "" {
		name = g.freshName(used, sc)
	}
	used[name] = true
	return name
}

// filterChild grows a filter's input, deliberately one of the shapes of
// filterChildMoves three times in four.
func (g *gen) filterChild(depth int) frame {
	if g.r.Intn(100) < 75 {
		return g.nodeOf(filterChildMoves[g.r.Intn(len(filterChildMoves))], depth-1)
	}
	return g.node(depth - 1)
}

// filter puts a filter of one to three conjuncts over in. Conjuncts over a
// sort carry nd_seq more often (a non-deterministic predicate must not
// cross the sort); over another filter they are all bounded-total (bool
// columns and literals) half of the time, so that filter fusion may fire
// (ff.total_outer).
func (g *gen) filter(in frame) frame {
	c := g.ctx(in, anyMode)
	ndRate := 10
	totalOuter := false
	switch in.raw.(type) {
	case *plan.SortNode:
		ndRate = 50
	case *plan.FilterNode:
		totalOuter = g.r.Intn(2) == 0
	}
	c.nd = !totalOuter && g.r.Intn(100) < ndRate
	n := 1
	switch x := g.r.Intn(100); {
	case x < 15:
		n = 3
	case x < 50:
		n = 2
	}
	preds := make([]plan.Expr, n)
	for i := range preds {
		m := g.predMode()
		if totalOuter {
			m = boundedTotal
		}
		preds[i] = g.predicate(c, m)
	}
	if c.nd {
		preds[g.r.Intn(n)] = g.ndPredicate(c)
	}
	return g.finish(&plan.FilterNode{Input: in.raw, Predicates: preds}, in.rows, in)
}

// projectEntries builds a projection's expressions over in: identity
// references, renames, computed values in one totality mode (aliased to a
// fresh name or shadowing an input name) and literals. forceOver adds a
// window entry.
func (g *gen) projectEntries(in frame, forceOver bool) []plan.Expr {
	c := g.ctx(in, g.nodeMode())
	c.over = true
	c.nd = g.r.Intn(10) == 0
	sc := c.sc
	k := 1 + g.r.Intn(min(6, len(sc.fields)+2))
	used := map[string]bool{}
	exprs := make([]plan.Expr, 0, k+1)
	for len(exprs) < k {
		switch x := g.r.Intn(100); {
		case x < 35:
			f, _ := g.anyCol(sc)
			if used[f.Name] {
				k--
				continue
			}
			used[f.Name] = true
			exprs = append(exprs, col(f.Name))
		case x < 50:
			f, _ := g.anyCol(sc)
			name := g.freshName(used, sc)
			used[name] = true
			exprs = append(exprs, alias(col(f.Name), name))
		case x < 90:
			t := g.colType(sc)
			e := g.expr(c, t, g.exprDepth())
			name := g.entryName(used, sc, g.r.Intn(100) < 30)
			exprs = append(exprs, named(e, name))
		default:
			name := g.freshName(used, sc)
			used[name] = true
			exprs = append(exprs, alias(lit(g.literal(g.anyType())), name))
		}
	}
	if forceOver || len(exprs) == 0 {
		wc := c.with(anyMode)
		e, _ := g.windowEntry(wc)
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(e, name))
	}
	return exprs
}

// project puts a projection over in. Over a with_columns it reads one of
// the assigned columns by a bare reference a third of the time (when no
// entry reads it yet), so that projection fusion may inline it.
func (g *gen) project(in frame) frame {
	exprs := g.projectEntries(in, false)
	if w, ok := in.raw.(*plan.WithColumnsNode); ok && len(w.Exprs) > 0 && g.r.Intn(3) == 0 {
		exprs = withReference(exprs, plan.OutputName(w.Exprs[g.r.Intn(len(w.Exprs))]), g.r.Intn(2) == 0)
	}
	return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// withReference adds col(x) to a projection's expressions, first or last,
// unless an expression already reads x or outputs the name x.
func withReference(exprs []plan.Expr, x string, first bool) []plan.Expr {
	for _, e := range exprs {
		if plan.OutputName(e) == x {
			return exprs
		}
		for _, name := range plan.Columns(e) {
			if name == x {
				return exprs
			}
		}
	}
	if first {
		return append([]plan.Expr{col(x)}, exprs...)
	}
	return append(exprs, col(x))
}

// withColumnsEntries builds one to three with_columns assignments: about
// half replace an input column (by itself, by another column, by a computed
// value or a literal), the rest add columns.
func (g *gen) withColumnsEntries(in frame, forceOver bool) []plan.Expr {
	c := g.ctx(in, g.nodeMode())
	c.over = true
	c.nd = g.r.Intn(10) == 0
	sc := c.sc
	k := 1 + g.r.Intn(3)
	used := map[string]bool{}
	exprs := make([]plan.Expr, 0, k+1)
	for i := 0; i < k; i++ {
		name := g.entryName(used, sc, g.r.Intn(100) < 45)
		var e plan.Expr
		switch x := g.r.Intn(100); {
		case x < 15 && sc.hasName(name):
			e = col(name) // same-name identity: replaces the column by itself
		case x < 30:
			f, _ := g.anyCol(sc)
			e = col(f.Name)
		case x < 90:
			e = g.expr(c, g.colType(sc), g.exprDepth())
		default:
			e = lit(g.literal(g.anyType()))
		}
		exprs = append(exprs, named(e, name))
	}
	if forceOver {
		e, _ := g.windowEntry(c.with(anyMode))
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(e, name))
		// Polars #28428: the same with_columns also overwrites a partition
		// key of the window.
		if g.r.Intn(3) == 0 {
			if o := findOver(e); o != nil && len(o.PartitionBy) > 0 {
				if kc, ok := o.PartitionBy[0].(*plan.Column); ok && !used[kc.Name] {
					f, _ := sc.lookup(kc.Name)
					exprs = append(exprs, alias(lit(g.literal(f.Type)), kc.Name))
				}
			}
		}
	}
	return exprs
}

// findOver returns the first over() inside e.
func findOver(e plan.Expr) *plan.Over {
	var found *plan.Over
	plan.Walk(e, func(x plan.Expr) bool {
		if o, ok := x.(*plan.Over); ok && found == nil {
			found = o
		}
		return found == nil
	})
	return found
}

// withColumns puts a with_columns over in.
func (g *gen) withColumns(in frame, forceOver bool) frame {
	return g.finish(&plan.WithColumnsNode{Input: in.raw, Exprs: g.withColumnsEntries(in, forceOver)}, in.rows, in)
}

// window puts a project or with_columns that uses over() over in (Resolve
// synthesizes the window node under it).
func (g *gen) window(in frame) frame {
	if g.r.Intn(3) == 0 {
		return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: g.projectEntries(in, true)}, in.rows, in)
	}
	return g.withColumns(in, true)
}

// sort puts a sort of one to three keys over in: all plain columns (total
// keys, which a predicate may cross) or partly computed, possibly partial.
func (g *gen) sort(in frame) frame {
	c := g.ctx(in, anyMode)
	n := 1
	switch x := g.r.Intn(100); {
	case x < 10:
		n = 3
	case x < 40:
		n = 2
	}
	columnsOnly := g.r.Intn(100) < 40
	forced := g.r.Intn(n) // without columnsOnly, this key is computed
	keys := make([]plan.SortKey, n)
	for i := range keys {
		var e plan.Expr
		f, ok := g.anyCol(c.sc)
		if ok && (columnsOnly || (i != forced && g.r.Intn(2) == 0)) {
			e = col(f.Name)
		} else {
			t := g.colType(c.sc)
			if g.r.Intn(100) < 60 {
				e = g.partialExpr(c, t)
				if e == nil && t != plan.Int64 {
					// No raising expression of t here (a string, or
					// no column to divide by): an int64 one keeps partial
					// sort keys (pp.sort's refusals) common.
					e = g.partialExpr(c, plan.Int64)
				}
			}
			if e == nil {
				m := anyMode
				if g.r.Intn(3) == 0 {
					m = extTotal
				}
				e = g.expr(c.with(m), t, g.exprDepth())
			}
		}
		keys[i] = plan.SortKey{Expr: e, Desc: g.r.Intn(100) < 30, NullsLast: g.r.Intn(100) < 30}
	}
	return g.finish(&plan.SortNode{Input: in.raw, Keys: keys}, in.rows, in)
}

var limitSizes = []int64{0, 1, 2, 3, 5, 10, 100}

// limit puts a limit over in.
func (g *gen) limit(in frame) frame {
	n := limitSizes[g.r.Intn(len(limitSizes))]
	return g.finish(&plan.LimitNode{Input: in.raw, N: n}, min(in.rows, int(n)), in)
}

// slice puts a slice over in.
func (g *gen) slice(in frame) frame {
	off := []int64{0, 1, 2, 3, 10}[g.r.Intn(5)]
	n := []int64{0, 1, 2, 5, 100, -1}[g.r.Intn(6)]
	rows := max(0, min(in.rows-int(off), int(n)))
	if n < 0 { // to the end
		rows = max(0, in.rows-int(off))
	}
	return g.finish(&plan.SliceNode{Input: in.raw, Offset: off, Len: n}, rows, in)
}

// aggregate puts an aggregate over in: zero to two keys (plain columns, or
// computed keys sometimes aliased to an input name, as in Polars #21439)
// and one to three aliased aggregates.
func (g *gen) aggregate(in frame) frame {
	c := g.ctx(in, anyMode)
	if g.r.Intn(3) == 0 {
		c.mode = extTotal
	}
	sc := c.sc
	nk := 1
	switch x := g.r.Intn(100); {
	case x < 25:
		nk = 0
	case x < 50:
		nk = 2
	}
	used := map[string]bool{}
	var keys []plan.Expr
	for i := 0; i < nk; i++ {
		f, ok := g.anyCol(sc)
		if ok && g.r.Intn(100) < 75 {
			if used[f.Name] {
				continue
			}
			used[f.Name] = true
			keys = append(keys, col(f.Name))
			continue
		}
		name := g.entryName(used, sc, g.r.Intn(2) == 0)
		keys = append(keys, alias(g.expr(c.noOver(), g.colType(sc), 1+g.r.Intn(2)), name))
	}
	na := 1 + g.r.Intn(3)
	aggs := make([]plan.Expr, 0, na)
	for i := 0; i < na; i++ {
		a := g.aggCall(c)
		name := plan.OutputName(a)
		if used[name] || g.r.Intn(100) < 85 {
			name = g.freshName(used, sc)
			a = alias(a, name)
		}
		used[name] = true
		aggs = append(aggs, a)
	}
	rows := in.rows
	if len(keys) == 0 {
		rows = 1
	}
	return g.finish(&plan.AggregateNode{Input: in.raw, Keys: keys, Aggs: aggs}, rows, in)
}

// joinKinds weights the join kinds; cross joins are rarer (they multiply).
var joinKinds = []plan.JoinKind{plan.InnerJoin, plan.InnerJoin, plan.LeftJoin, plan.LeftJoin,
	plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin, plan.CrossJoin}

// join joins left and right with a random kind on one or two key pairs.
// Keys are pairs of columns of comparable types (same-name pairs
// preferred, so the right key is dropped or suffixed), computed keys
// sometimes, and string casts when no pair is comparable. An input that
// could make the output exceed cfg.MaxJoinRows gets a limit first.
func (g *gen) join(left, right frame, depth int) frame {
	how := joinKinds[g.r.Intn(len(joinKinds))]
	return g.joinAs(left, right, how, depth)
}

// joinAs joins left and right with the given kind within the depth budget.
// When the output could be too large and the budget leaves no room for a
// limit under the join, the join becomes a semi join (at most the left's
// rows).
func (g *gen) joinAs(left, right frame, how plan.JoinKind, depth int) frame {
	if left.rows*right.rows > g.cfg.MaxJoinRows && max(left.depth, right.depth)+2 > depth {
		how = plan.SemiJoin
	} else {
		left, right = g.boundJoin(left, right)
	}
	var lk, rk []plan.Expr
	if how != plan.CrossJoin {
		lk, rk = g.joinKeys(left, right)
	}
	suffix := ""
	switch g.r.Intn(10) {
	case 0:
		suffix = "_r"
	case 1:
		suffix = plan.DefaultJoinSuffix
	}
	rows := left.rows*right.rows + left.rows + right.rows
	raw := &plan.JoinNode{Left: left.raw, Right: right.raw, How: how, LeftOn: lk, RightOn: rk, Suffix: suffix}
	if how != plan.CrossJoin {
		g.joinOptions(raw, left, right)
	}
	if out, err := g.tryFinish(raw, rows, left, right); err == nil {
		return out
	}
	// A suffix collision (an input column already named like a suffixed
	// one, common after nested self-joins): retry with other suffixes.
	for _, s := range []string{"_j", "_2", "_x"} {
		c := *raw
		c.Suffix = s
		raw = &c
		if out, err := g.tryFinish(raw, rows, left, right); err == nil {
			return out
		}
	}
	// Without the options (a residual naming a suffixed column).
	raw = &plan.JoinNode{Left: left.raw, Right: right.raw, How: how, LeftOn: lk, RightOn: rk, Suffix: raw.Suffix}
	if out, err := g.tryFinish(raw, rows, left, right); err == nil {
		return out
	}
	return g.finish(raw, rows, left, right)
}

// joinOptions draws a keyed join's options (docs/semantics.md, join
// options): coalesce keep or coalesce, nulls_equal (the tables hold null
// keys), validate (their keys repeat, so it often raises; pp.join.validate
// keeps conjuncts out of the checked inputs) and, on a semi or anti join, a
// residual over the pair schema: mostly a comparison of a left and a right
// column (TPC-H Q21's l_suppkey_right != l_suppkey), sometimes any
// predicate, partial ones included (pp.join.residual).
func (g *gen) joinOptions(j *plan.JoinNode, left, right frame) {
	switch x := g.r.Intn(100); {
	case x < 8:
		j.Coalesce = plan.CoalesceMerge
	case x < 16:
		j.Coalesce = plan.CoalesceKeep
	}
	j.NullsEqual = g.r.Intn(5) == 0
	if g.r.Intn(6) == 0 {
		j.Validate = []plan.JoinValidate{plan.ValidateOneToOne, plan.ValidateOneToMany, plan.ValidateManyToOne}[g.r.Intn(3)]
	}
	if (j.How != plan.SemiJoin && j.How != plan.AntiJoin) || g.r.Intn(5) >= 3 {
		return
	}
	g.residual(j, left, right, false)
}

// residual draws a semi or anti join's residual over its pair schema: with
// partial, a division of a left integer column by a right one (which
// raises where the right one is 0) when the inputs have such columns.
func (g *gen) residual(j *plan.JoinNode, left, right frame, partial bool) {
	suffix := j.Suffix
	if suffix == "" {
		suffix = plan.DefaultJoinSuffix
	}
	ls := left.schema()
	fields := ls.Fields()
	nl := len(fields)
	for _, f := range right.schema().Fields() {
		if ls.Index(f.Name) >= 0 {
			f.Name += suffix
		}
		fields = append(fields, f)
	}
	pc := ectx{sc: scopeOf(fields), mode: anyMode}
	if partial {
		var ls, rs []plan.Field
		for i, f := range fields {
			switch {
			case f.Type != plan.Int64 && f.Type != plan.Int32:
			case i < nl:
				ls = append(ls, f)
			default:
				rs = append(rs, f)
			}
		}
		if len(ls) > 0 && len(rs) > 0 {
			a, b := ls[g.r.Intn(len(ls))], rs[g.r.Intn(len(rs))]
			j.Residual = call(cmpFuncs[g.r.Intn(len(cmpFuncs))], call(plan.FuncDiv, col(a.Name), col(b.Name)), lit(plan.Int64Value(0)))
			return
		}
		j.Residual = g.predicate(pc, anyMode)
		return
	}
	if x := g.r.Intn(100); x < 55 {
		type pair struct{ l, r plan.Field }
		var pairs []pair
		for _, lf := range fields[:nl] {
			for _, rf := range fields[nl:] {
				if _, ok := plan.JoinKeyType(lf.Type, rf.Type); ok {
					pairs = append(pairs, pair{lf, rf})
				}
			}
		}
		if len(pairs) > 0 {
			p := pairs[g.r.Intn(len(pairs))]
			j.Residual = call(cmpFuncs[g.r.Intn(len(cmpFuncs))], col(p.r.Name), col(p.l.Name))
			return
		}
	} else if x < 80 {
		j.Residual = g.predicate(pc, anyMode)
		return
	}
	j.Residual = g.predicate(pc, extTotal)
}

// boundJoin limits the larger input when the join could produce more than
// cfg.MaxJoinRows rows.
func (g *gen) boundJoin(left, right frame) (frame, frame) {
	limit := g.cfg.MaxJoinRows
	if left.rows*right.rows <= limit {
		return left, right
	}
	if left.rows >= right.rows {
		n := max(1, limit/max(1, right.rows))
		left = g.finish(&plan.LimitNode{Input: left.raw, N: int64(n)}, min(n, left.rows), left)
	} else {
		n := max(1, limit/max(1, left.rows))
		right = g.finish(&plan.LimitNode{Input: right.raw, N: int64(n)}, min(n, right.rows), right)
	}
	return left, right
}

// joinKeys picks one or two key pairs.
func (g *gen) joinKeys(left, right frame) ([]plan.Expr, []plan.Expr) {
	ls, rs := newScope(left.schema()), newScope(right.schema())
	type pair struct{ l, r plan.Field }
	var same, other []pair
	for _, lf := range ls.fields {
		for _, rf := range rs.fields {
			if _, ok := plan.JoinKeyType(lf.Type, rf.Type); !ok {
				continue
			}
			if lf.Name == rf.Name {
				same = append(same, pair{lf, rf})
			} else {
				other = append(other, pair{lf, rf})
			}
		}
	}
	n := 1
	if g.r.Intn(4) == 0 {
		n = 2
	}
	var lk, rk []plan.Expr
	for i := 0; i < n; i++ {
		var p pair
		switch {
		case len(same) > 0 && (len(other) == 0 || g.r.Intn(100) < 60):
			p = same[g.r.Intn(len(same))]
		case len(other) > 0:
			p = other[g.r.Intn(len(other))]
		default:
			// Nothing comparable: compare both sides as strings.
			lf, _ := g.anyCol(ls)
			rf, _ := g.anyCol(rs)
			lk = append(lk, &plan.Cast{Expr: col(lf.Name), To: plan.String})
			rk = append(rk, &plan.Cast{Expr: col(rf.Name), To: plan.String})
			continue
		}
		if g.r.Intn(10) == 0 {
			// A computed key on the left, of the right key's type.
			lk = append(lk, g.expr(ectx{sc: ls, mode: extTotal}, p.r.Type, 1))
		} else {
			lk = append(lk, col(p.l.Name))
		}
		rk = append(rk, col(p.r.Name))
	}
	return lk, rk
}

// union builds a union of compatible inputs: a subtree and itself, a
// subtree and a schema-preserving variant of it, a subtree and another
// subtree projected to its schema, or three inputs.
func (g *gen) union(depth int) frame {
	x := g.r.Intn(100)
	if x < 25 || depth < 2 {
		s := g.node(depth - 1)
		return g.unionOf([]frame{s, s})
	}
	// The other shapes put a node over s.
	s := g.node(depth - 2)
	var inputs []frame
	switch {
	case x < 50:
		v := g.variant(s)
		inputs = []frame{s, v}
		if g.r.Intn(2) == 0 {
			inputs = []frame{v, s}
		}
	case x < 88:
		inputs = []frame{s, g.projectTo(s.schema(), g.node(g.upTo(depth-2)))}
	default:
		inputs = []frame{s, g.variant(s), g.projectTo(s.schema(), g.node(g.upTo(depth-2)))}
	}
	return g.unionOf(inputs)
}

// upTo returns a random integer in [0, n] (0 when n is negative).
func (g *gen) upTo(n int) int {
	if n <= 0 {
		return 0
	}
	return g.r.Intn(n + 1)
}

func (g *gen) unionOf(inputs []frame) frame {
	raws := make([]plan.Node, len(inputs))
	rows := 0
	for i, in := range inputs {
		raws[i] = in.raw
		rows += in.rows
	}
	return g.finish(&plan.UnionNode{Inputs: raws}, rows, inputs...)
}

// variant puts a schema-preserving node over s: a filter, sort, limit,
// slice, distinct or an extension that keeps the column names and types.
func (g *gen) variant(s frame) frame {
	switch g.r.Intn(6) {
	case 0:
		return g.filter(s)
	case 1:
		return g.sort(s)
	case 2:
		return g.limit(s)
	case 3:
		return g.slice(s)
	case 4:
		return g.distinct(s)
	}
	return g.extensionOf(s, true)
}

// projectTo projects in to exactly the target's column names and types
// (nullability may differ), so the result can be unioned with the target.
func (g *gen) projectTo(target plan.Schema, in frame) frame {
	c := g.ctx(in, extTotal)
	if g.r.Intn(3) == 0 {
		c.mode = anyMode
	}
	exprs := make([]plan.Expr, target.Len())
	for i := 0; i < target.Len(); i++ {
		f := target.Field(i)
		var e plan.Expr
		if src, ok := g.pickCol(c.sc, f.Type); ok && g.r.Intn(100) < 70 {
			e = col(src.Name)
		} else {
			e = g.expr(c, f.Type, 1+g.r.Intn(2))
		}
		exprs[i] = named(e, f.Name)
	}
	return g.finish(&plan.ProjectNode{Input: in.raw, Exprs: exprs}, in.rows, in)
}

// distinct puts a distinct over in, over all columns or a subset.
func (g *gen) distinct(in frame) frame {
	var subset []string
	if g.r.Intn(2) == 0 {
		names := in.schema().Names()
		perm := g.r.Perm(len(names))
		n := 1 + g.r.Intn(min(2, len(names)))
		for _, j := range perm[:n] {
			subset = append(subset, names[j])
		}
	}
	return g.finish(&plan.DistinctNode{Input: in.raw, Subset: subset}, in.rows, in)
}

// extensionWeights draws the built-in extension operators (see
// plan/testops): passthrough_tag, which declares every
// property and so lets rules cross it, most often; each of the others
// lacks exactly one property a legality cell checks (or declares nothing),
// so that flipping that cell makes a difference the oracle can see.
var extensionWeights = []struct {
	def    *plan.ExtensionDef
	weight int
	// addsTag: the operator appends plan's "tag" column (so it cannot sit
	// over an input that has one, nor in a schema-preserving variant).
	addsTag bool
}{
	{extIdentity, 1, false}, {extPassthroughTag, 4, true}, {extCheckedTag, 3, true}, {extSwapPairs, 3, false},
	{extNdTag, 2, true}, {extNullFirst, 2, false}, {extLagFirst, 2, false},
}

// extension puts a built-in extension operator over in.
func (g *gen) extension(in frame) frame { return g.extensionOf(in, false) }

// extensionOf puts a built-in extension operator over in; keepSchema
// restricts the choice to operators that keep in's column names and types.
func (g *gen) extensionOf(in frame, keepSchema bool) frame {
	hasTag := in.schema().Index("tag") >= 0
	total := 0
	for _, w := range extensionWeights {
		if !w.addsTag || (!keepSchema && !hasTag) {
			total += w.weight
		}
	}
	x := g.r.Intn(total)
	def := extIdentity
	for _, w := range extensionWeights {
		if w.addsTag && (keepSchema || hasTag) {
			continue
		}
		if x < w.weight {
			def = w.def
			break
		}
		x -= w.weight
	}
	return g.finish(&plan.ExtensionNode{Def: def, Inputs: []plan.Node{in.raw}}, in.rows, in)
}
