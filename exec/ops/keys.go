package ops

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/internal/phys"
)

// This file normalizes key columns (group, distinct, window and join keys)
// into a comparison domain and assigns dense ids to their values. It is
// hand-written because Arrow has no hash grouping, and its unique and
// dictionary_encode keep -0.0 and +0.0 apart, which dfopt's key semantics
// merge. Every column becomes either a slice of 64-bit "words" whose
// equality is exactly key equality (ints as themselves, floats as
// canonicalized bits, bools as 0/1) or a string column; multi-column keys
// are folded pairwise into one word per row, so every key shape runs through
// the same typed int64 hashing with no interface call per row.

// domain is how a key column's values compare.
type domain uint8

const (
	domInt    domain = iota // int32 and int64, as int64
	domFloat                // float64 (and integers promoted to it), by canonical bits
	domBool                 // false = 0, true = 1
	domString               // by bytes
)

// canonicalNaN is the one word every NaN key maps to.
const canonicalNaN = 0x7ff8000000000000

// floatWord maps a float key to a word whose equality is key equality: all
// NaNs are one key and -0.0 equals +0.0.
func floatWord(f float64) int64 {
	if f != f {
		return canonicalNaN
	}
	if f == 0 {
		return 0
	}
	return int64(math.Float64bits(f))
}

// floatWords maps the values of an n-row column, as float64 keys (integers
// promoted), to their float words.
func floatWords[T int32 | int64 | float64](n int, vs []T) []int64 {
	words := make([]int64, n)
	for i, v := range vs {
		words[i] = floatWord(float64(v))
	}
	return words
}

// keyCol is one key column normalized to its comparison domain.
type keyCol struct {
	dom   domain
	words []int64       // domInt, domFloat, domBool: one comparable word per row
	strs  *array.String // domString
	valid validity
	n     int
}

// keyDomain is the domain a column of this type compares in on its own.
func keyDomain(a arrow.Array) (domain, error) {
	switch a.DataType().ID() {
	case arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP, arrow.DURATION:
		return domInt, nil // a temporal key is its integer
	case arrow.FLOAT64, arrow.FLOAT32:
		return domFloat, nil
	case arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return domInt, nil
	case arrow.BOOL:
		return domBool, nil
	case arrow.STRING:
		return domString, nil
	}
	return 0, fmt.Errorf("unsupported key type %s", a.DataType())
}

// joinDomain is the domain two join keys compare in: their promoted type.
func joinDomain(l, r arrow.Array) (domain, error) {
	dl, err := keyDomain(l)
	if err != nil {
		return 0, err
	}
	dr, err := keyDomain(r)
	if err != nil {
		return 0, err
	}
	switch {
	case dl == dr:
		return dl, nil
	case (dl == domInt || dl == domFloat) && (dr == domInt || dr == domFloat):
		return domFloat, nil
	}
	return 0, fmt.Errorf("join keys of types %s and %s do not compare", l.DataType(), r.DataType())
}

// newKeyCol normalizes a into domain dom (which must be a's own domain or,
// for an integer column, domFloat).
func newKeyCol(a arrow.Array, dom domain) (*keyCol, error) {
	c := &keyCol{dom: dom, valid: validityOf(a), n: a.Len()}
	if phys.IsTemporal(a) {
		// The view shares a's buffers, which a keeps alive.
		v := phys.View(a)
		defer v.Release()
		a = v
	}
	if isNarrowArray(a) {
		if words, ok := narrowKeyWords(a, dom); ok {
			c.words = words
			return c, nil
		}
	}
	switch a := a.(type) {
	case *array.Int64:
		switch dom {
		case domInt:
			c.words = a.Int64Values()
			return c, nil
		case domFloat:
			c.words = floatWords(a.Len(), a.Int64Values())
			return c, nil
		}
	case *array.Int32:
		switch dom {
		case domInt:
			c.words = make([]int64, a.Len())
			for i, v := range a.Int32Values() {
				c.words[i] = int64(v)
			}
			return c, nil
		case domFloat:
			c.words = floatWords(a.Len(), a.Int32Values())
			return c, nil
		}
	case *array.Float64:
		if dom == domFloat {
			c.words = floatWords(a.Len(), a.Float64Values())
			return c, nil
		}
	case *array.Boolean:
		if dom == domBool {
			c.words = make([]int64, a.Len())
			bits, off := boolParts(a)
			for i := range c.words {
				if bitAt(bits, off, i) {
					c.words[i] = 1
				}
			}
			return c, nil
		}
	case *array.String:
		if dom == domString {
			c.strs = a
			return c, nil
		}
	}
	return nil, fmt.Errorf("unsupported key type %s", a.DataType())
}

