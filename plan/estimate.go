package plan

// Point estimates: a guess of how many rows a node yields and how many
// distinct values a column holds, for a cost heuristic (the standard tier's
// join_order picks the order of a chain of joins by them). Unlike the row
// bounds they prove nothing: a filter keeps a default fraction of its input
// by the shape of its conjuncts (an equality 1/25, a range a third), a
// column's distinct values are its rows unless the source states a narrower
// integer range. Every estimate lies within the node's row bounds. A wrong
// estimate can cost time but never changes a result: nothing that decides
// a value reads them.

// defaultRows is the estimate of a node whose row count nothing bounds.
const defaultRows = 1000

// Estimate returns a point estimate of the rows n yields: at least the row
// bounds' Min and at most their Max when bounded.
func (r *RowEstimates) Estimate(n Node) float64 {
	if r.est == nil {
		r.est = map[Node]float64{}
	}
	if e, ok := r.est[n]; ok {
		return e
	}
	b := r.Of(n) // computes every descendant's bounds first
	e := r.guess(n, b)
	if e < float64(b.Min) {
		e = float64(b.Min)
	}
	if b.Bounded && e > float64(b.Max) {
		e = float64(b.Max)
	}
	r.est[n] = e
	return e
}

// guess estimates n's rows before clamping to its bounds b. The recursion
// follows the plan's depth, which Resolve bounds.
func (r *RowEstimates) guess(n Node, b RowBounds) float64 {
	unbounded := func() float64 {
		if b.Bounded {
			return float64(b.Max)
		}
		return max(float64(b.Min), defaultRows)
	}
	switch n := n.(type) {
	case *ScanNode:
		if !b.Bounded {
			return unbounded()
		}
		e := float64(b.Max)
		for _, p := range n.Pushed {
			if p.Support == Exact {
				e *= Selectivity(p.Expr)
			}
		}
		return max(e, min(float64(b.Max), 1))
	case *FilterNode:
		in := r.Estimate(n.Input)
		e := in
		for _, p := range n.Predicates {
			e *= Selectivity(p)
		}
		return max(e, min(in, 1)) // a filter is written to keep something
	case *ProjectNode, *WithColumnsNode, *SortNode, *WindowNode, *GuardNode, *ReverseNode, *RowIndexNode,
		*LimitNode, *TailNode, *SliceNode, *AsOfJoinNode, *UnnestNode:
		if len(n.Children()) == 0 {
			return unbounded()
		}
		return r.Estimate(n.Children()[0]) // the bounds clamp limits and slices
	case *AggregateNode:
		return r.Estimate(n.Input) / 10
	case *DistinctNode:
		return r.Estimate(n.Input) / 10
	case *JoinNode:
		l, rr := r.Estimate(n.Left), r.Estimate(n.Right)
		switch n.How {
		case CrossJoin:
			return l * rr
		case SemiJoin:
			return min(l, rr) // at most one left row per right row, as a key
		case AntiJoin:
			return l / 2
		case LeftJoin:
			return l
		case RightJoin:
			return rr
		}
		return max(l, rr)
	}
	return unbounded()
}

// Selectivity guesses the fraction of rows on which the predicate e holds:
// 1/25 for an equality, 9/10 for an inequality, 1/3 for a range
// comparison, 1/4 for between, k/25 for an is_in of k values (at most 1),
// the product for and, the union of independent events for or, the
// complement for not, and 1/3 for anything else.
func Selectivity(e Expr) float64 {
	c, ok := e.(*Call)
	if !ok {
		return 1.0 / 3
	}
	switch c.Fn {
	case FuncEq:
		return 0.04
	case FuncNe:
		return 0.9
	case FuncLt, FuncLe, FuncGt, FuncGe:
		return 1.0 / 3
	case FuncBetween:
		return 0.25
	case FuncIsIn:
		return min(float64(max(len(c.Args)-1, 1))/25, 1)
	case FuncIsNull:
		return 0.1
	case FuncIsNotNull:
		return 0.9
	case FuncAnd:
		s := 1.0
		for _, a := range c.Args {
			s *= Selectivity(a)
		}
		return s
	case FuncOr:
		s := 0.0
		for _, a := range c.Args {
			t := Selectivity(a)
			s = s + t - s*t
		}
		return s
	case FuncNot:
		if len(c.Args) == 1 {
			return 1 - Selectivity(c.Args[0])
		}
	}
	return 1.0 / 3
}

