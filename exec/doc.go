// Package exec is dfopt's executor: Collect evaluates a plan over Apache
// Arrow with exactly the semantics of docs/semantics.md. It is a driver:
// the semantics of every node live in package exec/step (shared with the
// eager chain), over the one expression evaluator (exec/kernel) and the
// relational kernels (exec/ops). What is exec's own is the plan walk, the
// memo, the sources (with pushdown) and the top-k of limit(sort).
//
// # Evaluation
//
// Collect resolves the plan (plan.Resolve) and walks it node at a time,
// post-order: a node's children evaluate in order, left before right, then
// the node (step.Eval; a scan reads its source here). A node's output holds
// ALL its rows at once (sources that produce several batches are
// concatenated), so every expression is evaluated by one evaluator call
// over all rows of its node's input. That is what makes a non-deterministic
// UDF such as nd_seq advance its counter in the same row order as the eager
// chain: Collect gives the context a fresh plan.WithCallCounter once per
// collect.
//
// Row-selecting and row-reordering nodes (filter, sort, limit, slice, join,
// distinct) do not copy columns: a node's output is a step.Frame whose
// columns are either compact Arrow arrays or an array plus a composed row
// index vector; columns nothing reads are copied once, at the end, whatever
// the number of filters. The representation is not observable.
//
// Per node, expressions evaluate in list order, each over all rows; the
// first error aborts the collect and is returned as a *plan.Error (with the
// label of the node at fault). The orders within each node are package
// step's; a sort directly under a limit is computed as a top-k (same rows,
// same order) unless the memo needs the whole sort.
//
// # The memo (the rule the optimizer's sharedSubplans prediction mirrors)
//
// Within one collect, a deterministic subtree (plan.IsDeterministicPlan)
// whose result is already known is not evaluated again:
//
//  1. Identity: two subtrees are the same when plan.Fingerprint is equal AND
//     plan.Equal confirms it (a hash alone never merges two plans).
//  2. Before evaluating ANY node (leaves included: a scan is a subtree),
//     if the node is deterministic and an Equal subtree was already
//     evaluated earlier in this collect, its result is served (shared, not
//     copied), MemoHits grows by one, and the executor does not descend into
//     the node.
//  3. Evaluation is post-order, left before right, so "earlier" is that
//     order. A subtree inside a served subtree is never visited, so it is
//     not counted: union(join(S, S), join(S, S)) serves the second S and
//     the second join — 2 hits, not 3.
//  4. Non-deterministic subtrees (a UDF declared non-deterministic, an
//     extension not declaring plan.DeterministicOp) are never served and
//     never stored; their deterministic descendants still are.
//
// Examples: a self-join of a filtered scan, join(filter(scan t),
// filter(scan t)), evaluates the scan and the filter once and reports 1;
// join(scan t, scan t) reports 1; a plan with no repeated subtree reports 0.
// Only subtrees that occur at least twice in the plan are kept (this changes
// no count), and all are released when the collect ends.
//
// # Sources
//
// A scan reads a *plan.Table (converted once per collect), any Source (the
// host interface: plan.Source plus Scan), an ArrowSource (NewArrowSource)
// or a ParquetSource (OpenParquet), which decodes only the requested columns
// and skips row groups whose statistics refute an Inexact pushed conjunct.
// A pushed conjunct the plan marks Exact must hold on the scan's output: the
// executor applies it itself unless the source classifies it Exact (a
// *plan.Table never filters, so its Exact conjuncts are always applied by
// the executor). Source
// failures are *plan.Error of kind source_error naming the source (and the
// file, for Parquet).
//
// # Memory
//
// Every Arrow buffer comes from Options.Mem. A collect releases everything
// it allocated except the Result's record, which the caller releases —
// also when it fails or is cancelled (context cancellation is checked
// between nodes and inside long operator loops; kind cancelled).
package exec
