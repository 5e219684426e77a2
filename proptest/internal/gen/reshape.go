package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The reshape template: hstack, merge_sorted and unpivot
// (docs/semantics.md), the shapes their cells are about.
//
//	filter(a > 1) . hstack(S, rename(S))                    (pp.hstack stops it)
//	limit 2 . hstack(S, rename(slice(1, -1) . S))           (lp.hstack stops it)
//	limit 2 . merge_sorted(sort(S), sort(S'))               (lp.merge_sorted stops it)
//	project(k, value) . unpivot(on=[a, b]) . S              (pr.unpivot narrows S)
//	filter(a > 0) . unpivot(on=[a, b], value_name=a) . S    (pp.unpivot stops it)
//	filter(k > 0) . unpivot(on=[a, b], index=[k]) . S       (pp.unpivot lets it cross)
//
// An hstack's second input is mostly the first one's subplan again
// (equal heights), sometimes under a limit, a slice dropping its first
// rows or another subplan (unequal: invalid_input; a limit over it copied
// into both inputs would equalize the heights and hide the error). A
// merge_sorted's inputs are mostly sorted on the key, sometimes not
// (invalid_input), and its right input is sometimes a filter of the
// left's subplan, which keeps the filter's column when pruned
// (pr.merge_sorted's counterexample). An unpivot's value column is
// sometimes named like one of its on columns, so that a conjunct on it
// could be expressed below, where it reads the input column instead.

// reshape builds one of the reshaping nodes over subplans within depth
// levels, half the time under a node reading it: a projection reading
// some of its columns (pr.hstack, pr.unpivot, pr.merge_sorted), a limit
// (lp.hstack, lp.merge_sorted) or, over an unpivot, a filter
// (pp.unpivot).
func (g *gen) reshape(depth int) frame {
	wrap := depth >= 3 && g.r.Intn(2) == 0
	// over: the node over it reads rows (a limit or a filter) rather
	// than columns.
	over := wrap && g.r.Intn(2) == 0
	d := depth
	if wrap {
		d--
	}
	var out frame
	switch g.r.Intn(3) {
	case 0:
		out = g.hstack(d)
	case 1:
		out = g.mergeSorted(d)
	default:
		// Under a filter, the value column is named like an on column
		// half the time (pp.unpivot's counterexample).
		out = g.unpivotOf(g.node(d-1), over && g.r.Intn(2) == 0)
	}
	if !wrap {
		return out
	}
	if over {
		switch out.raw.(type) {
		case *plan.HStackNode, *plan.MergeSortedNode:
			return g.finish(&plan.LimitNode{Input: out.raw, N: reshapeLimits[g.r.Intn(len(reshapeLimits))]}, out.rows, out)
		case *plan.UnpivotNode:
			return g.unpivotFilter(out)
		}
	}
	var keep []plan.Expr
	for _, f := range out.schema().Fields() {
		if len(keep) == 0 || g.r.Intn(3) == 0 {
			keep = append(keep, col(f.Name))
		}
	}
	return g.finish(&plan.ProjectNode{Input: out.raw, Exprs: keep}, out.rows, out)
}

// reshapeLimits are the limits put over an hstack or a merge_sorted: small
// ones, which its inputs' heights exceed.
var reshapeLimits = []int64{0, 1, 1, 2, 3}

// unpivotFilter filters the unpivot u on its value column (refused: above
// it holds every on column's values in turn), its variable column, or an
// index column (a copy of an input column: the conjunct crosses).
func (g *gen) unpivotFilter(u frame) frame {
	n := u.raw.(*plan.UnpivotNode)
	fields := u.schema().Fields()
	value, variable := fields[len(fields)-1], fields[len(fields)-2]
	var pred plan.Expr
	switch x := g.r.Intn(10); {
	case x < 5:
		switch g.r.Intn(3) {
		case 0:
			pred = call(plan.FuncIsNull, col(value.Name))
		case 1:
			if value.Type.IsNumeric() {
				pred = call(cmpFuncs[g.r.Intn(len(cmpFuncs))], col(value.Name), lit(zeroValue(value.Type)))
			}
		}
		if pred == nil {
			pred = g.colLitComparison(ectx{sc: scopeOf([]plan.Field{value}), mode: extTotal})
		}
	case x < 6:
		pred = call(plan.FuncEq, col(variable.Name), lit(plan.StringValue(n.On[0])))
	default:
		if len(fields) > 2 {
			pred = g.colLitComparison(ectx{sc: scopeOf(fields[:len(fields)-2]), mode: extTotal})
		} else {
			pred = call(plan.FuncIsNotNull, col(value.Name))
		}
	}
	if pred == nil {
		return u
	}
	return g.finish(&plan.FilterNode{Input: u.raw, Predicates: []plan.Expr{pred}}, u.rows, u)
}

