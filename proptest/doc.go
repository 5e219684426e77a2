// Package proptest generates the random cases of dfopt's differential
// oracle and shrinks failing ones (docs/design.md §8).
//
// A Case is one to three in-memory tables (plan.Table) and a plan over them,
// as a user would write it (unresolved; over() stays inside project and
// with_columns, and Resolve synthesizes the window nodes). Generate builds a
// Case from a seed alone, drawing only from a math/rand source seeded with
// it, so any case replays on its own (Generate(c.Seed, c.Config));
// CaseSeed derives the seed of plan i of a campaign (splitmix64), so a
// campaign never depends on gopter's shared RNG or on worker scheduling.
//
// The API:
//   - Generate, CaseSeed, Config, DefaultConfig: deterministic generation;
//   - Case, Equal, TablesEqual, CanonicalNaNs, UDFs, Extensions: the case,
//     comparison by structure and bits, and what a plan file round trip
//     needs (dfopt-plan/1 keeps no NaN payloads; decode with UDFs() and
//     Extensions() so that plan.Equal holds);
//   - Shrink, ShrinkWith: a greedy minimizer without gopter (bisect and the
//     campaign runner), and CaseGen, CaseShrinker: the gopter generator and
//     shrinker (built with gopter.NewGenResult: combinators drop shrinkers);
//   - Size (nodes, expression nodes, rows, columns) and Features (node
//     kinds, functions, legality shapes, special values) for reports and
//     coverage.
//
// What the generator aims at (the bug classes of notes/polars.md §2 and the
// legality cells of docs/legality.md):
//   - adversarial data: nulls, NaN with payloads, ±0.0, ±Inf, MinInt64,
//     MaxInt64, the int32 extremes, 0, ±1, empty and non-ASCII strings,
//     low-cardinality key columns (heavy duplicates, NaN and -0.0 keys);
//   - well-typed expressions built type-directed (plan.TypeOf agrees), in
//     three modes: bounded-total (columns, literals, inc_wrap), extended-total
//     (never raise: comparisons, logic, float arithmetic, non-strict casts,
//     ...) and anything (including partial expressions that really raise on
//     the data: x / col with zeros, overflowing products, strict casts of
//     unparsable strings, neg(MinInt64), checked_double, sum overflow);
//   - plans of every node kind up to the configured depth, weighted toward
//     the shapes that make each legality cell fire and refuse: filters over
//     every node kind, shadowed and renamed columns, total and partial
//     computed columns and sort keys, adjacent filters, with_columns feeding
//     a select, dead projection entries, self-joins and unions of identical
//     subtrees (also nested), nd_seq in filters over sorts and in shared
//     subtrees;
//   - enough rewrites that every rule changes at least a tenth of the plans
//     (an optimizer that does nothing passes any oracle): filters of
//     column-literal comparisons and bool columns over chains of nodes they
//     may cross, down to scans of tables with a pushdown policy (Exact,
//     Inexact, or exact_all, which takes every conjunct), total outer
//     filters over filters, with_columns values read once by a bare
//     reference — each next to the refusal it is paired with (a partial
//     entry, a renamed or replaced column, a guard and the partial filter it
//     protects), so that every cell's mutant meets a plan it changes;
//   - a configurable share of deliberately ill-typed plans (unknown column,
//     type error, aggregate outside an aggregate, duplicate output names,
//     window outside a projection) that plan.Resolve rejects.
//
// The engine lives in proptest/internal/gen and the plan-editing helpers
// shared with the shrinker in proptest/internal/planutil.
package proptest
