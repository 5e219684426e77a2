package legality

import (
	"github.com/dfopt/dfopt/plan"
)

// RuleSemiPushdown names the rule of package rules whose cells are decided
// here (the sp.* cells): also its flag and file name.
const RuleSemiPushdown = "semi_pushdown"

// What a semi (or anti) join over an inner join and the inner join over a
// semi join of one of its inputs share, proved once here so that the cells
// below guard only what differs. Write S = semi(J, R) on sl = sr with
// J = inner(A, B) on la = rb, and S' the inner join over semi(A, R) on
// sl = sr (sl rewritten to A's column names) in place of A, or over
// semi(B, R) in place of B, when sl reads columns of that input only
// (sp.side):
//
//   - rows and order: J yields each A row in A order followed by its B
//     matches in B order, and each output row carries its A row's values in
//     its A columns and its B row's in its B columns (plan.JoinLayout: an
//     inner join's merged key is the left key column with its values). So
//     sl, reading one input's columns only and deterministic, gives an
//     output row the value it gives that input's row, and S keeps an output
//     row exactly when that row has a match in R. Filtering A first keeps
//     the A rows with a match, in order, and J then yields exactly the kept
//     rows in the same order; filtering B first keeps, in B order, the B
//     rows with a match, and J yields for each A row its kept matches in B
//     order: the same rows in the same order. Anti joins keep the
//     complement, the same way; a null key matches nothing (or a null key
//     under nulls_equal) per row in both plans;
//   - columns: a semi or anti join outputs its left input's schema, so the
//     inner join over it has J's schema, which is S's;
//   - errors: evaluation order is A, B, the inner join's keys, R, the semi
//     join's keys before; A, R, semi keys, B, inner keys after (B first and
//     R after it, for the right side). R and its keys move to another
//     moment, which changes nothing only when they raise nothing and call
//     nothing non-deterministic (sp.right_input); sl is evaluated over the
//     input's rows instead of J's, and the pushed-into input's inner keys
//     over fewer rows, which changes nothing only when they are total and
//     deterministic (sp.keys); validate checks a side's whole key set and
//     a residual is evaluated over the key-matched pairs, both of which
//     change with the rows (sp.options).

// SemiTarget is where SemiPush lets a semi or anti join move: the inner
// join input (Side) whose columns its left keys read, and Names, each of
// the inner join's output names the keys read mapped to that input's
// column name.
type SemiTarget struct {
	Side  plan.JoinSide
	Names map[string]string
}

