package plan

import "fmt"

// Source is what a scan reads, as the optimizer sees it: a name and a schema.
// The executor's own source interface (exec.Source) adds the data. A host
// embedding the optimizer implements Source (and any of the optional
// capabilities below) on its own tables; docs/embedding.md shows how.
//
// The contract, method by method:
//
//   - Name identifies the source in explain output, traces, errors and plan
//     files. It should be stable and non-empty; it may be called at any time.
//     A panic in Name is caught (the source is then shown as "<source>").
//   - Schema returns the columns the source produces: names, types and
//     nullability (a column declared non-nullable must never hold a null).
//     Scan calls it exactly once and the scan keeps the answer
//     (ScanNode.SourceSchema): Resolve and the optimizer never call it again,
//     so a schema that changes between calls changes nothing they do (the
//     executor checks the data against the captured schema). A panic in
//     Schema is caught by Scan: the scan then fails to resolve with an
//     invalid_plan error naming the source.
//
// Sources are compared by identity (==): implement Source on a pointer
// type (a non-comparable type is never equal to anything, so its scans are
// never shared). The optional capabilities are PredicateClassifier,
// ProjectionSource and RowCountEstimator; a source without one gets the
// safe answer (Unsupported, no projection, no estimate).
type Source interface {
	// Name identifies the source in explain output, errors and plan files.
	Name() string
	// Schema returns the columns the source can produce.
	Schema() Schema
}

// PredicateSupport is a source's answer for one offered conjunct. The zero
// value, Unsupported, is the safe answer: the conjunct stays in the plan.
type PredicateSupport uint8

// The classifications of a pushed conjunct.
const (
	// Unsupported: the source ignores the conjunct.
	Unsupported PredicateSupport = iota
	// Inexact: the source may use the conjunct to skip data (row groups by
	// statistics) but may still return rows that fail it; the filter stays.
	Inexact
	// Exact: the source returns exactly the rows for which the conjunct is
	// valid and true; the filter conjunct is removed from the plan.
	Exact
)

// String returns "unsupported", "inexact" or "exact".
func (p PredicateSupport) String() string {
	switch p {
	case Inexact:
		return "inexact"
	case Exact:
		return "exact"
	}
	return "unsupported"
}

// PredicateClassifier is optionally implemented by a Source that can use
// filter conjuncts. Predicate pushdown offers it the conjuncts that reached
// the scan (each with only the source's columns) and hands it those it
// classifies Exact or Inexact (ScanNode.Pushed, cell pp.scan).
//
// ClassifyPredicates owes:
//
//   - exactly one answer per conjunct, in order, each one of Unsupported,
//     Inexact and Exact. A short, long or out-of-range answer, or a panic,
//     is not trusted: every conjunct then counts as Unsupported (see
//     ClassifyPredicates, the function), and the trace says why.
//   - the same answer for the same conjunct every time (the optimizer may
//     ask again, and a second Optimize run must find the same plan).
//   - not to keep or modify the slice.
//
// And the scan then owes, per classification:
//
//   - Exact: it returns exactly the rows on which the conjunct is valid and
//     true under dfopt's semantics (docs/semantics.md: a null is not true),
//     in source order, and raises whatever error the conjunct would: the
//     conjunct leaves the plan. Classify Exact only conjuncts you evaluate
//     exactly so — typically a comparison of a column with a literal
//     (IsColumnLiteralComparison), which cannot fail.
//   - Inexact: it may skip rows, but only rows on which the conjunct is
//     false or null without raising (row groups whose statistics prove it);
//     the conjunct stays in the plan above the scan as well. It may skip
//     them before it applies its Exact conjuncts: the optimizer gives a
//     source an Inexact conjunct next to Exact ones only when every Exact
//     one is total (cell pp.scan.skip), and the executor gives it none when
//     it applies any pushed conjunct itself.
//   - Unsupported: nothing; the conjunct stays above the scan.
type PredicateClassifier interface {
	ClassifyPredicates(conjuncts []Expr) []PredicateSupport
}

// ProjectionSource is optionally implemented by a Source that can read a
// subset of its columns more cheaply than all of them. Without it the
// optimizer still records the columns a scan needs (ScanNode.Columns,
// counter scanProjections), and the executor drops the rest after reading.
// A panic counts as false (see SupportsProjection).
type ProjectionSource interface {
	SupportsProjection() bool
}

// ScanGuardEvaluator is optionally implemented by a Source whose scans
// evaluate ScanNode.Guards: every scan of it runs the guards' error
// conditions over every row the source yields, before any pushed conjunct
// (docs/semantics.md, scan). dfopt's executor does so for every source it
// scans, and dfopt's own sources (Table, exec.ArrowSource, the Parquet
// source) declare it. A host that translates optimized plans into its own
// engine and reads only the scan fields it knows must not declare it:
// without it, error_guards never moves a guard into its scans (cell
// eg.scan refuses) and the guards stay guard nodes, which a translator
// that does not know them fails on instead of dropping. A panic counts as
// false (see EvaluatesScanGuards).
type ScanGuardEvaluator interface {
	EvaluatesScanGuards() bool
}

// EvaluatesScanGuards reports whether src declares that its scans evaluate
// ScanNode.Guards (ScanGuardEvaluator); a source without the capability,
// or one that panics, does not.
func EvaluatesScanGuards(src Source) (ok bool) {
	e, is := src.(ScanGuardEvaluator)
	if !is {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return e.EvaluatesScanGuards()
}

// RowCountEstimator is optionally implemented by a Source that knows roughly
// how many rows it holds. The bounded tier's rules do not use it (none of
// them is cost-based); explain tools and later tiers may.
type RowCountEstimator interface {
	EstimatedRows() (rows int64, ok bool)
}

// ClassifyPredicates asks src to classify conjuncts, defending the optimizer
// against a misbehaving host: a source without the capability gets
// Unsupported for every conjunct, and so does one that panics, answers with
// the wrong number of entries or answers a value outside the enumeration —
// those three also return an error saying so (a source that misanswers one
// conjunct is not trusted on the others).
func ClassifyPredicates(src Source, conjuncts []Expr) (out []PredicateSupport, err error) {
	out = make([]PredicateSupport, len(conjuncts))
	c, ok := src.(PredicateClassifier)
	if !ok || len(conjuncts) == 0 {
		return out, nil
	}
	defer func() {
		if r := recover(); r != nil {
			out = make([]PredicateSupport, len(conjuncts))
			err = fmt.Errorf("source %s: ClassifyPredicates panicked: %v", sourceName(src), r)
		}
	}()
	got := c.ClassifyPredicates(append([]Expr(nil), conjuncts...))
	if len(got) != len(conjuncts) {
		return out, fmt.Errorf("source %s: ClassifyPredicates returned %d answers for %d conjuncts", sourceName(src), len(got), len(conjuncts))
	}
	for i, g := range got {
		if g > Exact {
			return make([]PredicateSupport, len(conjuncts)), fmt.Errorf("source %s: ClassifyPredicates answered %d, not a PredicateSupport, for conjunct %d `%s`",
				sourceName(src), g, i, render(conjuncts[i], 0))
		}
		out[i] = g
	}
	return out, nil
}

// SupportsProjection reports whether src declares it can read a subset of
// its columns; a panicking source counts as not supporting it.
func SupportsProjection(src Source) (ok bool) {
	p, is := src.(ProjectionSource)
	if !is {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return p.SupportsProjection()
}

// sameSource compares sources by identity without panicking on a host type
// that is not comparable (such sources are never considered the same).
func sameSource(a, b Source) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
