package ops

import (
	"bufio"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/exec/internal/phys"
)

// This file is what the hash join and the grouping share to run under a
// memory limit (exec.Options.MemoryLimit): the budget they draw from,
// upper bounds of what their in-memory forms would hold, the partitioning
// of key rows by hash, and spill files — Arrow IPC files of record
// batches, each batch belonging to one partition, replayed partition by
// partition. The join (join_spill.go) and the grouping (group_spill.go)
// keep their rows in row order inside every partition and restore the
// global order from row ids, so their results are the in-memory ones bit
// for bit.

// Spill is what an operator needs to run under a memory limit: the
// context (cancellation between batches and partitions), the allocator
// (counting, Budget.Allocator), the budget, and a forced partition count
// for tests. A nil *Spill, or one with a nil Budget, means no limit: the
// operators take their in-memory paths unchanged.
type Spill struct {
	// Ctx is checked between batches and partitions; nil means
	// context.Background().
	Ctx context.Context
	// Mem allocates every Arrow buffer, spill batches read back included.
	Mem memory.Allocator
	// Budget is the collect's limit and spill directory.
	Budget *memlimit.Budget
	// Partitions, when positive, forces the spilled path with this many
	// partitions (rounded up to a power of two) whatever the budget says:
	// tests use it to spill small inputs.
	Partitions int
}

// limited reports whether s imposes a limit (or forces spilling).
func (s *Spill) limited() bool { return s != nil && s.Budget != nil }

// ctxErr returns the context's error, if it is done.
func (s *Spill) ctxErr() error {
	if s.Ctx == nil {
		return nil
	}
	return s.Ctx.Err()
}

// maxSpillParts bounds the number of partitions: beyond it the merge's
// per-partition cursors alone would outgrow any limit small enough to need
// them, and the limit is reported as too small instead.
const maxSpillParts = 1 << 12

// The bounds below are upper bounds of the Go heap the in-memory kernels
// hold, computed from the inputs before the kernels run, so that a caller
// under a memory limit can reserve them or choose to spill. They follow
// keys.go: a word column's dictionary is a direct map of span+1 slots
// when its values' span is below directSpan(n) (max(8n, 1024), at most
// directLimit), else an
// open-addressing table that starts at 128 slots of 16 bytes, grows to at
// least twice its keys (a power of two, at most 4n slots) and, while it
// rehashes, lives beside its successor; a string dictionary starts at 64
// slots, appends each distinct key's bytes to an arena and its offset to
// a list (both grow by doubling).

// slotsBound bounds the bytes of an open-addressing table of 16-byte
// slots that starts at start slots and holds up to n keys: its final
// size and, when it grew, the half-size table it rehashed from.
func slotsBound(start, n int64) int64 {
	s := start
	for s < 2*n {
		s *= 2
	}
	if s > start {
		return 24 * s
	}
	return 16 * s
}

// tableBound bounds the slots of a word table holding up to n keys.
func tableBound(n int64) int64 { return slotsBound(128, n) }

// strDictBound bounds a string dictionary over n rows of bytes value
// bytes.
func strDictBound(n, bytes int64) int64 {
	// A column whose strings all pack into words is encoded as words
	// instead (shortStrDict): a word per row and a word dictionary.
	return max(slotsBound(64, n)+2*bytes+2*8*(n+1), 8*n+wordDictBound(n, -1, math.MaxInt64))
}

// wordDictBound bounds the dictionary of n words whose span (max - min
// over the valid ones) is span, or unknown (span < 0) but at most
// maxSpan.
func wordDictBound(n, span, maxSpan int64) int64 {
	lim := directSpan(n)
	switch {
	case span >= 0 && span < lim:
		return 4 * (span + 1)
	case span >= 0:
		return tableBound(n) + filterBound(n)
	case maxSpan < lim:
		return 4 * (maxSpan + 1)
	}
	return max(4*(lim+1), tableBound(n)+filterBound(n))
}

// filterBound bounds the lookup filter of a table of up to n keys
// (wordDict.buildFilter): at most twice its bits per key, rounded up to a
// power of two, and none past filterMaxKeys keys.
func filterBound(n int64) int64 {
	n = min(n, filterMaxKeys)
	return 2*int64(filterBitsPerKey(n))*n/8 + 8
}

