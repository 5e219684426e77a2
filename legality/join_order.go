package legality

import (
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// RuleJoinOrder names the rule of package rules whose cells are decided
// here (the jo.* cells): also its flag and file name.
const RuleJoinOrder = "join_order"

// What a left-deep chain of inner and cross joins and its reordering share,
// proved once here so the cells below guard only what differs. The chain
// joins inputs T1..Tn, each join plain (no option: auto coalesce, no
// nulls_equal, no validate, no residual, no build mark) and keyed on plain
// column references (or `k as k`), which the rule checks before it asks:
//
//   - rows: a row of the chain is a tuple (r1, ..., rn) of input rows on
//     which every key pair of every join holds; each key pair equates a
//     column of one input with a column of another, compared as the join
//     compares keys (a symmetric relation: all NaNs equal, -0.0 = +0.0, a
//     null matching nothing, numeric types in their promoted type, which
//     plan.JoinKeyType computes either way round), so the set of tuples is
//     the conjunction of the pairs whatever order joins them. The rewrite
//     checks every pair at the join of its later input unless the pairs
//     checked before imply it, and may add a pair the others imply:
//     between two columns that a path of pairs connects, all of one type. Within one type the key equality is an
//     equivalence on non-null values, so on every tuple where the path's
//     pairs hold (its columns non-null) the added pair holds too, and the
//     set of tuples does not change. Across types it is not (int64 2^53 + 1
//     equals float64 2^53 in float64, which equals int64 2^53, but the two
//     int64s differ), so no pair is implied through a column of another
//     type;
//   - order: an inner join yields left rows in left order each followed by
//     its matches in right order, a cross join every left row in order
//     paired with every right row in order (docs/semantics.md), so the
//     chain yields its tuples in lexicographic order of (index in T1, ...,
//     index in Tn). The rewrite numbers each input's rows (row_index),
//     joins them in another order and sorts by the n indexes: the tuples
//     are distinct, so the sort restores exactly that order;
//   - values and schema: every column is copied from its input row; the
//     rewrite renames each input's columns to their output names (so no
//     suffix and no merged key applies in the new chain) and a project
//     restores the chain's columns, names and order;
//   - errors: column keys raise nothing; the row_index numbering from 0
//     cannot pass 2^63 - 1 rows; a sort on non-null int64 keys raises
//     nothing. What can differ is the inputs' own evaluation: a join
//     evaluates both inputs (left first) whatever their rows, so the chain
//     evaluates every input, in written order, and the reordered chain
//     every input in its new order. Two inputs that may raise could raise
//     another error first (jo.errors); two that call non-deterministic
//     functions would see the per-collect counter in another order
//     (jo.deterministic).

// JoinOrder decides whether the inputs of a left-deep chain of plain inner
// and cross joins may be joined in another order: jo.deterministic (at most
// one input calls a non-deterministic expression or operator) then
// jo.errors (at most one input may raise, MayRaise under the table's
// totality). Details name the inputs by their position in the chain (1 is
// the leftmost).
func (t *Table) JoinOrder(inputs []plan.Node) Ruling {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(JODeterministic, func() (bool, string) {
		first := 0
		for i, in := range inputs {
			if plan.IsDeterministicPlan(in) {
				continue
			}
			if first != 0 {
				return false, "inputs " + strconv.Itoa(first) + " and " + strconv.Itoa(i+1) + " are non-deterministic"
			}
			first = i + 1
		}
		return true, ""
	})) {
		return ru
	}
	ru.consult(t.decide(JOErrors, func() (bool, string) {
		first := 0
		for i, in := range inputs {
			if !t.MayRaise(in) {
				continue
			}
			if first != 0 {
				return false, "inputs " + strconv.Itoa(first) + " and " + strconv.Itoa(i+1) + " may raise"
			}
			first = i + 1
		}
		return true, ""
	}))
	return ru
}

// MayRaise reports whether evaluating the subtree n may raise an error, as
// far as the table proves: false only for scans without assumptions or
// guards whose pushed conjuncts are total, and for filters, projects and
// with_columns nodes of total expressions (under the table's totality)
// and limits over such subtrees. Every other node may raise (a conservative answer).
func (t *Table) MayRaise(n plan.Node) bool {
	t = t.orDefault()
	switch n := n.(type) {
	case *plan.ScanNode:
		if len(n.Assumes) > 0 || len(n.Guards) > 0 {
			return true
		}
		for _, p := range n.Pushed {
			if !t.Total(p.Expr, n.SourceSchema) {
				return true
			}
		}
		return false
	case *plan.FilterNode:
		return t.anyPartial(n.Predicates, n.Input.Schema()) || t.MayRaise(n.Input)
	case *plan.ProjectNode:
		return t.anyPartial(n.Exprs, n.Input.Schema()) || t.MayRaise(n.Input)
	case *plan.WithColumnsNode:
		return t.anyPartial(n.Exprs, n.Input.Schema()) || t.MayRaise(n.Input)
	case *plan.LimitNode:
		return t.MayRaise(n.Input)
	}
	return true
}

// anyPartial reports whether some expression of es is not total over in.
func (t *Table) anyPartial(es []plan.Expr, in plan.Schema) bool {
	for _, e := range es {
		if !t.Total(e, in) {
			return true
		}
	}
	return false
}

// JoinReduce decides whether an input of a reordered chain may be numbered
// after a semi join against another input of the chain, reducer, on key
// pairs of the chain between the two (jo.reduce). Every tuple of the chain
// holds a row of the input whose key columns match those of the tuple's
// reducer row, so the semi join keeps every row some tuple holds, in
// order; row_index then numbers the kept rows in their order, so the
// numbers order the tuples as before and the sort restores the same
// order; the numbers themselves are dropped by the final project. The
// semi join compares its keys as the chain's join does (the same pairs,
// nulls matching nothing). What differs is that reducer is evaluated a
// second time, where the reduced input is: it must be deterministic (the
// same rows both times) and raise nothing (no error at another place).
func (t *Table) JoinReduce(reducer plan.Node) Ruling {
	t = t.orDefault()
	var ru Ruling
	ru.consult(t.decide(JOReduce, func() (bool, string) {
		if !plan.IsDeterministicPlan(reducer) {
			return false, "the reducing input is non-deterministic"
		}
		if t.MayRaise(reducer) {
			return false, "the reducing input may raise"
		}
		return true, ""
	}))
	return ru
}
