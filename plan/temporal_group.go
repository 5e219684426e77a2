package plan

import (
	"fmt"
	"strings"
)

// TemporalMode is a temporal_group's mode (docs/semantics.md,
// temporal_group).
type TemporalMode uint8

// The modes.
const (
	// TemporalDynamic is group_by_dynamic: windows on a fixed grid.
	TemporalDynamic TemporalMode = iota
	// TemporalRolling is rolling: one window per input row.
	TemporalRolling
	temporalModeCount
)

var temporalModeNames = [temporalModeCount]string{"dynamic", "rolling"}

// String returns the mode's name as written in plan files.
func (m TemporalMode) String() string {
	if m < temporalModeCount {
		return temporalModeNames[m]
	}
	return fmt.Sprintf("TemporalMode(%d)", int(m))
}

// ParseTemporalMode returns the mode named s.
func ParseTemporalMode(s string) (TemporalMode, bool) {
	for i, n := range temporalModeNames {
		if n == s {
			return TemporalMode(i), true
		}
	}
	return 0, false
}

// WindowClosed says which bounds of a window belong to it.
type WindowClosed uint8

// The closures; ClosedDefault is the mode's default (left for
// group_by_dynamic, right for rolling).
const (
	ClosedDefault WindowClosed = iota
	ClosedLeft
	ClosedRight
	ClosedBoth
	ClosedNone
	windowClosedCount
)

var windowClosedNames = [windowClosedCount]string{"", "left", "right", "both", "none"}

// String returns the closure's name as written in plan files ("" for the
// default).
func (c WindowClosed) String() string {
	if c < windowClosedCount {
		return windowClosedNames[c]
	}
	return fmt.Sprintf("WindowClosed(%d)", int(c))
}

// ParseWindowClosed returns the closure named s.
func ParseWindowClosed(s string) (WindowClosed, bool) {
	for i, n := range windowClosedNames {
		if i > 0 && n == s {
			return WindowClosed(i), true
		}
	}
	return 0, false
}

// Contains reports whether x lies in the window [lo, hi] with the bounds
// c says (c must not be ClosedDefault).
func (c WindowClosed) Contains(lo, hi, x int64) bool {
	switch c {
	case ClosedLeft:
		return lo <= x && x < hi
	case ClosedRight:
		return lo < x && x <= hi
	case ClosedBoth:
		return lo <= x && x <= hi
	}
	return lo < x && x < hi
}

// WindowLabel says which value labels a group_by_dynamic window.
type WindowLabel uint8

// The labels.
const (
	// LabelLeft is the window's start (the default).
	LabelLeft WindowLabel = iota
	// LabelRight is the window's end.
	LabelRight
	// LabelDatapoint is the index of the window's first row.
	LabelDatapoint
	windowLabelCount
)

var windowLabelNames = [windowLabelCount]string{"left", "right", "datapoint"}

// String returns the label's name as written in plan files.
func (l WindowLabel) String() string {
	if l < windowLabelCount {
		return windowLabelNames[l]
	}
	return fmt.Sprintf("WindowLabel(%d)", int(l))
}

// ParseWindowLabel returns the label named s.
func ParseWindowLabel(s string) (WindowLabel, bool) {
	for i, n := range windowLabelNames {
		if n == s {
			return WindowLabel(i), true
		}
	}
	return 0, false
}

// MaxTemporalParam bounds every, period and |offset| of a temporal_group,
// so that an index plus or minus their sum is computed without overflow.
const MaxTemporalParam = int64(1) << 60

// MaxWindowsPerRow bounds period / every of group_by_dynamic: a row lies
// in at most that many windows, plus one.
const MaxWindowsPerRow = 1024

// TemporalGroupNode aggregates over windows of an ordered index column:
// group_by_dynamic (a fixed grid of windows) or rolling (one window per
// row), within groups of by-keys (docs/semantics.md, temporal_group). The
// index must be sorted within each group; the executor verifies it.
type TemporalGroupNode struct {
	nodeMeta
	Input Node
	Mode  TemporalMode
	// Index names the index column (int64 or datetime).
	Index string
	// Every, Period and Offset are literals in the index's unit (an int64,
	// or a duration); nil means the default (Every is required for
	// group_by_dynamic and unused by rolling; Period defaults to Every;
	// Offset to 0 for group_by_dynamic and -Period for rolling).
	Every, Period, Offset Expr
	Closed                WindowClosed
	// LabelKind says which value labels a group_by_dynamic window.
	LabelKind WindowLabel
	// By names the group key columns.
	By []string
	// Aggs are the aggregate expressions, as in an aggregate node.
	Aggs []Expr
}

