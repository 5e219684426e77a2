package plan

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// ExtensionProperty is a property a host operator may declare so that the
// legality table can let rules cross it. The list is closed: an operator
// declaring nothing is a barrier to every rule, and so is an operator with
// more than one input, whatever it declares except deterministic (the row
// and column properties describe one-input operators). Each property is a
// promise the optimizer trusts without checking, as it trusts a UDF's Total:
// an operator that declares more than it keeps can make a rewrite wrong.
// docs/embedding.md says what each property lets the rules do.
type ExtensionProperty string

// The declarable properties.
const (
	// RowPreserving: the operator is a row-wise map that cannot fail. Each
	// input row yields exactly one output row, computed from that input row
	// alone — not from other rows, from how many rows there are, or from the
	// row's position (an operator not declared deterministic may also read
	// hidden state, such as a counter) — and no input makes it raise an
	// error. Evaluating it over a subset of its input therefore yields the
	// matching subset of its output, which is what lets a filter cross it
	// (cell pp.extension.row_preserving). An operator that may fail on some
	// row is not row-preserving: filtering its input first could remove the
	// row it fails on and make its error vanish.
	RowPreserving ExtensionProperty = "row_preserving"
	// ColumnPassthrough: every input column appears in the output unchanged
	// (same name, type, nullability and values); the operator may add
	// columns of new names but replaces none. A filter reading only input
	// columns reads the same values above and below it
	// (pp.extension.passthrough), and projection pruning may narrow its
	// input to the columns required above plus those it reads
	// (ExtensionDef.Reads; pr.extension.passthrough). Resolve checks the
	// output schema against it.
	ColumnPassthrough ExtensionProperty = "column_passthrough"
	// OrderPreserving: output rows keep the relative order of the input rows
	// they come from (pp.extension.order_preserving).
	OrderPreserving ExtensionProperty = "order_preserving"
	// DeterministicOp: the same input gives the same output every time, so
	// structurally identical instances may share one evaluation in the
	// executor's memo (ss.extension.deterministic), and a row-preserving
	// operator's output row is a function of its input row alone
	// (pp.extension.deterministic).
	DeterministicOp ExtensionProperty = "deterministic"
)

// ExtensionProperties lists every declarable property.
func ExtensionProperties() []ExtensionProperty {
	return []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving, DeterministicOp}
}

// ExtensionDef declares a host-defined operator to the optimizer: its name,
// its arity, how its output schema follows from its inputs, the input
// columns it reads, and the properties it guarantees. The executor pairs
// the name with an implementation separately.
type ExtensionDef struct {
	Name string
	// Inputs is the number of child plans (at least 1).
	Inputs int
	// Properties are the declared guarantees; see ExtensionProperty.
	Properties []ExtensionProperty
	// OutputSchema derives the output schema; nil means "the first input's".
	OutputSchema func(inputs []Schema) (Schema, error)
	// Reads, when set, names the input columns a one-input operator reads,
	// given its input schema; nil means it may read every column. Projection
	// pruning narrows the input of a column_passthrough operator to the
	// columns required above plus these. Whatever Reads returns must not
	// depend on columns it does not name (an operator reading "the first
	// column" must still find it first when the others are pruned, which
	// pruning guarantees because it only removes columns).
	Reads func(input Schema) []string
}

// Has reports whether the operator declares p.
func (d *ExtensionDef) Has(p ExtensionProperty) bool {
	return d != nil && slices.Contains(d.Properties, p)
}

// ReadColumns returns the input columns the operator declares it reads,
// defending the optimizer against a misbehaving declaration: ok is false —
// assume every column is read — when Reads is nil, panics, or names a
// column the input does not have.
func (d *ExtensionDef) ReadColumns(input Schema) (cols []string, ok bool) {
	if d == nil || d.Reads == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			cols, ok = nil, false
		}
	}()
	got := d.Reads(input)
	for _, c := range got {
		if input.Index(c) < 0 {
			return nil, false
		}
	}
	return append([]string(nil), got...), true
}

// check reports a declaration the registry or Resolve must reject.
func (d *ExtensionDef) check() error {
	if d == nil || d.Name == "" {
		return fmt.Errorf("register extension: missing name")
	}
	if d.Inputs < 1 {
		return fmt.Errorf("register extension %q: needs at least one input, got %d", d.Name, d.Inputs)
	}
	for _, p := range d.Properties {
		if !slices.Contains(ExtensionProperties(), p) {
			return fmt.Errorf("register extension %q: unknown property %q (declarable: %v)", d.Name, p, ExtensionProperties())
		}
	}
	return nil
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
	if err := d.check(); err != nil {
		return err
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
	return slices.Sorted(maps.Keys(r.defs))
}
