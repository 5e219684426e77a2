package exec

import (
	"fmt"
	"maps"
	"math"
	mbits "math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// Runtime key filters. An equi-join one of whose inputs turns out small
// and whose other input is a scan (possibly under filters) collects the
// distinct values of a key column of the small input and hands them to the
// scan's source (ScanRequest.KeyFilters): a row of the other input whose
// key is null or none of those values matches nothing, so the join drops
// it, and the source may drop it first. A Parquet source then decodes the
// key column, tests it, and decodes its other columns only for the rows
// that pass (exec/parquet's late materialization), so the filters above
// and the join meet those rows only. This is what other engines call a
// semi-join or dynamic filter.
//
// The filtered input (the probe) is a scan, or a chain over a scan of
// filters, projections of plain columns and ordering row_index nodes, each
// filter deterministic, without over() and total (plan.Total: its
// conjuncts cannot raise), the scan's source a KeyFilterSource, and no
// node of the chain occurring in the plan elsewhere than inside the
// occurrences of the join (which the memo then shares whole) or, when the
// join shares its pairs with a probe class (memo.go) every member of which
// may filter the same input, of the class's joins; a filtered chain's
// outputs stay out of the memo (evalProbe). In a class, the first member
// evaluated filters the input and keeps it with the class
// (pairClass.keyed); the others evaluate their other input (the memo
// serves it), take that filtered input, and take the pairs, which index
// its rows: every member's other input is Equal, so its keys, and the
// filter, are the same (TPC-H Q17 written as SQL: lineitem's scan under
// the outer inner join and semi_reduction's semi join). A row_index node is
// ordering when its column's values are used only as plain-column sort
// keys before being dropped, in every occurrence of the plan (orderOnly):
// join_order numbers the inputs of the joins it reorders so, to sort the
// result back into the written order (TPC-H Q7's lineitem and orders, Q11's
// partsupp). The right input is filtered for inner, left, semi and anti
// joins, with the left input evaluated first as always; the left input for
// inner and semi joins, the right input then being evaluated first. When both inputs
// qualify, the one evaluated first (whose keys are collected) is the one
// under a filter or pushed conjuncts, then the one with fewer source rows,
// then the left one: the small side of TPC-H's joins.
//
// It is unobservable (docs/semantics.md, join): the join yields the same
// rows, in the same order, with the same values and errors.
//   - Rows: a right row that matches no left row is in no pair, and only
//     right and full joins output unmatched right rows; a left row that
//     matches no right row is in no pair, and only inner and semi joins
//     output nothing for it. Without nulls_equal a null key matches
//     nothing. Filters over the scan keep or drop each row by its own
//     values, so they keep the same rows among those left.
//   - Order: the output order is left order, then right order among a left
//     row's matches; dropping rows that are in no pair keeps the relative
//     order of the others. An ordering row_index above the dropped rows
//     numbers the rows kept otherwise, in the same order, so every
//     comparison a sort makes between two of them has the same outcome,
//     and no other use reads the numbers.
//   - Errors: a row_index of the chain cannot overflow (its offset plus
//     the source's rows fit an int64), projections of plain columns cannot
//     raise, the filtered side's keys are plain columns (evaluating them
//     cannot raise), the join validates no uniqueness of the filtered side
//     (m:1 and 1:1 check every right row, 1:m and 1:1 every left row,
//     matched or not), has no residual, the filters over the scan cannot
//     raise, and the scan's rows are its output (no conjunct the executor
//     applies, no guard, no assumption checked over them, no max-rows hint;
//     exec.scan). When the right input is evaluated first and fails, the
//     left input is evaluated then, plainly, and its error, if any, is the
//     join's, as in the written order. A source skips data by the filter as
//     by an Inexact conjunct: a Parquet chunk of a row group whose rows
//     were all ruled out is not decoded, so a corruption only its decode
//     would find goes unnoticed, as for a row group refuted by statistics.
//   - Keys compare as the join compares them: both key columns have the
//     same integer type (int32, int64 or date), so equality is the values'.
//   - OnEvaluate observers see the right input's nodes before the left
//     one's when the right input is evaluated first.

// KeyFilter is one runtime key filter on a scan (ScanRequest.KeyFilters):
// the rows whose Column value is one of Keys may match the join above; the
// others (and nulls) cannot.
type KeyFilter struct {
	// Column is the filtered column, one of the request's Columns, of type
	// int32, int64 or date.
	Column string
	// Keys are the values a row may hold to match, sorted ascending,
	// without duplicates (int32 and date values widened to int64).
	Keys []int64
}

// KeyFilterSource is implemented by a source that uses
// ScanRequest.KeyFilters to skip rows; UsesKeyFilters reports whether it
// does (false: the executor builds no filter for its scans, sparing the
// left keys' collection). Package exec/parquet's source implements it.
type KeyFilterSource interface {
	Source
	UsesKeyFilters() bool
}

// usesKeyFilters asks a source, defending against a panic (which answers
// no).
func usesKeyFilters(s KeyFilterSource) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return s.UsesKeyFilters()
}

