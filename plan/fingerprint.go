package plan

import (
	"math"
	"slices"
)

// Fingerprints give plans a structural identity: the executor's memo and the
// shared-subplan prediction key on them. A fingerprint is only a hash; two
// nodes are the same plan only when Equal also says so (a collision must
// never merge two plans).

// fnv-1a, 64 bit: stable across runs, so fingerprints can be printed and
// compared in traces.
type hasher uint64

const (
	fnvOffset hasher = 14695981039346656037
	fnvPrime  hasher = 1099511628211
)

func (h hasher) byte(b byte) hasher { return (h ^ hasher(b)) * fnvPrime }

func (h hasher) u64(v uint64) hasher {
	for i := 0; i < 8; i++ {
		h = h.byte(byte(v >> (8 * i)))
	}
	return h
}

func (h hasher) str(s string) hasher {
	h = h.u64(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h = h.byte(s[i])
	}
	return h
}

// flag hashes a bool as one byte either way, so that the encoding stays
// prefix-free (an optional byte would let two different plans hash the
// same byte sequence).
func (h hasher) flag(b bool) hasher {
	if b {
		return h.byte(1)
	}
	return h.byte(0)
}

func (h hasher) schema(s Schema) hasher {
	h = h.u64(uint64(s.Len()))
	for _, f := range s.fields {
		h = h.str(f.Name).typ(f.Type).flag(f.Nullable)
	}
	return h
}

// typ hashes a type: a scalar as its one byte, a list or struct type
// (whose id is process-local) as a byte no scalar uses, then its text.
func (h hasher) typ(t Type) hasher {
	if t.IsNested() {
		return h.byte(0xff).str(t.String())
	}
	return h.byte(byte(t))
}

func (h hasher) value(v Value) hasher {
	h = h.typ(v.typ)
	if !v.valid {
		return h.byte(0)
	}
	h = h.byte(1)
	if v.typ.IsNested() {
		el := v.Elems()
		h = h.u64(uint64(len(el)))
		for _, e := range el {
			h = h.value(e)
		}
		return h
	}
	switch v.typ {
	case Float64:
		return h.u64(math.Float64bits(v.f))
	case String:
		return h.str(v.s)
	default:
		return h.u64(uint64(v.i))
	}
}

func (h hasher) expr(e Expr) hasher {
	if o := Origin(e); o != nil {
		// The origin is part of an expression's identity (ExprEqual): two
		// expressions that compute alike but name their errors otherwise
		// hash apart too.
		h = h.byte(8).expr(o)
	}
	switch e := e.(type) {
	case nil:
		return h.byte(0)
	case *Column:
		return h.byte(1).str(e.Name)
	case *Literal:
		return h.byte(2).value(e.Value)
	case *Alias:
		h = h.byte(3).str(e.Name)
	case *Call:
		h = h.byte(4).byte(byte(e.Fn)).u64(uint64(len(e.Args)))
	case *Cast:
		h = h.byte(5).typ(e.To).flag(e.Strict)
	case *Over:
		h = h.byte(6).u64(uint64(len(e.PartitionBy)))
		if len(e.OrderBy) > 0 {
			// Only when set, so unordered windows keep their fingerprints.
			h = h.byte(9).u64(uint64(len(e.OrderBy)))
			for _, k := range e.OrderBy {
				h = h.flag(k.Desc).flag(k.NullsLast)
			}
		}
	case *UDFCall:
		h = h.byte(7).u64(uint64(len(e.Args))).flag(e.UDF != nil)
		if e.UDF != nil {
			h = h.str(e.UDF.Name)
		}
	}
	for _, a := range e.Children() {
		h = h.expr(a)
	}
	return h
}

func (h hasher) exprs(es []Expr) hasher {
	h = h.u64(uint64(len(es)))
	for _, e := range es {
		h = h.expr(e)
	}
	return h
}

