package kernel

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// predicate evaluates each conjunct over all rows of in, in order, and ANDs
// "valid and true" into one selection bitmap with no nulls. A later
// conjunct is evaluated even where an earlier one already deselected every
// row: it must still raise its errors.
func (x *evalCtx) predicate(conjuncts []plan.Expr, in *input) (*array.Boolean, error) {
	n := in.n
	if len(conjuncts) == 1 {
		d, err := x.eval(conjuncts[0], in)
		if err != nil {
			return nil, err
		}
		if !d.isScalar() && d.arr.NullN() == 0 {
			if b, ok := d.arr.(*array.Boolean); ok {
				return b, nil // already a selection
			}
		}
		defer d.release()
		return x.selection(n, []datum{d}), nil
	}
	ds := make([]datum, 0, len(conjuncts))
	defer func() { releaseAll(ds) }()
	for _, c := range conjuncts {
		d, err := x.eval(c, in)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return x.selection(n, ds), nil
}

// selection ANDs "valid and true" of bool datums over n rows.
func (x *evalCtx) selection(n int, ds []datum) *array.Boolean {
	buf, sel := newBitmap(x.mem, n)
	memory.Set(sel, 0xff)
	for _, d := range ds {
		v := viewOf(d)
		if v.scalar {
			if v.valid != nil || !v.boolAt(0) {
				clear(sel)
			}
			continue
		}
		vals := alignedBits(v.bits, v.boff, n)
		for i := range sel {
			sel[i] &= vals[i]
		}
		if v.valid != nil {
			valid := alignedBits(v.valid, v.voff, n)
			for i := range sel {
				sel[i] &= valid[i]
			}
		}
	}
	if r := n & 7; r != 0 {
		sel[n>>3] &= 1<<r - 1
	}
	return makeArray(plan.Bool, n, 0, nil, buf).(*array.Boolean)
}