// colDict looks up the ids a column's values were given by encode.
type colDict interface {
	// lookup sets ids[i] to the id of row i of c, for the rows [lo, hi),
	// or -1 when row i is null or its value was never encoded. c must be
	// in the encoded domain. A dictionary is read-only once built, so
	// lookups of disjoint ranges may run concurrently.
	lookup(c *keyCol, ids []int32, lo, hi int)
}

// encode assigns each row of c the id of its value, ids dense in
// first-appearance order, and returns the number of ids and a dictionary
// for lookups. With nullGroup nulls form one group of their own (grouping);
// otherwise they get -1 and no id (a join's build side).
func encode(c *keyCol, nullGroup bool, ids []int32) (int, colDict) {
	if c.dom == domString {
		return encodeStrings(c, nullGroup, ids)
	}
	return encodeWords(c.words[:c.n], c.valid, nullGroup, ids)
}

// directLimit bounds the size of a direct-mapped dictionary (value - min as
// the index): dense integer keys skip hashing entirely. With directSpan's
// factor of 8 a direct map of a span below 8n takes at most 32 bytes per
// row, no more than the hash table of n distinct keys (16-byte slots, two
// to four per key), so TPC-H's order keys (a quarter of a span 4 times
// the row count) are direct-mapped too; the limit keeps the map of a wide
// span over few distinct keys within 32 MB.
const directLimit = 1 << 23

// directFactor is how many slots per row a direct map may have.
const directFactor = 8

// directSpan is encodeWords's limit: a span below it is direct-mapped.
func directSpan(n int64) int64 { return min(max(directFactor*n, 1024), directLimit) }

// wordDict is the dictionary of a word column: direct-mapped when the
// values are dense, a hash table otherwise.
type wordDict struct {
	direct []int32 // id+1 at value-min; 0 = absent
	min    int64
	table  *i64Table
	// filter, for a table of at most filterMaxKeys keys, has the bit
	// filterBit(k) set for every key k: a lookup whose bit is clear
	// misses without probing the table. A join probing many rows against
	// a few sparse keys (TPC-H Q17: 6M line items against 200 parts)
	// mostly misses, and a clear bit among ~32 per key is a predictable
	// branch where the table's slots are not; against a table too big
	// for the cache (Q3: 3M line items against 150 thousand orders, one
	// in ten matching) a filter of 8 bits per key stays in it.
	filter []uint64
	fshift uint
}

// prepareLookups readies d for probes rows lookups before they start
// (concurrent lookups only read it): a hashed dictionary probed by many
// more rows than it has keys gets its filter.
func prepareLookups(d colDict, probes int) {
	var wd *wordDict
	switch d := d.(type) {
	case *wordDict:
		wd = d
	case *shortStrDict:
		wd = d.words
	}
	if wd != nil && wd.table != nil && probes >= 4*wd.table.count {
		wd.buildFilter()
	}
}

// filterMaxKeys bounds the keys of a table with a filter (at 8 bits per
// key a filter of at most 2 MB).
const filterMaxKeys = 1 << 20

// filterBitsPerKey is the filter's bits per key for a table of keys keys:
// 32 for a small table (misses then cost a bit test, hits one probe more),
// 8 for a larger one (about one false hit in eight).
func filterBitsPerKey(keys int64) int {
	if keys <= 1<<14 {
		return 32
	}
	return 8
}

