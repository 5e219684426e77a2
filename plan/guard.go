package plan

import (
	"fmt"
	"math"
	"math/big"
)

// resolveGuard checks a guard's expressions as row expressions over its
// input (no over(), no aggregate) and passes the input's schema through: a
// guard adds no column.
func resolveGuard(n *GuardNode, p *Path) (Schema, error) {
	in := n.Input.Schema()
	if len(n.Exprs) == 0 {
		return Schema{}, &Error{Kind: InvalidPlan, Row: -1, Path: p.Child(".exprs").String(), Msg: "guard: no expressions"}
	}
	for i, e := range n.Exprs {
		ep := p.Index("exprs", i)
		if err := noWindowOrAggregate(e, ep, "guard"); err != nil {
			return Schema{}, err
		}
		if _, err := TypeOf(e, in); err != nil {
			return Schema{}, exprError(err, ep)
		}
	}
	return in, nil
}

// GuardTestKind says how a GuardTest decides that a row fails.
type GuardTestKind uint8

// The kinds of guard tests.
const (
	// GuardRange: the row fails when Column is not null and its value lies
	// outside [Lo, Hi] (Lo > Hi: every non-null value fails).
	GuardRange GuardTestKind = iota + 1
	// GuardDivisor: an integer div or mod of Num by Den; the row fails with
	// divide_by_zero when both are non-null and Den is 0, with overflow when
	// Num is the smallest value of the result type and Den is -1. As the
	// kernel does, divide_by_zero on any row wins over overflow on any row.
	GuardDivisor
)

// GuardOperand is an operand of a GuardDivisor test: a column or a
// literal (a null literal when Null is set).
type GuardOperand struct {
	Column string // "" for a literal
	Value  int64
	Null   bool
}

// GuardTest is one error condition of a guarded expression: the rows on
// which its subexpression Expr raises, given that every earlier test of
// the same program raised on no row. Expr is the subexpression as it sits
// in the guarded tree, so Written(Expr) is the text the error names.
type GuardTest struct {
	Kind GuardTestKind
	Expr Expr
	// GuardRange
	Column string
	Lo, Hi int64
	// GuardDivisor
	Num, Den GuardOperand
	// Width is the result type of Expr (Int32 or Int64): its bounds are
	// the overflow bounds.
	Width Type
}

// GuardProgram is the error condition of one expression, split from its
// value (docs/adr/0004-error-guards.md): the tests in evaluation order. A
// row set raises what the expression raises over it exactly when some
// test has a failing row; the first such test (in list order), at its
// first failing row, is the error. An empty program means the expression
// cannot raise.
type GuardProgram struct {
	Tests []GuardTest
}

// CompileGuard splits e's error condition from its value over input
// schema s: it returns the program and true when every subexpression of e
// that can raise (docs/semantics.md, Totality, read strictly: every UDF
// call can raise) has a cheap test — a chain of checked add, sub, mul and
// neg of one integer column with integer literals (a range test on the
// column: `a * 2 + 1` fails exactly outside one interval of a), or an
// integer div or mod whose operands are columns or literals (`b = 0`, and
// MinInt / -1). Anything else that can raise — a strict cast, a UDF, abs,
// arithmetic over two computed operands, partial operations inside an
// if() branch, an over() — has no test cheaper than the expression itself,
// and CompileGuard returns false: the error_guards rule then refuses (cell
// pp.guard.cost) and an executor evaluates such a guard in full.
func CompileGuard(e Expr, s Schema) (GuardProgram, bool) {
	size := 0
	Walk(e, func(Expr) bool { size++; return size <= maxGuardExprNodes })
	if size > maxGuardExprNodes {
		return GuardProgram{}, false
	}
	c := guardCompiler{schema: s}
	c.walk(e, false)
	if c.bad {
		return GuardProgram{}, false
	}
	return GuardProgram{Tests: c.tests}, true
}

// maxGuardExprNodes bounds the expressions CompileGuard analyses (it
// types subexpressions repeatedly): a larger one gets no program.
const maxGuardExprNodes = 256

type guardCompiler struct {
	schema Schema
	tests  []GuardTest
	bad    bool
}

// affine is a chain's value as m*x + c over the column x, exactly.
type affine struct {
	col  string
	m, c *big.Int
	// lo, hi: the values of x on which the chain so far raises nothing.
	lo, hi *big.Int
}

