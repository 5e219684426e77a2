// Package reference is dfopt's fourth, independent way of running a plan: a
// deliberately naive, row-at-a-time interpreter of docs/semantics.md for
// whole plans, over plain plan.Value cells.
//
// The differential oracle (package oracle) runs every plan three ways — the
// optimized and unoptimized collects of package exec and the eager chain of
// package eager — and checks that they agree bit for bit. Those three share
// one expression kernel and one set of node semantics (exec/kernel,
// exec/ops, exec/step), so a bug there gives the same wrong answer three
// times and the oracle cannot see it. This package shares nothing with them:
// it imports only the standard library and package plan (for plan.Resolve,
// which types the plan and synthesizes window nodes, and for the plan and
// value types), never Arrow, and it was written from the document rather
// than from the kernel. Where the document was silent, the decision was
// written into the document first and then implemented here.
//
// It is slow on purpose: every expression evaluates operand by operand, each
// operand over all the rows it sees, into plain slices of values; joins,
// grouping and distinct use maps of canonical key encodings; sort is a
// stable sort of row indices. Nothing is vectorised, nothing is shared
// between two occurrences of a subtree, and nothing is pushed into a
// source. Collect evaluates a plan; EvalExpr evaluates one row expression
// (the kernel's property test holds the vectorised evaluator to it).
//
// What it cannot run it says so with an error wrapping ErrUnsupported (a
// host extension operator without an implementation in Options.Extensions,
// a source that is not a *plan.Table when Options.Scan is nil or declines
// it), so that a caller such as the oracle counts the plan as skipped rather
// than as a disagreement. A broken invariant (a panic, a host operator that
// returns the wrong shape) is an error wrapping ErrInternal. Every other
// failure is a *plan.Error with the kind and expression text the document
// prescribes.
package reference
