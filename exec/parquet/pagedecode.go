package parquet

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/dfopt/dfopt/plan"
)

// The page decoder. For the common flat cases the scan decodes the data
// pages of a column chunk itself instead of through arrow-go's column chunk
// readers: fixed-width columns (INT32, INT64, FLOAT, DOUBLE) and strings
// (BYTE_ARRAY), PLAIN or dictionary encoded (PLAIN_DICTIONARY,
// RLE_DICTIONARY: RLE/bit-packed indices into a PLAIN dictionary page),
// required or optional with RLE definition levels, in data pages v1 and v2.
// arrow-go's page reader (file.PageReader) still reads, decompresses and
// checks the pages; what is decoded here is the page bodies. The indices of
// a dictionary page are unpacked in bulk and gathered from the dictionary
// page's own buffer (no copy of the dictionary, no per-value conversion),
// fixed-width values go straight into the scan's output, and the scratch
// the levels and indices need is pooled across units.
//
// The decoder is an accelerator, never a second opinion: whatever it does
// not handle (another encoding, booleans, a streamed page, a dictionary
// page that does not parse) or finds malformed (a run past the page's end,
// an index past the dictionary, a chunk with too few rows) makes it give
// the unit up, and the unit is decoded again by the column chunk reader,
// which produces the values, or the error, it always did. The output of
// both is bit for bit the same (TestPageDecoderMatchesReader).

// pageScratch is the pooled scratch of one unit's decode: dictionary
// indices and definition levels of one page.
type pageScratch struct {
	idx []uint32
	lv  []uint32
	pad []byte
	// pairs holds a PLAIN string page's start and end offsets per
	// present value (fastStrings): kept across chunks, so that a chunk
	// of one large page does not regrow it from nothing.
	pairs []int32
}

var pageScratchPool = sync.Pool{New: func() any { return new(pageScratch) }}

// grow returns s resized to n (contents undefined).
func grow(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n, n+n/4)
	}
	return s[:n]
}

// fastPage is one data page's parts for the decoder.
type fastPage struct {
	enc    parquet.Encoding
	n      int    // levels (= rows: flat columns) in the page
	levels []byte // RLE definition levels (nil: required column)
	values []byte
}

// nextDataPage advances pr to the next data page, recording a dictionary
// page met on the way in dict (its PLAIN bytes and value count). ok is
// false at the end of the chunk, on an error, or for a page the decoder
// does not handle.
func nextDataPage(pr file.PageReader, maxDef int16, dict *[]byte, dictN *int) (fastPage, bool) {
	for pr.Next() {
		switch p := pr.Page().(type) {
		case *file.DictionaryPage:
			if parquet.Encoding(p.Encoding()) != parquet.Encodings.Plain && parquet.Encoding(p.Encoding()) != parquet.Encodings.PlainDict {
				return fastPage{}, false
			}
			if p.NumValues() < 0 || *dictN >= 0 {
				return fastPage{}, false // a chunk has one dictionary page at most
			}
			*dict, *dictN = p.Data(), int(p.NumValues())
		case *file.DataPageV1:
			data := p.Data()
			if len(data) != int(p.UncompressedSize()) || p.NumValues() < 0 {
				return fastPage{}, false // a streamed page: Data holds its levels only
			}
			fp := fastPage{enc: parquet.Encoding(p.Encoding()), n: int(p.NumValues())}
			if maxDef > 0 {
				if p.DefinitionLevelEncoding() != parquet.Encodings.RLE || len(data) < 4 {
					return fastPage{}, false
				}
				l := binary.LittleEndian.Uint32(data)
				if uint64(l) > uint64(len(data)-4) {
					return fastPage{}, false
				}
				fp.levels, data = data[4:4+l], data[4+l:]
			}
			fp.values = data
			return fp, true
		case *file.DataPageV2:
			data := p.Data()
			rl, dl := int(p.RepetitionLevelByteLen()), int(p.DefinitionLevelByteLen())
			if len(data) != int(p.UncompressedSize()) || p.NumValues() < 0 || rl < 0 || dl < 0 || rl+dl > len(data) {
				return fastPage{}, false
			}
			fp := fastPage{enc: parquet.Encoding(p.Encoding()), n: int(p.NumValues())}
			if maxDef > 0 {
				fp.levels = data[rl : rl+dl]
			}
			fp.values = data[rl+dl:]
			return fp, true
		default:
			return fastPage{}, false
		}
	}
	return fastPage{}, false
}

