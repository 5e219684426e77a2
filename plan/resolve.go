package plan

import (
	"fmt"
	"math"
	"strconv"
)

// Resolve checks a plan's names and types and returns an equivalent tree in
// which every node carries its output schema and fingerprint. It synthesizes
// a window node under every project or with_columns that uses over().
//
// Resolve does no I/O (a scan's source schema was captured when the scan was
// built) and visits only unresolved nodes: a resolved node's subtree is
// resolved and immutable, so after a rewrite Resolve costs only the new
// nodes. Errors are *Error values naming the node (its label), its path in
// plan-file syntax ("plan.input.predicates[1]") and the expression at fault.
//
// A window node must sit directly under a project or with_columns (its
// owner, see OwnedWindow); anywhere else, the root included, it is an
// invalid_plan error.
func Resolve(root Node) (Node, error) {
	if w, ok := root.(*WindowNode); ok && w != nil {
		return nil, strayWindow(w, nil, "the root")
	}
	r := resolver{done: map[Node]Node{}}
	return r.at(root, nil)
}

// resolver is one Resolve call. done maps each unresolved node already
// resolved to its result, so that a subtree shared by pointer (union(S, S),
// nested) is resolved once, not once per path to it, and stays shared.
type resolver struct {
	done map[Node]Node
}

// Path is a location in a plan in plan-file syntax ("plan.input.left",
// "plan.inputs[1].predicates[0]"), the form errors, traces and explain use.
// Each Path is one link to its parent's, so a walk builds the paths of deep
// plans in constant space per node and renders them only when asked. The
// nil *Path (and the zero Path) is the root, "plan".
type Path struct {
	parent *Path
	seg    string
	n      int32 // segments from the root
}

// String renders the path: "plan" followed by every segment. A run of eight
// or more equal segments is written once with its count, "plan.input*20000",
// so that the path of a node deep in a long chain stays short.
func (p *Path) String() string {
	segs := make([]string, p.depth())
	for q := p; q != nil && q.n > 0; q = q.parent { // the zero Path is the root
		segs[q.n-1] = q.seg
	}
	return writePath(segs)
}

// Child returns the path of seg (".input", ".keys[0].expr") below p.
func (p *Path) Child(seg string) *Path { return &Path{parent: p, seg: seg, n: int32(p.depth() + 1)} }

// Index returns the path of the i-th entry of a list field below p
// (".predicates[1]").
func (p *Path) Index(field string, i int) *Path {
	return p.Child("." + field + "[" + strconv.Itoa(i) + "]")
}

// Input returns the path of the i-th child of n (as Children orders them),
// n being at p: ".left" and ".right" for a join, ".inputs[i]" for a union
// and for an extension with several inputs, ".input" otherwise.
func (p *Path) Input(n Node, i int) *Path {
	switch n.(type) {
	case *JoinNode, *AsOfJoinNode:
		if i == 0 {
			return p.Child(".left")
		}
		return p.Child(".right")
	case *UnionNode, *HStackNode:
		return p.Index("inputs", i)
	case *MergeSortedNode:
		if i == 0 {
			return p.Child(".left")
		}
		return p.Child(".right")
	case *ExtensionNode:
		if len(n.Children()) != 1 {
			return p.Index("inputs", i)
		}
	}
	return p.Child(".input")
}

// located fills in where an error happened, keeping the innermost location.
func located(err error, n Node, p *Path) error {
	pe, ok := AsError(err)
	if !ok {
		return &Error{Kind: InvalidPlan, Row: -1, Node: n.Label(), Path: p.String(), Msg: err.Error(), Err: err}
	}
	if pe.Path != "" && pe.Node != "" {
		return pe
	}
	c := *pe
	if c.Node == "" {
		c.Node = n.Label()
	}
	if c.Path == "" {
		c.Path = p.String()
	}
	return &c
}

func (r *resolver) at(n Node, p *Path) (Node, error) {
	if isNilNode(n) {
		return nil, &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Msg: "missing input node"}
	}
	if n.Resolved() {
		return n, nil
	}
	if out, ok := r.done[n]; ok {
		return out, nil
	}
	if err := checkDepth(n, p); err != nil {
		return nil, located(err, n, p)
	}
	children := n.Children()
	resolved := make([]Node, len(children))
	for i, c := range children {
		if w, ok := c.(*WindowNode); ok && w != nil && !canOwnWindow(n) {
			return nil, strayWindow(w, p.Input(n, i), "the input of "+n.Kind().String()+" "+n.Label())
		}
		res, err := r.at(c, p.Input(n, i))
		if err != nil {
			if isNilNode(c) {
				// A missing input is the parent's fault: name the parent.
				err = located(err, n, p)
			}
			return nil, err
		}
		resolved[i] = res
	}
	if err := checkHints(n, resolved, p); err != nil {
		return nil, err
	}
	// Always a fresh copy: Resolve never writes into a caller's node.
	orig := n
	n = n.WithChildren(resolved)
	out, err := r.node(n, p)
	if err != nil {
		return nil, located(err, n, p)
	}
	r.done[orig] = out
	return out, nil
}

