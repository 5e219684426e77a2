package reference

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// env evaluates row expressions over one input relation. Expressions
// evaluate operand by operand, each operand over all the rows it is given
// (no short-circuit), except if(), whose branches see only their rows.
type env struct {
	ctx    context.Context
	in     *Result
	offset int64
	// all lists every input row (0..Rows-1); a rows argument that is this
	// very slice means "all rows", so a column can be returned unsliced.
	all []int
}

func newEnv(ctx context.Context, in *Result, offset int64) *env {
	return &env{ctx: ctx, in: in, offset: offset, all: iota(nil, in.Rows)}
}

// iota returns the row list 0..n-1, reusing buf when it is long enough (row
// lists are never written, so one backing array serves every node).
func iota(buf []int, n int) []int {
	buf = buf[:cap(buf)]
	if len(buf) < n {
		buf = make([]int, max(n, 2*len(buf)))
		for i := range buf {
			buf[i] = i
		}
	}
	return buf[:n]
}

// isAll reports whether rows is the env's list of every row.
func (v *env) isAll(rows []int) bool {
	return len(rows) == len(v.all) && (len(rows) == 0 || &rows[0] == &v.all[0])
}

// fail builds the error e raises at position k of rows.
func (v *env) fail(kind plan.ErrorKind, e plan.Expr, rows []int, k int, msg string) *plan.Error {
	return evalError(kind, e, int64(rows[k])+v.offset, msg)
}

// eval evaluates e at the given rows (indices into the input, in order) and
// returns one value per row, of e's static type.
func (v *env) eval(e plan.Expr, rows []int) ([]plan.Value, *plan.Error) {
	if err := v.ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	switch e := e.(type) {
	case *plan.Column:
		i := v.in.Schema.Index(e.Name)
		if i < 0 {
			return nil, &plan.Error{Kind: plan.UnknownColumn, Expr: e.String(), Row: -1,
				Msg: fmt.Sprintf("reference: column %q not in the input %v", e.Name, v.in.Schema.Names())}
		}
		col := v.in.Columns[i]
		if v.isAll(rows) {
			return col, nil
		}
		out := make([]plan.Value, len(rows))
		for k, r := range rows {
			out[k] = col[r]
		}
		return out, nil
	case *plan.Literal:
		out := make([]plan.Value, len(rows))
		for k := range out {
			out[k] = e.Value
		}
		return out, nil
	case *plan.Alias:
		return v.eval(e.Expr, rows)
	case *plan.Cast:
		return v.evalCast(e, rows)
	case *plan.UDFCall:
		return v.evalUDF(e, rows)
	case *plan.Call:
		switch {
		case e.Fn == plan.FuncIf:
			return v.evalIf(e, rows)
		case e.Fn.IsAggregate() || e.Fn.IsWindow():
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1,
				Msg: "reference: an aggregate or window function outside an aggregate node or over()"}
		}
		return v.evalCall(e, rows)
	case *plan.Over:
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1,
			Msg: "reference: over() outside a window node (Resolve lifts it into one)"}
	}
	return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: fmt.Sprintf("reference: unknown expression %T", e)}
}

// evalArgs evaluates every argument over the same rows, left to right.
func (v *env) evalArgs(args []plan.Expr, rows []int) ([][]plan.Value, *plan.Error) {
	out := make([][]plan.Value, len(args))
	for i, a := range args {
		vals, err := v.eval(a, rows)
		if err != nil {
			return nil, err
		}
		out[i] = vals
	}
	return out, nil
}

func (v *env) evalCast(e *plan.Cast, rows []int) ([]plan.Value, *plan.Error) {
	in, err := v.eval(e.Expr, rows)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Value, len(in))
	for k, x := range in {
		if x.IsNull() {
			out[k] = plan.NullValue(e.To)
			continue
		}
		r, ok := castValue(x, e.To)
		if !ok {
			if e.Strict {
				return nil, v.fail(plan.InvalidCast, e, rows, k,
					fmt.Sprintf("cannot cast %s %s to %s", x.Type(), x, e.To))
			}
			r = plan.NullValue(e.To)
		}
		out[k] = r
	}
	return out, nil
}

