package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Facts: what a source states about the values of its columns, and what a
// plan assumes of them.
//
// A source may report exact facts per column (FactsReporter): bounds on its
// non-null values, its null count, whether a float column is free of NaN.
// The standard tier's range_proofs rule uses the bounds to prove partial
// expressions total on THIS input (interval arithmetic: `a * 2 + 1` cannot
// overflow when |a| <= 10^6), and records every fact a proof relied on in
// the scan of the source that stated it (ScanNode.Assumes). A proof is only
// as good as its facts, so every executor checks the assumptions of a scan
// against the rows the source yields and fails with a source_error naming
// the source, the column, the fact and the value seen when one does not
// hold (docs/semantics.md, scan): a source that states wrong facts gets a
// clear error, never a silently wrong answer.

// ColumnFacts is what a source states about one column over ALL its rows.
// The zero value states nothing. Facts of a bool or string column are
// ignored (no proof uses them).
type ColumnFacts struct {
	// HasRange says that Min <= v <= Max for every non-null value v of the
	// column that is not NaN (floats compare by IEEE, so -0.0 and +0.0
	// both lie in [0.0, 0.0]). Min and Max have the column's type, are not
	// null and not NaN, and Min <= Max. A column without a non-null value
	// may state any range, or none.
	HasRange bool
	Min, Max Value
	// HasNullCount says that NullCount is the exact number of null rows.
	// No proof relies on it; explain shows it.
	HasNullCount bool
	NullCount    int64
	// NaNFree says that a float64 column holds no NaN. The zero value
	// (false) claims nothing: a float column may hold NaN unless proven
	// otherwise (Parquet statistics never prove it).
	NaNFree bool
}

// String renders the facts as "[-5, 7], 0 nulls, no NaN", "nothing known"
// when they state nothing.
func (f ColumnFacts) String() string {
	var parts []string
	if f.HasRange {
		parts = append(parts, "["+factText(f.Min)+", "+factText(f.Max)+"]")
	}
	if f.HasNullCount {
		parts = append(parts, strconv.FormatInt(f.NullCount, 10)+" nulls")
	}
	if f.NaNFree {
		parts = append(parts, "no NaN")
	}
	if len(parts) == 0 {
		return "nothing known"
	}
	return strings.Join(parts, ", ")
}

// factText renders a bound: integers in decimal, floats as a cast to
// string spells them.
func factText(v Value) string {
	switch {
	case v.IsNull():
		return v.String()
	case v.Type() == Float64:
		return FormatFloat(v.Float())
	case v.Type().IsInteger():
		return strconv.FormatInt(v.Int(), 10)
	}
	return v.String()
}

// FactsReporter is optionally implemented by a Source that knows facts
// about its columns: in-memory tables compute them from their values,
// Parquet files read them from their row-group statistics, and a host
// source states them (docs/embedding.md). ColumnFacts answers for the
// column named column, or false when it states nothing about it. The facts
// must hold for every row the source can yield, whatever the scan request
// (projection, pushed conjuncts, max-rows hint); an executor checks those
// the optimized plan relied on and fails the collect when they do not.
type FactsReporter interface {
	ColumnFacts(column string) (ColumnFacts, bool)
}

// SourceFacts asks src for the facts of its column named column, defending
// the optimizer against a misbehaving host: a source without the
// capability, one that panics, and one whose answer is malformed for the
// column's type in its schema (CheckFacts) give no facts.
func SourceFacts(src Source, column string) (f ColumnFacts, ok bool) {
	r, is := src.(FactsReporter)
	if !is {
		return ColumnFacts{}, false
	}
	defer func() {
		if recover() != nil {
			f, ok = ColumnFacts{}, false
		}
	}()
	field, found := src.Schema().Lookup(column)
	if !found {
		return ColumnFacts{}, false
	}
	f, ok = r.ColumnFacts(column)
	if !ok || CheckFacts(f, field.Type) != nil {
		return ColumnFacts{}, false
	}
	if field.Type != Float64 {
		f.NaNFree = false
	}
	return f, true
}

