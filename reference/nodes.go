package reference

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// collector evaluates one resolved plan. It keeps no memo: every occurrence
// of a subtree is evaluated on its own, in plan order.
type collector struct {
	ctx  context.Context
	opts Options
	// rows is the shared list 0, 1, 2, ... (see iota).
	rows []int
}

// env returns an expression environment over every row of in.
func (c *collector) env(in *Result) *env {
	c.rows = iota(c.rows, in.Rows)
	return &env{ctx: c.ctx, in: in, all: c.rows[:in.Rows]}
}

// node evaluates n (resolved) bottom-up: its children in order, then n.
func (c *collector) node(n plan.Node) (*Result, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	children := n.Children()
	ins := make([]*Result, len(children))
	for i, ch := range children {
		r, err := c.node(ch)
		if err != nil {
			return nil, err
		}
		ins[i] = r
	}
	out, err := c.apply(n, ins)
	if err != nil {
		var pe *plan.Error
		if errors.As(err, &pe) && pe.Node == "" {
			located := *pe
			located.Node = n.Label()
			return nil, &located
		}
		return nil, err
	}
	return out, nil
}

// apply evaluates one node over its evaluated inputs.
func (c *collector) apply(n plan.Node, ins []*Result) (*Result, error) {
	switch n := n.(type) {
	case *plan.ScanNode:
		return c.scan(n)
	case *plan.FilterNode:
		return c.filter(n, ins[0])
	case *plan.ProjectNode:
		return c.project(n, ins[0])
	case *plan.WithColumnsNode:
		return c.withColumns(n, ins[0])
	case *plan.SortNode:
		return c.sort(n, ins[0])
	case *plan.LimitNode:
		return sliceRows(n.Schema(), ins[0], 0, n.N), nil
	case *plan.SliceNode:
		return sliceRows(n.Schema(), ins[0], n.Offset, n.Len), nil
	case *plan.TailNode:
		return tail(n, ins[0]), nil
	case *plan.ReverseNode:
		return reverse(n, ins[0]), nil
	case *plan.RowIndexNode:
		return rowIndex(n, ins[0])
	case *plan.AsOfJoinNode:
		return asofJoin(n, ins[0], ins[1])
	case *plan.TemporalGroupNode:
		return c.temporalGroup(n, ins[0])
	case *plan.HStackNode:
		return hstack(n, ins)
	case *plan.MergeSortedNode:
		return mergeSorted(n, ins[0], ins[1])
	case *plan.UnpivotNode:
		return unpivot(n, ins[0])
	case *plan.UnnestNode:
		return unnest(n, ins[0])
	case *plan.ExplodeNode:
		return explode(n, ins[0])
	case *plan.AggregateNode:
		return c.aggregate(n, ins[0])
	case *plan.JoinNode:
		return c.join(n, ins[0], ins[1])
	case *plan.UnionNode:
		return union(n, ins)
	case *plan.DistinctNode:
		return distinct(n, ins[0])
	case *plan.WindowNode:
		return c.window(n, ins[0])
	case *plan.ExtensionNode:
		return c.extension(n, ins)
	case *plan.GuardNode:
		return c.guard(n, ins[0])
	}
	return nil, fmt.Errorf("%w: unknown node %T", ErrInternal, n)
}

