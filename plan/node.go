package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is a logical plan operator (docs/design.md §5). The interface is sealed: the
// concrete types are the *...Node types of this package, and a type switch
// over them is exhaustive. Nodes are immutable; WithChildren and the rules
// build new nodes. A node returned by Resolve carries its output schema and
// fingerprint, and so does every node below it.
type Node interface {
	// Kind names the operator.
	Kind() Kind
	// Children returns the inputs in evaluation order (left before right).
	Children() []Node
	// WithChildren returns an unresolved copy with the inputs replaced.
	// children holds the new inputs in the order Children returns them: none
	// for a scan (ignored), exactly one for a single-input node, exactly two
	// for a join (left, right), and for a union or an extension the copy's
	// inputs (any number; Resolve checks it). Passing a fixed-arity node
	// another number of children is a programming error, not a plan error:
	// WithChildren then panics (index out of range) instead of returning
	// one. Rules pass back exactly what Children returned, rewritten.
	WithChildren(children []Node) Node
	// Schema returns the output schema; it is the zero Schema until the node
	// is resolved.
	Schema() Schema
	// Resolved reports whether Resolve has computed this node's schema.
	Resolved() bool
	// Label is the one-line description used by explain, traces and errors.
	Label() string
	meta() *nodeMeta
}

// Kind names a node type.
type Kind uint8

// The node kinds.
const (
	KindInvalid Kind = iota
	KindScan
	KindFilter
	KindProject
	KindWithColumns
	KindSort
	KindLimit
	KindSlice
	KindAggregate
	KindJoin
	KindUnion
	KindDistinct
	KindWindow
	KindExtension
	KindGuard
	KindTail
	KindReverse
	KindRowIndex
	KindAsOfJoin
	KindTemporalGroup
	KindHStack
	KindMergeSorted
	KindUnpivot
	KindUnnest
	KindExplode
	kindCount
)

var kindNames = [kindCount]string{KindInvalid: "invalid", KindScan: "scan", KindFilter: "filter",
	KindProject: "project", KindWithColumns: "with_columns", KindSort: "sort", KindLimit: "limit",
	KindSlice: "slice", KindAggregate: "aggregate", KindJoin: "join", KindUnion: "union",
	KindDistinct: "distinct", KindWindow: "window", KindExtension: "extension", KindGuard: "guard",
	KindTail: "tail", KindReverse: "reverse", KindRowIndex: "row_index",
	KindAsOfJoin: "asof_join", KindTemporalGroup: "temporal_group",
	KindHStack: "hstack", KindMergeSorted: "merge_sorted", KindUnpivot: "unpivot",
	KindUnnest: "unnest", KindExplode: "explode"}

// String returns the kind's name as written in plan files ("with_columns").
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "invalid"
}

// Kinds lists every node kind.
func Kinds() []Kind {
	out := make([]Kind, 0, kindCount-1)
	for k := KindScan; k < kindCount; k++ {
		out = append(out, k)
	}
	return out
}

// nodeMeta is what Resolve computes for a node. It is embedded by value in
// every node struct, so its address identifies the node: seal records it in
// owner, and a copy of a resolved node struct (`c := *f; c.Predicates =
// ...`), whose meta sits at another address, is unresolved — its cached
// schema and fingerprint belong to the node it was copied from.
type nodeMeta struct {
	owner         *nodeMeta
	resolved      bool
	schema        Schema
	fingerprint   uint64
	deterministic bool // no non-deterministic expression in the subtree
	// opsDeterministic: every extension in the subtree declares
	// DeterministicOp.
	opsDeterministic bool
	size             int // nodes in the subtree
}

func (m *nodeMeta) meta() *nodeMeta { return m }

// valid reports whether the meta holds a resolution of this very node (not
// of a node it was copied from).
func (m *nodeMeta) valid() bool { return m.resolved && m.owner == m }

// Schema returns the resolved output schema (the zero Schema when the node
// is not resolved, a copy of a resolved node struct included).
func (m *nodeMeta) Schema() Schema {
	if !m.valid() {
		return Schema{}
	}
	return m.schema
}

