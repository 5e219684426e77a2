package plan

import (
	"math"
	"strconv"
)

// Row bounds: what the sources' row estimates say about how many rows a
// node yields. The standard tier's build_side rule hashes the left input of
// an inner join only when these bounds prove it the smaller one; explain
// shows them. They are exact consequences of the estimates through each
// node's semantics (docs/semantics.md, Operators) — a filter keeps between
// none and all of its input, a limit at most n, an aggregate without keys
// exactly one row — taken as if every estimate were the source's true row
// count. A host's estimate that is wrong makes them wrong too, which can
// cost time but never changes a result: only the choice of a hash table's
// side reads them, and join_order's choice of an order through the point
// estimates built on them (estimate.go).

// RowBounds bounds the rows a node yields: at least Min, and at most Max
// when Bounded. Min is always a true lower bound (0 when nothing is known);
// Max means nothing unless Bounded.
type RowBounds struct {
	Min, Max int64
	Bounded  bool
}

// Exact reports whether the bounds pin the row count: Min == Max.
func (b RowBounds) Exact() bool { return b.Bounded && b.Min == b.Max }

// String renders "12 rows" ("1 row"), "0..64 rows", or "at least 3 rows"
// when there is no upper bound.
func (b RowBounds) String() string {
	switch {
	case !b.Bounded:
		return "at least " + strconv.FormatInt(b.Min, 10) + " rows"
	case b.Min == b.Max && b.Min == 1:
		return "1 row"
	case b.Min == b.Max:
		return strconv.FormatInt(b.Min, 10) + " rows"
	}
	return strconv.FormatInt(b.Min, 10) + ".." + strconv.FormatInt(b.Max, 10) + " rows"
}

// SourceRows asks src for its row estimate (RowCountEstimator), defending
// the optimizer against a misbehaving host: a source without the
// capability, one that panics and one that answers a negative count give
// no estimate.
func SourceRows(src Source) (rows int64, ok bool) {
	e, is := src.(RowCountEstimator)
	if !is {
		return 0, false
	}
	defer func() {
		if recover() != nil {
			rows, ok = 0, false
		}
	}()
	rows, ok = e.EstimatedRows()
	if !ok || rows < 0 {
		return 0, false
	}
	return rows, true
}

// RowEstimates computes the RowBounds of the nodes of a plan, remembering
// each subtree's, so that asking for every join of a plan walks each node
// once, and the point estimates built on them (Estimate, Distinct). The
// zero value is not ready: use NewRowEstimates. It is not safe for
// concurrent use.
type RowEstimates struct {
	memo map[Node]RowBounds
	est  map[Node]float64 // Estimate's point estimates
}

// NewRowEstimates returns an empty RowEstimates.
func NewRowEstimates() *RowEstimates { return &RowEstimates{memo: map[Node]RowBounds{}} }

