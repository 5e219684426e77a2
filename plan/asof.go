package plan

import (
	"fmt"
	"strings"
)

// AsofStrategy says which right row an as-of join takes for a left row
// (docs/semantics.md, asof_join).
type AsofStrategy uint8

// The strategies.
const (
	// AsofBackward takes the last candidate whose key is <= the left key.
	AsofBackward AsofStrategy = iota
	// AsofForward takes the first candidate whose key is >= the left key.
	AsofForward
	// AsofNearest takes the last candidate at the smallest distance.
	AsofNearest
	asofStrategyCount
)

var asofStrategyNames = [asofStrategyCount]string{"backward", "forward", "nearest"}

// String returns the strategy's name as written in plan files.
func (s AsofStrategy) String() string {
	if s < asofStrategyCount {
		return asofStrategyNames[s]
	}
	return fmt.Sprintf("AsofStrategy(%d)", int(s))
}

// ParseAsofStrategy returns the strategy named s.
func ParseAsofStrategy(s string) (AsofStrategy, bool) {
	for i, n := range asofStrategyNames {
		if n == s {
			return AsofStrategy(i), true
		}
	}
	return 0, false
}

// AsOfJoinNode joins every left row, in left order, with at most one right
// row: the nearest by an ordered key, among the right rows with equal
// by-keys (docs/semantics.md, asof_join). Both inputs must be sorted on
// the key within each by-group; the executor verifies it, never trusts it.
type AsOfJoinNode struct {
	nodeMeta
	Left, Right Node
	// LeftOn and RightOn name the key columns.
	LeftOn, RightOn string
	// LeftBy and RightBy name the by-key columns, paired by position.
	LeftBy, RightBy []string
	Strategy        AsofStrategy
	// Tolerance, when not nil, is a literal bounding the distance of a
	// match (an integer for integer keys, a duration otherwise).
	Tolerance Expr
	// ExcludeExact is allow_exact_matches = false: a right key equal to
	// the left key is no candidate. The zero value allows exact matches,
	// the default.
	ExcludeExact bool
	// Suffix renames colliding right columns; "" means DefaultJoinSuffix.
	Suffix string
}

// Kind returns KindAsOfJoin.
func (*AsOfJoinNode) Kind() Kind { return KindAsOfJoin }

// Children returns the left and right inputs.
func (n *AsOfJoinNode) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren returns an unresolved copy over children[0] and [1].
func (n *AsOfJoinNode) WithChildren(ch []Node) Node {
	return &AsOfJoinNode{Left: ch[0], Right: ch[1], LeftOn: n.LeftOn, RightOn: n.RightOn,
		LeftBy: n.LeftBy, RightBy: n.RightBy, Strategy: n.Strategy, Tolerance: n.Tolerance,
		ExcludeExact: n.ExcludeExact, Suffix: n.Suffix}
}

// EffectiveSuffix returns the suffix colliding right columns get.
func (n *AsOfJoinNode) EffectiveSuffix() string {
	if n.Suffix == "" {
		return DefaultJoinSuffix
	}
	return n.Suffix
}

// Label renders "asof_join backward on=[t = t] by=[k = k] tolerance=5
// exact=false suffix=_r" (the optional parts only when set).
func (n *AsOfJoinNode) Label() string {
	var b strings.Builder
	b.WriteString("asof_join " + n.Strategy.String() + " on=[" + quoteName(n.LeftOn) + " = " + quoteName(n.RightOn) + "]")
	if len(n.LeftBy) > 0 || len(n.RightBy) > 0 {
		b.WriteString(" by=[")
		for i := range max(len(n.LeftBy), len(n.RightBy)) {
			if i > 0 {
				b.WriteString(", ")
			}
			l, r := "?", "?"
			if i < len(n.LeftBy) {
				l = quoteName(n.LeftBy[i])
			}
			if i < len(n.RightBy) {
				r = quoteName(n.RightBy[i])
			}
			b.WriteString(l + " = " + r)
		}
		b.WriteString("]")
	}
	if n.Tolerance != nil {
		b.WriteString(" tolerance=" + n.Tolerance.String())
	}
	if n.ExcludeExact {
		b.WriteString(" exact=false")
	}
	if n.Suffix != "" && n.Suffix != DefaultJoinSuffix {
		b.WriteString(" suffix=" + quoteName(n.Suffix))
	}
	return b.String()
}