// Resolved reports whether Resolve computed this node's schema. A copy of
// a resolved node struct is not resolved: Resolve checks it again.
func (m *nodeMeta) Resolved() bool { return m.valid() }

// ScanNode reads a source. Columns, when Projected, lists the columns the
// plan needs (a pruning result; it may be empty, in which case the scan
// still yields the source's row count). Pushed lists the conjuncts the
// source accepted, each applied by the source.
type ScanNode struct {
	nodeMeta
	Source Source
	// SourceSchema is the source's schema, captured once when the node was
	// built.
	SourceSchema Schema
	Projected    bool
	Columns      []string
	Pushed       []PushedPredicate
	// HasMaxRows and MaxRows are the optimizer's max-rows hint (a
	// limit_pushdown result): the plan reads only the first MaxRows rows of
	// the scan's output (Resolve checks that a limit or slice of at most
	// that many rows sits above it, through projections only), so a source
	// may stop once it has produced them. The limit above still enforces
	// the count: a source may return more, and the reference ignores the
	// hint (docs/semantics.md, scan). MaxRows is meaningful only when
	// HasMaxRows is set, and 0 is a hint like any other (limit 0).
	HasMaxRows bool
	MaxRows    int64
	// Assumes lists the facts of the source's columns that the optimized
	// plan relies on (the range_proofs rule writes them: each proof of a
	// partial expression's totality names the facts it used; a plan file
	// may state them by hand). Every executor checks each of them against
	// every row the source holds, whether or not the plan reads its column
	// (no pushed conjunct, max-rows hint or projection skips a row or an
	// assumed column before the check), and fails with a source_error when
	// one does not hold (docs/semantics.md,
	// scan), so a source that states wrong facts cannot make the plan's
	// answer wrong. Resolve checks that each names a distinct int32, int64
	// or float64 column of the source (plan.ValidateAssumptions).
	Assumes []Assumption
	// Guards lists error guards the scan evaluates over every row its
	// source yields, after the assumptions and before any pushed conjunct
	// (the error_guards rule moves a guard into a scan so that the total
	// conjuncts it split from a partial one can be pushed into the source,
	// docs/adr/0004-error-guards.md, "Guards in a scan"). Each is a row
	// expression over the source's columns, evaluated as a guard node
	// evaluates it (docs/semantics.md, guard and scan): its first error is
	// raised, its value dropped. Like assumptions, guards meet every row
	// the source holds and every column they read, whatever the scan's
	// projection, pushed conjuncts or max-rows hint.
	Guards []Expr
	// schemaErr records a source whose Schema panicked when Scan captured
	// it; Resolve reports it.
	schemaErr error
}

// PushedPredicate is a conjunct handed to a source, with the source's
// classification (Exact or Inexact).
type PushedPredicate struct {
	Expr    Expr
	Support PredicateSupport
}

// FilterNode keeps the rows for which every conjunct is valid and true. Each
// conjunct evaluates over all input rows, in list order.
type FilterNode struct {
	nodeMeta
	Input      Node
	Predicates []Expr
}

// ProjectNode computes one output column per expression.
type ProjectNode struct {
	nodeMeta
	Input Node
	Exprs []Expr
}

// WithColumnsNode adds or replaces columns. Every expression reads the
// node's input, not its siblings; a name already in the input is replaced in
// place, a new name is appended.
type WithColumnsNode struct {
	nodeMeta
	Input Node
	Exprs []Expr
}

// SortKey is one key of a sort.
type SortKey struct {
	Expr      Expr
	Desc      bool
	NullsLast bool
}

// SortNode orders rows stably by its keys, floats by the total order
// -Inf < ... < -0.0 < +0.0 < ... < +Inf < NaN. With HasLimit it is a top-k
// sort: it yields only the first Limit rows of that order, exactly what a
// limit of Limit over the sort would keep (every key is still evaluated
// over every input row, so the same errors are raised); limit_pushdown
// folds a limit into the sort below it so that executors keep only k rows
// while sorting.
type SortNode struct {
	nodeMeta
	Input Node
	Keys  []SortKey
	// HasLimit makes the sort a top-k sort of Limit rows; Limit is
	// meaningful only when HasLimit is set (0 keeps no row).
	HasLimit bool
	Limit    int64
}