// scan reads the source, checks its assumptions, evaluates its guards
// (dropping their values), applies the Exact pushed conjuncts (each over
// every source row, in list order; Inexact ones are hints the plan keeps in
// a filter above, so every row is read for them) and keeps the projected
// columns. A max-rows hint is ignored: reading every row is always correct
// (docs/semantics.md, scan), and the limit above keeps the first rows.
func (c *collector) scan(n *plan.ScanNode) (*Result, error) {
	src, err := c.read(n)
	if err != nil {
		return nil, err
	}
	if err := checkAssumes(n, src); err != nil {
		return nil, err
	}
	if len(n.Guards) > 0 {
		// The scan's guards: evaluated over every source row, in list
		// order, after the assumptions and before any pushed conjunct, as
		// a guard node directly above the source (docs/semantics.md, scan).
		if _, err := c.exprs(n.Guards, src); err != nil {
			return nil, err
		}
	}
	var exact []plan.Expr
	for _, p := range n.Pushed {
		if p.Support == plan.Exact {
			exact = append(exact, p.Expr)
		}
	}
	if len(exact) > 0 {
		keep, err := c.conjuncts(exact, src)
		if err != nil {
			return nil, err
		}
		src = takeRows(src.Schema, src, keep)
	}
	if !n.Projected {
		return &Result{Schema: n.Schema(), Rows: src.Rows, Columns: src.Columns}, nil
	}
	cols := make([][]plan.Value, len(n.Columns))
	for i, name := range n.Columns {
		j := src.Schema.Index(name)
		if j < 0 {
			return nil, &plan.Error{Kind: plan.UnknownColumn, Expr: name, Row: -1,
				Msg: fmt.Sprintf("reference: the source has no column %q", name)}
		}
		cols[i] = src.Columns[j]
	}
	return &Result{Schema: n.Schema(), Rows: src.Rows, Columns: cols}, nil
}

// read returns every row and column of the scan's source, in source order,
// under the schema the scan captured.
func (c *collector) read(n *plan.ScanNode) (*Result, error) {
	want := n.SourceSchema
	var cols [][]plan.Value
	rows := 0
	switch src := n.Source.(type) {
	case *plan.Table:
		have := src.Schema()
		cols = make([][]plan.Value, want.Len())
		for i := range cols {
			f := want.Field(i)
			j := have.Index(f.Name)
			if j < 0 || have.Field(j).Type != f.Type {
				return nil, &plan.Error{Kind: plan.SourceError, Expr: f.Name, Row: -1,
					Msg: fmt.Sprintf("reference: table %s no longer has the column %s", src.Name(), f)}
			}
			cols[i] = src.Column(j)
		}
		rows = src.Rows()
	default:
		if c.opts.Scan == nil {
			return nil, fmt.Errorf("%w: scan of %s: no Options.Scan for a %T source", ErrUnsupported, n.Label(), n.Source)
		}
		got, err := c.opts.Scan(c.ctx, n.Source, want)
		if err != nil {
			if errors.Is(err, ErrUnsupported) || c.ctx.Err() != nil {
				if c.ctx.Err() != nil {
					return nil, cancelled(c.ctx.Err())
				}
				return nil, err
			}
			return nil, &plan.Error{Kind: plan.SourceError, Row: -1, Msg: "reference: " + err.Error(), Err: err}
		}
		cols = got
		if len(cols) > 0 {
			rows = len(cols[0])
		} else if sized, ok := n.Source.(plan.RowCountEstimator); ok {
			// A source read with no column still has its rows.
			if r, ok := sized.EstimatedRows(); ok {
				rows = int(r)
			}
		}
	}
	res := &Result{Schema: want, Rows: rows, Columns: cols}
	if err := checkResult(res, want, "scan "+n.Label()); err != nil {
		return nil, err
	}
	return res, nil
}

// conjuncts evaluates a filter's conjuncts over every row of in, in list
// order, and returns the rows where all are valid and true.
func (c *collector) conjuncts(preds []plan.Expr, in *Result) ([]int, error) {
	v := c.env(in)
	ok := make([]bool, in.Rows)
	for i := range ok {
		ok[i] = true
	}
	for _, p := range preds {
		vals, err := v.eval(p, v.all)
		if err != nil {
			return nil, err
		}
		for r, x := range vals {
			if x.IsNull() || !x.Bool() {
				ok[r] = false
			}
		}
	}
	keep := make([]int, 0, in.Rows)
	for r, k := range ok {
		if k {
			keep = append(keep, r)
		}
	}
	return keep, nil
}

func (c *collector) filter(n *plan.FilterNode, in *Result) (*Result, error) {
	keep, err := c.conjuncts(n.Predicates, in)
	if err != nil {
		return nil, err
	}
	return takeRows(n.Schema(), in, keep), nil
}

// exprs evaluates expressions over every row of in, in list order.
func (c *collector) exprs(exprs []plan.Expr, in *Result) ([][]plan.Value, error) {
	v := c.env(in)
	out := make([][]plan.Value, len(exprs))
	for i, e := range exprs {
		vals, err := v.eval(e, v.all)
		if err != nil {
			return nil, err
		}
		out[i] = vals
	}
	return out, nil
}

