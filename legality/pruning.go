package legality

import (
	"fmt"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// RuleProjectionPruning names the rule of package rules whose cells are
// decided here (the pr.* cells): also its flag and file name.
const RuleProjectionPruning = "projection_pruning"

// PruneEntry decides whether a project or with_columns entry that nothing
// downstream reads may be dropped (pr.project, pr.with_columns): only a total
// and deterministic expression may (total over n's input, where it is
// evaluated), since a dead partial one must still raise and a dead
// non-deterministic one still advances its counter.
func (t *Table) PruneEntry(n plan.Node, e plan.Expr) Decision {
	t = t.orDefault()
	id := PRUnknown
	switch n.(type) {
	case *plan.ProjectNode:
		id = PRProject
	case *plan.WithColumnsNode:
		id = PRWithColumns
	}
	return t.decide(id, func() (bool, string) {
		if id == PRUnknown {
			return false, "only project and with_columns entries are pruned"
		}
		return t.firstImmovable([]plan.Expr{e}, inputSchema(n))
	})
}

// PruneEmpty decides whether a with_columns left with no entry may be
// removed (pr.with_columns.empty): yes, unless it owns a synthesized window
// (plan.OwnedWindow), whose temporary columns it hides from its parent and
// which must stay directly under an owner.
func (t *Table) PruneEmpty(w *plan.WithColumnsNode) Decision {
	return t.orDefault().decide(PRWithColumnsEmpty, func() (bool, string) {
		if _, owns := plan.OwnedWindow(w); owns {
			return false, "the with_columns owns a window"
		}
		return true, ""
	})
}

// PruneThrough decides whether requirements narrow below n: whether n's
// input may lose the columns nothing needs. Extra lists the input columns n
// itself needs on top of what is required above it (its key, subset or
// over() columns) — the condition of a CrossesIf cell; a Crosses mutant
// drops it. When the decision refuses, every input column stays required.
// Project, with_columns and join have their own queries (PruneEntry,
// PruneJoin). An extension declaring properties narrows only when it
// declares column_passthrough, keeping the columns it reads
// (pr.extension.passthrough); any other is a barrier (pr.extension).
func (t *Table) PruneThrough(n plan.Node) (d Decision, extra []string) {
	t = t.orDefault()
	switch n := n.(type) {
	case *plan.ScanNode:
		return t.decide(PRScan, always), nil
	case *plan.FilterNode, *plan.SortNode, *plan.LimitNode, *plan.SliceNode:
		return t.decide(PRPassthrough, always), nil
	case *plan.GuardNode:
		return t.decide(PRGuard, always), nil
	case *plan.TailNode:
		return t.decide(PRTail, always), nil
	case *plan.ReverseNode:
		return t.decide(PRReverse, always), nil
	case *plan.RowIndexNode:
		return t.decide(PRRowIndex, always), nil
	case *plan.TemporalGroupNode:
		return t.decide(PRTemporalGroup, always), nil
	case *plan.HStackNode:
		return t.decide(PRHStack, always), nil
	case *plan.MergeSortedNode:
		return t.decide(PRMergeSorted, always), nil
	case *plan.UnpivotNode:
		return t.decide(PRUnpivot, always), nil
	case *plan.UnnestNode:
		return t.decide(PRUnnest, always), append([]string(nil), n.Columns...)
	case *plan.ExplodeNode:
		return t.decide(PRExplode, always), append([]string(nil), n.Columns...)
	case *plan.AggregateNode:
		return t.decide(PRAggregate, always), nil
	case *plan.DistinctNode:
		d = t.decide(PRDistinct, always)
		if d.Verdict == CrossesIf {
			if len(n.Subset) == 0 && n.Input != nil {
				extra = n.Input.Schema().Names()
			} else {
				extra = append([]string(nil), n.Subset...)
			}
		}
		return d, extra
	case *plan.WindowNode:
		d = t.decide(PRWindow, always)
		if d.Verdict == CrossesIf {
			for _, e := range n.Exprs {
				extra = append(extra, plan.Columns(e)...)
			}
		}
		return d, extra
	case *plan.UnionNode:
		return t.decide(PRUnion, always), nil
	case *plan.ExtensionNode:
		return t.pruneExtension(n)
	}
	return t.decide(PRUnknown, always), nil
}

// PruneJoin decides whether a join's inputs may be narrowed (pr.join) and to
// which columns, given the join output columns required above. Each side
// keeps its key columns and the columns required above; the condition adds
// every left column whose name a kept right column shares, so that the right
// column keeps its suffix. keepLeft and keepRight are in input order; nil
// means "keep every column". They are computed whatever the decision (so a
// refusal can say what it kept); use them only when d.Allowed.
func (t *Table) PruneJoin(j *plan.JoinNode, required map[string]bool) (d Decision, keepLeft, keepRight []string) {
	t = t.orDefault()
	d = t.decide(PRJoin, always)
	ls, rs := j.Left.Schema(), j.Right.Schema()
	leftNames := make(map[string]bool, ls.Len())
	for _, n := range ls.Names() {
		leftNames[n] = true
	}
	keepL := map[string]bool{}
	keepR := map[string]bool{}
	for _, k := range j.LeftOn {
		for _, c := range plan.Columns(k) {
			keepL[c] = true
		}
	}
	for _, k := range j.RightOn {
		for _, c := range plan.Columns(k) {
			keepR[c] = true
		}
	}
	for _, n := range ls.Names() {
		if required[n] {
			keepL[n] = true
		}
	}
	semi := j.How == plan.SemiJoin || j.How == plan.AntiJoin
	if lay, ok := plan.LayoutOf(j); ok {
		// The output as the join lays it out: each required column keeps
		// its input column (a merged key both), a suffixed right column
		// the left column it collides with, and a residual's columns
		// stay on both sides under the names it reads them by.
		for _, c := range lay.Columns {
			if !required[c.Name] {
				continue
			}
			if c.Side == plan.SideLeft {
				keepL[ls.Field(c.Ordinal).Name] = true
				if c.CoalescedWith >= 0 {
					keepR[rs.Field(c.CoalescedWith).Name] = true
				}
			} else {
				keepR[rs.Field(c.Ordinal).Name] = true
				if c.CoalescedWith >= 0 {
					keepL[ls.Field(c.CoalescedWith).Name] = true
				}
			}
		}
		if d.Verdict != Crosses {
			for _, c := range lay.Columns {
				if c.Side == plan.SideRight && keepR[rs.Field(c.Ordinal).Name] && c.Name != rs.Field(c.Ordinal).Name && leftNames[rs.Field(c.Ordinal).Name] {
					keepL[rs.Field(c.Ordinal).Name] = true
				}
			}
			if j.Residual != nil && len(lay.PairNames) == ls.Len()+rs.Len() {
				reads := map[string]bool{}
				for _, n := range plan.Columns(j.Residual) {
					reads[n] = true
				}
				for i, n := range lay.PairNames {
					if !reads[n] {
						continue
					}
					if i < ls.Len() {
						keepL[ls.Field(i).Name] = true
						continue
					}
					rn := rs.Field(i - ls.Len()).Name
					keepR[rn] = true
					if n != rn && leftNames[rn] {
						keepL[rn] = true
					}
				}
			}
		}
		return d, ordered(ls.Names(), keepL), ordered(rs.Names(), keepR)
	}
	dropped := plan.DroppedRightKeys(j)
	if !semi {
		suffix := j.EffectiveSuffix()
		for _, n := range rs.Names() {
			if dropped[n] {
				continue
			}
			out := n
			if leftNames[n] {
				out = n + suffix
			}
			if required[out] {
				keepR[n] = true
			}
		}
		if d.Verdict != Crosses {
			for _, n := range rs.Names() {
				if keepR[n] && !dropped[n] && leftNames[n] {
					keepL[n] = true
				}
			}
		}
	}
	return d, ordered(ls.Names(), keepL), ordered(rs.Names(), keepR)
}

// ordered returns the names of all that keep holds, in all's order, or nil
// when that is all of them.
func ordered(all []string, keep map[string]bool) []string {
	out := make([]string, 0, len(keep))
	for _, n := range all {
		if keep[n] {
			out = append(out, n)
		}
	}
	if len(out) == len(all) {
		return nil
	}
	return out
}

// pruneExtension decides pr.extension.passthrough for a one-input extension
// declaring properties (extra: the columns it reads, or every input column
// when it does not say), and pr.extension for any other.
func (t *Table) pruneExtension(n *plan.ExtensionNode) (d Decision, extra []string) {
	if !declaresProperties(n) {
		return t.decide(PRExtension, always), nil
	}
	in := n.Inputs[0].Schema()
	reads, declared := n.Def.ReadColumns(in)
	d = t.decide(PRExtensionPassthrough, func() (bool, string) {
		if !n.Def.Has(plan.ColumnPassthrough) {
			return false, n.Def.Name + " does not declare column_passthrough"
		}
		if !declared {
			return true, n.Def.Name + " may read every input column"
		}
		if len(reads) == 0 {
			return true, n.Def.Name + " reads no column"
		}
		return true, n.Def.Name + " reads " + strings.Join(reads, ", ")
	})
	if d.Verdict == CrossesIf && d.Allowed {
		if declared {
			extra = reads
		} else {
			extra = in.Names()
		}
	}
	return d, extra
}

// PruneUnion decides whether the inputs of union u narrow to the columns
// required above (pr.union.inputs: the standard tier's arm union_pruning,
// under StandardTotality; pr.union, every input keeping every column,
// otherwise) and returns those columns in the union's order — nil when
// every column is required, and then there is nothing to decide (the
// Decision names no cell). Every input has the union's names, so each is
// asked for the same columns; PruneUnionInput keeps their schemas
// identical.
func (t *Table) PruneUnion(u *plan.UnionNode, required map[string]bool) (d Decision, keep []string) {
	t = t.orDefault()
	keep = ordered(u.Schema().Names(), required)
	if keep == nil {
		return Decision{Allowed: true}, nil
	}
	if t.totality != StandardTotality {
		return t.decide(PRUnion, always), keep
	}
	return t.decide(PRUnionInputs, always), keep
}

// PruneTwins decides whether a subtree, one of several deterministic ones that
// were equal before pruning, is asked for the union of every occurrence's
// requirement instead of its own (pr.twins, the standard tier's arm
// twin_pruning), so that the occurrences stay equal for the executor's memo.
// Requiring more of a subtree is always sound (see the cell); the decision
// exists so that a mutation campaign can switch it off.
func (t *Table) PruneTwins() Decision {
	return t.orDefault().decide(PRTwins, always)
}

// PruneUnionInput decides whether input i of a union whose inputs narrow
// to want may produce got instead once pruned (columns of its own besides:
// a filter's, a dead partial entry it keeps, an aggregate's outputs):
// never — pr.union, union inputs must keep identical schemas — so every
// input is then asked for got too. A table that lets it (pr.union flipped)
// leaves the union's inputs with different columns.
func (t *Table) PruneUnionInput(i int, got, want []string) Decision {
	d := t.orDefault().decide(PRUnion, always)
	d.Detail = fmt.Sprintf("input %d keeps %s when asked for %s", i, strings.Join(got, ", "), strings.Join(want, ", "))
	if !d.Allowed {
		d.Reason = "union inputs must keep identical schemas: a column one input keeps anyway (a filter's own, a dead partial entry, an aggregate's output) is kept by every input"
	}
	return d
}
