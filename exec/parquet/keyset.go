package parquet

import "slices"

// keySet is the set of a runtime key filter (exec.KeyFilter) as the late
// scan tests it: a bitmap over [lo, hi] when that span is small, else the
// sorted keys, searched.
type keySet struct {
	lo, hi int64
	empty  bool
	bits   []uint64 // bit k-lo is set for each key k, when the span is small
	sorted []int64  // the keys, when it is not
}

// maxKeyBitmap is the widest span of keys (in bits: 1 MiB of bitmap) a key
// set holds as a bitmap.
const maxKeyBitmap = 1 << 23

// newKeySet builds the set of keys (sorted ascending, distinct).
func newKeySet(keys []int64) *keySet {
	if len(keys) == 0 {
		return &keySet{empty: true}
	}
	ks := &keySet{lo: keys[0], hi: keys[len(keys)-1]}
	if span := uint64(ks.hi - ks.lo); span < maxKeyBitmap {
		ks.bits = make([]uint64, span/64+1)
		for _, k := range keys {
			d := uint64(k - ks.lo)
			ks.bits[d/64] |= 1 << (d % 64)
		}
		return ks
	}
	ks.sorted = keys
	return ks
}

// intersect returns the set of the keys of both k and keys (two filters on
// one column).
func (k *keySet) intersect(keys []int64) *keySet {
	var both []int64
	for _, v := range keys {
		if k.has(v) {
			both = append(both, v)
		}
	}
	return newKeySet(both)
}

// has reports whether v is in the set.
func (k *keySet) has(v int64) bool {
	if k.empty || v < k.lo || v > k.hi {
		return false
	}
	if k.bits != nil {
		d := uint64(v - k.lo)
		return k.bits[d/64]&(1<<(d%64)) != 0
	}
	_, found := slices.BinarySearch(k.sorted, v)
	return found
}

// filter64 appends to pass the positions of the values of vals in the set.
func (k *keySet) filter64(vals []int64, pass []int32) []int32 {
	if k.empty {
		return pass
	}
	if k.bits == nil {
		for r, v := range vals {
			if k.has(v) {
				pass = append(pass, int32(r))
			}
		}
		return pass
	}
	lo, span, bits := k.lo, uint64(k.hi-k.lo), k.bits
	for r, v := range vals {
		d := uint64(v - lo)
		if d <= span && bits[d/64]&(1<<(d%64)) != 0 {
			pass = append(pass, int32(r))
		}
	}
	return pass
}
