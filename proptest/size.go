package proptest

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// CaseSize measures a case for reports and for shrinking. Every shrink
// candidate has a strictly smaller Total, which is what makes shrinking
// terminate.
type CaseSize struct {
	// Nodes counts plan nodes, a shared subtree once per occurrence.
	Nodes int
	// Exprs counts expression nodes (and distinct subset names) of all
	// plan nodes, per occurrence.
	Exprs int
	// Rows counts rows over all tables.
	Rows int
	// Columns counts columns over all tables.
	Columns int
	// Tables counts the tables.
	Tables int
	// Complexity scores what shrinking simplifies short of removing it:
	// table cells and literals that are not null (3 for a NaN with a
	// payload, 2 for other values but the zero value, 1 for the zero
	// value), column references (3, so that
	// replacing one by a literal is progress), strict casts, and node
	// parameters off their simplest setting (limit and slice sizes above 1,
	// slice offsets, non-inner joins, suffixes, descending and nulls-last
	// sort keys).
	Complexity int
}

// Total is the sum of all measures.
func (s CaseSize) Total() int {
	return s.Nodes + s.Exprs + s.Rows + s.Columns + s.Tables + s.Complexity
}

// String renders "nodes=5 exprs=12 rows=30 cols=6 tables=2".
func (s CaseSize) String() string {
	return fmt.Sprintf("nodes=%d exprs=%d rows=%d cols=%d tables=%d", s.Nodes, s.Exprs, s.Rows, s.Columns, s.Tables)
}

// Size measures a case.
func Size(c Case) CaseSize {
	s := tablesSize(c.Tables)
	p := planSize(c.Plan)
	s.Nodes, s.Exprs, s.Complexity = p.Nodes, p.Exprs, s.Complexity+p.Complexity
	return s
}

// tablesSize measures the tables alone (Rows, Columns, Tables and the
// cells' Complexity).
func tablesSize(tables []*plan.Table) CaseSize {
	var s CaseSize
	s.Tables = len(tables)
	for _, t := range tables {
		s.Rows += t.Rows()
		s.Columns += t.Schema().Len()
		for i := 0; i < t.Schema().Len(); i++ {
			for _, v := range t.Column(i) {
				s.Complexity += valueComplexity(v)
			}
		}
	}
	return s
}

// planSize measures the plan alone (Nodes, Exprs and the expressions' and
// parameters' Complexity).
func planSize(root plan.Node) CaseSize {
	var s CaseSize
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		if n == nil {
			return
		}
		s.Nodes++
		s.Complexity += paramComplexity(n)
		for _, list := range exprLists(n) {
			for _, e := range list {
				s.Exprs += exprSize(e)
				s.Complexity += exprComplexity(e)
			}
		}
		if d, ok := n.(*plan.DistinctNode); ok {
			s.Exprs += len(d.Subset)
		}
		for _, ch := range n.Children() {
			walk(ch)
		}
	}
	walk(root)
	return s
}

// exprComplexity scores the leaves and casts of an expression.
func exprComplexity(e plan.Expr) int {
	n := 0
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.Literal:
			n += valueComplexity(x.Value)
		case *plan.Column:
			n += 3
		case *plan.Cast:
			if x.Strict {
				n++
			}
		}
		return true
	})
	return n
}

func sizeComplexity(v int64) int {
	switch {
	case v <= 0:
		return 0
	case v == 1:
		return 1
	}
	return 2
}

// paramComplexity scores a node's parameters.
func paramComplexity(n plan.Node) int {
	switch n := n.(type) {
	case *plan.LimitNode:
		return sizeComplexity(n.N)
	case *plan.TailNode:
		return sizeComplexity(n.N)
	case *plan.RowIndexNode:
		return sizeComplexity(n.Offset)
	case *plan.SliceNode:
		c := sizeComplexity(n.Len)
		if n.Len < 0 {
			c = 2 // to the end: no simpler than a long slice
		}
		if n.Offset > 0 {
			c++
		}
		return c
	case *plan.JoinNode:
		c := 0
		if n.How != plan.InnerJoin {
			c++
		}
		if n.Suffix != "" {
			c++
		}
		return c
	case *plan.ScanNode:
		// Each hand-written assumption and a projection count, so that
		// the shrinker's steps dropping them (and then the columns they
		// name) make progress.
		c := len(n.Assumes)
		if n.Projected {
			c++
		}
		return c
	case *plan.SortNode:
		c := 0
		for _, k := range n.Keys {
			if k.Desc {
				c++
			}
			if k.NullsLast {
				c++
			}
		}
		return c
	}
	return 0
}