// node computes n's schema from its resolved children and stores it with
// the fingerprint. n is a fresh copy owned by the caller.
func (r *resolver) node(n Node, p *Path) (Node, error) {
	var schema Schema
	var err error
	if u, ok := n.(*UnionNode); ok {
		m, promoted, perr := r.promoteUnion(u, p)
		if perr != nil {
			return nil, perr
		}
		if promoted {
			n = m
		}
	}
	if u, ok := n.(*UnpivotNode); ok {
		m, promoted, perr := r.promoteUnpivot(u, p)
		if perr != nil {
			return nil, perr
		}
		if promoted {
			n = m
		}
	}
	switch n := n.(type) {
	case *ScanNode:
		schema, err = resolveScan(n, p)
	case *FilterNode:
		schema, err = resolveFilter(n, p)
	case *ProjectNode:
		if hasOver(n.Exprs) {
			return r.synthesizeWindow(n, n.Input, n.Exprs, p)
		}
		schema, err = resolveProject(n.Exprs, n.Input.Schema(), p)
	case *WithColumnsNode:
		if hasOver(n.Exprs) {
			return r.synthesizeWindow(n, n.Input, n.Exprs, p)
		}
		schema, err = resolveWithColumns(n, p)
	case *SortNode:
		schema, err = resolveSort(n, p)
	case *LimitNode:
		if n.N < 0 {
			err = &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".n").String(), Msg: fmt.Sprintf("limit: n must not be negative, got %d", n.N)}
		}
		schema = n.Input.Schema()
	case *SliceNode:
		// A negative len means "to the end" (docs/semantics.md, slice).
		if n.Offset < 0 {
			err = &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".offset").String(), Msg: fmt.Sprintf("slice: offset must not be negative, got %d", n.Offset)}
		}
		schema = n.Input.Schema()
	case *TailNode:
		if n.N < 0 {
			err = &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".n").String(), Msg: fmt.Sprintf("tail: n must not be negative, got %d", n.N)}
		}
		schema = n.Input.Schema()
	case *ReverseNode:
		schema = n.Input.Schema()
	case *RowIndexNode:
		schema, err = resolveRowIndex(n, p)
	case *HStackNode:
		schema, err = resolveHStack(n, p)
	case *MergeSortedNode:
		schema, err = resolveMergeSorted(n, p)
	case *UnpivotNode:
		schema, err = resolveUnpivot(n, p)
	case *UnnestNode:
		schema, err = resolveUnnest(n, p)
	case *ExplodeNode:
		schema, err = resolveExplode(n, p)
	case *AggregateNode:
		schema, err = resolveAggregate(n, p)
	case *JoinNode:
		schema, err = resolveJoin(n, p)
	case *UnionNode:
		schema, err = resolveUnion(n, p)
	case *DistinctNode:
		schema, err = resolveDistinct(n, p)
	case *WindowNode:
		schema, err = resolveWindow(n, p)
	case *ExtensionNode:
		schema, err = resolveExtension(n, p)
	case *GuardNode:
		schema, err = resolveGuard(n, p)
	case *AsOfJoinNode:
		schema, err = resolveAsOfJoin(n, p)
	case *TemporalGroupNode:
		schema, err = resolveTemporalGroup(n, p)
	default:
		err = fmt.Errorf("unknown node type %T", n)
	}
	if err != nil {
		return nil, err
	}
	seal(n, schema)
	return n, nil
}

// seal records the resolution results on a freshly built node.
func seal(n Node, schema Schema) {
	m := n.meta()
	m.owner = m
	m.schema = schema
	m.resolved = true
	m.fingerprint, m.deterministic, m.opsDeterministic = fingerprintNode(n)
	m.size = 1
	for _, c := range n.Children() {
		m.size += c.meta().size
	}
}

func exprError(err error, p *Path) error {
	if pe, ok := AsError(err); ok && pe.Path == "" {
		c := *pe
		c.Path = p.String()
		return &c
	}
	return err
}

// noWindowOrAggregate rejects an over() outside project and with_columns.
// The error names the over() itself, the innermost offending expression,
// as an aggregate outside an aggregate node names the aggregate call.
func noWindowOrAggregate(e Expr, p *Path, where string) error {
	if !ContainsOver(e) {
		return nil
	}
	var over Expr
	Walk(e, func(x Expr) bool {
		if _, ok := x.(*Over); ok && over == nil {
			over = x
		}
		return over == nil
	})
	return &Error{Kind: InvalidPlan, Expr: over.String(), Row: -1, Path: p.String(),
		Msg: where + ": over() is allowed only in project and with_columns"}
}

func resolveScan(n *ScanNode, p *Path) (Schema, error) {
	if n.Source == nil {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".table").String(), Msg: "scan: no source"}
	}
	if n.schemaErr != nil {
		return Schema{}, &Error{Kind: InvalidPlan, Expr: sourceName(n.Source), Row: -1, Path: p.Child(".table").String(),
			Msg: fmt.Sprintf("scan: source %s: %v", sourceName(n.Source), n.schemaErr), Err: n.schemaErr}
	}
	src := n.SourceSchema
	for i, pp := range n.Pushed {
		f, err := TypeOf(pp.Expr, src)
		if err != nil {
			return Schema{}, exprError(err, p.Index("pushed", i))
		}
		if f.Type != Bool {
			return Schema{}, &Error{Kind: TypeError, Expr: pp.Expr.String(), Row: -1, Path: p.Index("pushed", i).String(),
				Msg: fmt.Sprintf("scan: a pushed predicate must be bool, got %s", f.Type)}
		}
	}
	if n.HasMaxRows && n.MaxRows < 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".max_rows").String(),
			Msg: fmt.Sprintf("scan: max_rows must not be negative, got %d", n.MaxRows)}
	}
	if err := ValidateAssumptions(n.Assumes, src); err != nil {
		return Schema{}, &Error{Kind: InvalidPlan, Expr: sourceName(n.Source), Row: -1, Path: p.Child(".assumes").String(),
			Msg: fmt.Sprintf("scan: %v", err), Err: err}
	}
	for i, g := range n.Guards {
		gp := p.Index("guards", i)
		if err := noWindowOrAggregate(g, gp, "scan guard"); err != nil {
			return Schema{}, err
		}
		if _, err := TypeOf(g, src); err != nil {
			return Schema{}, exprError(err, gp)
		}
	}
	if !n.Projected {
		return src, nil
	}
	fields := make([]Field, 0, len(n.Columns))
	for i, c := range n.Columns {
		f, ok := src.Lookup(c)
		if !ok {
			return Schema{}, &Error{Kind: UnknownColumn, Expr: quoteName(c), Row: -1, Path: p.Index("columns", i).String(),
				Msg: fmt.Sprintf("scan: source %s has no column %q", sourceName(n.Source), c)}
		}
		fields = append(fields, f)
	}
	s, err := NewSchema(fields...)
	if err != nil {
		return Schema{}, &Error{Kind: DuplicateColumn, Row: -1, Path: p.Child(".columns").String(), Msg: err.Error()}
	}
	return s, nil
}

func resolveFilter(n *FilterNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	if len(n.Predicates) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".predicates").String(), Msg: "filter: no predicates"}
	}
	for i, e := range n.Predicates {
		pp := p.Index("predicates", i)
		if err := noWindowOrAggregate(e, pp, "filter"); err != nil {
			return Schema{}, err
		}
		f, err := TypeOf(e, in)
		if err != nil {
			return Schema{}, exprError(err, pp)
		}
		if f.Type != Bool {
			return Schema{}, &Error{Kind: TypeError, Expr: e.String(), Row: -1, Path: pp.String(),
				Msg: fmt.Sprintf("filter: a predicate must be bool, got %s", f.Type)}
		}
	}
	return in, nil
}

