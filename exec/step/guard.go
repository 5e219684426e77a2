package step

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
)

// guard evaluates an error guard (plan.GuardNode, docs/semantics.md,
// guard): the error condition of each expression over every input row, in
// list order, raising exactly what the expression would raise there, and
// passes the input through. An expression with a cheap condition
// (plan.CompileGuard) costs a range or divisor test per row, read in place
// (a gathered column is not gathered); any other is evaluated in full and
// its value dropped.
func (e *Env) guard(n *plan.GuardNode, in *Frame) (*Frame, error) {
	if err := e.guardExprs(n.Exprs, in); err != nil {
		return nil, err
	}
	return in.Share(n.Schema()), nil
}

// guardExprs evaluates the error conditions of exprs over every row of
// in, in list order, raising the first error (a guard node's, or a scan's
// guards over the rows its source yielded).
func (e *Env) guardExprs(exprs []plan.Expr, in *Frame) error {
	s := in.schema
	for _, x := range exprs {
		prog, ok := plan.CompileGuard(x, s)
		if !ok {
			if err := e.guardFull(x, in); err != nil {
				return err
			}
			continue
		}
		if err := e.runGuard(prog, in); err != nil {
			return err
		}
		if err := e.CheckCtx(); err != nil {
			return err
		}
	}
	return nil
}

// guardFull evaluates x over every row of in and drops the value.
func (e *Env) guardFull(x plan.Expr, in *Frame) error {
	out, err := e.evalOn(in, []plan.Expr{x})
	if err != nil {
		return err
	}
	releaseAll(out)
	return nil
}

// intCol reads an integer column of a frame in place: row i is
// vals[idx[i]] (idx nil: vals[i]); a negative index or an invalid slot is
// null.
type intCol struct {
	arr   arrow.Array
	i64   []int64
	i32   []int32
	idx   []int32
	nulls bool
	// seq: a row_index column (arr nil), row j's value off+j.
	seq *seqBase
}

func (e *Env) intColumn(in *Frame, name string) (intCol, error) {
	fc, err := e.col(in, name)
	if err != nil {
		return intCol{}, err
	}
	var c intCol
	if fc.idx != nil {
		c.idx = fc.idx.rows
	}
	if fc.seq != nil {
		c.seq = fc.seq
		return c, nil
	}
	c.arr, c.nulls = fc.arr, fc.arr.NullN() > 0
	switch a := fc.arr.(type) {
	case *array.Int64:
		c.i64 = a.Int64Values()
	case *array.Int32:
		c.i32 = a.Int32Values()
	default:
		return intCol{}, e.Internal("guard: column %q is %s, not an integer", name, fc.arr.DataType())
	}
	return c, nil
}

// at returns row i's value and whether it is non-null.
func (c *intCol) at(i int) (int64, bool) {
	j := i
	if c.idx != nil {
		j = int(c.idx[i])
		if j < 0 {
			return 0, false
		}
	}
	if c.seq != nil {
		return c.seq.off + int64(j), true
	}
	if c.nulls && c.arr.IsNull(j) {
		return 0, false
	}
	if c.i64 != nil {
		return c.i64[j], true
	}
	return int64(c.i32[j]), true
}

// suspect reports whether some value of a compact int64 column (null
// slots included) is 0 or -1: the only divisors that can raise.
func (c *intCol) suspect(rows int) bool {
	for _, v := range c.i64[:rows] {
		if uint64(v+1) <= 1 {
			return true
		}
	}
	return false
}

// anyOutside reports whether some value (null slots included) lies
// outside [lo, hi] (lo <= hi), without a branch per value: v is inside
// exactly when v - lo, as an unsigned number, is at most hi - lo, so the
// largest such difference decides (builtin max compiles to a conditional
// move; four running maxima).
func anyOutside(vals []int64, lo, hi int64) bool {
	ulo := uint64(lo)
	var m0, m1, m2, m3 uint64
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		m0 = max(m0, uint64(vals[i])-ulo)
		m1 = max(m1, uint64(vals[i+1])-ulo)
		m2 = max(m2, uint64(vals[i+2])-ulo)
		m3 = max(m3, uint64(vals[i+3])-ulo)
	}
	for ; i < len(vals); i++ {
		m0 = max(m0, uint64(vals[i])-ulo)
	}
	return max(m0, m1, m2, m3) > uint64(hi-lo)
}