// fibFilter is the filter's hashing multiplier, another than the table's
// so that the two hashes are independent.
const fibFilter = 0xC2B2AE3D27D4EB4F

// filterBit is the bit of k in a filter of 64-fshift bits.
func filterBit(k int64, fshift uint) uint64 { return (uint64(k) * fibFilter) >> fshift }

// buildFilter sets d.filter from the table's keys when it has at most
// filterMaxKeys of them.
func (d *wordDict) buildFilter() {
	t := d.table
	if t == nil || t.count > filterMaxKeys {
		return
	}
	bits := 64
	for bits < filterBitsPerKey(int64(t.count))*t.count {
		bits *= 2
	}
	d.filter = make([]uint64, bits/64)
	d.fshift = 64
	for b := bits; b > 1; b >>= 1 {
		d.fshift--
	}
	for _, s := range t.slots {
		if s.val1 != 0 {
			b := filterBit(s.key, d.fshift)
			d.filter[b>>6] |= 1 << (b & 63)
		}
	}
}

// lookup implements colDict.
func (d *wordDict) lookup(c *keyCol, ids []int32, lo, hi int) {
	d.lookupWords(c.words[lo:hi], validity{bits: c.valid.bits, off: c.valid.off + lo}, ids[lo:hi])
}

// lookupWords sets ids[i] to the id of words[i], or -1 when null or absent.
func (d *wordDict) lookupWords(words []int64, v validity, ids []int32) {
	ids = ids[:len(words)]
	if d.direct != nil {
		direct := d.direct
		span := uint64(len(direct))
		if v.all() {
			for i, w := range words {
				id := int32(-1)
				if off := uint64(w - d.min); off < span {
					id = direct[off] - 1
				}
				ids[i] = id
			}
			return
		}
		for i, w := range words {
			off := uint64(w - d.min)
			if off < span && v.valid(i) {
				ids[i] = direct[off] - 1
			} else {
				ids[i] = -1
			}
		}
		return
	}
	if f := d.filter; f != nil {
		t, fshift := d.table, d.fshift
		for i, w := range words {
			id := int32(-1)
			if b := filterBit(w, fshift); f[b>>6]&(1<<(b&63)) != 0 && v.valid(i) {
				id = t.find(w)
			}
			ids[i] = id
		}
		return
	}
	if v.all() {
		t := d.table
		for i, w := range words {
			ids[i] = t.find(w)
		}
		return
	}
	for i, w := range words {
		if v.valid(i) {
			ids[i] = d.table.find(w)
		} else {
			ids[i] = -1
		}
	}
}

// encodeWords is encode for a word column.
func encodeWords(words []int64, v validity, nullGroup bool, ids []int32) (int, *wordDict) {
	lo, hi, seen := wordRange(words, v)
	return encodeWordsIn(words, v, nullGroup, ids, lo, hi, seen)
}

// wordRange returns the least and the greatest valid word, and whether
// there is any valid word.
func wordRange(words []int64, v validity) (lo, hi int64, seen bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	if v.all() {
		for _, w := range words {
			lo, hi = min(lo, w), max(hi, w)
		}
		return lo, hi, len(words) > 0
	}
	for i, w := range words {
		if v.valid(i) {
			lo, hi, seen = min(lo, w), max(hi, w), true
		}
	}
	return lo, hi, seen
}

