package parquet

import (
	"context"
	"fmt"
	"math"
	mbits "math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Late materialization. A scan given Inexact conjuncts it can test row by
// row (rowTests) decodes, per row group, the columns those conjuncts read
// first, evaluates the conjuncts over the group's rows with the kernel (the
// filter above the scan evaluates the same expressions with the same
// kernel), and then decodes the other columns only for the groups where some
// row survives, keeping only the surviving rows of every column. A group
// none of whose rows survives costs the decode of its tested columns only.
//
// This is the skipping docs/semantics.md allows a source (scan): the
// conjuncts are Inexact, so the plan keeps them in a filter above the scan,
// and a source may skip the rows on which one is false or null, because the
// executor passes Inexact conjuncts only to scans where no raising conjunct
// has to meet those rows (exec.ScanRequest.Predicates). Dropping rows by
// them is the limit of row-group skipping with one-row groups (the oracle's
// zone-map tables use groups of one to three rows). The surviving rows keep
// their file order. Where a quarter of a group's rows or more survive, it is kept
// whole (the filter above drops the rest): copying out the survivors would
// cost more than it saves (keepWhole).
//
// Errors: the tested columns are decoded first; if any of their chunks
// fails, the scan falls back to the plain decode of every column, which
// reports the first failing unit in file order as before. Otherwise the
// error reported is that of the first failing (row group, column) unit among
// those decoded. A chunk of a group whose rows were all refuted is not
// decoded at all, as a row group refuted by its statistics is not: its page
// checksums are still verified (Source.verifyChecksums runs first), but a
// corruption only decoding would find there goes unnoticed.

// keepWhole is the share of surviving rows (in eighths) from which a row
// group is kept whole rather than compacted. Compacting copies the passing
// rows of every column, while the filter above selects rows by an index
// vector without copying, so compaction pays only where few rows pass: at
// TPC-H SF1, Q12's 4% and Q6's 2% gain, Q3's 50% lost.
const keepWhole = 2

// keysLoose is the share of a group's rows (in eighths) from which a key
// filter tested first, with other tests after it, lets every row through:
// the tests after it would otherwise meet a gathered copy of nearly every
// row (TPC-H Q12's and Q13's keys, every order or customer, match every
// row). A key filter only allows a source to drop rows (exec.KeyFilter), so
// keeping some it rules out changes nothing the join outputs.
const keysLoose = 6

// rowFilter is the conjuncts a scan tests row by row, grouped by the scan
// column (an index into the scan's column list) each reads, the columns in
// the order the pushed list first names them.
type rowFilter struct {
	cols   []int
	conj   [][]plan.Expr   // per column of cols
	schema []*arrow.Schema // per column of cols: that column alone
	// keys, per column of cols, is the runtime key filter on it (nil:
	// none): a row passes only where its value is among the keys.
	keys []*keySet
}

// rowTests returns the tests the scan can apply row by row: the runtime key
// filters (kfs) on int32, int64 or date columns among the columns the scan
// decodes (cols), then the pushed conjuncts the plan marks Inexact whose
// column (parseTest) is among them; nil when there are none. The key
// columns come first: their test is a bitmap or binary search over a
// decoded integer column, and a join's keys usually leave few rows (TPC-H
// Q10's quarter of orders against lineitem), which a string test from the
// dictionary or a date comparison then meets alone.
func rowTests(pushed []plan.PushedPredicate, kfs []exec.KeyFilter, s plan.Schema, cols []pqColumn) *rowFilter {
	pos := map[string]int{}
	for i, c := range cols {
		pos[c.name] = i
	}
	f := &rowFilter{}
	at := map[int]int{} // scan column → its index in f.cols
	column := func(i int) int {
		j, ok := at[i]
		if !ok {
			j = len(f.cols)
			at[i] = j
			f.cols = append(f.cols, i)
			f.conj = append(f.conj, nil)
			f.keys = append(f.keys, nil)
			f.schema = append(f.schema, arrow.NewSchema([]arrow.Field{{Name: cols[i].name, Type: cols[i].dt, Nullable: cols[i].maxDef > 0}}, nil))
		}
		return j
	}
	for _, kf := range kfs {
		i, ok := pos[kf.Column]
		if !ok || (cols[i].typ != plan.Int32 && cols[i].typ != plan.Int64 && cols[i].typ != plan.Date) {
			continue
		}
		j := column(i)
		if f.keys[j] == nil {
			f.keys[j] = newKeySet(kf.Keys)
		} else {
			f.keys[j] = f.keys[j].intersect(kf.Keys)
		}
	}
	for _, p := range pushed {
		if p.Support != plan.Inexact {
			continue
		}
		t, ok := parseTest(p.Expr, s)
		if !ok {
			continue
		}
		i, ok := pos[s.Field(t.column).Name]
		if !ok {
			continue
		}
		j := column(i)
		f.conj[j] = append(f.conj[j], p.Expr)
	}
	if len(f.cols) == 0 {
		return nil
	}
	return f
}

// lateCounts are what a late-materialized read skipped.
type lateCounts struct {
	rowsDropped   int64 // rows of the groups read that the tests refuted
	chunksSkipped int64 // column chunks of read groups never decoded
}

// groupScratch is what the first phase decoded of one row group: its tested
// columns (group-local), and the rows that survive (nil: all of them, or
// the group is kept whole).
type groupScratch struct {
	rows  int
	bufs  []*memory.Buffer // per filter column: fixed-width values (nil for others)
	units []pqUnit         // per filter column
	// base lists, per filter column, the rows of the group its unit holds
	// (nil: all of them): a string column tested after others is decoded
	// only for the rows that passed those.
	base  [][]int32
	keep  []int32 // surviving rows, when compacted
	whole bool    // every row is kept
	// decoded counts the tested columns decoded (a group whose rows all
	// failed the first columns' tests decodes no more).
	decoded int
	// deferred marks, per filter column, a string column tested from its
	// dictionary: its strings are not decoded in the first phase but with
	// the other columns, for the surviving rows only.
	deferred []bool
	// dict holds, per filter column tested from its dictionary, the
	// passing rows' dictionary indices and the dictionary (nil: none): the
	// second phase builds the strings from them.
	dict []*dictRows
	// fdict holds, per filter column of fixed width tested from its
	// dictionary (fixeddict.go), the indices read and the dictionary (nil:
	// none); such a column is also marked deferred.
	fdict []*fixedDictRows
	// partial is set when a tested column holds some rows only (a
	// fixed-width column tested from its dictionary after others): the
	// group is then compacted, never kept whole.
	partial bool
	err     error // the first failing filter column's error
}

// test evaluates the conjuncts of the j-th tested column (col, decoded
// into s.units[j] and s.bufs[j]) over the rows keep of the group (nil: all)
// and returns the rows that pass, as rows of the group, in order (nil when
// every row of the group passes, or, for the last tested column (last),
// when so many pass that the group is kept whole). ok is false when the
// evaluation failed.
func (s *groupScratch) test(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, col pqColumn, j int,
	filt *rowFilter, keep []int32, last bool) (pass []int32, ok bool) {
	var ks *keySet
	if j < len(filt.keys) {
		ks = filt.keys[j]
	}
	if ks == nil {
		return s.testConj(ctx, ev, mem, col, j, filt, keep, last)
	}
	if len(filt.conj[j]) == 0 {
		return s.testKeys(col, j, ks, keep, last), true
	}
	keep = s.testKeys(col, j, ks, keep, false)
	if keep != nil && len(keep) == 0 {
		return keep, true
	}
	return s.testConj(ctx, ev, mem, col, j, filt, keep, last)
}

// testKeys is test for the runtime key filter ks of the j-th tested column
// (a fixed-width integer column, decoded whole into s.bufs[j]): the rows of
// keep (nil: all) that are valid and among the keys.
func (s *groupScratch) testKeys(col pqColumn, j int, ks *keySet, keep []int32, last bool) []int32 {
	valid := s.units[j].valid
	b := s.bufs[j].Bytes()
	var v32 []int32
	var v64 []int64
	if fixedWidth(col.typ) == 4 {
		v32 = arrow.Int32Traits.CastFromBytes(b)[:s.rows]
	} else {
		v64 = arrow.Int64Traits.CastFromBytes(b)[:s.rows]
	}
	at := func(r int) int64 {
		if v32 != nil {
			return int64(v32[r])
		}
		return v64[r]
	}
	var pass []int32
	if keep == nil {
		pass = make([]int32, 0, s.rows/8)
		switch {
		case valid == nil && v64 != nil:
			pass = ks.filter64(v64, pass)
		default:
			for r := range s.rows {
				if (valid == nil || bitutil.BitIsSet(valid, r)) && ks.has(at(r)) {
					pass = append(pass, int32(r))
				}
			}
		}
		if len(pass) == s.rows || (last && len(pass)*8 >= s.rows*keepWhole) || (!last && len(pass)*8 >= s.rows*keysLoose) {
			return nil
		}
		return pass
	}
	pass = make([]int32, 0, len(keep))
	for _, r := range keep {
		if (valid == nil || bitutil.BitIsSet(valid, int(r))) && ks.has(at(int(r))) {
			pass = append(pass, r)
		}
	}
	return pass
}

// testConj is test for the conjuncts of the j-th tested column.
func (s *groupScratch) testConj(ctx context.Context, ev kernel.Evaluator, mem memory.Allocator, col pqColumn, j int,
	filt *rowFilter, keep []int32, last bool) (pass []int32, ok bool) {
	held := s.rows // the rows the unit holds: all, or keep (s.base[j])
	if s.base[j] != nil {
		held = len(s.base[j])
	}
	a, err := assembleColumn(mem, ops.Parallel{}, col, s.bufs[j], []*pqUnit{&s.units[j]}, []int{0, held})
	if err != nil {
		return nil, false
	}
	batch := array.NewRecordBatch(filt.schema[j], []arrow.Array{a}, int64(held))
	a.Release()
	defer batch.Release()
	if keep != nil && s.base[j] == nil {
		taken, err := ops.TakeRecord(mem, batch, keep)
		if err != nil {
			return nil, false
		}
		defer taken.Release()
		batch = taken
	}
	sel, err := ev.EvalPredicate(ctx, filt.conj[j], batch, 0)
	if err != nil {
		return nil, false
	}
	defer sel.Release()
	n := int(batch.NumRows())
	bits, off := sel.Data().Buffers()[1].Bytes(), sel.Data().Offset()
	count := bitutil.CountSetBits(bits, off, n)
	if keep == nil && (count == n || (last && count*8 >= n*keepWhole)) {
		// Every row passes, or the last test leaves the group whole.
		return nil, true
	}
	pass = make([]int32, 0, count)
	r := 0
	if off%8 == 0 {
		// Whole bytes first, set bits found by trailing-zero counts.
		b := bits[off/8:]
		for ; r+8 <= n; r += 8 {
			for v := b[r/8]; v != 0; v &= v - 1 {
				pass = append(pass, int32(r+mbits.TrailingZeros8(v)))
			}
		}
	}
	for ; r < n; r++ {
		if bitutil.BitIsSet(bits, off+r) {
			pass = append(pass, int32(r))
		}
	}
	if keep != nil {
		for i, p := range pass {
			pass[i] = keep[p]
		}
	}
	return pass, true
}

// readLate is readRowGroups with the row tests filt (see the comment
// above). It returns ok false, and nothing else, when a tested column
// fails to decode: the caller then reads plainly.
func readLate(ctx context.Context, rdr *file.Reader, schema *arrow.Schema, cols []pqColumn, groups []int,
	filt *rowFilter, mem memory.Allocator, par ops.Parallel) (rec arrow.RecordBatch, counts lateCounts, ok bool, err error) {
	md := rdr.MetaData()
	isFilter := make([]int, len(cols)) // index into filt.cols, or -1
	for i := range isFilter {
		isFilter[i] = -1
	}
	for j, i := range filt.cols {
		isFilter[i] = j
	}
	scratch := make([]groupScratch, len(groups))
	defer func() {
		for _, s := range scratch {
			releaseBuffers(s.bufs)
			for _, f := range s.fdict {
				f.release()
			}
		}
	}()
	ev := kernel.Evaluator{Mem: mem}
	runErr := par.Run(len(groups), func(gi int) {
		s := &scratch[gi]
		s.rows = int(md.RowGroup(groups[gi]).NumRows())
		s.bufs = make([]*memory.Buffer, len(filt.cols))
		s.units = make([]pqUnit, len(filt.cols))
		s.base = make([][]int32, len(filt.cols))
		s.deferred = make([]bool, len(filt.cols))
		s.dict = make([]*dictRows, len(filt.cols))
		s.fdict = make([]*fixedDictRows, len(filt.cols))
		// The tested columns one at a time: each column's conjuncts are
		// evaluated over the rows that passed the columns before, and a
		// group whose rows all failed decodes no further column.
		var keep []int32 // the rows passed so far; nil: all of them
		for j, i := range filt.cols {
			col := cols[i]
			if w := fixedWidth(col.typ); w > 0 {
				if pass, ok := s.fixedDictTest(ctx, ev, mem, rdr, groups[gi], col, j, filt, keep, j == len(filt.cols)-1); ok {
					// Tested from the dictionary: the values are gathered
					// in the second phase from the indices read.
					s.deferred[j] = true
					s.decoded++
					keep = pass
					if keep != nil && len(keep) == 0 {
						s.keep = keep
						releaseBuffers(s.bufs)
						clear(s.bufs)
						return
					}
					continue
				}
				s.bufs[j] = memory.NewResizableBuffer(mem)
				s.bufs[j].Resize(s.rows * w)
			}
			if col.typ == plan.String {
				if pass, ok := s.dictTest(ctx, ev, mem, rdr, groups[gi], col, j, filt, keep, j == len(filt.cols)-1); ok {
					// Tested from the dictionary: the strings are decoded
					// in the second phase, for the surviving rows only
					// (or whole where the group is kept whole).
					s.deferred[j] = true
					keep = pass
					if keep != nil && len(keep) == 0 {
						s.keep = keep
						releaseBuffers(s.bufs)
						clear(s.bufs)
						return
					}
					continue
				}
			}
			if col.typ == plan.String && keep != nil {
				s.units[j] = decodeStringsAt(ctx, rdr, groups[gi], col, s.rows, keep)
				s.base[j] = keep
			} else {
				s.units[j] = decodeUnit(ctx, rdr, groups[gi], col, s.bufs[j], 0, s.rows)
			}
			if s.units[j].err != nil {
				s.err = s.units[j].err
				return
			}
			s.decoded++
			next, ok := s.test(ctx, ev, mem, col, j, filt, keep, j == len(filt.cols)-1)
			if !ok {
				// The tests cannot raise; should one fail anyway, the
				// group is kept whole and the filter above decides.
				s.whole = true
				return
			}
			keep = next
			if keep != nil && len(keep) == 0 {
				s.keep = keep
				for j, b := range s.bufs {
					if b != nil {
						b.Release()
						s.bufs[j] = nil
					}
				}
				return
			}
		}
		full := !s.partial // every tested unit holds every row
		for _, b := range s.base {
			full = full && b == nil
		}
		if keep == nil || (full && len(keep)*8 >= s.rows*keepWhole) {
			s.whole = true
			return
		}
		s.keep = keep
		// The tested columns keep only the passing rows from here on, so
		// that a group's full decode is not held while the others are read.
		for j, i := range filt.cols {
			if f := s.fdict[j]; f != nil {
				f.narrow(keep)
				continue
			}
			if s.deferred[j] {
				continue
			}
			w := fixedWidth(cols[i].typ)
			keepJ := keep
			if s.base[j] != nil {
				keepJ = within(keep, s.base[j])
			}
			var src, dst []byte
			var small *memory.Buffer
			if w > 0 {
				src = s.bufs[j].Bytes()
				small = memory.NewResizableBuffer(mem)
				small.Resize(len(keep) * w)
				dst = small.Bytes()
			}
			s.units[j] = compactUnit(&s.units[j], src, w, keepJ, false, dst)
			s.base[j] = keep
			if s.bufs[j] != nil {
				s.bufs[j].Release()
			}
			s.bufs[j] = small
		}
	})
	if runErr != nil {
		return nil, counts, false, runErr
	}
	if err := ctx.Err(); err != nil {
		return nil, counts, false, err
	}
	for gi := range scratch {
		if scratch[gi].err != nil {
			return nil, counts, false, nil
		}
	}
	// The groups with surviving rows, and where their rows go.
	var live []int // indices into groups
	starts := []int{0}
	for gi, s := range scratch {
		k := s.rows
		if !s.whole {
			k = len(s.keep)
		}
		counts.rowsDropped += int64(s.rows - k)
		if k == 0 {
			counts.chunksSkipped += int64(len(cols) - s.decoded)
			continue
		}
		live = append(live, gi)
		starts = append(starts, starts[len(starts)-1]+k)
	}
	rows := starts[len(starts)-1]
	if rows > math.MaxInt32 {
		return nil, counts, true, fmt.Errorf("the row groups read hold more than %d rows", math.MaxInt32)
	}
	bufs := fixedWidthBuffers(mem, cols, rows)
	defer releaseBuffers(bufs)
	units := make([]pqUnit, len(live)*len(cols))
	runErr = par.Run(len(units), func(u int) {
		li, c := u/len(cols), u%len(cols)
		gi := live[li]
		s, col, lo, hi := &scratch[gi], cols[c], starts[li], starts[li+1]
		w := fixedWidth(col.typ)
		var dst []byte
		if w > 0 {
			dst = bufs[c].Bytes()[lo*w : hi*w]
		}
		if j := isFilter[c]; j >= 0 && s.fdict[j] != nil && (!s.whole || s.fdict[j].rows == nil) && s.fdict[j].gather(dst) {
			// Tested from its dictionary: the values of the indices read
			// (every row's, where the group is kept whole).
			units[u] = pqUnit{}
			return
		}
		if j := isFilter[c]; j >= 0 && !s.deferred[j] {
			var src []byte
			if w > 0 {
				src = s.bufs[j].Bytes()
			}
			// A compacted group's tested columns hold exactly its
			// passing rows (phase 1 compacted them): copied whole.
			units[u] = compactUnit(&s.units[j], src, w, nil, true, dst)
			return
		}
		if col.typ == plan.String && !s.whole {
			if j := isFilter[c]; j >= 0 && s.dict[j] != nil {
				if du, ok := s.dict[j].unit(s.keep, col.maxDef > 0); ok {
					units[u] = du
					return
				}
			}
			units[u] = decodeStringsAt(ctx, rdr, groups[gi], col, s.rows, s.keep)
			return
		}
		if s.whole {
			units[u] = decodeUnit(ctx, rdr, groups[gi], col, bufs[c], lo, hi)
			return
		}
		if w > 0 && decodeFixedAt(ctx, rdr, groups[gi], col, dst, s.keep) {
			// Only the surviving rows' values decoded (required columns).
			units[u] = pqUnit{}
			return
		}
		var tmp *memory.Buffer
		if w > 0 {
			tmp = getScratch(s.rows * w)
			defer putScratch(tmp)
		}
		// Rows past the last survivor are not decoded.
		full := decodeUnit(ctx, rdr, groups[gi], col, tmp, 0, int(s.keep[len(s.keep)-1])+1)
		if full.err != nil {
			units[u] = full
			return
		}
		var src []byte
		if w > 0 {
			src = tmp.Bytes()
		}
		units[u] = compactUnit(&full, src, w, s.keep, false, dst)
	})
	if runErr != nil {
		return nil, counts, true, runErr
	}
	ids := make([]int, len(live))
	for li, gi := range live {
		ids[li] = groups[gi]
	}
	rec, aerr := assembleBatch(mem, par, schema, cols, bufs, units, ids, starts, rows)
	return rec, counts, true, aerr
}

// scratchPool holds the buffers a compacted column is decoded into before
// its surviving rows are copied out (one row group's values at a time).
var scratchPool = sync.Pool{New: func() any { return memory.NewResizableBuffer(memory.DefaultAllocator) }}

// getScratch returns a pooled buffer of n bytes (contents undefined).
func getScratch(n int) *memory.Buffer {
	b := scratchPool.Get().(*memory.Buffer)
	b.ResizeNoShrink(n)
	return b
}

// putScratch returns a buffer getScratch gave.
func putScratch(b *memory.Buffer) { scratchPool.Put(b) }

// compactUnit copies the rows keep (all of them when whole) of a decoded
// unit: fixed-width values (w bytes each, from src) into dst, validity,
// booleans and strings into the returned unit.
func compactUnit(u *pqUnit, src []byte, w int, keep []int32, whole bool, dst []byte) pqUnit {
	if whole {
		if w > 0 {
			copy(dst, src)
		}
		out := *u
		return out
	}
	k := len(keep)
	var out pqUnit
	if u.valid != nil {
		out.valid = make([]byte, bitutil.BytesForBits(int64(k)))
		for i, r := range keep {
			if bitutil.BitIsSet(u.valid, int(r)) {
				bitutil.SetBit(out.valid, i)
			} else {
				out.nulls++
			}
		}
	}
	gatherWidth(dst, src, keep, w)
	if u.bits != nil {
		out.bits = make([]byte, bitutil.BytesForBits(int64(k)))
		for i, r := range keep {
			if bitutil.BitIsSet(u.bits, int(r)) {
				bitutil.SetBit(out.bits, i)
			}
		}
	}
	if u.offs != nil {
		out.offs = make([]int32, k+1)
		size := 0
		for _, r := range keep {
			size += int(u.offs[r+1] - u.offs[r])
		}
		out.data = make([]byte, 0, size)
		for i, r := range keep {
			out.data = append(out.data, u.data[u.offs[r]:u.offs[r+1]]...)
			out.offs[i+1] = int32(len(out.data))
		}
	}
	return out
}

// within returns the positions in base (sorted rows) of the rows of sub
// (sorted, a subset of base).
func within(sub, base []int32) []int32 {
	out := make([]int32, len(sub))
	i := 0
	for k, r := range sub {
		for base[i] != r {
			i++
		}
		out[k] = int32(i)
	}
	return out
}

// decodeStringsAt decodes the rows keep (sorted rows of the group) of
// string column col of row group g, which holds rows rows: only their
// values are copied out of the pages, and the pages after the last of them
// are not read. The unit holds len(keep) rows.
func decodeStringsAt(ctx context.Context, rdr *file.Reader, g int, col pqColumn, rows int, keep []int32) (u pqUnit) {
	defer recoverUnit(&u)
	if fu, ok := decodeStringsFast(ctx, rdr, g, col, keep); ok {
		return fu
	}
	return decodeStringsAtReader(ctx, rdr, g, col, rows, keep)
}

// decodeStringsAtReader is decodeStringsAt through arrow-go's column chunk
// reader (see decodeUnitReader).
func decodeStringsAtReader(ctx context.Context, rdr *file.Reader, g int, col pqColumn, rows int, keep []int32) (u pqUnit) {
	cr, err := rdr.RowGroup(g).Column(col.leaf)
	if err != nil {
		u.err = err
		return u
	}
	defer cr.Close()
	r, ok := cr.(*file.ByteArrayColumnChunkReader)
	if !ok {
		u.err = fmt.Errorf("unexpected column reader %T", cr)
		return u
	}
	k := len(keep)
	if col.maxDef > 0 {
		u.valid = make([]byte, bitutil.BytesForBits(int64(k)))
	}
	u.offs = make([]int32, k+1)
	end := 0 // the rows to read: up to the last kept one
	if k > 0 {
		end = int(keep[k-1]) + 1
	}
	scratch := make([]parquet.ByteArray, min(end, pqBatch))
	var defs []int16
	if col.maxDef > 0 {
		defs = make([]int16, len(scratch))
	}
	data := make([]byte, 0, k*4)
	ki := 0
	for pos := 0; pos < end; {
		if err := ctx.Err(); err != nil {
			u.err = err
			return u
		}
		want := min(end-pos, pqBatch)
		var lv []int16
		if defs != nil {
			lv = defs[:want]
		}
		n, vals, err := r.ReadBatchInPage(int64(want), scratch[:want], lv, nil)
		if err != nil {
			u.err = err
			return u
		}
		if n <= 0 {
			u.err = fmt.Errorf("the column chunk ends after %d of its %d rows", pos, rows)
			return u
		}
		if defs == nil && vals != int(n) {
			u.err = fmt.Errorf("a required column read %d values for %d rows", vals, n)
			return u
		}
		j := 0
		for i := 0; i < int(n); i++ {
			present := defs == nil || lv[i] == col.maxDef
			if ki < k && int(keep[ki]) == pos+i {
				if present {
					data = append(data, scratch[j]...)
					if defs != nil {
						bitutil.SetBit(u.valid, ki)
					}
				} else {
					u.nulls++
				}
				ki++
				if len(data) > math.MaxInt32 {
					u.err = fmt.Errorf("more than %d bytes of strings exceed the 2 GiB string array limit", math.MaxInt32)
					return u
				}
				u.offs[ki] = int32(len(data))
			}
			if present {
				j++
			}
		}
		pos += int(n)
	}
	u.data = data
	return u
}