// SemiPush decides whether the semi or anti join semi, whose left input is
// the resolved inner join inner, may move below inner into one of its
// inputs: sp.side (the semi's left keys read columns of one input of inner
// only), sp.options (no residual, validate m:m on both joins), sp.keys (the
// semi's left keys and inner's keys on that side total and deterministic,
// inner's other keys deterministic) and sp.right_input (the semi's right
// input raises nothing and is deterministic, its right keys total and
// deterministic), in that order. The ruling's last decision is the
// refusing one when it refuses; the target is meaningful when it allows.
func (t *Table) SemiPush(semi, inner *plan.JoinNode) (Ruling, SemiTarget) {
	t = t.orDefault()
	var ru Ruling
	target := SemiTarget{Names: map[string]string{}}
	// The side and names are found whatever sp.side says, so that a
	// flipped cell still moves the join (into the side its last key column
	// names).
	sides, problem := map[plan.JoinSide]bool{}, ""
	layout, resolved := plan.LayoutOf(inner)
	if !resolved || len(layout.Columns) != inner.Schema().Len() {
		problem = "the inner join is not resolved"
	} else {
		out := inner.Schema()
		for _, k := range semi.LeftOn {
			for _, name := range plan.Columns(k) {
				i := out.Index(name)
				if i < 0 || i >= len(layout.Columns) {
					problem = "`" + plan.Written(k) + "` reads a column the inner join does not output"
					continue
				}
				col := layout.Columns[i]
				sides[col.Side] = true
				in := inner.Left
				if col.Side == plan.SideRight {
					in = inner.Right
				}
				target.Side = col.Side
				target.Names[name] = in.Schema().Field(col.Ordinal).Name
			}
		}
	}
	if !ru.consult(t.decide(SPSide, func() (bool, string) {
		switch {
		case problem != "":
			return false, problem
		case len(sides) > 1:
			return false, "the keys read columns of both inputs"
		}
		return true, "the keys read the " + target.Side.String() + " input"
	})) {
		return ru, target
	}
	if !ru.consult(t.decide(SPOptions, func() (bool, string) {
		switch {
		case semi.Residual != nil:
			return false, "the " + semi.How.String() + " join has a residual"
		case semi.Validate != plan.ValidateManyToMany:
			return false, "the " + semi.How.String() + " join validates " + semi.Validate.String()
		case inner.Validate != plan.ValidateManyToMany:
			return false, "the inner join validates " + inner.Validate.String()
		}
		return true, ""
	})) {
		return ru, target
	}
	if !ru.consult(t.decide(SPKeys, func() (bool, string) {
		pushed, pushedIn := inner.LeftOn, inner.Left.Schema()
		other := inner.RightOn
		if target.Side == plan.SideRight {
			pushed, pushedIn, other = inner.RightOn, inner.Right.Schema(), inner.LeftOn
		}
		if ok, detail := t.firstImmovable(semi.LeftOn, inner.Schema()); !ok {
			return false, detail
		}
		if ok, detail := t.firstImmovable(pushed, pushedIn); !ok {
			return false, "the inner join's key " + detail
		}
		for _, e := range other {
			if !plan.IsDeterministic(e) {
				return false, "the inner join's key `" + e.String() + "` is non-deterministic"
			}
		}
		return true, ""
	})) {
		return ru, target
	}
	ru.consult(t.decide(SPRightInput, func() (bool, string) {
		if ok, detail := t.firstImmovable(semi.RightOn, semi.Right.Schema()); !ok {
			return false, "the right key " + detail
		}
		return t.cannotRaise(semi.Right)
	}))
	return ru, target
}

// cannotRaise reports whether evaluating subtree n can raise no error and
// calls nothing non-deterministic, so that it may be evaluated at another
// moment of the plan: its nodes are of the kinds below, every expression
// they evaluate is total over the rows it meets and deterministic, a scan
// assumes no fact and holds no guard (either raises a source or value
// error), and a join validates nothing and has no residual. Any other node
// kind (an extension, an as-of join, a guard, ...) may raise.
func (t *Table) cannotRaise(n plan.Node) (ok bool, detail string) {
	ok = true
	plan.WalkNodes(n, func(m plan.Node) bool {
		if !ok {
			return false
		}
		var in plan.Schema
		switch m := m.(type) {
		case *plan.ScanNode:
			if len(m.Assumes) > 0 || len(m.Guards) > 0 {
				ok, detail = false, "a scan of the right input checks facts or guards"
				return false
			}
			in = m.SourceSchema
		case *plan.JoinNode:
			if m.Validate != plan.ValidateManyToMany || m.Residual != nil {
				ok, detail = false, "a join of the right input validates or has a residual"
				return false
			}
			if ok, detail = t.firstImmovable(m.LeftOn, m.Left.Schema()); !ok {
				return false
			}
			if ok, detail = t.firstImmovable(m.RightOn, m.Right.Schema()); !ok {
				return false
			}
			return true
		case *plan.FilterNode, *plan.ProjectNode, *plan.WithColumnsNode, *plan.SortNode, *plan.AggregateNode, *plan.WindowNode:
			in = m.Children()[0].Schema()
		case *plan.LimitNode, *plan.SliceNode, *plan.DistinctNode, *plan.UnionNode:
			return true
		default:
			ok, detail = false, "the right input holds a "+m.Kind().String()+" node, which may raise"
			return false
		}
		ok, detail = t.firstImmovable(plan.NodeExprs(m), in)
		if !ok {
			detail = "the right input's " + detail
		}
		return ok
	})
	return ok, detail
}
