// Package rules is dfopt's bounded-tier optimizer: five rewrite rules, the
// driver that runs them in a fixed order (Optimize), their flags, counters
// and trace, and explain helpers.
//
// Every rule is a declarative value (see Rule and Rules): a name, the flag
// that gates it (the same name), the node kinds it matches, the legality
// cells it consults and the rewrite. A rule never decides legality itself:
// it asks package legality, and records each answer — allowed or refused,
// with the cell that decided — in the Trace. The rules never mutate a node;
// every rewrite builds new nodes over the untouched (and still resolved)
// subtrees, so re-resolving after a rule costs only the new nodes.
//
// The rules, in the order they run (DESIGN §6):
//
//	predicate_pushdown   filter conjuncts sink through total projections,
//	                     sorts and host operators that declare the right
//	                     properties, into sources that accept them
//	filter_fusion        adjacent filters fuse when the outer one is total
//	projection_fusion    a with_columns value inlines into the one projection
//	                     expression that uses it
//	projection_pruning   dead total entries, with_columns nodes and unread
//	                     source columns disappear
//	shared_subplans      predicts how many subtree results the executor's memo
//	                     will serve (no rewrite)
//
// Every rule is linear in the plan: one traversal, with per-node work
// proportional to the node's own expressions (predicate pushdown moves whole
// stacks of conjuncts at once and records each conjunct's journey as one
// trace entry per cell crossed; projection fusion keeps one
// legality.InlineCheck per project/with_columns pair and, after a first
// pass, asks again only the values an inlining unblocked, so a with_columns
// of 4,000 values each waiting for the previous one fuses in about 5 µs per
// value: 4.6-5.8 µs measured with BenchmarkFusionChain/values=4000).
//
// What is not linear in the number of nodes is the schema work: Resolve
// gives every node its own output schema, and the driver re-resolves each
// rule's new nodes, so a chain in which every node ADDS a column (n
// with_columns each appending one) builds schemas of width 1, 2, ..., n:
// O(nodes × width) time and memory, quadratic for such a chain, whatever
// the rules do. Chains that replace columns, or filter, keep their width and
// stay linear (BenchmarkChain).
//
// This package imports neither Arrow nor the executor: a host engine embeds
// it with its own plans and executor (docs/embedding.md, examples/embed).
package rules