// encodeWordsIn is encodeWords given the words' range (wordRange's
// results, which a caller that built the words computed on the way).
func encodeWordsIn(words []int64, v validity, nullGroup bool, ids []int32, lo, hi int64, seen bool) (int, *wordDict) {
	ids = ids[:len(words)]
	d := &wordDict{min: lo}
	next := int32(0)
	nullID := int32(-1)
	if !seen {
		d.direct = []int32{}
		for i := range ids {
			if nullGroup {
				if nullID < 0 {
					nullID, next = next, next+1
				}
			}
			ids[i] = nullID
		}
		return int(next), d
	}
	span := uint64(hi - lo)
	limit := uint64(directSpan(int64(len(words))))
	if span < limit {
		d.direct = make([]int32, span+1)
		slots := d.direct
		if v.all() {
			for i, w := range words {
				s := &slots[uint64(w-lo)]
				if *s == 0 {
					next++
					*s = next
				}
				ids[i] = *s - 1
			}
			return int(next), d
		}
		for i, w := range words {
			if !v.valid(i) {
				if nullGroup && nullID < 0 {
					nullID, next = next, next+1
				}
				ids[i] = nullID
				continue
			}
			s := &slots[uint64(w-lo)]
			if *s == 0 {
				next++
				*s = next
			}
			ids[i] = *s - 1
		}
		return int(next), d
	}
	t := newI64Table(64)
	d.table = t
	for i, w := range words {
		if !v.valid(i) {
			if nullGroup && nullID < 0 {
				nullID, next = next, next+1
			}
			ids[i] = nullID
			continue
		}
		if t.full() {
			t.growFor(expectKeys(t.count, i, len(words)))
		}
		id, added := t.insert(w, next)
		if added {
			next++
		}
		ids[i] = id
	}
	return int(next), d
}

// expectKeys estimates how many distinct keys a column of n rows will have
// when the first `seen` rows held `keys`: after a sample of a few thousand
// rows, by linear extrapolation (exact for unique keys, an overestimate
// only when new keys thin out, which the next growth corrects by doubling).
// Growing straight to the estimate avoids rehashing a high-cardinality
// column ~20 times, which cost 4x under memory pressure; a low-cardinality
// column stops growing long before the sample ends.
func expectKeys(keys, seen, n int) int {
	const sample = 4096
	if seen < sample {
		return 2 * keys
	}
	est := int(int64(keys) * int64(n) / int64(seen))
	return min(max(2*keys, est+est/8), n)
}

// strDict is the dictionary of a string column: a hash table whose slots
// keep the 64-bit hash, and an arena holding each distinct key's bytes
// once, contiguously, so the comparisons after a hash hit stay in cache.
// It replaced a Go map[string]int32, which cost ~20 ns per probe.
type strDict struct {
	seed  maphash.Seed
	slots []strSlot
	mask  uint64
	count int
	arena []byte
	koff  []int // key k is arena[koff[k]:koff[k+1]]
}

// strSlot is one slot: k indexes the key in the arena; id1 is the id plus
// one (0 = empty).
type strSlot struct {
	h   uint64
	k   int32
	id1 int32
}

// newStrDict makes an empty dictionary.
func newStrDict() *strDict {
	d := &strDict{seed: maphash.MakeSeed(), koff: []int{0}}
	d.slots = make([]strSlot, 64)
	d.mask = 63
	return d
}

// key returns the bytes of distinct key k.
func (d *strDict) key(k int32) []byte { return d.arena[d.koff[k]:d.koff[k+1]] }

// find returns the id of b (hash h), or -1.
func (d *strDict) find(b []byte, h uint64) int32 {
	i := h & d.mask
	for {
		s := &d.slots[i]
		if s.id1 == 0 {
			return -1
		}
		if s.h == h && bytes.Equal(d.key(s.k), b) {
			return s.id1 - 1
		}
		i = (i + 1) & d.mask
	}
}

// insert returns the id of key b, giving it id when new; the table must
// not be full.
func (d *strDict) insert(b []byte, id int32) (int32, bool) {
	h := maphash.Bytes(d.seed, b)
	i := h & d.mask
	for {
		s := &d.slots[i]
		if s.id1 == 0 {
			d.arena = append(d.arena, b...)
			d.koff = append(d.koff, len(d.arena))
			*s = strSlot{h: h, k: int32(len(d.koff) - 2), id1: id + 1}
			d.count++
			return id, true
		}
		if s.h == h && bytes.Equal(d.key(s.k), b) {
			return s.id1 - 1, false
		}
		i = (i + 1) & d.mask
	}
}

// full reports whether one more key would push the load factor over 1/2.
func (d *strDict) full() bool { return 2*(d.count+1) > len(d.slots) }