// pageLevels decodes the first n definition levels of page p into sc.lv
// and returns how many of them are present (= maxDef, which is 1: flat
// columns), or ok false when they do not decode.
func (sc *pageScratch) pageLevels(p fastPage, n int) (present int, ok bool) {
	sc.lv = grow(sc.lv, n)
	if !sc.unpackRLE(p.levels, 1, sc.lv) {
		return 0, false
	}
	for _, l := range sc.lv {
		present += int(l & 1)
		if l > 1 {
			return 0, false
		}
	}
	return present, true
}

// pageIndices decodes the first n dictionary indices of a dictionary-encoded
// page body (a bit-width byte, then RLE/bit-packed runs) into sc.idx.
func (sc *pageScratch) pageIndices(values []byte, n int) bool {
	sc.idx = grow(sc.idx, n)
	if n == 0 {
		return true
	}
	if len(values) < 1 || values[0] > 32 {
		return false
	}
	return sc.unpackRLE(values[1:], int(values[0]), sc.idx)
}

// unpackRLE decodes len(out) values of bit width bw from the RLE/bit-packed
// hybrid runs in data, false when data ends first or is malformed.
func (sc *pageScratch) unpackRLE(data []byte, bw int, out []uint32) bool {
	mask := uint64(1)<<bw - 1
	return sc.runs(data, bw, len(out), func(pos, m int, v uint32) bool {
		fill := out[pos : pos+m]
		for i := range fill {
			fill[i] = v
		}
		return true
	}, func(pos, m int, src []byte) bool {
		unpack(src, bw, mask, out[pos:pos+m])
		return true
	})
}

// gatherRLE is unpackRLE followed by gather(out, dict, ...) without the
// indices in between: it decodes len(out) dictionary indices of bit width
// bw from the runs in data and sets out[i] to dict[index i], a bit-packed
// run's indices unpacked a block at a time into a small buffer. ok is false
// where unpackRLE or gather would fail: data ends first or is malformed,
// or an index is past the dictionary.
func gatherRLE[T uint32 | uint64](sc *pageScratch, data []byte, bw int, dict, out []T) bool {
	mask := uint64(1)<<bw - 1
	var tmp [1024]uint32
	return sc.runs(data, bw, len(out), func(pos, m int, v uint32) bool {
		if m == 0 {
			return true
		}
		if int(v) >= len(dict) {
			return false
		}
		d := dict[v]
		fill := out[pos : pos+m]
		for i := range fill {
			fill[i] = d
		}
		return true
	}, func(pos, m int, src []byte) bool {
		for c := 0; c < m; c += len(tmp) {
			k := min(len(tmp), m-c)
			unpack(src[c/8*bw:], bw, mask, tmp[:k])
			if !gather(out[pos+c:pos+c+k], dict, tmp[:k], byte(bw)) {
				return false
			}
		}
		return true
	})
}

