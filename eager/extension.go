package eager

import "github.com/dfopt/dfopt/exec/step"

// ExtensionFunc implements a host-defined operator for the eager chain. It
// is step.ExtensionFunc — the type exec.ExtensionFunc also names — so one
// implementation serves both: it receives the resolved node and the
// evaluated inputs (borrowed: retain what you keep) and returns a new batch
// eager takes ownership of, with the columns of the node's output schema
// (names and types, in order); buffers should come from mem. An error that
// is a *plan.Error is passed through; any other becomes a udf_error naming
// the operator. Under DataFrame.Extension the node's inputs are
// placeholder scans standing for the frames.
type ExtensionFunc = step.ExtensionFunc

// Extensions maps extension operator names (plan.ExtensionDef.Name) to
// implementations (Register, Lookup, Names). It is safe for concurrent use.
// It is step.Extensions, so one registry serves the eager chain and the
// executor.
type Extensions = step.Extensions

// NewExtensions returns an empty registry (not even "identity"); most
// callers want BuiltinExtensions.
func NewExtensions() *Extensions { return step.NewExtensions() }

// BuiltinExtensions returns a registry with the implementations of the
// built-in operators of testops.Registry ("identity" and the test
// operators that exercise each extension property, from package exec/ops).
func BuiltinExtensions() *Extensions { return step.BuiltinExtensions() }
