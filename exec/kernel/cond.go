package kernel

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/dfopt/dfopt/plan"
)

// evalIf evaluates if(c, t, e). The condition is evaluated over all rows;
// each branch only over the rows that take it (c true for t; c false or null
// for e), so a branch never raises for a row it does not own, and its errors
// name the original row. A branch no row takes is not evaluated at all; a
// branch every row takes is evaluated over the input as is; otherwise
// evalOnRows picks how to confine it to its rows.
func (x *evalCtx) evalIf(e *plan.Call, in *input) (datum, error) {
	cond, err := x.eval(e.Args[0], in)
	if err != nil {
		return datum{}, err
	}
	defer cond.release()
	rt, _ := x.analyze(e)
	if cond.isScalar() {
		if in.n == 0 {
			return nullDatum(rt), nil
		}
		branch := e.Args[2]
		if !cond.sc.IsNull() && cond.sc.Bool() {
			branch = e.Args[1]
		}
		return x.evalBranch(branch, in, rt)
	}
	n := in.n
	cv := viewOf(cond)
	takes := alignedBits(cv.bits, cv.boff, n)
	if cv.valid != nil {
		valid := alignedBits(cv.valid, cv.voff, n)
		m := make([]byte, len(takes))
		for i := range m {
			m[i] = takes[i] & valid[i]
		}
		takes = m
	}
	k := bitutil.CountSetBits(takes, 0, n)
	switch k {
	case n:
		return x.evalBranch(e.Args[1], in, rt)
	case 0:
		return x.evalBranch(e.Args[2], in, rt)
	}
	// The else branch's rows: the complement of takes over n rows.
	others := make([]byte, len(takes))
	for i := range others {
		others[i] = ^takes[i]
	}
	if r := n & 7; r != 0 {
		others[len(others)-1] &= 1<<r - 1
	}
	tMode, eMode := x.branchMode(e.Args[1], k, n), x.branchMode(e.Args[2], n-k, n)
	var tIdx, eIdx []int32
	if tMode == onSubset || eMode == onSubset {
		tIdx, eIdx = splitRows(takes, n, k)
	}
	td, err := x.evalOnRows(e.Args[1], in, tMode, takes, tIdx, rt)
	if err != nil {
		return datum{}, err
	}
	defer td.release()
	ed, err := x.evalOnRows(e.Args[2], in, eMode, others, eIdx, rt)
	if err != nil {
		return datum{}, err
	}
	defer ed.release()
	tv, ev := viewOf(td), viewOf(ed)
	var out arrow.Array
	if tMode == onSubset || eMode == onSubset {
		out, err = mergeIf(x.mem, rt, n, &tv, &ev, tIdx, eIdx, tMode != onSubset, eMode != onSubset)
	} else {
		out, err = blendIf(x.mem, rt, n, &tv, &ev, takes)
	}
	if err != nil {
		return datum{}, tooLong(e, err)
	}
	return freshDatum(rt, out), nil
}