// runs walks the RLE/bit-packed hybrid runs of bit width bw in data that
// hold the first n values: rle(pos, m, v) for m values v from value pos on,
// packed(pos, m, src) for m bit-packed values from pos on whose bits start
// src, which holds 8 bytes past the last group of 8 values the m reach
// (the page's bytes after the run, or a pad; a bit-packed run of width 0
// goes to rle, as m zeros). It
// returns false when data ends first, a run is malformed, or a callback
// returns false.
func (sc *pageScratch) runs(data []byte, bw, n int, rle func(pos, m int, v uint32) bool, packed func(pos, m int, src []byte) bool) bool {
	byteW := (bw + 7) / 8
	mask := uint64(1)<<bw - 1
	pos := 0
	for pos < n {
		hdr, k := binary.Uvarint(data)
		if k <= 0 {
			return false
		}
		data = data[k:]
		if hdr&1 == 0 { // an RLE run
			cnt := hdr >> 1
			v, rest, valid := rleValue(data, byteW, mask)
			if !valid {
				return false
			}
			data = rest
			m := n - pos
			if cnt < uint64(m) {
				m = int(cnt)
			}
			if !rle(pos, m, v) {
				return false
			}
			pos += m
			continue
		}
		groups := hdr >> 1
		if groups > uint64(len(data)) { // at least one byte a group unless bw is 0
			if bw != 0 || groups > math.MaxInt32 {
				return false
			}
		}
		nbytes := int(groups) * bw
		if nbytes > len(data) {
			return false
		}
		m := n - pos
		if total := int(groups) * 8; total < m {
			m = total
		}
		run := data[:nbytes]
		rest := data // the run and what follows it in the page
		data = data[nbytes:]
		if bw == 0 { // every value 0, no bits
			if !rle(pos, m, 0) {
				return false
			}
			pos += m
			continue
		}
		// Values are read with 8-byte loads, which may reach past the run
		// (what they read there is masked off): the page's bytes after it
		// serve, else the run is padded.
		src := rest
		if need := (m+7)/8*bw + 8; len(src) < need {
			if cap(sc.pad) < need {
				sc.pad = make([]byte, need)
			}
			sc.pad = sc.pad[:need]
			clear(sc.pad[copy(sc.pad, run):])
			src = sc.pad
		}
		if !packed(pos, m, src) {
			return false
		}
		pos += m
	}
	return true
}

// unpack decodes len(out) bit-packed values of width bw (LSB first) from
// src, which holds 8 bytes past the last group of 8 values that out
// reaches. Widths up to 16 are unpacked a group of 8 values at a time
// with two loads (4 values of up to 16 bits fit in 64 bits, from any
// start bit 0 or 4), wider ones with one load per value.
func unpack(src []byte, bw int, mask uint64, out []uint32) {
	i := 0
	if bw <= 16 {
		half := 4 * bw
		for ; i+8 <= len(out); i += 8 {
			base := i / 8 * bw
			w0 := binary.LittleEndian.Uint64(src[base:])
			w1 := binary.LittleEndian.Uint64(src[base+half>>3:]) >> (half & 7)
			o := out[i : i+8 : i+8]
			o[0] = uint32(w0 & mask)
			o[1] = uint32(w0 >> bw & mask)
			o[2] = uint32(w0 >> (2 * bw) & mask)
			o[3] = uint32(w0 >> (3 * bw) & mask)
			o[4] = uint32(w1 & mask)
			o[5] = uint32(w1 >> bw & mask)
			o[6] = uint32(w1 >> (2 * bw) & mask)
			o[7] = uint32(w1 >> (3 * bw) & mask)
		}
	}
	bit := i * bw
	for ; i < len(out); i++ {
		w := binary.LittleEndian.Uint64(src[bit>>3:])
		out[i] = uint32((w >> (bit & 7)) & mask)
		bit += bw
	}
}

// fastFixed decodes the first len(dst) rows of a fixed-width column chunk
// (values of width 4 or 8, as their bits) through pr into dst, recording
// validity in u like decodeFixed. ok is false when the decoder gives up.
func fastFixed[T uint32 | uint64](ctx context.Context, pr file.PageReader, dst []T, maxDef int16, u *pqUnit) bool {
	sc := pageScratchPool.Get().(*pageScratch)
	defer pageScratchPool.Put(sc)
	var dictBytes []byte
	dictN := -1
	var dict []T
	w := 4
	if _, ok := any(dst).([]uint64); ok {
		w = 8
	}
	for pos := 0; pos < len(dst); {
		if ctx.Err() != nil {
			return false
		}
		p, ok := nextDataPage(pr, maxDef, &dictBytes, &dictN)
		if !ok {
			return false
		}
		n := min(p.n, len(dst)-pos)
		present := n
		if maxDef > 0 {
			if present, ok = sc.pageLevels(p, n); !ok {
				return false
			}
		}
		out := dst[pos : pos+present]
		switch p.enc {
		case parquet.Encodings.Plain:
			if len(p.values) < present*w {
				return false
			}
			copy(bytesOf(out), p.values[:present*w])
		case parquet.Encodings.PlainDict, parquet.Encodings.RLEDict:
			if dict, ok = fixedDict(dict, dictBytes, dictN, w); !ok {
				return false
			}
			if present > 0 && (len(p.values) < 1 || p.values[0] > 32 || !gatherRLE(sc, p.values[1:], int(p.values[0]), dict, out)) {
				return false
			}
		default:
			return false
		}
		if maxDef > 0 {
			spread(dst[pos:pos+n], present, sc.lv, 1, u, pos)
		}
		pos += n
	}
	return true
}

