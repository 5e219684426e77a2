package exec

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// ExtensionFunc implements a host-defined operator (a plan.ExtensionNode).
// It receives the evaluated inputs (owned by the executor: retain what you
// keep) and returns a new batch the executor takes ownership of. The result
// must have the columns of the node's resolved schema (names and types, in
// order); buffers should come from mem. An error that is a *plan.Error is
// passed through; any other error becomes a udf_error naming the operator.
type ExtensionFunc func(ctx context.Context, node *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error)

// Extensions maps extension operator names (plan.ExtensionDef.Name) to
// implementations. It is safe for concurrent use.
type Extensions struct {
	mu    sync.RWMutex
	impls map[string]ExtensionFunc
}

// NewExtensions returns an empty registry (not even "identity"); most
// callers want BuiltinExtensions.
func NewExtensions() *Extensions { return &Extensions{impls: map[string]ExtensionFunc{}} }

// BuiltinExtensions returns a registry with the implementations of the
// built-in operators of plan.BuiltinExtensions ("identity" and the test
// operators that exercise each extension property); they are shared with
// the eager chain (package exec/ops), so both run the same code.
func BuiltinExtensions() *Extensions {
	r := NewExtensions()
	for name, fn := range ops.BuiltinExtensionImpls() {
		r.impls[name] = fn
	}
	return r
}

// Register adds an implementation, rejecting an empty name, a nil function
// and a name already registered.
func (r *Extensions) Register(name string, fn ExtensionFunc) error {
	if name == "" || fn == nil {
		return fmt.Errorf("register extension implementation %q: missing name or function", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.impls[name]; dup {
		return fmt.Errorf("register extension implementation %q: already registered", name)
	}
	r.impls[name] = fn
	return nil
}

// Lookup returns the implementation registered under name.
func (r *Extensions) Lookup(name string) (ExtensionFunc, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	fn, ok := r.impls[name]
	return fn, ok
}

// Names returns the registered names, sorted.
func (r *Extensions) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.impls))
	for n := range r.impls {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