func (c *collector) project(n *plan.ProjectNode, in *Result) (*Result, error) {
	cols, err := c.exprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: cols}, nil
}

// withColumns evaluates every expression over the input (simultaneous
// assignment); an output column a expression names comes from it, any
// other from the input column of that name (the input of an owned window
// has the window's columns too, which the schema does not pass through).
func (c *collector) withColumns(n *plan.WithColumnsNode, in *Result) (*Result, error) {
	vals, err := c.exprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	byName := make(map[string][]plan.Value, len(n.Exprs))
	for i, e := range n.Exprs {
		byName[plan.OutputName(e)] = vals[i]
	}
	s := n.Schema()
	cols := make([][]plan.Value, s.Len())
	for i := range cols {
		name := s.Field(i).Name
		if col, ok := byName[name]; ok {
			cols[i] = col
			continue
		}
		j := in.Schema.Index(name)
		if j < 0 {
			return nil, fmt.Errorf("%w: with_columns: output column %q is neither computed nor in the input", ErrInternal, name)
		}
		cols[i] = in.Columns[j]
	}
	return &Result{Schema: s, Rows: in.Rows, Columns: cols}, nil
}

// sort evaluates the keys over all rows in list order, then orders the
// rows stably: per key ascending or descending, floats by the total order,
// nulls first unless nulls_last (desc does not move nulls). A top-k sort
// keeps the first Limit rows of that order.
func (c *collector) sort(n *plan.SortNode, in *Result) (*Result, error) {
	exprs := make([]plan.Expr, len(n.Keys))
	for i, k := range n.Keys {
		exprs[i] = k.Expr
	}
	keys, err := c.exprs(exprs, in)
	if err != nil {
		return nil, err
	}
	order := make([]int, in.Rows)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		for k, key := range n.Keys {
			x, y := keys[k][a], keys[k][b]
			var cmp int
			switch {
			case x.IsNull() && y.IsNull():
				cmp = 0
			case x.IsNull():
				cmp = -1
				if key.NullsLast {
					cmp = 1
				}
			case y.IsNull():
				cmp = 1
				if key.NullsLast {
					cmp = -1
				}
			default:
				cmp = compareOrdered(x, y)
				if key.Desc {
					cmp = -cmp
				}
			}
			if cmp != 0 {
				return cmp < 0
			}
		}
		return false
	})
	if n.HasLimit && int64(len(order)) > n.Limit {
		// A top-k sort is the sort followed by a limit (docs/semantics.md,
		// sort): the stable order's first Limit rows.
		order = order[:max(n.Limit, 0)]
	}
	return takeRows(n.Schema(), in, order), nil
}

// sliceRows keeps rows [offset, offset+length) of in, clamped to its rows.
func sliceRows(s plan.Schema, in *Result, offset, length int64) *Result {
	n := int64(in.Rows)
	lo := min(max(offset, 0), n)
	hi := n
	if length >= 0 && length < n-lo {
		hi = lo + length
	}
	cols := make([][]plan.Value, len(in.Columns))
	for i, col := range in.Columns {
		cols[i] = col[lo:hi]
	}
	return &Result{Schema: s, Rows: int(hi - lo), Columns: cols}
}

// takeRows gathers the given rows of in, in the given order (sharing in's
// columns when that is every row in order).
func takeRows(s plan.Schema, in *Result, rows []int) *Result {
	if len(rows) == in.Rows && isIdentity(rows) {
		return &Result{Schema: s, Rows: in.Rows, Columns: in.Columns}
	}
	cols := make([][]plan.Value, len(in.Columns))
	for i, col := range in.Columns {
		out := make([]plan.Value, len(rows))
		for k, r := range rows {
			out[k] = col[r]
		}
		cols[i] = out
	}
	return &Result{Schema: s, Rows: len(rows), Columns: cols}
}

// isIdentity reports whether rows is 0, 1, 2, ... in order.
func isIdentity(rows []int) bool {
	for i, r := range rows {
		if r != i {
			return false
		}
	}
	return true
}

