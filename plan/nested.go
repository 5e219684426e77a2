package plan

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// List and struct types (docs/semantics.md, Lists and structs) are built
// from the scalar types. A Type stays a small comparable integer so that
// every switch and map over types keeps working: each distinct list or
// struct type is interned once per process and gets an id from
// firstNested up. Two spellings of one type get one id, so == is type
// equality for them as for the scalars. Ids are process-local: anything
// that leaves the process (plan files, fingerprints, output) uses the
// type's text instead.

// firstNested is the first id given to a list or struct type.
const firstNested Type = 256

// StructField is one field of a struct type: a name and a scalar type.
// Every field is nullable.
type StructField struct {
	Name string
	Type Type
}

// nestedType describes an interned list or struct type.
type nestedType struct {
	list   bool
	elem   Type          // a list's element type
	fields []StructField // a struct's fields, in order
	text   string        // the canonical text, the interning key
}

var nested struct {
	sync.RWMutex
	byText map[string]Type
	descs  []nestedType
}

// nestedDesc returns the description of an interned list or struct type.
func nestedDesc(t Type) (nestedType, bool) {
	if t < firstNested {
		return nestedType{}, false
	}
	nested.RLock()
	defer nested.RUnlock()
	i := int(t - firstNested)
	if i >= len(nested.descs) {
		return nestedType{}, false
	}
	return nested.descs[i], true
}

// intern returns the id of d, giving it one when it is new.
func intern(d nestedType) (Type, error) {
	nested.RLock()
	t, ok := nested.byText[d.text]
	nested.RUnlock()
	if ok {
		return t, nil
	}
	nested.Lock()
	defer nested.Unlock()
	if t, ok := nested.byText[d.text]; ok {
		return t, nil
	}
	if int(firstNested)+len(nested.descs) > 0xffff {
		return Invalid, fmt.Errorf("too many distinct list and struct types (at most %d per process)", 0xffff-int(firstNested))
	}
	if nested.byText == nil {
		nested.byText = map[string]Type{}
	}
	t = firstNested + Type(len(nested.descs))
	nested.descs = append(nested.descs, d)
	nested.byText[d.text] = t
	return t, nil
}

// isScalar reports whether t is one of the scalar types of Types().
func isScalar(t Type) bool { return t > Invalid && int(t) < len(typeNames) }

// nestable reports whether a list may hold, or a struct field be, a value
// of type t: any scalar type — bool, the ten numeric types, string, date,
// datetime or duration (docs/semantics.md, Lists and structs). A list or
// struct is not (no nesting of nested types).
func nestable(t Type) bool {
	return t == Bool || t == String || t == Date || t == Datetime || t == Duration || t.IsNumeric()
}

// ListOf returns the type list<elem>. elem must be a scalar type: a list
// of lists or of structs is an error.
func ListOf(elem Type) (Type, error) {
	if !nestable(elem) {
		return Invalid, fmt.Errorf("list<%s>: a list's elements must be a scalar type (bool, a number, string, date, datetime or duration), not a list or struct", elem)
	}
	return intern(nestedType{list: true, elem: elem, text: "list<" + elem.String() + ">"})
}

// StructOf returns the type struct{fields...}. It needs at least one
// field, distinct non-empty names and scalar field types.
func StructOf(fields ...StructField) (Type, error) {
	if len(fields) == 0 {
		return Invalid, fmt.Errorf("struct{}: a struct needs at least one field")
	}
	var b strings.Builder
	b.WriteString("struct{")
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		if f.Name == "" {
			return Invalid, fmt.Errorf("struct field %d: empty name", i)
		}
		if seen[f.Name] {
			return Invalid, fmt.Errorf("struct field %q named twice", f.Name)
		}
		seen[f.Name] = true
		if !nestable(f.Type) {
			return Invalid, fmt.Errorf("struct field %q: a field must be a scalar type (bool, a number, string, date, datetime or duration), not %s", f.Name, f.Type)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fieldNameText(f.Name))
		b.WriteString(": ")
		b.WriteString(f.Type.String())
	}
	b.WriteString("}")
	return intern(nestedType{fields: append([]StructField(nil), fields...), text: b.String()})
}

// MustListOf is ListOf for element types known to be scalar; it panics
// otherwise (a programming error, for tests, builders and generators).
func MustListOf(elem Type) Type {
	t, err := ListOf(elem)
	if err != nil {
		panic(err)
	}
	return t
}

// MustStructOf is StructOf for fields known to be valid; it panics
// otherwise (a programming error, for tests, builders and generators).
func MustStructOf(fields ...StructField) Type {
	t, err := StructOf(fields...)
	if err != nil {
		panic(err)
	}
	return t
}

// fieldNameText writes a struct field name bare when it is an
// identifier that is no keyword of the expression text, Go-quoted
// otherwise.
func fieldNameText(n string) string {
	if isIdent(n) {
		return n
	}
	return strconv.Quote(n)
}

// IsList reports whether t is a list type.
func (t Type) IsList() bool {
	d, ok := nestedDesc(t)
	return ok && d.list
}

// IsStruct reports whether t is a struct type.
func (t Type) IsStruct() bool {
	d, ok := nestedDesc(t)
	return ok && !d.list
}

// IsNested reports whether t is a list or struct type: a type that is
// carried but never compared, hashed or ordered (docs/semantics.md).
func (t Type) IsNested() bool { return t >= firstNested }

// Elem returns a list type's element type (Invalid for other types).
func (t Type) Elem() Type {
	if d, ok := nestedDesc(t); ok && d.list {
		return d.elem
	}
	return Invalid
}