func typeFields(exprs []Expr, in Schema, p *Path, field string) ([]Field, error) {
	fields := make([]Field, len(exprs))
	for i, e := range exprs {
		f, err := TypeOf(e, in)
		if err != nil {
			return nil, exprError(err, p.Index(field, i))
		}
		fields[i] = f
	}
	return fields, nil
}

// uniqueFields builds the schema of a node's output fields (owned by the
// caller, who must not write them afterwards), reporting a name produced
// twice against the expression list.
func uniqueFields(fields []Field, exprs []Expr, p *Path, field string) (Schema, error) {
	s, j, i := ownedSchema(fields)
	if j >= 0 {
		return Schema{}, duplicateOutput(fields[i].Name, exprs[j], exprs[i], p.Index(field, i))
	}
	if err := checkFields(fields); err != nil {
		return Schema{}, err
	}
	return s, nil
}

// checkFields reports the first field NewSchema would reject for an empty
// name or an invalid type, with NewSchema's error.
func checkFields(fields []Field) error {
	for i, f := range fields {
		if f.Name == "" || !f.Type.Valid() {
			_, err := NewSchema(fields[:i+1]...)
			return err
		}
	}
	return nil
}

func duplicateOutput(name string, first, second Expr, p *Path) error {
	return &Error{Kind: DuplicateColumn, Expr: quoteName(name), Row: -1, Path: p.String(),
		Msg: fmt.Sprintf("output column %q is produced twice (by `%s` and `%s`); alias one of them", name, first, second)}
}

func resolveProject(exprs []Expr, in Schema, p *Path) (Schema, error) {
	fields, err := typeFields(exprs, in, p, "exprs")
	if err != nil {
		return Schema{}, err
	}
	return uniqueFields(fields, exprs, p, "exprs")
}

// passthrough returns the columns a with_columns passes through from its
// input: all of them, except the temporaries of a synthesized window.
func passthrough(n *WithColumnsNode) Schema {
	if w, ok := OwnedWindow(n); ok {
		return w.Input.Schema()
	}
	return n.Input.Schema()
}

func resolveWithColumns(n *WithColumnsNode, p *Path) (Schema, error) {
	fields, err := typeFields(n.Exprs, n.Input.Schema(), p, "exprs")
	if err != nil {
		return Schema{}, err
	}
	if _, err := uniqueFields(fields, n.Exprs, p, "exprs"); err != nil {
		return Schema{}, err
	}
	// The input's schema with each field replaced in place or appended,
	// sharing what is unchanged.
	return passthrough(n).with(fields), nil
}

func resolveSort(n *SortNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	if len(n.Keys) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".keys").String(), Msg: "sort: no keys"}
	}
	for i, k := range n.Keys {
		kp := p.Index("keys", i).Child(".expr")
		if err := noWindowOrAggregate(k.Expr, kp, "sort"); err != nil {
			return Schema{}, err
		}
		f, err := TypeOf(k.Expr, in)
		if err != nil {
			return Schema{}, exprError(err, kp)
		}
		if err := nestedKey(k.Expr, f.Type, kp, "sort key"); err != nil {
			return Schema{}, err
		}
	}
	if n.HasLimit && n.Limit < 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".limit").String(),
			Msg: fmt.Sprintf("sort: limit must not be negative, got %d", n.Limit)}
	}
	return in, nil
}

// HintedScan returns the scan whose max-rows hint n passes on unread: n
// itself when it is a scan with a hint (ScanNode.HasMaxRows), or the
// hinted scan below a chain of project and with_columns nodes that use no
// over() and whose expressions are deterministic and total (passesHint). Such a result may be read only by a
// limit or slice of at most the hint's rows, which Resolve checks; an
// executor gives a source the hint while it evaluates that limit or slice.
func HintedScan(n Node) (*ScanNode, bool) { return openHint(n) }

// openHint is HintedScan. It finds the scan with cheap steps first and
// checks the projections' totality only when a hinted scan is there, so
// that Resolve pays for it only on plans that carry a hint.
func openHint(n Node) (*ScanNode, bool) {
	var chain []Node
	for {
		switch x := n.(type) {
		case *ScanNode:
			if x == nil || !x.HasMaxRows {
				return nil, false
			}
			for _, c := range chain {
				switch c := c.(type) {
				case *ProjectNode:
					if !passesHint(c.Exprs, c.Input) {
						return nil, false
					}
				case *WithColumnsNode:
					if !passesHint(c.Exprs, c.Input) {
						return nil, false
					}
				}
			}
			return x, true
		case *ProjectNode:
			if x == nil || x.Input == nil || hasOver(x.Exprs) {
				return nil, false
			}
			chain, n = append(chain, x), x.Input
		case *WithColumnsNode:
			if x == nil || x.Input == nil || hasOver(x.Exprs) {
				return nil, false
			}
			chain, n = append(chain, x), x.Input
		default:
			return nil, false
		}
	}
}

// passesHint reports whether a projection of exprs over in passes a
// max-rows hint on: it uses no over() (which would see only the prefix)
// and every expression is deterministic and total (TrustDeclared: declared
// UDFs and range proofs believed), so reading only the prefix can neither
// lose an error of a row past it nor change what a non-deterministic call
// returns. limit_pushdown places hints only where this holds (lp.project,
// lp.with_columns, lp.deterministic).
func passesHint(exprs []Expr, in Node) bool {
	if hasOver(exprs) {
		return false
	}
	s := in.Schema()
	for _, e := range exprs {
		if !IsDeterministic(e) || !Total(e, s, TrustDeclared) {
			return false
		}
	}
	return true
}

