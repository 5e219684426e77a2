package ops

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/internal/phys"
)

// The sort is hand-written because arrow/compute's sort_indices leaks 8·n
// bytes of scratch per call, orders NaN like a null (between the values and
// the nulls) where dfopt orders it above +Inf, and costs ~850 ns/row
// (go-deps.md §1.4–1.5). Here every numeric or bool key becomes an unsigned
// word whose order is the key order (desc folded in), sorted by an LSD radix
// sort (stable, no comparisons) or, for small runs, pdqsort on (word, row)
// pairs; strings sort by an 8-byte prefix word and then by their bytes.
// Multi-key sorts sort by the first key and refine each run of equal keys by
// the next, so every key gets its typed sort and no comparison goes through
// an interface. A run already ordered by its key (an O(n) check) skips that
// key's sort, so inputs presorted on a leading key cost only the refinement.

// SortIndices returns the stable permutation that orders the rows by keys:
// out[j] is the input row at output position j. Each key sorts ascending
// unless desc[k], with nulls first unless nullsLast[k] (desc does not move
// nulls); floats by the total order -Inf < ... < -0.0 < +0.0 < ... < +Inf <
// NaN (every NaN equal), strings by bytes, false < true; rows with equal
// keys keep their input order. desc and nullsLast may be nil (all false) or
// have one entry per key; keys must be at least one column of equal length.
func SortIndices(keys []arrow.Array, desc, nullsLast []bool) ([]int32, error) {
	s, n, err := newSorter(keys, desc, nullsLast)
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	return s.sortAll(n), nil
}

// SortIndicesLazy is SortIndices over nkeys keys of n rows each, where
// key(k) gives key k's column only when the sort first needs it: key 0 at
// once, key k+1 only if some run of rows equal on keys 0..k has more than
// one row. A multi-key sort whose first keys already tell every row apart
// (row numbers sorted back after a reordered join chain) then never
// computes the others. The permutation is SortIndices' over all the keys;
// an error from key stops the sort and is returned as it is (a column of
// another length than n, as an error of its own).
func SortIndicesLazy(n, nkeys int, key func(k int) (arrow.Array, error), desc, nullsLast []bool) ([]int32, error) {
	if nkeys == 0 {
		return nil, fmt.Errorf("sort: no key columns")
	}
	if err := checkRows(n); err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	if (desc != nil && len(desc) != nkeys) || (nullsLast != nil && len(nullsLast) != nkeys) {
		return nil, fmt.Errorf("sort: %d desc and %d nulls_last flags for %d keys", len(desc), len(nullsLast), nkeys)
	}
	s := &sorter{cols: make([]sortCol, nkeys), loaded: make([]bool, nkeys)}
	s.load = func(k int) error {
		a, err := key(k)
		if err != nil {
			return err
		}
		if a == nil || a.Len() != n {
			return fmt.Errorf("sort: key %d is not a column of %d rows", k, n)
		}
		c := &s.cols[k]
		c.desc = desc != nil && desc[k]
		c.nullsLast = nullsLast != nil && nullsLast[k]
		c.valid = validityOf(a)
		if err := c.fill(a); err != nil {
			return fmt.Errorf("sort: key %d: %w", k, err)
		}
		return nil
	}
	idx := s.sortAll(n)
	if s.err != nil {
		return nil, s.err
	}
	return idx, nil
}

// sortAll returns the stable permutation that orders all n rows.
func (s *sorter) sortAll(n int) []int32 {
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	s.sortRun(idx, 0)
	return idx
}

// need loads key k when the sorter loads its keys lazily and has not yet;
// false means loading failed (s.err holds why).
func (s *sorter) need(k int) bool {
	if s.load == nil || s.loaded[k] {
		return s.err == nil
	}
	if s.err != nil {
		return false
	}
	s.loaded[k] = true
	s.err = s.load(k)
	return s.err == nil
}

// sortCol is one sort key in sortable form.
type sortCol struct {
	words     []uint64 // numeric and bool keys: order word per row, desc folded in
	isStr     bool
	offs      []int32 // string keys: offsets and bytes (see stringParts)
	data      []byte
	desc      bool
	nullsLast bool
	valid     validity
}

// str returns row i of a string key.
func (c *sortCol) str(i int32) []byte { return c.data[c.offs[i]:c.offs[i+1]] }

// cmpVals compares the non-null values of rows a and b under this key
// (desc applied).
func (c *sortCol) cmpVals(a, b int32) int {
	if c.isStr {
		r := bytes.Compare(c.str(a), c.str(b))
		if c.desc {
			return -r
		}
		return r
	}
	return cmp.Compare(c.words[a], c.words[b])
}

