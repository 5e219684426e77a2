// Package oracle is dfopt's differential oracle (docs/design.md §8): it runs one plan
// four ways and checks that the outcomes agree bit for bit.
//
// The four ways:
//
//	optimized    rules.Optimize, then the executor collects the optimized plan
//	unoptimized  the executor collects the plan as written
//	eager        eager.FromPlan evaluates the plan step by step
//	reference    package reference interprets the plan as written, row by row
//
// Two outcomes agree when both fail with the same error (kind and expression
// text, plan.Error.Same) or both succeed with equal schemas (names, types,
// nullability), the same number of rows, and, cell by cell in row order, the
// same validity and the same value — floats by their bits, so NaN payloads and
// -0.0 count. Nothing is canonicalized: the executor and the eager chain share
// one evaluator, and the reference implements the same document, so every bit
// must match. On top of the pairwise comparisons the oracle checks that the
// optimizer succeeds on every plan that resolves (a Verify failure is a
// divergence), that the optimized root schema equals the unoptimized one, that
// no way panics or breaks its error contract, and that the optimizer's
// sharedSubplans prediction equals the memo hits of the optimized collect.
//
// The first three ways share one expression kernel and one set of node
// semantics (exec/kernel, exec/ops, exec/step), so a bug there gives the same
// wrong answer three times. The fourth way shares none of it: package
// reference is a naive interpreter of docs/semantics.md over plain plan
// values, with no Arrow and nothing of exec or eager; its Parquet sources are
// read here with arrow-go's pqarrow (ReadSourceValues), not with exec's
// decoder. It is compared with the unoptimized way (pair
// reference/unoptimized); a plan it cannot run (a host extension operator
// without Case.ReferenceExtensions, a source that is neither an inline table
// nor a Parquet file) is skipped and counted, never a divergence.
//
// Check runs one Case and returns a Report: Agree, or the Divergences with
// the first differing column and row (both values as bits and readable),
// the schemas, the errors, the optimized plan, the counters and the trace.
// CheckDocument checks a plan file (dfopt-plan/1), including its "expect"
// object. Campaign runs many generated cases (package proptest), in parallel
// and deterministically, shrinks every divergence to a minimal plan file and
// collects per-rule and per-cell statistics: a rule that never fires, or a
// legality cell never seen allowing or refusing, is untested.
//
// The executor of the first two ways is pluggable (Executor); exec.Collect is
// the default. The eager chain is always package eager, and the fourth way
// always package reference.
//
// docs/oracle.md explains how to run a campaign and how to read a divergence.
package oracle