// checkHints checks that the resolved inputs of n read every scan's
// max-rows hint as the hint promises: only a limit or slice keeping at most
// that many rows may read a hinted scan, directly or through project and
// with_columns nodes that pass the hint on (passesHint: no over(), every
// expression deterministic and total, so they pass the rows on one for one
// and cannot tell a prefix from the whole). Anything else would see only the prefix a source may stop at. A
// hinted scan at the plan's root (or under projections at the root) is not
// an error of the subtree Resolve is given — a rule resolves subtrees — so
// the executor gives a source the hint only while it evaluates the limit or
// slice that allows it (exec/collect.go).
func checkHints(n Node, inputs []Node, p *Path) error {
	var keep int64 = -1
	switch n := n.(type) {
	case *LimitNode:
		keep = n.N
	case *SliceNode:
		keep = n.Offset + n.Len
		if n.Len < 0 || keep < n.Offset { // to the end, or overflow: the slice keeps every row
			keep = math.MaxInt64
		}
	}
	if passesOn(n, inputs) {
		// A projection passes any hint on to its reader (its own
		// expressions only: Resolve stays linear on long chains).
		return nil
	}
	for _, in := range inputs {
		s, ok := openHint(in)
		if !ok || (keep >= 0 && keep <= s.MaxRows) {
			continue
		}
		return unreadHint(s, n, p, n.Label())
	}
	return nil
}

// passesOn reports whether n, over its resolved inputs, is a projection
// that passes a max-rows hint on (passesHint).
func passesOn(n Node, inputs []Node) bool {
	if len(inputs) != 1 {
		return false
	}
	switch n := n.(type) {
	case *ProjectNode:
		return passesHint(n.Exprs, inputs[0])
	case *WithColumnsNode:
		return passesHint(n.Exprs, inputs[0])
	}
	return false
}

// unreadHint is the error of a hinted scan read by reader, at p, which
// does not keep at most the hint's rows.
func unreadHint(s *ScanNode, reader Node, p *Path, what string) error {
	return &Error{Kind: InvalidPlan, Row: -1, Node: reader.Label(), Path: p.String(),
		Msg: fmt.Sprintf("%s reads %s, whose max_rows=%d hint is only for a limit or slice of at most %d rows above it (through project and with_columns of deterministic, total expressions only)",
			what, s.Label(), s.MaxRows, s.MaxRows)}
}

func resolveAggregate(n *AggregateNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	fields := make([]Field, 0, len(n.Keys)+len(n.Aggs))
	all := make([]Expr, 0, len(n.Keys)+len(n.Aggs))
	for i, k := range n.Keys {
		kp := p.Index("keys", i)
		if err := noWindowOrAggregate(k, kp, "aggregate keys"); err != nil {
			return Schema{}, err
		}
		f, err := TypeOf(k, in)
		if err != nil {
			return Schema{}, exprError(err, kp)
		}
		if err := nestedKey(k, f.Type, kp, "group key"); err != nil {
			return Schema{}, err
		}
		fields = append(fields, f)
		all = append(all, k)
	}
	for i, a := range n.Aggs {
		ap := p.Index("aggs", i)
		if err := noWindowOrAggregate(a, ap, "aggregate"); err != nil {
			return Schema{}, err
		}
		f, err := AggTypeOf(a, in)
		if err != nil {
			return Schema{}, exprError(err, ap)
		}
		if len(n.Keys) == 0 {
			// One row even over empty input: count, len and n_unique are
			// 0, any false, all true, the rest null.
			if c, ok := Unalias(a).(*Call); ok && !neverNullAgg(c.Fn) {
				f.Nullable = true
			}
		}
		fields = append(fields, f)
		all = append(all, a)
	}
	// Duplicate names are reported against the combined key+agg list.
	s, j, i := ownedSchema(fields)
	if j >= 0 {
		fp := p.Index("keys", i)
		if i >= len(n.Keys) {
			fp = p.Index("aggs", i-len(n.Keys))
		}
		return Schema{}, duplicateOutput(fields[i].Name, all[j], all[i], fp)
	}
	if err := checkFields(fields); err != nil {
		return Schema{}, err
	}
	return s, nil
}

// JoinKeyType returns the type two join keys are compared in: the common
// type of the pair, or ok=false.
func JoinKeyType(l, r Type) (Type, bool) { return commonType(l, r) }

func resolveJoin(n *JoinNode, p *Path) (Schema, error) {
	ls, rs := n.Left.Schema(), n.Right.Schema()
	if int(n.How) >= len(joinKindNames) {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".kind").String(), Msg: "join: invalid kind"}
	}
	if len(n.LeftOn) != len(n.RightOn) {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".right_on").String(),
			Msg: fmt.Sprintf("join: %d left keys but %d right keys", len(n.LeftOn), len(n.RightOn))}
	}
	if n.BuildLeft && n.How != InnerJoin {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".build").String(),
			Msg: fmt.Sprintf("join: build=left applies to inner joins only, not to the %s join here", n.How)}
	}
	if n.How == CrossJoin && len(n.LeftOn) > 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".left_on").String(), Msg: "join: a cross join takes no keys"}
	}
	if n.How != CrossJoin && len(n.LeftOn) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".left_on").String(), Msg: fmt.Sprintf("join: a %s join needs at least one key", n.How)}
	}
	for i := range n.LeftOn {
		lp, rp := p.Index("left_on", i), p.Index("right_on", i)
		if err := noWindowOrAggregate(n.LeftOn[i], lp, "join"); err != nil {
			return Schema{}, err
		}
		if err := noWindowOrAggregate(n.RightOn[i], rp, "join"); err != nil {
			return Schema{}, err
		}
		lf, err := TypeOf(n.LeftOn[i], ls)
		if err != nil {
			return Schema{}, exprError(err, lp)
		}
		rf, err := TypeOf(n.RightOn[i], rs)
		if err != nil {
			return Schema{}, exprError(err, rp)
		}
		if err := nestedKey(n.LeftOn[i], lf.Type, lp, "join key"); err != nil {
			return Schema{}, err
		}
		if err := nestedKey(n.RightOn[i], rf.Type, rp, "join key"); err != nil {
			return Schema{}, err
		}
		if _, ok := JoinKeyType(lf.Type, rf.Type); !ok {
			// The error names the right key, where the mismatch is found
			// (its path), as written; the message names both.
			return Schema{}, &Error{Kind: TypeError, Expr: n.RightOn[i].String(), Row: -1, Path: rp.String(),
				Msg: fmt.Sprintf("join: right key `%s` (%s) cannot be compared with left key `%s` (%s)", n.RightOn[i], rf.Type, n.LeftOn[i], lf.Type)}
		}
	}
	keyTypes := make([]Type, len(n.LeftOn))
	for i := range n.LeftOn {
		lf, _ := TypeOf(n.LeftOn[i], ls)
		rf, _ := TypeOf(n.RightOn[i], rs)
		keyTypes[i], _ = JoinKeyType(lf.Type, rf.Type)
	}
	if err := checkJoinOptions(n, p); err != nil {
		return Schema{}, err
	}
	lay, err := computeJoinLayout(n, ls, rs, keyTypes, p)
	if err != nil {
		return Schema{}, err
	}
	if n.Residual != nil {
		rp := p.Child(".residual")
		if err := noWindowOrAggregate(n.Residual, rp, "join residual"); err != nil {
			return Schema{}, err
		}
		pair, err := pairSchema(ls, rs, n.EffectiveSuffix(), p)
		if err != nil {
			return Schema{}, err
		}
		f, err := TypeOf(n.Residual, pair)
		if err != nil {
			return Schema{}, exprError(err, rp)
		}
		if f.Type != Bool {
			return Schema{}, &Error{Kind: TypeError, Expr: n.Residual.String(), Row: -1, Path: rp.String(),
				Msg: fmt.Sprintf("join: the residual `%s` is %s, not bool", n.Residual, f.Type)}
		}
		lay.PairNames = pair.Names()
	}
	n.layout = lay
	out := make([]Field, len(lay.Columns))
	for i, c := range lay.Columns {
		side := ls
		if c.Side == SideRight {
			side = rs
		}
		f := side.Field(c.Ordinal)
		f.Name, f.Type = c.Name, c.Type
		switch {
		case n.How == FullJoin && c.CoalescedWith >= 0:
			f.Nullable = f.Nullable || (c.Side == SideLeft && rs.Field(c.CoalescedWith).Nullable) ||
				(c.Side == SideRight && ls.Field(c.CoalescedWith).Nullable)
		case c.Side == SideLeft && (n.How == RightJoin || n.How == FullJoin):
			f.Nullable = true
		case c.Side == SideRight && (n.How == LeftJoin || n.How == FullJoin):
			f.Nullable = true
		}
		out[i] = f
	}
	return NewSchema(out...)
}