// Of returns the row bounds of n's output. n need not be resolved. The walk
// keeps its own stack, so a deep plan does not grow the goroutine's.
func (r *RowEstimates) Of(n Node) RowBounds {
	if b, ok := r.memo[n]; ok {
		return b
	}
	type item struct {
		n        Node
		expanded bool
	}
	stack := []item{{n: n}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if _, done := r.memo[top.n]; done || isNilNode(top.n) {
			if !done {
				r.memo[top.n] = RowBounds{}
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if !top.expanded {
			top.expanded = true
			children := top.n.Children()
			for i := len(children) - 1; i >= 0; i-- {
				if _, done := r.memo[children[i]]; !done {
					stack = append(stack, item{n: children[i]})
				}
			}
			continue
		}
		m := top.n
		stack = stack[:len(stack)-1]
		b := r.bounds(m)
		if !b.Bounded {
			b.Max = 0 // meaningless: keep one representation per bound
		}
		r.memo[m] = b
	}
	return r.memo[n]
}

// in returns the bounds of n's i-th input, already computed.
func (r *RowEstimates) in(n Node, i int) RowBounds {
	ch := n.Children()
	if i >= len(ch) {
		return RowBounds{}
	}
	return r.memo[ch[i]]
}

// bounds derives n's bounds from its inputs' (docs/semantics.md decides
// each operator's row count).
func (r *RowEstimates) bounds(n Node) RowBounds {
	switch n := n.(type) {
	case *ScanNode:
		rows, ok := SourceRows(n.Source)
		if !ok {
			return RowBounds{}
		}
		lo := rows
		if len(n.Pushed) > 0 {
			lo = 0 // the source filters (Exact) or may skip rows (Inexact)
		}
		if n.HasMaxRows {
			lo = min(lo, max(n.MaxRows, 0)) // the source may stop there
		}
		return RowBounds{Min: lo, Max: rows, Bounded: true}
	case *FilterNode:
		in := r.in(n, 0)
		return RowBounds{Min: 0, Max: in.Max, Bounded: in.Bounded}
	case *SortNode:
		if n.HasLimit { // a top-k sort keeps at most Limit rows
			return limitBounds(r.in(n, 0), n.Limit)
		}
		return r.in(n, 0)
	case *ProjectNode, *WithColumnsNode, *WindowNode, *GuardNode:
		return r.in(n, 0)
	case *LimitNode:
		return limitBounds(r.in(n, 0), n.N)
	case *TailNode:
		return limitBounds(r.in(n, 0), n.N)
	case *ReverseNode, *RowIndexNode:
		return r.in(n, 0)
	case *SliceNode:
		in := r.in(n, 0)
		off := max(n.Offset, 0)
		if n.Len < 0 { // to the end
			rest := func(rows int64) int64 { return max(rows-off, 0) }
			return RowBounds{Min: rest(in.Min), Max: rest(in.Max), Bounded: in.Bounded}
		}
		length := n.Len
		keep := func(rows int64) int64 { return min(max(rows-off, 0), length) }
		if !in.Bounded {
			return RowBounds{Min: keep(in.Min), Max: length, Bounded: true}
		}
		return RowBounds{Min: keep(in.Min), Max: keep(in.Max), Bounded: true}
	case *AggregateNode:
		if len(n.Keys) == 0 {
			return RowBounds{Min: 1, Max: 1, Bounded: true}
		}
		in := r.in(n, 0)
		return RowBounds{Min: min(in.Min, 1), Max: in.Max, Bounded: in.Bounded}
	case *DistinctNode:
		in := r.in(n, 0)
		return RowBounds{Min: min(in.Min, 1), Max: in.Max, Bounded: in.Bounded}
	case *JoinNode:
		return joinBounds(n.How, r.in(n, 0), r.in(n, 1))
	case *AsOfJoinNode:
		// Every left row exactly once.
		return r.in(n, 0)
	case *TemporalGroupNode:
		if n.Mode == TemporalRolling {
			return r.in(n, 0)
		}
		in := r.in(n, 0)
		return RowBounds{Min: 0, Max: satMul(in.Max, MaxWindowsPerRow+1), Bounded: in.Bounded}
	case *UnionNode:
		out := RowBounds{Bounded: true}
		for i := range n.Inputs {
			in := r.in(n, i)
			out.Min = satAdd(out.Min, in.Min)
			out.Max = satAdd(out.Max, in.Max)
			out.Bounded = out.Bounded && in.Bounded
		}
		return out
	case *ExtensionNode:
		if len(n.Inputs) == 1 && n.Def.Has(RowPreserving) {
			return r.in(n, 0)
		}
	case *HStackNode:
		// Every input has the output's height (or the node raises).
		var out RowBounds
		for i := range n.Inputs {
			in := r.in(n, i)
			out.Min = max(out.Min, in.Min)
			if in.Bounded && (!out.Bounded || in.Max < out.Max) {
				out.Max, out.Bounded = in.Max, true
			}
		}
		if out.Bounded {
			out.Min = min(out.Min, out.Max)
		} else {
			out.Max = 0
		}
		return out
	case *MergeSortedNode:
		l, rr := r.in(n, 0), r.in(n, 1)
		return RowBounds{Min: satAdd(l.Min, rr.Min), Max: satAdd(l.Max, rr.Max), Bounded: l.Bounded && rr.Bounded}
	case *UnnestNode:
		return r.in(n, 0)
	case *ExplodeNode:
		// At least one row per input row; no bound on a list's length.
		return RowBounds{Min: r.in(n, 0).Min}
	case *UnpivotNode:
		in, k := r.in(n, 0), int64(len(n.On))
		return RowBounds{Min: satMul(in.Min, k), Max: satMul(in.Max, k), Bounded: in.Bounded}
	}
	return RowBounds{}
}

// limitBounds bounds the first n rows of an input.
func limitBounds(in RowBounds, n int64) RowBounds {
	k := max(n, 0)
	if !in.Bounded {
		return RowBounds{Min: min(k, in.Min), Max: k, Bounded: true}
	}
	return RowBounds{Min: min(k, in.Min), Max: min(k, in.Max), Bounded: true}
}

// joinBounds bounds a join's output from its inputs' bounds.
func joinBounds(how JoinKind, l, r RowBounds) RowBounds {
	both := l.Bounded && r.Bounded
	switch how {
	case InnerJoin:
		return RowBounds{Min: 0, Max: satMul(l.Max, r.Max), Bounded: both}
	case LeftJoin:
		return RowBounds{Min: l.Min, Max: satMul(l.Max, max(r.Max, 1)), Bounded: both}
	case RightJoin:
		return RowBounds{Min: r.Min, Max: satMul(r.Max, max(l.Max, 1)), Bounded: both}
	case FullJoin:
		return RowBounds{Min: max(l.Min, r.Min), Max: satAdd(satMul(l.Max, r.Max), satAdd(l.Max, r.Max)), Bounded: both}
	case SemiJoin, AntiJoin:
		return RowBounds{Min: 0, Max: l.Max, Bounded: l.Bounded}
	case CrossJoin:
		return RowBounds{Min: satMul(l.Min, r.Min), Max: satMul(l.Max, r.Max), Bounded: both}
	}
	return RowBounds{}
}

// satAdd and satMul add and multiply non-negative counts, saturating at
// math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
