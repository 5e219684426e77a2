// Package rules is dfopt's bounded-tier optimizer: the rules, the registry
// that holds them, the driver that runs them in order (Optimize), their
// flags, counters and trace, and explain helpers.
//
// Every rule is one declarative value (Rule), in its own file named after
// it: its name (also its flag, trace name and the Rule of its legality
// cells), its arms, the counters it moves, its trace wording, what counts
// as one rewrite application, its run mode, the node kinds it matches, the
// legality cells it consults and the rewrite. A Registry holds rules in
// the order they run and derives everything else from them: the flags
// (Flags, FlagsFromMap, Map), the counters (Counters), the legality table
// of their cells, the oracle's per-rule statistics (Registry.Rewrote).
// Builtin() holds the built-in rules; a host engine adds its own with
// Registry.With — a full Rule, or a LocalRule that sees one node at a time
// over rewritten inputs (TransformUp) — and passes the registry in
// Flags.Registry. A rule never decides legality itself: it asks package
// legality (or, for a host's own cells, Context.Decide), and records each
// answer — allowed or refused, with the cell that decided — in the Trace.
// The rules never mutate a node; every rewrite builds new nodes over the
// untouched (and still resolved) subtrees, so re-resolving after a rule
// costs only the new nodes.
//
// docs/counters.md documents every built-in rule — what it does, its arms,
// what one application is — and every counter (a test keeps it complete);
// rules/testdata holds one data-driven test file per rule (the input plan,
// the optimized plan and the trace, rewritten with go test ./rules
// -rewrite). The built-in rules run in the order builtinRules lists them
// (registry.go; docs/design.md §6), the rewriting rules first and
// shared_subplans' prediction, an analysis rule, last.
//
// A new built-in rule touches its own file rules/<name>.go (the Rule
// value: name, flag, counters, verbs, application, mode, rewrite), one line
// of builtinRules, its legality cells (IDs and rows in legality/cells.go,
// decisions and its rule-name constant in a legality file of its own),
// its data file rules/testdata/<name>, its rows in docs/counters.md and
// the generated docs/legality.md — and the generators, until a generated
// plan makes it rewrite (proptest's TestRewriteShares). Tests fail when one
// of these is missing.
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
