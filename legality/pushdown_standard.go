package legality

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// The standard tier's crossings of predicate_pushdown. A table of
// StandardTotality lets a conjunct below an aggregate, a distinct and into
// every input of a union (PushdownNode), past another filter's remaining
// conjuncts (PushdownPastFilter), and — when the rule's arm join_pushdown
// asks — into the inputs of a join (PushdownJoin). Each is decided
// conjunct by conjunct (NodeCheck.Generic), and each keeps the barrier of
// the bounded tier for what its counterexample is about: pp.aggregate
// refuses a conjunct reading anything but plain group keys, and every
// conjunct over an aggregate without keys; pp.distinct one reading a
// column outside the subset; pp.union a partial one; pp.filter a partial
// one; pp.join one reading both inputs.

// standardAggregate makes c the standard tier's check of an aggregate: a
// conjunct reading only plain keys (col(k), or col(k) as k) moves below it
// when the keys and aggregates are total and deterministic
// (pp.aggregate.total: rows the conjunct removes below are whole groups,
// whose keys and aggregates are then never computed) and the conjunct
// sees a group's rows alike (pp.aggregate.keys). An aggregate without keys
// yields one row even from no rows, so nothing crosses it (pp.aggregate).
func (t *Table) standardAggregate(c *NodeCheck, n *plan.AggregateNode) {
	if len(n.Keys) == 0 {
		c.decision = t.decide(PPAggregate, always)
		c.decision.Detail = "an aggregate without keys"
		if !c.decision.Allowed {
			c.decision.Reason = "an aggregate without keys yields one row even from no rows: agg(count(a)) . filter(false) is empty, agg(count(a)) over an emptied input is one row"
		}
		return
	}
	in := inputSchema(n)
	c.decision = t.decide(PPAggregateTotal, func() (bool, string) {
		exprs := make([]plan.Expr, 0, len(n.Keys)+len(n.Aggs))
		return t.firstImmovable(append(append(exprs, n.Keys...), n.Aggs...), in)
	})
	plain := map[string]bool{}
	for _, k := range n.Keys {
		if IsIdentity(k) {
			plain[plan.OutputName(k)] = true
		}
	}
	out := n.Schema()
	c.generic, c.shadow = true, PPAggregateKeys
	c.conjunct = func(e plan.Expr) Decision {
		for _, name := range plan.Columns(e) {
			if !plain[name] {
				d := t.decide(PPAggregate, always)
				d.Detail = "reads " + name + ", not a plain group key"
				return d
			}
		}
		return t.decide(PPAggregateKeys, func() (bool, string) {
			if !t.Total(e, out) {
				return false, "`" + e.String() + "` is partial"
			}
			return keyRespecting(e, floatColumns(plan.Columns(e), out))
		})
	}
}

// standardDistinct makes c the standard tier's check of a distinct: a
// conjunct reading only subset columns (every column without a subset;
// pp.distinct refuses the others) moves below it when it is total and sees
// the rows distinct counts as one alike (pp.distinct.keys).
func (t *Table) standardDistinct(c *NodeCheck, n *plan.DistinctNode) {
	c.decision = Decision{Allowed: true}
	out := n.Schema()
	subset := map[string]bool{}
	for _, name := range n.Subset {
		subset[name] = true
	}
	c.generic, c.shadow = true, PPDistinctKeys
	c.conjunct = func(e plan.Expr) Decision {
		cols := plan.Columns(e)
		if len(n.Subset) > 0 {
			for _, name := range cols {
				if !subset[name] {
					d := t.decide(PPDistinct, always)
					d.Detail = "reads " + name + ", outside the subset"
					return d
				}
			}
		}
		return t.decide(PPDistinctKeys, func() (bool, string) {
			if !t.Total(e, out) {
				return false, "`" + e.String() + "` is partial"
			}
			return keyRespecting(e, floatColumns(cols, out))
		})
	}
}

