package kernel

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// This file is a deliberately naive row-at-a-time interpreter of
// docs/semantics.md over plan.Values, written independently of the kernels
// (different overflow tests, big.Int for products, no scalars, no
// vectorisation). The property test holds the evaluator to it: vectorised
// evaluation equals row-wise evaluation, values, validity, bits and errors.

// refErr is the reference's error: the identity (kind, expr) and the row.
type refErr struct {
	kind plan.ErrorKind
	expr string
	row  int64
}

func (e *refErr) String() string { return fmt.Sprintf("%s in `%s` at row %d", e.kind, e.expr, e.row) }

// refEval evaluates e over the given rows of cols, operand by operand, each
// operand over all the rows (no short-circuit) except if()'s branches.
type refEnv struct {
	ctx    context.Context
	cols   map[string][]plan.Value
	schema plan.Schema
	offset int64
}

func refEval(env *refEnv, e plan.Expr, rows []int) ([]plan.Value, *refErr) {
	ctx, cols, offset := env.ctx, env.cols, env.offset
	fail := func(kind plan.ErrorKind, k int) *refErr {
		return &refErr{kind: kind, expr: e.String(), row: int64(rows[k]) + offset}
	}
	switch e := e.(type) {
	case *plan.Column:
		out := make([]plan.Value, len(rows))
		for k, r := range rows {
			out[k] = cols[e.Name][r]
		}
		return out, nil
	case *plan.Literal:
		out := make([]plan.Value, len(rows))
		for k := range rows {
			out[k] = e.Value
		}
		return out, nil
	case *plan.Alias:
		return refEval(env, e.Expr, rows)
	case *plan.Cast:
		in, err := refEval(env, e.Expr, rows)
		if err != nil {
			return nil, err
		}
		out := make([]plan.Value, len(rows))
		for k, v := range in {
			r, ok := refCast(v, e.To)
			if !ok {
				if e.Strict {
					return nil, fail(plan.InvalidCast, k)
				}
				r = plan.NullValue(e.To)
			}
			out[k] = r
		}
		return out, nil
	case *plan.UDFCall:
		args := make([][]plan.Value, len(e.Args))
		for i, a := range e.Args {
			v, err := refEval(env, a, rows)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		out := make([]plan.Value, len(rows))
		for k := range rows {
			argv := make([]plan.Value, len(args))
			for i := range args {
				argv[i] = args[i][k]
			}
			v, err := refCallUDF(ctx, e.UDF, argv)
			if err != nil || (!v.IsNull() && v.Type() != e.UDF.Result) {
				return nil, fail(plan.UDFError, k)
			}
			if v.IsNull() {
				v = plan.NullValue(e.UDF.Result)
			}
			out[k] = v
		}
		return out, nil
	case *plan.Call:
		if e.Fn == plan.FuncIf {
			return refIf(env, e, rows)
		}
		args := make([][]plan.Value, len(e.Args))
		for i, a := range e.Args {
			v, err := refEval(env, a, rows)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		out := make([]plan.Value, len(rows))
		var first *refErr
		for k := range rows {
			argv := make([]plan.Value, len(args))
			for i := range args {
				argv[i] = args[i][k]
			}
			v, kind := refCall(e.Fn, argv)
			switch {
			case kind == plan.DivideByZero:
				// Its rows as a set decide the error: a division by
				// zero wins over an overflow on an earlier row.
				return nil, fail(kind, k)
			case kind != "" && first == nil:
				first = fail(kind, k)
			}
			out[k] = v
		}
		if first != nil {
			return nil, first
		}
		return out, nil
	}
	return nil, &refErr{kind: plan.InvalidPlan, expr: e.String(), row: -1}
}

func refCallUDF(ctx context.Context, u *plan.UDF, args []plan.Value) (v plan.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return u.Fn(ctx, args)
}

func refIf(env *refEnv, e *plan.Call, rows []int) ([]plan.Value, *refErr) {
	cond, err := refEval(env, e.Args[0], rows)
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
	tv, err := refEval(env, e.Args[1], tRows)
	if err != nil {
		return nil, err
	}
	ev, err := refEval(env, e.Args[2], eRows)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Value, len(rows))
	ti, ei := 0, 0
	for k, c := range cond {
		var v plan.Value
		if !c.IsNull() && c.Bool() {
			v = tv[ti]
			ti++
		} else {
			v = ev[ei]
			ei++
		}
		out[k] = v
	}
	// Unify the branch types as the result's (the static type).
	f, terr := plan.TypeOf(e, env.schema)
	if terr != nil {
		return nil, &refErr{kind: plan.TypeError, expr: e.String(), row: -1}
	}
	rt := f.Type
	for k := range out {
		out[k] = refPromote(out[k], rt)
	}
	return out, nil
}

func refCommon(a, b plan.Type) plan.Type {
	if a == b {
		return a
	}
	if a == plan.Float64 || b == plan.Float64 {
		return plan.Float64
	}
	return plan.Int64
}

// refPromote widens a numeric value to t (int32->int64, int->float64).
func refPromote(v plan.Value, t plan.Type) plan.Value {
	if v.Type() == t || t == plan.Invalid {
		return v
	}
	if v.IsNull() {
		return plan.NullValue(t)
	}
	switch t {
	case plan.Int64:
		return plan.Int64Value(v.Int())
	case plan.Float64:
		if v.Type() == plan.Float64 {
			return v
		}
		return plan.Float64Value(float64(v.Int()))
	}
	return v
}

// refCall applies a function to one row's operand values.
func refCall(fn plan.Func, a []plan.Value) (plan.Value, plan.ErrorKind) {
	switch fn {
	case plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod:
		t := refCommon(a[0].Type(), a[1].Type())
		x, y := refPromote(a[0], t), refPromote(a[1], t)
		if x.IsNull() || y.IsNull() {
			return plan.NullValue(t), ""
		}
		if t == plan.Float64 {
			p, q := x.Float(), y.Float()
			var r float64
			switch fn {
			case plan.FuncAdd:
				r = p + q
			case plan.FuncSub:
				r = p - q
			case plan.FuncMul:
				r = p * q
			case plan.FuncDiv:
				r = p / q
			case plan.FuncMod:
				return plan.Float64Value(math.Mod(p, q)), ""
			}
			// A NaN operand: the result is the left NaN operand, quieted.
			switch {
			case math.IsNaN(p):
				r = math.Float64frombits(math.Float64bits(p) | 1<<51)
			case math.IsNaN(q):
				r = math.Float64frombits(math.Float64bits(q) | 1<<51)
			}
			return plan.Float64Value(r), ""
		}
		bx, by := big.NewInt(x.Int()), big.NewInt(y.Int())
		r := new(big.Int)
		switch fn {
		case plan.FuncAdd:
			r.Add(bx, by)
		case plan.FuncSub:
			r.Sub(bx, by)
		case plan.FuncMul:
			r.Mul(bx, by)
		case plan.FuncDiv, plan.FuncMod:
			if by.Sign() == 0 {
				return plan.Value{}, plan.DivideByZero
			}
			q, m := new(big.Int).QuoRem(bx, by, new(big.Int)) // truncated, remainder has the dividend's sign
			if fn == plan.FuncDiv {
				r = q
			} else {
				r = m
				// MinInt % -1 is an overflow because MinInt / -1 is.
				if !refFits(q, t) {
					return plan.Value{}, plan.Overflow
				}
			}
		}
		if !refFits(r, t) {
			return plan.Value{}, plan.Overflow
		}
		if t == plan.Int32 {
			return plan.Int32Value(int32(r.Int64())), ""
		}
		return plan.Int64Value(r.Int64()), ""
	case plan.FuncNeg, plan.FuncAbs:
		x := a[0]
		if x.IsNull() {
			return x, ""
		}
		if x.Type() == plan.Float64 {
			b := math.Float64bits(x.Float())
			if fn == plan.FuncNeg {
				b ^= 1 << 63
			} else {
				b &^= 1 << 63
			}
			return plan.Float64Value(math.Float64frombits(b)), ""
		}
		r := big.NewInt(x.Int())
		if fn == plan.FuncNeg || r.Sign() < 0 {
			r.Neg(r)
		}
		if !refFits(r, x.Type()) {
			return plan.Value{}, plan.Overflow
		}
		if x.Type() == plan.Int32 {
			return plan.Int32Value(int32(r.Int64())), ""
		}
		return plan.Int64Value(r.Int64()), ""
	case plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe:
		if a[0].IsNull() || a[1].IsNull() {
			return plan.NullValue(plan.Bool), ""
		}
		var lt, eq, gt bool
		switch {
		case a[0].Type() == plan.String:
			c := strings.Compare(a[0].Str(), a[1].Str())
			lt, eq, gt = c < 0, c == 0, c > 0
		case a[0].Type() == plan.Bool:
			p, q := a[0].Bool(), a[1].Bool()
			lt, eq, gt = !p && q, p == q, p && !q
		case a[0].Type() == plan.Float64 || a[1].Type() == plan.Float64:
			p, q := refPromote(a[0], plan.Float64).Float(), refPromote(a[1], plan.Float64).Float()
			lt, eq, gt = p < q, p == q, p > q
		default:
			p, q := a[0].Int(), a[1].Int()
			lt, eq, gt = p < q, p == q, p > q
		}
		r := map[plan.Func]bool{plan.FuncEq: eq, plan.FuncNe: !eq, plan.FuncLt: lt, plan.FuncLe: lt || eq,
			plan.FuncGt: gt, plan.FuncGe: gt || eq}[fn]
		return plan.BoolValue(r), ""
	case plan.FuncAnd, plan.FuncOr:
		p, q := a[0], a[1]
		dominant := fn == plan.FuncOr // true dominates or, false dominates and
		if (!p.IsNull() && p.Bool() == dominant) || (!q.IsNull() && q.Bool() == dominant) {
			return plan.BoolValue(dominant), ""
		}
		if p.IsNull() || q.IsNull() {
			return plan.NullValue(plan.Bool), ""
		}
		return plan.BoolValue(!dominant), ""
	case plan.FuncNot:
		if a[0].IsNull() {
			return a[0], ""
		}
		return plan.BoolValue(!a[0].Bool()), ""
	case plan.FuncIsNull:
		return plan.BoolValue(a[0].IsNull()), ""
	case plan.FuncIsNotNull:
		return plan.BoolValue(!a[0].IsNull()), ""
	case plan.FuncIsNaN:
		return plan.BoolValue(!a[0].IsNull() && math.IsNaN(a[0].Float())), ""
	case plan.FuncStrLen:
		if a[0].IsNull() {
			return plan.NullValue(plan.Int64), ""
		}
		return plan.Int64Value(int64(utf8.RuneCountInString(a[0].Str()))), ""
	case plan.FuncConcat:
		var sb strings.Builder
		for _, v := range a {
			if v.IsNull() {
				return plan.NullValue(plan.String), ""
			}
			sb.WriteString(v.Str())
		}
		return plan.StringValue(sb.String()), ""
	case plan.FuncCoalesce:
		t := a[0].Type()
		for _, v := range a[1:] {
			t = refCommon(t, v.Type())
		}
		for _, v := range a {
			if !v.IsNull() {
				return refPromote(v, t), ""
			}
		}
		return plan.NullValue(t), ""
	}
	return plan.Value{}, plan.InvalidPlan
}

func refFits(r *big.Int, t plan.Type) bool {
	if t == plan.Int32 {
		return r.IsInt64() && r.Int64() >= math.MinInt32 && r.Int64() <= math.MaxInt32
	}
	return r.IsInt64()
}

// refCast converts one value; ok is false where a strict cast fails.
func refCast(v plan.Value, to plan.Type) (plan.Value, bool) {
	from := v.Type()
	if v.IsNull() {
		return plan.NullValue(to), true
	}
	if from == to {
		return v, true
	}
	switch to {
	case plan.String:
		switch from {
		case plan.Int32, plan.Int64:
			return plan.StringValue(strconv.FormatInt(v.Int(), 10)), true
		case plan.Float64:
			return plan.StringValue(plan.FormatFloat(v.Float())), true
		case plan.Bool:
			return plan.StringValue(strconv.FormatBool(v.Bool())), true
		}
	case plan.Bool:
		switch from {
		case plan.Int32, plan.Int64:
			return plan.BoolValue(v.Int() != 0), true
		case plan.Float64:
			return plan.BoolValue(v.Float() != 0), true
		case plan.String:
			switch v.Str() {
			case "true":
				return plan.BoolValue(true), true
			case "false":
				return plan.BoolValue(false), true
			}
			return plan.Value{}, false
		}
	case plan.Int32, plan.Int64, plan.Float64:
		var r *big.Int
		switch from {
		case plan.Bool:
			r = big.NewInt(0)
			if v.Bool() {
				r = big.NewInt(1)
			}
		case plan.Int32, plan.Int64:
			r = big.NewInt(v.Int())
		case plan.Float64:
			f := v.Float()
			if to == plan.Float64 {
				return v, true
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return plan.Value{}, false
			}
			r, _ = new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
		case plan.String:
			if to == plan.Float64 {
				f, err := strconv.ParseFloat(v.Str(), 64)
				if err != nil {
					return plan.Value{}, false
				}
				return plan.Float64Value(f), true
			}
			var ok bool
			r, ok = new(big.Int).SetString(v.Str(), 10)
			if !ok || !refParseIntSyntax(v.Str()) {
				return plan.Value{}, false
			}
		}
		switch to {
		case plan.Float64:
			return plan.Float64Value(float64(r.Int64())), true
		case plan.Int32:
			if !refFits(r, plan.Int32) {
				return plan.Value{}, false
			}
			return plan.Int32Value(int32(r.Int64())), true
		default:
			if !refFits(r, plan.Int64) {
				return plan.Value{}, false
			}
			return plan.Int64Value(r.Int64()), true
		}
	}
	return plan.Value{}, false
}

// refParseIntSyntax is strconv.ParseInt's base-10 syntax: an optional sign
// and one or more ASCII digits (big.Int.SetString also takes underscores
// and such; this rules them out).
func refParseIntSyntax(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