// spanOf is the span of a's key words in domain dom (min to max over the
// valid rows; 0 when none is valid), for int32, int64 and float64
// columns.
func spanOf(a arrow.Array, dom domain) int64 {
	lo, hi, seen := int64(math.MaxInt64), int64(math.MinInt64), false
	v := validityOf(a)
	note := func(i int, w int64) {
		if v.valid(i) {
			lo, hi, seen = min(lo, w), max(hi, w), true
		}
	}
	if phys.IsTemporal(a) {
		pv := phys.View(a)
		defer pv.Release()
		a = pv
	}
	switch a := a.(type) {
	case *array.Int64:
		for i, x := range a.Int64Values() {
			if dom == domFloat {
				note(i, floatWord(float64(x)))
			} else {
				note(i, x)
			}
		}
	case *array.Int32:
		for i, x := range a.Int32Values() {
			if dom == domFloat {
				note(i, floatWord(float64(x)))
			} else {
				note(i, int64(x))
			}
		}
	case *array.Float64:
		for i, x := range a.Float64Values() {
			note(i, floatWord(x))
		}
	case *array.Boolean:
		return 1
	default:
		words, ok := narrowKeyWords(a, dom)
		if !ok || !isNarrowArray(a) {
			return -1
		}
		for i, w := range words {
			note(i, w)
		}
	}
	if !seen {
		return 0
	}
	if d := uint64(hi) - uint64(lo); d < math.MaxInt64 {
		return int64(d)
	}
	return math.MaxInt64
}

// keyCopyBytes is the bytes per row newKeyCol allocates for a key column
// in domain dom: int64 in its own domain and strings are read in place,
// everything else becomes a word per row.
func keyCopyBytes(a arrow.Array, dom domain) int64 {
	switch {
	case dom == domString, dom == domInt && (a.DataType().ID() == arrow.INT64 || a.DataType().ID() == arrow.TIMESTAMP || a.DataType().ID() == arrow.DURATION):
		return 0
	}
	return 8
}

// stringBytes is the value bytes of a string column (0 for other types).
func stringBytes(a arrow.Array) int64 {
	s, ok := a.(*array.String)
	if !ok || s.Len() == 0 {
		return 0
	}
	offs := s.ValueOffsets()
	return int64(offs[len(offs)-1] - offs[0])
}

// encodeBound is an upper bound of the Go heap encoding the rows of the
// key columns keys (domains doms) holds: ids, word copies, one dictionary
// per column and per pairwise fold, the folded words and their bitmaps.
func encodeBound(keys []arrow.Array, doms []domain) int64 {
	if len(keys) == 0 {
		return 0
	}
	return encodeBoundRows(keys, doms, int64(keys[0].Len()))
}

// encodeBoundRows is encodeBound for n of the columns' rows (a
// partition): the columns' spans and string bytes bound any subset's.
func encodeBoundRows(keys []arrow.Array, doms []domain, n int64) int64 {
	b := 4 * n // ids
	for k, a := range keys {
		b += keyCopyBytes(a, doms[k]) * n
		if doms[k] == domString {
			b += strDictBound(n, stringBytes(a))
		} else {
			b += wordDictBound(n, spanOf(a, doms[k]), 0)
		}
		if k > 0 {
			// The id column, the folded words (below n*n) and their
			// bitmap, and the fold's dictionary.
			b += 4*n + 8*n + n/8 + 1 + wordDictBound(n, -1, n*n)
		}
	}
	return b
}

// GroupBound is an upper bound of the memory GroupIDsParallel holds while
// it groups these keys split as p says: on the Go heap the ids, word
// copies and dictionaries (per column and per pairwise fold) and the first
// rows, and on the parallel path the partitions' own groupings (each at
// most one sequential grouping of its rows, Workers at a time, fixed
// costs included), the grouping of their representatives and the Arrow
// buffers of the representatives' keys. A caller under a memory limit
// reserves it while it groups (the representatives' buffers are then
// counted twice, by the reservation and by the allocator, for the
// duration of the call).
func GroupBound(keys []arrow.Array, p Parallel) int64 {
	if len(keys) == 0 {
		return 0
	}
	doms := make([]domain, len(keys))
	for k, a := range keys {
		d, err := keyDomain(a)
		if err != nil {
			return 0
		}
		doms[k] = d
	}
	n := int64(keys[0].Len())
	seq := encodeBound(keys, doms) + 4*n // and the first rows
	if parts := p.Split(int(n)); len(parts) > 1 {
		// The partitions' own groupings, Workers at a time (each
		// partition's spans are within the column's); the grouping of
		// the representatives (at most every row) and their key columns,
		// gathered into Arrow buffers; the partitions' first rows and
		// the representatives' row ids.
		local := int64(min(p.Workers, len(parts))) * encodeBoundRows(keys, doms, int64(parts[0].Len()))
		reps := int64(0)
		for _, a := range keys {
			reps += ArrayBytes(a)
		}
		return local + seq + reps + 8*n
	}
	return seq
}