// LimitNode keeps the first N rows.
type LimitNode struct {
	nodeMeta
	Input Node
	N     int64
}

// SliceNode keeps Len rows starting at row Offset; a negative Len keeps
// every row from Offset to the end (docs/semantics.md, slice).
type SliceNode struct {
	nodeMeta
	Input  Node
	Offset int64
	Len    int64
}

// AggregateNode groups by Keys (groups in first-appearance order, keys first
// in the output) and computes Aggs per group; with no keys it yields exactly
// one row.
type AggregateNode struct {
	nodeMeta
	Input Node
	Keys  []Expr
	Aggs  []Expr
}

// JoinKind selects the join semantics.
type JoinKind uint8

// The join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
	CrossJoin
)

var joinKindNames = [...]string{"inner", "left", "right", "full", "semi", "anti", "cross"}

// String returns the kind's name as written in plan files.
func (k JoinKind) String() string {
	if int(k) < len(joinKindNames) {
		return joinKindNames[k]
	}
	return "invalid"
}

// ParseJoinKind maps a plan-file join kind to its JoinKind.
func ParseJoinKind(s string) (JoinKind, bool) {
	for i, n := range joinKindNames {
		if n == s {
			return JoinKind(i), true
		}
	}
	return 0, false
}

// JoinKinds lists every join kind.
func JoinKinds() []JoinKind {
	return []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin, SemiJoin, AntiJoin, CrossJoin}
}

// DefaultJoinSuffix is appended to colliding right-side column names.
const DefaultJoinSuffix = "_right"

// JoinNode joins two inputs on equal keys (none for a cross join). Output is
// in probe order: left rows in left order, each followed by its matches in
// right order.
type JoinNode struct {
	nodeMeta
	Left, Right Node
	// How is the join kind (named as in Polars, since Kind is the node kind).
	How             JoinKind
	LeftOn, RightOn []Expr
	// Suffix renames colliding right columns; "" means DefaultJoinSuffix.
	Suffix string
	// BuildLeft asks the executor to hash the left input instead of the
	// right one (the default): the build_side rule sets it when the left
	// input is provably the smaller one, so the hash table holds fewer
	// rows. It changes nothing observable — the output is still in probe
	// order, left rows in left order each followed by its matches in right
	// order (docs/semantics.md) — and Resolve accepts it on inner joins
	// only, the one kind the executor builds on either side. It is part of
	// the plan (fingerprints, Equal, plan files, explain).
	BuildLeft bool
	// Coalesce says whether mergeable key pairs (two plain columns of one
	// name) become one output column (docs/semantics.md, join options).
	Coalesce JoinCoalesce
	// NullsEqual makes a null key match a null key.
	NullsEqual bool
	// Validate asserts the uniqueness of one or both inputs' keys; a
	// violation raises validation_error.
	Validate JoinValidate
	// Residual, on a semi or anti join only, is a boolean predicate over
	// the pair schema (left columns, then right columns, colliding right
	// names suffixed) that a key-matched pair must satisfy to count.
	Residual Expr

	layout *JoinLayout // set by Resolve on the node it seals
}

// JoinCoalesce says what becomes of a join's mergeable key pairs.
type JoinCoalesce uint8

// The coalesce states; the zero value is CoalesceAuto.
const (
	// CoalesceAuto merges the pairs of every kind but full, whose pairs it
	// keeps.
	CoalesceAuto JoinCoalesce = iota
	// CoalesceMerge merges the pairs of every kind, full included.
	CoalesceMerge
	// CoalesceKeep keeps both columns of every pair.
	CoalesceKeep
)

var coalesceNames = [...]string{"auto", "coalesce", "keep"}