// cmpRows compares rows a and b under this key, nulls included.
func (c *sortCol) cmpRows(a, b int32) int {
	if !c.valid.all() {
		na, nb := c.valid.null(int(a)), c.valid.null(int(b))
		if na || nb {
			switch {
			case na && nb:
				return 0
			case na != c.nullsLast:
				return -1
			default:
				return 1
			}
		}
	}
	return c.cmpVals(a, b)
}

// sorter sorts row indices by a list of keys.
type sorter struct {
	cols    []sortCol
	pairs   []pair // scratch, reused run after run
	tmp     []pair
	scratch []int32
	packed  []uint64
	// load, when set, fills cols[k] the first time a run is sorted by key
	// k (loaded[k]); its first error stops the sort (err).
	load   func(k int) error
	loaded []bool
	err    error
}

// pair is a row with its sort word; for a string key, l is the string's
// length (it fills what would be padding), which with the 8-byte prefix
// word decides most comparisons without touching the string's bytes.
type pair struct {
	w uint64
	i int32
	l int32
}

// newSorter validates the keys and converts them to sortable form.
func newSorter(keys []arrow.Array, desc, nullsLast []bool) (*sorter, int, error) {
	n, err := checkKeys(keys)
	if err != nil {
		return nil, 0, err
	}
	if desc != nil && len(desc) != len(keys) {
		return nil, 0, fmt.Errorf("%d desc flags for %d keys", len(desc), len(keys))
	}
	if nullsLast != nil && len(nullsLast) != len(keys) {
		return nil, 0, fmt.Errorf("%d nulls_last flags for %d keys", len(nullsLast), len(keys))
	}
	s := &sorter{cols: make([]sortCol, len(keys))}
	for k, a := range keys {
		c := &s.cols[k]
		c.desc = desc != nil && desc[k]
		c.nullsLast = nullsLast != nil && nullsLast[k]
		c.valid = validityOf(a)
		if err := c.fill(a); err != nil {
			return nil, 0, fmt.Errorf("key %d: %w", k, err)
		}
	}
	return s, n, nil
}

// fill computes the order words (or string parts) of a key column.
func (c *sortCol) fill(a arrow.Array) error {
	flip := uint64(0)
	if c.desc {
		flip = math.MaxUint64
	}
	if phys.IsTemporal(a) {
		v := phys.View(a) // temporal keys order as their integers
		defer v.Release()
		a = v
	}
	if isNarrowArray(a) {
		if words, ok := narrowSortWords(a, flip); ok {
			c.words = words
			return nil
		}
	}
	switch a := a.(type) {
	case *array.Int64:
		c.words = make([]uint64, a.Len())
		for i, v := range a.Int64Values() {
			c.words[i] = (uint64(v) ^ 1<<63) ^ flip
		}
	case *array.Int32:
		c.words = make([]uint64, a.Len())
		for i, v := range a.Int32Values() {
			c.words[i] = (uint64(int64(v)) ^ 1<<63) ^ flip
		}
	case *array.Float64:
		c.words = make([]uint64, a.Len())
		for i, v := range a.Float64Values() {
			c.words[i] = floatSortKey(v) ^ flip
		}
	case *array.Boolean:
		c.words = make([]uint64, a.Len())
		bits, off := boolParts(a)
		for i := range c.words {
			w := uint64(0)
			if bitAt(bits, off, i) {
				w = 1
			}
			c.words[i] = w ^ flip
		}
	case *array.String:
		c.isStr = true
		c.offs, c.data = stringParts(a)
	default:
		return fmt.Errorf("unsupported sort key type %s", a.DataType())
	}
	return nil
}

// sortRun sorts idx (rows in ascending row order, all equal on keys before
// k) by keys k, k+1, ... Because idx starts ascending, ordering ties by row
// index is exactly stability.
//
// When idx is already non-decreasing under key k (as a join that keeps its
// first input's order leaves a sort on row numbers), the stable sort by key
// k is the identity, so it is skipped: an O(n) check that stops at the first
// descent, after which only the runs of equal key k are refined.
func (s *sorter) sortRun(idx []int32, k int) {
	if !s.need(k) {
		return
	}
	c := &s.cols[k]
	if len(idx) > 1 && presorted(idx, c) {
		if k+1 < len(s.cols) {
			s.refineRuns(idx, k)
		}
		return
	}
	vals, nulls := s.partitionNulls(idx, c)
	if c.isStr {
		s.sortStrings(vals, c)
	} else {
		s.sortWords(vals, c.words)
	}
	if k+1 == len(s.cols) {
		return
	}
	if len(nulls) > 1 {
		s.sortRun(nulls, k+1)
	}
	for start := 0; start < len(vals); {
		end := start + 1
		for end < len(vals) && c.cmpVals(vals[start], vals[end]) == 0 {
			end++
		}
		if end-start > 1 {
			s.sortRun(vals[start:end], k+1)
		}
		start = end
	}
}