// walk visits e in evaluation order (operands left to right, post-order)
// and appends the tests of its partial subexpressions. inBranch is set
// below an if()'s branches, which see only their rows.
func (c *guardCompiler) walk(e Expr, inBranch bool) {
	if c.bad {
		return
	}
	if !c.canRaise(e) {
		return
	}
	if inBranch {
		c.bad = true
		return
	}
	switch x := e.(type) {
	case *Alias:
		c.walk(x.Expr, false)
		return
	case *Call:
		t := c.typeOf(e)
		if isIntArith(x.Fn) && (t == Int32 || t == Int64) {
			if x.Fn == FuncDiv || x.Fn == FuncMod {
				c.divisor(x, t)
				return
			}
			if a, ok := c.chain(e); ok {
				_ = a
				return
			}
			c.bad = true
			return
		}
		if isIntArith(x.Fn) && !t.IsFloat() {
			c.bad = true // temporal or narrow integer arithmetic: no cheap test
			return
		}
		if x.Fn == FuncListSum && t != Float64 {
			c.bad = true // list.sum's overflow: no cheap test
			return
		}
		if x.Fn == FuncTruncate || x.Fn == FuncOffsetBy {
			c.bad = true // temporal_out_of_range: no cheap test
			return
		}
		if x.Fn == FuncIf {
			c.walk(x.Args[0], false)
			c.walk(x.Args[1], true)
			c.walk(x.Args[2], true)
			return
		}
		for _, a := range x.Args {
			c.walk(a, false)
		}
		return
	case *Cast:
		if ft := c.typeOf(x.Expr); x.Strict && CastCanFail(ft, x.To) {
			c.bad = true
			return
		}
		c.walk(x.Expr, false)
		return
	}
	c.bad = true // a UDF or an over(): no cheap test
}

func isIntArith(f Func) bool {
	switch f {
	case FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod, FuncNeg, FuncAbs:
		return true
	}
	return false
}

// canRaise reports whether e can raise at all (strictly: every UDF can).
func (c *guardCompiler) canRaise(e Expr) bool {
	raises := false
	Walk(e, func(x Expr) bool {
		if raises {
			return false
		}
		switch x := x.(type) {
		case *UDFCall, *Over:
			raises = true
		case *Cast:
			if x.Strict && CastCanFail(c.typeOf(x.Expr), x.To) {
				raises = true
			}
		case *Call:
			if x.Fn.IsAggregate() || x.Fn.IsWindow() || x.Fn == FuncTruncate || x.Fn == FuncOffsetBy {
				raises = true
			} else if x.Fn == FuncListSum && c.typeOf(x) != Float64 {
				raises = true // an integer list.sum overflows
			} else if isIntArith(x.Fn) {
				if t := c.typeOf(x); !t.IsFloat() {
					raises = true // integer and temporal arithmetic leave their range
				}
			}
		}
		return !raises
	})
	return raises
}

func (c *guardCompiler) typeOf(e Expr) Type {
	f, err := TypeOf(e, c.schema)
	if err != nil {
		return Invalid
	}
	return f.Type
}

// intLiteral returns the value of a non-null integer literal (through
// widening casts and aliases).
func (c *guardCompiler) intLiteral(e Expr) (int64, bool, bool) {
	switch x := e.(type) {
	case *Literal:
		t := x.Value.Type()
		if t != Int32 && t != Int64 {
			return 0, false, false
		}
		if x.Value.IsNull() {
			return 0, true, true
		}
		return x.Value.Int(), false, true
	case *Cast:
		if t := c.typeOf(x.Expr); (t == Int32 || t == Int64) && (x.To == Int64 || x.To == t) {
			return c.intLiteral(x.Expr)
		}
	}
	return 0, false, false
}

// intColumn returns the name of an integer column e reads as it is
// (through widening casts).
func (c *guardCompiler) intColumn(e Expr) (string, bool) {
	switch x := e.(type) {
	case *Column:
		if f, ok := c.schema.Lookup(x.Name); ok && (f.Type == Int32 || f.Type == Int64) {
			return x.Name, true
		}
	case *Cast:
		if t := c.typeOf(x.Expr); (t == Int32 || t == Int64) && (x.To == Int64 || x.To == t) {
			return c.intColumn(x.Expr)
		}
	}
	return "", false
}

func bounds(t Type) (*big.Int, *big.Int) {
	if t == Int32 {
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	}
	return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
}