// String returns the state as written in plan files.
func (c JoinCoalesce) String() string {
	if int(c) < len(coalesceNames) {
		return coalesceNames[c]
	}
	return "invalid"
}

// ParseJoinCoalesce maps a plan-file coalesce state to its JoinCoalesce.
func ParseJoinCoalesce(s string) (JoinCoalesce, bool) {
	for i, n := range coalesceNames {
		if n == s {
			return JoinCoalesce(i), true
		}
	}
	return 0, false
}

// JoinValidate is the key uniqueness a join asserts of its inputs.
type JoinValidate uint8

// The validations; the zero value is ValidateManyToMany (no check).
const (
	// ValidateManyToMany checks nothing.
	ValidateManyToMany JoinValidate = iota
	// ValidateOneToOne checks the left input, then the right.
	ValidateOneToOne
	// ValidateOneToMany checks the left input.
	ValidateOneToMany
	// ValidateManyToOne checks the right input.
	ValidateManyToOne
)

var validateNames = [...]string{"m:m", "1:1", "1:m", "m:1"}

// String returns the validation as written in plan files.
func (v JoinValidate) String() string {
	if int(v) < len(validateNames) {
		return validateNames[v]
	}
	return "invalid"
}

// ParseJoinValidate maps a plan-file validation to its JoinValidate.
func ParseJoinValidate(s string) (JoinValidate, bool) {
	for i, n := range validateNames {
		if n == s {
			return JoinValidate(i), true
		}
	}
	return 0, false
}

// ChecksLeft reports whether the validation asserts unique left keys.
func (v JoinValidate) ChecksLeft() bool { return v == ValidateOneToOne || v == ValidateOneToMany }

// ChecksRight reports whether the validation asserts unique right keys.
func (v JoinValidate) ChecksRight() bool { return v == ValidateOneToOne || v == ValidateManyToOne }

// JoinSide names a join input.
type JoinSide uint8

// The join sides.
const (
	SideLeft JoinSide = iota
	SideRight
)

// String returns "left" or "right".
func (s JoinSide) String() string {
	if s == SideRight {
		return "right"
	}
	return "left"
}

// JoinColumn is where one output column of a join comes from.
type JoinColumn struct {
	// Name is the output name (suffixed when it collides).
	Name string
	// Side and Ordinal locate the column in that side's schema.
	Side    JoinSide
	Ordinal int
	// CoalescedWith is the ordinal, in the other side's schema, of the
	// key column merged into this one, or -1. Where an output row has no
	// row of Side (a full join's unmatched right rows), the value is that
	// column's, converted to Type; without a merged column it is null.
	CoalescedWith int
	// Type is the output column's type (a merged full-join key has the
	// keys' compare type).
	Type Type
}

// JoinLayout is the shape of a resolved join's output, computed once by
// Resolve so that no executor re-derives it: the output columns in order
// and the compare type of each key pair.
type JoinLayout struct {
	Columns []JoinColumn
	// KeyTypes[i] is the type LeftOn[i] and RightOn[i] compare in.
	KeyTypes []Type
	// PairNames are the names of the pair schema a residual reads: the
	// left columns, then the right columns, colliding right names
	// suffixed (nil for a join whose residual is nil).
	PairNames []string
}

// LayoutOf returns a resolved join's layout, ok=false when n is not
// resolved (a copy of a resolved node struct included).
func LayoutOf(n *JoinNode) (*JoinLayout, bool) {
	if n == nil || !n.valid() || n.layout == nil {
		return nil, false
	}
	return n.layout, true
}

// Merges reports whether the join merges its mergeable key pairs (the
// coalesce state resolved for its kind).
func (n *JoinNode) Merges() bool {
	switch n.Coalesce {
	case CoalesceMerge:
		return true
	case CoalesceKeep:
		return false
	}
	return n.How != FullJoin
}

// HasOptions reports whether any option differs from its zero value.
func (n *JoinNode) HasOptions() bool {
	return n.Coalesce != CoalesceAuto || n.NullsEqual || n.Validate != ValidateManyToMany || n.Residual != nil
}