// ExprFingerprint returns the structural hash of an expression.
func ExprFingerprint(e Expr) uint64 { return uint64(fnvOffset.expr(e)) }

// Fingerprint returns the structural hash of a plan. It is cached on
// resolved nodes and computed afresh (in time linear in the subtree) for
// unresolved ones.
func Fingerprint(n Node) uint64 {
	fp, _, _ := nodeHash(n)
	return fp
}

// IsDeterministicPlan reports whether every expression and operator in the
// subtree is deterministic, so that two evaluations give the same result.
// Extensions count as deterministic only when they declare it.
func IsDeterministicPlan(n Node) bool {
	exprs, ops := Determinism(n)
	return exprs && ops
}

// Determinism splits IsDeterministicPlan in two: exprs reports that no
// expression in the subtree calls a non-deterministic UDF, operators that
// every extension in it declares DeterministicOp. The legality table has a
// cell for each (ss.deterministic, ss.extension.deterministic).
func Determinism(n Node) (exprs, operators bool) {
	_, exprs, operators = nodeHash(n)
	return exprs, operators
}

// nodeHash returns n's fingerprint and determinism (of expressions, of
// operators): cached on a resolved node, computed in one pass otherwise.
// A missing node hashes to 0 and is deterministic.
func nodeHash(n Node) (fp uint64, det, opDet bool) {
	if isNilNode(n) {
		return 0, true, true
	}
	if m := n.meta(); m.valid() {
		return m.fingerprint, m.deterministic, m.opsDeterministic
	}
	return fingerprintNode(n)
}

// Size returns the number of nodes in the subtree.
func Size(n Node) int {
	if isNilNode(n) {
		return 0
	}
	if m := n.meta(); m.valid() {
		return m.size
	}
	s := 1
	for _, c := range n.Children() {
		s += Size(c)
	}
	return s
}

