package plan

import "strings"

// FactsAnalysis carries the facts sources state (FactsReporter) through a
// plan: what is known, at the output of a node, of the non-null values of
// one of its columns, and from which scans' facts it derives. A column
// keeps its interval through the nodes that keep its values (filter, sort,
// limit, slice, distinct, a window's input columns; a filter could narrow
// it but need not), a projection's column reference keeps it and a
// computed column gets its expression's interval (Prove), a union's column
// is the hull of its inputs', and a join's columns keep their side's (the
// nulls an outer join adds have no value to bound). Aggregates and
// extensions bound nothing. A scan's column comes from the scan's own
// assumption about it when it has one (ScanNode.Assumes, which every
// evaluation checks), else from its source's facts.
//
// Answers are computed on demand and remembered per node and column where
// a walk starts and ends, so that asking about one column from every node
// of a chain costs time linear in the chain. A
// column defined through more than maxFactsDepth nested definitions (a
// computed column of a computed column ...) is unknown: the walk keeps its
// stack bounded. The zero value is not ready: use NewFactsAnalysis. It is
// not safe for concurrent use.
type FactsAnalysis struct {
	memo  map[factsKey]Interval
	depth int
}

type factsKey struct {
	n    Node
	name string
}

// maxFactsDepth bounds the nesting of column definitions a FactsAnalysis
// follows.
const maxFactsDepth = 64

// NewFactsAnalysis returns an empty FactsAnalysis.
func NewFactsAnalysis() *FactsAnalysis { return &FactsAnalysis{memo: map[factsKey]Interval{}} }

// Column returns what is known of column name at the output of the
// resolved node n.
func (a *FactsAnalysis) Column(n Node, name string) Interval {
	// Walk down through the nodes that pass the column on unchanged,
	// iteratively, then remember the answer for every node on the way.
	var path []Node
	var iv Interval
	for {
		if isNilNode(n) {
			break
		}
		if v, ok := a.memo[factsKey{n, name}]; ok {
			iv = v
			break
		}
		path = append(path, n)
		next := a.passesOn(n, name)
		if next == nil {
			iv = a.defined(n, name)
			break
		}
		n = next
	}
	// Remember the answer where the walk started and where it ended, not
	// at every node it passed: the next question about the same column
	// from a node above stops at the start, and a question about another
	// column gains nothing from entries for this one (writing them all
	// made n questions about n columns defined along a chain of n nodes
	// cost n^2 map entries).
	if len(path) > 0 {
		a.memo[factsKey{path[0], name}] = iv
		a.memo[factsKey{path[len(path)-1], name}] = iv
	}
	return iv
}

// Prove proves e, evaluated over the output of the resolved node in, total
// from the facts known there (plan.Prove).
func (a *FactsAnalysis) Prove(e Expr, in Node) Proof {
	return Prove(e, in.Schema(), func(c string) Interval { return a.Column(in, c) })
}

// passesOn returns the input of n that holds column name unchanged, or nil
// when n defines it (or bounds nothing).
func (a *FactsAnalysis) passesOn(n Node, name string) Node {
	switch n := n.(type) {
	case *FilterNode:
		return n.Input
	case *SortNode:
		return n.Input
	case *LimitNode:
		return n.Input
	case *SliceNode:
		return n.Input
	case *TailNode, *ReverseNode:
		return n.Children()[0]
	case *RowIndexNode:
		if name != n.Name {
			return n.Input
		}
	case *UnnestNode:
		if !n.Unnested(name) {
			return n.Input
		}
	case *ExplodeNode:
		if !n.Exploded(name) {
			return n.Input
		}
	case *DistinctNode:
		return n.Input
	case *WindowNode:
		if _, ok := n.Input.Schema().Lookup(name); ok {
			return n.Input
		}
	case *WithColumnsNode:
		for _, e := range n.Exprs {
			if OutputName(e) == name {
				return nil
			}
		}
		return n.Input
	case *ProjectNode:
		for _, e := range n.Exprs {
			if OutputName(e) == name {
				if c, ok := unalias(e).(*Column); ok {
					if c.Name == name {
						return n.Input
					}
				}
				return nil
			}
		}
	case *JoinNode:
		if _, ok := n.Left.Schema().Lookup(name); ok {
			return n.Left
		}
	case *AsOfJoinNode:
		// Every left row once, unchanged.
		if _, ok := n.Left.Schema().Lookup(name); ok {
			return n.Left
		}
	}
	return nil
}

// unalias strips aliases.
func unalias(e Expr) Expr {
	for {
		a, ok := e.(*Alias)
		if !ok {
			return e
		}
		e = a.Expr
	}
}

// defined returns the interval of column name where n defines it.
func (a *FactsAnalysis) defined(n Node, name string) Interval {
	if a.depth >= maxFactsDepth {
		return Interval{}
	}
	a.depth++
	defer func() { a.depth-- }()
	switch n := n.(type) {
	case *ScanNode:
		if n.Projected && !containsString(n.Columns, name) {
			return Interval{}
		}
		f, ok := n.SourceSchema.Lookup(name)
		if !ok {
			return Interval{}
		}
		for _, as := range n.Assumes {
			// The scan's own assumption (a plan file's, or an earlier
			// run's) is the fact a proof may use of this column: it is
			// the one every evaluation checks, and the range_proofs rule
			// adds no second fact about a column a scan assumes.
			if as.Column == name {
				return factInterval(ColumnFacts{HasRange: true, Min: as.Min, Max: as.Max, NaNFree: as.NaNFree}, f.Type, name, n)
			}
		}
		facts, ok := SourceFacts(n.Source, name)
		if !ok {
			return Interval{}
		}
		return factInterval(facts, f.Type, name, n)
	case *ProjectNode:
		return a.exprInterval(n.Exprs, n.Input, name)
	case *WithColumnsNode:
		return a.exprInterval(n.Exprs, n.Input, name)
	case *UnionNode:
		var iv Interval
		for i, in := range n.Inputs {
			x := a.Column(in, name)
			if !x.Known() {
				return Interval{}
			}
			if i == 0 {
				iv = x
			} else {
				iv = hull(iv, x)
			}
		}
		return iv
	case *JoinNode:
		if n.How == SemiJoin || n.How == AntiJoin {
			return Interval{}
		}
		left, right := n.Left.Schema(), n.Right.Schema()
		dropped := DroppedRightKeys(n)
		if _, ok := right.Lookup(name); ok && !dropped[name] {
			if _, inLeft := left.Lookup(name); !inLeft {
				return a.Column(n.Right, name)
			}
		}
		if suffix := n.EffectiveSuffix(); suffix != "" && strings.HasSuffix(name, suffix) {
			base := strings.TrimSuffix(name, suffix)
			_, inLeft := left.Lookup(base)
			_, inRight := right.Lookup(base)
			if inLeft && inRight && !dropped[base] {
				return a.Column(n.Right, base)
			}
		}
	}
	return Interval{}
}

// exprInterval is the interval of the expression of exprs named name,
// evaluated over in.
func (a *FactsAnalysis) exprInterval(exprs []Expr, in Node, name string) Interval {
	for _, e := range exprs {
		if OutputName(e) == name {
			pr := a.Prove(e, in)
			if pr.Partial && !pr.Total {
				return Interval{}
			}
			return pr.Value
		}
	}
	return Interval{}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
