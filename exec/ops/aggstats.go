package ops

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/ieee"
	"github.com/dfopt/dfopt/plan"
)

// Agg is an aggregate function with its literal parameters: quantile's q
// and var's and std's ddof (docs/semantics.md). Other aggregates ignore
// them.
type Agg struct {
	Fn   plan.Func
	Q    float64 // quantile's q in [0, 1]
	Ddof int64   // var's and std's delta degrees of freedom, >= 0
}

// Plain is fn with the default parameters (ddof 1): every aggregate but
// quantile, whose q has no default.
func Plain(fn plan.Func) Agg { return Agg{Fn: fn, Q: 0.5, Ddof: 1} }

// AggOf reads an aggregate call's function and literal parameters, as
// plan.QuantileParam and plan.DdofParam check them at resolve.
func AggOf(c *plan.Call) (Agg, error) {
	a := Plain(c.Fn)
	var err error
	switch c.Fn {
	case plan.FuncQuantile:
		a.Q, err = plan.QuantileParam(c)
	case plan.FuncVar, plan.FuncStd:
		a.Ddof, err = plan.DdofParam(c)
	}
	return a, err
}

// floatsOf returns a numeric column's values as float64 (integers
// converted, an int64 beyond 2^53 rounded to nearest).
func floatsOf(arg arrow.Array, what string) ([]float64, error) {
	switch a := arg.(type) {
	case *array.Float64:
		return a.Float64Values(), nil
	case *array.Int64:
		out := make([]float64, a.Len())
		for i, x := range a.Int64Values() {
			out[i] = float64(x)
		}
		return out, nil
	case *array.Int32:
		out := make([]float64, a.Len())
		for i, x := range a.Int32Values() {
			out[i] = float64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s of %s", what, typeName(arg))
}

// aggQuantile is the q-quantile of each group's non-null values: the
// values are gathered group by group in row order (a counting sort by
// group id), and quantileOf selects or interpolates in each group's run. No partial state is merged, so the
// bits depend only on each group's rows.
func aggQuantile(mem memory.Allocator, q float64, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	vals, err := floatsOf(arg, "quantile")
	if err != nil {
		return nil, err
	}
	v := validityOf(arg)
	// start[g] .. start[g+1] is group g's run in buf.
	start := make([]int, groups+1)
	for i, g := range ids {
		if v.valid(i) {
			start[g+1]++
		}
	}
	for g := 0; g < groups; g++ {
		start[g+1] += start[g]
	}
	buf := make([]float64, start[groups])
	if groups == 1 {
		n := 0
		v.eachValid(len(ids), func(lo, hi int) { n += copy(buf[n:], vals[lo:hi]) })
	} else {
		next := slices.Clone(start[:groups])
		v.eachValid(len(ids), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g := ids[i]
				buf[next[g]] = vals[i]
				next[g]++
			}
		})
	}
	out := newFixedOut[float64](mem, groups)
	has := make([]bool, groups)
	var keys []uint64
	for g := 0; g < groups; g++ {
		run := buf[start[g]:start[g+1]]
		if len(run) == 0 {
			continue
		}
		out.vals[g], keys = quantileOf(run, q, keys)
		has[g] = true
	}
	return out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has)), nil
}

// quantileOf is the q-quantile of run (docs/semantics.md): in run sorted
// stably by the total order -Inf < ... < -0.0 < +0.0 < ... < +Inf < NaN
// (NaNs last, in row order), with pos = q*(n-1), i = floor(pos) and f =
// pos-i, the value v[i] itself when f is 0, else v[i] + f*(v[i+1]-v[i])
// under the NaN rule. It finds v[i] and v[i+1] without sorting: the
// non-NaN values become their order keys (one to one with their bits), a
// selection finds the i-th key and the smallest key after it, and a
// position among the NaNs reads them in row order. run is reordered;
// keys is scratch space, returned for reuse.
func quantileOf(run []float64, q float64, keys []uint64) (float64, []uint64) {
	keys = keys[:0]
	nans := 0
	for _, x := range run {
		if x != x {
			run[nans] = x // compacted in row order; nans <= the read index
			nans++
			continue
		}
		keys = append(keys, floatSortKey(x))
	}
	m := len(keys)
	pos := q * float64(len(run)-1)
	lo := math.Floor(pos)
	i, f := int(lo), pos-lo
	var a float64
	if i >= m {
		a = run[i-m]
	} else {
		a = fromSortKey(selectKth(keys, i))
	}
	if f == 0 {
		return a, keys
	}
	var b float64
	if i+1 >= m {
		b = run[i+1-m]
	} else {
		b = fromSortKey(slices.Min(keys[i+1:]))
	}
	return ieee.Add(a, ieee.Mul(f, ieee.Sub(b, a))), keys
}

