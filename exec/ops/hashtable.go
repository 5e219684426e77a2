package ops

// i64Table is an open-addressing hash table from int64 keys to int32 values
// with linear probing and Fibonacci hashing. It exists because a Go map
// costs ~20 ns per lookup on int64 keys where this table, whose slots keep
// the key next to the value, costs a few; it is the hot loop of grouping
// and hash joins.
type i64Table struct {
	slots []i64Slot
	mask  uint64
	shift uint
	count int
}

// i64Slot is one table slot; val1 is the value plus one, so the zero slot
// is empty.
type i64Slot struct {
	key  int64
	val1 int32
}

// fib is 2^64 divided by the golden ratio, the Fibonacci hashing multiplier.
const fib = 0x9E3779B97F4A7C15

// newI64Table makes a table with room for about hint keys.
func newI64Table(hint int) *i64Table {
	size := 16
	for size < 2*hint {
		size *= 2
	}
	t := &i64Table{}
	t.alloc(size)
	return t
}

// alloc sizes an empty table to size slots (a power of two).
func (t *i64Table) alloc(size int) {
	t.slots = make([]i64Slot, size)
	t.mask = uint64(size - 1)
	shift := uint(64)
	for s := size; s > 1; s >>= 1 {
		shift--
	}
	t.shift = shift
}

// home is the first slot probed for k.
func (t *i64Table) home(k int64) uint64 { return (uint64(k) * fib) >> t.shift }

// find returns the value stored for k, or -1.
func (t *i64Table) find(k int64) int32 {
	h := t.home(k)
	for {
		s := &t.slots[h]
		if s.val1 == 0 {
			return -1
		}
		if s.key == k {
			return s.val1 - 1
		}
		h = (h + 1) & t.mask
	}
}

// full reports whether one more key would push the load factor over 1/2;
// the caller then grows the table before inserting.
func (t *i64Table) full() bool { return 2*(t.count+1) > len(t.slots) }

// insert returns the value stored for k, storing v first when k is absent
// (added reports that). v must be non-negative, and the table must not be
// full.
func (t *i64Table) insert(k int64, v int32) (val int32, added bool) {
	h := t.home(k)
	for {
		s := &t.slots[h]
		if s.val1 == 0 {
			s.key, s.val1 = k, v+1
			t.count++
			return v, true
		}
		if s.key == k {
			return s.val1 - 1, false
		}
		h = (h + 1) & t.mask
	}
}

// growFor resizes the table for about keys keys (at least doubling it) and
// reinserts every key.
func (t *i64Table) growFor(keys int) {
	old := t.slots
	size := 2 * len(old)
	for size < 2*keys {
		size *= 2
	}
	t.alloc(size)
	for _, s := range old {
		if s.val1 == 0 {
			continue
		}
		h := t.home(s.key)
		for t.slots[h].val1 != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = s
	}
}