// hstack puts a subplan beside a renamed copy of it (or of another one).
func (g *gen) hstack(depth int) frame {
	in := g.node(depth - 3) // project . limit below the hstack
	if depth < 2 {
		return in
	}
	left := in
	if g.r.Intn(2) == 0 {
		var keep []plan.Expr
		for _, f := range in.schema().Fields() {
			if len(keep) == 0 || g.r.Intn(2) == 0 {
				keep = append(keep, col(f.Name))
			}
		}
		left = g.finish(&plan.ProjectNode{Input: in.raw, Exprs: keep}, in.rows, in)
	}
	other := in
	switch x := g.r.Intn(10); {
	case depth < 3:
	case x == 6:
		// Its first rows dropped: one or two rows fewer than the left.
		off := 1 + int64(g.r.Intn(2))
		other = g.finish(&plan.SliceNode{Input: in.raw, Offset: off, Len: -1}, max(0, in.rows-int(off)), in)
	case x == 7 || x == 8:
		other = g.limit(in)
	case x == 9:
		other = g.node(depth - 3)
	}
	used := map[string]bool{}
	for _, name := range left.schema().Names() {
		used[name] = true
	}
	var exprs []plan.Expr
	for _, f := range other.schema().Fields() {
		if len(exprs) > 0 && g.r.Intn(2) == 0 {
			continue
		}
		name := g.freshName(used, newScope(other.schema()))
		used[name] = true
		exprs = append(exprs, &plan.Alias{Expr: col(f.Name), Name: name})
	}
	right := g.finish(&plan.ProjectNode{Input: other.raw, Exprs: exprs}, other.rows, other)
	if right.raw == other.raw {
		return left
	}
	return g.finish(&plan.HStackNode{Inputs: []plan.Node{left.raw, right.raw}}, min(left.rows, right.rows), left, right)
}

// mergeSorted merges a subplan sorted on a key with itself or a filter of
// it, sorted too most of the time.
func (g *gen) mergeSorted(depth int) frame {
	in := g.node(depth - 3) // sort . filter below the merge
	if depth < 2 {
		return in
	}
	var keys []string
	for _, f := range in.schema().Fields() {
		if plan.MergeKeyType(f.Type) {
			keys = append(keys, f.Name)
		}
	}
	if len(keys) == 0 {
		return in
	}
	key := keys[g.r.Intn(len(keys))]
	sorted := func(f frame) frame {
		switch x := g.r.Intn(10); {
		case x < 8:
			return g.finish(&plan.SortNode{Input: f.raw, Keys: []plan.SortKey{{Expr: col(key)}}}, f.rows, f)
		case x == 8:
			return g.finish(&plan.SortNode{Input: f.raw, Keys: []plan.SortKey{{Expr: col(key), Desc: true}}}, f.rows, f)
		}
		return f // unsorted, most likely
	}
	left := sorted(in)
	other := in
	if depth >= 3 && g.r.Intn(3) == 0 {
		other = g.filter(in)
	}
	right := sorted(other)
	return g.finish(&plan.MergeSortedNode{Left: left.raw, Right: right.raw, Key: key}, left.rows+right.rows, left, right)
}

// unpivot turns one to three columns of one type of in into rows (a
// quarter of the time two or three numbers of any types, promoted), with a
// default or drawn index and, sometimes, names of its own.
func (g *gen) unpivot(in frame) frame { return g.unpivotOf(in, false) }

// unpivotOf is unpivot; with shadow, it turns two or three columns into
// rows when in has them, and names its value column like the first of
// them (which the output does not hold otherwise): a conjunct on the
// value column is then expressible below the unpivot, where it reads that
// one input column.
func (g *gen) unpivotOf(in frame, shadow bool) frame {
	fields := in.schema().Fields()
	if len(fields) == 0 {
		return in
	}
	t := fields[g.r.Intn(len(fields))].Type
	var same, rest []string
	for _, f := range fields {
		if f.Type == t {
			same = append(same, f.Name)
		} else {
			rest = append(rest, f.Name)
		}
	}
	g.r.Shuffle(len(same), func(i, j int) { same[i], same[j] = same[j], same[i] })
	k := 1 + g.r.Intn(min(3, len(same)))
	if shadow && len(same) >= 2 {
		k = 2 + g.r.Intn(min(2, len(same)-1))
	}
	on := same[:k]
	rest = append(rest, same[k:]...)
	if g.r.Intn(4) == 0 {
		// Numbers of several types: promoted to their common type.
		var nums, other []string
		for _, f := range fields {
			if f.Type.IsNumeric() {
				nums = append(nums, f.Name)
			} else {
				other = append(other, f.Name)
			}
		}
		if len(nums) >= 2 {
			g.r.Shuffle(len(nums), func(i, j int) { nums[i], nums[j] = nums[j], nums[i] })
			k = 2 + g.r.Intn(min(2, len(nums)-1))
			on, rest = nums[:k], append(other, nums[k:]...)
		}
	}
	n := &plan.UnpivotNode{Input: in.raw, On: on}
	if g.r.Intn(2) == 0 {
		n.Index = []string{}
		for _, c := range rest {
			if g.r.Intn(2) == 0 {
				n.Index = append(n.Index, c)
			}
		}
	}
	if shadow || g.r.Intn(3) == 0 {
		sc := newScope(in.schema())
		n.VariableName = g.freshName(nil, sc)
		n.ValueName = g.freshName(map[string]bool{n.VariableName: true}, sc)
		if shadow {
			n.ValueName = on[0]
		}
	}
	return g.finish(n, in.rows*k, in)
}
