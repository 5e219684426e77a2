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
// A filter whose conjuncts read only columns gathered through one index
// vector (the smaller side of a join, say) from base arrays no longer than
// the frame is evaluated on the base rows and its answer looked up through
// the index vector, when every conjunct is deterministic and cannot raise
// on any row (kernel.CannotRaise): the rows it keeps are the same, and an
// unreferenced base row cannot make it fail.
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
// # Parallelism
//
// With Options.Parallelism above 1 (the default is GOMAXPROCS) a collect
// uses several goroutines inside a node, never across nodes: the plan is
// still walked node at a time, children before parents, and a node still
// evaluates its expressions one after another, each operator of an
// expression over all rows before the next operator starts. What runs in
// parallel is the work of one step over the rows, split into partitions
// of contiguous rows (Options.PartitionRows; every partition but the last
// a multiple of 8 rows, so partitions own whole bytes of a bitmap):
//
//   - the Parquet scan decodes (row group, column) units concurrently into
//     their places in one array per column;
//   - the evaluator's vectorized kernels (arithmetic, comparisons) split
//     their rows, and a kernel that can fail reports the lowest failing
//     row over all partitions — the row a sequential loop stops at;
//   - a filter's selection, every gather through an index vector, and
//     the composition of index vectors are split by output rows;
//   - grouping groups each partition, then merges the partitions' groups
//     in row order; len, count, integer sums (with exact overflow
//     detection) and min/max merge per-partition partials in partition
//     order; float sums and means, whose order the semantics fix, stay
//     sequential;
//   - a join builds its hash table once and probes partitions of the probe
//     side concurrently, each writing its pairs at its own offset.
//
// Because every expression operator finishes over all rows before the
// next one starts, the first error is found in the same (expression,
// operand, row) order as sequentially: the first operator that fails
// anywhere, at its lowest failing row. UDF calls (and with them the call
// counter of nd_seq and nd_tick) and extensions run on one goroutine, in
// row order. Results and errors are therefore identical for every
// Parallelism and PartitionRows, which the tests and the oracle
// (dfopt oracle -parallelism 2 -partition-rows 1) check.
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
// # Shared join pairs
//
// Joins that are not Equal may still match the same pairs: the inner and
// semi equi-joins without a residual whose inputs are Equal deterministic
// subtrees, whose keys are Equal and whose nulls_equal is the same (a
// probe class; memo.go). When a class holds two or more joins that are not
// Equal, one of them inner, the first of them evaluated computes the inner
// join's pairs and the others take them (step.JoinShared): an inner join
// as they are (the build side does not change them), a semi join the
// distinct left rows among them (docs/semantics.md, join). Each join still
// evaluates its inputs (the memo serves them) and checks its own validate.
// A runtime key filter (keyfilter.go) on an input of a class's joins
// applies to all of them: the first evaluated filters it and keeps the
// filtered input with the pairs, which index its rows, and the others take
// both; a filtered input that occurs elsewhere in the plan is not filtered.
// Under a memory limit no pairs are shared. The pairs are
// dropped once every join of the class is evaluated. MemoHits does not
// count them. TPC-H Q17 written as SQL joins lineitem to the filtered parts
// once inner and once semi (semi_reduction's, under the aggregate), and
// probes lineitem once.
//
// # Sources
//
// A scan reads a *plan.Table (converted once per collect), any Source (the
// host interface: plan.Source plus Scan), an ArrowSource (NewArrowSource)
// or a Parquet file (package exec/parquet, parquet.Open), which decodes
// only the requested columns and skips row groups whose statistics refute
// an Inexact pushed conjunct.
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
//
// # Memory limit
//
// With Options.MemoryLimit a collect counts what it holds: every Arrow
// buffer it allocates (Options.Mem wrapped by a counting allocator, from
// allocation to release) and, by reservation before they are built, its
// large Go-heap structures — the hash tables and id vectors of joins,
// groupings, distinct and windows (upper bounds computed from the
// inputs), sort permutations, join pair vectors, and the row index
// vectors frames keep (counted until the last frame referring to them is
// released). Buffers the collect did not allocate (an ArrowSource's
// batches) are not counted; docs/performance.md ("Memory limit") lists
// the rest.
//
// A join whose hash table does not fit is a grace hash join: both sides'
// key rows are partitioned by key hash into Arrow IPC spill files, each
// pair of partitions is joined in memory, and one pass over the probe
// rows in order restores the output order of docs/semantics.md from the
// row ids (package ops, join_spill.go). An aggregate whose grouping does
// not fit partitions its key rows the same way, groups each partition,
// orders the groups by their first rows, and reduces every aggregate
// partition by partition in row order (group_spill.go). Rows, order,
// bits and errors are those of the unlimited collect. What cannot spill —
// a node's output (the executor holds every node's rows), an evaluated
// expression, a window's per-row groups, a cross join's pairs, the output
// vectors of any join — fails with a resource_exhausted error naming the
// node, before the allocation that would exceed the limit when the
// operator can tell, or at the next check otherwise (between the steps of
// a node and after it): a collect that succeeds never held more than its
// limit, as counted. The spill
// directory (under Options.SpillDir) is removed when the collect ends,
// also when it fails or is cancelled.
package exec