// growFor resizes the table for about keys keys (at least doubling it).
func (d *strDict) growFor(keys int) {
	old := d.slots
	size := 2 * len(old)
	for size < 2*keys {
		size *= 2
	}
	d.slots = make([]strSlot, size)
	d.mask = uint64(len(d.slots) - 1)
	for _, s := range old {
		if s.id1 == 0 {
			continue
		}
		i := s.h & d.mask
		for d.slots[i].id1 != 0 {
			i = (i + 1) & d.mask
		}
		d.slots[i] = s
	}
}

// lookup implements colDict.
func (d *strDict) lookup(c *keyCol, ids []int32, lo, hi int) {
	offs, data := stringParts(c.strs)
	for i := lo; i < hi; i++ {
		if !c.valid.valid(i) {
			ids[i] = -1
			continue
		}
		b := data[offs[i]:offs[i+1]]
		ids[i] = d.find(b, maphash.Bytes(d.seed, b))
	}
}

// shortStrWord packs a string of at most 8 bytes whose last byte is not
// zero into one word: its bytes, little-endian, zero-padded. Two such
// strings pack alike only when they are equal (the longer one's extra
// bytes would be zeros, its last byte among them). ok is false for any
// other string. data[off:] holds the string's bytes and maybe more.
func shortStrWord(data []byte, off, n int) (w int64, ok bool) {
	switch {
	case n == 0:
		return 0, true
	case n > 8 || data[off+n-1] == 0:
		return 0, false
	case off+8 <= len(data):
		x := binary.LittleEndian.Uint64(data[off:])
		if n < 8 {
			x &= 1<<(8*uint(n)) - 1
		}
		return int64(x), true
	}
	var x uint64
	for j := n - 1; j >= 0; j-- {
		x = x<<8 | uint64(data[off+j])
	}
	return int64(x), true
}

// shortStrWords packs rows [lo, hi) of a string column into words
// (shortStrWord; a null row's word is 0 when its string does not pack) and
// returns their range over the valid rows (wordRange's results), found on
// the way. ok is false when a valid row's string does not pack.
func shortStrWords(a *array.String, v validity, lo, hi int) (words []int64, wlo, whi int64, seen, ok bool) {
	offs, data := stringParts(a)
	words = make([]int64, hi-lo)
	wlo, whi = math.MaxInt64, math.MinInt64
	if v.all() {
		// Every row is valid: no validity test per row, and the end of
		// one row's string is the start of the next's.
		next := int(offs[lo])
		for i := lo; i < hi; i++ {
			o := next
			next = int(offs[i+1])
			w, ok := shortStrWord(data, o, next-o)
			if !ok {
				return nil, 0, 0, false, false
			}
			words[i-lo] = w
			wlo, whi = min(wlo, w), max(whi, w)
		}
		return words, wlo, whi, hi > lo, true
	}
	for i := lo; i < hi; i++ {
		o := int(offs[i])
		w, ok := shortStrWord(data, o, int(offs[i+1])-o)
		switch {
		case v.valid(i) && !ok:
			return nil, 0, 0, false, false
		case v.valid(i):
			wlo, whi, seen = min(wlo, w), max(whi, w), true
		case !ok:
			w = 0
		}
		words[i-lo] = w
	}
	return words, wlo, whi, seen, true
}

// shortStrDict is the dictionary of a string column whose strings all
// pack into words (shortStrWord): the words' dictionary, direct-mapped or
// hashed like any integer key's, with no string hashing or byte
// comparison. A probe string that does not pack matches nothing.
type shortStrDict struct {
	words *wordDict
}

// lookup implements colDict.
func (d *shortStrDict) lookup(c *keyCol, ids []int32, lo, hi int) {
	offs, data := stringParts(c.strs)
	const chunk = 1024
	var buf [chunk]int64
	var long []int
	for base := lo; base < hi; base += chunk {
		end := min(base+chunk, hi)
		words := buf[:end-base]
		long = long[:0]
		for i := base; i < end; i++ {
			o := int(offs[i])
			w, ok := shortStrWord(data, o, int(offs[i+1])-o)
			if !ok {
				// Every word is some packable string's, so a string
				// that does not pack is marked instead: no dictionary
				// key is it.
				long = append(long, i)
			}
			words[i-base] = w
		}
		d.words.lookupWords(words, validity{bits: c.valid.bits, off: c.valid.off + base}, ids[base:end])
		for _, i := range long {
			ids[i] = -1
		}
	}
}

