package parquet

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Testing a dictionary-encoded fixed-width column. A tested fixed-width
// column (integers, floats, dates, datetimes...) that is required and
// whose chunk is dictionary encoded throughout is tested like a string
// column (dicttest.go) without decoding its values: the conjuncts, and the
// runtime key filter on it, are evaluated once per dictionary value, and
// each row takes the outcome of its dictionary index. The conjuncts are
// row-wise tests of the one column (parseTest) and a key filter's test is
// its value's membership, so a row's outcome is that of its value. A
// column tested first reads every row's index (unpacked in bulk); one
// tested after others reads only the indices of the rows that passed them
// (where few did, straight from the RLE/bit-packed runs: indicesAt). A key
// filter tested here drops every row it rules out (test may let them all
// through where it rules out few: keysLoose), its cost being per
// dictionary value rather than per row. What the second phase needs is
// kept, so that it gathers the column's values for the surviving rows (or
// every row, where the group is kept whole) without reading its pages
// again: every row's index and a copy of the dictionary where the group
// may be kept whole, else the passing rows' values. Whatever the shortcut does
// not handle (a PLAIN page, an optional column, a malformed page, an index
// past the dictionary, a dictionary larger than the rows read, an
// evaluation error) makes it give up, and the column is decoded and tested
// as before.

// fixedDictRows is what a dictionary test of a fixed-width column
// (fixedDictTest) keeps for the second phase: every row's dictionary index
// and a copy of the dictionary (rows nil), where the group may yet be kept
// whole, or else the values of the rows that passed it (rows, vals).
type fixedDictRows struct {
	rows []int32  // the rows vals holds, in order (nil: idx and dict hold every row)
	vals []byte   // per row of rows: its value, w bytes
	idx  []uint32 // rows nil: per row of the group, its index (< the dictionary's length)
	dict []byte   // rows nil: the dictionary's values, w bytes each
	w    int
	// pooled is idx's slice when it came from idxPool.
	pooled *[]uint32
	bad    bool // narrow failed: the second phase decodes the column from its pages
}

// idxPool holds the slices a first tested column's indices are read into
// (one row group's rows).
var idxPool = sync.Pool{New: func() any { return new([]uint32) }}

// release returns idx to idxPool when it came from there.
func (f *fixedDictRows) release() {
	if f != nil && f.pooled != nil {
		*f.pooled = f.idx[:0]
		idxPool.Put(f.pooled)
		f.pooled, f.idx = nil, nil
	}
}

// narrow keeps the values of the rows keep only (sorted, a subset of
// f.rows, or of the group's rows when f.rows is nil): afterwards rows is
// keep and vals their values. bad is set, and nothing kept, when keep is
// no such subset.
func (f *fixedDictRows) narrow(keep []int32) {
	w := f.w
	if f.rows == nil {
		vals := make([]byte, len(keep)*w)
		for k, r := range keep {
			if int(r) >= len(f.idx) || int(f.idx[r]+1)*w > len(f.dict) {
				f.bad = true
				break
			}
			ix := int(f.idx[r])
			copy(vals[k*w:(k+1)*w], f.dict[ix*w:])
		}
		f.release()
		f.vals, f.dict = vals, nil
	} else {
		// In place: keep[k] is at position k or later in rows.
		p := 0
		for k, r := range keep {
			for p < len(f.rows) && f.rows[p] != r {
				p++
			}
			if p == len(f.rows) {
				f.bad = true
				break
			}
			copy(f.vals[k*w:(k+1)*w], f.vals[p*w:(p+1)*w])
		}
		f.vals = f.vals[:min(len(keep)*w, len(f.vals))]
	}
	f.rows = keep
	if f.bad {
		f.vals = nil
	}
}

// gather writes the values kept into dst (w bytes each): every row's, or
// those of rows; false when dst does not hold exactly that many values.
func (f *fixedDictRows) gather(dst []byte) bool {
	if f.bad {
		return false
	}
	if f.rows != nil {
		if len(dst) != len(f.vals) || len(f.vals) != len(f.rows)*f.w {
			return false
		}
		copy(dst, f.vals)
		return true
	}
	if len(dst) != len(f.idx)*f.w {
		return false
	}
	switch f.w {
	case 4:
		d, v := arrow.Uint32Traits.CastFromBytes(dst), arrow.Uint32Traits.CastFromBytes(f.dict)
		for k, ix := range f.idx {
			d[k] = v[ix]
		}
	case 8:
		d, v := arrow.Uint64Traits.CastFromBytes(dst), arrow.Uint64Traits.CastFromBytes(f.dict)
		for k, ix := range f.idx {
			d[k] = v[ix]
		}
	default:
		return false
	}
	return true
}

// valuesAt returns the values (w bytes each) of the dictionary entries idx
// from the PLAIN dictionary dict.
func valuesAt(dict []byte, idx []uint32, w int) []byte {
	out := make([]byte, len(idx)*w)
	gatherWidth(out, dict, idx, w)
	return out
}