// Distinct returns a point estimate of the distinct non-null values of the
// column named column in n's output: at most n's estimated rows (and at
// least 1); a scan's column holds as many as its rows unless the source
// states an integer range narrower than that (FactsReporter); filters,
// sorts, limits and row numbering keep their input's guess (capped by
// their rows), as do semi and anti joins for their left input's columns;
// a project or with_columns follows a plain column or an alias of one. Any other column is guessed to hold as many values as rows.
func (r *RowEstimates) Distinct(n Node, column string) float64 {
	return r.distinct(n, column, true)
}

// BaseDistinct is Distinct before any filter: the distinct values of the
// column in the scan it comes from, not capped by the rows that the
// filters, limits and joins between keep. A join of a foreign key to its
// key (lineitem's l_orderkey to orders' o_orderkey) has the foreign key's
// values among the key's, so they are at most the key's base distinct
// values, however many rows the key's input keeps.
func (r *RowEstimates) BaseDistinct(n Node, column string) float64 {
	return r.distinct(n, column, false)
}

// distinct implements Distinct (capped) and BaseDistinct.
func (r *RowEstimates) distinct(n Node, column string, capped bool) float64 {
	rows := max(r.Estimate(n), 1)
	if !capped {
		rows = max(float64(r.Of(n).Max), rows)
		if !r.Of(n).Bounded {
			rows = max(rows, defaultRows)
		}
	}
	d := rows
	switch n := n.(type) {
	case *ScanNode:
		if f, ok := SourceFacts(n.Source, column); ok && f.HasRange && f.Min.Type().IsInteger() && !f.Min.IsNull() && !f.Max.IsNull() {
			if span := float64(f.Max.Int()) - float64(f.Min.Int()) + 1; span >= 1 && span < d {
				d = span
			}
		}
	case *FilterNode, *SortNode, *LimitNode, *TailNode, *SliceNode, *ReverseNode, *GuardNode:
		d = r.distinct(n.Children()[0], column, capped)
	case *JoinNode:
		if n.How == SemiJoin || n.How == AntiJoin {
			d = r.distinct(n.Left, column, capped)
		}
	case *RowIndexNode:
		if column != n.Name {
			d = r.distinct(n.Input, column, capped)
		}
	case *ProjectNode:
		if src, ok := passedColumn(n.Exprs, column); ok {
			d = r.distinct(n.Input, src, capped)
		}
	case *WithColumnsNode:
		if src, ok := passedColumn(n.Exprs, column); ok {
			d = r.distinct(n.Input, src, capped)
		} else if !assigns(n.Exprs, column) {
			d = r.distinct(n.Input, column, capped)
		}
	}
	return max(min(d, rows), 1)
}

// passedColumn returns the input column an expression of es named column
// copies: a plain column of that name or an alias of a plain column.
func passedColumn(es []Expr, column string) (string, bool) {
	for _, e := range es {
		switch e := e.(type) {
		case *Column:
			if e.Name == column {
				return e.Name, true
			}
		case *Alias:
			if e.Name != column {
				continue
			}
			if c, ok := e.Expr.(*Column); ok {
				return c.Name, true
			}
			return "", false
		}
	}
	return "", false
}

// assigns reports whether some expression of es names its output column.
func assigns(es []Expr, column string) bool {
	for _, e := range es {
		if OutputName(e) == column {
			return true
		}
	}
	return false
}