// gather sets out[i] = dict[idx[i]], false when an index is past the
// dictionary. When the dictionary holds every index of the page's bit
// width bw, none needs checking.
func gather[T uint32 | uint64](out, dict []T, idx []uint32, bw byte) bool {
	idx = idx[:len(out)]
	if bw < 32 && len(dict) >= 1<<bw {
		dict = dict[:1<<bw]
		for i, ix := range idx {
			out[i] = dict[ix&(1<<bw-1)]
		}
		return true
	}
	for i, ix := range idx {
		if int(ix) >= len(dict) {
			return false
		}
		out[i] = dict[ix]
	}
	return true
}

// bytesOf is the bytes of a slice of 4- or 8-byte values.
func bytesOf[T uint32 | uint64](s []T) []byte {
	switch v := any(s).(type) {
	case []uint32:
		return arrow.Uint32Traits.CastToBytes(v)
	default:
		return arrow.Uint64Traits.CastToBytes(v.([]uint64))
	}
}

// fixedDict is the dictionary of a fixed-width column chunk as values of
// width w: dict when it already holds dictN values, else those read from
// dictBytes; ok is false when there is no dictionary (dictN < 0) or
// dictBytes is too short for it.
func fixedDict[T uint32 | uint64](dict []T, dictBytes []byte, dictN, w int) ([]T, bool) {
	if dictN < 0 {
		return nil, false
	}
	if dict != nil && len(dict) == dictN {
		return dict, true
	}
	if len(dictBytes) < dictN*w {
		return nil, false
	}
	return castBits[T](dictBytes[:dictN*w]), true
}

// castBits views b (whose length is a multiple of the width) as values.
func castBits[T uint32 | uint64](b []byte) []T {
	var s []T
	switch p := any(&s).(type) {
	case *[]uint32:
		*p = arrow.Uint32Traits.CastFromBytes(b)
	case *[]uint64:
		*p = arrow.Uint64Traits.CastFromBytes(b)
	}
	return s
}