// maxFilterKeys bounds the distinct keys a runtime filter carries, and
// maxFilterRows the rows of the input they are collected from: past them
// that input is no longer small and the filter would rarely pay for its
// test.
const (
	maxFilterKeys = 1 << 18
	maxFilterRows = 1 << 21
)

// keyFilterPays reports whether collecting the keys of an evaluated input
// of keyRows rows can pay for itself on a scan whose source holds
// probeRows rows (-1: unknown): collecting sorts the keys, so an input
// with more rows than the scan costs more than the scan could save (TPC-H
// Q16's 800,000 partsupp rows against the 10,000 suppliers of its anti
// join).
func keyFilterPays(keyRows, probeRows int64) bool {
	return keyRows <= maxFilterRows && (probeRows < 0 || keyRows <= probeRows)
}

// probe is one input of a join that a runtime key filter may narrow: the
// scan under it, the key pair the filter uses (an index into the join's
// keys) and the scan column that key is, whether anything filters it
// already, and its source's rows (-1: unknown).
type probe struct {
	scan     *plan.ScanNode
	pair     int
	column   string // the scan's column the pair's key is
	filtered bool
	rows     int64
}

// evalKeyFiltered evaluates join n with a runtime key filter on one of its
// inputs (see above) when n qualifies; ok is false, and nothing evaluated,
// when it does not (the caller evaluates n plainly).
func (c *collector) evalKeyFiltered(n *plan.JoinNode) (out *step.Frame, err error, ok bool) {
	class := c.memo.class(n)
	if class != nil && class.keyed != nil {
		out, err = c.evalKeyedMember(n, class)
		return out, err, true
	}
	rp, canRight := c.keyFilterProbe(n, true)
	lp, canLeft := c.keyFilterProbe(n, false)
	switch {
	case canRight && canLeft:
		// Collect the keys of the input likelier to be small.
		if lp.filtered != rp.filtered {
			canLeft = rp.filtered
		} else {
			canLeft = rp.rows >= 0 && lp.rows > rp.rows
		}
		canRight = !canLeft
	case !canRight && !canLeft:
		return nil, nil, false
	}
	var left, right *step.Frame
	defer func() {
		if left != nil {
			left.Release()
		}
		if right != nil {
			right.Release()
		}
	}()
	if canRight {
		if left, err = c.eval(n.Left); err != nil {
			return nil, err, true
		}
		set, unset := c.withKeyFilter(rp, left, n.LeftOn[rp.pair])
		defer unset()
		if right, err = c.evalProbe(n.Right, set); err != nil {
			return nil, err, true
		}
		if set && class != nil {
			class.keyed = &keyedInput{frame: right.Share(right.Schema()), right: true}
		}
	} else {
		if right, err = c.eval(n.Right); err != nil {
			// The left input evaluates first in the written order: its
			// error, if it raises one, is the join's.
			if left, lerr := c.eval(n.Left); lerr != nil {
				return nil, lerr, true
			} else {
				left.Release()
			}
			return nil, err, true
		}
		set, unset := c.withKeyFilter(lp, right, n.RightOn[lp.pair])
		defer unset()
		if left, err = c.evalProbe(n.Left, set); err != nil {
			return nil, err, true
		}
		if set && class != nil {
			class.keyed = &keyedInput{frame: left.Share(left.Schema())}
		}
	}
	out, err = c.joinEvaluated(n, left, right)
	return out, err, true
}

