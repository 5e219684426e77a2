package kernel

import (
	"encoding/binary"

	"github.com/dfopt/dfopt/plan"
)

// isInSmall is the list length up to which is_in scans its values rather
// than hashing them: a handful of compares beats a map lookup.
const isInSmall = 8

// isIn evaluates is_in(x, [v1, ..., vk]) (docs/semantics.md, Sets and
// ranges): null for a null x; true when a non-null vi equals x as eq
// decides, each compared in the promoted type of x and vi; else null when
// some vi is null; else false. The list is literals, so its values are
// read once per call into a set of int64s (integers and temporal values),
// float64s, strings or bools.
func (x *evalCtx) isIn(e *plan.Call, in *input, args []datum) (datum, error) {
	if args[0].isNullScalar() {
		return nullDatum(plan.Bool), nil
	}
	var (
		ints    []int64
		floats  []float64
		strs    []string
		bools   [2]bool
		hasNull bool
		lits    []plan.Value // every non-null element, for the narrower types
	)
	generic := isNarrow(args[0].typ)
	for _, a := range args[1:] {
		av := viewOf(a)
		v := av.valueAt(0) // a literal: a scalar, or one row when folded
		if v.IsNull() {
			hasNull = true
			continue
		}
		lits = append(lits, v)
		generic = generic || isNarrow(a.typ)
		switch a.typ.Physical() {
		case plan.Int32, plan.Int64:
			ints = append(ints, v.Int())
		case plan.Float64:
			floats = append(floats, v.Float())
		case plan.String:
			strs = append(strs, v.Str())
		case plan.Bool:
			bools[b2u(v.Bool())] = true
		}
	}
	xv := viewOf(args[0])
	n := in.n
	buf, out := newBitmap(x.mem, n)
	// out gets the match of every row's value, null rows included (their
	// bits are masked below); integers without float elements take a
	// loop with no call per row.
	switch {
	case generic:
		// An operand of the narrower types: value by value, each pair in
		// its promoted type.
		for i := 0; i < n; i++ {
			r := rowAt(&xv, i)
			if !xv.isValid(r) {
				continue
			}
			v := xv.valueAt(r)
			for _, l := range lits {
				if numEqual(v, l) {
					out[i>>3] |= 1 << (i & 7)
					break
				}
			}
		}
	case !xv.scalar && len(floats) == 0 && xv.typ.Physical() == plan.Int64:
		inInts(out, xv.i64[:n], ints)
	case !xv.scalar && len(floats) == 0 && xv.typ.Physical() == plan.Int32:
		inInts(out, xv.i32[:n], ints)
	case !xv.scalar && xv.typ.Physical() == plan.String && len(strs) <= isInSmall:
		inStrs(out, &xv, n, strs)
	default:
		var test func(i int) bool
		switch xv.typ.Physical() {
		case plan.Int32, plan.Int64:
			// Integer elements compare exactly in int64; float elements
			// with x converted to float64 (its promotion). A temporal x
			// meets only values of its own type, as their integers.
			hasInt, hasFloat := makeSet(ints), makeSet(floats)
			test = func(i int) bool {
				v := intAt(&xv, i)
				return hasInt(v) || hasFloat(float64(v))
			}
		case plan.Float64:
			for _, v := range ints {
				floats = append(floats, float64(v))
			}
			has := makeSet(floats)
			test = func(i int) bool { return has(xv.f64[rowAt(&xv, i)]) }
		case plan.String:
			has := makeSet(strs)
			test = func(i int) bool { return has(xv.str(rowAt(&xv, i))) }
		case plan.Bool:
			test = func(i int) bool { return bools[b2u(xv.boolAt(rowAt(&xv, i)))] }
		default:
			buf.Release()
			return datum{}, internalError(e, "is_in over "+xv.typ.String())
		}
		for i := 0; i < n; i++ {
			if xv.isValid(rowAt(&xv, i)) && test(i) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
	}
	// Valid: x valid, and (without a null in the list) any such row; with
	// one, only the rows that match.
	if xv.scalar {
		if xv.valid != nil { // unreachable: a null scalar returned above
			buf.Release()
			return nullDatum(plan.Bool), nil
		}
		if !hasNull {
			return freshDatum(plan.Bool, makeArray(plan.Bool, n, 0, nil, buf)), nil
		}
	}
	if !hasNull {
		valid := shareValidity(x.mem, &xv)
		return freshDatum(plan.Bool, makeArray(plan.Bool, n, xv.nulls, valid, buf)), nil
	}
	vbuf, bm := newBitmap(x.mem, n)
	copy(bm, out)
	if xv.valid != nil && !xv.scalar {
		xvalid := alignedBits(xv.valid, xv.voff, n)
		for i := range bm {
			bm[i] &= xvalid[i]
		}
	}
	return freshDatum(plan.Bool, makeArray(plan.Bool, n, countNulls(bm, n), vbuf, buf)), nil
}

// inInts sets the bit of every value of xs found in set: a scan for a
// short set, a map for a long one, a block of bools at a time packed
// into out.
func inInts[X int32 | int64](out []byte, xs []X, set []int64) {
	var scratch [block]bool
	var m map[int64]struct{}
	if len(set) > isInSmall {
		m = make(map[int64]struct{}, len(set))
		for _, v := range set {
			m[v] = struct{}{}
		}
	}
	for lo := 0; lo < len(xs); lo += block {
		hi := min(lo+block, len(xs))
		t := scratch[:hi-lo]
		if m != nil {
			for k, v := range xs[lo:hi] {
				_, t[k] = m[int64(v)]
			}
		} else {
			for k, v := range xs[lo:hi] {
				f := false
				for _, w := range set {
					f = f || int64(v) == w
				}
				t[k] = f
			}
		}
		packBools(out[lo>>3:], t)
	}
}

// inStrs sets the bit of every row of the string view xv (n rows, not a
// scalar) whose value is one of set, a short list (a row of the view under
// a null reads as its bytes; the caller masks it), a block of bools at a
// time packed into out. A row of at most 8 bytes, with 8 bytes of data
// from its start, is read as one little-endian word masked to its length
// and compared, with its length, to every element of at most 8 bytes,
// without a branch; the other rows compare lengths, then bytes. (TPC-H
// Q19's is_in(l_shipmode, ["AIR", "AIR REG"]) over lineitem took 15 ns a
// row through makeSet's closure, on unpredictable branches.)
func inStrs(out []byte, xv *view, n int, set []string) {
	var (
		scratch [block]bool
		keys    [isInSmall]uint64
		lens    [isInSmall]int32
	)
	short := 0 // elements of at most 8 bytes, in keys and lens
	for _, w := range set {
		if len(w) > 8 {
			continue // only a row of more than 8 bytes can match it
		}
		var b [8]byte
		copy(b[:], w)
		keys[short], lens[short] = binary.LittleEndian.Uint64(b[:]), int32(len(w))
		short++
	}
	offs, data := xv.offs[:n+1], xv.data
	slow := func(s, e int32) bool {
		for _, w := range set {
			if len(w) == int(e-s) && string(data[s:e]) == w {
				return true
			}
		}
		return false
	}
	keys8, lens8 := keys[:short], lens[:short]
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		t := scratch[:hi-lo]
		o := offs[lo : hi+1]
		for k := range t {
			s, e := o[k], o[k+1]
			l := e - s
			if l > 8 || int(s)+8 > len(data) {
				t[k] = slow(s, e)
				continue
			}
			w := binary.LittleEndian.Uint64(data[s:]) & (^uint64(0) >> (64 - 8*uint(l)))
			var hit byte
			for j, key := range keys8 {
				hit |= b2u(lens8[j] == l) & b2u(key == w)
			}
			t[k] = hit != 0
		}
		packBools(out[lo>>3:], t)
	}
}