// fastStrings decodes a string column chunk through pr into u.offs and
// u.data like decodeStrings (keep nil: the first rows rows) or like
// decodeStringsAt (keep: only those rows of the group, sorted, rows being
// one past the last of them). sizeHint is the bytes to reserve for the
// strings at first (0: none). ok is false when the decoder gives up.
func fastStrings(ctx context.Context, pr file.PageReader, rows int, keep []int32, maxDef int16, sizeHint int, u *pqUnit) bool {
	sc := pageScratchPool.Get().(*pageScratch)
	defer pageScratchPool.Put(sc)
	var dictBytes []byte
	dictN := -1
	var dictOffs []int32 // per dictionary value: the start of its bytes in dictBytes (its length precedes them)
	var dictParsed bool
	var oneByte []byte // when every dictionary value is one byte long: those bytes
	outRows := rows
	if keep != nil {
		outRows = len(keep)
	}
	u.offs = make([]int32, outRows+1)
	data := make([]byte, 0, max(outRows*4, sizeHint))
	ki, oi := 0, 0 // next kept row, next output row
	for pos := 0; pos < rows; {
		if ctx.Err() != nil {
			return false
		}
		p, ok := nextDataPage(pr, maxDef, &dictBytes, &dictN)
		if !ok {
			return false
		}
		n := min(p.n, rows-pos)
		present := n
		if maxDef > 0 {
			if present, ok = sc.pageLevels(p, n); !ok {
				return false
			}
		}
		// The page's present values as (source bytes, start/end pairs).
		var src []byte
		var pairs []int32
		var dictIdx []uint32
		switch p.enc {
		case parquet.Encodings.Plain:
			vals := slices.Grow(sc.pairs[:0], 2*present)
			b := p.values
			off := 0
			for range present {
				if len(b)-off < 4 {
					return false
				}
				l := binary.LittleEndian.Uint32(b[off:])
				off += 4
				if uint64(l) > uint64(len(b)-off) {
					return false
				}
				vals = append(vals, int32(off), int32(off+int(l)))
				off += int(l)
			}
			src, pairs, sc.pairs = b, vals, vals
		case parquet.Encodings.PlainDict, parquet.Encodings.RLEDict:
			if dictN < 0 {
				return false
			}
			if !dictParsed {
				dictOffs = make([]int32, 0, dictN+1)
				off := 0
				for range dictN {
					if len(dictBytes)-off < 4 {
						return false
					}
					l := binary.LittleEndian.Uint32(dictBytes[off:])
					off += 4
					if uint64(l) > uint64(len(dictBytes)-off) {
						return false
					}
					dictOffs = append(dictOffs, int32(off))
					off += int(l)
				}
				dictParsed = true
				oneByte = make([]byte, 0, dictN)
				for _, o := range dictOffs {
					if binary.LittleEndian.Uint32(dictBytes[o-4:]) != 1 {
						oneByte = nil
						break
					}
					oneByte = append(oneByte, dictBytes[o])
				}
			}
			if keep != nil && maxDef == 0 {
				// Some rows of a required column: where the page holds few
				// of them (or none), only their indices are read, from
				// the runs, and the page is not unpacked.
				if kj, _, sparse := pageKept(keep, ki, pos, n); kj == ki || sparse {
					sc.idx = grow(sc.idx, kj-ki)
					if kj > ki && !indicesAt(p.values, keep[ki:kj], pos, sc.idx) {
						return false
					}
					for _, ix := range sc.idx {
						if int(ix) >= dictN {
							return false
						}
						s := dictOffs[ix]
						data = append(data, dictBytes[s:s+int32(binary.LittleEndian.Uint32(dictBytes[s-4:]))]...)
						if len(data) > math.MaxInt32 {
							return false
						}
						oi++
						u.offs[oi] = int32(len(data))
					}
					ki = kj
					pos += n
					continue
				}
			}
			if !sc.pageIndices(p.values, present) {
				return false
			}
			for _, ix := range sc.idx {
				if int(ix) >= dictN {
					return false
				}
			}
			src, dictIdx = dictBytes, sc.idx
		default:
			return false
		}
		// value j's bytes
		get := func(j int) []byte {
			if dictIdx != nil {
				s := dictOffs[dictIdx[j]]
				l := binary.LittleEndian.Uint32(src[s-4:])
				return src[s : s+int32(l)]
			}
			return src[pairs[2*j]:pairs[2*j+1]]
		}
		j := 0
		if keep == nil && maxDef == 0 && dictIdx != nil && oneByte != nil {
			// Every row, all present, one byte each (flags, codes): a
			// table lookup per row.
			if len(data)+n > math.MaxInt32 {
				return false
			}
			end := len(data)
			data = slices.Grow(data, n)[:end+n]
			out, offs := data[end:end+n], u.offs[pos+1:pos+1+n]
			for i, ix := range dictIdx[:n] {
				out[i] = oneByte[ix]
				offs[i] = int32(end + i + 1)
			}
		} else if keep == nil && maxDef == 0 && dictIdx != nil {
			// The common case: every row, all present, from the
			// dictionary: the page's bytes sized first, then copied.
			total := 0
			for _, ix := range dictIdx[:n] {
				s := dictOffs[ix]
				total += int(binary.LittleEndian.Uint32(src[s-4:]))
			}
			if len(data)+total > math.MaxInt32 {
				return false
			}
			data = slices.Grow(data, total)
			end := len(data)
			data = data[:end+total]
			offs := u.offs[pos+1 : pos+1+n]
			for i, ix := range dictIdx[:n] {
				s := dictOffs[ix]
				l := int(binary.LittleEndian.Uint32(src[s-4:]))
				if l == 1 {
					data[end] = src[s]
				} else {
					copy(data[end:end+l], src[s:])
				}
				end += l
				offs[i] = int32(end)
			}
		} else if keep == nil && maxDef == 0 {
			// Every row, all present, from PLAIN pages: sized first
			// (the pairs' spans), so that appending never regrows.
			total := 0
			for i := range n {
				total += int(pairs[2*i+1] - pairs[2*i])
			}
			if len(data)+total > math.MaxInt32 {
				return false
			}
			data = slices.Grow(data, total)
			for i := range n {
				data = append(data, get(i)...)
				u.offs[pos+i+1] = int32(len(data))
				if len(data) > math.MaxInt32 {
					return false
				}
			}
		} else if keep != nil && maxDef == 0 {
			// Some rows of a required column: the page's kept rows, each
			// its own value, without walking the rows between them.
			kj, _, _ := pageKept(keep, ki, pos, n)
			for _, r := range keep[ki:kj] {
				if int(r) < pos {
					return false // keep is not sorted
				}
				data = append(data, get(int(r)-pos)...)
				if len(data) > math.MaxInt32 {
					return false
				}
				oi++
				u.offs[oi] = int32(len(data))
			}
			ki = kj
		} else {
			if keep == nil {
				// Every row: the page's present values sized first.
				total := 0
				for v := range present {
					total += len(get(v))
				}
				if len(data)+total > math.MaxInt32 {
					return false
				}
				data = slices.Grow(data, total)
			}
			for i := range n {
				pres := maxDef == 0 || sc.lv[i] == 1
				if keep == nil || (ki < len(keep) && int(keep[ki]) == pos+i) {
					if pres {
						data = append(data, get(j)...)
						if maxDef > 0 {
							bitutil.SetBit(u.valid, oi)
						}
					} else {
						u.nulls++
					}
					if len(data) > math.MaxInt32 {
						return false
					}
					oi++
					ki++
					u.offs[oi] = int32(len(data))
				}
				if pres {
					j++
				}
			}
		}
		pos += n
	}
	u.data = data
	return true
}