// gatherWidth copies the values (w bytes each, w 4 or 8) of src at the
// positions idx into dst, in order.
func gatherWidth[I int32 | uint32](dst, src []byte, idx []I, w int) {
	switch w {
	case 4:
		d, v := arrow.Uint32Traits.CastFromBytes(dst), arrow.Uint32Traits.CastFromBytes(src)
		for k, ix := range idx {
			d[k] = v[ix]
		}
	case 8:
		d, v := arrow.Uint64Traits.CastFromBytes(dst), arrow.Uint64Traits.CastFromBytes(src)
		for k, ix := range idx {
			d[k] = v[ix]
		}
	}
}

// fixedDictTest is test for a required fixed-width column read straight
// from its pages (see above): the rows keep of the group (nil: all) that
// pass the conjuncts and the key filter of the j-th tested column, in
// order, nil when every row passes or, for the last tested column (last),
// when so many pass that the group is kept whole. On success s.fdict[j]
// holds the indices read, and, for a column tested after others, s.partial
// is set (its indices are of some rows only: the group is not kept whole).
// ok is false when the shortcut gives up.
func (s *groupScratch) fixedDictTest(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, rdr *file.Reader, g int,
	col pqColumn, j int, filt *rowFilter, keep []int32, last bool) (pass []int32, ok bool) {
	w := fixedWidth(col.typ)
	if w == 0 || col.typ == plan.Bool || col.maxDef != 0 || j >= len(s.fdict) {
		return nil, false
	}
	var ks *keySet
	if j < len(filt.keys) {
		ks = filt.keys[j]
	}
	if keep != nil && len(keep) == 0 {
		return keep, true
	}
	end := testedEnd(s.rows, keep)
	pr, sc, closePages, opened := openTestPages(rdr, g, col)
	if !opened {
		return nil, false
	}
	defer func() { closePages(ok) }()
	var dictBytes []byte
	dictN := -1
	var dict []byte     // the dictionary's values (the page reader's)
	var dictPass []byte // per dictionary value: 1 when it passes, else 0
	var all []uint32    // keep nil: every row's index
	var pooled *[]uint32
	defer func() {
		if !ok && pooled != nil {
			*pooled = all[:0]
			idxPool.Put(pooled)
		}
	}()
	if keep == nil {
		pooled = idxPool.Get().(*[]uint32)
		all = *pooled
		if cap(all) < s.rows {
			all = make([]uint32, 0, s.rows)
		}
		all = all[:0]
	}
	out := make([]int32, 0, 64) // the passing rows (non-nil: nil would mean all)
	var outIdx []uint32         // keep non-nil: per passing row, its index
	if keep != nil {
		out = make([]int32, 0, len(keep))
		outIdx = make([]uint32, 0, len(keep))
	}
	ki := 0
	for pos := 0; pos < end; {
		if ctx.Err() != nil {
			return nil, false
		}
		p, ok := nextDataPage(pr, 0, &dictBytes, &dictN)
		if !ok || (p.enc != parquet.Encodings.PlainDict && p.enc != parquet.Encodings.RLEDict) || dictN < 0 {
			return nil, false
		}
		if dictPass == nil {
			if dictN > end || len(dictBytes) < dictN*w {
				return nil, false
			}
			dict = dictBytes[:dictN*w] // the page reader's: copied where kept
			if dictPass, ok = evalFixedDict(ctx, ev, mem, col, dict, dictN, filt, j, ks); !ok {
				return nil, false
			}
		}
		n := min(p.n, end-pos)
		if keep == nil {
			all = all[:pos+n]
			idx := all[pos : pos+n]
			if n > 0 {
				if len(p.values) < 1 || p.values[0] > 32 || !sc.unpackRLE(p.values[1:], int(p.values[0]), idx) {
					return nil, false
				}
			}
			// The passing rows, written without a branch on the outcome.
			sc.lv = grow(sc.lv, n)
			rows := sc.lv
			c := 0
			for i, ix := range idx {
				if ix >= uint32(dictN) {
					return nil, false
				}
				rows[c] = uint32(pos + i)
				c += int(dictPass[ix])
			}
			out = slices.Grow(out, c)
			for _, r := range rows[:c] {
				out = append(out, int32(r))
			}
		} else {
			kj, m, sparse := pageKept(keep, ki, pos, n)
			if sparse {
				// Few rows: only their indices, read from the runs.
				sc.idx = grow(sc.idx, kj-ki)
				if !indicesAt(p.values, keep[ki:kj], pos, sc.idx) {
					return nil, false
				}
				for k, ix := range sc.idx {
					if ix >= uint32(dictN) {
						return nil, false
					}
					if dictPass[ix] != 0 {
						out = append(out, keep[ki+k])
						outIdx = append(outIdx, ix)
					}
				}
			} else if kj > ki {
				// Many: the indices up to the last of them, in bulk.
				if !sc.pageIndices(p.values, m) {
					return nil, false
				}
				for _, r := range keep[ki:kj] {
					ix := sc.idx[int(r)-pos]
					if ix >= uint32(dictN) {
						return nil, false
					}
					if dictPass[ix] != 0 {
						out = append(out, r)
						outIdx = append(outIdx, ix)
					}
				}
			}
			ki = kj
		}
		pos += n
	}
	if keep == nil && len(out)*8 >= s.rows*keepWhole {
		// The group may be kept whole: every row's index is kept, with
		// the dictionary, until its survivors are known (narrow).
		s.fdict[j] = &fixedDictRows{idx: all, dict: slices.Clone(dict), w: w, pooled: pooled}
		if len(out) == s.rows || last {
			return nil, true
		}
		return out, true
	}
	if keep == nil {
		// Few pass: their values only (the group is compacted).
		outIdx = make([]uint32, 0, len(out))
		for _, r := range out {
			outIdx = append(outIdx, all[r])
		}
		*pooled = all[:0]
		idxPool.Put(pooled)
		pooled = nil
	}
	s.fdict[j] = &fixedDictRows{rows: out, vals: valuesAt(dict, outIdx, w), w: w}
	s.partial = true
	return out, true
}