// joinBound is an upper bound of the Go heap the in-memory join of these
// keys holds besides its output pairs (which it reserves when it knows
// their number): both sides' ids and word copies, the build dictionaries,
// the probe's folded words, the per-id counts and CSR lists, and the
// outer joins' flags.
func joinBound(probe, build []arrow.Array) (int64, error) {
	return joinBoundBuild(probe, build, false)
}

// joinBoundBuild is joinBound for a join that hashes the probe side's keys
// instead when hashProbe is set (an inner join built on its left input):
// the dictionaries are the probe's, the looked-up ids and word copies the
// build side's, the per-id counts sized by the probe's rows and the CSR
// list by the build's.
func joinBoundBuild(probe, build []arrow.Array, hashProbe bool) (int64, error) {
	doms := make([]domain, len(build))
	for k := range build {
		d, err := joinDomain(probe[k], build[k])
		if err != nil {
			return 0, fmt.Errorf("key %d: %w", k, err)
		}
		doms[k] = d
	}
	np, nb := int64(probe[0].Len()), int64(build[0].Len())
	if hashProbe {
		b := encodeBound(probe, doms)
		b += 4 * nb
		for k, a := range build {
			b += keyCopyBytes(a, doms[k]) * nb
			if k > 0 {
				b += 4*nb + 8*nb + nb/8 + 1
			}
		}
		b += 4*(np+1)*3 + 4*(nb+1) // cnt1, start, next per probe id; rows
		return b, nil
	}
	b := encodeBound(build, doms)
	b += 4 * np
	for k, a := range probe {
		b += keyCopyBytes(a, doms[k]) * np
		if k > 0 {
			b += 4*np + 8*np + np/8 + 1
		}
	}
	b += 4*(nb+1)*4 + 2*nb + 2 // cnt1, start, rows, next; hit and matched flags
	b += 4 * np                // a semi or anti join's output rows
	return b, nil
}

// spillShape is how a partitioned pass is laid out: parts partitions (a
// power of two), each buffering up to bufRows row ids before it writes a
// batch, and keys hashed chunkRows rows at a time.
type spillShape struct {
	parts, bufRows, chunkRows int
}

// planSpill sizes a partitioned pass over n rows whose in-memory form
// would hold work bytes, with avail bytes left under the limit: enough
// partitions that one partition's share of work takes at most half of
// avail (the other half holds the partition's batches and pairs), and buffers that take at most half of it while the rows are
// partitioned (nothing else is built then) — the same rows per batch
// bound the merge's cursors, one batch per partition, to a quarter. It
// fails when even maxSpillParts partitions would not do.
func planSpill(s *Spill, work, avail int64, n int, what string) (spillShape, error) {
	parts := 2
	if s.Partitions > 0 {
		parts = s.Partitions
	} else {
		for parts < maxSpillParts && int64(parts)*avail < 2*work {
			parts *= 2
		}
		if int64(parts)*avail < 2*work {
			return spillShape{}, &memlimit.ExceededError{What: what + " cannot be split finely enough to fit",
				Need: work / maxSpillParts, Used: s.Budget.Used(), Limit: s.Budget.Limit()}
		}
	}
	p2 := 1
	for p2 < parts {
		p2 *= 2
	}
	parts = p2
	// 16 bytes per buffered row: its id here, its id and keys in the
	// batch written from the buffer.
	buf := int(min(max(avail/(2*int64(parts)*16), 8), 8192))
	chunk := int(min(max(avail/(8*24), 16), 4096))
	if n < chunk {
		chunk = max(n, 1)
	}
	return spillShape{parts: parts, bufRows: buf, chunkRows: chunk}, nil
}

