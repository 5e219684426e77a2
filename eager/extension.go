package eager

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

// ExtensionFunc implements a host-defined operator for the eager chain.
// It has exactly the shape of exec.ExtensionFunc, so a host (the oracle)
// converts one implementation into both: it receives the evaluated inputs
// (borrowed: retain what you keep) and returns a new batch eager takes
// ownership of, with the columns of the operator's output schema (names and
// types, in order); buffers should come from mem. An error that is a
// *plan.Error is passed through; any other becomes a udf_error naming the
// operator. node is the plan node being evaluated under FromPlan (as
// given: in an unresolved tree its Schema is empty), and a node carrying
// only Def (no Inputs) under DataFrame.Extension.
type ExtensionFunc func(ctx context.Context, node *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error)

// Extensions maps extension operator names (plan.ExtensionDef.Name) to
// eager implementations. It is safe for concurrent use.
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
// the executor (package exec/ops), so both run the same code.
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
		return fmt.Errorf("register eager extension %q: missing name or function", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.impls[name]; dup {
		return fmt.Errorf("register eager extension %q: already registered", name)
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

// extensionStep runs a host operator through the session's registry and
// checks its output against the declared schema.
type extensionStep struct {
	node *plan.ExtensionNode
	out  plan.Schema
}

func (st *extensionStep) schema() plan.Schema { return st.out }

func (st *extensionStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, len(in)); err != nil {
		return nil, err
	}
	name := st.node.Def.Name
	fn, ok := s.exts.Lookup(name)
	if !ok {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("no eager implementation registered for extension %q (registered: %v)", name, s.exts.Names())}
	}
	recs := make([]arrow.RecordBatch, len(in))
	for i, f := range in {
		recs[i] = f.rec
	}
	rec, err := s.callExtension(fn, st.node, recs)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := checkColumns(st.out, rec.Columns(), rec.NumRows()); err != nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
			Msg: fmt.Sprintf("extension %q returned data that does not match its declared schema %s: %v", name, st.out, err)}
	}
	for i, f := range st.out.Fields() {
		if got := rec.Schema().Field(i).Name; got != f.Name {
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1,
				Msg: fmt.Sprintf("extension %q returned column %q where its schema has %q", name, got, f.Name)}
		}
	}
	return s.newFrame(st.out, rec.Columns(), rec.NumRows())
}

// callExtension calls a host implementation, turning a panic or a foreign
// error into a udf_error naming the operator.
func (s *Session) callExtension(fn ExtensionFunc, node *plan.ExtensionNode, inputs []arrow.RecordBatch) (rec arrow.RecordBatch, err error) {
	name := node.Def.Name
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q panicked: %v", name, r)}
		}
	}()
	rec, err = fn(s.ctx, node, inputs, s.mem)
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		if _, ok := plan.AsError(err); ok {
			return nil, err
		}
		if s.ctx.Err() != nil {
			return nil, &plan.Error{Kind: plan.Cancelled, Row: -1, Msg: "eager evaluation cancelled", Err: err}
		}
		return nil, &plan.Error{Kind: plan.UDFError, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q failed", name), Err: err}
	}
	if rec == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: name, Row: -1, Msg: fmt.Sprintf("extension %q returned no data", name)}
	}
	return rec, nil
}