// aggCall returns the aggregate call of an aggregate entry or an over():
// the entry without its aliases.
func aggCall(e plan.Expr) (*plan.Call, error) {
	call, ok := plan.Unalias(e).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: "reference: not an aggregate call"}
	}
	return call, nil
}

// reduceGroups evaluates one aggregate's argument over every row of in,
// then reduces each group in order. A failing reduction names the call and
// the first row of the first group that fails.
func (c *collector) reduceGroups(call *plan.Call, in *Result, v *env, groups [][]int) ([]plan.Value, error) {
	var arg []plan.Value
	argType := plan.Invalid
	if len(call.Args) > 0 {
		vals, err := v.eval(call.Args[0], v.all)
		if err != nil {
			return nil, err
		}
		arg, argType = vals, staticType(call.Args[0], in.Schema)
	}
	out := make([]plan.Value, len(groups))
	for g, rows := range groups {
		r, kind := reduce(call, arg, rows, argType)
		if kind != "" {
			row := int64(-1)
			if len(rows) > 0 {
				row = int64(rows[0])
			}
			return nil, evalError(kind, call, row, fmt.Sprintf("reference: %s of a group does not fit its result", call.Fn))
		}
		out[g] = r
	}
	return out, nil
}

// aggregate evaluates every key over all rows in list order, groups the
// rows (first-appearance order; one group, possibly empty, without keys),
// then per aggregate in list order its argument and its reduction.
func (c *collector) aggregate(n *plan.AggregateNode, in *Result) (*Result, error) {
	keys, err := c.exprs(n.Keys, in)
	if err != nil {
		return nil, err
	}
	groups := groupRows(keys, in.Rows)
	if len(n.Keys) == 0 {
		all := make([]int, in.Rows)
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
	}
	cols := make([][]plan.Value, 0, len(n.Keys)+len(n.Aggs))
	for _, k := range keys {
		col := make([]plan.Value, len(groups))
		for g, rows := range groups {
			col[g] = k[rows[0]] // the group's first row's bits
		}
		cols = append(cols, col)
	}
	v := c.env(in)
	for _, a := range n.Aggs {
		call, err := aggCall(a)
		if err != nil {
			return nil, err
		}
		col, err := c.reduceGroups(call, in, v, groups)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return &Result{Schema: n.Schema(), Rows: len(groups), Columns: cols}, nil
}

// window computes each over() in list order: its aggregate's argument over
// all rows, its partition keys over all rows in list order, then the
// reduction per partition, broadcast to the partition's rows.
func (c *collector) window(n *plan.WindowNode, in *Result) (*Result, error) {
	cols := append([][]plan.Value(nil), in.Columns...)
	v := c.env(in)
	for _, e := range n.Exprs {
		over, ok := plan.Unalias(e).(*plan.Over)
		if !ok {
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: "reference: a window entry that is not an over()"}
		}
		if wc, ok := plan.Unalias(over.Agg).(*plan.Call); ok && wc.Fn.IsWindow() {
			col, err := c.windowFunc(over, wc, in, v)
			if err != nil {
				return nil, err
			}
			cols = append(cols, col)
			continue
		}
		call, err := aggCall(over.Agg)
		if err != nil {
			return nil, err
		}
		var arg []plan.Value
		argType := plan.Invalid
		if len(call.Args) > 0 {
			if arg, err = evalPE(v, call.Args[0]); err != nil {
				return nil, err
			}
			argType = staticType(call.Args[0], in.Schema)
		}
		keys := make([][]plan.Value, len(over.PartitionBy))
		for i, k := range over.PartitionBy {
			if keys[i], err = evalPE(v, k); err != nil {
				return nil, err
			}
		}
		parts := groupRows(keys, in.Rows)
		col := make([]plan.Value, in.Rows)
		for _, rows := range parts {
			r, kind := reduce(call, arg, rows, argType)
			if kind != "" {
				return nil, evalError(kind, call, int64(rows[0]), fmt.Sprintf("reference: %s of a partition does not fit its result", call.Fn))
			}
			for _, row := range rows {
				col[row] = r
			}
		}
		cols = append(cols, col)
	}
	return &Result{Schema: n.Schema(), Rows: in.Rows, Columns: cols}, nil
}

