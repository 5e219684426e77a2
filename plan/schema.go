package plan

import (
	"fmt"
	"maps"
	"strings"
)

// Schema is an ordered list of uniquely named fields. It is immutable: every
// method that would change it returns a new Schema, so schemas can be shared
// freely between plan nodes.
//
// Because nothing ever writes into a schema after it is built, schemas share
// structure: a with_columns that replaces columns by fields equal to them
// returns its input's schema itself, one that only replaces columns shares
// its input's name index, and schemas of up to smallSchema fields keep no
// index at all (a linear scan of a few names is faster than hashing).
type Schema struct {
	fields []Field
	// index maps each name to its position; nil when len(fields) <=
	// smallSchema. Shared between schemas with the same names in the same
	// order, and never written after construction.
	index map[string]int
}

// smallSchema is the width up to which a schema looks names up by a linear
// scan instead of a map.
const smallSchema = 8

// NewSchema builds a schema, rejecting empty and duplicate names and invalid
// types.
func NewSchema(fields ...Field) (Schema, error) {
	var index map[string]int
	if len(fields) > smallSchema {
		index = make(map[string]int, len(fields))
	}
	for i, f := range fields {
		if f.Name == "" {
			return Schema{}, fmt.Errorf("schema: field %d has an empty name", i)
		}
		if f.Type == Invalid || int(f.Type) >= len(typeNames) {
			return Schema{}, fmt.Errorf("schema: field %q has an invalid type", f.Name)
		}
		j, dup := -1, false
		if index != nil {
			j, dup = index[f.Name]
			index[f.Name] = i
		} else {
			j = Schema{fields: fields[:i]}.Index(f.Name)
			dup = j >= 0
		}
		if dup {
			return Schema{}, fmt.Errorf("schema: duplicate column name %q (fields %d and %d)", f.Name, j, i)
		}
	}
	return Schema{fields: append([]Field(nil), fields...), index: index}, nil
}

// ownedSchema builds a schema over fields, which the caller hands over (it
// must not write them afterwards). Names and types must be valid. When two
// fields share a name it returns j, i >= 0: field i is the first whose name
// an earlier field j has (j the first such field); otherwise -1, -1.
func ownedSchema(fields []Field) (s Schema, j, i int) {
	if len(fields) <= smallSchema {
		for i := 1; i < len(fields); i++ {
			for j := 0; j < i; j++ {
				if fields[j].Name == fields[i].Name {
					return Schema{}, j, i
				}
			}
		}
		return Schema{fields: fields}, -1, -1
	}
	index := make(map[string]int, len(fields))
	for i, f := range fields {
		if j, dup := index[f.Name]; dup {
			return Schema{}, j, i
		}
		index[f.Name] = i
	}
	return Schema{fields: fields, index: index}, -1, -1
}

// with returns the schema of a with_columns over s adding add: each field
// replaces the same-named field of s in place, or is appended, in order.
// The names in add must be distinct, non-empty and of valid types. The
// result shares everything it can with s: s itself when every field equals
// the one it replaces, s's name index when nothing is appended.
func (s Schema) with(add []Field) Schema {
	out := s.fields
	copied, appended := false, false
	for _, f := range add {
		i := s.Index(f.Name)
		if i >= 0 && out[i] == f {
			continue
		}
		if !copied {
			out = make([]Field, len(s.fields), len(s.fields)+len(add))
			copy(out, s.fields)
			copied = true
		}
		if i >= 0 {
			out[i] = f
		} else {
			out = append(out, f)
			appended = true
		}
	}
	if !copied {
		return s
	}
	if !appended {
		return Schema{fields: out, index: s.index}
	}
	if len(out) <= smallSchema {
		return Schema{fields: out}
	}
	if s.index != nil {
		index := maps.Clone(s.index)
		for i := len(s.fields); i < len(out); i++ {
			index[out[i].Name] = i
		}
		return Schema{fields: out, index: index}
	}
	index := make(map[string]int, len(out))
	for i, f := range out {
		index[f.Name] = i
	}
	return Schema{fields: out, index: index}
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
	if s.index == nil {
		for i := range s.fields {
			if s.fields[i].Name == name {
				return i
			}
		}
		return -1
	}
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Lookup returns the named field.
func (s Schema) Lookup(name string) (Field, bool) {
	i := s.Index(name)
	if i < 0 {
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
	if len(s.fields) == 0 || &s.fields[0] == &o.fields[0] {
		return true // the same fields (schemas share them)
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