// fingerprintNode hashes a node from its own fields and its children's
// fingerprints, and derives its determinism (of expressions, of operators)
// the same way.
func fingerprintNode(n Node) (uint64, bool, bool) {
	h := fnvOffset.byte(byte(n.Kind()))
	det, opDet := true, true
	exprsDet := func(es []Expr) {
		for _, e := range es {
			det = det && IsDeterministic(e)
		}
	}
	switch n := n.(type) {
	case *ScanNode:
		h = h.str(sourceName(n.Source)).schema(n.SourceSchema).flag(n.Projected)
		if n.Projected {
			h = h.u64(uint64(len(n.Columns)))
			for _, c := range n.Columns {
				h = h.str(c)
			}
		}
		h = h.u64(uint64(len(n.Pushed)))
		for _, p := range n.Pushed {
			h = h.byte(byte(p.Support)).expr(p.Expr)
			det = det && IsDeterministic(p.Expr)
		}
		if n.HasMaxRows {
			// Only when set, so plans without hints keep their fingerprints.
			h = h.flag(true).u64(uint64(n.MaxRows))
		}
		for _, a := range n.Assumes {
			// Only when present, so plans without assumptions keep theirs.
			h = h.str(a.Column).str(a.Min.String()).str(a.Max.String()).flag(a.NaNFree)
		}
		if len(n.Guards) > 0 {
			// Only when present, so plans without guards keep theirs.
			h = h.str("guards").exprs(n.Guards)
			exprsDet(n.Guards)
		}
	case *FilterNode:
		h = h.exprs(n.Predicates)
		exprsDet(n.Predicates)
	case *ProjectNode:
		h = h.exprs(n.Exprs)
		exprsDet(n.Exprs)
	case *WithColumnsNode:
		h = h.exprs(n.Exprs)
		exprsDet(n.Exprs)
	case *SortNode:
		h = h.u64(uint64(len(n.Keys)))
		for _, k := range n.Keys {
			h = h.expr(k.Expr).flag(k.Desc).flag(k.NullsLast)
			det = det && IsDeterministic(k.Expr)
		}
		if n.HasLimit {
			// Only when set, so plain sorts keep their fingerprints.
			h = h.flag(true).u64(uint64(n.Limit))
		}
	case *LimitNode:
		h = h.u64(uint64(n.N))
	case *TailNode:
		h = h.u64(uint64(n.N))
	case *ReverseNode:
	case *RowIndexNode:
		h = h.str(n.Name).u64(uint64(n.Offset))
	case *AsOfJoinNode:
		h = h.str(n.LeftOn).str(n.RightOn).byte(byte(n.Strategy)).flag(n.ExcludeExact).str(n.EffectiveSuffix())
		h = h.u64(uint64(len(n.LeftBy)))
		for i := range n.LeftBy {
			h = h.str(n.LeftBy[i])
		}
		h = h.u64(uint64(len(n.RightBy)))
		for i := range n.RightBy {
			h = h.str(n.RightBy[i])
		}
		h = h.flag(n.Tolerance != nil)
		if n.Tolerance != nil {
			h = h.expr(n.Tolerance)
		}
	case *TemporalGroupNode:
		h = h.byte(byte(n.Mode)).str(n.Index).byte(byte(n.Closed)).byte(byte(n.LabelKind))
		for _, e := range []Expr{n.Every, n.Period, n.Offset} {
			h = h.flag(e != nil)
			if e != nil {
				h = h.expr(e)
			}
		}
		h = h.u64(uint64(len(n.By)))
		for _, b := range n.By {
			h = h.str(b)
		}
		h = h.exprs(n.Aggs)
		exprsDet(n.Aggs)
	case *HStackNode:
	case *MergeSortedNode:
		h = h.str(n.Key)
	case *UnpivotNode:
		h = h.str(unpivotParams(n))
	case *UnnestNode:
		h = h.str(nestedColumnsParams(n.Columns))
	case *ExplodeNode:
		h = h.str(nestedColumnsParams(n.Columns))
	case *SliceNode:
		h = h.u64(uint64(n.Offset)).u64(uint64(n.Len))
	case *AggregateNode:
		h = h.exprs(n.Keys).exprs(n.Aggs)
		exprsDet(n.Keys)
		exprsDet(n.Aggs)
	case *JoinNode:
		h = h.byte(byte(n.How)).exprs(n.LeftOn).exprs(n.RightOn).str(n.EffectiveSuffix())
		if n.BuildLeft {
			// Mixed in only when set, so the fingerprints of plans without
			// the hint are what they were before it existed.
			h = h.byte(0xb1)
		}
		if n.HasOptions() {
			// Mixed in only when some option is set, so the fingerprints
			// of plans without options are what they were before.
			h = h.byte(0xb2).byte(byte(n.Coalesce)).byte(byte(n.Validate))
			if n.NullsEqual {
				h = h.byte(1)
			}
			if n.Residual != nil {
				h = h.exprs([]Expr{n.Residual})
				exprsDet([]Expr{n.Residual})
			}
		}
		exprsDet(n.LeftOn)
		exprsDet(n.RightOn)
	case *UnionNode:
		if n.Diagonal {
			h = h.byte(0xd1)
		}
	case *DistinctNode:
		h = h.u64(uint64(len(n.Subset)))
		for _, c := range n.Subset {
			h = h.str(c)
		}
	case *WindowNode:
		h = h.exprs(n.Exprs)
		exprsDet(n.Exprs)
	case *GuardNode:
		h = h.exprs(n.Exprs)
		exprsDet(n.Exprs)
	case *ExtensionNode:
		h = h.flag(n.Def != nil)
		if n.Def != nil {
			h = h.str(n.Def.Name)
		}
		opDet = n.Def.Has(DeterministicOp)
	}
	children := n.Children()
	h = h.u64(uint64(len(children)))
	for _, c := range children {
		// One call per child: hashing and determinism of an unresolved
		// child come from the same pass over its subtree.
		fp, e, o := nodeHash(c)
		h = h.u64(fp)
		det, opDet = det && e, opDet && o
	}
	return uint64(h), det, opDet
}