// chain compiles an integer add/sub/mul/neg chain of one column with
// literals, appending one range test per operation (evaluation order).
func (c *guardCompiler) chain(e Expr) (affine, bool) {
	if name, ok := c.intColumn(e); ok {
		f, _ := c.schema.Lookup(name)
		lo, hi := bounds(f.Type)
		return affine{col: name, m: big.NewInt(1), c: big.NewInt(0), lo: lo, hi: hi}, true
	}
	if a, ok := e.(*Alias); ok {
		return c.chain(a.Expr)
	}
	call, ok := e.(*Call)
	if !ok {
		return affine{}, false
	}
	t := c.typeOf(e)
	if t != Int32 && t != Int64 {
		return affine{}, false
	}
	var a affine
	switch call.Fn {
	case FuncNeg:
		inner, ok := c.chain(call.Args[0])
		if !ok {
			return affine{}, false
		}
		a = inner
		a.m, a.c = new(big.Int).Neg(a.m), new(big.Int).Neg(a.c)
	case FuncAdd, FuncSub, FuncMul:
		l, r := call.Args[0], call.Args[1]
		lit, null, isLit := c.intLiteral(r)
		litLeft := false
		var inner affine
		if isLit {
			var ok bool
			if inner, ok = c.chain(l); !ok {
				return affine{}, false
			}
		} else {
			lit, null, isLit = c.intLiteral(l)
			if !isLit {
				return affine{}, false
			}
			var ok bool
			if inner, ok = c.chain(r); !ok {
				return affine{}, false
			}
			litLeft = true
		}
		if null {
			return affine{}, false // always null: rare, not worth a test
		}
		a = inner
		L := big.NewInt(lit)
		switch call.Fn {
		case FuncAdd:
			a.c = new(big.Int).Add(a.c, L)
		case FuncSub:
			if litLeft { // L - v
				a.m, a.c = new(big.Int).Neg(a.m), new(big.Int).Sub(L, a.c)
			} else {
				a.c = new(big.Int).Sub(a.c, L)
			}
		case FuncMul:
			a.m, a.c = new(big.Int).Mul(a.m, L), new(big.Int).Mul(a.c, L)
		}
	default:
		return affine{}, false
	}
	// The rows on which this operation raises: x in [lo, hi] (earlier
	// operations passed) with m*x + c outside the result type's bounds.
	minV, maxV := bounds(t)
	lo, hi := solve(a.m, a.c, minV, maxV)
	if lo != nil {
		a.lo, a.hi = maxBig(a.lo, lo), minBig(a.hi, hi)
	} else {
		a.lo, a.hi = big.NewInt(1), big.NewInt(0) // empty
	}
	test := GuardTest{Kind: GuardRange, Expr: e, Column: a.col, Width: t}
	if a.lo.Cmp(a.hi) > 0 {
		test.Lo, test.Hi = 1, 0
	} else {
		test.Lo, test.Hi = a.lo.Int64(), a.hi.Int64()
	}
	c.tests = append(c.tests, test)
	return a, true
}

// solve returns the x with minV <= m*x + c <= maxV as [lo, hi], or nil when
// none.
func solve(m, c, minV, maxV *big.Int) (*big.Int, *big.Int) {
	switch m.Sign() {
	case 0:
		if c.Cmp(minV) >= 0 && c.Cmp(maxV) <= 0 {
			return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
		}
		return nil, nil
	case 1:
		return ceilDiv(new(big.Int).Sub(minV, c), m), floorDiv(new(big.Int).Sub(maxV, c), m)
	default:
		return ceilDiv(new(big.Int).Sub(maxV, c), m), floorDiv(new(big.Int).Sub(minV, c), m)
	}
}

func floorDiv(a, b *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() != 0 && (r.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

func ceilDiv(a, b *big.Int) *big.Int {
	return new(big.Int).Neg(floorDiv(new(big.Int).Neg(a), b))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// divisor compiles an integer div or mod whose operands are columns or
// literals.
func (c *guardCompiler) divisor(call *Call, t Type) {
	var ops [2]GuardOperand
	for i, arg := range call.Args {
		if name, ok := c.intColumn(arg); ok {
			ops[i] = GuardOperand{Column: name}
			continue
		}
		v, null, ok := c.intLiteral(arg)
		if !ok {
			c.bad = true
			return
		}
		ops[i] = GuardOperand{Value: v, Null: null}
	}
	num, den := ops[0], ops[1]
	if num.Null || den.Null {
		return // always null: never raises
	}
	minV := int64(math.MinInt64)
	if t == Int32 {
		minV = math.MinInt32
	}
	if den.Column == "" && den.Value != 0 && (den.Value != -1 || (num.Column == "" && num.Value != minV)) {
		return // a literal divisor that cannot fail
	}
	c.tests = append(c.tests, GuardTest{Kind: GuardDivisor, Expr: call, Num: num, Den: den, Width: t})
}

// String renders a test for traces and tests: "a in [-4611686018427387904,
// 4611686018427387903]" or "b != 0 (a / b)".
func (t GuardTest) String() string {
	switch t.Kind {
	case GuardRange:
		return fmt.Sprintf("%s in [%d, %d] (%s)", quoteName(t.Column), t.Lo, t.Hi, Written(t.Expr))
	case GuardDivisor:
		return fmt.Sprintf("divisor of %s", Written(t.Expr))
	}
	return "invalid guard test"
}