// byteIDs is encode for a string column whose valid strings are all empty
// or one non-zero byte (one-letter flags such as TPC-H's l_returnflag),
// in one pass with no words: each string's word (shortStrWord: 0 for the
// empty string, the byte for a one-byte string) indexes a direct map of
// 256 slots. The ids are dense in first appearance, so they are
// encodeWords's on the words exactly, and the dictionary is that of the
// words. ok is false, with ids partly written, when a valid string is
// longer or is the zero byte.
func byteIDs(c *keyCol, nullGroup bool, ids []int32) (groups int, d colDict, ok bool) {
	return byteIDsOf(c.strs, c.valid, nil, nullGroup, ids[:c.n])
}

// byteIDsOf is byteIDs over rows sel of a (nil: every row), ids[k] the id
// of row sel[k] (each sel[k] a row of a).
func byteIDsOf(a *array.String, v validity, sel []int32, nullGroup bool, ids []int32) (groups int, d colDict, ok bool) {
	offs, data := stringParts(a)
	offs = offs[:a.Len()+1]
	slots := make([]int32, 256)
	next, nullID := int32(0), int32(-1)
	all := v.all()
	for k := range ids {
		i := k
		if sel != nil {
			i = int(sel[k])
		}
		if !all && !v.valid(i) {
			if nullGroup && nullID < 0 {
				nullID, next = next, next+1
			}
			ids[k] = nullID
			continue
		}
		o, e := offs[i], offs[i+1]
		var w byte
		switch e - o {
		case 0:
		case 1:
			if w = data[o]; w == 0 {
				return 0, nil, false
			}
		default:
			return 0, nil, false
		}
		s := &slots[w]
		if *s == 0 {
			next++
			*s = next
		}
		ids[k] = *s - 1
	}
	return int(next), &shortStrDict{words: &wordDict{direct: slots}}, true
}

// encodeStrings is encode for a string column.
func encodeStrings(c *keyCol, nullGroup bool, ids []int32) (int, colDict) {
	if g, d, ok := byteIDs(c, nullGroup, ids); ok {
		return g, d
	}
	if words, lo, hi, seen, ok := shortStrWords(c.strs, c.valid, 0, c.n); ok {
		// Every string packs into a word: encode the words, which gives
		// the same dense first-appearance ids as the string table.
		g, d := encodeWordsIn(words, c.valid, nullGroup, ids, lo, hi, seen)
		return g, &shortStrDict{words: d}
	}
	d := newStrDict()
	offs, data := stringParts(c.strs)
	next := int32(0)
	nullID := int32(-1)
	for i := 0; i < c.n; i++ {
		if !c.valid.valid(i) {
			if nullGroup && nullID < 0 {
				nullID, next = next, next+1
			}
			ids[i] = nullID
			continue
		}
		if d.full() {
			d.growFor(expectKeys(d.count, i, c.n))
		}
		id, added := d.insert(data[offs[i]:offs[i+1]], next)
		if added {
			next++
		}
		ids[i] = id
	}
	return int(next), d
}

// pairWords folds two id columns into one word per row (-1 when either is
// -1): a*gb + b, which is below ga*gb <= 2^62 for int32 ids.
func pairWords(a, b []int32, gb int) ([]int64, validity) {
	words := make([]int64, len(a))
	var bits []byte
	for i := range a {
		if a[i] < 0 || b[i] < 0 {
			if bits == nil {
				bits = make([]byte, (len(a)+7)/8)
				for j := range bits {
					bits[j] = 0xff
				}
			}
			bits[i>>3] &^= 1 << (i & 7)
			words[i] = -1
			continue
		}
		words[i] = int64(a[i])*int64(gb) + int64(b[i])
	}
	return words, validity{bits: bits}
}