// evalUDF evaluates the arguments, then calls the function once per row, in
// row order. An error, a panic or a value of another type than the declared
// result is a udf_error naming the call.
func (v *env) evalUDF(e *plan.UDFCall, rows []int) ([]plan.Value, *plan.Error) {
	if e.UDF == nil || e.UDF.Fn == nil {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: "reference: a UDF call without a function"}
	}
	args, err := v.evalArgs(e.Args, rows)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Value, len(rows))
	argv := make([]plan.Value, len(args))
	for k := range rows {
		if k&1023 == 1023 {
			if cerr := v.ctx.Err(); cerr != nil {
				return nil, cancelled(cerr)
			}
		}
		for i := range args {
			argv[i] = args[i][k]
		}
		r, cerr := callUDF(v.ctx, e.UDF, argv)
		switch {
		case cerr != nil:
			pe := v.fail(plan.UDFError, e, rows, k, cerr.Error())
			pe.Err = cerr
			return nil, pe
		case r.IsNull():
			r = plan.NullValue(e.UDF.Result)
		case r.Type() != e.UDF.Result:
			return nil, v.fail(plan.UDFError, e, rows, k,
				fmt.Sprintf("%s returned a %s value, it declares %s", e.UDF.Name, r.Type(), e.UDF.Result))
		}
		out[k] = r
	}
	return out, nil
}

// callUDF calls a UDF's function on a copy of the arguments, turning a
// panic into an error.
func callUDF(ctx context.Context, u *plan.UDF, args []plan.Value) (r plan.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v", u.Name, p)
		}
	}()
	return u.Fn(ctx, append([]plan.Value(nil), args...))
}

// evalIf evaluates the condition over all the rows, then the then-branch
// over the rows where it is true, then the else-branch over the rows where
// it is false or null; each branch raises only from its own rows.
func (v *env) evalIf(e *plan.Call, rows []int) ([]plan.Value, *plan.Error) {
	if len(e.Args) != 3 {
		return nil, &plan.Error{Kind: plan.TypeError, Expr: e.String(), Row: -1, Msg: "reference: if takes 3 arguments"}
	}
	cond, err := v.eval(e.Args[0], rows)
	if err != nil {
		return nil, err
	}
	var tRows, eRows []int
	for k, c := range cond {
		if !c.IsNull() && c.Bool() {
			tRows = append(tRows, rows[k])
		} else {
			eRows = append(eRows, rows[k])
		}
	}
	tv, err := v.eval(e.Args[1], tRows)
	if err != nil {
		return nil, err
	}
	ev, err := v.eval(e.Args[2], eRows)
	if err != nil {
		return nil, err
	}
	t := staticType(e, v.in.Schema)
	out := make([]plan.Value, len(rows))
	ti, ei := 0, 0
	for k, c := range cond {
		if !c.IsNull() && c.Bool() {
			out[k] = promote(tv[ti], t)
			ti++
		} else {
			out[k] = promote(ev[ei], t)
			ei++
		}
	}
	return out, nil
}