// pooledPages is a page reader with the buffered stream it reads a column
// chunk through, kept across units so that its buffers (the compressed
// page, the decompressed data and dictionary pages) are allocated once
// rather than for every chunk.
type pooledPages struct {
	br parquet.BufferedReader
	pr file.PageReader
}

// pagesPool holds page readers between units. Their buffers come from the
// default allocator, not the query's: like scratchPool's, they are scratch
// that outlives a query.
var pagesPool sync.Pool

// pageStreamBuffer is the buffer of a pooled page reader's stream: page
// headers are read through it, page bodies larger than it straight from
// the file.
const pageStreamBuffer = 32 << 10

// openPages returns a page reader over column col's chunk of row group g
// and the function to call when done with it (reuse false after a failure:
// the reader is then dropped, not pooled). With the file at hand (col.src) and
// a chunk that is neither encrypted nor written by a parquet-mr affected by
// PARQUET-816 (whose chunk sizes need padding), a pooled reader is reset to
// stream the chunk from the file; otherwise the file.Reader makes one.
func openPages(rdr *file.Reader, g int, col pqColumn) (file.PageReader, func(reuse bool), error) {
	md := rdr.MetaData()
	cc, err := md.RowGroup(g).ColumnChunk(col.leaf)
	if err != nil {
		return nil, nil, err
	}
	if col.src == nil || cc.CryptoMetadata() != nil || md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		pr, err := rdr.RowGroup(g).GetColumnPageReader(col.leaf)
		if err != nil {
			return nil, nil, err
		}
		return pr, func(bool) { pr.Close() }, nil
	}
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
		start = cc.DictionaryPageOffset()
	}
	size := cc.TotalCompressedSize()
	if start < 0 || size < 0 {
		return nil, nil, fmt.Errorf("column chunk at offset %d of %d bytes", start, size)
	}
	p, _ := pagesPool.Get().(*pooledPages)
	if p == nil {
		props := parquet.NewReaderProperties(memory.DefaultAllocator)
		props.BufferedStreamEnabled = true
		props.BufferSize = pageStreamBuffer
		br, err := props.GetStream(col.src, start, size)
		if err != nil {
			return nil, nil, err
		}
		pr, err := file.NewPageReader(br, cc.NumValues(), cc.Compression(), memory.DefaultAllocator, nil)
		if err != nil {
			return nil, nil, err
		}
		p = &pooledPages{br: br, pr: pr}
	} else {
		p.br.Reset(io.NewSectionReader(col.src, start, size))
		p.pr.Reset(p.br, cc.NumValues(), cc.Compression(), nil)
		if err := p.pr.Err(); err != nil {
			return nil, nil, err // the codec: the reader is dropped
		}
	}
	return p.pr, func(reuse bool) {
		if reuse {
			pagesPool.Put(p)
		}
	}, nil
}