// evalPE evaluates e over all rows, as an error interface value.
func evalPE(v *env, e plan.Expr) ([]plan.Value, error) {
	vals, err := v.eval(e, v.all)
	if err != nil {
		return nil, err
	}
	return vals, nil
}

// join evaluates the left keys over the left rows (list order), then the
// right keys over the right rows, checks validate (left, then right), and
// pairs rows whose keys are all equal in their promoted types (a null key
// matches nothing, or, under nulls_equal, a null key), in the order
// docs/semantics.md gives for each kind; a semi or anti join with a
// residual counts a key-matched pair only where the residual is true.
func (c *collector) join(n *plan.JoinNode, left, right *Result) (*Result, error) {
	lk, err := c.exprs(n.LeftOn, left)
	if err != nil {
		return nil, err
	}
	rk, err := c.exprs(n.RightOn, right)
	if err != nil {
		return nil, err
	}
	types := make([]plan.Type, len(n.LeftOn))
	for i := range types {
		types[i] = promoteType(staticType(n.LeftOn[i], left.Schema), staticType(n.RightOn[i], right.Schema))
	}
	// encode writes a row's key tuple, in the promoted types, into buf; it
	// reports false when the row has no key (a null key without
	// nulls_equal: the row matches nothing). Each part is tagged, so that
	// under nulls_equal a null is a value of its own.
	var buf []byte
	encode := func(keys [][]plan.Value, r int) bool {
		buf = buf[:0]
		for i, k := range keys {
			x := k[r]
			if x.IsNull() {
				if !n.NullsEqual {
					return false
				}
				buf = append(buf, 0)
				continue
			}
			buf = append(buf, 1)
			buf = appendKey(buf, promote(x, types[i]))
		}
		return true
	}
	// validate: a side asserted unique whose rows repeat a key.
	check := func(side string, keys [][]plan.Value, rows int, exprs []plan.Expr) error {
		seen := map[string]int{}
		for r := 0; r < rows; r++ {
			if !encode(keys, r) {
				continue
			}
			first, dup := seen[string(buf)]
			if !dup {
				seen[string(buf)] = r
				continue
			}
			texts := make([]string, len(exprs))
			for i, x := range exprs {
				texts[i] = plan.Written(x)
			}
			return &plan.Error{Kind: plan.ValidationError, Expr: strings.Join(texts, ", "), Row: int64(r),
				Msg: fmt.Sprintf("join validate %s: the %s input repeats on row %d the key of row %d", n.Validate, side, r, first)}
		}
		return nil
	}
	if n.Validate == plan.ValidateOneToOne || n.Validate == plan.ValidateOneToMany {
		if err := check("left", lk, left.Rows, n.LeftOn); err != nil {
			return nil, err
		}
	}
	if n.Validate == plan.ValidateOneToOne || n.Validate == plan.ValidateManyToOne {
		if err := check("right", rk, right.Rows, n.RightOn); err != nil {
			return nil, err
		}
	}
	// index lists the rows of one side by key, each list in that side's
	// order.
	index := func(keys [][]plan.Value, rows int) map[string][]int {
		m := map[string][]int{}
		for r := 0; r < rows; r++ {
			if encode(keys, r) {
				m[string(buf)] = append(m[string(buf)], r)
			}
		}
		return m
	}
	var rightOf, leftOf func(int) []int // the matches of one row
	if n.How == plan.CrossJoin {
		all := make([]int, right.Rows)
		for i := range all {
			all[i] = i
		}
		rightOf = func(int) []int { return all }
	} else {
		byRight := index(rk, right.Rows)
		rightOf = func(l int) []int {
			if encode(lk, l) {
				return byRight[string(buf)]
			}
			return nil
		}
		if n.How == plan.RightJoin {
			byLeft := index(lk, left.Rows)
			leftOf = func(r int) []int {
				if encode(rk, r) {
					return byLeft[string(buf)]
				}
				return nil
			}
		}
	}
	if n.Residual != nil {
		if rightOf, err = c.residualMatches(n, left, right, rightOf); err != nil {
			return nil, err
		}
	}
	li := make([]int, 0, max(left.Rows, right.Rows)) // pairs; -1 is the null side
	ri := make([]int, 0, cap(li))
	pair := func(l, r int) {
		li = append(li, l)
		ri = append(ri, r)
	}
	if err := c.pairs(n.How, left.Rows, right.Rows, rightOf, leftOf, pair); err != nil {
		return nil, err
	}
	gather := func(col []plan.Value, idx []int, t plan.Type) []plan.Value {
		out := make([]plan.Value, len(idx))
		for k, r := range idx {
			if r < 0 {
				out[k] = plan.NullValue(t)
			} else {
				out[k] = col[r]
			}
		}
		return out
	}
	// Output columns (docs/semantics.md, join options): a mergeable key
	// pair — two plain columns of one name — is merged unless the join
	// keeps it (keep; auto on a full join). Merged, an inner or left join
	// keeps the left column, a right join the right one, a full join puts
	// in the left's place the left value or, where the row has no left
	// row, the right value in the compare type. Semi and anti keep the
	// left columns only.
	merges := n.Coalesce == plan.CoalesceMerge || (n.Coalesce == plan.CoalesceAuto && n.How != plan.FullJoin)
	leftMerged, rightMerged := map[string]plan.Type{}, map[string]bool{}
	if merges && n.How != plan.CrossJoin {
		for i := range n.LeftOn {
			l, lok := n.LeftOn[i].(*plan.Column)
			r, rok := n.RightOn[i].(*plan.Column)
			if lok && rok && l.Name == r.Name {
				if _, done := leftMerged[l.Name]; !done {
					leftMerged[l.Name] = types[i]
				}
				rightMerged[r.Name] = true
			}
		}
	}
	s := n.Schema()
	cols := make([][]plan.Value, 0, s.Len())
	for j, col := range left.Columns {
		name := left.Schema.Field(j).Name
		t, merged := leftMerged[name]
		switch {
		case merged && n.How == plan.RightJoin:
			continue
		case merged && n.How == plan.FullJoin:
			rj := right.Schema.Index(name)
			out := make([]plan.Value, len(li))
			for k := range li {
				if li[k] >= 0 {
					out[k] = promote(col[li[k]], t)
				} else {
					out[k] = promote(right.Columns[rj][ri[k]], t)
				}
			}
			cols = append(cols, out)
		default:
			cols = append(cols, gather(col, li, left.Schema.Field(j).Type))
		}
	}
	if n.How != plan.SemiJoin && n.How != plan.AntiJoin {
		for j := 0; j < right.Schema.Len(); j++ {
			if rightMerged[right.Schema.Field(j).Name] && n.How != plan.RightJoin {
				continue
			}
			cols = append(cols, gather(right.Columns[j], ri, right.Schema.Field(j).Type))
		}
	}
	if s.Len() != len(cols) {
		return nil, fmt.Errorf("%w: join: %d columns for the schema %s", ErrInternal, len(cols), s)
	}
	return &Result{Schema: s, Rows: len(li), Columns: cols}, nil
}

