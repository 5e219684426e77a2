package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The reshaping nodes of issue 18: hstack, merge_sorted and unpivot
// (docs/semantics.md, Operators). Their semantics are written there; this
// file holds the node types, their resolution and their labels.

// HStackNode places its inputs side by side (docs/semantics.md, hstack):
// the columns of every input in input order, row i of each; the inputs must
// have equal heights (verified at run time: invalid_input) and distinct
// column names (checked by Resolve).
type HStackNode struct {
	nodeMeta
	Inputs []Node
}

// MergeSortedNode merges two inputs of the same columns, each sorted
// ascending on the column Key (nulls first), into one sorted sequence,
// left first on ties (docs/semantics.md, merge_sorted). Sortedness is
// verified at run time (invalid_input), never trusted.
type MergeSortedNode struct {
	nodeMeta
	Left, Right Node
	Key         string
}

// UnpivotNode turns the On columns into rows, row-major
// (docs/semantics.md, unpivot): per input row, one output row per On
// column in On order, with the Index columns (nil: every column not in
// On), the column's name as VariableName and its value as ValueName
// (empty names: "variable" and "value").
type UnpivotNode struct {
	nodeMeta
	Input        Node
	On           []string
	Index        []string
	VariableName string
	ValueName    string
}

// Kind returns KindHStack.
func (*HStackNode) Kind() Kind { return KindHStack }

// Kind returns KindMergeSorted.
func (*MergeSortedNode) Kind() Kind { return KindMergeSorted }

// Kind returns KindUnpivot.
func (*UnpivotNode) Kind() Kind { return KindUnpivot }

// Children returns the inputs.
func (n *HStackNode) Children() []Node { return append([]Node(nil), n.Inputs...) }

// Children returns the left and the right input.
func (n *MergeSortedNode) Children() []Node { return []Node{n.Left, n.Right} }

// Children returns the input.
func (n *UnpivotNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over the children.
func (n *HStackNode) WithChildren(ch []Node) Node {
	return &HStackNode{Inputs: append([]Node(nil), ch...)}
}

// WithChildren returns an unresolved copy over children[0] and [1].
func (n *MergeSortedNode) WithChildren(ch []Node) Node {
	return &MergeSortedNode{Left: ch[0], Right: ch[1], Key: n.Key}
}

// WithChildren returns an unresolved copy over children[0].
func (n *UnpivotNode) WithChildren(ch []Node) Node {
	return &UnpivotNode{Input: ch[0], On: n.On, Index: n.Index, VariableName: n.VariableName, ValueName: n.ValueName}
}

// Label renders "hstack".
func (n *HStackNode) Label() string { return "hstack" }

// Label renders "merge_sorted key=k".
func (n *MergeSortedNode) Label() string { return "merge_sorted key=" + quoteName(n.Key) }

// Label renders "unpivot on=[a, b] index=[k] variable=variable value=value"
// (index=* when it defaults to every other column).
func (n *UnpivotNode) Label() string {
	var b strings.Builder
	b.WriteString("unpivot on=")
	writeNames(&b, n.On)
	b.WriteString(" index=")
	if n.Index == nil {
		b.WriteString("*")
	} else {
		writeNames(&b, n.Index)
	}
	b.WriteString(" variable=" + quoteName(n.Variable()) + " value=" + quoteName(n.Value()))
	return b.String()
}

// writeNames renders "[a, b]".
func writeNames(b *strings.Builder, names []string) {
	b.WriteString("[")
	for i, c := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteName(c))
	}
	b.WriteString("]")
}

// Variable is the variable column's name: VariableName, or "variable".
func (n *UnpivotNode) Variable() string {
	if n.VariableName == "" {
		return "variable"
	}
	return n.VariableName
}

// Value is the value column's name: ValueName, or "value".
func (n *UnpivotNode) Value() string {
	if n.ValueName == "" {
		return "value"
	}
	return n.ValueName
}

// IndexColumns is the index: Index, or (nil) every input column not in On,
// in input order. The input must be resolved.
func (n *UnpivotNode) IndexColumns() []string {
	if n.Index != nil {
		return n.Index
	}
	on := map[string]bool{}
	for _, c := range n.On {
		on[c] = true
	}
	var out []string
	for _, c := range n.Input.Schema().Names() {
		if !on[c] {
			out = append(out, c)
		}
	}
	return out
}

// HStack places the frames side by side, f's columns first.
func (f Frame) HStack(others ...Frame) Frame {
	ins := []Node{f.node}
	for _, o := range others {
		ins = append(ins, o.node)
	}
	return Frame{node: &HStackNode{Inputs: ins}}
}