// partHasher assigns key rows to partitions by a hash of their keys in
// the comparison domain, so rows whose keys are equal (all NaNs one key,
// -0.0 equal to +0.0, an int32 equal to the int64 or float64 of its
// value in a join) land in the same partition. The partition is taken
// from the low bits of a splitmix64 finalizer, independent of the high
// bits of the Fibonacci hash the dictionaries inside a partition use (a
// partition whose keys shared those bits would crowd one end of its
// table).
type partHasher struct {
	doms []domain
	seed maphash.Seed
	mask uint64
	// nullKey makes a null a key like any other (grouping); otherwise a
	// row with a null key is in no partition (-1: a join matches it to
	// nothing).
	nullKey bool
}

// newPartHasher returns the hasher of parts partitions (a power of two)
// over key columns of these domains.
func newPartHasher(doms []domain, parts int, nullKey bool) *partHasher {
	return &partHasher{doms: doms, seed: maphash.MakeSeed(), mask: uint64(parts - 1), nullKey: nullKey}
}

// mix64 is the splitmix64 finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// nullWord is what a null key hashes as when nulls are keys.
const nullWord = 0x6e756c6c6b6579 // "nullkey"

// parts sets out[i] to the partition of row lo+i of keys, for the rows
// [lo, hi), using hs as scratch (both at least hi-lo long).
func (h *partHasher) parts(keys []arrow.Array, lo, hi int, hs []uint64, out []int32) error {
	n := hi - lo
	hs, out = hs[:n], out[:n]
	for i := range hs {
		hs[i] = 0
		out[i] = 0
	}
	for k, a := range keys {
		sl := array.NewSlice(a, int64(lo), int64(hi))
		c, err := newKeyCol(sl, h.doms[k])
		if err != nil {
			sl.Release()
			return fmt.Errorf("key %d: %w", k, err)
		}
		salt := uint64(k+1) * fib
		if c.dom == domString {
			offs, data := stringParts(c.strs)
			for i := 0; i < n; i++ {
				var w uint64
				switch {
				case c.valid.valid(i):
					w = maphash.Bytes(h.seed, data[offs[i]:offs[i+1]])
				case h.nullKey:
					w = nullWord
				default:
					out[i] = -1
				}
				hs[i] = mix64(hs[i] ^ (w + salt))
			}
		} else {
			for i, x := range c.words[:n] {
				w := uint64(x)
				if !c.valid.valid(i) {
					if !h.nullKey {
						out[i] = -1
					}
					w = nullWord
				}
				hs[i] = mix64(hs[i] ^ (w + salt))
			}
		}
		sl.Release()
	}
	for i, x := range hs {
		if out[i] == 0 {
			out[i] = int32(mix64(x) & h.mask)
		}
	}
	return nil
}

// int32Array wraps Go int32s as an Arrow array without copying (for a
// batch that is written and released at once).
func int32Array(v []int32) arrow.Array {
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v))}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// int32Values returns the values of an int32 column read back from a
// spill file.
func int32Values(a arrow.Array) ([]int32, error) {
	c, ok := a.(*array.Int32)
	if !ok {
		return nil, fmt.Errorf("spill: column of type %s, want int32", typeName(a))
	}
	return c.Int32Values(), nil
}

// spillFile is one Arrow IPC file of record batches under one schema,
// each batch belonging to one partition; a partition's batches are
// written, and read back, in order. It holds the file open until close,
// which also removes it.
type spillFile struct {
	s      *Spill
	f      *os.File
	bw     *bufio.Writer
	w      *ipc.FileWriter
	r      *ipc.FileReader
	schema *arrow.Schema
	parts  [][]int // batch indices per partition
	n      int     // batches written
	rows   []int   // rows per partition
	bytes  []int64 // what reading a partition's batches back allocates
	held   int64   // the write buffer's reservation
}

