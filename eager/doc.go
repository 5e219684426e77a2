// Package eager is dfopt's eager DataFrame: the third way of the
// differential oracle. Every operation type-checks against the frame's
// schema and then evaluates at once, materializing its result, with no
// optimizer and no memo.
//
// # What is shared, what is eager's own
//
// The package is a thin driver. A step is checked by plan.Resolve and
// evaluated by package exec/step — the same node semantics the executor
// runs, over the same expression evaluator (exec/kernel) and relational
// kernels (exec/ops) — so an operation reports exactly plan's errors (kind,
// expression text and, relative to the step, path) and computes plan's
// schema, and it behaves exactly like the equivalent plan node collected by
// the executor (docs/semantics.md). It imports plan, exec/step,
// exec/kernel and Arrow, never exec or rules.
//
// What the eager chain does differently from the executor, and what the
// oracle therefore checks: it has no optimizer and no memo (a repeated
// subtree is evaluated again); it materializes every step's output into one
// compact record instead of composing row index vectors; a limit over a
// sort sorts everything (no top-k); and it reads a source's full data
// through a naive hook, applying the scan's Exact pushed conjuncts and its
// projection itself (no pushdown into the source). A bug in what is shared
// (plan.Resolve, exec/step, exec/kernel, exec/ops) is invisible to the
// oracle's three-way comparison; those packages' own tests guard them.
//
// The evaluation model is docs/design.md §4: each expression over all rows of the
// input in one evaluator call, in list order; the first error is returned.
// over() inside Select or WithColumns is computed the way plan.Resolve
// synthesizes it — because plan.Resolve does it: every outermost over(), in
// order of appearance, is computed first as a temporary column named
// __over_N (the first N not taken by an input column), and the expressions
// then read those columns. The temporaries are never part of the output, but
// an error raised above one names it (`__over_0 + 1`), as the executor's
// does.
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
// # DataFrame methods
//
// A method builds the equivalent plan node over placeholder scans (one per
// input frame, over its schema), resolves that one-node plan with
// plan.Resolve — which checks only the new node, the placeholders being
// plain scans — and evaluates the resolved node (with the window
// plan.Resolve synthesizes for an over()) over the frames.
//
// # FromPlan
//
// FromPlan evaluates a plan tree (resolved or not) in two passes: first
// plan.Resolve type-checks the whole tree bottom-up, children left before
// right, so a resolve-time error anywhere in the tree is reported before
// anything is evaluated, as by the executor; then each node of the
// resolved tree is evaluated, children left before right, as an eager step
// on its children's frames. Resolved trees contain synthesized
// *plan.WindowNode values: a window node appends its over() columns, and a
// with_columns directly over a window node does not pass the window's
// temporaries through (see plan.WindowNode).
package eager