// checkJoinOptions rejects option values the join's kind does not take.
func checkJoinOptions(n *JoinNode, p *Path) error {
	if int(n.Coalesce) >= len(coalesceNames) {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".coalesce").String(), Msg: "join: invalid coalesce state"}
	}
	if int(n.Validate) >= len(validateNames) {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".validate").String(), Msg: "join: invalid validation"}
	}
	if n.How == CrossJoin {
		switch {
		case n.Coalesce != CoalesceAuto:
			return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".coalesce").String(), Msg: "join: a cross join has no keys to coalesce"}
		case n.NullsEqual:
			return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".nulls_equal").String(), Msg: "join: a cross join has no keys to compare"}
		case n.Validate != ValidateManyToMany:
			return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".validate").String(), Msg: "join: a cross join has no keys to validate"}
		}
	}
	if n.Residual != nil && n.How != SemiJoin && n.How != AntiJoin {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".residual").String(),
			Msg: fmt.Sprintf("join: a residual applies to semi and anti joins only, not to the %s join here", n.How)}
	}
	return nil
}

// pairSchema is the schema a semi or anti join's residual reads: the left
// columns, then the right columns, a right name that is a left name
// suffixed (and then free, or an error as for the output).
func pairSchema(ls, rs Schema, suffix string, p *Path) (Schema, error) {
	out := ls.Fields()
	left := make(map[string]bool, len(out))
	for _, f := range out {
		left[f.Name] = true
	}
	right := make(map[string]bool, rs.Len())
	for _, name := range rs.Names() {
		right[name] = true
	}
	names := make(map[string]bool, len(out)+rs.Len())
	for k := range left {
		names[k] = true
	}
	for i := 0; i < rs.Len(); i++ {
		f := rs.Field(i)
		if left[f.Name] {
			f.Name += suffix
			if names[f.Name] || right[f.Name] {
				return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(f.Name), Row: -1, Path: p.Child(".suffix").String(),
					Msg: fmt.Sprintf("join: right column %q collides with %q even after the suffix %q", rs.Field(i).Name, f.Name, suffix)}
			}
		}
		names[f.Name] = true
		out = append(out, f)
	}
	return NewSchema(out...)
}

// mergedKeys returns, for each left ordinal, the right ordinal of the key
// column it merges with (and the reverse), for the join's mergeable pairs
// when the join merges them: two plain column references of one name.
func mergedKeys(n *JoinNode, ls, rs Schema) (l2r, r2l map[int]int) {
	if !n.Merges() || n.How == CrossJoin || n.How == SemiJoin || n.How == AntiJoin {
		return nil, nil
	}
	l2r, r2l = map[int]int{}, map[int]int{}
	for i := range n.LeftOn {
		l, lok := n.LeftOn[i].(*Column)
		r, rok := n.RightOn[i].(*Column)
		if !lok || !rok || l.Name != r.Name {
			continue
		}
		li, ri := ls.Index(l.Name), rs.Index(r.Name)
		if li < 0 || ri < 0 {
			continue
		}
		if _, dup := l2r[li]; dup {
			continue
		}
		if _, dup := r2l[ri]; dup {
			continue
		}
		l2r[li], r2l[ri] = ri, li
	}
	return l2r, r2l
}