// residualMatches evaluates a semi or anti join's residual over every
// key-matched pair (left rows in order, each with its matches in right
// order) under the pair schema — the left columns, then the right ones, a
// right name that is a left name suffixed — and returns the matches that
// count: the pairs where it is true.
func (c *collector) residualMatches(n *plan.JoinNode, left, right *Result, rightOf func(int) []int) (func(int) []int, error) {
	suffix := n.Suffix
	if suffix == "" {
		suffix = plan.DefaultJoinSuffix
	}
	fields := left.Schema.Fields()
	for _, f := range right.Schema.Fields() {
		if left.Schema.Index(f.Name) >= 0 {
			f.Name += suffix
		}
		fields = append(fields, f)
	}
	ps, err := plan.NewSchema(fields...)
	if err != nil {
		return nil, fmt.Errorf("%w: join residual: %v", ErrInternal, err)
	}
	var pl, pr []int
	for l := 0; l < left.Rows; l++ {
		for _, r := range rightOf(l) {
			pl, pr = append(pl, l), append(pr, r)
		}
	}
	cols := make([][]plan.Value, 0, len(fields))
	for _, col := range left.Columns {
		out := make([]plan.Value, len(pl))
		for k, l := range pl {
			out[k] = col[l]
		}
		cols = append(cols, out)
	}
	for _, col := range right.Columns {
		out := make([]plan.Value, len(pr))
		for k, r := range pr {
			out[k] = col[r]
		}
		cols = append(cols, out)
	}
	vals, err := c.exprs([]plan.Expr{n.Residual}, &Result{Schema: ps, Rows: len(pl), Columns: cols})
	if err != nil {
		return nil, err
	}
	counted := make([][]int, left.Rows)
	for k, v := range vals[0] {
		if !v.IsNull() && v.Bool() {
			counted[pl[k]] = append(counted[pl[k]], pr[k])
		}
	}
	return func(l int) []int { return counted[l] }, nil
}

