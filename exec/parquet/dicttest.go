package parquet

import (
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/dfopt/dfopt/exec/kernel"
)

// Testing a dictionary-encoded string column. A tested string column
// whose chunk is dictionary encoded throughout is tested without
// materializing its strings: the conjuncts are evaluated once per
// dictionary value (and once for null, when the column is nullable), and
// each row takes the outcome of its dictionary index. The conjuncts are
// row-wise tests of the one column (parseTest), so a row's outcome is that
// of its value, whichever batch the value is evaluated in. The strings are
// decoded with the untested columns, in readLate's second phase, for the
// rows that pass every test only (decodeStringsAt), or the whole column
// when the group is kept whole: a column tested before others is not
// decoded for the rows they go on to drop. Whatever the shortcut does not handle (a PLAIN page, as after a
// writer's fallback from the dictionary mid-chunk, a malformed page, an
// index past the dictionary, a dictionary larger than the rows read, an
// evaluation error) makes it give up, and the column is decoded and tested
// as before.

// testedEnd is one past the last row a dictionary test reads of a group
// of rows rows: the last of keep, or the group's end when keep is nil.
func testedEnd(rows int, keep []int32) int {
	if keep == nil {
		return rows
	}
	return int(keep[len(keep)-1]) + 1
}

// openTestPages opens the pages of column col in row group g for a
// dictionary test, with a pooled page scratch; closePages(reuse) returns
// the scratch and closes the pages (reuse as openPages' done takes it).
func openTestPages(rdr *file.Reader, g int, col pqColumn) (pr file.PageReader, sc *pageScratch, closePages func(reuse bool), ok bool) {
	pr, done, err := openPages(rdr, g, col)
	if err != nil {
		return nil, nil, nil, false
	}
	sc = pageScratchPool.Get().(*pageScratch)
	return pr, sc, func(reuse bool) {
		pageScratchPool.Put(sc)
		done(reuse)
	}, true
}

