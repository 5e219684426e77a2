package plan

import (
	"fmt"
	"strings"
)

// Schema is an ordered list of uniquely named fields. It is immutable: every
// method that would change it returns a new Schema, so schemas can be shared
// freely between plan nodes.
type Schema struct {
	fields []Field
	index  map[string]int
}

// NewSchema builds a schema, rejecting empty and duplicate names and invalid
// types.
func NewSchema(fields ...Field) (Schema, error) {
	index := make(map[string]int, len(fields))
	for i, f := range fields {
		if f.Name == "" {
			return Schema{}, fmt.Errorf("schema: field %d has an empty name", i)
		}
		if f.Type == Invalid || int(f.Type) >= len(typeNames) {
			return Schema{}, fmt.Errorf("schema: field %q has an invalid type", f.Name)
		}
		if j, dup := index[f.Name]; dup {
			return Schema{}, fmt.Errorf("schema: duplicate column name %q (fields %d and %d)", f.Name, j, i)
		}
		index[f.Name] = i
	}
	return Schema{fields: append([]Field(nil), fields...), index: index}, nil
}

// MustSchema is NewSchema for fields known to be valid (tests, examples); it
// panics on an invalid schema.
func MustSchema(fields ...Field) Schema {
	s, err := NewSchema(fields...)
	if err != nil {
		panic(err)
	}
	return s
}

// Len returns the number of fields.
func (s Schema) Len() int { return len(s.fields) }

// Field returns the i-th field.
func (s Schema) Field(i int) Field { return s.fields[i] }

// Fields returns a copy of the fields in order.
func (s Schema) Fields() []Field { return append([]Field(nil), s.fields...) }

// Index returns the position of the named field, or -1.
func (s Schema) Index(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Lookup returns the named field.
func (s Schema) Lookup(name string) (Field, bool) {
	i, ok := s.index[name]
	if !ok {
		return Field{}, false
	}
	return s.fields[i], true
}

// Names returns the field names in order.
func (s Schema) Names() []string {
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.Name
	}
	return names
}

// Equal reports whether two schemas have the same names, types and
// nullability in the same order.
func (s Schema) Equal(o Schema) bool {
	if len(s.fields) != len(o.fields) {
		return false
	}
	for i := range s.fields {
		if s.fields[i] != o.fields[i] {
			return false
		}
	}
	return true
}

// String renders the schema as "[a: int64?, b: string]".
func (s Schema) String() string {
	parts := make([]string, len(s.fields))
	for i, f := range s.fields {
		parts[i] = f.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
