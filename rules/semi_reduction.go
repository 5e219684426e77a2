package rules

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// semi_reduction lets the aggregate on the right of an inner join keyed on
// its group key read only the rows of the groups the join can match: it
// puts a semi join of the aggregate's input against the subtree of the
// left input that supplies the left key (TPC-H Q17's correlated
// `avg(l_quantity)`, which a SQL front end writes as an aggregate of all of
// lineitem joined afterwards with the few parts the query keeps):
//
//	join inner on=[p_partkey = l_partkey]          join inner on=[p_partkey = l_partkey]
//	  join inner on=[l_partkey = p_partkey]          join inner on=[l_partkey = p_partkey]
//	    scan lineitem                                  scan lineitem
//	    filter [p_brand == ...]               ==>      filter [p_brand == ...]
//	      scan part                                      scan part
//	  aggregate keys=[l_partkey] aggs=[...]           aggregate keys=[l_partkey] aggs=[...]
//	    scan lineitem                                  join semi on=[l_partkey = p_partkey]
//	                                                     scan lineitem
//	                                                     filter [p_brand == ...]
//	                                                       scan part
//
// The subtree is found by following the left key column down through the
// inner and cross joins of the left input (each outputs some of the values
// its supplying input has), so the semi join may keep more groups
// than the join matches, never fewer. A semi join keeps all of a group's
// rows or none, so the kept groups aggregate as before and keep their
// order (legality/semi_reduction.go); the cells guard what meets fewer
// rows (sr.rows) and the subtree evaluated twice (sr.source; the
// executor's memo serves it the second time). The join's right key must
// be a plain column naming a group key of the aggregate, passed through
// filters, projections and with_columns; the join validates nothing. The
// rule resolves what it builds and fails if the schema differs.
//
// Standard tier, after collapse_cross_join and before semi_pushdown, which
// then moves the new semi join down through the inner joins of the
// aggregate's input, and pruning.
func semiReduction() Rule {
	return Rule{
		Name:        FlagSemiReduction,
		Doc:         "makes the aggregate on the right of an inner join keyed on its group key read only the groups the left input can match, through a semi join",
		Tier:        TierStandard,
		Counters:    []CounterDef{{Name: counterReducedAggregates}},
		Verbs:       Verbs{Verb: Verb{Allowed: "reads only the matching groups at", Refused: "reads every group at"}},
		Application: "one aggregate under an inner join given a semi join of its input against the left key's supplier",
		Matches:     []plan.Kind{plan.KindJoin},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			return bottomUpErr(root, func(orig, n plan.Node, path *plan.Path) (plan.Node, error) {
				j, ok := n.(*plan.JoinNode)
				if !ok || j.How != plan.InnerJoin || j.Validate != plan.ValidateManyToMany {
					return n, nil
				}
				return reduceAggregate(c, n, orig.Schema(), path)
			})
		},
	}
}

// FlagSemiReduction is semi_reduction's flag (its name).
const FlagSemiReduction = legality.RuleSemiReduction

// counterReducedAggregates counts the aggregates given a semi join.
const counterReducedAggregates = "reducedAggregates"