// dictTest is test for a string column read straight from its pages (see
// above): the rows keep of the group (nil: all) that pass the conjuncts of
// the j-th tested column, in order, nil when every row passes or, for the
// last tested column, when so many pass that the group is kept whole. ok
// is false when the shortcut gives up.
func (s *groupScratch) dictTest(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, rdr *file.Reader, g int,
	col pqColumn, j int, filt *rowFilter, keep []int32, last bool) (pass []int32, ok bool) {
	if col.dt.ID() != arrow.STRING {
		return nil, false
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
	var dictPass []bool // per dictionary value, then null (nullable columns)
	var offs []int32    // where each dictionary value starts in dictBytes
	var nullPass bool
	var passByte []uint8 // dictPass as 0 or 1, for the branch-free loop
	out := make([]int32, 0, 64)
	outIdx := make([]int32, 0, 64) // per row of out: its dictionary index, -1 for null
	ki := 0
	for pos := 0; pos < end; {
		if ctx.Err() != nil {
			return nil, false
		}
		p, ok := nextDataPage(pr, col.maxDef, &dictBytes, &dictN)
		if !ok {
			return nil, false
		}
		if p.enc != parquet.Encodings.PlainDict && p.enc != parquet.Encodings.RLEDict || dictN < 0 {
			return nil, false
		}
		if dictPass == nil {
			if dictN > end {
				return nil, false
			}
			if offs, ok = dictOffsets(dictBytes, dictN); !ok {
				return nil, false
			}
			if dictPass, ok = evalDict(ctx, ev, mem, dictBytes, offs, col.maxDef > 0, filt, j); !ok {
				return nil, false
			}
			if col.maxDef > 0 {
				nullPass = dictPass[dictN]
			}
		}
		n := min(p.n, end-pos)
		present := n
		if col.maxDef > 0 {
			if present, ok = sc.pageLevels(p, n); !ok {
				return nil, false
			}
		}
		if keep != nil && col.maxDef == 0 {
			// A required column tested after others: where few of the
			// page's rows passed them, only their indices are read, from
			// the runs (indicesAt), and a page none of them is in is not
			// unpacked at all.
			if kj, _, sparse := pageKept(keep, ki, pos, n); kj == ki || sparse {
				sc.idx = grow(sc.idx, kj-ki)
				if !indicesAt(p.values, keep[ki:kj], pos, sc.idx) {
					return nil, false
				}
				for k, ix := range sc.idx {
					if int(ix) >= dictN {
						return nil, false
					}
					if dictPass[ix] {
						out = append(out, keep[ki+k])
						outIdx = append(outIdx, int32(ix))
					}
				}
				ki = kj
				pos += n
				continue
			}
		}
		if !sc.pageIndices(p.values, present) {
			return nil, false
		}
		for _, ix := range sc.idx {
			if int(ix) >= dictN {
				return nil, false
			}
		}
		if keep == nil && col.maxDef == 0 {
			// Every row, all present: each row is written out and kept by
			// advancing past it when its value passes, without a branch
			// on the outcome (which follows the data, unpredictably).
			if passByte == nil {
				passByte = make([]uint8, len(dictPass))
				for i, ok := range dictPass {
					if ok {
						passByte[i] = 1
					}
				}
			}
			// Counted first, so that out and outIdx grow by the passing
			// rows (and the one slot the last write may take past them),
			// not by the page's rows.
			c := 0
			for _, ix := range sc.idx[:n] {
				c += int(passByte[ix])
			}
			o := len(out)
			out, outIdx = slices.Grow(out, c+1)[:o+c+1], slices.Grow(outIdx, c+1)[:o+c+1]
			for i, ix := range sc.idx[:n] {
				out[o], outIdx[o] = int32(pos+i), int32(ix)
				o += int(passByte[ix])
			}
			out, outIdx = out[:o], outIdx[:o]
			pos += n
			continue
		}
		v := 0 // next present value
		for i := range n {
			var ok bool
			ix := int32(-1)
			if col.maxDef == 0 || sc.lv[i] == 1 {
				ix = int32(sc.idx[v])
				ok = dictPass[ix]
				v++
			} else {
				ok = nullPass
			}
			if keep == nil {
				if ok {
					out = append(out, int32(pos+i))
					outIdx = append(outIdx, ix)
				}
			} else if ki < len(keep) && int(keep[ki]) == pos+i {
				if ok {
					out = append(out, int32(pos+i))
					outIdx = append(outIdx, ix)
				}
				ki++
			}
		}
		pos += n
	}
	if keep == nil && (len(out) == s.rows || (last && len(out)*8 >= s.rows*keepWhole)) {
		return nil, true
	}
	if j < len(s.dict) {
		// The passing rows' strings, for the second phase: the
		// dictionary is copied out of the page reader's buffer.
		s.dict[j] = &dictRows{rows: out, idx: outIdx, dict: slices.Clone(dictBytes), offs: offs}
	}
	return out, true
}

// dictRows are the rows of a group that passed a dictionary test
// (dictTest) with their dictionary indices, and the dictionary: enough to
// build the column's strings for any subset of those rows without reading
// its pages again.
type dictRows struct {
	rows []int32 // the passing rows, in order
	idx  []int32 // per row of rows: its dictionary index, -1 for null
	dict []byte  // the PLAIN dictionary page: 4-byte lengths, then bytes
	offs []int32 // per dictionary value: where its bytes start in dict
}

// dictOffsets returns where each of the n values of a PLAIN string
// dictionary page starts (its length precedes it), ok false when the page
// does not parse.
func dictOffsets(dict []byte, n int) ([]int32, bool) {
	offs := make([]int32, 0, n)
	off := 0
	for range n {
		if len(dict)-off < 4 {
			return nil, false
		}
		l := binary.LittleEndian.Uint32(dict[off:])
		off += 4
		if uint64(l) > uint64(len(dict)-off) {
			return nil, false
		}
		offs = append(offs, int32(off))
		off += int(l)
	}
	return offs, true
}

// unit builds the string unit of the rows keep (sorted, a subset of
// d.rows), like decodeStringsAt; ok is false when keep is not such a
// subset or the strings pass the 2 GiB string array limit.
func (d *dictRows) unit(keep []int32, nullable bool) (u pqUnit, ok bool) {
	k := len(keep)
	if nullable {
		u.valid = make([]byte, bitutil.BytesForBits(int64(k)))
	}
	u.offs = make([]int32, k+1)
	data := make([]byte, 0, k*8)
	p := 0
	for i, r := range keep {
		for p < len(d.rows) && d.rows[p] != r {
			p++
		}
		if p == len(d.rows) {
			return pqUnit{}, false
		}
		if ix := d.idx[p]; ix < 0 {
			u.nulls++
		} else {
			s := d.offs[ix]
			l := binary.LittleEndian.Uint32(d.dict[s-4:])
			data = append(data, d.dict[s:s+int32(l)]...)
			if nullable {
				bitutil.SetBit(u.valid, i)
			}
		}
		if len(data) > math.MaxInt32 {
			return pqUnit{}, false
		}
		u.offs[i+1] = int32(len(data))
	}
	u.data = data
	return u, true
}

// evalDict evaluates the conjuncts of the j-th tested column over the
// values of a PLAIN string dictionary page, which start at offs (from
// dictOffsets; each after its 4-byte length), and a null after them when
// nullable, and returns whether each passes, ok false when the evaluation
// fails.
func evalDict(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, dict []byte, offs []int32, nullable bool,
	filt *rowFilter, j int) ([]bool, bool) {
	n := len(offs)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n + 1)
	for _, o := range offs {
		l := binary.LittleEndian.Uint32(dict[o-4:])
		b.BinaryBuilder.Append(dict[o : o+int32(l)])
	}
	rows := n
	if nullable {
		b.AppendNull()
		rows++
	}
	a := b.NewArray()
	batch := array.NewRecordBatch(filt.schema[j], []arrow.Array{a}, int64(rows))
	a.Release()
	defer batch.Release()
	sel, err := ev.EvalPredicate(ctx, filt.conj[j], batch, 0)
	if err != nil {
		return nil, false
	}
	defer sel.Release()
	bits, o := sel.Data().Buffers()[1].Bytes(), sel.Data().Offset()
	out := make([]bool, rows)
	for i := range out {
		out[i] = bitutil.BitIsSet(bits, o+i)
	}
	return out, true
}