// computeJoinLayout lays out the join's output (docs/semantics.md, join
// options): the left columns, then the right ones, a merged key pair as
// one column (the left's for inner and left, the right's for right, the
// left's place with the compare type for full), colliding right names
// suffixed, the suffixed name then free among all output names.
func computeJoinLayout(n *JoinNode, ls, rs Schema, keyTypes []Type, p *Path) (*JoinLayout, error) {
	lay := &JoinLayout{KeyTypes: keyTypes}
	l2r, r2l := mergedKeys(n, ls, rs)
	// A merged full-join column takes the compare type of the pair that
	// merges it (mergedKeys: the first pair of two plain columns of its
	// name), not of another pair that reads the same left column.
	keyType := func(li int) Type {
		name := ls.Field(li).Name
		for i, k := range n.LeftOn {
			l, lok := k.(*Column)
			r, rok := n.RightOn[i].(*Column)
			if lok && rok && l.Name == name && r.Name == name {
				return keyTypes[i]
			}
		}
		return ls.Field(li).Type
	}
	for i := 0; i < ls.Len(); i++ {
		f := ls.Field(i)
		ri, merged := l2r[i]
		switch {
		case merged && n.How == RightJoin:
			continue // the right key column stands for it
		case merged && n.How == FullJoin:
			lay.Columns = append(lay.Columns, JoinColumn{Name: f.Name, Side: SideLeft, Ordinal: i, CoalescedWith: ri, Type: keyType(i)})
		case merged:
			lay.Columns = append(lay.Columns, JoinColumn{Name: f.Name, Side: SideLeft, Ordinal: i, CoalescedWith: ri, Type: f.Type})
		default:
			lay.Columns = append(lay.Columns, JoinColumn{Name: f.Name, Side: SideLeft, Ordinal: i, CoalescedWith: -1, Type: f.Type})
		}
	}
	if n.How == SemiJoin || n.How == AntiJoin {
		return lay, nil
	}
	// A right column is renamed only when its name is a left output
	// column's; the suffixed name must then be free among the left
	// columns and all kept right columns, whatever their order (an error
	// otherwise, as in Polars).
	names := make(map[string]bool, len(lay.Columns)+rs.Len())
	left := make(map[string]bool, len(lay.Columns))
	for _, c := range lay.Columns {
		names[c.Name] = true
		left[c.Name] = true
	}
	kept := func(i int) bool {
		_, merged := r2l[i]
		return !merged || n.How == RightJoin
	}
	right := make(map[string]bool, rs.Len())
	for i, name := range rs.Names() {
		if kept(i) {
			right[name] = true
		}
	}
	suffix := n.EffectiveSuffix()
	for i := 0; i < rs.Len(); i++ {
		if !kept(i) {
			continue
		}
		f := rs.Field(i)
		c := JoinColumn{Name: f.Name, Side: SideRight, Ordinal: i, CoalescedWith: -1, Type: f.Type}
		if li, merged := r2l[i]; merged {
			c.CoalescedWith = li
		}
		if left[c.Name] {
			c.Name += suffix
			if names[c.Name] || right[c.Name] {
				return nil, &Error{Kind: DuplicateColumn, Expr: quoteName(c.Name), Row: -1, Path: p.Child(".suffix").String(),
					Msg: fmt.Sprintf("join: right column %q collides with %q even after the suffix %q", f.Name, c.Name, suffix)}
			}
		}
		names[c.Name] = true
		lay.Columns = append(lay.Columns, c)
	}
	return lay, nil
}

// DroppedRightKeys returns the right columns the join's layout drops
// because they are merged into a left key column (an inner, left or full
// join merging its mergeable pairs: they equal the left key on every
// output row that has a left row).
func DroppedRightKeys(n *JoinNode) map[string]bool {
	if !n.Merges() || (n.How != InnerJoin && n.How != LeftJoin && n.How != FullJoin) {
		return nil
	}
	dropped := map[string]bool{}
	for i := range n.LeftOn {
		l, lok := n.LeftOn[i].(*Column)
		r, rok := n.RightOn[i].(*Column)
		if lok && rok && l.Name == r.Name {
			dropped[r.Name] = true
		}
	}
	return dropped
}

// promoteUnion applies the union's numeric promotion (docs/semantics.md,
// Numeric types, Union): when column j of the inputs has numeric types
// that differ but share a common type, each input whose column differs
// gets a project that casts it (`cast(c, P) as c`, which cannot fail),
// so the union itself always sees equal types. ok is false when nothing
// needs a cast (or the inputs do not line up, which resolveUnion
// reports).
func (r *resolver) promoteUnion(n *UnionNode, p *Path) (*UnionNode, bool, error) {
	if len(n.Inputs) < 2 {
		return nil, false, nil
	}
	if n.Diagonal {
		return r.promoteDiagonal(n, p)
	}
	first := n.Inputs[0].Schema()
	want := first.Fields()
	for _, in := range n.Inputs[1:] {
		s := in.Schema()
		if s.Len() != len(want) {
			return nil, false, nil
		}
		for j := range want {
			f := s.Field(j)
			if f.Name != want[j].Name || f.Type == want[j].Type {
				continue
			}
			if t, ok := Promote(want[j].Type, f.Type); ok {
				want[j].Type = t
			}
		}
	}
	changed := false
	inputs := append([]Node(nil), n.Inputs...)
	for i, in := range inputs {
		s := in.Schema()
		var exprs []Expr
		cast := false
		for j := range want {
			f := s.Field(j)
			var e Expr = &Column{Name: f.Name}
			if t, ok := Promote(f.Type, want[j].Type); ok && t == want[j].Type && f.Name == want[j].Name && f.Type != t {
				e = &Alias{Expr: &Cast{Expr: e, To: want[j].Type, Strict: true}, Name: f.Name}
				cast = true
			}
			exprs = append(exprs, e)
		}
		if !cast {
			continue
		}
		proj, err := r.node(&ProjectNode{Input: in, Exprs: exprs}, p.Input(n, i))
		if err != nil {
			return nil, false, located(err, n, p)
		}
		inputs[i], changed = proj, true
	}
	if !changed {
		return nil, false, nil
	}
	return &UnionNode{Inputs: inputs}, true, nil
}