// makeSet returns the membership test of vals under Go's ==, which is
// IEEE equality for floats (NaN is in no set, -0.0 and 0.0 are one key):
// a scan for a short list, a map for a long one.
func makeSet[T comparable](vals []T) func(T) bool {
	switch {
	case len(vals) == 0:
		return func(T) bool { return false }
	case len(vals) <= isInSmall:
		return func(v T) bool {
			for _, w := range vals {
				if v == w {
					return true
				}
			}
			return false
		}
	}
	m := make(map[T]struct{}, len(vals))
	for _, v := range vals {
		m[v] = struct{}{}
	}
	return func(v T) bool {
		_, ok := m[v]
		return ok
	}
}

// between evaluates between(x, lo, hi) as x >= lo and x <= hi with the
// comparison and Kleene kernels. A scalar x is broadcast first, so each
// comparison has an array operand.
func (x *evalCtx) between(e *plan.Call, in *input, args []datum) (datum, error) {
	xd := args[0]
	if xd.isScalar() {
		arr, err := broadcast(x.mem, xd.sc, xd.typ, in.n)
		if err != nil {
			return datum{}, tooLong(e, err)
		}
		xd = arrayDatum(xd.typ, arr)
		defer xd.release()
	}
	ge, err := x.compare(&plan.Call{Fn: plan.FuncGe, Args: e.Args[:2]}, xd, args[1])
	if err != nil {
		return datum{}, err
	}
	defer ge.release()
	le, err := x.compare(&plan.Call{Fn: plan.FuncLe, Args: []plan.Expr{e.Args[0], e.Args[2]}}, xd, args[2])
	if err != nil {
		return datum{}, err
	}
	defer le.release()
	if ge.isScalar() && le.isScalar() {
		return nullDatum(plan.Bool), nil // both bounds are null
	}
	return x.kleene(&plan.Call{Fn: plan.FuncAnd}, ge, le)
}

// numEqual is eq of two non-null numbers in their promoted type (IEEE for
// floats: NaN equals nothing, -0.0 equals 0.0).
func numEqual(a, b plan.Value) bool {
	t, ok := plan.Promote(a.Type(), b.Type())
	if !ok {
		return false
	}
	a, b = promoteValue(a, t), promoteValue(b, t)
	switch t {
	case plan.Float32:
		return a.Float32() == b.Float32()
	case plan.Float64:
		return a.Float() == b.Float()
	}
	return a.Int() == b.Int() // one integer type: equal bits, equal values
}
