package step

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
// It receives the resolved node and its evaluated inputs (owned by the
// driver: retain what you keep) and returns a new batch the driver takes
// ownership of. The result must have the columns of the node's resolved
// schema (names and types, in order); buffers should come from mem. An
// error that is a *plan.Error is passed through; any other error becomes a
// udf_error naming the operator. exec.ExtensionFunc and
// eager.ExtensionFunc are this type, so one implementation serves both.
type ExtensionFunc func(ctx context.Context, node *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error)

// Extensions maps extension operator names (plan.ExtensionDef.Name) to
// implementations. It is safe for concurrent use. exec.Extensions and
// eager.Extensions are this type.
type Extensions struct {
	mu    sync.RWMutex
	impls map[string]ExtensionFunc
}

// NewExtensions returns an empty registry (not even "identity"); most
// callers want BuiltinExtensions.
func NewExtensions() *Extensions { return &Extensions{impls: map[string]ExtensionFunc{}} }

// BuiltinExtensions returns a registry with the implementations of the
// built-in operators of testops.Registry ("identity" and the test
// operators that exercise each extension property, from package exec/ops).
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

// extension runs a host operator through the registry over its
// materialized inputs and holds its output to the node's resolved schema.
func (e *Env) extension(n *plan.ExtensionNode, frames []*Frame) (*Frame, error) {
	if n.Def == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "extension: no declaration"}
	}
	name := n.Def.Name
	var fn ExtensionFunc
	ok := false
	if e.Extensions != nil {
		fn, ok = e.Extensions.Lookup(name)
	}
	if !ok {
		var names []string
		if e.Extensions != nil {
			names = e.Extensions.Names()
		}
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("no implementation registered for extension %q (registered: %v)", name, names)}
	}
	inputs, err := e.materializeAll(frames)
	if err != nil {
		return nil, err
	}
	defer releaseBatches(inputs)
	rec, err := e.callExtension(fn, n, inputs)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := CheckColumns(n.Schema(), rec.Columns(), rec.NumRows()); err != nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("extension %q returned data that does not match its declared schema %s: %v", name, n.Schema(), err)}
	}
	for i, f := range n.Schema().Fields() {
		if got := rec.Schema().Field(i).Name; got != f.Name {
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
				Msg: fmt.Sprintf("extension %q returned column %q where its schema has %q", name, got, f.Name)}
		}
	}
	return e.FromRecord(n.Schema(), rec)
}

// callExtension calls a host implementation, turning a panic or a foreign
// error into a udf_error naming the operator.
func (e *Env) callExtension(fn ExtensionFunc, n *plan.ExtensionNode, inputs []arrow.RecordBatch) (rec arrow.RecordBatch, err error) {
	name := n.Def.Name
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q panicked: %v", name, r)}
		}
	}()
	rec, err = fn(e.Ctx, n, inputs, e.Mem)
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		if _, ok := plan.AsError(err); ok {
			return nil, err
		}
		if e.Ctx.Err() != nil {
			return nil, Cancelled(err)
		}
		return nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q failed", name), Err: err}
	}
	if rec == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q returned no data", name)}
	}
	return rec, nil
}
