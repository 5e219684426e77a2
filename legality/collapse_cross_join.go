package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleCollapseCrossJoin names the rule of package rules whose cells are
// decided here (the ccj.* cells): also its flag and file name.
const RuleCollapseCrossJoin = "collapse_cross_join"

// What a filter over a cross join and the inner join that replaces it
// share, proved once here so the cells below guard only what differs:
//
//   - rows: the filter keeps the pairs on which every conjunct is true;
//     `l = r` is true exactly when both sides are valid and equal in the
//     type = compares them in, which is the type the join compares its
//     keys in (plan.JoinKeyType: the same promotion, int32 with int64 as
//     int64), and a null key matches nothing, as a null makes = null. For
//     int32, int64, string and bool keys equality is the same relation;
//     float64 is not (ccj.float);
//   - order: the cross join yields every left row in order paired with
//     every right row in order, and the filter keeps that order; the inner
//     join yields left rows in order each followed by its matches in right
//     order: the same pairs in the same order;
//   - values: key expressions read only their side's columns and hold no
//     window or aggregate (a filter's conjuncts cannot), so a deterministic
//     one computes for a pair what it computes for that pair's row
//     (ccj.deterministic);
//   - errors: the filter evaluates each side of each equality over every
//     pair (over nothing when either input is empty), the join each key
//     over its side's rows, left keys before right keys; only total keys
//     raise nothing either way (ccj.total), and the conjuncts left above
//     meet only the matching pairs (ccj.rest);
//   - schema: the join's columns are the cross join's when no key pair
//     makes plan.DroppedRightKeys drop a right column (ccj.key_column).

// CollapseKey decides whether the conjunct `l = r` of a filter over a cross
// join, l reading only columns of the left input and r only columns of the
// right input (under the right input's names), may become a key pair of
// the inner join that replaces the cross join: ccj.deterministic (both
// sides deterministic), ccj.total (both total over their input) and
// ccj.float (they do not compare as float64), in that order. The ruling's
// last decision is the refusing one when it refuses. Details name the
// sides as written (plan.Written: a renamed right column as the cross
// join's k_right).
func (t *Table) CollapseKey(l, r plan.Expr, left, right plan.Schema) Ruling {
	t = t.orDefault()
	var ru Ruling
	if !ru.consult(t.decide(CCJDeterministic, func() (bool, string) {
		for _, e := range []plan.Expr{l, r} {
			if !plan.IsDeterministic(e) {
				return false, "`" + plan.Written(e) + "` is non-deterministic"
			}
		}
		return true, ""
	})) {
		return ru
	}
	if !ru.consult(t.decide(CCJTotal, func() (bool, string) {
		if !plan.Total(l, left, plan.TrustDeclared) {
			return false, "`" + plan.Written(l) + "` is partial"
		}
		if !plan.Total(r, right, plan.TrustDeclared) {
			return false, "`" + plan.Written(r) + "` is partial"
		}
		return true, ""
	})) {
		return ru
	}
	ru.consult(t.decide(CCJFloat, func() (bool, string) {
		lt, lerr := plan.TypeOf(l, left)
		rt, rerr := plan.TypeOf(r, right)
		if lerr != nil || rerr != nil {
			return false, "a side does not type over its input"
		}
		kt, ok := plan.JoinKeyType(lt.Type, rt.Type)
		switch {
		case !ok:
			return false, "the sides do not compare"
		case kt.IsFloat():
			return false, "they compare as " + kt.String()
		}
		return true, "they compare as " + kt.String()
	}))
	return ru
}

// CollapseKeyColumn decides whether an accepted key pair may be written as
// it stands (ccj.key_column): not when both sides are plain columns of one
// name, since plan.DroppedRightKeys would then drop the right column from
// the inner join's output, which the cross join keeps (suffixed). A
// refused pair is written with its right key as an alias of itself
// (`k as k`), which the join keeps.
func (t *Table) CollapseKeyColumn(l, r plan.Expr) Decision {
	return t.orDefault().decide(CCJKeyColumn, func() (bool, string) {
		lc, lok := l.(*plan.Column)
		rc, rok := r.(*plan.Column)
		if lok && rok && lc.Name == rc.Name {
			return false, "the inner join would drop the right column " + rc.String()
		}
		return true, ""
	})
}

// CollapseRest decides whether the filter's other conjuncts may stay above
// the inner join (ccj.rest), where they meet only the pairs the keys
// match instead of the whole cross product: each must be total (plan.Total,
// declared-total UDFs trusted, over the cross join's schema in) and
// deterministic. With none left the condition holds.
func (t *Table) CollapseRest(rest []plan.Expr, in plan.Schema) Decision {
	return t.orDefault().decide(CCJRest, func() (bool, string) {
		for _, e := range rest {
			if !plan.IsDeterministic(e) {
				return false, "`" + e.String() + "` is non-deterministic"
			}
			if !plan.Total(e, in, plan.TrustDeclared) {
				return false, "`" + e.String() + "` is partial"
			}
		}
		return true, ""
	})
}