// firstOutside returns the first row whose non-null value lies outside
// [lo, hi], or -1.
func (c *intCol) firstOutside(rows int, lo, hi int64) int {
	if c.idx == nil && c.i64 != nil {
		vals := c.i64[:rows]
		if lo <= hi && !anyOutside(vals, lo, hi) {
			return -1 // the common case: one branch-free pass
		}
		for i, v := range vals {
			if v < lo || v > hi {
				if !c.nulls || c.arr.IsValid(i) {
					return i
				}
			}
		}
		return -1
	}
	for i := 0; i < rows; i++ {
		v, ok := c.at(i)
		if ok && (v < lo || v > hi) {
			return i
		}
	}
	return -1
}

// runGuard runs a compiled program: the first test with a failing row, at
// its first failing row, is the error. A chain's tests are nested (each
// interval within the one before), so its last test finds whether any of
// them fails, and only then are they read in order.
func (e *Env) runGuard(prog plan.GuardProgram, in *Frame) error {
	tests := prog.Tests
	for i := 0; i < len(tests); {
		t := tests[i]
		if t.Kind != plan.GuardRange {
			if err := e.divisorTest(t, in); err != nil {
				return err
			}
			i++
			continue
		}
		// The run of range tests of one chain: consecutive, same column,
		// each interval within the one before.
		j := i + 1
		for j < len(tests) && tests[j].Kind == plan.GuardRange && tests[j].Column == t.Column &&
			tests[j].Lo >= tests[j-1].Lo && tests[j].Hi <= tests[j-1].Hi {
			j++
		}
		col, err := e.intColumn(in, t.Column)
		if err != nil {
			return err
		}
		last := tests[j-1]
		if col.firstOutside(in.rows, last.Lo, last.Hi) >= 0 {
			for _, u := range tests[i:j] {
				if r := col.firstOutside(in.rows, u.Lo, u.Hi); r >= 0 {
					v, _ := col.at(r)
					return &plan.Error{Kind: plan.Overflow, Expr: plan.Written(u.Expr), Row: int64(r),
						Msg: fmt.Sprintf("%s overflow: %s at %s = %d (error guard)", u.Width, plan.Written(u.Expr), t.Column, v)}
				}
			}
		}
		i = j
	}
	return nil
}

// operand reads a divisor test's operand at row i.
type guardOperand struct {
	lit  plan.GuardOperand
	col  intCol
	from bool // read from col
}

func (e *Env) guardOperand(o plan.GuardOperand, in *Frame) (guardOperand, error) {
	if o.Column == "" {
		return guardOperand{lit: o}, nil
	}
	c, err := e.intColumn(in, o.Column)
	return guardOperand{col: c, from: true}, err
}

func (g *guardOperand) at(i int) (int64, bool) {
	if g.from {
		return g.col.at(i)
	}
	return g.lit.Value, !g.lit.Null
}

// divisorTest raises divide_by_zero at the first row dividing a non-null
// value by 0, else overflow at the first row dividing the smallest value of
// the result type by -1.
func (e *Env) divisorTest(t plan.GuardTest, in *Frame) error {
	num, err := e.guardOperand(t.Num, in)
	if err != nil {
		return err
	}
	den, err := e.guardOperand(t.Den, in)
	if err != nil {
		return err
	}
	minV := int64(math.MinInt64)
	if t.Width == plan.Int32 {
		minV = math.MinInt32
	}
	if den.from && den.col.idx == nil && den.col.i64 != nil && !den.col.suspect(in.rows) {
		return nil // no divisor is 0 or -1: no row can raise
	}
	over := -1
	for i := 0; i < in.rows; i++ {
		d, ok := den.at(i)
		if !ok || (d != 0 && d != -1) {
			continue
		}
		x, ok := num.at(i)
		if !ok {
			continue
		}
		if d == 0 {
			return &plan.Error{Kind: plan.DivideByZero, Expr: plan.Written(t.Expr), Row: int64(i),
				Msg: fmt.Sprintf("division by zero: %s at row %d (error guard)", plan.Written(t.Expr), i)}
		}
		if x == minV && over < 0 {
			over = i
		}
	}
	if over >= 0 {
		return &plan.Error{Kind: plan.Overflow, Expr: plan.Written(t.Expr), Row: int64(over),
			Msg: fmt.Sprintf("%s overflow: %s divides %d by -1 (error guard)", t.Width, plan.Written(t.Expr), minV)}
	}
	return nil
}