// CheckFacts reports why f is malformed for a column of type t, or nil: a
// range on a bool or string column, bounds of another type, null or NaN
// bounds, Min > Max, a negative null count.
func CheckFacts(f ColumnFacts, t Type) error {
	if f.HasNullCount && f.NullCount < 0 {
		return fmt.Errorf("negative null count %d", f.NullCount)
	}
	if !f.HasRange {
		return nil
	}
	if t != Int32 && t != Int64 && t != Float64 {
		return fmt.Errorf("a range on a %s column", t)
	}
	for _, v := range []Value{f.Min, f.Max} {
		switch {
		case v.Type() != t:
			return fmt.Errorf("a %s bound on a %s column", v.Type(), t)
		case v.IsNull():
			return fmt.Errorf("a null bound")
		case t == Float64 && math.IsNaN(v.Float()):
			return fmt.Errorf("a NaN bound")
		}
	}
	if t == Float64 && f.Min.Float() > f.Max.Float() || t != Float64 && f.Min.Int() > f.Max.Int() {
		return fmt.Errorf("min %s above max %s", factText(f.Min), factText(f.Max))
	}
	return nil
}

// ComputeFacts returns the exact facts of a column of type t holding
// values: its null count, and for int32, int64 and float64 columns with a
// non-null, non-NaN value the range of those values and whether any is NaN.
func ComputeFacts(t Type, values []Value) ColumnFacts {
	f := ColumnFacts{HasNullCount: true, NaNFree: t == Float64}
	for _, v := range values {
		if v.IsNull() {
			f.NullCount++
			continue
		}
		switch t {
		case Int32, Int64:
			if !f.HasRange || v.Int() < f.Min.Int() {
				f.Min = v
			}
			if !f.HasRange || v.Int() > f.Max.Int() {
				f.Max = v
			}
			f.HasRange = true
		case Float64:
			x := v.Float()
			if math.IsNaN(x) {
				f.NaNFree = false
				continue
			}
			if !f.HasRange || x < f.Min.Float() {
				f.Min = v
			}
			if !f.HasRange || x > f.Max.Float() {
				f.Max = v
			}
			f.HasRange = true
		}
	}
	if f.HasRange && t == Float64 {
		// Keep the bounds canonical: -0.0 and +0.0 are one bound.
		f.Min, f.Max = Float64Value(f.Min.Float()+0), Float64Value(f.Max.Float()+0)
	}
	return f
}

// Assumption is one fact a plan relies on: the scan's source stated it and
// a proof of the optimizer used it (ScanNode.Assumes). Every non-null
// value v of Column the source yields, when not NaN, lies in [Min, Max]
// (IEEE comparison for floats); when NaNFree, no value is NaN.
type Assumption struct {
	Column   string
	Min, Max Value
	NaNFree  bool
}

// String renders the assumption as "a in [-1000000, 1000000]", with ", no
// NaN" when it says so.
func (a Assumption) String() string {
	s := columnText(a.Column) + " in [" + factText(a.Min) + ", " + factText(a.Max) + "]"
	if a.NaNFree {
		s += ", no NaN"
	}
	return s
}

// Equal reports whether a and b assume the same thing (bounds by identity).
func (a Assumption) Equal(b Assumption) bool {
	return a.Column == b.Column && a.NaNFree == b.NaNFree && a.Min.Identical(b.Min) && a.Max.Identical(b.Max)
}

