// Package eager is dfopt's eager DataFrame: the third way of the
// differential oracle. Every operation type-checks against the frame's
// schema and then evaluates at once over materialized Arrow columns, through
// the same expression evaluator (exec/kernel) and the same relational
// kernels (exec/ops) as the executor, with no plan, no optimizer and no
// memo. It imports plan, exec/kernel, exec/ops and Arrow, never exec or
// rules, so a bug in the plan machinery or the executor's operator wiring
// shows up as a divergence instead of being shared.
//
// # The contract
//
// An operation on a frame behaves exactly like the equivalent plan node
// collected by the executor (docs/semantics.md):
//
//   - Type checks come first and mirror plan.Resolve check for check, in the
//     same order, with the same *plan.Error kind and expression text: a
//     filter checks its predicates in order, duplicate output names give
//     duplicate_column naming the name, a join checks its key counts before
//     its key types, and so on. The output schema (names, types and
//     nullability) is computed independently here and equals the one
//     plan.Resolve computes; the tests hold the two side by side.
//   - Evaluation then follows the evaluation model of DESIGN §4: each
//     expression over all rows of the input in one evaluator call, in list
//     order; the first error is returned.
//   - over() inside Select or WithColumns is computed the way Resolve
//     synthesizes it: every outermost over(), in order of appearance, is
//     computed first as a temporary column named __over_N (the first N not
//     taken by an input column), and the expressions then read those
//     columns. The temporaries are never part of the output, but an error
//     raised above one names it (`__over_0 + 1`), exactly as the executor's
//     does, because the oracle compares error texts.
//
// Errors are values: every operation returns (*DataFrame, error), the error
// always a *plan.Error. A failed operation returns a nil frame and leaves
// its inputs untouched.
//
// # Ownership
//
// A frame owns one arrow.RecordBatch allocated from its Session's
// allocator (it may share buffers with the frame it came from). Operations
// never consume their inputs: the caller releases every frame it receives,
// inputs included, with Release.
//
// # Sessions
//
// A Session is one eager evaluation: a context carrying a fresh
// plan.WithCallCounter (so the non-deterministic nd_seq UDF counts rows in
// evaluation order exactly as one collect does), an allocator, the
// extension implementations and the scan hook. Frames remember their
// session; a binary operation (Join, Concat) evaluates in the receiver's.
// FromPlan starts its own session.
//
// # FromPlan
//
// FromPlan evaluates a plan tree (resolved or not) step by step without
// calling plan.Resolve: a first pass walks the tree bottom-up, children
// left before right, and type-checks every node with the same checks the
// DataFrame operations use (so a resolve-time error anywhere in the tree
// is reported before anything is evaluated, like the executor, which
// resolves before collecting); a second pass evaluates each node as an
// eager operation on its children's frames. Resolved trees contain
// synthesized *plan.WindowNode values: a window node appends its over()
// columns, and a with_columns directly over a window node does not pass the
// window's temporaries through (see plan.WindowNode).
package eager
