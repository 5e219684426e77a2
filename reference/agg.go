package reference

import (
	"encoding/binary"
	"math"
	"math/big"
	"sort"

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
	case plan.Float64, plan.Float32:
		f := floatOf(v)
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

// reduce computes one aggregate call over the rows of one group (indices
// into arg, in input order); argType is the argument's static type
// (Invalid for len). kind is "" on success, overflow when an integer sum
// does not fit int64.
func reduce(call *plan.Call, arg []plan.Value, rows []int, argType plan.Type) (plan.Value, plan.ErrorKind) {
	fn := call.Fn
	switch fn {
	case plan.FuncAny, plan.FuncAll:
		// Nulls are ignored: any looks for a true, all for a false.
		want := fn == plan.FuncAny
		for _, r := range rows {
			if x := arg[r]; !x.IsNull() && x.Bool() == want {
				return plan.BoolValue(want), ""
			}
		}
		return plan.BoolValue(!want), ""
	case plan.FuncMedian, plan.FuncQuantile:
		q := 0.5
		if fn == plan.FuncQuantile {
			var ok bool
			if q, ok = numberParam(call); !ok {
				return plan.Value{}, plan.InvalidPlan
			}
		}
		v := nonNullFloats(arg, rows)
		if len(v) == 0 {
			return plan.NullValue(plan.Float64), ""
		}
		return plan.Float64Value(quantile(v, q)), ""
	case plan.FuncVar, plan.FuncStd:
		ddof := 1.0
		if len(call.Args) > 1 {
			var ok bool
			if ddof, ok = numberParam(call); !ok || ddof < 0 {
				return plan.Value{}, plan.InvalidPlan
			}
		}
		v := nonNullFloats(arg, rows)
		if float64(len(v)) <= ddof {
			return plan.NullValue(plan.Float64), ""
		}
		s := variance(v, float64(len(v))-ddof)
		if fn == plan.FuncStd && s == s {
			s = math.Sqrt(s)
		}
		return plan.Float64Value(s), ""
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
	case plan.FuncArgMin, plan.FuncArgMax:
		// The position in the group (every row counted) of the first row
		// holding the best non-null value in the total order.
		var best plan.Value
		at := -1
		for i, r := range rows {
			x := arg[r]
			if x.IsNull() {
				continue
			}
			if at < 0 {
				best, at = x, i
				continue
			}
			if c := compareOrdered(x, best); fn == plan.FuncArgMin && c < 0 || fn == plan.FuncArgMax && c > 0 {
				best, at = x, i
			}
		}
		if at < 0 {
			return plan.NullValue(plan.Int64), ""
		}
		return plan.Int64Value(int64(at)), ""
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
		if isFloat(argType) {
			// A float32 sum is a float64 sum of the values widened.
			vals := make([]plan.Value, len(arg))
			for r, x := range arg {
				vals[r] = promote(x, plan.Float64)
			}
			s, ok := floatSum(vals, rows)
			if !ok {
				return plan.NullValue(plan.Float64), ""
			}
			return plan.Float64Value(s), ""
		}
		// Exact: the total of the group, then one range check of the
		// result type (int64, uint64 for a uint64 sum), so the outcome
		// does not depend on the order of the rows.
		rt := plan.Int64
		if argType == plan.Uint64 {
			rt = plan.Uint64
		}
		total := new(big.Int)
		any := false
		for _, r := range rows {
			if x := arg[r]; !x.IsNull() {
				total.Add(total, bigOf(x))
				any = true
			}
		}
		if !any {
			return plan.NullValue(rt), ""
		}
		v, ok := fromBig(rt, total)
		if !ok {
			return plan.Value{}, plan.Overflow
		}
		return v, ""
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

// numberParam reads an aggregate call's second argument, a numeric
// literal (quantile's q, var's and std's ddof), as float64.
func numberParam(call *plan.Call) (float64, bool) {
	if len(call.Args) != 2 {
		return 0, false
	}
	lit, ok := call.Args[1].(*plan.Literal)
	if !ok || lit.Value.IsNull() {
		return 0, false
	}
	switch v := lit.Value; {
	case isFloat(v.Type()):
		return floatOf(v), true
	case isInt(v.Type()):
		f, _ := new(big.Float).SetInt(bigOf(v)).Float64()
		return f, true
	}
	return 0, false
}

// nonNullFloats returns the group's non-null values converted to float64,
// in row order.
func nonNullFloats(arg []plan.Value, rows []int) []float64 {
	var out []float64
	for _, r := range rows {
		if x := arg[r]; !x.IsNull() {
			out = append(out, promote(x, plan.Float64).Float())
		}
	}
	return out
}

// quantile is the q-quantile by linear interpolation of docs/semantics.md:
// the values sorted stably by the total order (NaNs last, in row order),
// pos = q*(n-1), and the value at floor(pos) when pos is whole, else
// v[i] + f*(v[i+1] - v[i]) under the NaN rule.
func quantile(v []float64, q float64) float64 {
	sort.SliceStable(v, func(i, j int) bool { return compareFloatsTotal(v[i], v[j]) < 0 })
	pos := q * float64(len(v)-1)
	i := math.Floor(pos)
	f := pos - i
	if f == 0 {
		return v[int(i)]
	}
	a, b := v[int(i)], v[int(i)+1]
	return floatArith(plan.FuncAdd, a, floatArith(plan.FuncMul, f, floatArith(plan.FuncSub, b, a)))
}

// variance is docs/semantics.md's two-pass variance of at least one
// value, divided by div (n - ddof): m the mean (as the mean aggregate
// computes it), then the row-order sum, from the first term, of (x - m)^2.
func variance(v []float64, div float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = floatArith(plan.FuncAdd, m, x)
	}
	m = floatArith(plan.FuncDiv, m, float64(len(v)))
	var s float64
	for i, x := range v {
		d := floatArith(plan.FuncSub, x, m)
		d = floatArith(plan.FuncMul, d, d)
		if i == 0 {
			s = d
		} else {
			s = floatArith(plan.FuncAdd, s, d)
		}
	}
	return floatArith(plan.FuncDiv, s, div)
}