// AsofKeyScale returns how the key values of an as-of join of type t
// compare: ok=false when t is no as-of key type (int32, int64, date,
// datetime).
func asofKeyType(t Type) bool {
	return t == Int32 || t == Int64 || t == Date || t == Datetime
}

// AsofTolerance returns a resolved as-of join's tolerance in the key's
// unit (an integer for integer keys, days for dates, µs for datetimes)
// and whether it has one.
func (n *AsOfJoinNode) AsofTolerance() (int64, bool) {
	if n.Tolerance == nil {
		return 0, false
	}
	lit, ok := Unalias(n.Tolerance).(*Literal)
	if !ok || lit.Value.IsNull() {
		return 0, false
	}
	v := lit.Value.Int()
	if f, ok := n.Left.Schema().Lookup(n.LeftOn); ok && f.Type == Date {
		v /= MicrosPerDay
	}
	return v, true
}

// DroppedAsofRightColumns returns the right columns an as-of join drops:
// the right key named like the left key, and each right by-key named like
// its paired left by-key.
func DroppedAsofRightColumns(n *AsOfJoinNode) map[string]bool {
	d := map[string]bool{}
	if n.LeftOn == n.RightOn {
		d[n.RightOn] = true
	}
	for i := range min(len(n.LeftBy), len(n.RightBy)) {
		if n.LeftBy[i] == n.RightBy[i] {
			d[n.RightBy[i]] = true
		}
	}
	return d
}

// AsofRightColumn returns the output name of the right input's column
// name in a resolved as-of join, or ok=false when the join drops it.
func AsofRightColumn(n *AsOfJoinNode, name string) (string, bool) {
	if DroppedAsofRightColumns(n)[name] {
		return "", false
	}
	if _, clash := n.Left.Schema().Lookup(name); clash {
		return name + n.EffectiveSuffix(), true
	}
	return name, true
}

func resolveAsOfJoin(n *AsOfJoinNode, p *Path) (Schema, error) {
	ls, rs := n.Left.Schema(), n.Right.Schema()
	if n.Strategy >= asofStrategyCount {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".strategy").String(), Msg: "asof_join: invalid strategy"}
	}
	lookup := func(s Schema, name string, field *Path) (Field, error) {
		f, ok := s.Lookup(name)
		if !ok {
			return Field{}, &Error{Kind: UnknownColumn, Expr: quoteName(name), Row: -1, Path: field.String(),
				Msg: fmt.Sprintf("asof_join: no column %s in the input", quoteName(name))}
		}
		return f, nil
	}
	lf, err := lookup(ls, n.LeftOn, p.Child(".left_on"))
	if err != nil {
		return Schema{}, err
	}
	rf, err := lookup(rs, n.RightOn, p.Child(".right_on"))
	if err != nil {
		return Schema{}, err
	}
	lint, rint := lf.Type == Int32 || lf.Type == Int64, rf.Type == Int32 || rf.Type == Int64
	if !asofKeyType(lf.Type) || !asofKeyType(rf.Type) || (lint != rint) || (!lint && lf.Type != rf.Type) {
		return Schema{}, &Error{Kind: TypeError, Expr: quoteName(n.RightOn), Row: -1, Path: p.Child(".right_on").String(),
			Msg: fmt.Sprintf("asof_join: keys %s (%s) and %s (%s) must both be integers, both dates or both datetimes",
				quoteName(n.LeftOn), lf.Type, quoteName(n.RightOn), rf.Type)}
	}
	if len(n.LeftBy) != len(n.RightBy) {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".right_by").String(),
			Msg: fmt.Sprintf("asof_join: %d left by-keys but %d right by-keys", len(n.LeftBy), len(n.RightBy))}
	}
	for i := range n.LeftBy {
		lb, err := lookup(ls, n.LeftBy[i], p.Index("left_by", i))
		if err != nil {
			return Schema{}, err
		}
		rb, err := lookup(rs, n.RightBy[i], p.Index("right_by", i))
		if err != nil {
			return Schema{}, err
		}
		if err := nestedKey(&Column{Name: n.LeftBy[i]}, lb.Type, p.Index("left_by", i), "asof_join by-key"); err != nil {
			return Schema{}, err
		}
		if err := nestedKey(&Column{Name: n.RightBy[i]}, rb.Type, p.Index("right_by", i), "asof_join by-key"); err != nil {
			return Schema{}, err
		}
		if _, ok := JoinKeyType(lb.Type, rb.Type); !ok {
			return Schema{}, &Error{Kind: TypeError, Expr: quoteName(n.RightBy[i]), Row: -1, Path: p.Index("right_by", i).String(),
				Msg: fmt.Sprintf("asof_join: by-key %s (%s) cannot be compared with %s (%s)", quoteName(n.RightBy[i]), rb.Type, quoteName(n.LeftBy[i]), lb.Type)}
		}
	}
	if n.Tolerance != nil {
		if err := asofTolerance(n.Tolerance, lf.Type, p.Child(".tolerance")); err != nil {
			return Schema{}, err
		}
	}
	out := ls.Fields()
	names := make(map[string]bool, len(out)+rs.Len())
	for _, f := range out {
		names[f.Name] = true
	}
	dropped := DroppedAsofRightColumns(n)
	kept := map[string]bool{}
	for _, name := range rs.Names() {
		if !dropped[name] {
			kept[name] = true
		}
	}
	suffix := n.EffectiveSuffix()
	for _, f := range rs.Fields() {
		if dropped[f.Name] {
			continue
		}
		orig := f.Name
		f.Nullable = true
		if _, clash := ls.Lookup(f.Name); clash {
			f.Name += suffix
			if names[f.Name] || kept[f.Name] {
				return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(f.Name), Row: -1, Path: p.Child(".suffix").String(),
					Msg: fmt.Sprintf("asof_join: right column %q collides with %q even after the suffix %q", orig, f.Name, suffix)}
			}
		}
		names[f.Name] = true
		out = append(out, f)
	}
	return NewSchema(out...)
}

