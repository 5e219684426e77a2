package rules

import (
	"math"
	"strconv"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// limit_pushdown (standard tier) makes a limit cheaper without changing
// which rows it keeps:
//
//	limit 10                     project [a, b + 1 as c]
//	  project [a, b + 1 as c]      limit 10
//	    scan t              ==>      scan t max_rows=10
//
//	limit 10                     sort [a desc] limit=10
//	  sort [a desc]         ==>    scan t
//	    scan t
//
// A limit (or a slice, as the limit of its offset + len rows, which stays
// where it is) moves below each project and with_columns whose expressions
// are all deterministic (lp.deterministic) and total over the node's input
// (lp.project, lp.with_columns: plan.Total trusting declared-total UDFs),
// which map rows one for one, and then, where it lands:
//
//   - over a sort, folds into it as a top-k sort (lp.sort, arm top_k): the
//     sort keeps only the first rows of its order, and a limit above it
//     goes (a slice stays);
//   - over a union, puts a limit of the same rows into every input and
//     stays above (lp.union, arm union_limits); each new limit is pushed on
//     into its input the same way;
//   - over a scan, gives the scan a max-rows hint (lp.scan, arm
//     scan_max_rows) when no pushed conjunct needs the rows past it, and
//     stays above to enforce it;
//   - at any other node it stops, refused by that node's barrier cell
//     (lp.filter, lp.aggregate, lp.join, lp.distinct, lp.window — also a
//     project or with_columns owning a window —, lp.extension, lp.limit),
//     closed world (lp.unknown).
//
// A limit whose input provably yields no more rows than it keeps (a limit
// or slice below it, through projections, or a top-k sort) changes nothing
// and is left alone, so a second run finds nothing to do. The rule is
// local: it sees each limit and slice over its already rewritten input,
// bottom-up, and walks down from it in a loop.
func limitPushdown() Rule {
	return Rule{
		Name: FlagLimitPushdown,
		Doc:  "moves limits below total projections, folds them into sorts (top-k), copies them into union inputs and gives scans a max-rows hint",
		Arms: []string{FlagTopK, FlagUnionLimits, FlagScanMaxRows},
		Tier: TierStandard,
		Counters: []CounterDef{{Name: counterPushedLimits}, {Name: counterTopKSorts}, {Name: counterUnionLimits},
			{Name: counterScanMaxRows}},
		Verbs: Verbs{Verb: Verb{Allowed: "pushed below", Refused: "stopped at"},
			Kinds: map[plan.Kind]Verb{
				plan.KindSort:  {Allowed: "folded into", Refused: "not folded into"},
				plan.KindUnion: {Allowed: "copied into the inputs of", Refused: "not copied into the inputs of"},
				plan.KindScan:  {Allowed: "given as a max-rows hint to", Refused: "not given as a max-rows hint to"},
			}},
		Application: "one limit or slice moving below one project or with_columns, one limit folded into a sort, " +
			"one limit copied into the inputs of one union, one scan given a max-rows hint",
		Matches: []plan.Kind{plan.KindLimit, plan.KindSlice},
		Local: func(c *Context, n plan.Node, at *plan.Path) (plan.Node, error) {
			return (&limits{Context: c}).rewrite(n, at), nil
		},
	}
}

// limit_pushdown's flags: its name and its arms.
const (
	FlagLimitPushdown = legality.RuleLimitPushdown
	// FlagTopK gates folding a limit into the sort below it (a top-k sort).
	FlagTopK = "top_k"
	// FlagUnionLimits gates copying a limit into the inputs of a union.
	FlagUnionLimits = "union_limits"
	// FlagScanMaxRows gates giving a scan a max-rows hint.
	FlagScanMaxRows = "scan_max_rows"
)

// limit_pushdown's counters (docs/counters.md).
const (
	counterPushedLimits = "pushedLimits"
	counterTopKSorts    = "topKSorts"
	counterUnionLimits  = "unionLimits"
	counterScanMaxRows  = "scanMaxRows"
)

type limits struct{ *Context }

// keeps returns how many rows the limit or slice n keeps from the top of
// its input (a slice: offset + len, saturating), and its input.
func keeps(n plan.Node) (int64, plan.Node, bool) {
	switch n := n.(type) {
	case *plan.LimitNode:
		return n.N, n.Input, true
	case *plan.SliceNode:
		if n.Len < 0 {
			return 0, nil, false // to the end: it keeps no prefix of its input
		}
		if n.Offset > math.MaxInt64-n.Len {
			return math.MaxInt64, n.Input, true // no input holds that many rows
		}
		return n.Offset + n.Len, n.Input, true
	}
	return 0, nil, false
}

// rowBound returns an upper bound of the rows n yields, when one is known
// from n's own nodes: a limit, a slice or a top-k sort, through project and
// with_columns nodes. A scan's max-rows hint is no bound: a source may
// return more.
func rowBound(n plan.Node) (int64, bool) {
	for {
		switch x := n.(type) {
		case *plan.LimitNode:
			b, ok := rowBound(x.Input)
			if ok && b < x.N {
				return b, true
			}
			return x.N, true
		case *plan.SliceNode:
			if x.Len < 0 {
				n = x.Input // to the end: bounded by its input only
				continue
			}
			return x.Len, true
		case *plan.SortNode:
			if x.HasLimit {
				return x.Limit, true
			}
			n = x.Input
		case *plan.ProjectNode:
			n = x.Input
		case *plan.WithColumnsNode:
			n = x.Input
		case *plan.WindowNode:
			n = x.Input
		default:
			return 0, false
		}
	}
}

// describe renders a limit or slice for trace details: "limit 10", or
// "slice offset=2 len=3 (5 rows)".
func describe(n plan.Node, rows int64) string {
	if _, ok := n.(*plan.SliceNode); ok {
		return n.Label() + " (" + strconv.FormatInt(rows, 10) + " rows)"
	}
	return n.Label()
}

// rewrite pushes the limit or slice top as far down as the cells allow and
// returns its replacement (top itself when nothing changed).
func (l *limits) rewrite(top plan.Node, at *plan.Path) plan.Node {
	rows, in, ok := keeps(top)
	if !ok {
		return top
	}
	if b, bounded := rowBound(in); bounded && b <= rows {
		return top // the input never has more rows: nothing to gain
	}
	out := l.sink(top, rows, in, at.Input(top, 0))
	if out == nil {
		return top
	}
	return out
}

// sink puts top (a limit or slice keeping rows rows) as far down into in,
// its input at path, as the cells allow, and returns what replaces top
// over in, or nil when nothing changed. It walks down through the nodes a
// limit crosses in a loop, then lands.
func (l *limits) sink(top plan.Node, rows int64, in plan.Node, path *plan.Path) plan.Node {
	var crossed []plan.Node // the nodes the limit went below, top first
	subject := describe(top, rows)
	cur, curPath := in, path
	var landed plan.Node
walk:
	for {
		ru := l.table.LimitPast(cur)
		switch cur.(type) {
		case *plan.SortNode:
			landed = l.topK(top, rows, cur.(*plan.SortNode), ru, curPath, subject)
			break walk
		case *plan.UnionNode:
			landed = l.intoInputs(top, rows, cur, ru, curPath, subject, FlagUnionLimits)
			break walk
		case *plan.JoinNode, *plan.HStackNode, *plan.MergeSortedNode:
			// Barriers (lp.join, lp.hstack, lp.merge_sorted); a mutant
			// copies the limit into every input.
			landed = l.intoInputs(top, rows, cur, ru, curPath, subject, "")
			break walk
		case *plan.AsOfJoinNode:
			landed = l.intoLeft(top, rows, cur.(*plan.AsOfJoinNode), ru, curPath, subject)
			break walk
		case *plan.ScanNode:
			landed = l.hint(top, rows, cur.(*plan.ScanNode), ru, curPath, subject)
			break walk
		case *plan.ExtensionNode:
			if len(cur.Children()) != 1 {
				landed = l.intoInputs(top, rows, cur, ru, curPath, subject, "")
				break walk
			}
		}
		// Any other node: the limit goes below it when the ruling allows
		// (project and with_columns; a barrier only under a mutant).
		if !l.decide(ru, cur, curPath, subject) {
			break
		}
		if isProjection(cur) {
			l.Count(counterPushedLimits, 1)
		}
		crossed = append(crossed, cur)
		children := cur.Children()
		if w, owns := plan.OwnedWindow(cur); owns {
			// The owner and its window go together (a window stays
			// directly under its owner).
			crossed = append(crossed, w)
			cur, curPath = w.Input, curPath.Input(cur, 0).Input(w, 0)
			continue
		}
		cur, curPath = children[0], curPath.Input(cur, 0)
	}
	if landed == nil {
		if len(crossed) == 0 {
			return nil
		}
		landed = top.WithChildren([]plan.Node{cur})
	}
	for i := len(crossed) - 1; i >= 0; i-- {
		landed = crossed[i].WithChildren([]plan.Node{landed})
	}
	return landed
}

// isProjection reports whether n is a project or with_columns.
func isProjection(n plan.Node) bool {
	switch n.(type) {
	case *plan.ProjectNode, *plan.WithColumnsNode:
		return true
	}
	return false
}

// decide records the ruling of the limit's move at node n (one
// application when allowed) and reports whether it may happen.
func (l *limits) decide(ru legality.Ruling, n plan.Node, path *plan.Path, subject string) bool {
	for i := range ru.Decisions {
		d := &ru.Decisions[i]
		if d.Detail == "" {
			d.Detail = subject
		} else {
			d.Detail = subject + ": " + d.Detail
		}
	}
	ru = l.budgetedRuling(ru, n, path, nil, nil)
	l.ruling(ru, l.nextItem(), n, path, nil, nil)
	return ru.Allowed
}

// armOn reports whether arm is on, and records the entry of a rewrite the
// arm stops at n otherwise.
func (l *limits) armOn(arm string, n plan.Node, path *plan.Path) bool {
	if arm == "" || l.Enabled(arm) {
		return true
	}
	l.recordFlag(arm, l.nextItem(), n, path, nil)
	return false
}

// topK folds the limit into the sort s below it: a limit goes (the top-k
// sort enforces it), a slice stays above the top-k sort of its offset +
// len rows. It returns nil when it is refused.
func (l *limits) topK(top plan.Node, rows int64, s *plan.SortNode, ru legality.Ruling, path *plan.Path, subject string) plan.Node {
	if !l.armOn(FlagTopK, s, path) || !l.decide(ru, s, path, subject) {
		return nil
	}
	l.Count(counterTopKSorts, 1)
	k := rows
	if s.HasLimit && s.Limit < k {
		k = s.Limit
	}
	folded := &plan.SortNode{Input: s.Input, Keys: s.Keys, HasLimit: true, Limit: k}
	if _, isLimit := top.(*plan.LimitNode); isLimit {
		return folded
	}
	return top.WithChildren([]plan.Node{folded})
}

// intoInputs puts a limit of rows rows into every input of the
// multi-input node n (a union; a join or an extension only under a mutant
// of its barrier cell) that may have more rows, pushes each on into its
// input, and keeps top above. It returns nil when it is refused.
func (l *limits) intoInputs(top plan.Node, rows int64, n plan.Node, ru legality.Ruling, path *plan.Path, subject, arm string) plan.Node {
	children := n.Children()
	needs := make([]bool, len(children))
	any := false
	for i, c := range children {
		b, ok := rowBound(c)
		needs[i] = !ok || b > rows
		any = any || needs[i]
	}
	if !any {
		return nil // every input is already bounded: nothing to copy
	}
	if !l.armOn(arm, n, path) || !l.decide(ru, n, path, subject) {
		return nil
	}
	inputs := make([]plan.Node, len(children))
	copied := 0
	for i, c := range children {
		inputs[i] = c
		if !needs[i] {
			continue
		}
		lim := &plan.LimitNode{Input: c, N: rows}
		pushed := l.sink(lim, rows, c, path.Input(n, i))
		if pushed == nil {
			pushed = lim
		}
		inputs[i] = pushed
		copied++
	}
	if _, union := n.(*plan.UnionNode); union {
		l.Count(counterUnionLimits, copied)
	}
	return top.WithChildren([]plan.Node{n.WithChildren(inputs)})
}

// hint gives the scan s below the limit a max-rows hint of rows (the limit
// stays above to enforce it). It returns nil when it is refused or the
// scan already has a hint no larger.
func (l *limits) hint(top plan.Node, rows int64, s *plan.ScanNode, ru legality.Ruling, path *plan.Path, subject string) plan.Node {
	if s.HasMaxRows && s.MaxRows <= rows {
		return nil
	}
	if !l.armOn(FlagScanMaxRows, s, path) || !l.decide(ru, s, path, subject) {
		return nil
	}
	l.Count(counterScanMaxRows, 1)
	hinted := s.WithChildren(nil).(*plan.ScanNode)
	hinted.HasMaxRows, hinted.MaxRows = true, rows
	return top.WithChildren([]plan.Node{hinted})
}

// intoLeft puts a limit of rows rows into the left input of the as-of
// join n (lp.asof_join: its output is its left rows one for one), pushes
// it on into that input, and keeps top above. It returns nil when it is
// refused or the left input is already bounded.
func (l *limits) intoLeft(top plan.Node, rows int64, n *plan.AsOfJoinNode, ru legality.Ruling, path *plan.Path, subject string) plan.Node {
	if b, ok := rowBound(n.Left); ok && b <= rows {
		return nil
	}
	if !l.decide(ru, n, path, subject) {
		return nil
	}
	lim := &plan.LimitNode{Input: n.Left, N: rows}
	pushed := l.sink(lim, rows, n.Left, path.Input(n, 0))
	if pushed == nil {
		pushed = lim
	}
	return top.WithChildren([]plan.Node{n.WithChildren([]plan.Node{pushed, n.Right})})
}