// strict reports whether e is null wherever one of the columns it reads is
// null and calls no UDF: built of columns, literals, aliases, casts and
// null-propagating functions (not and/or, is_null, is_not_null, is_nan,
// if or coalesce, which make values out of nulls).
func strict(e plan.Expr) bool {
	switch e := e.(type) {
	case *plan.Column, *plan.Literal:
		return true
	case *plan.Alias:
		return strict(e.Expr)
	case *plan.Cast:
		return strict(e.Expr)
	case *plan.Call:
		switch e.Fn {
		case plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod, plan.FuncNeg, plan.FuncAbs,
			plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe, plan.FuncNot,
			plan.FuncStrLen, plan.FuncConcat, plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday,
			plan.FuncHour, plan.FuncMinute, plan.FuncSecond, plan.FuncStrLenBytes, plan.FuncLower, plan.FuncUpper,
			plan.FuncStartsWith, plan.FuncEndsWith, plan.FuncContains, plan.FuncLike, plan.FuncSubstring,
			plan.FuncReplace, plan.FuncReplaceAll, plan.FuncStrip:
			for _, a := range e.Args {
				if !strict(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// isLeaf reports whether e is a column or a literal, possibly aliased.
func isLeaf(e plan.Expr) bool {
	switch plan.Unalias(e).(type) {
	case *plan.Column, *plan.Literal:
		return true
	}
	return false
}

// splitRows lists the rows whose bit is set (k of them) and the others, in
// order, without a branch per row.
func splitRows(bm []byte, n, k int) (set, unset []int32) {
	set = make([]int32, k+1)
	unset = make([]int32, n-k+1)
	s, u := 0, 0
	for i := 0; i < n; i++ {
		b := int(bm[i>>3] >> (i & 7) & 1)
		set[s] = int32(i)
		unset[u] = int32(i)
		s += b
		u += 1 - b
	}
	return set[:k], unset[:n-k]
}

// evalBranch evaluates a branch every row of in takes, promoted to rt.
func (x *evalCtx) evalBranch(b plan.Expr, in *input, rt plan.Type) (datum, error) {
	d, err := x.eval(b, in)
	if err != nil {
		return datum{}, err
	}
	p := x.promoted(d, rt)
	d.release()
	return p, nil
}

// branchMode is how a branch of if() is confined to its rows.
type branchMode uint8

const (
	// everywhere: the branch cannot raise, so it is evaluated over all rows
	// (the same values on its rows, without gathering its columns).
	everywhere branchMode = iota
	// masked: the branch is strict (every function in it is null in, null
	// out, and it calls no UDF), so it is evaluated over all rows with the
	// other rows' columns masked as null: no checked operation runs on a
	// null, so only the branch's own rows can raise, and a row's value
	// depends on that row alone.
	masked
	// onSubset: anything else is evaluated over the sub-input of its rows.
	onSubset
)

// branchMode picks how to evaluate branch b that k of the n rows take: a
// column or literal everywhere; a total branch everywhere and a strict one
// masked when a quarter of the rows or more take it (below that, gathering
// the rows is cheaper than computing all of them); else on the subset.
func (x *evalCtx) branchMode(b plan.Expr, k, n int) branchMode {
	dense := 4*k >= n
	if _, total := x.analyze(b); total && (isLeaf(b) || dense) {
		return everywhere
	}
	if dense && strict(b) {
		return masked
	}
	return onSubset
}

// evalOnRows evaluates branch b, promoted to rt, for the rows of in that
// rows marks (a bitmap from bit 0) and idx lists (given for onSubset only).
// The result covers all rows of in, except on a subset, where it holds one
// value per row of idx.
func (x *evalCtx) evalOnRows(b plan.Expr, in *input, mode branchMode, rows []byte, idx []int32, rt plan.Type) (datum, error) {
	switch mode {
	case everywhere:
		return x.evalBranch(b, in, rt)
	case masked:
		m := in.masked(rows, firstSet(rows))
		defer m.release()
		return x.evalBranch(b, m, rt)
	}
	sub := in.subset(idx)
	defer sub.release()
	return x.evalBranch(b, sub, rt)
}

// firstSet returns the index of the first set bit of bm (which has one).
func firstSet(bm []byte) int {
	for i, b := range bm {
		if b != 0 {
			return i*8 + bits.TrailingZeros8(b)
		}
	}
	return 0
}

// tooLong reports a string result Arrow's utf8 layout cannot hold (more
// than 2 GiB in one column): a resource limit, not a value error
// (docs/semantics.md, Totality), so it is resource_exhausted.
func tooLong(e plan.Expr, err error) *plan.Error {
	return &plan.Error{Kind: plan.ResourceExhausted, Expr: plan.Written(e), Row: -1, Msg: err.Error()}
}

// coalesce returns, per row, the first non-null operand (all operands have
// been evaluated over all rows), promoted to the common type. Arrow's
// compute has no coalesce (go-deps.md §1.1); this picks a source per row and
// assembles through gather, and returns the first operand itself when it
// has no nulls.
func (x *evalCtx) coalesce(e *plan.Call, in *input, args []datum) (datum, error) {
	rt, _ := x.analyze(e)
	var srcs []datum
	defer func() { releaseAll(srcs) }()
	n := in.n
	for _, a := range args {
		if a.isNullScalar() {
			continue // contributes nothing
		}
		p := x.promoted(a, rt)
		srcs = append(srcs, p)
		if p.isScalar() || p.arr.NullN() == 0 {
			break // every later operand is shadowed
		}
	}
	if len(srcs) == 0 {
		return nullDatum(rt), nil
	}
	if len(srcs) == 1 {
		return retained(srcs[0]), nil
	}
	vs := make([]view, len(srcs))
	for i := range srcs {
		vs[i] = viewOf(srcs[i])
	}
	which := make([]int8, n)
	for i := 0; i < n; i++ {
		which[i] = -1
		for k := range vs {
			j := i
			if vs[k].scalar {
				j = 0
			}
			if vs[k].isValid(j) {
				which[i] = int8(k)
				break
			}
		}
	}
	out, err := gather(x.mem, rt, n, vs, which, nil)
	if err != nil {
		return datum{}, tooLong(e, err)
	}
	return freshDatum(rt, out), nil
}

// analyze returns e's type over the evaluation's schema and whether e is
// total: it can raise on no input. The totality lattice is plan's
// (plan.TypeAndTotality, the one statement the optimizer uses too), with
// no trust in UDF declarations: a branch evaluated on rows it would not
// have met must not be able to raise.
func (x *evalCtx) analyze(e plan.Expr) (plan.Type, bool) {
	return plan.TypeAndTotality(e, x.schema, plan.TrustLanguage)
}
