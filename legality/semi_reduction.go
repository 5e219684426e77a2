package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleSemiReduction names the rule of package rules whose cells are decided
// here (the sr.* cells): also its flag and file name.
const RuleSemiReduction = "semi_reduction"

// What an inner join whose right input is an aggregate (under filters,
// projections and with_columns that pass its group key column through)
// keyed on that group key shares with the same join whose aggregate reads
// only the rows of the groups the join can match, proved once here so that
// the cells below guard only what differs. Write J = inner(X, R) on p = c,
// R = ... aggregate(T) keys=[e as c, ...], S a subtree of X that supplies
// X's column p (through the inner and cross joins of X, whose output
// values of a column are some of the values the supplying input has), and
// R' = R with the aggregate over semi(T, S) on e = p:
//
//   - rows and order: every row of a group has the group's key, so the semi
//     join keeps all of a group's rows or none, in T's order: the kept
//     groups are R's groups with their rows in their order, in their order
//     of first appearance, so each gets the same aggregates, and R' is R
//     without the groups whose key no S row matches. J pairs an X row only
//     with R rows whose c equals its p; S holds every p value of X, so every
//     R row J pairs is in R', and J over R' yields the same pairs in the
//     same order (each X row, then its matches in R order). Grouping and
//     join keys compare alike (all NaNs equal, -0.0 = +0.0, numeric types
//     in their promoted type: docs/semantics.md, Keys), so a row matches S
//     exactly when its group's key does; a null group matches as the
//     join's nulls_equal says, in both joins;
//   - columns: a semi join outputs T's schema, so R' has R's;
//   - errors: the plan evaluates X, then R; in the new plan S again (it is
//     part of X, which was evaluated first, so a deterministic S yields the
//     same rows and raises nothing X did not: sr.source), then T, the semi
//     join's keys, the aggregate and the nodes above it over fewer rows, so
//     those must be total and deterministic and hold no window (sr.rows).

// ReductionTarget is what SemiReduce needs of a candidate: the join, the
// aggregate's key expression (without its alias) and its input schema, the
// nodes between the join and the aggregate, the aggregate, and the subtree
// S with its column name.
type ReductionTarget struct {
	Join      *plan.JoinNode
	Key       plan.Expr
	Between   []plan.Node
	Aggregate *plan.AggregateNode
	Source    plan.Node
	Column    string
}

// SemiReduce decides whether the aggregate of target may read only the rows
// of the groups target.Source can match: sr.rows (the aggregate's
// keys and aggregates and the expressions of the nodes between it and the
// join are total and deterministic and hold no window) and sr.source (the
// subtree evaluated again is deterministic), in that order.
func (t *Table) SemiReduce(target ReductionTarget) Ruling {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(SRRows, func() (bool, string) {
		agg := target.Aggregate
		if ok, detail := t.firstImmovable(append(append([]plan.Expr(nil), agg.Keys...), agg.Aggs...), agg.Input.Schema()); !ok {
			return false, "the aggregate's " + detail
		}
		for _, n := range target.Between {
			exprs := plan.NodeExprs(n)
			if _, isWindow := n.(*plan.WindowNode); isWindow {
				return false, "a window above the aggregate sees other rows"
			}
			for _, e := range exprs {
				if plan.ContainsOver(e) {
					return false, "`" + e.String() + "` is a window, which sees other rows"
				}
			}
			if ok, detail := t.firstImmovable(exprs, n.Children()[0].Schema()); !ok {
				return false, detail
			}
		}
		return true, ""
	})) {
		return ru
	}
	ru.consult(t.decide(SRSource, func() (bool, string) {
		exprs, ops := plan.Determinism(target.Source)
		if !exprs || !ops {
			return false, "the subtree supplying the key is non-deterministic"
		}
		return true, ""
	}))
	return ru
}