// reduceAggregate rewrites the inner join n when one of its key pairs
// reaches a group key of an aggregate on the right and the table allows
// it, returning n otherwise. want is the schema the join must keep.
func reduceAggregate(c *Context, n plan.Node, want plan.Schema, path *plan.Path) (plan.Node, error) {
	res, err := plan.Resolve(n)
	if err != nil {
		return nil, fmt.Errorf("semi_reduction: the join at %s does not resolve: %w", path, err)
	}
	j := res.(*plan.JoinNode)
	for i := range j.LeftOn {
		lc, lok := j.LeftOn[i].(*plan.Column)
		rc, rok := j.RightOn[i].(*plan.Column)
		if !lok || !rok {
			continue
		}
		between, agg, key := groupKeyBelow(j.Right, rc.Name)
		if agg == nil {
			continue
		}
		src, name := keySupplier(j.Left, lc.Name)
		if s, ok := agg.Input.(*plan.JoinNode); ok && s.How == plan.SemiJoin && plan.Equal(s.Right, src) {
			continue // reduced already (a second run)
		}
		target := legality.ReductionTarget{Join: j, Key: key, Between: between, Aggregate: agg, Source: src, Column: name}
		ru := c.table.SemiReduce(target)
		ru = c.budgetedRuling(ru, j, path, nil, nil)
		c.ruling(ru, c.nextItem(), j, path, nil, nil)
		if !ru.Allowed {
			continue
		}
		semi := &plan.JoinNode{Left: agg.Input, Right: src, How: plan.SemiJoin, LeftOn: []plan.Expr{key},
			RightOn: []plan.Expr{&plan.Column{Name: name}}, NullsEqual: j.NullsEqual}
		var top plan.Node = agg.WithChildren([]plan.Node{semi})
		for k := len(between) - 1; k >= 0; k-- {
			top = between[k].WithChildren([]plan.Node{top})
		}
		out, err := plan.Resolve(j.WithChildren([]plan.Node{j.Left, top}))
		if err != nil {
			return nil, fmt.Errorf("semi_reduction: the join at %s does not resolve over the reduced aggregate: %w", path, err)
		}
		if !out.Schema().Equal(want) {
			return nil, fmt.Errorf("semi_reduction: the join at %s has schema %s, was %s", path, out.Schema(), want)
		}
		c.Count(counterReducedAggregates, 1)
		return out, nil
	}
	return n, nil
}

// groupKeyBelow follows the column name down from n through filters,
// with_columns that do not define it and projections that list it as a
// plain column, to an aggregate whose key of that output name it returns
// (its expression without an alias) with the nodes passed; agg is nil when
// the column does not reach one.
func groupKeyBelow(n plan.Node, name string) (between []plan.Node, agg *plan.AggregateNode, key plan.Expr) {
	for {
		switch m := n.(type) {
		case *plan.FilterNode:
		case *plan.WithColumnsNode:
			for _, e := range m.Exprs {
				if plan.OutputName(e) == name {
					return nil, nil, nil
				}
			}
		case *plan.ProjectNode:
			found := false
			for _, e := range m.Exprs {
				if col, ok := e.(*plan.Column); ok && col.Name == name {
					found = true
				}
			}
			if !found {
				return nil, nil, nil
			}
		case *plan.AggregateNode:
			for i, k := range m.Keys {
				if m.Schema().Field(i).Name == name {
					if a, ok := k.(*plan.Alias); ok {
						k = a.Expr
					}
					return between, m, k
				}
			}
			return nil, nil, nil
		default:
			return nil, nil, nil
		}
		between = append(between, n)
		n = n.Children()[0]
	}
}

// keySupplier follows the column name down from n through inner and cross
// joins (to the input whose column it is, by the join's layout), returning
// the node reached and the column's name there: every value the column has
// in n's output, it has there. It stops at anything else — a filter or a
// semi join keeps S as selective as it is — and descends the joins so that
// S is not a join of the left input evaluated a second time (pruning
// narrows the copy, so the memo would not serve it).
func keySupplier(n plan.Node, name string) (plan.Node, string) {
	for {
		j, ok := n.(*plan.JoinNode)
		if !ok {
			return n, name
		}
		if j.How != plan.InnerJoin && j.How != plan.CrossJoin {
			return n, name // a semi or anti join filters: keep it in S
		}
		layout, ok := plan.LayoutOf(j)
		i := j.Schema().Index(name)
		if !ok || i < 0 || i >= len(layout.Columns) {
			return n, name
		}
		col := layout.Columns[i]
		in := j.Left
		if col.Side == plan.SideRight {
			in = j.Right
		}
		n, name = in, in.Schema().Field(col.Ordinal).Name
	}
}
