// Package legality decides, for the bounded tier of dfopt's optimizer, which
// rewrites preserve a plan's meaning — values, schema, row order, validity
// and error behaviour (docs/design.md §4). It is the only place that decides
// legality: the rules in package rules ask it before every rewrite, and it
// answers with a Decision naming the cell of the legality table that
// allowed or refused the move.
//
// # The law, by example
//
// A predicate may move below a node only when the node's output rows are,
// row for row, a function of its input rows that cannot fail and that does
// not depend on which other rows are present:
//
//	filter(a > 1)                      with_columns(b as c)
//	  with_columns(b as c)     ==>       filter(a > 1)
//	    scan t                             scan t
//
// is legal: col(b) is total, and the conjunct reads a, which the node passes
// through unchanged (cells pp.with_columns and pp.with_columns.shadow). But
//
//	filter(b != 0)
//	  with_columns(a / b as x)
//	    scan t
//
// must not become with_columns(a / b as x) over filter(b != 0): below the
// filter, a / b would meet fewer rows and the divide_by_zero error the plan
// must raise would vanish (cell pp.with_columns). The table's other cells
// state the same kind of law for sorts, scans, filter fusion, projection
// fusion, pruning and shared subplans, each with the counterexample it exists
// for.
//
// # The table is data
//
// Table holds one Cell per (rule, node kind, condition): a stable ID
// ("pp.sort"), a Verdict (Crosses, CrossesIf, Barrier), the condition a
// CrossesIf verdict checks, and a one-line reason naming the counterexample.
// Default returns the bounded-tier table; Markdown renders it into
// docs/legality.md. The world is closed: a cell ID the table does not hold,
// and any node kind or extension without a crossing cell, is a Barrier (the
// zero Verdict).
//
// A Table is immutable. WithOverride returns a new table with one cell's
// verdict replaced, so a mutation campaign can flip one cell in one
// goroutine without affecting any other (no global state): pass the table to
// the optimizer through its flags. Crosses means "move without checking the
// condition", so flipping a CrossesIf cell to Crosses removes exactly the
// guard that cell stands for; Flip gives the canonical mutant of each
// verdict.
//
// # Host operators
//
// An extension node is closed-world (pp.extension, pr.extension) unless it has
// one input and declares properties (plan.ExtensionProperty). Then each
// property a rewrite needs has its own cell: a filter crosses it only if it
// declares row_preserving, order_preserving and deterministic
// (pp.extension.row_preserving, .order_preserving, .deterministic) and the
// conjunct reads only columns it passes through (pp.extension.passthrough);
// pruning narrows its input only if it declares column_passthrough, keeping
// the columns it reads (pr.extension.passthrough); and a subtree holding it is
// shared only if it declares deterministic (ss.extension.deterministic).
//
// # Totality and determinism
//
// Total is the bounded-tier totality of docs/design.md §3: only column references,
// literals, aliases of total expressions and calls of UDFs declared total
// over total arguments are provably unable to raise. Everything else is
// partial — not because it always fails, but because the seed contract does
// not let the optimizer rely on it. An expression is deterministic when it
// calls no UDF declared non-deterministic (plan.IsDeterministic); a host
// operator, when it declares plan.DeterministicOp (plan.Determinism).
//
// This package imports neither Arrow nor the executor.
package legality
