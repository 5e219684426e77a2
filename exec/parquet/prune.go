package parquet

import (
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/dfopt/dfopt/plan"
)

// comparison is a pushed conjunct of the form `column OP literal` (a literal
// on the left is flipped) that row-group statistics can refute.
type comparison struct {
	column int // field (= leaf) index in the file
	typ    plan.Type
	op     plan.Func // FuncEq ... FuncGe, with the column on the left
	lit    plan.Value
}

// flipped maps an operator to the one with swapped operands.
var flipped = map[plan.Func]plan.Func{
	plan.FuncEq: plan.FuncEq, plan.FuncNe: plan.FuncNe,
	plan.FuncLt: plan.FuncGt, plan.FuncLe: plan.FuncGe,
	plan.FuncGt: plan.FuncLt, plan.FuncGe: plan.FuncLe,
}

// parseComparison recognises eq/ne/lt/le/gt/ge of a column and a non-null
// literal, in either order, where the column is int32, int64, float64,
// string, date, datetime or duration and the literal has the column's type (int32 and int64 mix: both
// compare as int64, as the evaluator promotes them).
func parseComparison(e plan.Expr, s plan.Schema) (comparison, bool) {
	call, ok := e.(*plan.Call)
	if !ok || len(call.Args) != 2 {
		return comparison{}, false
	}
	op, ok := flipped[call.Fn]
	if !ok {
		return comparison{}, false
	}
	col, cok := call.Args[0].(*plan.Column)
	lit, lok := call.Args[1].(*plan.Literal)
	if cok && lok {
		op = call.Fn
	} else {
		col, cok = call.Args[1].(*plan.Column)
		lit, lok = call.Args[0].(*plan.Literal)
		if !cok || !lok {
			return comparison{}, false
		}
	}
	idx := s.Index(col.Name)
	if idx < 0 || lit.Value.IsNull() {
		return comparison{}, false
	}
	ct, lt := s.Field(idx).Type, lit.Value.Type()
	switch {
	case ct == lt && (ct == plan.Int32 || ct == plan.Int64 || ct == plan.Float64 || ct == plan.String || ct.IsTemporal()):
	case ct.IsInteger() && lt.IsInteger():
	default:
		return comparison{}, false
	}
	return comparison{column: idx, typ: ct, op: op, lit: lit.Value}, true
}

// excludes reports whether the statistics of a column chunk prove that the
// comparison is false or null on every row of the row group. When in doubt
// (no statistics, no min/max, a NaN bound) it answers false, so the group is
// read.
//
// Nulls never satisfy a comparison, so a chunk of only nulls is excluded.
// The min/max of a Parquet float column leave out NaN; a NaN row fails every
// comparison except ne, so the bounds refute eq, lt, le, gt and ge, and ne
// on floats is never used.
func (c comparison) excludes(cc *metadata.ColumnChunkMetaData, rows int64) bool {
	set, err := cc.StatsSet()
	if err != nil || !set {
		return false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return false
	}
	if !st.HasMinMax() {
		return st.HasNullCount() && st.NullCount() == rows && rows > 0
	}
	var lo, hi int // comparisons of the literal with min and max: -1, 0, 1
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		// A date is its int32 days (Parquet's DATE orders them signed).
		if !c.typ.IsInteger() && c.typ != plan.Date {
			return false
		}
		lo, hi = cmp.Compare(int64(s.Min()), c.lit.Int()), cmp.Compare(int64(s.Max()), c.lit.Int())
	case *metadata.Int64Statistics:
		// A datetime or duration is its int64 µs (signed order).
		if !c.typ.IsInteger() && c.typ != plan.Datetime && c.typ != plan.Duration {
			return false
		}
		lo, hi = cmp.Compare(s.Min(), c.lit.Int()), cmp.Compare(s.Max(), c.lit.Int())
	case *metadata.Float64Statistics:
		mn, mx, v := s.Min(), s.Max(), c.lit.Float()
		if c.typ != plan.Float64 || c.op == plan.FuncNe || math.IsNaN(mn) || math.IsNaN(mx) || math.IsNaN(v) {
			return false
		}
		lo, hi = cmp.Compare(mn, v), cmp.Compare(mx, v) // by IEEE (-0.0 == +0.0); no NaN here
	case *metadata.ByteArrayStatistics:
		if c.typ != plan.String {
			return false
		}
		lo, hi = cmp.Compare(string(s.Min()), c.lit.Str()), cmp.Compare(string(s.Max()), c.lit.Str())
	default:
		return false
	}
	switch c.op {
	case plan.FuncEq: // some v == lit needs min <= lit <= max
		return lo > 0 || hi < 0
	case plan.FuncNe: // every v == lit only when min == max == lit
		return lo == 0 && hi == 0
	case plan.FuncLt: // some v < lit needs min < lit
		return lo >= 0
	case plan.FuncLe:
		return lo > 0
	case plan.FuncGt: // some v > lit needs max > lit
		return hi <= 0
	case plan.FuncGe:
		return hi < 0
	}
	return false
}