// fromSortKey inverts floatSortKey for a non-NaN value.
func fromSortKey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// selectKth returns the k-th smallest of keys (0-based) and reorders keys
// so that every key after position k is at least it: a quickselect with
// median-of-three pivots and a three-way partition (equal keys stop it at
// once), which sorts the remaining window when it has partitioned more
// than 2 log2(n) + 8 times, so it never goes quadratic. Equal keys are
// equal bits, so which copy it returns does not matter.
func selectKth(keys []uint64, k int) uint64 {
	lo, hi := 0, len(keys)-1
	budget := 2*bits.Len(uint(len(keys))) + 8
	for hi > lo {
		if budget == 0 {
			slices.Sort(keys[lo : hi+1])
			return keys[k]
		}
		budget--
		x, y, z := keys[lo], keys[lo+(hi-lo)/2], keys[hi]
		p := max(min(x, y), min(max(x, y), z))
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch v := keys[i]; {
			case v < p:
				keys[lt], keys[i] = v, keys[lt]
				lt++
				i++
			case v > p:
				keys[i], keys[gt] = keys[gt], v
				gt--
			default:
				i++
			}
		}
		// keys[lo:lt] < p, keys[lt:gt+1] == p, keys[gt+1:hi+1] > p.
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return keys[k]
}

// aggVar is the variance (or with std its square root) of each group's
// non-null values with ddof delta degrees of freedom, in two sequential
// passes in row order: the mean (the mean aggregate's value), then the
// sum of squared deviations from the first one on; null when a group has
// at most ddof values.
func aggVar(mem memory.Allocator, ddof int64, std bool, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	vals, err := floatsOf(arg, "var")
	if err != nil {
		return nil, err
	}
	v := validityOf(arg)
	mean := make([]float64, groups)
	cnt := make([]int64, groups)
	v.eachValid(len(ids), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := ids[i]
			if cnt[g] > 0 {
				mean[g] = ieee.Add(mean[g], vals[i])
			} else {
				mean[g] = vals[i]
			}
			cnt[g]++
		}
	})
	for g, c := range cnt {
		if c > 0 {
			mean[g] = ieee.Div(mean[g], float64(c))
		}
	}
	out := newFixedOut[float64](mem, groups)
	ss := out.vals
	started := make([]bool, groups)
	v.eachValid(len(ids), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := ids[i]
			d := ieee.Sub(vals[i], mean[g])
			sq := ieee.Mul(d, d)
			if started[g] {
				ss[g] = ieee.Add(ss[g], sq)
			} else {
				ss[g], started[g] = sq, true
			}
		}
	})
	has := make([]bool, groups)
	for g, c := range cnt {
		if c <= ddof {
			ss[g] = 0
			continue
		}
		x := ieee.Div(ss[g], float64(c-ddof))
		if std && x == x {
			x = math.Sqrt(x)
		}
		ss[g], has[g] = x, true
	}
	return out.finish(arrow.PrimitiveTypes.Float64, hasBitmap(mem, has)), nil
}

// aggAnyAll is any (a non-null true) or all (no non-null false) of each
// group's bools; never null, nulls ignored.
func aggAnyAll(mem memory.Allocator, isAll bool, arg arrow.Array, ids []int32, groups int) (arrow.Array, error) {
	a, ok := arg.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("any/all of %s", typeName(arg))
	}
	v := validityOf(a)
	bits, off := boolParts(a)
	res := make([]bool, groups)
	if isAll {
		for g := range res {
			res[g] = true
		}
	}
	for i, g := range ids {
		if v.valid(i) && bitAt(bits, off, i) != isAll {
			res[g] = !isAll
		}
	}
	vals := newBitmap(mem, groups)
	for g, b := range res {
		if b {
			vals.bits[g>>3] |= 1 << (g & 7)
		}
	}
	return finishArray(arrow.FixedWidthTypes.Boolean, groups, nil, vals.buf), nil
}
