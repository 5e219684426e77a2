package exec

import (
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
// The filtered input (the probe) is a scan, or a chain of filters over a
// scan, each filter deterministic, without over() and total (plan.Total: its
// conjuncts cannot raise), the scan's source a KeyFilterSource, and no
// node of the chain occurring in the plan elsewhere than inside the
// occurrences of the join (which the memo then shares whole); a filtered
// chain's outputs stay out of the memo (evalProbe). The
// right input is filtered for inner, left, semi and anti joins, with the
// left input evaluated first as always; the left input for inner and semi
// joins, the right input then being evaluated first. When both inputs
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
//     order of the others.
//   - Errors: the filtered side's keys are plain columns (evaluating them
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
// keys), whether anything filters it already, and its source's rows (-1:
// unknown).
type probe struct {
	scan     *plan.ScanNode
	pair     int
	filtered bool
	rows     int64
}

// evalKeyFiltered evaluates join n with a runtime key filter on one of its
// inputs (see above) when n qualifies; ok is false, and nothing evaluated,
// when it does not (the caller evaluates n plainly).
func (c *collector) evalKeyFiltered(n *plan.JoinNode) (out *step.Frame, err error, ok bool) {
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
		set, unset := c.withKeyFilter(rp, left, n.LeftOn[rp.pair], n.RightOn[rp.pair])
		defer unset()
		if right, err = c.evalProbe(n.Right, set); err != nil {
			return nil, err, true
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
		set, unset := c.withKeyFilter(lp, right, n.RightOn[lp.pair], n.LeftOn[lp.pair])
		defer unset()
		if left, err = c.evalProbe(n.Left, set); err != nil {
			return nil, err, true
		}
	}
	if err := c.env.CheckCtx(); err != nil {
		return nil, err, true
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	out, err = step.Eval(c.env, n, []*step.Frame{left, right})
	return out, err, true
}

// withKeyFilter sets the filter of probe p's scan on column to (a key of
// the probe side) from column from of the evaluated input f, when f is
// small enough (set), and returns the function that removes it.
func (c *collector) withKeyFilter(p probe, f *step.Frame, from, to plan.Expr) (set bool, unset func()) {
	if !keyFilterPays(int64(f.NumRows()), p.rows) {
		return false, func() {}
	}
	kf, ok := c.keyFilter(f, from.(*plan.Column).Name, to.(*plan.Column).Name)
	if !ok {
		return false, func() {}
	}
	if c.keyFilters == nil {
		c.keyFilters = map[*plan.ScanNode][]KeyFilter{}
	}
	c.keyFilters[p.scan] = []KeyFilter{kf}
	return true, func() { delete(c.keyFilters, p.scan) }
}

// evalProbe evaluates the probe chain n (filters over a scan; see
// probeChain) like eval, but, when a key filter is set on its scan
// (filtered), without storing its nodes' outputs in the memo: they hold
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
	case *plan.FilterNode:
		var in *step.Frame
		if in, err = c.evalProbe(x.Input, true); err != nil {
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
	if n.NullsEqual || n.Residual != nil || len(n.LeftOn) != len(n.RightOn) {
		return p, false
	}
	input, other := n.Left, n.Right
	on, otherOn := n.LeftOn, n.RightOn
	if right {
		input, other, on, otherOn = n.Right, n.Left, n.RightOn, n.LeftOn
		switch n.How {
		case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
		default:
			return p, false
		}
		if n.Validate != plan.ValidateManyToMany && n.Validate != plan.ValidateOneToMany {
			return p, false
		}
	} else {
		if n.How != plan.InnerJoin && n.How != plan.SemiJoin {
			return p, false
		}
		if n.Validate != plan.ValidateManyToMany && n.Validate != plan.ValidateManyToOne {
			return p, false
		}
	}
	for _, e := range on {
		if _, isCol := e.(*plan.Column); !isCol {
			return p, false // evaluating it might raise on a row a filter drops
		}
	}
	scan, filtered, ok := c.probeChain(n, input)
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
		if ot == it && (ot == plan.Int32 || ot == plan.Int64 || ot == plan.Date) {
			rows, known := plan.SourceRows(scan.Source)
			if !known {
				rows = -1
			}
			return probe{scan: scan, pair: k, filtered: filtered, rows: rows}, true
		}
	}
	return p, false
}

// probeChain returns the scan under n, an input of join j, when n is a
// scan whose source uses key filters, or a chain of filters over one, that
// a key filter may narrow (see above); filtered says whether a filter or
// a pushed conjunct narrows it already. A node of the chain that the memo
// shares must occur in the plan only inside the occurrences of j (as many
// times as j does): then the first occurrence of j evaluated is the only
// one that evaluates it, the others being served from the memo, so keeping
// its filtered output out of the memo serves nothing less.
func (c *collector) probeChain(j *plan.JoinNode, n plan.Node) (scan *plan.ScanNode, filtered, ok bool) {
	jc := 1
	if e := c.memo.entry(j); e != nil {
		jc = e.count
	}
	for {
		if e := c.memo.entry(n); e != nil && e.count != jc {
			return nil, false, false
		}
		switch x := n.(type) {
		case *plan.ScanNode:
			kfs, isKF := x.Source.(KeyFilterSource)
			if !isKF || !usesKeyFilters(kfs) {
				return nil, false, false // the filter would cost its keys and save nothing
			}
			return x, filtered || len(x.Pushed) > 0, true
		case *plan.FilterNode:
			if !plan.IsDeterministicPlan(x) {
				return nil, false, false
			}
			for _, e := range x.Predicates {
				if plan.ContainsOver(e) || !plan.Total(e, x.Input.Schema(), plan.TrustLanguage) {
					return nil, false, false
				}
			}
			filtered, n = true, x.Input
		default:
			return nil, false, false
		}
	}
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
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxFilterKeys {
		return KeyFilter{}, false
	}
	return KeyFilter{Column: to, Keys: slices.Clip(keys)}, true
}