// newSpillFile creates a spill file of parts partitions.
func newSpillFile(s *Spill, prefix string, schema *arrow.Schema, parts int) (*spillFile, error) {
	bufSize := int(min(max(s.Budget.Available()/16, 512), 64<<10))
	if err := s.Budget.Reserve(int64(bufSize), "a spill file's write buffer"); err != nil {
		return nil, err
	}
	f, err := s.Budget.CreateTemp(prefix)
	if err != nil {
		s.Budget.Release(int64(bufSize))
		return nil, err
	}
	sf := &spillFile{s: s, f: f, bw: bufio.NewWriterSize(f, bufSize), schema: schema,
		parts: make([][]int, parts), rows: make([]int, parts), bytes: make([]int64, parts), held: int64(bufSize)}
	sf.w, err = ipc.NewFileWriter(sf.bw, ipc.WithSchema(schema), ipc.WithAllocator(s.Mem))
	if err != nil {
		sf.close()
		return nil, &memlimit.SpillError{Err: err}
	}
	return sf, nil
}

// write appends rec as a batch of partition p. The IPC encoder copies the
// batch's metadata into a buffer of the allocator (a few hundred bytes),
// checked against the limit first.
func (f *spillFile) write(p int, rec arrow.RecordBatch) error {
	if err := f.s.Budget.Fits(ipcMetaBytes(f.schema), "a spill batch's metadata"); err != nil {
		return err
	}
	if err := f.w.Write(rec); err != nil {
		return &memlimit.SpillError{Err: fmt.Errorf("writing %s: %w", f.f.Name(), err)}
	}
	f.parts[p] = append(f.parts[p], f.n)
	f.n++
	f.rows[p] += int(rec.NumRows())
	f.bytes[p] += batchReadBytes(rec)
	return nil
}

// batchReadBytes bounds what reading rec back from a spill file
// allocates: its message body (every buffer padded to 8 bytes) and its
// metadata, each a multiple of 64 bytes.
func batchReadBytes(rec arrow.RecordBatch) int64 {
	body := int64(0)
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				body += (int64(b.Len()) + 7) &^ 7
			}
		}
	}
	return round64(body) + round64(ipcMetaBytes(rec.Schema()))
}

// ipcMetaBytes bounds the metadata buffer the IPC encoder allocates for a
// batch or a footer of this schema: a fixed part and a field node and two
// buffer entries per column, 8-byte aligned, with room to spare.
func ipcMetaBytes(schema *arrow.Schema) int64 {
	return 256 + 64*int64(schema.NumFields())
}

// finish ends the writing and opens the file for reading.
func (f *spillFile) finish() error {
	if err := f.s.Budget.Fits(ipcMetaBytes(f.schema), "a spill file's footer"); err != nil {
		return err
	}
	if err := f.w.Close(); err != nil {
		return &memlimit.SpillError{Err: fmt.Errorf("closing %s: %w", f.f.Name(), err)}
	}
	f.w = nil
	if err := f.bw.Flush(); err != nil {
		return &memlimit.SpillError{Err: fmt.Errorf("writing %s: %w", f.f.Name(), err)}
	}
	f.bw = nil
	f.s.Budget.Release(f.held)
	f.held = 0
	if st, err := f.f.Stat(); err == nil {
		f.s.Budget.NoteWritten(st.Size())
	}
	r, err := ipc.NewFileReader(f.f, ipc.WithAllocator(f.s.Mem))
	if err != nil {
		return &memlimit.SpillError{Err: fmt.Errorf("reading %s: %w", f.f.Name(), err)}
	}
	f.r = r
	return nil
}

// batch reads batch i back (the caller releases it).
func (f *spillFile) batch(i int) (arrow.RecordBatch, error) {
	rec, err := f.r.RecordBatchAt(i)
	if err != nil {
		return nil, &memlimit.SpillError{Err: fmt.Errorf("reading %s: %w", f.f.Name(), err)}
	}
	return rec, nil
}