// evalFixedDict evaluates the conjuncts of the j-th tested column (col)
// over the n values of its dictionary (dict, PLAIN: w bytes each) and
// tests them against the key filter ks (nil: none), and returns whether
// each passes (1) or not (0), ok false when the evaluation fails.
func evalFixedDict(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, col pqColumn, dict []byte, n int,
	filt *rowFilter, j int, ks *keySet) ([]byte, bool) {
	out := make([]byte, n)
	for i := range out {
		out[i] = 1
	}
	if len(filt.conj[j]) > 0 {
		a, err := assembleColumn(mem, ops.Parallel{}, col, memory.NewBufferBytes(dict), []*pqUnit{{}}, []int{0, n})
		if err != nil {
			return nil, false
		}
		batch := array.NewRecordBatch(filt.schema[j], []arrow.Array{a}, int64(n))
		a.Release()
		defer batch.Release()
		sel, err := ev.EvalPredicate(ctx, filt.conj[j], batch, 0)
		if err != nil {
			return nil, false
		}
		defer sel.Release()
		bits, o := sel.Data().Buffers()[1].Bytes(), sel.Data().Offset()
		for i := range out {
			if !bitutil.BitIsSet(bits, o+i) {
				out[i] = 0
			}
		}
	}
	if ks != nil {
		// A key filter tests the value as testKeys does: int32 and date
		// values widened, int64 ones as they are.
		switch fixedWidth(col.typ) {
		case 4:
			v := arrow.Int32Traits.CastFromBytes(dict)
			for i := range out {
				if out[i] != 0 && !ks.has(int64(v[i])) {
					out[i] = 0
				}
			}
		case 8:
			v := arrow.Int64Traits.CastFromBytes(dict)
			for i := range out {
				if out[i] != 0 && !ks.has(v[i]) {
					out[i] = 0
				}
			}
		}
	}
	return out, true
}

// indicesAt sets out[k] to the dictionary index of row at[k] of a
// dictionary-encoded page body (a bit-width byte, then RLE/bit-packed
// runs) whose first row is row base: at is sorted, each at least base.
// Only the runs up to the last of them are read, and of a bit-packed run
// only those rows' bits. ok is false when the body is malformed or ends
// before the last of them. It reads what pageIndices would read for those
// rows (FuzzIndicesAt).
func indicesAt(values []byte, at []int32, base int, out []uint32) bool {
	if len(at) == 0 {
		return true
	}
	if len(values) < 1 || values[0] > 32 {
		return false
	}
	bw := int(values[0])
	data := values[1:]
	byteW := (bw + 7) / 8
	mask := uint64(1)<<bw - 1
	pos := uint64(0) // the run's first row, relative to base
	k := 0
	for k < len(at) {
		hdr, m := binary.Uvarint(data)
		if m <= 0 {
			return false
		}
		data = data[m:]
		var end uint64  // one past the run's last row
		if hdr&1 == 0 { // an RLE run
			v, rest, valid := rleValue(data, byteW, mask)
			if !valid {
				return false
			}
			data = rest
			end = pos + hdr>>1
			for k < len(at) && uint64(int(at[k])-base) < end {
				out[k] = v
				k++
			}
		} else {
			groups := hdr >> 1
			if groups > uint64(len(data)) && (bw != 0 || groups > math.MaxInt32) {
				return false
			}
			nbytes := int(groups) * bw
			if nbytes > len(data) {
				return false
			}
			run := data[:nbytes]
			data = data[nbytes:]
			end = pos + groups*8
			for k < len(at) && uint64(int(at[k])-base) < end {
				bit := (uint64(int(at[k])-base) - pos) * uint64(bw)
				b := int(bit >> 3)
				var word uint64
				if b+8 <= len(run) {
					word = binary.LittleEndian.Uint64(run[b:])
				} else {
					for i := 0; b+i < len(run); i++ {
						word |= uint64(run[b+i]) << (8 * i)
					}
				}
				out[k] = uint32(word >> (bit & 7) & mask)
				k++
			}
		}
		if end > 1<<40 {
			// No page holds that many rows: the rows after are past it.
			return k == len(at)
		}
		pos = end
	}
	return true
}
