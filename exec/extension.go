package exec

import "github.com/dfopt/dfopt/exec/step"

// ExtensionFunc implements a host-defined operator (a plan.ExtensionNode).
// It receives the resolved node and the evaluated inputs (owned by the
// executor: retain what you keep) and returns a new batch the executor
// takes ownership of. The result must have the columns of the node's
// resolved schema (names and types, in order); buffers should come from
// mem. An error that is a *plan.Error is passed through; any other error
// becomes a udf_error naming the operator. It is step.ExtensionFunc, the
// type eager.ExtensionFunc also names, so one implementation serves both.
type ExtensionFunc = step.ExtensionFunc

// Extensions maps extension operator names (plan.ExtensionDef.Name) to
// implementations (Register, Lookup, Names). It is safe for concurrent use.
// It is step.Extensions, so one registry serves the executor and the eager
// chain.
type Extensions = step.Extensions

// NewExtensions returns an empty registry (not even "identity"); most
// callers want BuiltinExtensions.
func NewExtensions() *Extensions { return step.NewExtensions() }

// BuiltinExtensions returns a registry with the implementations of the
// built-in operators of testops.Registry ("identity" and the test
// operators that exercise each extension property, from package exec/ops).
func BuiltinExtensions() *Extensions { return step.BuiltinExtensions() }