// ExprEqual reports structural equality of two expressions; literals compare
// by bits and UDFs by declaration, and the origins (WithOrigin) must be equal
// too, so that equal expressions raise errors naming equal texts.
// Fingerprints hash origins as well.
func ExprEqual(a, b Expr) bool {
	if a != nil && b != nil && (Origin(a) != nil || Origin(b) != nil) && !ExprEqual(Origin(a), Origin(b)) {
		return false // the same computation, written otherwise: its errors name other texts
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case *Column:
		b, ok := b.(*Column)
		return ok && a.Name == b.Name
	case *Literal:
		b, ok := b.(*Literal)
		return ok && a.Value.Identical(b.Value)
	case *Alias:
		b, ok := b.(*Alias)
		return ok && a.Name == b.Name && ExprEqual(a.Expr, b.Expr)
	case *Call:
		b, ok := b.(*Call)
		return ok && a.Fn == b.Fn && exprsEqual(a.Args, b.Args)
	case *Cast:
		b, ok := b.(*Cast)
		return ok && a.To == b.To && a.Strict == b.Strict && ExprEqual(a.Expr, b.Expr)
	case *Over:
		b, ok := b.(*Over)
		return ok && ExprEqual(a.Agg, b.Agg) && exprsEqual(a.PartitionBy, b.PartitionBy) && sortKeysEqual(a.OrderBy, b.OrderBy)
	case *UDFCall:
		b, ok := b.(*UDFCall)
		return ok && a.UDF == b.UDF && exprsEqual(a.Args, b.Args)
	}
	return false
}

// sortKeysEqual reports whether two key lists have equal expressions,
// directions and null placements, in order.
func sortKeysEqual(a, b []SortKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Desc != b[i].Desc || a[i].NullsLast != b[i].NullsLast || !ExprEqual(a[i].Expr, b[i].Expr) {
			return false
		}
	}
	return true
}

func exprsEqual(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ExprEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Equal reports structural equality of two plans: same operators, same
// parameters, same expressions, same sources (by identity, with the same
// captured schema), all the way down. Fingerprints of resolved nodes are compared first as a fast reject.
func Equal(a, b Node) bool {
	if isNilNode(a) || isNilNode(b) {
		return isNilNode(a) && isNilNode(b)
	}
	if a == b {
		return true
	}
	if a.Kind() != b.Kind() {
		return false
	}
	if a.Resolved() && b.Resolved() && Fingerprint(a) != Fingerprint(b) {
		return false
	}
	if !sameParams(a, b) {
		return false
	}
	ac, bc := a.Children(), b.Children()
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		if !Equal(ac[i], bc[i]) {
			return false
		}
	}
	return true
}