// MergeSorted merges f and other, both sorted ascending on the column key
// (nulls first), into one sorted frame, f's rows first on ties.
func (f Frame) MergeSorted(other Frame, key string) Frame {
	return Frame{node: &MergeSortedNode{Left: f.node, Right: other.node, Key: key}}
}

// Unpivot turns the on columns into rows, row-major: index nil means every
// other column; empty names mean "variable" and "value".
func (f Frame) Unpivot(on, index []string, variableName, valueName string) Frame {
	return Frame{node: &UnpivotNode{Input: f.node, On: on, Index: index, VariableName: variableName, ValueName: valueName}}
}

// resolveHStack concatenates the inputs' schemas: at least two inputs,
// names distinct across them.
func resolveHStack(n *HStackNode, p *Path) (Schema, error) {
	if len(n.Inputs) < 2 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".inputs").String(),
			Msg: fmt.Sprintf("hstack: needs at least two inputs, got %d", len(n.Inputs))}
	}
	from := map[string]int{}
	var fields []Field
	for i, in := range n.Inputs {
		for _, f := range in.Schema().Fields() {
			if j, dup := from[f.Name]; dup {
				return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(f.Name), Row: -1, Path: p.Index("inputs", i).String(),
					Msg: fmt.Sprintf("hstack: column %s of input %d is also in input %d", quoteName(f.Name), i, j)}
			}
			from[f.Name] = i
			fields = append(fields, f)
		}
	}
	s, err := NewSchema(fields...)
	if err != nil {
		return Schema{}, &Error{Kind: DuplicateColumn, Row: -1, Path: p.Child(".inputs").String(), Msg: "hstack: " + err.Error()}
	}
	return s, nil
}

// MergeKeyType reports whether merge_sorted can order a key of type t: the
// scalar types sort orders (docs/semantics.md, sort), no list or struct.
func MergeKeyType(t Type) bool { return slices.Contains(Types(), t) }

// resolveMergeSorted checks that both inputs have the same columns (names
// and types in order) and that the key is one of them, of an orderable
// type; a column is nullable when either input's is.
func resolveMergeSorted(n *MergeSortedNode, p *Path) (Schema, error) {
	l, r := n.Left.Schema(), n.Right.Schema()
	rp := p.Child(".right").String()
	if l.Len() != r.Len() {
		return Schema{}, &Error{Kind: TypeError, Row: -1, Path: rp,
			Msg: fmt.Sprintf("merge_sorted: the right input has %d columns, the left %d", r.Len(), l.Len())}
	}
	out := l.Fields()
	for j := range out {
		f := r.Field(j)
		if f.Name != out[j].Name || f.Type != out[j].Type {
			return Schema{}, &Error{Kind: TypeError, Expr: quoteName(f.Name), Row: -1, Path: rp,
				Msg: fmt.Sprintf("merge_sorted: right column %d is %s, the left's is %s", j, f, out[j])}
		}
		out[j].Nullable = out[j].Nullable || f.Nullable
	}
	kp := p.Child(".key").String()
	kf, ok := l.Lookup(n.Key)
	if !ok {
		return Schema{}, &Error{Kind: UnknownColumn, Expr: quoteName(n.Key), Row: -1, Path: kp,
			Msg: fmt.Sprintf("merge_sorted: key %s not found; the inputs have %v", quoteName(n.Key), l.Names())}
	}
	if !MergeKeyType(kf.Type) {
		return Schema{}, &Error{Kind: TypeError, Expr: quoteName(n.Key), Row: -1, Path: kp,
			Msg: fmt.Sprintf("merge_sorted: key %s has type %s, which sort cannot order", quoteName(n.Key), kf.Type)}
	}
	return NewSchema(out...)
}