// promoteDiagonal is promoteUnion for a diagonal union, by name: a name's
// type is the common type of its types in the inputs that have it, in
// input order, and an input whose column differs gets a project casting
// it (its columns in its own order). Names without a common type are left
// to resolveDiagonalUnion to report.
func (r *resolver) promoteDiagonal(n *UnionNode, p *Path) (*UnionNode, bool, error) {
	want := map[string]Type{}
	bad := map[string]bool{}
	for _, in := range n.Inputs {
		s := in.Schema()
		for j := 0; j < s.Len(); j++ {
			f := s.Field(j)
			t, seen := want[f.Name]
			if !seen {
				want[f.Name] = f.Type
				continue
			}
			if t == f.Type {
				continue
			}
			if pt, ok := Promote(t, f.Type); ok {
				want[f.Name] = pt
			} else {
				bad[f.Name] = true
			}
		}
	}
	changed := false
	inputs := append([]Node(nil), n.Inputs...)
	for i, in := range inputs {
		s := in.Schema()
		var exprs []Expr
		cast := false
		for j := 0; j < s.Len(); j++ {
			f := s.Field(j)
			var e Expr = &Column{Name: f.Name}
			if t := want[f.Name]; !bad[f.Name] && t != f.Type {
				e = &Alias{Expr: &Cast{Expr: e, To: t, Strict: true}, Name: f.Name}
				cast = true
			}
			exprs = append(exprs, e)
		}
		if !cast {
			continue
		}
		proj, err := r.node(&ProjectNode{Input: in, Exprs: exprs}, p.Input(n, i))
		if err != nil {
			return nil, false, located(err, n, p)
		}
		inputs[i], changed = proj, true
	}
	if !changed {
		return nil, false, nil
	}
	return &UnionNode{Inputs: inputs, Diagonal: true}, true, nil
}

func resolveUnion(n *UnionNode, p *Path) (Schema, error) {
	if len(n.Inputs) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".inputs").String(), Msg: "union: no inputs"}
	}
	if n.Diagonal {
		return resolveDiagonalUnion(n, p)
	}
	out := n.Inputs[0].Schema().Fields()
	for i := 1; i < len(n.Inputs); i++ {
		s := n.Inputs[i].Schema()
		if s.Len() != len(out) {
			return Schema{}, &Error{Kind: TypeError, Row: -1, Path: p.Index("inputs", i).String(),
				Msg: fmt.Sprintf("union: input %d has %d columns, input 0 has %d", i, s.Len(), len(out))}
		}
		for j := range out {
			f := s.Field(j)
			if f.Name != out[j].Name || f.Type != out[j].Type {
				return Schema{}, &Error{Kind: TypeError, Expr: quoteName(f.Name), Row: -1, Path: p.Index("inputs", i).String(),
					Msg: fmt.Sprintf("union: input %d column %d is %s, input 0 has %s", i, j, f, out[j])}
			}
			out[j].Nullable = out[j].Nullable || f.Nullable
		}
	}
	return NewSchema(out...)
}

// resolveDiagonalUnion lays out a diagonal union: every column of every
// input in order of first appearance, one type per name, nullable when
// some input lacks it or has it nullable.
func resolveDiagonalUnion(n *UnionNode, p *Path) (Schema, error) {
	var out []Field
	at := map[string]int{}
	for i, in := range n.Inputs {
		s := in.Schema()
		for j := 0; j < s.Len(); j++ {
			f := s.Field(j)
			k, ok := at[f.Name]
			if !ok {
				at[f.Name] = len(out)
				out = append(out, f)
				continue
			}
			if out[k].Type != f.Type {
				return Schema{}, &Error{Kind: TypeError, Expr: quoteName(f.Name), Row: -1, Path: p.Index("inputs", i).String(),
					Msg: fmt.Sprintf("union diagonal: input %d column %q is %s, an earlier input has %s", i, f.Name, f.Type, out[k].Type)}
			}
			out[k].Nullable = out[k].Nullable || f.Nullable
		}
	}
	for _, in := range n.Inputs {
		s := in.Schema()
		for k := range out {
			if s.Index(out[k].Name) < 0 {
				out[k].Nullable = true
			}
		}
	}
	return NewSchema(out...)
}

func resolveDistinct(n *DistinctNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	seen := map[string]bool{}
	for i, c := range n.Subset {
		if _, ok := in.Lookup(c); !ok {
			return Schema{}, &Error{Kind: UnknownColumn, Expr: quoteName(c), Row: -1, Path: p.Index("subset", i).String(),
				Msg: fmt.Sprintf("distinct: column %q not found; the input has %v", c, in.Names())}
		}
		if seen[c] {
			return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(c), Row: -1, Path: p.Index("subset", i).String(),
				Msg: fmt.Sprintf("distinct: column %q listed twice", c)}
		}
		seen[c] = true
		if f, _ := in.Lookup(c); f.Type.IsNested() {
			return Schema{}, nestedKey(Col(c).Expr(), f.Type, p.Index("subset", i), "distinct key")
		}
	}
	if len(n.Subset) == 0 {
		for _, f := range in.Fields() {
			if f.Type.IsNested() {
				return Schema{}, nestedKey(Col(f.Name).Expr(), f.Type, p.Child(".subset"), "distinct key (a distinct without a subset keys on every column)")
			}
		}
	}
	return in, nil
}

// nestedKey rejects a list or struct key: lists and structs are never
// compared, hashed or ordered (docs/semantics.md, Lists and structs).
func nestedKey(e Expr, t Type, p *Path, what string) error {
	if !t.IsNested() {
		return nil
	}
	return &Error{Kind: TypeError, Expr: e.String(), Row: -1, Path: p.String(),
		Msg: fmt.Sprintf("%s `%s` is a %s (%s): a list or struct cannot be a join, group, distinct, window partition or sort key (docs/semantics.md, Lists and structs)", what, e, nestedKind(t), t)}
}

func resolveWindow(n *WindowNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	out := in.Fields()
	for i, e := range n.Exprs {
		a, ok := e.(*Alias)
		if ok {
			_, ok = a.Expr.(*Over)
		}
		if !ok {
			return Schema{}, &Error{Kind: InvalidPlan, Expr: render(e, 0), Row: -1, Path: p.Index("exprs", i).String(), Msg: "window: each entry must be an aliased over()"}
		}
		f, err := TypeOf(e, in)
		if err != nil {
			return Schema{}, exprError(err, p.Index("exprs", i))
		}
		out = append(out, f)
	}
	s, err := NewSchema(out...)
	if err != nil {
		return Schema{}, &Error{Kind: DuplicateColumn, Row: -1, Path: p.Child(".exprs").String(), Msg: "window: " + err.Error()}
	}
	return s, nil
}