// pairs emits the (left, right) row pairs of a join in output order;
// rightOf gives a left row's matching right rows in right order, leftOf (a
// right join's) a right row's matching left rows in left order.
func (c *collector) pairs(how plan.JoinKind, leftRows, rightRows int, rightOf, leftOf func(int) []int, pair func(l, r int)) error {
	switch how {
	case plan.InnerJoin, plan.CrossJoin:
		for l := 0; l < leftRows; l++ {
			if l&255 == 255 && c.ctx.Err() != nil {
				return cancelled(c.ctx.Err())
			}
			for _, r := range rightOf(l) {
				pair(l, r)
			}
		}
	case plan.LeftJoin, plan.FullJoin:
		matched := make([]bool, rightRows)
		for l := 0; l < leftRows; l++ {
			m := rightOf(l)
			if len(m) == 0 {
				pair(l, -1)
			}
			for _, r := range m {
				pair(l, r)
				matched[r] = true
			}
		}
		if how == plan.FullJoin {
			for r, ok := range matched {
				if !ok {
					pair(-1, r)
				}
			}
		}
	case plan.RightJoin:
		for r := 0; r < rightRows; r++ {
			m := leftOf(r)
			if len(m) == 0 {
				pair(-1, r)
			}
			for _, l := range m {
				pair(l, r)
			}
		}
	case plan.SemiJoin, plan.AntiJoin:
		for l := 0; l < leftRows; l++ {
			if (len(rightOf(l)) > 0) == (how == plan.SemiJoin) {
				pair(l, -1)
			}
		}
	default:
		return fmt.Errorf("%w: join kind %s", ErrInternal, how)
	}
	return nil
}

// union concatenates its inputs in order.
func union(n *plan.UnionNode, ins []*Result) (*Result, error) {
	s := n.Schema()
	rows := 0
	for _, in := range ins {
		if len(in.Columns) != s.Len() && !n.Diagonal {
			return nil, fmt.Errorf("%w: union: an input with %d columns for the schema %s", ErrInternal, len(in.Columns), s)
		}
		rows += in.Rows
	}
	cols := make([][]plan.Value, s.Len())
	for i := range cols {
		cols[i] = make([]plan.Value, 0, rows)
		for _, in := range ins {
			if !n.Diagonal {
				cols[i] = append(cols[i], in.Columns[i]...)
				continue
			}
			// A diagonal union takes each column by name; an input
			// without it gives nulls.
			f := s.Field(i)
			if j := in.Schema.Index(f.Name); j >= 0 {
				cols[i] = append(cols[i], in.Columns[j]...)
				continue
			}
			for r := 0; r < in.Rows; r++ {
				cols[i] = append(cols[i], plan.NullValue(f.Type))
			}
		}
	}
	return &Result{Schema: s, Rows: rows, Columns: cols}, nil
}

// distinct keeps the first row of each key (the subset's columns, or all
// columns), in input order.
func distinct(n *plan.DistinctNode, in *Result) (*Result, error) {
	var keys [][]plan.Value
	if len(n.Subset) == 0 {
		keys = in.Columns
	} else {
		for _, name := range n.Subset {
			j := in.Schema.Index(name)
			if j < 0 {
				return nil, &plan.Error{Kind: plan.UnknownColumn, Expr: name, Row: -1, Msg: "reference: distinct: no such column"}
			}
			keys = append(keys, in.Columns[j])
		}
	}
	groups := groupRows(keys, in.Rows)
	first := make([]int, len(groups))
	for g, rows := range groups {
		first[g] = rows[0]
	}
	return takeRows(n.Schema(), in, first), nil
}