// presorted reports whether the rows of idx are non-decreasing under key c
// (nulls placed as the key says). It compares exactly as the sort orders,
// so a true answer means the stable sort by c would leave idx unchanged.
func presorted(idx []int32, c *sortCol) bool {
	if !c.isStr && c.valid.all() {
		w := c.words
		prev := w[idx[0]]
		for _, r := range idx[1:] {
			x := w[r]
			if x < prev {
				return false
			}
			prev = x
		}
		return true
	}
	for j := 1; j < len(idx); j++ {
		if c.cmpRows(idx[j-1], idx[j]) > 0 {
			return false
		}
	}
	return true
}

// refineRuns sorts each run of rows of idx that are equal under key k (idx
// already ordered by key k) by the keys after k.
func (s *sorter) refineRuns(idx []int32, k int) {
	c := &s.cols[k]
	if !c.isStr && c.valid.all() {
		w := c.words
		for start := 0; start < len(idx); {
			end := start + 1
			for end < len(idx) && w[idx[end]] == w[idx[start]] {
				end++
			}
			if end-start > 1 {
				s.sortRun(idx[start:end], k+1)
			}
			start = end
		}
		return
	}
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && c.cmpRows(idx[start], idx[end]) == 0 {
			end++
		}
		if end-start > 1 {
			s.sortRun(idx[start:end], k+1)
		}
		start = end
	}
}

// partitionNulls moves the null rows of idx to the front or back (as the key
// says), keeping order within each part, and returns both parts.
func (s *sorter) partitionNulls(idx []int32, c *sortCol) (vals, nulls []int32) {
	if c.valid.all() {
		return idx, nil
	}
	if cap(s.scratch) < len(idx) {
		s.scratch = make([]int32, len(idx))
	}
	nullRows := s.scratch[:0]
	w := 0
	for _, r := range idx {
		if c.valid.valid(int(r)) {
			idx[w] = r
			w++
		} else {
			nullRows = append(nullRows, r)
		}
	}
	if c.nullsLast {
		copy(idx[w:], nullRows)
		return idx[:w], idx[w:]
	}
	nn := len(nullRows)
	copy(idx[nn:], idx[:w])
	copy(idx, nullRows)
	return idx[nn:], idx[:nn]
}

// radixMin is the run length from which numeric runs use the radix sort.
const radixMin = 256

// sortWords sorts rows (ascending) by their words, ties by row.
func (s *sorter) sortWords(idx []int32, words []uint64) {
	n := len(idx)
	if n < 2 {
		return
	}
	if n <= 16 {
		insertionByWord(idx, words)
		return
	}
	if n < radixMin && s.sortPacked(idx, words) {
		return
	}
	p := s.pairBuf(n)
	for j, r := range idx {
		p[j] = pair{w: words[r], i: r}
	}
	if n < radixMin {
		slices.SortFunc(p, cmpPair)
	} else {
		p = radixPairs(p, s.tmp[:n])
	}
	for j := range p {
		idx[j] = p[j].i
	}
}

// sortPacked sorts a short run whose words span less than 2^32 as one
// uint64 per row, the word's distance from the run's least above the row's
// position, which the standard library sorts without a comparison
// function; equal words keep their positions' order, which is stability.
// It reports false, leaving idx as it was, when the words span more.
func (s *sorter) sortPacked(idx []int32, words []uint64) bool {
	lo, hi := words[idx[0]], words[idx[0]]
	for _, r := range idx[1:] {
		w := words[r]
		lo, hi = min(lo, w), max(hi, w)
	}
	if hi-lo >= 1<<32 {
		return false
	}
	n := len(idx)
	if cap(s.packed) < n {
		s.packed = make([]uint64, n)
	}
	if cap(s.scratch) < n {
		s.scratch = make([]int32, n)
	}
	p, orig := s.packed[:n], s.scratch[:n]
	for j, r := range idx {
		p[j] = (words[r]-lo)<<32 | uint64(j)
	}
	slices.Sort(p)
	copy(orig, idx)
	for j, w := range p {
		idx[j] = orig[uint32(w)]
	}
	return true
}

