package plan

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Schema is an ordered list of uniquely named fields. It is immutable: every
// method that would change it returns a new Schema, so schemas can be shared
// freely between plan nodes and goroutines.
//
// Schemas share structure, so that a chain of nodes each adding a column
// costs O(1) per node, not O(width): a with_columns that replaces columns by
// fields equal to them returns its input's schema itself; one that only
// replaces columns shares its input's name index; one that appends columns
// to a schema nobody has extended yet writes them into spare capacity of the
// same backing array and the same name index (the tail is claimed once, so
// a second extension of the same schema copies instead). Schemas of up to
// smallSchema fields keep no index at all (a linear scan of a few names is
// faster than hashing).
type Schema struct {
	fields []Field
	// index finds a name's position; nil when len(fields) <= smallSchema.
	index *nameIndex
	// tail is the claim on the backing array's spare capacity (and the
	// index's): only the schema whose length equals it may append in place.
	tail *atomic.Int64
}

// smallSchema is the width up to which a schema looks names up by a linear
// scan instead of a map.
const smallSchema = 8

// nameIndex maps names to positions for every schema sharing one backing
// array: an open-addressing table whose slots hold position+1 (0: empty),
// written atomically by the one schema holding the tail, read by all. A
// schema of length n ignores positions >= n (fields appended by a schema
// built on it), so an index shared between a schema and its extensions
// answers each of them right.
type nameIndex struct {
	seed  maphash.Seed
	slots []atomic.Int32
	used  atomic.Int64
}

// newNameIndex returns an index for at least n names, holding fields.
func newNameIndex(fields []Field, n int) *nameIndex {
	size := 16
	for size < 2*n {
		size *= 2
	}
	x := &nameIndex{seed: maphash.MakeSeed(), slots: make([]atomic.Int32, size)}
	for i := range fields {
		x.insert(fields, i)
	}
	return x
}

// roomFor reports whether k more names keep the table at most half full.
func (x *nameIndex) roomFor(k int) bool { return int(x.used.Load())+k <= len(x.slots)/2 }

// insert records fields[i] (its name is not in the table for any position
// below i).
func (x *nameIndex) insert(fields []Field, i int) {
	mask := uint64(len(x.slots) - 1)
	for h := maphash.String(x.seed, fields[i].Name) & mask; ; h = (h + 1) & mask {
		if x.slots[h].Load() == 0 {
			x.slots[h].Store(int32(i + 1))
			x.used.Add(1)
			return
		}
	}
}

// lookup returns the position of name among fields (a schema's own fields:
// positions at or past len(fields) belong to extensions and are skipped),
// or -1.
func (x *nameIndex) lookup(fields []Field, name string) int {
	mask := uint64(len(x.slots) - 1)
	for h := maphash.String(x.seed, name) & mask; ; h = (h + 1) & mask {
		p := int(x.slots[h].Load())
		if p == 0 {
			return -1
		}
		if p-1 < len(fields) && fields[p-1].Name == name {
			return p - 1
		}
	}
}

// NewSchema builds a schema, rejecting empty and duplicate names and invalid
// types (the first offending field, in order, is named).
func NewSchema(fields ...Field) (Schema, error) {
	owned := append([]Field(nil), fields...)
	var index *nameIndex
	if len(owned) > smallSchema {
		index = newNameIndex(nil, len(owned))
	}
	for i, f := range owned {
		if f.Name == "" {
			return Schema{}, fmt.Errorf("schema: field %d has an empty name", i)
		}
		if !f.Type.Valid() {
			return Schema{}, fmt.Errorf("schema: field %q has an invalid type", f.Name)
		}
		j := -1
		if index != nil {
			j = index.lookup(owned[:i], f.Name)
			index.insert(owned, i)
		} else {
			j = Schema{fields: owned[:i]}.Index(f.Name)
		}
		if j >= 0 {
			return Schema{}, fmt.Errorf("schema: duplicate column name %q (fields %d and %d)", f.Name, j, i)
		}
	}
	return newSchema(owned, index), nil
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
		return newSchema(fields, nil), -1, -1
	}
	index := newNameIndex(nil, len(fields))
	for i := range fields {
		if j := index.lookup(fields[:i], fields[i].Name); j >= 0 {
			return Schema{}, j, i
		}
		index.insert(fields, i)
	}
	return newSchema(fields, index), -1, -1
}

// newSchema wraps fields (owned) with its own tail.
func newSchema(fields []Field, index *nameIndex) Schema {
	tail := new(atomic.Int64)
	tail.Store(int64(len(fields)))
	return Schema{fields: fields, index: index, tail: tail}
}

// with returns the schema of a with_columns over s adding add: each field
// replaces the same-named field of s in place, or is appended, in order.
// The names in add must be distinct, non-empty and of valid types. The
// result shares everything it can with s: s itself when every field equals
// the one it replaces, s's name index when nothing is appended, and s's
// backing array and index when only new fields are appended to a schema
// nobody extended yet (amortized O(len(add)), however wide s is).
func (s Schema) with(add []Field) Schema {
	replaced, appended := false, 0
	for _, f := range add {
		if i := s.Index(f.Name); i >= 0 {
			if s.fields[i] != f {
				replaced = true
			}
		} else {
			appended++
		}
	}
	if !replaced && appended == 0 {
		return s
	}
	if !replaced {
		fresh := add
		if appended != len(add) {
			fresh = make([]Field, 0, appended)
			for _, f := range add {
				if s.Index(f.Name) < 0 {
					fresh = append(fresh, f)
				}
			}
		}
		if out, ok := s.appendInPlace(fresh); ok {
			return out
		}
	}
	out := make([]Field, len(s.fields), max(len(s.fields)+appended, 2*len(s.fields)))
	copy(out, s.fields)
	for _, f := range add {
		if i := s.Index(f.Name); i >= 0 {
			out[i] = f
		} else {
			out = append(out, f)
		}
	}
	if appended == 0 {
		return newSchema(out, s.index) // the same names at the same positions
	}
	if len(out) <= smallSchema {
		return newSchema(out, nil)
	}
	return newSchema(out, newNameIndex(out, cap(out)))
}

// appendInPlace appends add (new names, none in s) into the spare capacity
// of s's backing array when s holds the tail, and returns false otherwise.
func (s Schema) appendInPlace(add []Field) (Schema, bool) {
	n, appended := len(s.fields), len(add)
	if s.tail == nil || n+appended > cap(s.fields) || (n+appended > smallSchema && (s.index == nil || !s.index.roomFor(appended))) {
		return Schema{}, false
	}
	if !s.tail.CompareAndSwap(int64(n), int64(n+appended)) {
		return Schema{}, false // another schema already extended s
	}
	out := s.fields[:n+appended]
	copy(out[n:], add)
	index := s.index
	for i := n; i < len(out); i++ {
		if index != nil {
			index.insert(out, i)
		}
	}
	return Schema{fields: out, index: index, tail: s.tail}, true
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
	return s.index.lookup(s.fields, name)
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
