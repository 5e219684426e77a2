package oracle

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/dfopt/dfopt/plan"
)

// WayResult is what one way did: its Outcome when it succeeded, or its
// error.
type WayResult struct {
	Way Way
	// Ran is false when the way was not run: the optimized way after the
	// optimizer failed on a plan that resolves, the reference way when the
	// case turned it off or it skipped the plan (see Skipped).
	Ran bool
	// Skipped says why the reference way did not run the plan (a host
	// extension operator without a reference implementation, a source it
	// cannot read); such a plan is counted, never a divergence.
	Skipped string
	// Outcome is the result when Ran and Err is nil.
	Outcome Outcome
	// Err is the failure: a *plan.Error, or for a broken contract (a panic,
	// another error type) whatever was caught.
	Err error
	// Internal reports a broken contract: a recovered panic, an error that
	// is not a *plan.Error, or an internal executor or eager error.
	Internal bool
}

// OK reports whether the way ran and succeeded.
func (w *WayResult) OK() bool { return w.Ran && w.Err == nil }

// ErrorKind returns the kind of the way's *plan.Error, or "" when it
// succeeded or did not run.
func (w *WayResult) ErrorKind() plan.ErrorKind {
	if pe, ok := plan.AsError(w.Err); ok {
		return pe.Kind
	}
	return ""
}

// cellView is a plan value as go-cmp sees it (plan.Value has unexported
// fields, on which cmp panics).
type cellView struct {
	Type  string
	Null  bool
	Int   int64
	Float float64
	Str   string
	// Bits shows a float's IEEE-754 bits in diffs (cmp prints every NaN
	// as NaN).
	Bits string
}

// errView is an error's identity in the evaluation model: kind and
// expression text.
type errView struct {
	Kind plan.ErrorKind
	Expr string
}

// cmpOptions compares floats by their bits: NaN payloads and -0.0 count,
// and nothing is canonicalized.
var cmpOptions = cmp.Options{
	cmp.Comparer(func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }),
}

func viewOf(v plan.Value) cellView {
	c := cellView{Type: v.Type().String(), Null: v.IsNull()}
	if c.Null {
		return c
	}
	switch v.Type() {
	case plan.Float64:
		c.Float = v.Float()
		c.Bits = fmt.Sprintf("0x%016x", math.Float64bits(v.Float()))
	case plan.String:
		c.Str = v.Str()
	default:
		c.Int = v.Int()
	}
	return c
}

func rowView(o *Outcome, row int) []cellView {
	out := make([]cellView, len(o.Columns))
	for c := range o.Columns {
		out[c] = viewOf(o.Columns[c][row])
	}
	return out
}

func errViewOf(err error) errView {
	if pe, ok := plan.AsError(err); ok {
		return errView{Kind: pe.Kind, Expr: pe.Expr}
	}
	return errView{Kind: "(not a plan error)", Expr: err.Error()}
}

// isInternal reports whether err breaks a way's contract rather than being
// a legitimate outcome: not a *plan.Error, or an internal error of the
// executor or the eager chain (a recovered panic, an unexpected array, a
// result of the wrong shape), which both build as invalid_plan errors whose
// message starts "executor: " or "eager: ".
func isInternal(err error) bool {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return true
	}
	if pe.Kind == plan.InvalidPlan && (strings.HasPrefix(pe.Msg, "executor: ") || strings.HasPrefix(pe.Msg, "eager: ")) {
		return true
	}
	return false
}

// describeErr renders an error in one line for a divergence detail.
func describeErr(err error) string {
	if pe, ok := plan.AsError(err); ok {
		return fmt.Sprintf("%s in `%s`", pe.Kind, pe.Expr)
	}
	return fmt.Sprintf("%v", err)
}

