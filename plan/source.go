package plan

import "fmt"

// Source is what a scan reads, as the optimizer sees it: a name and a schema.
// The executor's own source interface (exec.Source) adds the data. A scan
// captures the schema once, when it is built, so Schema is never called
// during optimization. Sources are compared by identity (==): implement
// Source on a pointer type.
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
// filter conjuncts. ClassifyPredicates must return one answer per conjunct;
// it must not keep the slice.
type PredicateClassifier interface {
	ClassifyPredicates(conjuncts []Expr) []PredicateSupport
}

// ProjectionSource is optionally implemented by a Source that can read a
// subset of its columns more cheaply than all of them. Without it the
// optimizer still records the columns a scan needs, and the executor drops
// the rest after reading.
type ProjectionSource interface {
	SupportsProjection() bool
}

// RowCountEstimator is optionally implemented by a Source that knows roughly
// how many rows it holds.
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