// decodeFast decodes a unit like decodeUnit with the page decoder, ok false
// (u unset) when the decoder gives the unit up.
func decodeFast(ctx context.Context, rdr *file.Reader, g int, col pqColumn, buf []byte, rows int) (u pqUnit, ok bool) {
	if col.typ == plan.Bool {
		return pqUnit{}, false
	}
	pr, done, err := openPages(rdr, g, col)
	if err != nil {
		return pqUnit{}, false
	}
	defer func() { done(ok) }()
	if col.maxDef > 0 {
		u.valid = make([]byte, bitutil.BytesForBits(int64(rows)))
	}
	switch fixedWidth(col.typ) {
	case 4:
		ok = fastFixed(ctx, pr, arrow.Uint32Traits.CastFromBytes(buf)[:rows], col.maxDef, &u)
	case 8:
		ok = fastFixed(ctx, pr, arrow.Uint64Traits.CastFromBytes(buf)[:rows], col.maxDef, &u)
	default:
		// The chunk's uncompressed bytes bound a PLAIN chunk's strings:
		// the buffer is sized once rather than regrown page by page (up
		// to 64 bytes a row, so that a footer's false size cannot make
		// it large).
		hint := 0
		if cc, err := rdr.MetaData().RowGroup(g).ColumnChunk(col.leaf); err == nil {
			hint = int(min(max(cc.TotalUncompressedSize(), 0), int64(rows)*64+4096))
		}
		ok = fastStrings(ctx, pr, rows, nil, col.maxDef, hint, &u)
	}
	if !ok {
		return pqUnit{}, false
	}
	return u, true
}

// decodeStringsFast is decodeStringsAt with the page decoder, ok false
// when the decoder gives the unit up.
func decodeStringsFast(ctx context.Context, rdr *file.Reader, g int, col pqColumn, keep []int32) (u pqUnit, ok bool) {
	pr, done, err := openPages(rdr, g, col)
	if err != nil {
		return pqUnit{}, false
	}
	defer func() { done(ok) }()
	k := len(keep)
	if col.maxDef > 0 {
		u.valid = make([]byte, bitutil.BytesForBits(int64(k)))
	}
	end := 0
	if k > 0 {
		end = int(keep[k-1]) + 1
	}
	if !fastStrings(ctx, pr, end, keep, col.maxDef, 0, &u) {
		return pqUnit{}, false
	}
	return u, true
}