// compareWays compares two ways that ran and neither broke its contract;
// it returns the first difference, if any.
func compareWays(a, b *WayResult) (Divergence, bool) {
	d := Divergence{Pair: Pair{A: a.Way, B: b.Way}, Column: -1, Row: -1}
	switch {
	case a.Err != nil && b.Err != nil:
		pa, _ := plan.AsError(a.Err)
		pb, _ := plan.AsError(b.Err)
		if pa.Same(pb) {
			return d, false
		}
		d.Kind = DiffError
		d.Detail = fmt.Sprintf("%s fails with %s, %s with %s", a.Way, describeErr(a.Err), b.Way, describeErr(b.Err))
		d.Diff = cmp.Diff(errViewOf(a.Err), errViewOf(b.Err))
		return d, true
	case a.Err != nil || b.Err != nil:
		d.Kind = DiffOutcome
		if a.Err != nil {
			d.Detail = fmt.Sprintf("%s fails with %s, %s succeeds with %d rows", a.Way, describeErr(a.Err), b.Way, b.Outcome.Rows)
		} else {
			d.Detail = fmt.Sprintf("%s succeeds with %d rows, %s fails with %s", a.Way, a.Outcome.Rows, b.Way, describeErr(b.Err))
		}
		return d, true
	}
	return compareOutcomes(d, &a.Outcome, &b.Outcome)
}

// compareOutcomes compares two successful outcomes: schema, row count, then
// every cell in row-major order (validity, then bits).
func compareOutcomes(d Divergence, a, b *Outcome) (Divergence, bool) {
	if !a.Schema.Equal(b.Schema) {
		d.Kind = DiffSchema
		d.Detail = fmt.Sprintf("%s has schema %s, %s has %s", d.Pair.A, a.Schema, d.Pair.B, b.Schema)
		d.Diff = cmp.Diff(a.Schema.Fields(), b.Schema.Fields())
		return d, true
	}
	if a.Rows != b.Rows {
		d.Kind = DiffRowCount
		d.Detail = fmt.Sprintf("%s has %d rows, %s has %d", d.Pair.A, a.Rows, d.Pair.B, b.Rows)
		if r, _, ok := firstDifferentCell(a, b, min(a.Rows, b.Rows)); ok {
			d.Detail += fmt.Sprintf("; the first differing row is %d", r)
			d.Diff = cmp.Diff(rowView(a, r), rowView(b, r), cmpOptions)
		}
		return d, true
	}
	r, c, ok := firstDifferentCell(a, b, a.Rows)
	if !ok {
		return d, false
	}
	va, vb := a.Columns[c][r], b.Columns[c][r]
	d.Kind = DiffValue
	if va.IsNull() != vb.IsNull() {
		d.Kind = DiffValidity
	}
	d.Row, d.Column, d.Name, d.A, d.B = r, c, a.Schema.Field(c).Name, va, vb
	d.Cells = countDifferentCells(a, b)
	d.Detail = fmt.Sprintf("row %d column %d (%s): %s has %s, %s has %s (%d differing cells)",
		r, c, d.Name, d.Pair.A, describeValue(va), d.Pair.B, describeValue(vb), d.Cells)
	d.Diff = cmp.Diff(rowView(a, r), rowView(b, r), cmpOptions)
	return d, true
}

// firstDifferentCell finds the first cell, in row-major order over the first
// rows rows, that is not bitwise identical.
func firstDifferentCell(a, b *Outcome, rows int) (row, col int, found bool) {
	// Column-major scan (cache friendly), keeping the smallest row.
	row, col = rows, -1
	for c := range a.Columns {
		ca, cb := a.Columns[c], b.Columns[c]
		for r := 0; r < row; r++ {
			if !ca[r].Identical(cb[r]) {
				row, col = r, c
				break
			}
		}
	}
	return row, col, col >= 0
}

func countDifferentCells(a, b *Outcome) int {
	n := 0
	for c := range a.Columns {
		for r := range a.Columns[c] {
			if !a.Columns[c][r].Identical(b.Columns[c][r]) {
				n++
			}
		}
	}
	return n
}