// standardUnion makes c the standard tier's check of a union: a total
// conjunct goes into every input (pp.union.inputs), a partial one stays
// (pp.union: in the first input it would raise before the next input is
// evaluated).
func (t *Table) standardUnion(c *NodeCheck, n *plan.UnionNode) {
	c.decision = Decision{Allowed: true}
	out := n.Schema()
	c.generic, c.shadow = true, PPUnionInputs
	c.conjunct = func(e plan.Expr) Decision {
		if !t.Total(e, out) {
			d := t.decide(PPUnion, always)
			d.Detail = "`" + e.String() + "` is partial"
			return d
		}
		return t.decide(PPUnionInputs, always)
	}
}

// PushdownPastFilter decides whether conjuncts of a higher filter may move
// below the conjuncts another filter leaves in place. In the bounded tier
// the answer is pp.filter, a barrier: the order between filters is
// filter_fusion's business. Under StandardTotality the movers — the
// conjuncts that would move — must be total and deterministic (pp.filter
// refuses the others: they would meet the rows the lower filter removes),
// and then so must every conjunct staying, which would see fewer rows
// (pp.filter.total): what fusing the two filters (ff.total_outer) and then
// separating them (pp.split) would ask, so that one run of the optimizer
// leaves nothing for a second. The movers are evaluated over the schema
// staying was made for.
func (t *Table) PushdownPastFilter(movers []plan.Expr, staying *Movability) Decision {
	t = t.orDefault()
	if t.totality != StandardTotality {
		return t.decide(PPFilter, always)
	}
	if ok, detail := t.firstImmovable(movers, staying.in); !ok {
		d := t.decide(PPFilter, always)
		d.Detail = detail
		return d
	}
	return t.decide(PPFilterTotal, staying.Movable)
}

// Movability summarizes a growing list of expressions evaluated over one
// schema: whether each is movable — total for the table and deterministic,
// able to meet other rows without changing an outcome — and the first that
// is not. Adding an expression costs one check, so a rule keeps one across
// a walk in which the list only grows (the conjuncts lower filters leave in
// place, for PushdownPastFilter).
type Movability struct {
	t      *Table
	in     plan.Schema
	ok     bool
	detail string
}

// NewMovability returns an empty list over schema in (every expression of
// an empty list is movable).
func (t *Table) NewMovability(in plan.Schema) *Movability {
	return &Movability{t: t.orDefault(), in: in, ok: true}
}

// Add appends es.
func (m *Movability) Add(es ...plan.Expr) {
	if m.ok {
		m.ok, m.detail = m.t.firstImmovable(es, m.in)
	}
}

// Movable reports whether every expression added is movable, or names the
// first that is not.
func (m *Movability) Movable() (bool, string) { return m.ok, m.detail }