// UnionNode concatenates inputs with identical column names and types, or,
// when Diagonal, inputs with different column sets (missing columns filled
// with nulls, columns in first-appearance order).
type UnionNode struct {
	nodeMeta
	Inputs []Node
	// Diagonal accepts inputs with different column sets.
	Diagonal bool
}

// DistinctNode keeps the first row of each distinct Subset key (all columns
// when Subset is empty), in input order.
type DistinctNode struct {
	nodeMeta
	Input  Node
	Subset []string
}

// WindowNode computes window expressions (each an *Alias of an *Over, named
// by Resolve) and appends them to its input. Resolve synthesizes it under the
// project or with_columns that used over(); that parent sees the extra
// columns, and a with_columns parent does not pass them through.
type WindowNode struct {
	nodeMeta
	Input Node
	Exprs []Expr
}

// ExtensionNode is a host-defined operator, opaque to the optimizer apart
// from the properties its declaration lists.
type ExtensionNode struct {
	nodeMeta
	Def    *ExtensionDef
	Inputs []Node
}

// GuardNode is an error guard (docs/adr/0004-error-guards.md): it
// evaluates its expressions over every input row, in list order, exactly
// as a with_columns holding them would, raises the first error they raise,
// and yields its input unchanged — no column is added. The optimizer's
// error_guards rule leaves one where a filter moved below a node whose
// partial expressions it crossed, so that they still meet every row they
// met before while their values are computed only on the surviving rows.
type GuardNode struct {
	nodeMeta
	Input Node
	Exprs []Expr
}

// Kind returns KindGuard.
func (*GuardNode) Kind() Kind { return KindGuard }