// Violation returns why the non-null value v of the assumption's column
// breaks it, or "" when it does not: "holds 5000001, above the stated
// maximum 1000000".
func (a Assumption) Violation(v Value) string {
	if v.IsNull() {
		return ""
	}
	switch v.Type() {
	case Int32, Int64:
		if a.Min.Type() == Float64 {
			return ""
		}
		switch {
		case v.Int() < a.Min.Int():
			return "holds " + v.String() + ", below the stated minimum " + factText(a.Min)
		case v.Int() > a.Max.Int():
			return "holds " + v.String() + ", above the stated maximum " + factText(a.Max)
		}
	case Float64:
		x := v.Float()
		switch {
		case math.IsNaN(x):
			if a.NaNFree {
				return "holds NaN, which it stated it has none of"
			}
		case a.Min.Type() != Float64:
		case x < a.Min.Float():
			return "holds " + FormatFloat(x) + ", below the stated minimum " + factText(a.Min)
		case x > a.Max.Float():
			return "holds " + FormatFloat(x) + ", above the stated maximum " + factText(a.Max)
		}
	}
	return ""
}

// ImpliedBy reports whether facts f about the assumption's column imply
// it: f states a range of the assumption's type within [Min, Max], and no
// NaN when the assumption says so. An evaluation that computed f itself
// from the very values the source yields (an in-memory table, an Arrow
// source: data that cannot change) knows that no row breaks the
// assumption and may skip checking it; the outcome is the same, since the
// check could not fail (docs/semantics.md, scan). Facts a source states
// (a host's, a Parquet file's statistics) never excuse a check.
func (a Assumption) ImpliedBy(f ColumnFacts) bool {
	if a.NaNFree && !f.NaNFree {
		return false
	}
	if !f.HasRange || f.Min.IsNull() || f.Max.IsNull() || a.Min.IsNull() || a.Max.IsNull() ||
		f.Min.Type() != a.Min.Type() || f.Max.Type() != a.Max.Type() || a.Min.Type() != a.Max.Type() {
		return false
	}
	switch a.Min.Type() {
	case Int32, Int64:
		return a.Min.Int() <= f.Min.Int() && f.Max.Int() <= a.Max.Int()
	case Float64:
		// NaN bounds compare false: never implied.
		return a.Min.Float() <= f.Min.Float() && f.Max.Float() <= a.Max.Float()
	}
	return false
}

// AssumptionError is the error of a scan whose source yields a value that
// breaks an assumption the plan relied on: a source_error naming the
// source (Expr), with a message naming the column, the fact and the value.
// row is the row of the source's output, for people.
func AssumptionError(source string, a Assumption, why string, row int64) *Error {
	return &Error{Kind: SourceError, Expr: source, Row: row,
		Msg: fmt.Sprintf("source %s broke a fact it stated about column %s: it %s (the plan relied on %s)", source, columnText(a.Column), why, a)}
}

// ValidateAssumptions checks a scan's assumptions against its source's
// schema: each names a distinct int32, int64 or float64 column of the
// source, with bounds of its type, neither null nor NaN, Min <= Max, and
// NaNFree only on a float column.
func ValidateAssumptions(as []Assumption, schema Schema) error {
	seen := map[string]bool{}
	for i, a := range as {
		f, ok := schema.Lookup(a.Column)
		if !ok {
			return fmt.Errorf("assumption %d names column %s, which the source does not have", i, columnText(a.Column))
		}
		if seen[a.Column] {
			return fmt.Errorf("assumption %d names column %s a second time", i, columnText(a.Column))
		}
		seen[a.Column] = true
		if err := CheckFacts(ColumnFacts{HasRange: true, Min: a.Min, Max: a.Max}, f.Type); err != nil {
			return fmt.Errorf("assumption %d (%s): %w", i, columnText(a.Column), err)
		}
		if a.NaNFree && f.Type != Float64 {
			return fmt.Errorf("assumption %d (%s): no NaN on a %s column", i, columnText(a.Column), f.Type)
		}
	}
	return nil
}

// columnText renders a column name as expressions print it: bare when it
// is an identifier, col("...") otherwise.
func columnText(name string) string { return (&Column{Name: name}).String() }