// asofTolerance checks an as-of join's tolerance against its key type:
// an integer literal for integer keys, a duration literal (whole days for
// dates) otherwise, never null or negative.
func asofTolerance(e Expr, key Type, p *Path) error {
	lit, ok := Unalias(e).(*Literal)
	if !ok {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Msg: "asof_join: the tolerance must be a literal, got " + e.String()}
	}
	if lit.bad != "" {
		return &Error{Kind: TypeError, Row: -1, Path: p.String(), Msg: "asof_join: tolerance: " + lit.bad}
	}
	t := lit.Value.Type()
	want := "a duration"
	okType := t == Duration
	if key == Int32 || key == Int64 {
		want, okType = "an int32 or int64", t == Int32 || t == Int64
	}
	if !okType {
		return &Error{Kind: TypeError, Row: -1, Path: p.String(),
			Msg: fmt.Sprintf("asof_join: the tolerance of a %s key must be %s literal, got %s", key, want, t)}
	}
	if lit.Value.IsNull() || lit.Value.Int() < 0 {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Msg: "asof_join: the tolerance must not be null or negative, got " + lit.String()}
	}
	if key == Date && lit.Value.Int()%MicrosPerDay != 0 {
		return &Error{Kind: InvalidPlan, Row: -1, Path: p.String(), Msg: "asof_join: the tolerance of a date key must be a whole number of days, got " + lit.String()}
	}
	return nil
}

// SortedOn reports whether n's rows are provably sorted ascending on the
// column key (nulls anywhere), which an as-of join needs of its inputs: n
// is a sort whose first key is the column key ascending, or a node that
// keeps a subsequence of such an input's rows in order with the column
// unchanged (filter, limit, slice, tail, guard, distinct, a project or
// with_columns passing the column through, an as-of join's left column).
func SortedOn(n Node, key string) bool {
	for !isNilNode(n) {
		switch x := n.(type) {
		case *SortNode:
			if len(x.Keys) == 0 {
				return false
			}
			c, ok := Unalias(x.Keys[0].Expr).(*Column)
			return ok && c.Name == key && !x.Keys[0].Desc
		case *FilterNode:
			n = x.Input
		case *LimitNode:
			n = x.Input
		case *SliceNode:
			n = x.Input
		case *TailNode:
			n = x.Input
		case *GuardNode:
			n = x.Input
		case *DistinctNode:
			n = x.Input
		case *ProjectNode:
			found := false
			for _, e := range x.Exprs {
				if OutputName(e) == key {
					c, ok := Unalias(e).(*Column)
					if !ok || c.Name != key {
						return false
					}
					found = true
				}
			}
			if !found {
				return false
			}
			n = x.Input
		case *WithColumnsNode:
			for _, e := range x.Exprs {
				if OutputName(e) == key {
					return false
				}
			}
			n = x.Input
		case *AsOfJoinNode:
			if _, ok := x.Left.Schema().Lookup(key); !ok {
				return false
			}
			n = x.Left
		default:
			return false
		}
	}
	return false
}
