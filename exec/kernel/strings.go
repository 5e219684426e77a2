package kernel

import (
	"math"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// strLen counts Unicode code points per row, straight off the offsets and
// data buffers (compute has no string functions; go-deps.md §1.1).
func (x *evalCtx) strLen(a datum) (datum, error) {
	v := viewOf(a)
	n := v.n
	buf, out := newFixed[int64](x.mem, n)
	offs, data := v.offs, v.data
	for i := range out {
		out[i] = int64(utf8.RuneCount(data[offs[i]:offs[i+1]]))
	}
	valid := shareValidity(x.mem, &v)
	return freshDatum(plan.Int64, makeArray(plan.Int64, n, v.nulls, valid, buf)), nil
}

// concat joins its operands row by row; a row is null when any operand is.
// The output is sized exactly in a first pass and filled in a second, so
// the data buffer is allocated once (compute has no string functions).
func (x *evalCtx) concat(e *plan.Call, in *input, args []datum) (datum, error) {
	vs, vbuf, nulls, ok := x.sharedValidity(args, in.n)
	if !ok {
		return nullDatum(plan.String), nil
	}
	n := in.n
	var valid []byte
	if vbuf != nil {
		valid = vbuf.Bytes()
	}
	total := 0
	for i := 0; i < n; i++ {
		if valid != nil && !bitAt(valid, 0, i) {
			continue
		}
		for k := range vs {
			j := i
			if vs[k].scalar {
				j = 0
			}
			total += int(vs[k].offs[j+1] - vs[k].offs[j])
		}
		if total > math.MaxInt32 {
			if vbuf != nil {
				vbuf.Release()
			}
			return datum{}, x.fail(plan.ResourceExhausted, e, in, i, errStringTooLong.Error(), nil)
		}
	}
	obuf, offs := newFixed[int32](x.mem, n+1)
	dbuf, data := newBytes(x.mem, total)
	pos := 0
	for i := 0; i < n; i++ {
		offs[i] = int32(pos)
		if valid != nil && !bitAt(valid, 0, i) {
			continue
		}
		for k := range vs {
			j := i
			if vs[k].scalar {
				j = 0
			}
			pos += copy(data[pos:], vs[k].data[vs[k].offs[j]:vs[k].offs[j+1]])
		}
	}
	offs[n] = int32(pos)
	return arrayDatum(plan.String, makeArray(plan.String, n, nulls, vbuf, obuf, dbuf)), nil
}