// floatColumns returns the names among cols whose type in s is a float
// (float32 or float64).
func floatColumns(cols []string, s plan.Schema) map[string]bool {
	var out map[string]bool
	for _, name := range cols {
		if f, ok := s.Lookup(name); ok && f.Type.IsFloat() {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	return out
}

// keyRespecting reports whether e reads each column of floats only as a
// direct operand of a comparison, is_nan, is_null or is_not_null. Those
// give one answer for values that grouping, distinct and join keys treat
// as one (-0.0 and 0.0; every NaN), where other expressions can tell them
// apart (cast(f, string), 1.0 / f).
func keyRespecting(e plan.Expr, floats map[string]bool) (bool, string) {
	if len(floats) == 0 {
		return true, ""
	}
	var bad string
	var walk func(x plan.Expr, direct bool)
	walk = func(x plan.Expr, direct bool) {
		if bad != "" || x == nil {
			return
		}
		if col, ok := x.(*plan.Column); ok {
			if floats[col.Name] && !direct {
				bad = col.Name
			}
			return
		}
		respects := false
		if call, ok := x.(*plan.Call); ok {
			respects = call.Fn.IsComparison() || call.Fn == plan.FuncIsNaN || call.Fn == plan.FuncIsNull || call.Fn == plan.FuncIsNotNull
		}
		for _, a := range x.Children() {
			walk(a, respects)
		}
	}
	walk(e, false)
	if bad != "" {
		return false, fmt.Sprintf("`%s` reads the float64 key %s other than in a comparison or a null or NaN test, so it can tell -0.0 from 0.0", e, bad)
	}
	return true, ""
}

// joinView maps a join's output columns back to its inputs, for
// PushdownJoin: each output name is a column of one input, under that
// input's name (a suffixed right name maps to the right column it
// renames; a dropped right key has no output name).
type joinView struct {
	j *plan.JoinNode
	// side and input map an output name to its input (0 left, 1 right)
	// and its name there.
	side  map[string]int
	input map[string]string
	// partner maps, per input, the output name of a plain key column to
	// the other input's plain key column it is paired with ("" when it is
	// paired with several); sameType says whether the two have one type.
	partner  [2]map[string]string
	sameType [2]map[string]bool
}

func newJoinView(j *plan.JoinNode) *joinView {
	v := &joinView{j: j, side: map[string]int{}, input: map[string]string{}}
	ls, rs := j.Left.Schema(), j.Right.Schema()
	for _, name := range ls.Names() {
		v.side[name], v.input[name] = 0, name
	}
	rightOut := map[string]string{}
	if lay, ok := plan.LayoutOf(j); ok {
		// The output names as the join lays them out: a merged key of a
		// full join reads both inputs (no side), a right join's merged key
		// is the right one.
		v.side, v.input = map[string]int{}, map[string]string{}
		for _, c := range lay.Columns {
			if j.How == plan.FullJoin && c.CoalescedWith >= 0 {
				continue
			}
			if c.Side == plan.SideLeft {
				v.side[c.Name], v.input[c.Name] = 0, ls.Field(c.Ordinal).Name
				continue
			}
			name := rs.Field(c.Ordinal).Name
			v.side[c.Name], v.input[c.Name] = 1, name
			rightOut[name] = c.Name
		}
	} else if j.How != plan.SemiJoin && j.How != plan.AntiJoin {
		dropped := plan.DroppedRightKeys(j)
		suffix := j.EffectiveSuffix()
		for _, name := range rs.Names() {
			if dropped[name] {
				continue
			}
			out := name
			if ls.Index(name) >= 0 {
				out = name + suffix
			}
			v.side[out], v.input[out] = 1, name
			rightOut[name] = out
		}
	}
	v.partner = [2]map[string]string{{}, {}}
	v.sameType = [2]map[string]bool{{}, {}}
	pair := func(side int, out, other string, same bool) {
		if prev, seen := v.partner[side][out]; seen && prev != other {
			v.partner[side][out] = ""
			return
		}
		v.partner[side][out] = other
		v.sameType[side][out] = same
	}
	for i := range j.LeftOn {
		l, lok := j.LeftOn[i].(*plan.Column)
		r, rok := j.RightOn[i].(*plan.Column)
		if !lok || !rok {
			continue
		}
		lf, lfound := ls.Lookup(l.Name)
		rf, rfound := rs.Lookup(r.Name)
		if !lfound || !rfound {
			continue
		}
		same := lf.Type == rf.Type
		if _, ok := v.side[l.Name]; ok && v.side[l.Name] == 0 {
			pair(0, l.Name, r.Name, same)
		}
		if out, ok := rightOut[r.Name]; ok {
			pair(1, out, l.Name, same)
		}
	}
	return v
}

// sideOf returns the input whose columns e reads: 0 or 1, -1 when it reads
// columns of both (or a name the join does not output). A conjunct reading
// no column goes to an input the join preserves: the right of a right
// join, the left otherwise.
func (v *joinView) sideOf(e plan.Expr) int {
	side := -2
	for _, name := range plan.Columns(e) {
		s, ok := v.side[name]
		if !ok || (side >= 0 && s != side) {
			return -1
		}
		side = s
	}
	if side == -2 {
		if v.j.How == plan.RightJoin {
			return 1
		}
		return 0
	}
	return side
}

// sideCell returns the cell deciding whether a conjunct moves into input
// side of the join: pp.join.preserved for an input whose rows the join
// preserves, else the barrier of that null-supplying input.
func (v *joinView) sideCell(side int) CellID {
	switch v.j.How {
	case plan.LeftJoin:
		if side == 1 {
			return PPJoinLeftRightSide
		}
	case plan.RightJoin:
		if side == 0 {
			return PPJoinRightLeftSide
		}
	case plan.FullJoin:
		if side == 0 {
			return PPJoinFullLeftSide
		}
		return PPJoinFullRightSide
	}
	return PPJoinPreserved
}

// PushdownJoin returns the standard tier's check (arm join_pushdown of
// predicate_pushdown) for moving conjuncts from directly above join j into
// its inputs. Node-level: the keys must be total and deterministic
// (pp.join.keys): the keys of the input a conjunct enters are evaluated
// over fewer rows. Per conjunct (Generic): one reading columns of both
// inputs stays (pp.join: neither input can evaluate it); one reading only
// one input's columns moves into it when the join preserves that input's
// rows and the conjunct is total (pp.join.preserved: there it meets the
// rows the join would drop, before the other input is evaluated), and
// never into an input that supplies nulls (pp.join.left.right_side,
// pp.join.right.left_side, pp.join.full.left_side,
// pp.join.full.right_side). A cross join preserves both inputs. JoinInput
// and JoinRenames say where a conjunct goes and how it reads there;
// KeyCopy decides pp.join.key_equivalence.
func (t *Table) PushdownJoin(j *plan.JoinNode) *NodeCheck {
	t = t.orDefault()
	v := newJoinView(j)
	c := &NodeCheck{t: t, join: v, generic: true, shadow: PPJoinPreserved}
	c.decision = t.decide(PPJoinKeys, func() (bool, string) {
		if ok, detail := t.firstImmovable(j.LeftOn, j.Left.Schema()); !ok {
			return false, detail
		}
		return t.firstImmovable(j.RightOn, j.Right.Schema())
	})
	if c.decision.Allowed && j.Residual != nil {
		c.decision = t.decide(PPJoinResidual, func() (bool, string) {
			if !t.Total(j.Residual, residualSchema(j)) {
				return false, "the residual `" + j.Residual.String() + "` is partial"
			}
			if !plan.IsDeterministic(j.Residual) {
				return false, "the residual `" + j.Residual.String() + "` is not deterministic"
			}
			return true, ""
		})
	}
	out := j.Schema()
	c.conjunct = func(e plan.Expr) Decision {
		side := v.sideOf(e)
		if side < 0 {
			d := t.decide(PPJoin, always)
			d.Detail = "reads columns of both inputs"
			d.Reason = "a conjunct reading both inputs can be evaluated in neither (Polars #16956): it stays above the join"
			return d
		}
		cell := v.sideCell(side)
		if cell != PPJoinPreserved {
			d := t.decide(cell, always)
			d.Detail = "reads only the " + sideName(side) + " input, which supplies nulls"
			return d
		}
		d := t.decide(PPJoinPreserved, func() (bool, string) {
			if !t.Total(e, out) {
				return false, "`" + e.String() + "` is partial"
			}
			return true, ""
		})
		if d.Allowed && j.Validate != plan.ValidateManyToMany {
			d = t.validateDecision(j, side)
		}
		return d
	}
	return c
}

// validateDecision decides pp.join.validate for a conjunct (or a copy)
// entering input side of a join whose validate is not m:m.
func (t *Table) validateDecision(j *plan.JoinNode, side int) Decision {
	return t.decide(PPJoinValidate, func() (bool, string) {
		if (side == 0 && j.Validate.ChecksLeft()) || (side == 1 && j.Validate.ChecksRight()) {
			return false, "validate=" + j.Validate.String() + " checks the " + sideName(side) + " input's keys, which a filter there could make unique"
		}
		return true, ""
	})
}

// residualSchema is the schema a resolved semi or anti join's residual
// reads (plan.JoinLayout's pair names over the inputs' fields).
func residualSchema(j *plan.JoinNode) plan.Schema {
	lay, ok := plan.LayoutOf(j)
	fields := append(j.Left.Schema().Fields(), j.Right.Schema().Fields()...)
	if !ok || len(lay.PairNames) != len(fields) {
		return plan.Schema{}
	}
	for i := range fields {
		fields[i].Name = lay.PairNames[i]
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return plan.Schema{}
	}
	return s
}

func sideName(side int) string {
	if side == 1 {
		return "right"
	}
	return "left"
}

// JoinInput returns the input of the join a conjunct checked by
// PushdownJoin goes into when it moves: 0 (left) or 1 (right), or -1 for a
// conjunct reading both inputs (and for a check of anything but a join).
// Under a table that lets such a conjunct cross (pp.join flipped) it goes
// into the left input, which cannot evaluate it.
func (c *NodeCheck) JoinInput(e plan.Expr) int {
	if c.join == nil {
		return -1
	}
	if side := c.join.sideOf(e); side >= 0 {
		return side
	}
	if c.t.Verdict(PPJoin) == Crosses {
		return 0
	}
	return -1
}

// JoinRenames returns, for a conjunct moving into the join's input side,
// the replacement of each output name it may read that the input calls
// otherwise: the right input's own name for a suffixed right column (nil
// for the left input, whose names are the output's).
func (c *NodeCheck) JoinRenames(side int) map[string]plan.Expr {
	if c.join == nil || side != 1 {
		return nil
	}
	var out map[string]plan.Expr
	for name, s := range c.join.side {
		if s == 1 && c.join.input[name] != name {
			if out == nil {
				out = map[string]plan.Expr{}
			}
			out[name] = &plan.Column{Name: c.join.input[name]}
		}
	}
	return out
}

// KeyCopy decides pp.join.key_equivalence for a conjunct e (over the join's
// output names) that moves into input side of an inner join: when e reads
// only that input's plain key columns, it may also filter the other input,
// by the key columns they are paired with — rows of one input whose keys
// fail e match only rows of the other whose keys fail it too. asked is
// false when the question does not arise (another join kind, or e reads a
// column that is not such a key, or none). When the decision allows,
// renames maps each column e reads to the other input's key column it
// becomes in the copy. The condition: each pair joins two columns of one
// type (no promotion: compared as float64, 2^53 + 1 on an int64 side
// matches 2^53 on a float64 one) paired with nothing else, and e reads each
// float64 key only as a direct operand of a comparison, is_nan, is_null or
// is_not_null (the join matches -0.0 with 0.0).
func (c *NodeCheck) KeyCopy(e plan.Expr, side int) (renames map[string]plan.Expr, d Decision, asked bool) {
	if c.join == nil || c.join.j.How != plan.InnerJoin || side < 0 || side > 1 {
		return nil, Decision{}, false
	}
	v := c.join
	cols := plan.Columns(e)
	if len(cols) == 0 {
		return nil, Decision{}, false
	}
	for _, name := range cols {
		if _, ok := v.partner[side][name]; !ok {
			return nil, Decision{}, false
		}
	}
	var in plan.Schema
	if side == 0 {
		in = v.j.Left.Schema()
	} else {
		in = v.j.Right.Schema()
	}
	if v.j.Validate != plan.ValidateManyToMany {
		if dv := c.t.validateDecision(v.j, 1-side); !dv.Allowed {
			return nil, dv, true
		}
	}
	d = c.t.decide(PPJoinKeyEquivalence, func() (bool, string) {
		floats := map[string]bool{}
		for _, name := range cols {
			other := v.partner[side][name]
			switch {
			case other == "":
				return false, name + " is paired with several keys"
			case !v.sameType[side][name]:
				return false, name + " and " + other + " have different types"
			}
			if f, ok := in.Lookup(v.input[name]); ok && f.Type.IsFloat() {
				floats[name] = true
			}
		}
		if plan.HasProof(e) {
			// A range proof bounds e's own columns, not the keys they are
			// paired with, which the copy reads over every row of the other
			// input (range_proofs; corpus rp_key_equivalence_copy).
			return false, "`" + e.String() + "` is total by a range proof over its own columns, which does not bound the keys the copy would read"
		}
		return keyRespecting(e, floats)
	})
	if !d.Allowed {
		return nil, d, true
	}
	renames = map[string]plan.Expr{}
	for _, name := range cols {
		other := v.partner[side][name]
		if other == "" {
			return nil, Decision{Cell: PPJoinKeyEquivalence, Verdict: d.Verdict, Detail: name + " is paired with several keys"}, true
		}
		renames[name] = &plan.Column{Name: other}
	}
	return renames, d, true
}