// Children returns the input.
func (n *GuardNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over children[0].
func (n *GuardNode) WithChildren(ch []Node) Node { return &GuardNode{Input: ch[0], Exprs: n.Exprs} }

// Label renders "guard [a * 2 + 1]".
func (n *GuardNode) Label() string { return "guard [" + renderList(n.Exprs) + "]" }

// Kind returns KindScan.
func (*ScanNode) Kind() Kind { return KindScan }

// Kind returns KindFilter.
func (*FilterNode) Kind() Kind { return KindFilter }

// Kind returns KindProject.
func (*ProjectNode) Kind() Kind { return KindProject }

// Kind returns KindWithColumns.
func (*WithColumnsNode) Kind() Kind { return KindWithColumns }

// Kind returns KindSort.
func (*SortNode) Kind() Kind { return KindSort }

// Kind returns KindLimit.
func (*LimitNode) Kind() Kind { return KindLimit }

// Kind returns KindSlice.
func (*SliceNode) Kind() Kind { return KindSlice }

// Kind returns KindAggregate.
func (*AggregateNode) Kind() Kind { return KindAggregate }

// Kind returns KindJoin.
func (*JoinNode) Kind() Kind { return KindJoin }

// Kind returns KindUnion.
func (*UnionNode) Kind() Kind { return KindUnion }

// Kind returns KindDistinct.
func (*DistinctNode) Kind() Kind { return KindDistinct }

// Kind returns KindWindow.
func (*WindowNode) Kind() Kind { return KindWindow }

// Kind returns KindExtension.
func (*ExtensionNode) Kind() Kind { return KindExtension }

// Children returns nil: a scan is a leaf.
func (*ScanNode) Children() []Node { return nil }

// Children returns the input.
func (n *FilterNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *ProjectNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *WithColumnsNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *SortNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *LimitNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *SliceNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *AggregateNode) Children() []Node { return []Node{n.Input} }

// Children returns the left and right inputs.
func (n *JoinNode) Children() []Node { return []Node{n.Left, n.Right} }

// Children returns the inputs.
func (n *UnionNode) Children() []Node { return append([]Node(nil), n.Inputs...) }

// Children returns the input.
func (n *DistinctNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *WindowNode) Children() []Node { return []Node{n.Input} }

// Children returns the inputs.
func (n *ExtensionNode) Children() []Node { return append([]Node(nil), n.Inputs...) }

// WithChildren returns an unresolved copy of the scan.
func (n *ScanNode) WithChildren([]Node) Node {
	c := *n
	c.nodeMeta = nodeMeta{}
	return &c
}

// WithChildren returns an unresolved copy over children[0].
func (n *FilterNode) WithChildren(ch []Node) Node {
	return &FilterNode{Input: ch[0], Predicates: n.Predicates}
}

// WithChildren returns an unresolved copy over children[0].
func (n *ProjectNode) WithChildren(ch []Node) Node {
	return &ProjectNode{Input: ch[0], Exprs: n.Exprs}
}

// WithChildren returns an unresolved copy over children[0].
func (n *WithColumnsNode) WithChildren(ch []Node) Node {
	return &WithColumnsNode{Input: ch[0], Exprs: n.Exprs}
}

// WithChildren returns an unresolved copy over children[0].
func (n *SortNode) WithChildren(ch []Node) Node {
	return &SortNode{Input: ch[0], Keys: n.Keys, HasLimit: n.HasLimit, Limit: n.Limit}
}

// WithChildren returns an unresolved copy over children[0].
func (n *LimitNode) WithChildren(ch []Node) Node { return &LimitNode{Input: ch[0], N: n.N} }

// WithChildren returns an unresolved copy over children[0].
func (n *SliceNode) WithChildren(ch []Node) Node {
	return &SliceNode{Input: ch[0], Offset: n.Offset, Len: n.Len}
}

// WithChildren returns an unresolved copy over children[0].
func (n *AggregateNode) WithChildren(ch []Node) Node {
	return &AggregateNode{Input: ch[0], Keys: n.Keys, Aggs: n.Aggs}
}

// WithChildren returns an unresolved copy over the two children.
func (n *JoinNode) WithChildren(ch []Node) Node {
	return &JoinNode{Left: ch[0], Right: ch[1], How: n.How, LeftOn: n.LeftOn, RightOn: n.RightOn, Suffix: n.Suffix, BuildLeft: n.BuildLeft,
		Coalesce: n.Coalesce, NullsEqual: n.NullsEqual, Validate: n.Validate, Residual: n.Residual}
}

// WithChildren returns an unresolved copy over the children.
func (n *UnionNode) WithChildren(ch []Node) Node {
	return &UnionNode{Inputs: append([]Node(nil), ch...), Diagonal: n.Diagonal}
}

// WithChildren returns an unresolved copy over children[0].
func (n *DistinctNode) WithChildren(ch []Node) Node {
	return &DistinctNode{Input: ch[0], Subset: n.Subset}
}

// WithChildren returns an unresolved copy over children[0].
func (n *WindowNode) WithChildren(ch []Node) Node { return &WindowNode{Input: ch[0], Exprs: n.Exprs} }

// WithChildren returns an unresolved copy over the children.
func (n *ExtensionNode) WithChildren(ch []Node) Node {
	return &ExtensionNode{Def: n.Def, Inputs: append([]Node(nil), ch...)}
}

// EffectiveSuffix returns the suffix for colliding right names.
func (n *JoinNode) EffectiveSuffix() string {
	if n.Suffix == "" {
		return DefaultJoinSuffix
	}
	return n.Suffix
}

// Label renders "scan t", with the projection, the pushed conjuncts and the
// max-rows hint if any ("scan t columns=[a] max_rows=10").
func (n *ScanNode) Label() string {
	var b strings.Builder
	b.WriteString("scan ")
	b.WriteString(sourceName(n.Source))
	if n.Projected {
		b.WriteString(" columns=[" + strings.Join(quoteNames(n.Columns), ", ") + "]")
	}
	if len(n.Pushed) > 0 {
		parts := make([]string, len(n.Pushed))
		for i, p := range n.Pushed {
			parts[i] = render(p.Expr, 0) + " (" + p.Support.String() + ")"
		}
		b.WriteString(" pushed=[" + strings.Join(parts, ", ") + "]")
	}
	if n.HasMaxRows {
		b.WriteString(" max_rows=" + strconv.FormatInt(n.MaxRows, 10))
	}
	if len(n.Assumes) > 0 {
		parts := make([]string, len(n.Assumes))
		for i, a := range n.Assumes {
			parts[i] = a.String()
		}
		b.WriteString(" assumes=[" + strings.Join(parts, "; ") + "]")
	}
	if len(n.Guards) > 0 {
		b.WriteString(" guards=[" + renderList(n.Guards) + "]")
	}
	return b.String()
}

// Label renders "filter [a > 1, b != 0]".
func (n *FilterNode) Label() string { return "filter [" + renderList(n.Predicates) + "]" }

// Label renders "project [a, b * 2 as c]".
func (n *ProjectNode) Label() string { return "project [" + renderList(n.Exprs) + "]" }

// Label renders "with_columns [a / b as x]".
func (n *WithColumnsNode) Label() string { return "with_columns [" + renderList(n.Exprs) + "]" }

// Label renders "sort [a desc nulls_last, b]", and a top-k sort's limit:
// "sort [a desc] limit=10".
func (n *SortNode) Label() string {
	parts := make([]string, len(n.Keys))
	for i, k := range n.Keys {
		parts[i] = render(k.Expr, 0)
		if k.Desc {
			parts[i] += " desc"
		}
		if k.NullsLast {
			parts[i] += " nulls_last"
		}
	}
	label := "sort [" + strings.Join(parts, ", ") + "]"
	if n.HasLimit {
		label += " limit=" + strconv.FormatInt(n.Limit, 10)
	}
	return label
}

// Label renders "limit 10".
func (n *LimitNode) Label() string { return "limit " + strconv.FormatInt(n.N, 10) }

// Label renders "slice offset=5 len=10".
func (n *SliceNode) Label() string {
	return fmt.Sprintf("slice offset=%d len=%d", n.Offset, n.Len)
}

// Label renders "aggregate keys=[k] aggs=[sum(a) as s]".
func (n *AggregateNode) Label() string {
	return "aggregate keys=[" + renderList(n.Keys) + "] aggs=[" + renderList(n.Aggs) + "]"
}

// Label renders "join inner on=[k = k]" (the suffix only when not
// default, then "build=left" when the left input is hashed).
func (n *JoinNode) Label() string {
	var b strings.Builder
	b.WriteString("join ")
	b.WriteString(n.How.String())
	if len(n.LeftOn) > 0 || len(n.RightOn) > 0 {
		parts := make([]string, 0, len(n.LeftOn))
		for i := range n.LeftOn {
			r := "?"
			if i < len(n.RightOn) {
				r = render(n.RightOn[i], 0)
			}
			parts = append(parts, render(n.LeftOn[i], 0)+" = "+r)
		}
		for i := len(n.LeftOn); i < len(n.RightOn); i++ {
			parts = append(parts, "? = "+render(n.RightOn[i], 0))
		}
		b.WriteString(" on=[" + strings.Join(parts, ", ") + "]")
	}
	if n.Suffix != "" && n.Suffix != DefaultJoinSuffix {
		b.WriteString(" suffix=" + strconv.Quote(n.Suffix))
	}
	if n.BuildLeft {
		b.WriteString(" build=left")
	}
	if n.Coalesce != CoalesceAuto {
		b.WriteString(" coalesce=" + n.Coalesce.String())
	}
	if n.NullsEqual {
		b.WriteString(" nulls_equal")
	}
	if n.Validate != ValidateManyToMany {
		b.WriteString(" validate=" + n.Validate.String())
	}
	if n.Residual != nil {
		b.WriteString(" residual=[" + render(n.Residual, 0) + "]")
	}
	return b.String()
}

// Label renders "union", or "union diagonal".
func (n *UnionNode) Label() string {
	if n.Diagonal {
		return "union diagonal"
	}
	return "union"
}

// Label renders "distinct [a, b]", or "distinct" over all columns.
func (n *DistinctNode) Label() string {
	if len(n.Subset) == 0 {
		return "distinct"
	}
	return "distinct [" + strings.Join(quoteNames(n.Subset), ", ") + "]"
}

// Label renders "window [sum(a).over(k) as __over_0]".
func (n *WindowNode) Label() string { return "window [" + renderList(n.Exprs) + "]" }

// Label renders "extension identity".
func (n *ExtensionNode) Label() string {
	if n.Def == nil {
		return "extension <undeclared>"
	}
	return "extension " + n.Def.Name
}

func sourceName(s Source) (name string) {
	if s == nil {
		return "<no source>"
	}
	defer func() {
		if recover() != nil {
			name = "<source>"
		}
	}()
	return quoteName(s.Name())
}

func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteName(n)
	}
	return out
}

