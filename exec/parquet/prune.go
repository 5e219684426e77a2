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
// string, date, datetime or duration and the literal has the column's
// type; or the column and the literal are integers of any widths and
// signs (compared by their exact values, as the promoted comparison
// does: no promotion changes an integer's value); or the column is
// float32 or float64 and the literal float32 or float64 (compared as
// float64 values, float32 widening exactly).
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
	case ct.IsFloat() && lt.IsFloat():
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
		// uint8, uint16 and uint32 are stored as INT32 bits: read unsigned.
		mn, mx := signedInt(int64(s.Min())), signedInt(int64(s.Max()))
		if c.typ.IsUnsigned() {
			mn, mx = exactInt{u: uint64(uint32(s.Min()))}, exactInt{u: uint64(uint32(s.Max()))}
		}
		v := literalInt(c.lit)
		if mn.compare(mx) > 0 {
			return false // bounds out of order: not statistics to trust
		}
		lo, hi = mn.compare(v), mx.compare(v)
	case *metadata.Int64Statistics:
		// A datetime or duration is its int64 µs (signed order).
		if !c.typ.IsInteger() && c.typ != plan.Datetime && c.typ != plan.Duration {
			return false
		}
		// uint64 is stored as INT64 bits: read unsigned.
		mn, mx := signedInt(s.Min()), signedInt(s.Max())
		if c.typ == plan.Uint64 {
			mn, mx = exactInt{u: uint64(s.Min())}, exactInt{u: uint64(s.Max())}
		}
		v := literalInt(c.lit)
		if mn.compare(mx) > 0 {
			return false
		}
		lo, hi = mn.compare(v), mx.compare(v)
	case *metadata.Float64Statistics:
		mn, mx, v := s.Min(), s.Max(), literalFloat(c.lit)
		if c.typ != plan.Float64 || c.op == plan.FuncNe || math.IsNaN(mn) || math.IsNaN(mx) || math.IsNaN(v) {
			return false
		}
		lo, hi = cmp.Compare(mn, v), cmp.Compare(mx, v) // by IEEE (-0.0 == +0.0); no NaN here
	case *metadata.Float32Statistics:
		mn, mx, v := float64(s.Min()), float64(s.Max()), literalFloat(c.lit)
		if c.typ != plan.Float32 || c.op == plan.FuncNe || math.IsNaN(mn) || math.IsNaN(mx) || math.IsNaN(v) {
			return false
		}
		lo, hi = cmp.Compare(mn, v), cmp.Compare(mx, v) // float32 widens exactly
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

// exactInt is an integer of any of the eight integer types by its exact
// value: neg with u the int64 bits of a negative value, or a value >= 0
// in u.
type exactInt struct {
	neg bool
	u   uint64
}

// signedInt is the exact value of a signed integer.
func signedInt(x int64) exactInt { return exactInt{neg: x < 0, u: uint64(x)} }

// literalInt is the exact value of an integer literal (unsigned read as
// unsigned, so a uint64 beyond MaxInt64 stays positive).
func literalInt(v plan.Value) exactInt {
	if v.Type().IsUnsigned() {
		return exactInt{u: v.Uint()}
	}
	return signedInt(v.Int())
}

// compare orders two exact integers: a negative below a non-negative;
// two negatives, or two non-negatives, by their bits (two's complement
// keeps the order among negatives).
func (a exactInt) compare(b exactInt) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.u, b.u)
}

// literalFloat is a float32 or float64 literal as float64 (float32
// widens exactly).
func literalFloat(v plan.Value) float64 {
	if v.Type() == plan.Float32 {
		return float64(v.Float32())
	}
	return v.Float()
}

// rgTest is a pushed conjunct the row-group statistics of one column can
// refute: a comparison; is_in(column, [literals]), refuted when `column ==
// v` is refuted for every non-null v (a null v makes no row true, and an
// empty list none); starts_with(column, literal), refuted when no
// string between the chunk's min and max (by bytes) begins with the
// literal; or an or of such tests of the one column, refuted when every
// disjunct is (a row where each is false or null makes the or false or
// null). The or is how a dataframe front end writes an IN list (TPC-H
// Q12's l_shipmode == "RAIL" or l_shipmode == "FOB"): accepting it lets
// the scan test such a column from its dictionary (dicttest.go).
type rgTest struct {
	column int
	any    []comparison // is_in: the eq comparisons, one per non-null value
	cmp    comparison   // a plain comparison (when any, prefix and or are unused)
	isIn   bool
	prefix *string  // starts_with's literal
	or     []rgTest // an or's disjuncts, each of column
}

