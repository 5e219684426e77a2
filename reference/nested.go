package reference

import (
	"fmt"
	"math/big"

	"github.com/dfopt/dfopt/plan"
)

// The list and struct functions, row at a time, as docs/semantics.md
// (Lists and structs) states them.

// evalNested evaluates list.len, list.get, list.contains, list.sum,
// list.min, list.max and struct.field over already evaluated operands.
func (v *env) evalNested(e *plan.Call, args [][]plan.Value, rows []int) ([]plan.Value, *plan.Error) {
	out := make([]plan.Value, len(rows))
	rt := staticType(e, v.in.Schema)
	for k := range out {
		l := args[0][k]
		if l.IsNull() {
			out[k] = plan.NullValue(rt)
			continue
		}
		elems := l.Elems()
		switch e.Fn {
		case plan.FuncListLen:
			out[k] = plan.Int64Value(int64(len(elems)))
		case plan.FuncListGet:
			i := args[1][k]
			out[k] = plan.NullValue(rt)
			if i.IsNull() {
				continue
			}
			pos := i.Int()
			if pos < 0 {
				pos += int64(len(elems))
			}
			if pos >= 0 && pos < int64(len(elems)) {
				out[k] = elems[pos]
			}
		case plan.FuncListContains:
			x := args[1][k]
			if x.IsNull() {
				out[k] = plan.NullValue(plan.Bool)
				continue
			}
			found := false
			for _, el := range elems {
				if el.IsNull() {
					continue
				}
				if c, ok := compareIEEE(el, x); ok && c == 0 {
					found = true
					break
				}
			}
			out[k] = plan.BoolValue(found)
		case plan.FuncListSum:
			r, err := listSum(elems, rt)
			if err != "" {
				return nil, v.fail(plan.Overflow, e, rows, k, err)
			}
			out[k] = r
		case plan.FuncListMin, plan.FuncListMax:
			out[k] = plan.NullValue(rt)
			for _, el := range elems {
				if el.IsNull() {
					continue
				}
				if out[k].IsNull() {
					out[k] = el
					continue
				}
				c := compareOrdered(el, out[k])
				if (e.Fn == plan.FuncListMin && c < 0) || (e.Fn == plan.FuncListMax && c > 0) {
					out[k] = el
				}
			}
		case plan.FuncStructField:
			name, err := plan.StructFieldName(e)
			if err != nil {
				return nil, &plan.Error{Kind: plan.TypeError, Expr: e.String(), Row: -1, Msg: "reference: " + err.Error()}
			}
			i := l.Type().FieldIndex(name)
			if i < 0 || i >= len(elems) {
				return nil, &plan.Error{Kind: plan.TypeError, Expr: e.String(), Row: -1,
					Msg: fmt.Sprintf("reference: %s has no field %q", l.Type(), name)}
			}
			out[k] = elems[i]
		default:
			return nil, &plan.Error{Kind: plan.TypeError, Expr: e.String(), Row: -1, Msg: "reference: not a list or struct function"}
		}
	}
	return out, nil
}

// listSum adds a list's non-null elements as the sum aggregate adds a
// group: exactly for integers (an overflow message when the total leaves
// rt, int64 or uint64 for a list<uint64>), for floats in float64 (float32
// elements widened), sequentially from the first non-null element; null
// when there is none.
func listSum(elems []plan.Value, rt plan.Type) (plan.Value, string) {
	seen := false
	if rt == plan.Float64 {
		var s float64
		for _, el := range elems {
			if el.IsNull() {
				continue
			}
			f := promote(el, plan.Float64).Float()
			if !seen {
				s, seen = f, true
				continue
			}
			s = floatArith(plan.FuncAdd, s, f)
		}
		if !seen {
			return plan.NullValue(rt), ""
		}
		return plan.Float64Value(s), ""
	}
	total := new(big.Int)
	for _, el := range elems {
		if el.IsNull() {
			continue
		}
		total.Add(total, bigOf(el))
		seen = true
	}
	if !seen {
		return plan.NullValue(rt), ""
	}
	r, ok := fromBig(rt, total)
	if !ok {
		return plan.Value{}, fmt.Sprintf("list.sum of %d elements overflows %s", len(elems), rt)
	}
	return r, ""
}