// isNilNode reports whether n is nil or a nil pointer of a node type (a
// typed nil, which a buggy rewrite can produce); such a node has no fields
// to read.
func isNilNode(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *ScanNode:
		return n == nil
	case *FilterNode:
		return n == nil
	case *ProjectNode:
		return n == nil
	case *WithColumnsNode:
		return n == nil
	case *SortNode:
		return n == nil
	case *LimitNode:
		return n == nil
	case *SliceNode:
		return n == nil
	case *AggregateNode:
		return n == nil
	case *JoinNode:
		return n == nil
	case *UnionNode:
		return n == nil
	case *DistinctNode:
		return n == nil
	case *WindowNode:
		return n == nil
	case *ExtensionNode:
		return n == nil
	case *GuardNode:
		return n == nil
	case *TailNode:
		return n == nil
	case *ReverseNode:
		return n == nil
	case *RowIndexNode:
		return n == nil
	case *AsOfJoinNode:
		return n == nil
	case *TemporalGroupNode:
		return n == nil
	case *HStackNode:
		return n == nil
	case *MergeSortedNode:
		return n == nil
	case *UnpivotNode:
		return n == nil
	case *UnnestNode:
		return n == nil
	case *ExplodeNode:
		return n == nil
	}
	return false
}

// TailNode keeps the last N rows of its input, in input order
// (docs/semantics.md, tail): an executor holds at most N rows at a time.
type TailNode struct {
	nodeMeta
	Input Node
	N     int64
}