func resolveExtension(n *ExtensionNode, p *Path) (s Schema, err error) {
	if n.Def == nil {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".name").String(), Msg: "extension: no declaration"}
	}
	if len(n.Inputs) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".input").String(),
			Msg: fmt.Sprintf("extension %s: needs at least one input", n.Def.Name)}
	}
	if len(n.Inputs) != n.Def.Inputs {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.String(),
			Msg: fmt.Sprintf("extension %s: takes %d inputs, got %d", n.Def.Name, n.Def.Inputs, len(n.Inputs))}
	}
	if err := n.Def.check(); err != nil {
		// A declaration that bypassed the registry.
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".name").String(),
			Msg: fmt.Sprintf("extension %s: invalid declaration: %v", n.Def.Name, err), Err: err}
	}
	if n.Def.OutputSchema == nil {
		return n.Inputs[0].Schema(), nil
	}
	ins := make([]Schema, len(n.Inputs))
	for i, c := range n.Inputs {
		ins[i] = c.Schema()
	}
	s, err = extensionOutput(n.Def, ins)
	if err != nil {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Msg: fmt.Sprintf("extension %s: %v", n.Def.Name, err), Err: err}
	}
	if n.Def.Has(ColumnPassthrough) && len(ins) == 1 {
		if err := checkPassthrough(ins[0], s); err != nil {
			return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.String(),
				Msg: fmt.Sprintf("extension %s declares column_passthrough, but %v", n.Def.Name, err)}
		}
	}
	return s, nil
}

// extensionOutput calls a host's OutputSchema, turning a panic into an
// error.
func extensionOutput(d *ExtensionDef, ins []Schema) (s Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("OutputSchema panicked: %v", r)
		}
	}()
	return d.OutputSchema(ins)
}

// checkPassthrough checks that every input field appears in out unchanged.
func checkPassthrough(in, out Schema) error {
	for _, f := range in.Fields() {
		g, ok := out.Lookup(f.Name)
		if !ok {
			return fmt.Errorf("its output has no column %s", f.Name)
		}
		if g != f {
			return fmt.Errorf("its output changes column %s (%s) to %s", f.Name, f, g)
		}
	}
	return nil
}

func hasOver(exprs []Expr) bool {
	for _, e := range exprs {
		if ContainsOver(e) {
			return true
		}
	}
	return false
}

// WindowNames returns the names Resolve gives the n temporary columns of a
// window it synthesizes over an input of schema in: "__over_0",
// "__over_1", ..., skipping the names the input already has. The plan
// file encoder uses it to fold a window back into over() only when
// resolving the folded plan gives the same names.
func WindowNames(in Schema, n int) []string {
	out := make([]string, 0, n)
	for next := 0; len(out) < n; next++ {
		name := "__over_" + strconv.Itoa(next)
		if in.Index(name) < 0 {
			out = append(out, name)
		}
	}
	return out
}

// synthesizeWindow rewrites a project or with_columns that uses over() into
// the same node over a window node computing each over() once, in the order
// they appear, as a temporary column. Type errors are reported against the
// expressions as written, before anything is rewritten.
func (r *resolver) synthesizeWindow(parent Node, input Node, exprs []Expr, p *Path) (Node, error) {
	in := input.Schema()
	if _, err := typeFields(exprs, in, p, "exprs"); err != nil {
		return nil, err
	}
	var overs int
	for _, e := range exprs {
		Walk(e, func(x Expr) bool {
			if _, ok := x.(*Over); ok {
				overs++
				return false
			}
			return true
		})
	}
	names := WindowNames(in, overs)
	var windows []Expr
	var replace func(e Expr) Expr
	replace = func(e Expr) Expr {
		if o, ok := e.(*Over); ok {
			name := names[len(windows)]
			windows = append(windows, &Alias{Expr: o, Name: name})
			// The column stands in for the over() as written: an error
			// raised above it names `sum(a).over(k) - 1`, never the
			// temporary.
			return WithOrigin(&Column{Name: name}, o)
		}
		args := e.Children()
		if len(args) == 0 {
			return e
		}
		newArgs := make([]Expr, len(args))
		for i, a := range args {
			newArgs[i] = replace(a)
		}
		return e.WithChildren(newArgs)
	}
	rewritten := make([]Expr, len(exprs))
	for i, e := range exprs {
		r := replace(e)
		// Keep the output name the user would get without the rewrite.
		if name := OutputName(e); OutputName(r) != name {
			r = &Alias{Expr: r, Name: name}
		}
		rewritten[i] = r
	}
	win, err := r.at(&WindowNode{Input: input, Exprs: windows}, p.Child(".input"))
	if err != nil {
		return nil, err
	}
	var n Node
	switch parent.(type) {
	case *ProjectNode:
		n = &ProjectNode{Input: win, Exprs: rewritten}
	default:
		n = &WithColumnsNode{Input: win, Exprs: rewritten}
	}
	return r.node(n, p)
}

// Unresolved returns a copy of the plan with every node's resolution
// dropped, so that Resolve checks the whole tree again (Verify mode uses it;
// ordinary rewrites need not). Synthesized window nodes are kept.
func Unresolved(n Node) Node {
	if isNilNode(n) {
		return n
	}
	children := n.Children()
	fresh := make([]Node, len(children))
	for i, c := range children {
		fresh[i] = Unresolved(c)
	}
	return n.WithChildren(fresh)
}

// neverNullAgg reports whether the aggregate f has a value over no rows:
// count, len and n_unique (0), any (false) and all (true).
func neverNullAgg(f Func) bool {
	switch f {
	case FuncCount, FuncLen, FuncNUnique, FuncAny, FuncAll:
		return true
	}
	return false
}

// resolveRowIndex prepends the non-null int64 column Name to the input's
// schema: the name must be new and not empty, the offset not negative.
func resolveRowIndex(n *RowIndexNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	switch {
	case n.Name == "":
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".name").String(), Msg: "row_index: name must not be empty"}
	case n.Offset < 0:
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".offset").String(), Msg: fmt.Sprintf("row_index: offset must not be negative, got %d", n.Offset)}
	}
	if _, dup := in.Lookup(n.Name); dup {
		return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(n.Name), Row: -1, Path: p.Child(".name").String(),
			Msg: fmt.Sprintf("row_index: column %s is already in the input", quoteName(n.Name))}
	}
	fields := append([]Field{{Name: n.Name, Type: Int64}}, in.Fields()...)
	s, err := NewSchema(fields...)
	if err != nil {
		return Schema{}, &Error{Kind: DuplicateColumn, Row: -1, Path: p.Child(".name").String(), Msg: "row_index: " + err.Error()}
	}
	return s, nil
}