// parseTest recognises the conjuncts rgTest can refute.
func parseTest(e plan.Expr, s plan.Schema) (rgTest, bool) {
	call, ok := e.(*plan.Call)
	if !ok {
		return rgTest{}, false
	}
	switch call.Fn {
	case plan.FuncIsIn:
		col, ok := firstColumn(call)
		if !ok {
			return rgTest{}, false
		}
		t := rgTest{column: s.Index(col.Name), isIn: true}
		if t.column < 0 {
			return rgTest{}, false
		}
		for _, a := range call.Args[1:] {
			lit, ok := a.(*plan.Literal)
			if !ok {
				return rgTest{}, false
			}
			if lit.Value.IsNull() {
				continue
			}
			c, ok := parseComparison(&plan.Call{Fn: plan.FuncEq, Args: []plan.Expr{col, lit}}, s)
			if !ok {
				return rgTest{}, false
			}
			t.any = append(t.any, c)
		}
		return t, true
	case plan.FuncStartsWith:
		col, ok := firstColumn(call)
		if !ok || len(call.Args) != 2 {
			return rgTest{}, false
		}
		lit, ok := call.Args[1].(*plan.Literal)
		idx := s.Index(col.Name)
		if !ok || idx < 0 || s.Field(idx).Type != plan.String || lit.Value.Type() != plan.String || lit.Value.IsNull() {
			return rgTest{}, false
		}
		p := lit.Value.Str()
		return rgTest{column: idx, prefix: &p}, true
	case plan.FuncOr:
		if len(call.Args) == 0 {
			return rgTest{}, false
		}
		t := rgTest{or: make([]rgTest, 0, len(call.Args))}
		for i, a := range call.Args {
			d, ok := parseTest(a, s)
			if !ok || (i > 0 && d.column != t.column) {
				return rgTest{}, false
			}
			t.column = d.column
			t.or = append(t.or, d)
		}
		return t, true
	}
	c, ok := parseComparison(e, s)
	return rgTest{column: c.column, cmp: c}, ok
}

// firstColumn is the call's first argument when it is a column.
func firstColumn(call *plan.Call) (*plan.Column, bool) {
	if len(call.Args) == 0 {
		return nil, false
	}
	col, ok := call.Args[0].(*plan.Column)
	return col, ok
}

// excludes reports whether the chunk's statistics prove the conjunct false
// or null on every row of the row group (false when in doubt).
func (t rgTest) excludes(cc *metadata.ColumnChunkMetaData, rows int64) bool {
	switch {
	case t.isIn:
		for _, c := range t.any {
			if !c.excludes(cc, rows) {
				return false
			}
		}
		return true
	case t.prefix != nil:
		return prefixExcludes(*t.prefix, cc, rows)
	case t.or != nil:
		for _, d := range t.or {
			if !d.excludes(cc, rows) {
				return false
			}
		}
		return true
	}
	return t.cmp.excludes(cc, rows)
}

// prefixExcludes: every string beginning with p lies in [p, next) by bytes,
// next being p with its last byte below 0xff incremented and the bytes
// after it dropped (no bound above when p is all 0xff bytes). A chunk whose
// max is below p or whose min is at or above next holds none; a chunk of
// only nulls holds none either.
func prefixExcludes(p string, cc *metadata.ColumnChunkMetaData, rows int64) bool {
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
	bs, ok := st.(*metadata.ByteArrayStatistics)
	if !ok {
		return false
	}
	if string(bs.Max()) < p {
		return true
	}
	next := []byte(p)
	for len(next) > 0 && next[len(next)-1] == 0xff {
		next = next[:len(next)-1]
	}
	if len(next) == 0 {
		return false
	}
	next[len(next)-1]++
	return string(bs.Min()) >= string(next)
}