// Kind returns KindTemporalGroup.
func (*TemporalGroupNode) Kind() Kind { return KindTemporalGroup }

// Children returns the input.
func (n *TemporalGroupNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over children[0].
func (n *TemporalGroupNode) WithChildren(ch []Node) Node {
	return &TemporalGroupNode{Input: ch[0], Mode: n.Mode, Index: n.Index, Every: n.Every, Period: n.Period,
		Offset: n.Offset, Closed: n.Closed, LabelKind: n.LabelKind, By: n.By, Aggs: n.Aggs}
}

// Label renders "temporal_group dynamic index=t every=10 period=20
// offset=0 closed=left label=left by=[k] aggs=[sum(a)]".
func (n *TemporalGroupNode) Label() string {
	var b strings.Builder
	b.WriteString("temporal_group " + n.Mode.String() + " index=" + quoteName(n.Index))
	for _, p := range []struct {
		name string
		e    Expr
	}{{"every", n.Every}, {"period", n.Period}, {"offset", n.Offset}} {
		if p.e != nil {
			b.WriteString(" " + p.name + "=" + p.e.String())
		}
	}
	if n.Closed != ClosedDefault {
		b.WriteString(" closed=" + n.Closed.String())
	}
	if n.Mode == TemporalDynamic && n.LabelKind != LabelLeft {
		b.WriteString(" label=" + n.LabelKind.String())
	}
	if len(n.By) > 0 {
		b.WriteString(" by=[" + strings.Join(quoteNames(n.By), ", ") + "]")
	}
	parts := make([]string, len(n.Aggs))
	for i, a := range n.Aggs {
		parts[i] = a.String()
	}
	b.WriteString(" aggs=[" + strings.Join(parts, ", ") + "]")
	return b.String()
}

// TemporalParams are a resolved temporal_group's effective parameters in
// the index's unit.
type TemporalParams struct {
	Every, Period, Offset int64
	Closed                WindowClosed
}

// Params returns the node's effective parameters, defaults filled in
// (meaningful once resolved).
func (n *TemporalGroupNode) Params() TemporalParams {
	val := func(e Expr) (int64, bool) {
		if e == nil {
			return 0, false
		}
		if lit, ok := Unalias(e).(*Literal); ok && !lit.Value.IsNull() {
			return lit.Value.Int(), true
		}
		return 0, false
	}
	var p TemporalParams
	p.Every, _ = val(n.Every)
	var ok bool
	if p.Period, ok = val(n.Period); !ok {
		p.Period = p.Every
	}
	if p.Offset, ok = val(n.Offset); !ok && n.Mode == TemporalRolling {
		p.Offset = -p.Period
	}
	p.Closed = n.Closed
	if p.Closed == ClosedDefault {
		p.Closed = ClosedLeft
		if n.Mode == TemporalRolling {
			p.Closed = ClosedRight
		}
	}
	return p
}

// Reach returns x of docs/semantics.md (temporal_group): a row whose index
// t has t - x or t + x outside the int64 range raises.
func (p TemporalParams) Reach(m TemporalMode) int64 {
	off := p.Offset
	if off < 0 {
		off = -off
	}
	if m == TemporalRolling {
		return p.Period + off
	}
	return p.Every + p.Period + off
}

func resolveTemporalGroup(n *TemporalGroupNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	if n.Mode >= temporalModeCount {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".mode").String(), Msg: "temporal_group: invalid mode"}
	}
	if n.Closed >= windowClosedCount {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".closed").String(), Msg: "temporal_group: invalid closed"}
	}
	if n.LabelKind >= windowLabelCount || (n.Mode == TemporalRolling && n.LabelKind != LabelLeft) {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".label").String(), Msg: "temporal_group: label applies to group_by_dynamic only"}
	}
	idx, ok := in.Lookup(n.Index)
	if !ok {
		return Schema{}, &Error{Kind: UnknownColumn, Expr: quoteName(n.Index), Row: -1, Path: p.Child(".index").String(),
			Msg: fmt.Sprintf("temporal_group: no column %s in the input", quoteName(n.Index))}
	}
	if idx.Type != Int64 && idx.Type != Datetime {
		return Schema{}, &Error{Kind: TypeError, Expr: quoteName(n.Index), Row: -1, Path: p.Child(".index").String(),
			Msg: fmt.Sprintf("temporal_group: the index %s is %s; it must be int64 or datetime (cast an int32 or a date first)", quoteName(n.Index), idx.Type)}
	}
	param := func(e Expr, field string, positive bool) error {
		fp := p.Child("." + field)
		lit, ok := Unalias(e).(*Literal)
		if !ok {
			return &Error{Kind: InvalidPlan, Row: -1, Path: fp.String(), Msg: "temporal_group: " + field + " must be a literal, got " + e.String()}
		}
		want := Int64
		if idx.Type == Datetime {
			want = Duration
		}
		if lit.bad != "" || lit.Value.Type() != want {
			return &Error{Kind: TypeError, Row: -1, Path: fp.String(),
				Msg: fmt.Sprintf("temporal_group: %s of a %s index must be a %s literal, got %s", field, idx.Type, want, e)}
		}
		v := lit.Value.Int()
		switch {
		case lit.Value.IsNull():
			return &Error{Kind: InvalidPlan, Row: -1, Path: fp.String(), Msg: "temporal_group: " + field + " must not be null"}
		case positive && v <= 0:
			return &Error{Kind: InvalidPlan, Row: -1, Path: fp.String(), Msg: fmt.Sprintf("temporal_group: %s must be > 0, got %s", field, e)}
		case v > MaxTemporalParam || v < -MaxTemporalParam:
			return &Error{Kind: InvalidPlan, Row: -1, Path: fp.String(), Msg: fmt.Sprintf("temporal_group: %s must lie within ±2^60, got %s", field, e)}
		}
		return nil
	}
	switch {
	case n.Mode == TemporalDynamic && n.Every == nil:
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".every").String(), Msg: "temporal_group: group_by_dynamic needs every"}
	case n.Mode == TemporalRolling && n.Every != nil:
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".every").String(), Msg: "temporal_group: rolling takes no every"}
	case n.Mode == TemporalRolling && n.Period == nil:
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".period").String(), Msg: "temporal_group: rolling needs period"}
	}
	for _, f := range []struct {
		e        Expr
		name     string
		positive bool
	}{{n.Every, "every", true}, {n.Period, "period", true}, {n.Offset, "offset", false}} {
		if f.e != nil {
			if err := param(f.e, f.name, f.positive); err != nil {
				return Schema{}, err
			}
		}
	}
	prm := n.Params()
	if n.Mode == TemporalDynamic && prm.Period/MaxWindowsPerRow > prm.Every {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".period").String(),
			Msg: fmt.Sprintf("temporal_group: period must be at most %d × every", MaxWindowsPerRow)}
	}
	fields := make([]Field, 0, len(n.By)+1+len(n.Aggs))
	all := make([]Expr, 0, cap(fields))
	for i, b := range n.By {
		f, ok := in.Lookup(b)
		if !ok {
			return Schema{}, &Error{Kind: UnknownColumn, Expr: quoteName(b), Row: -1, Path: p.Index("by", i).String(),
				Msg: fmt.Sprintf("temporal_group: no column %s in the input", quoteName(b))}
		}
		if err := nestedKey(&Column{Name: b}, f.Type, p.Index("by", i), "temporal_group by-key"); err != nil {
			return Schema{}, err
		}
		fields = append(fields, f)
		all = append(all, &Column{Name: b})
	}
	fields = append(fields, Field{Name: n.Index, Type: idx.Type})
	all = append(all, &Column{Name: n.Index})
	for i, a := range n.Aggs {
		ap := p.Index("aggs", i)
		if err := noWindowOrAggregate(a, ap, "temporal_group"); err != nil {
			return Schema{}, err
		}
		f, err := AggTypeOf(a, in)
		if err != nil {
			return Schema{}, exprError(err, ap)
		}
		if c, ok := Unalias(a).(*Call); ok && !neverNullAgg(c.Fn) {
			// A rolling window may be empty; a dynamic one never is, but
			// its aggregate may still be null over nulls.
			f.Nullable = true
		}
		fields = append(fields, f)
		all = append(all, a)
	}
	s, j, i := ownedSchema(fields)
	if j >= 0 {
		fp := p.Index("aggs", i-len(n.By)-1)
		if i < len(n.By) {
			fp = p.Index("by", i)
		} else if i == len(n.By) {
			fp = p.Child(".index")
		}
		return Schema{}, duplicateOutput(fields[i].Name, all[j], all[i], fp)
	}
	if err := checkFields(fields); err != nil {
		return Schema{}, err
	}
	return s, nil
}
