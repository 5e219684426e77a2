package proptest

import (
	"sort"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// Shrinking: a failing case is cut down by candidates, each strictly
// smaller (Size(c).Total() decreases) than the case it came from, which
// makes every stream finite and every greedy minimization terminate.
// Candidates come in phases, bigger cuts first:
//
//  1. nodes: replace a node by one of its children (a join by either side),
//     drop an input of a union of three, or replace a subtree by a scan;
//  2. rows_bulk: empty a table, keep its first or its second half;
//  3. entries: drop a conjunct, projection entry, assignment, sort key,
//     group key, aggregate, join key pair or distinct subset name;
//  4. columns: drop every column nothing names, then single columns (their
//     references become literals of the column's type, keeping output
//     names);
//  5. exprs: hoist a subexpression of the same type, or replace one by the
//     first column of its type, by the zero literal, by the typed null (and
//     a NaN literal's payload by math.NaN()); make
//     a strict cast lenient; replace an aggregate by len(); drop the alias
//     of an output (other rewrites of an output keep its name);
//  6. params: smaller limits and slices, inner joins, the default suffix,
//     ascending nulls-first sort keys;
//  7. rows: drop one row;
//  8. values: a NaN with a payload to math.NaN() (plan files keep no
//     payloads), a cell to its zero value (0, 0.0, "", false), then to
//     null.
//
// Well-formedness: a candidate is not checked against the schemas it ends
// up in. Replacing a node by its child, dropping a column or hoisting a
// subexpression may leave references to columns that no longer exist or
// operands of the wrong type. Such candidates are still offered ("try
// anyway"): the property decides, and a real oracle rejects them because
// they change the failure class (the three ways then agree on a resolution
// error). Within the plan phases, when the case resolves, the candidates
// that still resolve come first, so an ill-typed candidate is tried only
// after every well-typed cut of its phase. Candidates that do not resolve
// are marked IllTyped, with the resolution error's kind as Corruption.

// candidate builds one shrink candidate on demand; ok is false when it
// does not apply after all.
type candidate func() (Case, bool)

// phase lists the candidates of one kind of cut.
type phase struct {
	name string
	gen  func(c Case) []candidate
}

// phases are the cut kinds in the order they are tried.
var phases = []phase{
	{"nodes", nodeCuts},
	{"rows_bulk", bulkRowCuts},
	{"entries", entryCuts},
	{"columns", columnCuts},
	{"exprs", exprCuts},
	{"params", paramCuts},
	{"rows", rowCuts},
	{"values", valueCuts},
}

// ShrinkOptions bounds a minimization.
type ShrinkOptions struct {
	// MaxCalls bounds the calls of the property (0: unbounded; the
	// minimization terminates anyway, since every accepted candidate is
	// strictly smaller).
	MaxCalls int
}

// ShrinkStats reports a minimization.
type ShrinkStats struct {
	// Calls counts property calls, Steps the accepted candidates.
	Calls, Steps int
	// Before and After are the sizes of the input and the result.
	Before, After CaseSize
}

// Structurally equal subtrees are first made one shared node
// (planutil.Intern), so a cut applies to every occurrence of a shared
// subplan and keeps it shared.

// Shrink minimizes a failing case greedily: it tries the candidates of each
// phase in order, adopts the first one for which stillFails holds, and goes
// on from the same position with the adopted case's candidates; it repeats
// the phases until a whole pass adopts nothing. The result is 1-minimal
// with respect to every candidate kind. Shrink does not use gopter (bisect
// and the campaign runner call it directly). stillFails must be
// deterministic.
func Shrink(c Case, stillFails func(Case) bool) Case {
	out, _ := ShrinkWith(c, stillFails, ShrinkOptions{})
	return out
}

// ShrinkWith is Shrink with options and statistics.
func ShrinkWith(c Case, stillFails func(Case) bool, opts ShrinkOptions) (Case, ShrinkStats) {
	st := ShrinkStats{Before: Size(c)}
	c.Plan = planutil.Intern(c.Plan)
	cur, curTotal := c, st.Before.Total()
	for progress := true; progress; {
		progress = false
		for _, ph := range phases {
			cands := ph.gen(cur)
			for i := 0; i < len(cands); i++ {
				if opts.MaxCalls > 0 && st.Calls >= opts.MaxCalls {
					st.After = Size(cur)
					return cur, st
				}
				cand, ok := cands[i]()
				if !ok {
					continue
				}
				total := Size(cand).Total()
				if total >= curTotal {
					continue
				}
				st.Calls++
				if !stillFails(cand) {
					continue
				}
				cur, curTotal = cand, total
				st.Steps++
				progress = true
				cands = ph.gen(cur)
				i-- // go on from the same position
			}
		}
	}
	st.After = Size(cur)
	return cur, st
}

// shrinkStream returns c's candidates, phase by phase, as one finite
// stream; only candidates strictly smaller than c are yielded.
func shrinkStream(c Case) func() (Case, bool) {
	total := Size(c).Total()
	c.Plan = planutil.Intern(c.Plan)
	pi := 0
	var cands []candidate
	ci := 0
	return func() (Case, bool) {
		for {
			for ci < len(cands) {
				cand, ok := cands[ci]()
				ci++
				if ok && Size(cand).Total() < total {
					return cand, true
				}
			}
			if pi >= len(phases) {
				return Case{}, false
			}
			cands, ci = phases[pi].gen(c), 0
			pi++
		}
	}
}

// settle finishes a candidate whose plan changed: it drops the tables no
// scan reads any more and recomputes IllTyped (and Corruption).
func settle(c Case) Case {
	used := planutil.ScannedTables(c.Plan)
	tables := make([]*plan.Table, 0, len(c.Tables))
	for _, t := range c.Tables {
		if used[t] {
			tables = append(tables, t)
		}
	}
	c.Tables = tables
	_, err := plan.Resolve(c.Plan)
	switch {
	case err == nil:
		c.IllTyped, c.Corruption = false, ""
	case !c.IllTyped || c.Corruption == "":
		c.IllTyped, c.Corruption = true, "invalid_plan"
		if pe, ok := plan.AsError(err); ok {
			c.Corruption = string(pe.Kind)
		}
	}
	return c
}

// planCandidates turns candidate plans into candidates ordered for
// shrinking: when c resolves, the plans that still resolve first; then by
// size, smallest first (the biggest cut first).
func planCandidates(c Case, plans []plan.Node) []candidate {
	type pc struct {
		c        Case
		resolves bool
		total    int
	}
	tableTotals := map[*plan.Table]int{}
	for _, t := range c.Tables {
		tableTotals[t] = tablesSize([]*plan.Table{t}).Total()
	}
	all := make([]pc, 0, len(plans))
	for _, p := range plans {
		s := c
		s.Plan = p
		s = settle(s)
		total := planSize(p).Total()
		for _, t := range s.Tables {
			total += tableTotals[t]
		}
		all = append(all, pc{c: s, resolves: !s.IllTyped, total: total})
	}
	preferResolving := !c.IllTyped
	sort.SliceStable(all, func(i, j int) bool {
		if preferResolving && all[i].resolves != all[j].resolves {
			return all[i].resolves
		}
		return all[i].total < all[j].total
	})
	out := make([]candidate, len(all))
	for i := range all {
		cand := all[i].c
		out[i] = func() (Case, bool) { return cand, true }
	}
	return out
}

// nodeCuts replaces nodes by their children, drops union inputs, and
// replaces subtrees by scans.
func nodeCuts(c Case) []candidate {
	if c.Plan == nil {
		return nil
	}
	var plans []plan.Node
	for _, n := range nodes(c.Plan) {
		for _, ch := range n.Children() {
			plans = append(plans, replaceNode(c.Plan, n, ch))
		}
		if u, ok := n.(*plan.UnionNode); ok && len(u.Inputs) > 2 {
			for i := range u.Inputs {
				plans = append(plans, replaceNode(c.Plan, n, &plan.UnionNode{Inputs: planutil.Dropped(u.Inputs, i)}))
			}
		}
		if _, ok := n.(*plan.ScanNode); !ok && len(n.Children()) > 0 {
			for _, t := range c.Tables {
				plans = append(plans, replaceNode(c.Plan, n, scanOf(t)))
			}
		}
	}
	return planCandidates(c, plans)
}

// entryDroppable reports whether entry lists of n may lose one entry of list
// li and stay well-formed.
func entryDroppable(n plan.Node, li int, lists [][]plan.Expr) bool {
	switch n.(type) {
	case *plan.AggregateNode:
		return len(lists[0])+len(lists[1]) > 1
	case *plan.JoinNode:
		return li == 0 && len(lists[0]) > 1
	}
	return len(lists[li]) > 1
}

// entryCuts drops one entry of a node's lists, or one distinct subset
// name.
func entryCuts(c Case) []candidate {
	var plans []plan.Node
	for _, n := range nodes(c.Plan) {
		lists := exprLists(n)
		for li, list := range lists {
			if !entryDroppable(n, li, lists) {
				continue
			}
			for i := range list {
				plans = append(plans, replaceNode(c.Plan, n, withoutEntry(n, li, i)))
			}
		}
		if d, ok := n.(*plan.DistinctNode); ok {
			for i := range d.Subset {
				plans = append(plans, replaceNode(c.Plan, n, &plan.DistinctNode{Input: d.Input, Subset: planutil.Dropped(d.Subset, i)}))
			}
		}
	}
	return planCandidates(c, plans)
}

// exprCuts rewrites one subexpression of one entry.
func exprCuts(c Case) []candidate {
	var plans []plan.Node
	r := newResolver()
	for _, n := range nodes(c.Plan) {
		lists := exprLists(n)
		_, isAgg := n.(*plan.AggregateNode)
		for li, list := range lists {
			in, typed := r.InputSchema(n, inputIndex(n, li))
			for i, e := range list {
				for _, s := range subterms(e) {
					for _, rep := range exprReplacements(s.Expr, in, typed) {
						ne := replaceAt(e, s.Path, rep)
						if namedList(n) {
							ne = named(ne, plan.OutputName(e))
						}
						plans = append(plans, replaceNode(c.Plan, n, withEntry(n, li, i, ne)))
					}
					if a, ok := e.(*plan.Alias); ok && len(s.Path) == 0 && namedList(n) {
						// Drop the output name (the node's parents may
						// not need it).
						plans = append(plans, replaceNode(c.Plan, n, withEntry(n, li, i, a.Expr)))
					}
					if isAgg && li == 1 && len(s.Path) == 0 && !isLen(e) {
						plans = append(plans, replaceNode(c.Plan, n, withEntry(n, li, i, named(call(plan.FuncLen), plan.OutputName(e)))))
						// And unnamed, in one step: `len() as sum` is no
						// smaller than `sum(null(int64))`, `len()` is.
						plans = append(plans, replaceNode(c.Plan, n, withEntry(n, li, i, call(plan.FuncLen))))
					}
				}
			}
		}
	}
	return planCandidates(c, plans)
}

// exprReplacements lists the simpler expressions that may stand for e: its
// children of the same type, the first input column of its type, the zero
// literal and the typed null of its type, and a lenient form of a strict
// cast. When the input schema is unknown (typed false), only children.
func exprReplacements(e plan.Expr, in plan.Schema, typed bool) []plan.Expr {
	var out []plan.Expr
	t, ok := plan.Invalid, false
	if typed {
		t, ok = typeOfAny(e, in)
	}
	for _, ch := range e.Children() {
		if ok {
			if ct, cok := typeOfAny(ch, in); !cok || ct != t {
				continue
			}
		}
		out = append(out, ch)
	}
	if cast, isCast := e.(*plan.Cast); isCast && cast.Strict {
		out = append(out, &plan.Cast{Expr: cast.Expr, To: cast.To, Strict: false})
	}
	if !ok {
		return out
	}
	if _, isCol := e.(*plan.Column); !isCol {
		for _, f := range in.Fields() {
			if f.Type == t {
				out = append(out, col(f.Name))
				break
			}
		}
	}
	l, isLit := e.(*plan.Literal)
	if isLit && valueComplexity(l.Value) > 2 {
		out = append(out, lit(canonical(l.Value)))
	}
	if !isLit || valueComplexity(l.Value) > 1 {
		out = append(out, lit(zeroValue(t)))
	}
	if !isLit || !l.Value.IsNull() {
		out = append(out, lit(plan.NullValue(t)))
	}
	return out
}

// isLen reports whether e is len(), possibly aliased.
func isLen(e plan.Expr) bool {
	c, ok := plan.Unalias(e).(*plan.Call)
	return ok && c.Fn == plan.FuncLen
}

// paramCuts simplifies node parameters.
func paramCuts(c Case) []candidate {
	var plans []plan.Node
	for _, n := range nodes(c.Plan) {
		var repls []plan.Node
		switch n := n.(type) {
		case *plan.LimitNode:
			for _, v := range []int64{0, 1} {
				if v < n.N {
					repls = append(repls, &plan.LimitNode{Input: n.Input, N: v})
				}
			}
		case *plan.SliceNode:
			if n.Offset > 0 {
				repls = append(repls, &plan.SliceNode{Input: n.Input, Offset: 0, Len: n.Len})
			}
			for _, v := range []int64{0, 1} {
				if v < n.Len || n.Len < 0 {
					repls = append(repls, &plan.SliceNode{Input: n.Input, Offset: n.Offset, Len: v})
				}
			}
		case *plan.JoinNode:
			if n.How != plan.InnerJoin && n.How != plan.CrossJoin {
				repls = append(repls, &plan.JoinNode{Left: n.Left, Right: n.Right, How: plan.InnerJoin, LeftOn: n.LeftOn, RightOn: n.RightOn, Suffix: n.Suffix})
			}
			if n.Suffix != "" {
				repls = append(repls, &plan.JoinNode{Left: n.Left, Right: n.Right, How: n.How, LeftOn: n.LeftOn, RightOn: n.RightOn})
			}
		case *plan.ScanNode:
			// Hand-written assumptions and projections: drop them all, one
			// assumption, or the projection.
			cut := func(f func(s *plan.ScanNode)) {
				ns := n.WithChildren(nil).(*plan.ScanNode)
				f(ns)
				repls = append(repls, ns)
			}
			if len(n.Assumes) > 1 {
				cut(func(s *plan.ScanNode) { s.Assumes = nil })
			}
			for i := range n.Assumes {
				cut(func(s *plan.ScanNode) { s.Assumes = planutil.Dropped(n.Assumes, i) })
			}
			if n.Projected {
				cut(func(s *plan.ScanNode) { s.Projected, s.Columns = false, nil })
			}
		case *plan.SortNode:
			for i, k := range n.Keys {
				if k.Desc || k.NullsLast {
					keys := append([]plan.SortKey(nil), n.Keys...)
					keys[i] = plan.SortKey{Expr: k.Expr}
					repls = append(repls, &plan.SortNode{Input: n.Input, Keys: keys})
				}
			}
		}
		for _, rep := range repls {
			plans = append(plans, replaceNode(c.Plan, n, rep))
		}
	}
	return planCandidates(c, plans)
}

// withTable returns c with table i replaced (scans rebound to it).
func withTable(c Case, i int, t *plan.Table) Case {
	old := c.Tables[i]
	c.Tables = append([]*plan.Table(nil), c.Tables...)
	c.Tables[i] = t
	c.Plan = rebindScans(c.Plan, map[*plan.Table]*plan.Table{old: t})
	return c
}

// keepRows returns t with only the rows keep accepts.
func keepRows(t *plan.Table, keep func(r int) bool) (*plan.Table, bool) {
	cols := make([][]plan.Value, t.Schema().Len())
	for j := range cols {
		src := t.Column(j)
		out := make([]plan.Value, 0, len(src))
		for r, v := range src {
			if keep(r) {
				out = append(out, v)
			}
		}
		cols[j] = out
	}
	nt, err := plan.NewTable(t.Name(), t.Schema(), cols)
	if err != nil {
		return nil, false
	}
	return planutil.WithPolicyOf(nt, t), true
}

// bulkRowCuts empties tables or halves them.
func bulkRowCuts(c Case) []candidate {
	var out []candidate
	nonEmpty := 0
	for _, t := range c.Tables {
		if t.Rows() > 0 {
			nonEmpty++
		}
	}
	if nonEmpty > 1 {
		out = append(out, func() (Case, bool) {
			cur := c
			for i, t := range c.Tables {
				nt, ok := keepRows(t, func(int) bool { return false })
				if !ok {
					return Case{}, false
				}
				cur = withTable(cur, i, nt)
			}
			return cur, true
		})
	}
	for i, t := range c.Tables {
		n := t.Rows()
		if n == 0 {
			continue
		}
		for _, keep := range []func(int) bool{
			func(int) bool { return false },
			func(r int) bool { return r < n/2 },
			func(r int) bool { return r >= n/2 },
		} {
			out = append(out, func() (Case, bool) {
				nt, ok := keepRows(t, keep)
				if !ok {
					return Case{}, false
				}
				return withTable(c, i, nt), true
			})
		}
	}
	return out
}

// rowCuts drops single rows.
func rowCuts(c Case) []candidate {
	var out []candidate
	for i, t := range c.Tables {
		for r := 0; r < t.Rows(); r++ {
			out = append(out, func() (Case, bool) {
				nt, ok := keepRows(t, func(x int) bool { return x != r })
				if !ok {
					return Case{}, false
				}
				return withTable(c, i, nt), true
			})
		}
	}
	return out
}

// valueCuts simplifies single cells: to the zero value, then to null.
func valueCuts(c Case) []candidate {
	var out []candidate
	for i, t := range c.Tables {
		for j := 0; j < t.Schema().Len(); j++ {
			f := t.Schema().Field(j)
			for r, v := range t.Column(j) {
				var repls []plan.Value
				if valueComplexity(v) > 2 {
					repls = append(repls, canonical(v))
				}
				if valueComplexity(v) > 1 {
					repls = append(repls, zeroValue(f.Type))
				}
				if f.Nullable && !v.IsNull() {
					repls = append(repls, plan.NullValue(f.Type))
				}
				for _, nv := range repls {
					out = append(out, func() (Case, bool) {
						nt, ok := setCell(t, j, r, nv)
						if !ok {
							return Case{}, false
						}
						return withTable(c, i, nt), true
					})
				}
			}
		}
	}
	return out
}

// setCell returns t with one cell replaced.
func setCell(t *plan.Table, j, r int, v plan.Value) (*plan.Table, bool) {
	cols := make([][]plan.Value, t.Schema().Len())
	for k := range cols {
		cols[k] = t.Column(k)
	}
	col := append([]plan.Value(nil), cols[j]...)
	col[r] = v
	cols[j] = col
	nt, err := plan.NewTable(t.Name(), t.Schema(), cols)
	if err != nil {
		return nil, false
	}
	return planutil.WithPolicyOf(nt, t), true
}

// referencedNames returns every column name the plan's expressions and
// distinct subsets mention.
func referencedNames(root plan.Node) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes(root) {
		for _, list := range exprLists(n) {
			for _, e := range list {
				for _, name := range plan.Columns(e) {
					out[name] = true
				}
			}
		}
		if d, ok := n.(*plan.DistinctNode); ok {
			for _, name := range d.Subset {
				out[name] = true
			}
		}
		if sc, ok := n.(*plan.ScanNode); ok {
			for _, name := range sc.Columns {
				out[name] = true
			}
			for _, a := range sc.Assumes {
				out[a.Column] = true
			}
		}
	}
	return out
}

