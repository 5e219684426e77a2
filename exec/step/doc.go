// Package step is the semantics of one plan node over Apache Arrow: given a
// resolved node and its inputs' rows, it produces the node's rows, with
// exactly the semantics of docs/semantics.md. It is the ONE implementation
// of node semantics; both of dfopt's drivers are thin walkers over it:
//
//   - exec.Collect resolves a plan, walks it post-order with the
//     per-collect memo, reads sources (with pushdown), turns limit(sort) into
//     a top-k, and calls Eval for every other node;
//   - package eager (the DataFrame API and FromPlan) resolves each step with
//     plan.Resolve, reads sources naively (the full data, through a host
//     hook), and calls Eval for each node, materializing every output.
//
// # Why a package of its own
//
// The node semantics used to be written twice, once in exec and once in
// eager, and the two copies drifted. They cannot live in exec, because eager
// must not import exec (its tests hold it against exec, and a driver is what
// is compared); nor in exec/ops or exec/kernel, which work on arrays and
// expressions and know no plan node. What remains different between the
// drivers is deliberately outside this package: the plan walk and its
// memo, source pushdown, top-k, and per-step materialization. What the
// oracle's three ways share is therefore this package, plan.Resolve, the
// evaluator (exec/kernel) and the relational kernels (exec/ops); a bug in
// those is invisible to the oracle's comparison and is what the packages'
// own tests and property tests are for.
//
// # Frames
//
// A node's output is a Frame: its rows under its resolved schema, with
// columns that are either compact Arrow arrays or an array plus a composed
// row index vector, so that filter, sort, limit, slice, join and distinct
// copy no column (see Frame). Without a memory limit a filter, a sort and
// a with_columns do not even touch the columns they pass through: their
// frames are lazy (lazy.go), sharing their input's column list and
// keeping only the rows they select, so a chain that grows by a column
// per node costs each node what it reads and adds, not the schema's width.
// Expressions read a compact batch of just the columns they name; union,
// extensions and Materialize gather whole batches.
// The representation is not observable: rows, order, bits and errors are
// those of materializing every node, which is what the eager chain does.
//
// # Order of evaluation (the oracle depends on it)
//
// Per node, expressions evaluate in list order, each over all rows of the
// node's input, in one evaluator call (so a non-deterministic UDF such as
// nd_seq advances its counter in row order); the first error is returned:
//   - filter: every conjunct over all rows, in order, then the selection;
//   - project, with_columns: every expression in order;
//   - aggregate: every key, then per aggregate its argument and reduction;
//   - window: per over(), the aggregate's argument, then the partition keys
//     (the operands of `agg.over(keys)` left to right), then the reduction;
//   - join: the left keys over the left input, then the right keys;
//   - sort: every key in order;
//   - scan: the pushed conjuncts the driver applies, in order, each over all
//     rows the source produced.
//
// # State and parallelism
//
// There is no package-level state. An Env carries what a node needs (the
// context with its call counter, the allocator, the extension registry, and
// how a node may split its rows over goroutines, Env.WithParallel) and is
// never written after it is made; Frames are immutable; the table cache
// (Tables) locks. Eval works on one node over its inputs' frames, so a
// driver may evaluate independent subtrees concurrently.
//
// Within a node, an Env made WithParallel splits the work of each step
// over partitions of rows (the evaluator's kernels, selections, gathers,
// grouping, exact partial aggregates, the join probe; see package exec,
// "Parallelism"). The steps themselves keep the order above, and each one
// finishes over all rows before the next starts, so the first error and
// every result are those of the sequential Env. UDFs and extensions run
// on the calling goroutine.
package step