// StructFields returns a struct type's fields in order (nil for other
// types). The slice is a copy.
func (t Type) StructFields() []StructField {
	if d, ok := nestedDesc(t); ok && !d.list {
		return append([]StructField(nil), d.fields...)
	}
	return nil
}

// FieldIndex returns the position of the field named name in a struct
// type, or -1.
func (t Type) FieldIndex(name string) int {
	if d, ok := nestedDesc(t); ok && !d.list {
		for i, f := range d.fields {
			if f.Name == name {
				return i
			}
		}
	}
	return -1
}

// ParseNestedType reads the text of a list or struct type: `list<T>` or
// `struct{a: T, "b c": U}` with T and U scalar type names and spaces
// allowed between tokens. Its errors say what was expected where.
func ParseNestedType(text string) (Type, error) {
	if !strings.HasPrefix(text, "list") && !strings.HasPrefix(text, "struct") {
		return Invalid, fmt.Errorf("type %q: not a list or struct type", text)
	}
	p := &typeParser{s: text}
	t, err := p.typ(true)
	if err != nil {
		return Invalid, fmt.Errorf("type %q: %w", text, err)
	}
	p.space()
	if p.i != len(p.s) {
		return Invalid, fmt.Errorf("type %q: unexpected %q at offset %d", text, p.s[p.i:], p.i)
	}
	return t, nil
}

// typeParser reads a type's text.
type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// word reads an identifier-like run (letters, digits, _).
func (p *typeParser) word() string {
	p.space()
	j := p.i
	for p.i < len(p.s) {
		c := rune(p.s[p.i])
		if c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			break
		}
		p.i++
	}
	return p.s[j:p.i]
}

func (p *typeParser) expect(c byte) error {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("expected %q at offset %d", string(c), p.i)
	}
	p.i++
	return nil
}

// typ reads one type; nestedOK says whether a list or struct may appear.
func (p *typeParser) typ(nestedOK bool) (Type, error) {
	at := p.i
	w := p.word()
	switch w {
	case "list", "struct":
		if !nestedOK {
			return Invalid, fmt.Errorf("%s at offset %d: a list's elements and a struct's fields must be of a scalar type", w, at)
		}
	default:
		if t, ok := parseScalarType(w); ok {
			return t, nil
		}
		if w == "" {
			return Invalid, fmt.Errorf("expected a type name at offset %d", p.i)
		}
		return Invalid, fmt.Errorf("unknown type %q", w)
	}
	if w == "list" {
		if err := p.expect('<'); err != nil {
			return Invalid, err
		}
		e, err := p.typ(false)
		if err != nil {
			return Invalid, err
		}
		if err := p.expect('>'); err != nil {
			return Invalid, err
		}
		return ListOf(e)
	}
	if err := p.expect('{'); err != nil {
		return Invalid, err
	}
	var fields []StructField
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' && len(fields) == 0 {
			return Invalid, fmt.Errorf("a struct needs at least one field")
		}
		var name string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			j := p.i + 1
			for j < len(p.s) && p.s[j] != '"' {
				if p.s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(p.s) {
				return Invalid, fmt.Errorf("unterminated field name at offset %d", p.i)
			}
			n, err := strconv.Unquote(p.s[p.i : j+1])
			if err != nil {
				return Invalid, fmt.Errorf("bad quoted field name at offset %d: %v", p.i, err)
			}
			name = n
			p.i = j + 1
		} else {
			name = p.word()
			if name == "" {
				return Invalid, fmt.Errorf("expected a field name at offset %d", p.i)
			}
		}
		if err := p.expect(':'); err != nil {
			return Invalid, err
		}
		ft, err := p.typ(false)
		if err != nil {
			return Invalid, fmt.Errorf("field %q: %w", name, err)
		}
		fields = append(fields, StructField{Name: name, Type: ft})
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if err := p.expect('}'); err != nil {
			return Invalid, err
		}
		return StructOf(fields...)
	}
}

// ListValue returns a non-null value of the list type t holding elems
// (each of t's element type; not checked here, planjson and the
// generators build them typed).
func ListValue(t Type, elems []Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{typ: t, valid: true, nest: &elems}
}

// StructValue returns a non-null value of the struct type t whose fields
// hold fields, in t's field order.
func StructValue(t Type, fields []Value) Value {
	if fields == nil {
		fields = []Value{}
	}
	return Value{typ: t, valid: true, nest: &fields}
}

// Elems returns a non-null list value's elements or struct value's field
// values (nil for a null or a scalar). The slice must not be modified.
func (v Value) Elems() []Value {
	if v.nest == nil || !v.valid {
		return nil
	}
	return *v.nest
}

// nestedString renders a list as `[1, null(int64)]` and a struct as
// `{a: 1, b: "x"}`, each element in the canonical value text.
func (v Value) nestedString() string {
	var b strings.Builder
	if v.typ.IsList() {
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.String())
		}
		b.WriteByte(']')
		return b.String()
	}
	fs := v.typ.StructFields()
	b.WriteByte('{')
	for i, e := range v.Elems() {
		if i > 0 {
			b.WriteString(", ")
		}
		if i < len(fs) {
			b.WriteString(fieldNameText(fs[i].Name))
			b.WriteString(": ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte('}')
	return b.String()
}

// identicalNested compares two non-null list or struct values element by
// element with Identical.
func identicalNested(a, b Value) bool {
	x, y := a.Elems(), b.Elems()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !x[i].Identical(y[i]) {
			return false
		}
	}
	return true
}

// Valid reports whether t is a type: a scalar type or an interned list or
// struct type.
func (t Type) Valid() bool {
	if isScalar(t) {
		return true
	}
	_, ok := nestedDesc(t)
	return ok
}