// ReverseNode yields its input's rows in the opposite order
// (docs/semantics.md, reverse).
type ReverseNode struct {
	nodeMeta
	Input Node
}

// RowIndexNode prepends a non-null int64 column Name numbering the input's
// rows from Offset, in input order (docs/semantics.md, row_index).
type RowIndexNode struct {
	nodeMeta
	Input  Node
	Name   string
	Offset int64
}

// Kind returns KindTail.
func (*TailNode) Kind() Kind { return KindTail }

// Kind returns KindReverse.
func (*ReverseNode) Kind() Kind { return KindReverse }

// Kind returns KindRowIndex.
func (*RowIndexNode) Kind() Kind { return KindRowIndex }

// Children returns the input.
func (n *TailNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *ReverseNode) Children() []Node { return []Node{n.Input} }

// Children returns the input.
func (n *RowIndexNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over children[0].
func (n *TailNode) WithChildren(ch []Node) Node { return &TailNode{Input: ch[0], N: n.N} }

// WithChildren returns an unresolved copy over children[0].
func (n *ReverseNode) WithChildren(ch []Node) Node { return &ReverseNode{Input: ch[0]} }

// WithChildren returns an unresolved copy over children[0].
func (n *RowIndexNode) WithChildren(ch []Node) Node {
	return &RowIndexNode{Input: ch[0], Name: n.Name, Offset: n.Offset}
}

// Label renders "tail 10".
func (n *TailNode) Label() string { return "tail " + strconv.FormatInt(n.N, 10) }

// Label renders "reverse".
func (n *ReverseNode) Label() string { return "reverse" }

// Label renders "row_index idx offset=0".
func (n *RowIndexNode) Label() string {
	return "row_index " + quoteName(n.Name) + " offset=" + strconv.FormatInt(n.Offset, 10)
}
