package plan

import (
	"fmt"
	"sort"
	"sync"
)

// ExtensionProperty is a property a host operator may declare so that the
// legality table can let rules cross it. The list is closed: an operator
// declaring nothing is a barrier to every rule.
type ExtensionProperty string

// The declarable properties.
const (
	// RowPreserving: one output row per input row (no rows added, dropped or
	// duplicated), as long as the operator does not fail.
	RowPreserving ExtensionProperty = "row_preserving"
	// ColumnPassthrough: every input column appears unchanged in the output,
	// under the same name.
	ColumnPassthrough ExtensionProperty = "column_passthrough"
	// OrderPreserving: output rows keep the relative order of their inputs.
	OrderPreserving ExtensionProperty = "order_preserving"
	// DeterministicOp: the same input gives the same output every time, so
	// structurally identical instances may share one evaluation.
	DeterministicOp ExtensionProperty = "deterministic"
)

// ExtensionProperties lists every declarable property.
func ExtensionProperties() []ExtensionProperty {
	return []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving, DeterministicOp}
}

// ExtensionDef declares a host-defined operator to the optimizer: its name,
// its arity, how its output schema follows from its inputs, and the
// properties it guarantees. The executor pairs the name with an
// implementation separately.
type ExtensionDef struct {
	Name string
	// Inputs is the number of child plans (at least 1).
	Inputs int
	// Properties are the declared guarantees; see ExtensionProperty.
	Properties []ExtensionProperty
	// OutputSchema derives the output schema; nil means "the first input's".
	OutputSchema func(inputs []Schema) (Schema, error)
}

// Has reports whether the operator declares p.
func (d *ExtensionDef) Has(p ExtensionProperty) bool {
	if d == nil {
		return false
	}
	for _, q := range d.Properties {
		if q == p {
			return true
		}
	}
	return false
}

// ExtensionRegistry maps names to operator declarations.
type ExtensionRegistry struct {
	mu   sync.RWMutex
	defs map[string]*ExtensionDef
}

// NewExtensionRegistry returns a registry holding defs.
func NewExtensionRegistry(defs ...*ExtensionDef) (*ExtensionRegistry, error) {
	r := &ExtensionRegistry{defs: map[string]*ExtensionDef{}}
	for _, d := range defs {
		if err := r.Register(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds d, rejecting unnamed and duplicate operators, arities below
// one and undeclarable properties.
func (r *ExtensionRegistry) Register(d *ExtensionDef) error {
	if d == nil || d.Name == "" {
		return fmt.Errorf("register extension: missing name")
	}
	if d.Inputs < 1 {
		return fmt.Errorf("register extension %q: needs at least one input, got %d", d.Name, d.Inputs)
	}
	known := map[ExtensionProperty]bool{}
	for _, p := range ExtensionProperties() {
		known[p] = true
	}
	for _, p := range d.Properties {
		if !known[p] {
			return fmt.Errorf("register extension %q: unknown property %q (declarable: %v)", d.Name, p, ExtensionProperties())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.defs[d.Name]; dup {
		return fmt.Errorf("register extension %q: already registered", d.Name)
	}
	r.defs[d.Name] = d
	return nil
}

// Lookup returns the named declaration.
func (r *ExtensionRegistry) Lookup(name string) (*ExtensionDef, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.defs[name]
	return d, ok
}

// Names returns the registered names, sorted.
func (r *ExtensionRegistry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.defs))
	for n := range r.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IdentityExtension is the built-in "identity" operator: it returns its
// input unchanged and declares nothing, so it is a barrier to every rule (the
// closed-world default made visible).
var IdentityExtension = &ExtensionDef{Name: "identity", Inputs: 1}

// BuiltinExtensions returns a registry with the built-in operators.
func BuiltinExtensions() *ExtensionRegistry {
	r, err := NewExtensionRegistry(IdentityExtension)
	if err != nil {
		panic(err) // the built-in set is fixed
	}
	return r
}