// cmpPair orders pairs by word, then row.
func cmpPair(a, b pair) int {
	if a.w != b.w {
		return cmp.Compare(a.w, b.w)
	}
	return cmp.Compare(a.i, b.i)
}

// insertionByWord is a stable insertion sort for tiny runs.
func insertionByWord(idx []int32, words []uint64) {
	for i := 1; i < len(idx); i++ {
		r := idx[i]
		w := words[r]
		j := i
		for j > 0 && words[idx[j-1]] > w {
			idx[j] = idx[j-1]
			j--
		}
		idx[j] = r
	}
}

// pairBuf returns n pairs of scratch (and makes tmp at least as long).
func (s *sorter) pairBuf(n int) []pair {
	if cap(s.pairs) < n {
		s.pairs = make([]pair, n)
		s.tmp = make([]pair, n)
	}
	return s.pairs[:n]
}

// radixPairs sorts pairs by word with a stable LSD radix sort, one byte per
// pass, skipping the bytes every word shares. It returns whichever of a and
// tmp holds the result.
func radixPairs(a, tmp []pair) []pair {
	var counts [8][256]int
	for _, p := range a {
		w := p.w
		counts[0][byte(w)]++
		counts[1][byte(w>>8)]++
		counts[2][byte(w>>16)]++
		counts[3][byte(w>>24)]++
		counts[4][byte(w>>32)]++
		counts[5][byte(w>>40)]++
		counts[6][byte(w>>48)]++
		counts[7][byte(w>>56)]++
	}
	src, dst := a, tmp
	for b := uint(0); b < 8; b++ {
		c := &counts[b]
		shift := 8 * b
		if c[byte(src[0].w>>shift)] == len(src) {
			continue
		}
		sum := 0
		for j, cnt := range c {
			c[j] = sum
			sum += cnt
		}
		for _, p := range src {
			d := byte(p.w >> shift)
			dst[c[d]] = p
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// prefixWord is the first 8 bytes of a string as a big-endian word (zero
// padded), so word order agrees with byte order wherever words differ.
func prefixWord(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var buf [8]byte
	copy(buf[:], b)
	return binary.BigEndian.Uint64(buf[:])
}

// sortStrings sorts rows (ascending) by a string key, ties by row: by the
// prefix word first, then each run of equal prefixes by length and bytes.
func (s *sorter) sortStrings(idx []int32, c *sortCol) {
	n := len(idx)
	if n < 2 {
		return
	}
	flip := uint64(0)
	if c.desc {
		flip = math.MaxUint64
	}
	p := s.pairBuf(n)
	for j, r := range idx {
		b := c.str(r)
		p[j] = pair{w: prefixWord(b) ^ flip, i: r, l: int32(len(b))}
	}
	full := func(a, b pair) int {
		if a.w != b.w {
			return cmp.Compare(a.w, b.w)
		}
		if r := c.cmpTail(a, b); r != 0 {
			return r
		}
		return cmp.Compare(a.i, b.i)
	}
	if n < radixMin {
		slices.SortFunc(p, full)
	} else {
		p = radixPairs(p, s.tmp[:n])
		for start := 0; start < n; {
			end := start + 1
			for end < n && p[end].w == p[start].w {
				end++
			}
			if end-start > 1 && !sameStrings(c, p[start:end]) {
				slices.SortFunc(p[start:end], full)
			}
			start = end
		}
	}
	for j := range p {
		idx[j] = p[j].i
	}
}

// cmpTail compares two strings whose prefix words are equal (desc applied).
// When either has at most 8 bytes, it is a prefix of the other (the word
// holds all its bytes, zero padded, and the other's further bytes in the
// word are zeros), so the shorter one is smaller; otherwise the bytes from
// 8 on decide.
func (c *sortCol) cmpTail(a, b pair) int {
	var r int
	if a.l <= 8 || b.l <= 8 {
		r = cmp.Compare(a.l, b.l)
	} else {
		r = bytes.Compare(c.str(a.i)[8:], c.str(b.i)[8:])
	}
	if c.desc {
		return -r
	}
	return r
}

// sameStrings reports whether every row of a run with equal prefix words has
// the same string; such a run (a heavily repeated key) is already in row
// order after the stable radix pass and needs no comparison sort. Strings of
// at most 8 bytes are equal when their lengths are, with no byte access.
func sameStrings(c *sortCol, run []pair) bool {
	l := run[0].l
	for _, p := range run[1:] {
		if p.l != l {
			return false
		}
	}
	if l <= 8 {
		return true
	}
	first := c.str(run[0].i)
	for _, p := range run[1:] {
		if !bytes.Equal(c.str(p.i), first) {
			return false
		}
	}
	return true
}