// evalKeyedMember evaluates join n of probe class cl after another member
// evaluated its inputs under a key filter: its other input as eval does
// (the memo serves it: it is Equal to the other member's), its filtered
// input taken from the class (one memo hit, as eval would count for the
// Equal subtree), so that the pairs the class shares index its rows.
func (c *collector) evalKeyedMember(n *plan.JoinNode, cl *pairClass) (*step.Frame, error) {
	other := n.Left
	if !cl.keyed.right {
		other = n.Right
	}
	f, err := c.eval(other)
	if err != nil {
		return nil, err
	}
	c.hits++
	keyed := cl.keyed.frame.Share(cl.keyed.frame.Schema())
	left, right := f, keyed
	if !cl.keyed.right {
		left, right = keyed, f
	}
	defer left.Release()
	defer right.Release()
	return c.joinEvaluated(n, left, right)
}

// joinEvaluated evaluates join n over its evaluated inputs, sharing its
// pairs with its probe class when it has one.
func (c *collector) joinEvaluated(n *plan.JoinNode, left, right *step.Frame) (*step.Frame, error) {
	if err := c.env.CheckCtx(); err != nil {
		return nil, err
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	if p, done := c.memo.pairs(n); p != nil {
		defer done()
		return step.JoinShared(c.env, n, left, right, p)
	}
	return step.Eval(c.env, n, []*step.Frame{left, right})
}

// withKeyFilter sets the filter of probe p's scan on its key column from
// column from of the evaluated input f, when f is small enough (set), and
// returns the function that removes it.
func (c *collector) withKeyFilter(p probe, f *step.Frame, from plan.Expr) (set bool, unset func()) {
	if !keyFilterPays(int64(f.NumRows()), p.rows) {
		return false, func() {}
	}
	kf, ok := c.keyFilter(f, from.(*plan.Column).Name, p.column)
	if !ok {
		return false, func() {}
	}
	if c.keyFilters == nil {
		c.keyFilters = map[*plan.ScanNode][]KeyFilter{}
	}
	c.keyFilters[p.scan] = []KeyFilter{kf}
	return true, func() { delete(c.keyFilters, p.scan) }
}

// evalProbe evaluates the probe chain n (filters, projections and
// row_index nodes over a scan; see probeChain) like eval, but, when a key
// filter is set on its scan (filtered), without storing its nodes' outputs
// in the memo: they hold
// only the rows the filter let through, which another consumer of an
// Equal subtree must not be served. An output the memo already holds
// (every row) is served as eval would.
func (c *collector) evalProbe(n plan.Node, filtered bool) (*step.Frame, error) {
	if !filtered {
		return c.eval(n)
	}
	if err := c.env.CheckCtx(); err != nil {
		return nil, err
	}
	if shared := c.memo.entry(n); shared != nil && shared.out != nil {
		c.hits++
		return shared.out.Share(shared.out.Schema()), nil
	}
	var out *step.Frame
	var err error
	switch x := n.(type) {
	case *plan.FilterNode, *plan.ProjectNode, *plan.RowIndexNode:
		var in *step.Frame
		if in, err = c.evalProbe(x.Children()[0], true); err != nil {
			return nil, err
		}
		defer in.Release()
		if err := c.env.CheckCtx(); err != nil {
			return nil, err
		}
		if c.onEval != nil {
			c.onEval(n)
		}
		out, err = step.Eval(c.env, n, []*step.Frame{in})
	case *plan.ScanNode:
		if c.onEval != nil {
			c.onEval(n)
		}
		out, err = c.scan(x)
	default:
		return nil, c.env.Internal("a key-filtered input holds a %s node", n.Label())
	}
	if err == nil {
		if err = c.env.CheckMemory(); err != nil {
			out.Release()
		}
	}
	if err != nil {
		return nil, c.locate(err, n)
	}
	return out, nil
}

// keyFilterProbe reports whether join n may filter its right input (right)
// or its left input by the other's keys (see above), and how.
func (c *collector) keyFilterProbe(n *plan.JoinNode, right bool) (p probe, ok bool) {
	if !filterableSide(n, right) {
		return p, false
	}
	if cl := c.memo.class(n); cl != nil {
		// The members share the filtered input and the pairs over it.
		for _, m := range cl.members {
			if !filterableSide(m, right) {
				return p, false
			}
		}
	}
	input, other := n.Left, n.Right
	on, otherOn := n.LeftOn, n.RightOn
	if right {
		input, other, on, otherOn = n.Right, n.Left, n.RightOn, n.LeftOn
	}
	for _, e := range on {
		if _, isCol := e.(*plan.Column); !isCol {
			return p, false // evaluating it might raise on a row a filter drops
		}
	}
	scan, chain, filtered, ok := c.probeChain(n, input)
	if !ok {
		return p, false
	}
	for k, e := range otherOn {
		oc, isCol := e.(*plan.Column)
		if !isCol {
			continue
		}
		ic := on[k].(*plan.Column)
		oi, ii := other.Schema().Index(oc.Name), input.Schema().Index(ic.Name)
		if oi < 0 || ii < 0 {
			continue
		}
		ot, it := other.Schema().Field(oi).Type, input.Schema().Field(ii).Type
		col, isScanCol := scanColumn(chain, ic.Name)
		if isScanCol && ot == it && (ot == plan.Int32 || ot == plan.Int64 || ot == plan.Date) {
			rows, known := plan.SourceRows(scan.Source)
			if !known {
				rows = -1
			}
			return probe{scan: scan, pair: k, column: col, filtered: filtered, rows: rows}, true
		}
	}
	return p, false
}

// filterableSide reports whether join n's kind and options let a key
// filter narrow its right input (right) or its left one (see above).
func filterableSide(n *plan.JoinNode, right bool) bool {
	if n.NullsEqual || n.Residual != nil || len(n.LeftOn) != len(n.RightOn) {
		return false
	}
	if right {
		switch n.How {
		case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
		default:
			return false
		}
		return n.Validate == plan.ValidateManyToMany || n.Validate == plan.ValidateOneToMany
	}
	if n.How != plan.InnerJoin && n.How != plan.SemiJoin {
		return false
	}
	return n.Validate == plan.ValidateManyToMany || n.Validate == plan.ValidateManyToOne
}

// probeChain returns the scan under n, an input of join j, when n is a
// scan whose source uses key filters, or a chain over one of filters,
// projections of plain columns and row_index nodes numbering rows for
// ordering only (orderOnly), that a key filter may narrow (see above);
// chain lists its nodes from n down to the scan, and filtered says whether
// a filter or a pushed conjunct narrows it already. A node of the chain
// that the memo shares must occur in the plan only inside the occurrences
// of j (as many times as j does): then the first occurrence of j evaluated
// is the only one that evaluates it, the others being served from the
// memo, so keeping its filtered output out of the memo serves nothing
// less. For a join of a probe class the occurrences counted are the
// class's (pairClass.occurrences): the first member evaluated evaluates
// the chain, the others take its output from the class.
func (c *collector) probeChain(j *plan.JoinNode, n plan.Node) (scan *plan.ScanNode, chain []plan.Node, filtered, ok bool) {
	jc := 1
	if cl := c.memo.class(j); cl != nil {
		jc = cl.occurrences
	} else if e := c.memo.entry(j); e != nil {
		jc = e.count
	}
	var offset int64 = -1 // the largest row_index offset of the chain
	for {
		count := 1
		if e := c.memo.entry(n); e != nil {
			count = e.count
		}
		if count != jc {
			return nil, nil, false, false
		}
		chain = append(chain, n)
		switch x := n.(type) {
		case *plan.ScanNode:
			kfs, isKF := x.Source.(KeyFilterSource)
			if !isKF || !usesKeyFilters(kfs) {
				return nil, nil, false, false // the filter would cost its keys and save nothing
			}
			if offset >= 0 {
				// Neither numbering may overflow: the chain's rows are
				// at most the source's.
				rows, known := plan.SourceRows(x.Source)
				if !known || rows < 0 || offset > math.MaxInt64-rows {
					return nil, nil, false, false
				}
			}
			return x, chain, filtered || len(x.Pushed) > 0, true
		case *plan.FilterNode:
			if !plan.IsDeterministicPlan(x) {
				return nil, nil, false, false
			}
			for _, e := range x.Predicates {
				if plan.ContainsOver(e) || !plan.Total(e, x.Input.Schema(), plan.TrustLanguage) {
					return nil, nil, false, false
				}
			}
			filtered, n = true, x.Input
		case *plan.ProjectNode:
			for _, e := range x.Exprs {
				if _, isCol := plan.Unalias(e).(*plan.Column); !isCol {
					return nil, nil, false, false
				}
			}
			n = x.Input
		case *plan.RowIndexNode:
			if !c.orderOnly(x) {
				return nil, nil, false, false
			}
			offset, n = max(offset, x.Offset), x.Input
		default:
			return nil, nil, false, false
		}
	}
}

// scanColumn follows column name of the chain's top node (probeChain)
// down to the scan: the scan column it is, ok false when it is a row_index
// column.
func scanColumn(chain []plan.Node, name string) (string, bool) {
	for _, n := range chain {
		switch x := n.(type) {
		case *plan.ProjectNode:
			found := false
			for _, e := range x.Exprs {
				if plan.OutputName(e) == name {
					name, found = plan.Unalias(e).(*plan.Column).Name, true
					break
				}
			}
			if !found {
				return "", false
			}
		case *plan.RowIndexNode:
			if x.Name == name {
				return "", false
			}
		}
	}
	return name, true
}

// orderOnly reports whether row_index node n numbers rows for ordering
// only: in every occurrence in the plan of a node Equal to it, its
// column's values are used only as plain-column sort keys (valueIndexes).
// The plan is analysed once per collect.
func (c *collector) orderOnly(n *plan.RowIndexNode) bool {
	if c.valueIndexes == nil {
		c.valueIndexes = valueIndexes(c.root)
	}
	return !c.valueIndexes[plan.Fingerprint(n)]
}

// valueIndexes returns the fingerprints of the row_index nodes of the plan
// rooted at root some occurrence of which has its column's values
// matter: it walks the plan from the root down, carrying for each node the
// output columns whose values the nodes above need (the root's: all). A
// projection needs the columns its expressions read, except a plain column
// (renamed or not) whose output nothing above needs; a filter its
// predicates' columns too; a sort the columns of its keys that are not
// plain columns (a plain key is compared only, and renumbering rows in
// their order keeps every comparison); a join the columns of its keys and
// residual, and every column whose name both inputs hold (the output
// renames or merges it); a row_index node what is needed but its own
// column, whose node is marked when it is needed; an aggregate the columns
// of its keys and aggregates; with_columns those of its expressions too;
// every other node all its inputs' columns. A row_index column that
// reaches the output, or a node not listed, is thus needed.
func valueIndexes(root plan.Node) map[uint64]bool {
	marked := map[uint64]bool{}
	seen := map[string]bool{}
	all := func(n plan.Node) map[string]bool {
		need := map[string]bool{}
		for _, f := range n.Schema().Fields() {
			need[f.Name] = true
		}
		return need
	}
	addCols := func(need map[string]bool, es ...plan.Expr) {
		for _, e := range es {
			for _, name := range plan.Columns(e) {
				need[name] = true
			}
		}
	}
	ids := map[plan.Node]int{}
	var visit func(n plan.Node, need map[string]bool)
	visit = func(n plan.Node, need map[string]bool) {
		id, ok := ids[n]
		if !ok {
			id = len(ids)
			ids[n] = id
		}
		names := make([]string, 0, len(need))
		for name := range need {
			names = append(names, name)
		}
		slices.Sort(names)
		key := fmt.Sprint(id, names)
		if seen[key] {
			return
		}
		seen[key] = true
		switch x := n.(type) {
		case *plan.RowIndexNode:
			if need[x.Name] {
				marked[plan.Fingerprint(x)] = true
			}
			in := maps.Clone(need)
			delete(in, x.Name)
			visit(x.Input, in)
		case *plan.ProjectNode:
			in := map[string]bool{}
			for _, e := range x.Exprs {
				if col, isCol := plan.Unalias(e).(*plan.Column); isCol {
					if need[plan.OutputName(e)] {
						in[col.Name] = true
					}
					continue
				}
				addCols(in, e)
			}
			visit(x.Input, in)
		case *plan.FilterNode:
			in := maps.Clone(need)
			addCols(in, x.Predicates...)
			visit(x.Input, in)
		case *plan.SortNode:
			in := maps.Clone(need)
			for _, k := range x.Keys {
				if _, isCol := plan.Unalias(k.Expr).(*plan.Column); !isCol {
					addCols(in, k.Expr)
				}
			}
			visit(x.Input, in)
		case *plan.JoinNode:
			ls, rs := x.Left.Schema(), x.Right.Schema()
			left, right := map[string]bool{}, map[string]bool{}
			for _, f := range ls.Fields() {
				if need[f.Name] || rs.Index(f.Name) >= 0 {
					left[f.Name] = true
				}
			}
			for _, f := range rs.Fields() {
				if need[f.Name] || ls.Index(f.Name) >= 0 {
					right[f.Name] = true
				}
			}
			addCols(left, x.LeftOn...)
			addCols(right, x.RightOn...)
			if x.Residual != nil {
				addCols(left, x.Residual)
				addCols(right, x.Residual)
			}
			visit(x.Left, left)
			visit(x.Right, right)
		case *plan.AggregateNode:
			in := map[string]bool{}
			addCols(in, x.Keys...)
			addCols(in, x.Aggs...)
			visit(x.Input, in)
		case *plan.WithColumnsNode:
			in := maps.Clone(need)
			for _, e := range x.Exprs {
				delete(in, plan.OutputName(e))
			}
			addCols(in, x.Exprs...)
			visit(x.Input, in)
		default:
			for _, ch := range n.Children() {
				visit(ch, all(ch))
			}
		}
	}
	visit(root, all(root))
	return marked
}

// keyFilter is the filter on column to of the distinct non-null values of
// column from of f, ok false when there are too many of them (or the
// column cannot be read: the join then reports what it does).
func (c *collector) keyFilter(f *step.Frame, from, to string) (KeyFilter, bool) {
	a, err := c.env.ColumnValues(f, from)
	if err != nil {
		return KeyFilter{}, false
	}
	defer a.Release()
	keys := make([]int64, 0, a.Len()-a.NullN())
	switch a := a.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if a.IsValid(i) {
				keys = append(keys, v)
			}
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			if a.IsValid(i) {
				keys = append(keys, int64(v))
			}
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			if a.IsValid(i) {
				keys = append(keys, int64(v))
			}
		}
	default:
		return KeyFilter{}, false
	}
	keys = sortedDistinct(keys)
	if len(keys) > maxFilterKeys {
		return KeyFilter{}, false
	}
	return KeyFilter{Column: to, Keys: slices.Clip(keys)}, true
}

// sortedDistinct returns keys sorted ascending without duplicates, in
// place. Keys whose span is at most 64 times their count (a join's order
// or customer keys) are set in a bitmap over the span and read back in
// order, which costs a pass over the keys and one over span/64 words
// instead of a sort.
func sortedDistinct(keys []int64) []int64 {
	if len(keys) < 256 {
		slices.Sort(keys)
		return slices.Compact(keys)
	}
	lo, hi := slices.Min(keys), slices.Max(keys)
	span := uint64(hi) - uint64(lo) // hi - lo, exact as unsigned
	if span/64 > uint64(len(keys)) {
		slices.Sort(keys)
		return slices.Compact(keys)
	}
	bits := make([]uint64, span/64+1)
	for _, k := range keys {
		d := uint64(k) - uint64(lo)
		bits[d/64] |= 1 << (d % 64)
	}
	keys = keys[:0]
	for w, word := range bits {
		for ; word != 0; word &= word - 1 {
			keys = append(keys, int64(uint64(lo)+uint64(w)*64+uint64(mbits.TrailingZeros64(word))))
		}
	}
	return keys
}