// evalCall evaluates a non-conditional scalar function: every argument over
// all the rows, then the function row by row.
func (v *env) evalCall(e *plan.Call, rows []int) ([]plan.Value, *plan.Error) {
	args, err := v.evalArgs(e.Args, rows)
	if err != nil {
		return nil, err
	}
	n := len(rows)
	out := make([]plan.Value, n)
	switch e.Fn {
	case plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod:
		if len(args) != 2 {
			break
		}
		return v.arith(e, args[0], args[1], rows)
	case plan.FuncNeg, plan.FuncAbs:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			switch {
			case x.IsNull():
				out[k] = x
			case x.Type() == plan.Float64:
				b := math.Float64bits(x.Float())
				if e.Fn == plan.FuncNeg {
					b ^= 1 << 63
				} else {
					b &^= 1 << 63
				}
				out[k] = plan.Float64Value(math.Float64frombits(b))
			case x.Type() == plan.Float32:
				b := math.Float32bits(x.Float32())
				if e.Fn == plan.FuncNeg {
					b ^= 1 << 31
				} else {
					b &^= 1 << 31
				}
				out[k] = plan.Float32Value(math.Float32frombits(b))
			default:
				r := bigOf(x)
				if e.Fn == plan.FuncNeg {
					r.Neg(r)
				} else {
					r.Abs(r)
				}
				y, ok := fromBig(x.Type(), r)
				if !ok {
					return nil, v.fail(plan.Overflow, e, rows, k, fmt.Sprintf("%s(%s) overflows %s", e.Fn, x, x.Type()))
				}
				out[k] = y
			}
		}
		return out, nil
	case plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe:
		if len(args) != 2 {
			break
		}
		for k := range out {
			a, b := args[0][k], args[1][k]
			if a.IsNull() || b.IsNull() {
				out[k] = plan.NullValue(plan.Bool)
				continue
			}
			c, ordered := compareIEEE(a, b)
			var r bool
			switch e.Fn {
			case plan.FuncEq:
				r = ordered && c == 0
			case plan.FuncNe:
				r = !ordered || c != 0
			case plan.FuncLt:
				r = ordered && c < 0
			case plan.FuncLe:
				r = ordered && c <= 0
			case plan.FuncGt:
				r = ordered && c > 0
			case plan.FuncGe:
				r = ordered && c >= 0
			}
			out[k] = plan.BoolValue(r)
		}
		return out, nil
	case plan.FuncAnd, plan.FuncOr:
		if len(args) != 2 {
			break
		}
		// Kleene: the dominant value (false for and, true for or) wins over
		// null; otherwise a null propagates.
		dominant := e.Fn == plan.FuncOr
		for k := range out {
			a, b := args[0][k], args[1][k]
			switch {
			case (!a.IsNull() && a.Bool() == dominant) || (!b.IsNull() && b.Bool() == dominant):
				out[k] = plan.BoolValue(dominant)
			case a.IsNull() || b.IsNull():
				out[k] = plan.NullValue(plan.Bool)
			default:
				out[k] = plan.BoolValue(!dominant)
			}
		}
		return out, nil
	case plan.FuncNot:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			if x.IsNull() {
				out[k] = plan.NullValue(plan.Bool)
			} else {
				out[k] = plan.BoolValue(!x.Bool())
			}
		}
		return out, nil
	case plan.FuncIsNull, plan.FuncIsNotNull:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			out[k] = plan.BoolValue(x.IsNull() == (e.Fn == plan.FuncIsNull))
		}
		return out, nil
	case plan.FuncIsNaN:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			f := floatOf(x)
			out[k] = plan.BoolValue(!x.IsNull() && f != f)
		}
		return out, nil
	case plan.FuncTruncate, plan.FuncOffsetBy:
		if len(args) != 2 {
			break
		}
		t := staticType(e.Args[0], v.in.Schema)
		step, perr := plan.EveryParam(e, t)
		if perr != nil {
			return nil, &plan.Error{Kind: plan.InvalidPlan, Expr: e.String(), Row: -1, Msg: "reference: " + perr.Error()}
		}
		for k, x := range args[0] {
			if x.IsNull() {
				out[k] = plan.NullValue(t)
				continue
			}
			r, ok := calendarStep(e.Fn, x, step)
			if !ok {
				return nil, v.fail(plan.TemporalOutOfRange, e, rows, k, fmt.Sprintf("reference: %s of %s leaves the range of %s", e.Fn, temporalText(x), t))
			}
			out[k] = r
		}
		return out, nil
	case plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday, plan.FuncHour, plan.FuncMinute, plan.FuncSecond:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			if x.IsNull() {
				out[k] = plan.NullValue(plan.Int32)
			} else {
				out[k] = temporalField(e.Fn, x)
			}
		}
		return out, nil
	case plan.FuncStrLen:
		if len(args) != 1 {
			break
		}
		for k, x := range args[0] {
			if x.IsNull() {
				out[k] = plan.NullValue(plan.Int64)
			} else {
				out[k] = plan.Int64Value(int64(utf8.RuneCountInString(x.Str())))
			}
		}
		return out, nil
	case plan.FuncConcat:
		if len(args) == 0 {
			break
		}
		var sb strings.Builder
	rowsLoop:
		for k := range out {
			sb.Reset()
			for _, a := range args {
				if a[k].IsNull() {
					out[k] = plan.NullValue(plan.String)
					continue rowsLoop
				}
				sb.WriteString(a[k].Str())
			}
			out[k] = plan.StringValue(sb.String())
		}
		return out, nil
	case plan.FuncCoalesce:
		if len(args) == 0 {
			break
		}
		t := staticType(e, v.in.Schema)
		for k := range out {
			out[k] = plan.NullValue(t)
			for _, a := range args {
				if !a[k].IsNull() {
					out[k] = promote(a[k], t)
					break
				}
			}
		}
		return out, nil
	}
	if lo, hi := e.Fn.Arity(); e.Fn.IsNestedFunc() && len(args) >= lo && len(args) <= hi {
		return v.evalNested(e, args, rows)
	}
	if lo, hi := e.Fn.Arity(); len(args) >= lo && (hi < 0 || len(args) <= hi) {
		if out, ok := evalString(e, args, n); ok {
			return out, nil
		}
	}
	return nil, &plan.Error{Kind: plan.TypeError, Expr: e.String(), Row: -1,
		Msg: fmt.Sprintf("reference: %s with %d arguments", e.Fn, len(args))}
}

