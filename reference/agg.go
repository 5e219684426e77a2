package reference

import (
	"encoding/binary"
	"math"

	"github.com/dfopt/dfopt/plan"
)

// appendKey appends the canonical encoding of one key value: values that
// docs/semantics.md calls equal as keys (every NaN, -0.0 and +0.0, two
// nulls) encode identically, and no two other values do. The caller
// promotes values of different types first (join keys).
func appendKey(buf []byte, v plan.Value) []byte {
	if v.IsNull() {
		return append(buf, 'n')
	}
	switch v.Type() {
	case plan.Float64:
		f := v.Float()
		if f != f {
			return append(buf, 'N')
		}
		if f == 0 {
			f = 0 // -0.0 and +0.0 are one key
		}
		return binary.LittleEndian.AppendUint64(append(buf, 'F'), math.Float64bits(f))
	case plan.String:
		buf = binary.AppendUvarint(append(buf, 'S'), uint64(len(v.Str())))
		return append(buf, v.Str()...)
	case plan.Bool:
		if v.Bool() {
			return append(buf, 'T')
		}
		return append(buf, 'B')
	}
	return binary.LittleEndian.AppendUint64(append(buf, 'I'), uint64(v.Int()))
}

// groupRows partitions rows 0..n-1 by the tuple of their key values, nulls
// forming a key like any other: the groups in first-appearance order, each
// group's rows in input order. With no key columns every row is in one
// group (none when n is 0).
func groupRows(keys [][]plan.Value, n int) [][]int {
	index := map[string]int{}
	var groups [][]int
	var buf []byte
	for r := 0; r < n; r++ {
		buf = buf[:0]
		for _, k := range keys {
			buf = appendKey(buf, k[r])
		}
		g, ok := index[string(buf)]
		if !ok {
			g = len(groups)
			index[string(buf)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], r)
	}
	return groups
}

// reduce computes one aggregate over the rows of one group (indices into
// arg, in input order); argType is the argument's static type (Invalid for
// len). kind is "" on success, overflow when an integer sum does not fit
// int64.
func reduce(fn plan.Func, arg []plan.Value, rows []int, argType plan.Type) (plan.Value, plan.ErrorKind) {
	switch fn {
	case plan.FuncLen:
		return plan.Int64Value(int64(len(rows))), ""
	case plan.FuncCount:
		n := int64(0)
		for _, r := range rows {
			if !arg[r].IsNull() {
				n++
			}
		}
		return plan.Int64Value(n), ""
	case plan.FuncNUnique:
		// Distinct as keys are distinct: the canonical key encoding makes
		// every NaN one value, -0.0 equal to +0.0 and a null one value.
		seen := map[string]bool{}
		for _, r := range rows {
			seen[string(appendKey(nil, arg[r]))] = true
		}
		return plan.Int64Value(int64(len(seen))), ""
	case plan.FuncFirst, plan.FuncLast:
		if len(rows) == 0 {
			return plan.NullValue(argType), ""
		}
		if fn == plan.FuncFirst {
			return arg[rows[0]], ""
		}
		return arg[rows[len(rows)-1]], ""
	case plan.FuncMin, plan.FuncMax:
		best, found := plan.NullValue(argType), false
		for _, r := range rows {
			x := arg[r]
			if x.IsNull() {
				continue
			}
			c := 0
			if found {
				c = compareOrdered(x, best)
			}
			// Only a strictly better value replaces the best: among values
			// equal in the total order the first row's bits win.
			if !found || (fn == plan.FuncMin && c < 0) || (fn == plan.FuncMax && c > 0) {
				best, found = x, true
			}
		}
		return best, ""
	case plan.FuncSum:
		if argType == plan.Float64 {
			s, ok := floatSum(arg, rows)
			if !ok {
				return plan.NullValue(plan.Float64), ""
			}
			return plan.Float64Value(s), ""
		}
		// Exact: the total of the group in 128 bits, then one range check,
		// so the outcome does not depend on the order of the rows.
		var total int128
		any := false
		for _, r := range rows {
			if x := arg[r]; !x.IsNull() {
				total = total.add(wide(x.Int()))
				any = true
			}
		}
		if !any {
			return plan.NullValue(plan.Int64), ""
		}
		v, ok := total.fits(plan.Int64)
		if !ok {
			return plan.Value{}, plan.Overflow
		}
		return plan.Int64Value(v), ""
	case plan.FuncMean:
		vals := make([]plan.Value, 0, len(rows))
		idx := make([]int, 0, len(rows))
		for _, r := range rows {
			if x := arg[r]; !x.IsNull() {
				idx = append(idx, len(vals))
				vals = append(vals, promote(x, plan.Float64))
			}
		}
		s, ok := floatSum(vals, idx)
		if !ok {
			return plan.NullValue(plan.Float64), ""
		}
		return plan.Float64Value(floatArith(plan.FuncDiv, s, float64(len(idx)))), ""
	}
	return plan.Value{}, plan.InvalidPlan
}

// floatSum adds the non-null floats of rows sequentially in row order,
// starting from the first of them (not from 0.0), each addition with the
// left-NaN rule and the running sum on the left. ok is false when there is
// no non-null value.
func floatSum(arg []plan.Value, rows []int) (float64, bool) {
	var s float64
	started := false
	for _, r := range rows {
		x := arg[r]
		if x.IsNull() {
			continue
		}
		if !started {
			s, started = x.Float(), true
			continue
		}
		s = floatArith(plan.FuncAdd, s, x.Float())
	}
	return s, started
}