// dropColumns returns t without the named columns.
func dropColumns(t *plan.Table, drop map[string]bool) (*plan.Table, bool) {
	var fields []plan.Field
	var cols [][]plan.Value
	for j, f := range t.Schema().Fields() {
		if drop[f.Name] {
			continue
		}
		fields = append(fields, f)
		cols = append(cols, t.Column(j))
	}
	if len(fields) == 0 {
		return nil, false
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return nil, false
	}
	nt, err := plan.NewTable(t.Name(), s, cols)
	if err != nil {
		return nil, false
	}
	return planutil.WithPolicyOf(nt, t), true
}

// stripColumn replaces every reference to the named column by the zero
// literal of its type (keeping output names) and removes it from distinct
// subsets.
func stripColumn(root plan.Node, name string, t plan.Type) plan.Node {
	return rewrite(root, func(n plan.Node) plan.Node {
		if d, ok := n.(*plan.DistinctNode); ok {
			for i, s := range d.Subset {
				if s == name {
					return &plan.DistinctNode{Input: d.Input, Subset: planutil.Dropped(d.Subset, i)}
				}
			}
			return n
		}
		top := namedList(n)
		return mapEntries(n, func(_ int, e plan.Expr) plan.Expr {
			ne := e
			for _, s := range subterms(e) {
				if cl, ok := s.Expr.(*plan.Column); ok && cl.Name == name {
					ne = replaceAt(ne, s.Path, lit(zeroValue(t)))
				}
			}
			if ne == e {
				return e
			}
			if top {
				ne = named(ne, plan.OutputName(e))
			}
			return ne
		})
	})
}

// columnCuts drops all unreferenced columns of a table, then single
// columns with their references.
func columnCuts(c Case) []candidate {
	var out []candidate
	refs := referencedNames(c.Plan)
	for i, t := range c.Tables {
		if t.Schema().Len() < 2 {
			continue
		}
		unref := map[string]bool{}
		for _, f := range t.Schema().Fields() {
			if !refs[f.Name] {
				unref[f.Name] = true
			}
		}
		if len(unref) > 0 && len(unref) < t.Schema().Len() {
			out = append(out, func() (Case, bool) {
				nt, ok := dropColumns(t, unref)
				if !ok {
					return Case{}, false
				}
				return settle(withTable(c, i, nt)), true
			})
		}
		for _, f := range t.Schema().Fields() {
			out = append(out, func() (Case, bool) {
				nt, ok := dropColumns(t, map[string]bool{f.Name: true})
				if !ok {
					return Case{}, false
				}
				cand := withTable(c, i, nt)
				if refs[f.Name] {
					cand.Plan = stripColumn(cand.Plan, f.Name, f.Type)
				}
				return settle(cand), true
			})
		}
	}
	return out
}