// read returns every row of partition p as one batch (nil when the
// partition has none); the caller releases it.
func (f *spillFile) read(p int) (arrow.RecordBatch, error) {
	idx := f.parts[p]
	if len(idx) == 0 {
		return nil, nil
	}
	need := f.bytes[p]
	if len(idx) > 1 {
		need *= 2 // the batches and their concatenation
	}
	if err := f.s.Budget.Fits(need, fmt.Sprintf("partition %d of a spill file (%d rows)", p, f.rows[p])); err != nil {
		return nil, err
	}
	recs := make([]arrow.RecordBatch, 0, len(idx))
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, i := range idx {
		rec, err := f.batch(i)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	return ConcatRecords(f.s.Mem, f.schema, recs)
}

// close closes and removes the file; it is safe on nil and more than once.
func (f *spillFile) close() {
	if f == nil || f.f == nil {
		return
	}
	// An unfinished writer is dropped, not closed: closing would write a
	// footer into a file about to be removed (and allocate for it).
	if f.r != nil {
		_ = f.r.Close()
	}
	f.s.Budget.Release(f.held)
	f.held = 0
	name := f.f.Name()
	_ = f.f.Close()
	_ = os.Remove(name)
	f.f = nil
}

// cursor reads one partition of a spill file batch by batch: the merge
// holds one batch per partition.
type cursor struct {
	f    *spillFile
	p    int
	next int // the next batch of the partition to load
	rec  arrow.RecordBatch
	cols [][]int32
	i    int
}

// ok reports whether the cursor is on a row, loading the partition's
// next batch when the current one is used up.
func (c *cursor) ok() (bool, error) {
	for c.rec == nil || c.i >= int(c.rec.NumRows()) {
		if c.rec != nil {
			c.rec.Release()
			c.rec = nil
		}
		if c.next >= len(c.f.parts[c.p]) {
			return false, nil
		}
		rec, err := c.f.batch(c.f.parts[c.p][c.next])
		if err != nil {
			return false, err
		}
		c.next++
		c.rec, c.i = rec, 0
		c.cols = c.cols[:0]
		for _, col := range rec.Columns() {
			v, err := int32Values(col)
			if err != nil {
				return false, err
			}
			c.cols = append(c.cols, v)
		}
	}
	return true, nil
}

// close releases the cursor's batch.
func (c *cursor) close() {
	if c.rec != nil {
		c.rec.Release()
		c.rec = nil
	}
}

// keyBatchSchema is the schema of a batch of row ids and their keys.
func keyBatchSchema(keys []arrow.Array) *arrow.Schema {
	fields := []arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int32}}
	for k, a := range keys {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("k%d", k), Type: a.DataType(), Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// partitionKeys writes the rows of keys to f, each to the partition h
// gives it (rows in no partition are skipped), in row order within every
// partition: a batch holds row ids and the rows' keys, written when a
// partition has buffered shape.bufRows rows.
func partitionKeys(s *Spill, h *partHasher, shape spillShape, keys []arrow.Array, f *spillFile) error {
	n := keys[0].Len()
	bufBytes := int64(shape.parts)*int64(shape.bufRows)*4 + int64(shape.chunkRows)*20
	if err := s.Budget.Reserve(bufBytes, "the partition buffers"); err != nil {
		return err
	}
	defer s.Budget.Release(bufBytes)
	bufs := make([][]int32, shape.parts)
	cols := make([]arrow.Array, len(keys)+1)
	flush := func(p int) error {
		rows := bufs[p]
		if len(rows) == 0 {
			return nil
		}
		need := int64(0)
		for _, a := range keys {
			need += TakeBytes(a, rows)
		}
		if err := s.Budget.Fits(need, "a spill batch"); err != nil {
			return err
		}
		cols[0] = int32Array(rows)
		for k, a := range keys {
			c, err := Take(s.Mem, a, rows)
			if err != nil {
				releaseAll(cols[:k+1])
				return fmt.Errorf("spill: %w", err)
			}
			cols[k+1] = c
		}
		rec := array.NewRecordBatch(f.schema, cols, int64(len(rows)))
		releaseAll(cols)
		err := f.write(p, rec)
		rec.Release()
		bufs[p] = rows[:0]
		return err
	}
	hs := make([]uint64, shape.chunkRows)
	ps := make([]int32, shape.chunkRows)
	for lo := 0; lo < n; lo += shape.chunkRows {
		if err := s.ctxErr(); err != nil {
			return err
		}
		hi := min(lo+shape.chunkRows, n)
		if err := h.parts(keys, lo, hi, hs, ps); err != nil {
			return err
		}
		for i, p := range ps[:hi-lo] {
			if p < 0 {
				continue
			}
			if bufs[p] == nil {
				bufs[p] = make([]int32, 0, shape.bufRows)
			}
			bufs[p] = append(bufs[p], int32(lo+i))
			if len(bufs[p]) == shape.bufRows {
				if err := flush(int(p)); err != nil {
					return err
				}
			}
		}
	}
	for p := range bufs {
		if err := flush(p); err != nil {
			return err
		}
	}
	return f.finish()
}