// sameParams compares the node's own fields, not its children.
func sameParams(a, b Node) bool {
	switch a := a.(type) {
	case *ScanNode:
		b := b.(*ScanNode)
		if !sameSource(a.Source, b.Source) || !a.SourceSchema.Equal(b.SourceSchema) || a.Projected != b.Projected ||
			!slices.Equal(a.Columns, b.Columns) || len(a.Pushed) != len(b.Pushed) ||
			a.HasMaxRows != b.HasMaxRows || (a.HasMaxRows && a.MaxRows != b.MaxRows) ||
			!slices.EqualFunc(a.Assumes, b.Assumes, Assumption.Equal) ||
			!slices.EqualFunc(a.Guards, b.Guards, ExprEqual) {
			return false
		}
		for i := range a.Pushed {
			if a.Pushed[i].Support != b.Pushed[i].Support || !ExprEqual(a.Pushed[i].Expr, b.Pushed[i].Expr) {
				return false
			}
		}
		return true
	case *FilterNode:
		return exprsEqual(a.Predicates, b.(*FilterNode).Predicates)
	case *ProjectNode:
		return exprsEqual(a.Exprs, b.(*ProjectNode).Exprs)
	case *WithColumnsNode:
		return exprsEqual(a.Exprs, b.(*WithColumnsNode).Exprs)
	case *SortNode:
		b := b.(*SortNode)
		if len(a.Keys) != len(b.Keys) || a.HasLimit != b.HasLimit || (a.HasLimit && a.Limit != b.Limit) {
			return false
		}
		for i := range a.Keys {
			ka, kb := a.Keys[i], b.Keys[i]
			if ka.Desc != kb.Desc || ka.NullsLast != kb.NullsLast || !ExprEqual(ka.Expr, kb.Expr) {
				return false
			}
		}
		return true
	case *LimitNode:
		return a.N == b.(*LimitNode).N
	case *TailNode:
		return a.N == b.(*TailNode).N
	case *ReverseNode:
		return true
	case *RowIndexNode:
		b := b.(*RowIndexNode)
		return a.Name == b.Name && a.Offset == b.Offset
	case *AsOfJoinNode:
		b := b.(*AsOfJoinNode)
		return a.LeftOn == b.LeftOn && a.RightOn == b.RightOn && a.Strategy == b.Strategy && a.ExcludeExact == b.ExcludeExact &&
			a.EffectiveSuffix() == b.EffectiveSuffix() && slices.Equal(a.LeftBy, b.LeftBy) && slices.Equal(a.RightBy, b.RightBy) &&
			optExprEqual(a.Tolerance, b.Tolerance)
	case *TemporalGroupNode:
		b := b.(*TemporalGroupNode)
		return a.Mode == b.Mode && a.Index == b.Index && a.Closed == b.Closed && a.LabelKind == b.LabelKind &&
			optExprEqual(a.Every, b.Every) && optExprEqual(a.Period, b.Period) && optExprEqual(a.Offset, b.Offset) &&
			slices.Equal(a.By, b.By) && exprsEqual(a.Aggs, b.Aggs)
	case *HStackNode:
		return true
	case *MergeSortedNode:
		return a.Key == b.(*MergeSortedNode).Key
	case *UnpivotNode:
		return unpivotParams(a) == unpivotParams(b.(*UnpivotNode))
	case *UnnestNode:
		return slices.Equal(a.Columns, b.(*UnnestNode).Columns)
	case *ExplodeNode:
		return slices.Equal(a.Columns, b.(*ExplodeNode).Columns)
	case *SliceNode:
		b := b.(*SliceNode)
		return a.Offset == b.Offset && a.Len == b.Len
	case *AggregateNode:
		b := b.(*AggregateNode)
		return exprsEqual(a.Keys, b.Keys) && exprsEqual(a.Aggs, b.Aggs)
	case *JoinNode:
		b := b.(*JoinNode)
		return a.How == b.How && a.EffectiveSuffix() == b.EffectiveSuffix() && a.BuildLeft == b.BuildLeft &&
			exprsEqual(a.LeftOn, b.LeftOn) && exprsEqual(a.RightOn, b.RightOn) &&
			a.Coalesce == b.Coalesce && a.NullsEqual == b.NullsEqual && a.Validate == b.Validate &&
			(a.Residual == nil) == (b.Residual == nil) && (a.Residual == nil || ExprEqual(a.Residual, b.Residual))
	case *UnionNode:
		return a.Diagonal == b.(*UnionNode).Diagonal
	case *DistinctNode:
		return slices.Equal(a.Subset, b.(*DistinctNode).Subset)
	case *WindowNode:
		return exprsEqual(a.Exprs, b.(*WindowNode).Exprs)
	case *GuardNode:
		return exprsEqual(a.Exprs, b.(*GuardNode).Exprs)
	case *ExtensionNode:
		return a.Def == b.(*ExtensionNode).Def
	}
	return false
}

// optExprEqual compares two optional expressions (nil equals only nil).
func optExprEqual(a, b Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return exprsEqual([]Expr{a}, []Expr{b})
}
