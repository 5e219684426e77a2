package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The nested-reshaping nodes of issue 18: unnest (struct fields become
// columns) and explode (list elements become rows). Their semantics are
// written in docs/semantics.md (Operators); this file holds the node
// types, their resolution and their labels.

// UnnestNode replaces each of its Columns, a struct column, in place by
// the struct's fields as top-level columns (docs/semantics.md, unnest):
// field order, named by the field, nullable. Row order and count are the
// input's; nothing can fail at run time.
type UnnestNode struct {
	nodeMeta
	Input   Node
	Columns []string
}

// Kind returns KindUnnest.
func (*UnnestNode) Kind() Kind { return KindUnnest }

// Children returns the input.
func (n *UnnestNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over children[0].
func (n *UnnestNode) WithChildren(ch []Node) Node {
	return &UnnestNode{Input: ch[0], Columns: n.Columns}
}

// Label renders "unnest [s, t]".
func (n *UnnestNode) Label() string {
	var b strings.Builder
	b.WriteString("unnest ")
	writeNames(&b, n.Columns)
	return b.String()
}

// Unnest replaces each named struct column, in place, by its fields as
// top-level columns.
func (f Frame) Unnest(columns ...string) Frame {
	return Frame{node: &UnnestNode{Input: f.node, Columns: columns}}
}

// Unnested reports whether the resolved unnest n produces the column name
// from a struct's field (rather than passing an input column through).
func (n *UnnestNode) Unnested(name string) bool {
	in := n.Input.Schema()
	for _, c := range n.Columns {
		f, ok := in.Lookup(c)
		if !ok {
			continue
		}
		for _, sf := range f.Type.StructFields() {
			if sf.Name == name {
				return true
			}
		}
	}
	return false
}

// checkNestedColumns checks a column list of unnest or explode (op): not
// empty, every name an input column, listed once, of the kind want
// reports (what names it: "a struct", "a list"). It returns the list's
// positions by name.
func checkNestedColumns(op string, cols []string, in Schema, want func(Type) bool, what string, p *Path) (map[string]int, error) {
	if len(cols) == 0 {
		return nil, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".columns").String(), Msg: op + ": no column"}
	}
	pos := make(map[string]int, len(cols))
	for i, c := range cols {
		cp := p.Index("columns", i).String()
		f, ok := in.Lookup(c)
		if !ok {
			return nil, &Error{Kind: UnknownColumn, Expr: quoteName(c), Row: -1, Path: cp,
				Msg: fmt.Sprintf("%s: column %s not found; the input has %v", op, quoteName(c), in.Names())}
		}
		if _, dup := pos[c]; dup {
			return nil, &Error{Kind: DuplicateColumn, Expr: quoteName(c), Row: -1, Path: cp,
				Msg: fmt.Sprintf("%s: column %s is listed twice", op, quoteName(c))}
		}
		if !want(f.Type) {
			return nil, &Error{Kind: TypeError, Expr: quoteName(c), Row: -1, Path: cp,
				Msg: fmt.Sprintf("%s: column %s has type %s, not %s", op, quoteName(c), f.Type, what)}
		}
		pos[c] = i
	}
	return pos, nil
}

// resolveUnnest checks the column list and builds the schema: each struct
// column replaced in place by its fields (nullable); a field named like
// another output column is invalid_plan.
func resolveUnnest(n *UnnestNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	pos, err := checkNestedColumns("unnest", n.Columns, in, Type.IsStruct, "a struct", p)
	if err != nil {
		return Schema{}, err
	}
	var fields []Field
	from := map[string]string{} // output name -> the struct it comes from ("" for a kept column)
	for _, f := range in.Fields() {
		if _, ok := pos[f.Name]; !ok {
			from[f.Name] = ""
		}
	}
	for _, f := range in.Fields() {
		i, ok := pos[f.Name]
		if !ok {
			continue
		}
		for _, sf := range f.Type.StructFields() {
			if other, dup := from[sf.Name]; dup {
				what := "the column " + quoteName(sf.Name)
				if other != "" {
					what = "a field of " + quoteName(other)
				}
				return Schema{}, &Error{Kind: InvalidPlan, Expr: quoteName(sf.Name), Row: -1, Path: p.Index("columns", i).String(),
					Msg: fmt.Sprintf("unnest: field %s of %s clashes with %s", quoteName(sf.Name), quoteName(f.Name), what)}
			}
			from[sf.Name] = f.Name
		}
	}
	for _, f := range in.Fields() {
		if _, ok := pos[f.Name]; !ok {
			fields = append(fields, f)
			continue
		}
		for _, sf := range f.Type.StructFields() {
			fields = append(fields, Field{Name: sf.Name, Type: sf.Type, Nullable: true})
		}
	}
	s, err := NewSchema(fields...)
	if err != nil {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".columns").String(), Msg: "unnest: " + err.Error()}
	}
	return s, nil
}

// nestedColumnsParams renders a column list for fingerprints.
func nestedColumnsParams(cols []string) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(cols)))
	for _, c := range cols {
		b.WriteString("\x00" + c)
	}
	return b.String()
}

// ExplodeNode turns each of its Columns, a list column, into a column of
// its element type (nullable), in place, and each input row into one row
// per element (docs/semantics.md, explode): several lists of a row are
// zipped and must have equal lengths, a null or empty list counting as one
// null element (unequal lengths raise invalid_input at run time).
type ExplodeNode struct {
	nodeMeta
	Input   Node
	Columns []string
}

// Kind returns KindExplode.
func (*ExplodeNode) Kind() Kind { return KindExplode }

// Children returns the input.
func (n *ExplodeNode) Children() []Node { return []Node{n.Input} }

// WithChildren returns an unresolved copy over children[0].
func (n *ExplodeNode) WithChildren(ch []Node) Node {
	return &ExplodeNode{Input: ch[0], Columns: n.Columns}
}

// Label renders "explode [l, m]".
func (n *ExplodeNode) Label() string {
	var b strings.Builder
	b.WriteString("explode ")
	writeNames(&b, n.Columns)
	return b.String()
}

// Explode turns each named list column into rows, in place: several
// columns are zipped (equal lengths per row), a null or empty list gives
// one null row.
func (f Frame) Explode(columns ...string) Frame {
	return Frame{node: &ExplodeNode{Input: f.node, Columns: columns}}
}

// Exploded reports whether the explode n explodes the column name.
func (n *ExplodeNode) Exploded(name string) bool {
	return slices.Contains(n.Columns, name)
}

// resolveExplode checks the column list and builds the schema: each list
// column replaced in place by its element type, nullable.
func resolveExplode(n *ExplodeNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	pos, err := checkNestedColumns("explode", n.Columns, in, Type.IsList, "a list", p)
	if err != nil {
		return Schema{}, err
	}
	fields := in.Fields()
	for i, f := range fields {
		if _, ok := pos[f.Name]; ok {
			fields[i] = Field{Name: f.Name, Type: f.Type.Elem(), Nullable: true}
		}
	}
	return NewSchema(fields...)
}
