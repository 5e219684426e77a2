package exec

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// Runtime key filters. An equi-join whose left input is small and whose
// right input is a scan evaluates its left input first (as it always does),
// collects the distinct values of one of its left key columns, and hands
// them to the right scan's source (ScanRequest.KeyFilters): a right row
// whose key is null or none of those values matches no left row, so the
// join drops it, and the source may drop it first. A Parquet source then
// decodes the key column, tests it, and decodes its other columns only for
// the rows that pass (exec/parquet's late materialization), so the join
// probes those rows only. This is what other engines call a semi-join or
// dynamic filter.
//
// It is unobservable (docs/semantics.md, join): the join yields the same
// rows, in the same order, with the same values and errors.
//   - Rows: for inner, left, semi and anti joins a right row that matches
//     no left row contributes nothing to the output: it appears in no pair,
//     and only right and full joins output unmatched right rows (those are
//     never filtered). Without nulls_equal a null key matches nothing.
//   - Order: the output order is left order, then right order among a left
//     row's matches; dropping right rows that are in no pair keeps the
//     relative order of the others.
//   - Errors: the right keys are plain columns (evaluating them cannot
//     raise), the join validates no uniqueness of the right input (m:m or
//     1:m only: m:1 and 1:1 check every right row, matched or not), has no
//     residual, and the scan is directly under the join, its rows being
//     its output (no conjunct the executor applies, no guard, no assumption
//     checked over them, no max-rows hint; exec.scan), and is not shared
//     with another part of the plan (memo). The left side's values come
//     from a plain column of the already evaluated left input. A source
//     skips data by the filter the way it skips by an Inexact conjunct: a
//     Parquet chunk of a row group whose rows were all ruled out is not
//     decoded, so a corruption only its decode would find goes unnoticed,
//     as for a row group refuted by statistics.
//   - Keys compare as the join compares them: both key columns have the
//     same integer type (int32, int64 or date), so equality is the values'.

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

// maxFilterKeys bounds the distinct keys a runtime filter carries: past it
// the left input is no longer small and the filter would rarely pay for its
// test.
const maxFilterKeys = 1 << 16

// evalKeyFiltered evaluates join n with a runtime key filter on its right
// scan (see above) when n qualifies; ok is false, and nothing evaluated,
// when it does not (the caller evaluates n plainly).
func (c *collector) evalKeyFiltered(n *plan.JoinNode) (out *step.Frame, err error, ok bool) {
	scan, li, ri, ok := c.keyFilterPair(n)
	if !ok {
		return nil, nil, false
	}
	left, err := c.eval(n.Left)
	if err != nil {
		return nil, err, true
	}
	defer left.Release()
	if kf, ok := c.keyFilter(left, n.Left.Schema().Field(li).Name, n.Right.Schema().Field(ri).Name); ok {
		if c.keyFilters == nil {
			c.keyFilters = map[*plan.ScanNode][]KeyFilter{}
		}
		c.keyFilters[scan] = []KeyFilter{kf}
		defer delete(c.keyFilters, scan)
	}
	right, err := c.eval(n.Right)
	if err != nil {
		return nil, err, true
	}
	defer right.Release()
	if err := c.env.CheckCtx(); err != nil {
		return nil, err, true
	}
	if c.onEval != nil {
		c.onEval(n)
	}
	out, err = step.Eval(c.env, n, []*step.Frame{left, right})
	return out, err, true
}

// keyFilterPair reports whether join n may filter its right input by its
// left keys (see above), and which key pair: the right scan, the left key
// column's position in the left schema and the right one's in the right
// schema.
func (c *collector) keyFilterPair(n *plan.JoinNode) (scan *plan.ScanNode, li, ri int, ok bool) {
	switch n.How {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return nil, 0, 0, false
	}
	if n.NullsEqual || n.Residual != nil || (n.Validate != plan.ValidateManyToMany && n.Validate != plan.ValidateOneToMany) {
		return nil, 0, 0, false
	}
	scan, isScan := n.Right.(*plan.ScanNode)
	if !isScan || c.memo.entry(scan) != nil || len(n.LeftOn) != len(n.RightOn) {
		return nil, 0, 0, false
	}
	if kfs, ok := scan.Source.(KeyFilterSource); !ok || !usesKeyFilters(kfs) {
		return nil, 0, 0, false // the filter would cost its keys and save nothing
	}
	for _, e := range n.RightOn {
		if _, isCol := e.(*plan.Column); !isCol {
			return nil, 0, 0, false // evaluating it might raise on a row a filter drops
		}
	}
	for k, e := range n.LeftOn {
		lc, isCol := e.(*plan.Column)
		if !isCol {
			continue
		}
		rc := n.RightOn[k].(*plan.Column)
		li, ri = n.Left.Schema().Index(lc.Name), n.Right.Schema().Index(rc.Name)
		if li < 0 || ri < 0 {
			continue
		}
		lt, rt := n.Left.Schema().Field(li).Type, n.Right.Schema().Field(ri).Type
		if lt == rt && (lt == plan.Int32 || lt == plan.Int64 || lt == plan.Date) {
			return scan, li, ri, true
		}
	}
	return nil, 0, 0, false
}

// keyFilter is the filter on column rightCol of the distinct non-null
// values of column leftCol of left, ok false when there are too many of
// them (or the column cannot be read: the join then reports what it does).
func (c *collector) keyFilter(left *step.Frame, leftCol, rightCol string) (KeyFilter, bool) {
	if left.NumRows() > 16*maxFilterKeys {
		return KeyFilter{}, false
	}
	a, err := c.env.ColumnValues(left, leftCol)
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
	return KeyFilter{Column: rightCol, Keys: slices.Clip(keys)}, true
}