// arith applies add, sub, mul, div or mod row by row. Division by zero
// wins over overflow (the error depends on the set of rows, not their
// order), and names the first row that divides by zero; any other error
// names the first failing row.
func (v *env) arith(e *plan.Call, a, b []plan.Value, rows []int) ([]plan.Value, *plan.Error) {
	out := make([]plan.Value, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	if t := temporalResult(e.Fn, a[0].Type(), b[0].Type()); t != plan.Invalid {
		return v.temporalArith(e, a, b, rows, t)
	}
	t := promoteType(a[0].Type(), b[0].Type())
	overflowAt := -1
	for k := range out {
		x, y := promote(a[k], t), promote(b[k], t)
		if x.IsNull() || y.IsNull() {
			out[k] = plan.NullValue(t)
			continue
		}
		if isFloat(t) {
			// float32 in float64, rounded once: the same as binary32
			// arithmetic for add, sub, mul and div, exact for mod.
			p, q := floatOf(x), floatOf(y)
			if e.Fn == plan.FuncMod {
				out[k] = floatValue(t, math.Mod(p, q))
			} else {
				out[k] = floatValue(t, floatArith(e.Fn, p, q))
			}
			continue
		}
		r, kind := intArith(e.Fn, bigOf(x), bigOf(y), t)
		switch kind {
		case "":
			out[k] = r
		case plan.DivideByZero:
			return nil, v.fail(kind, e, rows, k, fmt.Sprintf("%s %s %s", x, e.Fn, y))
		default:
			if overflowAt < 0 {
				overflowAt = k
				if e.Fn != plan.FuncDiv && e.Fn != plan.FuncMod {
					return nil, v.fail(kind, e, rows, k, fmt.Sprintf("%s %s %s overflows %s", x, e.Fn, y, t))
				}
			}
		}
	}
	if overflowAt >= 0 {
		x, y := promote(a[overflowAt], t), promote(b[overflowAt], t)
		return nil, v.fail(plan.Overflow, e, rows, overflowAt, fmt.Sprintf("%s %s %s overflows %s", x, e.Fn, y, t))
	}
	return out, nil
}

// staticType is the type an expression evaluates to over a schema,
// following the typing rules of docs/semantics.md (Invalid where the
// expression is ill-typed, which Resolve has ruled out).
func staticType(e plan.Expr, s plan.Schema) plan.Type {
	switch e := e.(type) {
	case *plan.Column:
		if f, ok := s.Lookup(e.Name); ok {
			return f.Type
		}
	case *plan.Literal:
		return e.Value.Type()
	case *plan.Alias:
		return staticType(e.Expr, s)
	case *plan.Cast:
		return e.To
	case *plan.UDFCall:
		if e.UDF != nil {
			return e.UDF.Result
		}
	case *plan.Over:
		return staticType(e.Agg, s)
	case *plan.Call:
		arg := func(i int) plan.Type {
			if i < len(e.Args) {
				return staticType(e.Args[i], s)
			}
			return plan.Invalid
		}
		switch e.Fn {
		case plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod:
			if t := temporalResult(e.Fn, arg(0), arg(1)); t != plan.Invalid {
				return t
			}
			return promoteType(arg(0), arg(1))
		case plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday, plan.FuncHour, plan.FuncMinute, plan.FuncSecond:
			return plan.Int32
		case plan.FuncNeg, plan.FuncAbs, plan.FuncMin, plan.FuncMax, plan.FuncFirst, plan.FuncLast:
			return arg(0)
		case plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe,
			plan.FuncAnd, plan.FuncOr, plan.FuncNot, plan.FuncIsNull, plan.FuncIsNotNull, plan.FuncIsNaN:
			return plan.Bool
		case plan.FuncStartsWith, plan.FuncEndsWith, plan.FuncContains, plan.FuncLike, plan.FuncIsIn, plan.FuncBetween:
			return plan.Bool
		case plan.FuncStrLen, plan.FuncStrLenBytes, plan.FuncCount, plan.FuncLen, plan.FuncNUnique:
			return plan.Int64
		case plan.FuncConcat, plan.FuncLower, plan.FuncUpper, plan.FuncSubstring, plan.FuncReplace, plan.FuncReplaceAll, plan.FuncStrip:
			return plan.String
		case plan.FuncIf:
			return promoteType(arg(1), arg(2))
		case plan.FuncCoalesce:
			t := arg(0)
			for i := 1; i < len(e.Args); i++ {
				t = promoteType(t, arg(i))
			}
			return t
		case plan.FuncCumCount, plan.FuncRowNumber, plan.FuncRank, plan.FuncArgMin, plan.FuncArgMax:
			return plan.Int64
		case plan.FuncCumMin, plan.FuncCumMax, plan.FuncShift, plan.FuncTruncate, plan.FuncOffsetBy:
			return arg(0)
		case plan.FuncCumSum, plan.FuncSum:
			switch a := arg(0); {
			case a == plan.Uint64:
				return plan.Uint64
			case isInt(a):
				return plan.Int64
			case isFloat(a):
				return plan.Float64
			}
			return arg(0)
		case plan.FuncMean, plan.FuncMedian, plan.FuncQuantile, plan.FuncVar, plan.FuncStd:
			return plan.Float64
		case plan.FuncAny, plan.FuncAll, plan.FuncListContains:
			return plan.Bool
		case plan.FuncListLen:
			return plan.Int64
		case plan.FuncListGet, plan.FuncListMin, plan.FuncListMax:
			return arg(0).Elem()
		case plan.FuncListSum:
			// As the sum aggregate: uint64 stays uint64, the other
			// integers sum to int64, the floats to float64.
			switch el := arg(0).Elem(); {
			case el == plan.Uint64:
				return plan.Uint64
			case isFloat(el):
				return plan.Float64
			}
			return plan.Int64
		case plan.FuncStructField:
			if name, err := plan.StructFieldName(e); err == nil {
				if i := arg(0).FieldIndex(name); i >= 0 {
					return arg(0).StructFields()[i].Type
				}
			}
		}
	}
	return plan.Invalid
}