// resolveUnpivot checks the on and index lists and the new names, and
// builds the schema: index columns, variable (non-null string), value (the
// on columns' common type, nullable when any is).
func resolveUnpivot(n *UnpivotNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	if len(n.On) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".on").String(), Msg: "unpivot: no on column"}
	}
	seen := map[string]bool{}
	check := func(field string, names []string) error {
		for i, c := range names {
			if _, ok := in.Lookup(c); !ok {
				return &Error{Kind: UnknownColumn, Expr: quoteName(c), Row: -1, Path: p.Index(field, i).String(),
					Msg: fmt.Sprintf("unpivot: column %s not found; the input has %v", quoteName(c), in.Names())}
			}
			if seen[c] {
				return &Error{Kind: DuplicateColumn, Expr: quoteName(c), Row: -1, Path: p.Index(field, i).String(),
					Msg: fmt.Sprintf("unpivot: column %s is listed twice in on and index", quoteName(c))}
			}
			seen[c] = true
		}
		return nil
	}
	if err := check("on", n.On); err != nil {
		return Schema{}, err
	}
	if err := check("index", n.Index); err != nil {
		return Schema{}, err
	}
	first, _ := in.Lookup(n.On[0])
	value := Field{Name: n.Value(), Type: first.Type, Nullable: first.Nullable}
	for i, c := range n.On[1:] {
		f, _ := in.Lookup(c)
		if f.Type != first.Type {
			return Schema{}, &Error{Kind: TypeError, Expr: quoteName(c), Row: -1, Path: p.Index("on", i+1).String(),
				Msg: fmt.Sprintf("unpivot: on columns %s (%s) and %s (%s) differ in type", quoteName(n.On[0]), first.Type, quoteName(c), f.Type)}
		}
		value.Nullable = value.Nullable || f.Nullable
	}
	index := n.IndexColumns()
	for _, nm := range []struct{ field, name string }{{".variable_name", n.Variable()}, {".value_name", n.Value()}} {
		for _, c := range index {
			if c == nm.name {
				return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(c), Row: -1, Path: p.Child(nm.field).String(),
					Msg: fmt.Sprintf("unpivot: %s %s is an index column", strings.TrimPrefix(nm.field, "."), quoteName(c))}
			}
		}
	}
	if n.Variable() == n.Value() {
		return Schema{}, &Error{Kind: DuplicateColumn, Expr: quoteName(n.Value()), Row: -1, Path: p.Child(".value_name").String(),
			Msg: "unpivot: variable and value columns are both named " + quoteName(n.Value())}
	}
	fields := make([]Field, 0, len(index)+2)
	for _, c := range index {
		f, _ := in.Lookup(c)
		fields = append(fields, f)
	}
	fields = append(fields, Field{Name: n.Variable(), Type: String}, value)
	s, err := NewSchema(fields...)
	if err != nil {
		return Schema{}, &Error{Kind: DuplicateColumn, Row: -1, Path: p.String(), Msg: "unpivot: " + err.Error()}
	}
	return s, nil
}

// unpivotParams renders the unpivot's parameters for fingerprints.
func unpivotParams(n *UnpivotNode) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(n.On)))
	for _, c := range n.On {
		b.WriteString("\x00" + c)
	}
	if n.Index == nil {
		b.WriteString("\x01*")
	} else {
		b.WriteString("\x01" + strconv.Itoa(len(n.Index)))
		for _, c := range n.Index {
			b.WriteString("\x00" + c)
		}
	}
	b.WriteString("\x02" + n.Variable() + "\x00" + n.Value())
	return b.String()
}

// QuoteName renders a column name as canonical text writes it in a list of
// names (bare when it is an identifier, quoted otherwise): the `Expr` of
// an error that names a column rather than an expression, so executors and
// the reference name it alike.
func QuoteName(name string) string { return quoteName(name) }

// promoteUnpivot applies the unpivot's numeric promotion
// (docs/semantics.md, unpivot): when the on columns are numbers of
// different types with a common type by the promotion table, a
// with_columns below casts each that differs (`cast(c, P) as c`, which
// cannot fail, in place), so the unpivot itself always sees equal types.
// ok is false when nothing needs a cast, or when the types have no common
// type or a name is unknown (resolveUnpivot reports those).
func (r *resolver) promoteUnpivot(n *UnpivotNode, p *Path) (*UnpivotNode, bool, error) {
	in := n.Input.Schema()
	var want Type
	differ := false
	for i, c := range n.On {
		f, ok := in.Lookup(c)
		if !ok {
			return nil, false, nil
		}
		switch {
		case i == 0:
			want = f.Type
		case f.Type != want:
			t, ok := Promote(want, f.Type)
			if !ok {
				return nil, false, nil
			}
			want, differ = t, true
		}
	}
	if !differ {
		return nil, false, nil
	}
	var exprs []Expr
	seen := map[string]bool{}
	for _, c := range n.On {
		f, _ := in.Lookup(c)
		if f.Type == want || seen[c] {
			continue
		}
		seen[c] = true
		exprs = append(exprs, &Alias{Expr: &Cast{Expr: &Column{Name: c}, To: want, Strict: true}, Name: c})
	}
	wc, err := r.node(&WithColumnsNode{Input: n.Input, Exprs: exprs}, p.Child(".input"))
	if err != nil {
		return nil, false, located(err, n, p)
	}
	return &UnpivotNode{Input: wc, On: n.On, Index: n.Index, VariableName: n.VariableName, ValueName: n.ValueName}, true, nil
}