// fastFixedAt decodes the rows keep (sorted rows of the chunk) of a
// required fixed-width column chunk through pr into dst (one value per
// kept row): the pages after the last kept row are not read, and of a
// dictionary-encoded page only the kept rows' values are gathered. ok is
// false when the decoder gives up.
func fastFixedAt[T uint32 | uint64](ctx context.Context, pr file.PageReader, dst []T, keep []int32) bool {
	sc := pageScratchPool.Get().(*pageScratch)
	defer pageScratchPool.Put(sc)
	var dictBytes []byte
	dictN := -1
	var dict []T
	w := 4
	if _, ok := any(dst).([]uint64); ok {
		w = 8
	}
	if len(keep) == 0 {
		return true
	}
	end := int(keep[len(keep)-1]) + 1
	ki := 0
	for pos := 0; pos < end; {
		if ctx.Err() != nil {
			return false
		}
		p, ok := nextDataPage(pr, 0, &dictBytes, &dictN)
		if !ok {
			return false
		}
		n := min(p.n, end-pos)
		kj, m, sparse := pageKept(keep, ki, pos, n)
		switch p.enc {
		case parquet.Encodings.Plain:
			if len(p.values) < n*w {
				return false
			}
			vals := castBits[T](p.values[:n*w])
			for k := ki; k < kj; k++ {
				dst[k] = vals[int(keep[k])-pos]
			}
		case parquet.Encodings.PlainDict, parquet.Encodings.RLEDict:
			if dict, ok = fixedDict(dict, dictBytes, dictN, w); !ok {
				return false
			}
			if sparse {
				// Few kept rows: only their indices, read from the runs.
				sc.idx = grow(sc.idx, kj-ki)
				if !indicesAt(p.values, keep[ki:kj], pos, sc.idx) {
					return false
				}
				for k, ix := range sc.idx {
					if int(ix) >= len(dict) {
						return false
					}
					dst[ki+k] = dict[ix]
				}
			} else if kj > ki {
				// Indices up to the last kept row of the page.
				if !sc.pageIndices(p.values, m) {
					return false
				}
				for k := ki; k < kj; k++ {
					ix := sc.idx[int(keep[k])-pos]
					if int(ix) >= len(dict) {
						return false
					}
					dst[k] = dict[ix]
				}
			}
		default:
			return false
		}
		ki = kj
		pos += n
	}
	return ki == len(keep)
}

// rleValue reads the value of an RLE run (byteW bytes, little endian) at
// the start of data, returning the bytes after it; ok is false when data
// is too short or the value exceeds mask (the indices' bit width).
func rleValue(data []byte, byteW int, mask uint64) (v uint32, rest []byte, ok bool) {
	if len(data) < byteW {
		return 0, nil, false
	}
	for i := 0; i < byteW; i++ {
		v |= uint32(data[i]) << (8 * i)
	}
	if uint64(v) > mask {
		return 0, nil, false
	}
	return v, data[byteW:], true
}

// sparseIndices is the share of a page's rows (one in sparseIndices) below
// which the indices of kept rows are read one by one from the runs
// (indicesAt) rather than unpacked in bulk up to the last of them.
const sparseIndices = 8

// pageKept returns where the kept rows of a page of n rows starting at row
// pos end in keep (sorted rows; those before keep[ki] are in earlier
// pages): the page holds keep[ki:kj]. span is the rows from the page's
// first to its last kept row, and sparse whether the page holds kept rows
// and few enough of them (one in sparseIndices of span) to read their
// indices one by one (indicesAt).
func pageKept(keep []int32, ki, pos, n int) (kj, span int, sparse bool) {
	kj = ki
	for kj < len(keep) && int(keep[kj]) < pos+n {
		kj++
	}
	if kj == ki {
		return kj, 0, false
	}
	span = int(keep[kj-1]) - pos + 1
	return kj, span, (kj-ki)*sparseIndices < span
}

// decodeFixedAt decodes the rows keep (sorted rows of row group g) of a
// required fixed-width column into dst (their values, in order) with the
// page decoder, ok false when it gives the unit up (dst then holds
// garbage: the caller decodes the unit otherwise).
func decodeFixedAt(ctx context.Context, rdr *file.Reader, g int, col pqColumn, dst []byte, keep []int32) (ok bool) {
	if col.maxDef != 0 || col.typ == plan.Bool {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	pr, done, err := openPages(rdr, g, col)
	if err != nil {
		return false
	}
	defer func() { done(ok) }()
	switch fixedWidth(col.typ) {
	case 4:
		return fastFixedAt(ctx, pr, arrow.Uint32Traits.CastFromBytes(dst)[:len(keep)], keep)
	case 8:
		return fastFixedAt(ctx, pr, arrow.Uint64Traits.CastFromBytes(dst)[:len(keep)], keep)
	}
	return false
}
