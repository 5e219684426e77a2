package oracle

import (
	"fmt"
	"math"

	"github.com/dfopt/dfopt/plan"
)

// DiffKind classifies a divergence: what kind of difference the oracle saw.
type DiffKind string

// The kinds of divergence.
const (
	// DiffOptimizer: rules.Optimize failed on a plan that resolves (a Verify
	// failure, a rule that broke the plan, a recovered panic), or succeeded
	// on a plan that does not resolve.
	DiffOptimizer DiffKind = "optimizer"
	// DiffRootSchema: the optimized plan's root schema differs from the
	// unoptimized plan's.
	DiffRootSchema DiffKind = "root_schema"
	// DiffInternal: a way panicked, returned an error that is not a
	// *plan.Error, or failed with an internal executor or eager error (a
	// broken invariant, never a legitimate outcome, even when two ways
	// share it).
	DiffInternal DiffKind = "internal"
	// DiffOutcome: one way failed and the other succeeded.
	DiffOutcome DiffKind = "outcome"
	// DiffError: both ways failed, with different errors (kind or
	// expression text).
	DiffError DiffKind = "error"
	// DiffSchema: both succeeded with different schemas (names, types or
	// nullability).
	DiffSchema DiffKind = "schema"
	// DiffRowCount: both succeeded with different numbers of rows.
	DiffRowCount DiffKind = "row_count"
	// DiffValidity: a cell is null in one outcome and valid in the other.
	DiffValidity DiffKind = "validity"
	// DiffValue: a cell is valid in both with different values (floats by
	// bits).
	DiffValue DiffKind = "value"
	// DiffMemo: the optimizer's sharedSubplans prediction differs from the
	// memo hits of the optimized collect.
	DiffMemo DiffKind = "memo"
	// DiffGenerator: the case generator itself failed (a panic in
	// proptest.Generate); campaigns only.
	DiffGenerator DiffKind = "generator"
)

// Pair names the two ways a divergence compares. For a divergence about one
// way alone (optimizer, internal, memo) A and B are equal.
type Pair struct {
	A, B Way
}

// String renders "optimized/unoptimized", or the single way.
func (p Pair) String() string {
	if p.A == p.B {
		return p.A.String()
	}
	return p.A.String() + "/" + p.B.String()
}

// Divergence is one difference the oracle found.
type Divergence struct {
	// Kind says what differs.
	Kind DiffKind
	// Pair names the ways compared (A and B equal for one-way kinds).
	Pair Pair
	// Column and Row locate the first differing cell (row-major order) for
	// validity and value divergences, and Name is the column's name; both
	// are -1 otherwise.
	Column, Row int
	Name        string
	// A and B are the two cells (validity and value divergences).
	A, B plan.Value
	// Detail is a one-line description with both sides; Diff is a go-cmp
	// rendering of the structured difference (schemas, errors, the
	// differing row), for people only: its format is not stable.
	Detail string
	Diff   string
	// Cells counts the differing cells (validity and value divergences).
	Cells int
}

// Class is the divergence's identity for shrinking and deduplication: the
// kind and the pair, "value optimized/unoptimized".
func (d Divergence) Class() string {
	if d.Kind == DiffGenerator {
		return string(d.Kind)
	}
	return string(d.Kind) + " " + d.Pair.String()
}

// String renders the divergence in one line.
func (d Divergence) String() string {
	return fmt.Sprintf("%s: %s", d.Class(), d.Detail)
}

// describeValue renders a value readably and as bits: floats with their
// IEEE-754 bits, integers in hexadecimal two's complement, strings quoted
// with their length in bytes.
func describeValue(v plan.Value) string {
	if v.IsNull() {
		return fmt.Sprintf("null(%s)", v.Type())
	}
	switch v.Type() {
	case plan.Float64:
		return fmt.Sprintf("%s (float64 bits 0x%016x)", plan.FormatFloat(v.Float()), math.Float64bits(v.Float()))
	case plan.Int64:
		return fmt.Sprintf("%d (int64 bits 0x%016x)", v.Int(), uint64(v.Int()))
	case plan.Int32:
		return fmt.Sprintf("int32(%d) (bits 0x%08x)", v.Int(), uint32(int32(v.Int())))
	case plan.String:
		return fmt.Sprintf("%q (string, %d bytes)", v.Str(), len(v.Str()))
	case plan.Bool:
		return fmt.Sprintf("%t (bool)", v.Bool())
	}
	return v.String()
}
