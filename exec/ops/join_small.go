package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/plan"
)

// The small-build probe. When the side a join lists per key (the right
// input, or the left of a right join) has at most smallBuildRows rows and
// the key is one column that compares as a word (integers, dates,
// datetimes, durations, floats, bools), the general path's work —
// encode the build keys, look every probe key up and store its id (4
// bytes per probe row), count each partition's output over the ids, then
// read them again to write the pairs — is
// replaced by one pass over the probe keys that compares each with the
// build's few distinct keys and keeps only the rows that match (a list of
// their row numbers, 4 bytes per matching row). The pairs are then written
// from that list, walking the probe rows in order for the kinds that also
// emit unmatched rows. A dimension filtered to one row (bench Q5: 10M
// probe keys, one build row, 0.1% matching) thus reads the key column once
// and writes 10,000 row numbers instead of 40 MB of ids read twice.
//
// The pairs are JoinIndices's exactly: keys compare in the same domain
// (the same words, newKeyCol), a null key on either side matches nothing
// (null build rows are left out of the key list; a probe row's word is
// compared and its validity checked only when the word matches), and the
// order is the semantics': probe rows in order, each followed by its
// matches in build row order (the rows of each distinct key are listed in
// build order), unmatched rows in place for left and right joins. A full
// join, whose unmatched build rows follow the probe, multi-column and
// string keys take the general path.

// smallBuildRows bounds the listed side of the small-build probe: every
// probe row is compared with up to this many distinct keys (those outside
// the keys' range with one comparison).
const smallBuildRows = 8

// hitChunk is the length of a chunk of a partition's matching rows: the
// list grows a chunk at a time, never copying what it holds.
const hitChunk = 4096

// smallBuild is the listed side of a small-build join: its distinct
// non-null key words in first-appearance order and, per key, its rows in
// build order.
type smallBuild struct {
	keys []int64
	rows [][]int32
	// With two keys or more: a table of smallSlots slots in which every
	// key has a slot of its own, slot (w*mul)>>shift (a perfect hash,
	// searched for in newSmallBuild), so that a probe key is compared with
	// one key only.
	slots []smallSlot
	mul   uint64
}

// smallSlot is a slot of smallBuild's table: a key and its id, id -1 for
// an empty slot.
type smallSlot struct {
	key int64
	id  int32
}

// smallSlots is the size of smallBuild's table (a power of two, four
// times smallBuildRows, so a random multiplier separates 8 keys about
// every third try), and smallShift the shift that maps a 64-bit product
// to a slot.
const (
	smallSlots = 32
	smallShift = 64 - 5
)

// smallPart is what one partition of the probe rows found: the rows that
// matched a key, in order, in chunks, and how many matched each key.
type smallPart struct {
	hits   [][]int32
	perKey [smallBuildRows]int
	n      int // matching rows
}

// add appends probe row q to the matching rows.
func (s *smallPart) add(q int32) {
	if k := len(s.hits); k == 0 || len(s.hits[k-1]) == hitChunk {
		s.hits = append(s.hits, make([]int32, 0, hitChunk))
	}
	k := len(s.hits) - 1
	s.hits[k] = append(s.hits[k], q)
	s.n++
}

// smallJoinApplies reports whether joinIndices takes the small-build path
// for these keys: not a full join, one key column, a listed side of at
// most smallBuildRows rows and a key that compares as a word.
func smallJoinApplies(kind plan.JoinKind, left, right []arrow.Array) bool {
	switch kind {
	case plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return false
	}
	if len(left) != 1 || len(right) != 1 {
		return false
	}
	walk, list := left[0], right[0]
	if kind == plan.RightJoin {
		walk, list = list, walk
	}
	if list.Len() > smallBuildRows {
		return false
	}
	dom, err := joinDomain(walk, list)
	return err == nil && dom != domString
}

// smallJoin is joinIndices for a join smallJoinApplies to: the same pairs
// in the same order, asking reserve for the same bytes before it
// allocates its output. ok is false, with nothing done, when the build's
// keys found no perfect table (the general path then joins).
func smallJoin(kind plan.JoinKind, left, right []arrow.Array, p Parallel, reserve reserveFunc) (li, ri []int32, ok bool, err error) {
	walk, list := left[0], right[0]
	if kind == plan.RightJoin {
		walk, list = list, walk
	}
	dom, err := joinDomain(walk, list)
	if err != nil {
		return nil, nil, true, fmt.Errorf("join: key 0: %w", err)
	}
	lc, err := newKeyCol(list, dom)
	if err != nil {
		return nil, nil, true, fmt.Errorf("join: key 0: %w", err)
	}
	b, ok := newSmallBuild(lc)
	if !ok {
		return nil, nil, false, nil
	}
	wc, err := newKeyCol(walk, dom)
	if err != nil {
		return nil, nil, true, fmt.Errorf("join: key 0: %w", err)
	}
	parts := p.Split(wc.n)
	found := make([]smallPart, len(parts))
	if err := p.Run(len(parts), func(k int) {
		b.scan(wc, parts[k], &found[k])
	}); err != nil {
		return nil, nil, true, fmt.Errorf("join: %w", err)
	}
	// Each partition's output rows, then its place in the output.
	starts := make([]int64, len(parts)+1)
	for k, f := range found {
		var c int64
		switch kind {
		case plan.SemiJoin:
			c = int64(f.n)
		case plan.AntiJoin:
			c = int64(parts[k].Len() - f.n)
		default:
			for id, m := range f.perKey[:len(b.keys)] {
				c += int64(m) * int64(len(b.rows[id]))
			}
			if kind != plan.InnerJoin { // left, right: unmatched rows once
				c += int64(parts[k].Len() - f.n)
			}
		}
		starts[k+1] = starts[k] + c
	}
	total := starts[len(parts)]
	if total > maxRows {
		return nil, nil, true, fmt.Errorf("join: %d output rows exceed %d", total, maxRows)
	}
	if kind == plan.SemiJoin || kind == plan.AntiJoin {
		if reserve != nil {
			if err := reserve(4 * total); err != nil {
				return nil, nil, true, fmt.Errorf("join: %w", err)
			}
		}
		out := make([]int32, total)
		semi := kind == plan.SemiJoin
		if err := p.Run(len(parts), func(k int) {
			o := out[starts[k]:starts[k+1]]
			if semi {
				for _, c := range found[k].hits {
					o = o[copy(o, c):]
				}
				return
			}
			j := 0
			q := int32(parts[k].Lo)
			for _, c := range found[k].hits {
				for _, h := range c {
					for ; q < h; q++ {
						o[j] = q
						j++
					}
					q = h + 1
				}
			}
			for ; q < int32(parts[k].Hi); q++ {
				o[j] = q
				j++
			}
		}); err != nil {
			return nil, nil, true, fmt.Errorf("join: %w", err)
		}
		return out, nil, true, nil
	}
	if reserve != nil {
		if err := reserve(8 * (total + 1)); err != nil {
			return nil, nil, true, fmt.Errorf("join: %w", err)
		}
	}
	pout, bout := make([]int32, total), make([]int32, total)
	outer := kind != plan.InnerJoin
	if err := p.Run(len(parts), func(k int) {
		po, bo := pout[starts[k]:starts[k+1]], bout[starts[k]:starts[k+1]]
		j := 0
		q := int32(parts[k].Lo)
		for _, c := range found[k].hits {
			for _, h := range c {
				if outer {
					for ; q < h; q++ {
						po[j], bo[j] = q, -1
						j++
					}
					q = h + 1
				}
				for _, r := range b.rows[b.id(wc.words[h])] {
					po[j], bo[j] = h, r
					j++
				}
			}
		}
		if outer {
			for ; q < int32(parts[k].Hi); q++ {
				po[j], bo[j] = q, -1
				j++
			}
		}
	}); err != nil {
		return nil, nil, true, fmt.Errorf("join: %w", err)
	}
	if kind == plan.RightJoin {
		return bout, pout, true, nil
	}
	return pout, bout, true, nil
}

// newSmallBuild lists the distinct non-null keys of c in first-appearance
// order, each with its rows in order, and with two keys or more finds
// their perfect table. ok is false when no multiplier among the tries
// separated the keys (the general path then joins).
func newSmallBuild(c *keyCol) (b *smallBuild, ok bool) {
	b = &smallBuild{}
	for r := 0; r < c.n; r++ {
		if !c.valid.valid(r) {
			continue
		}
		w := c.words[r]
		id := -1
		for i, k := range b.keys {
			if k == w {
				id = i
				break
			}
		}
		if id < 0 {
			id = len(b.keys)
			b.keys = append(b.keys, w)
			b.rows = append(b.rows, nil)
		}
		b.rows[id] = append(b.rows[id], int32(r))
	}
	if len(b.keys) < 2 {
		return b, true
	}
	b.slots = make([]smallSlot, smallSlots)
	// Odd multipliers from a fixed sequence (splitmix64's increment and
	// finalizer), so the table, and the time, are the same on every run.
	x := uint64(0x9e3779b97f4a7c15)
	for try := 0; try < 64; try++ {
		x += 0x9e3779b97f4a7c15
		z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		b.mul = (z ^ (z >> 31)) | 1
		if b.fill() {
			return b, true
		}
	}
	return nil, false
}

// fill puts every key in its slot under b.mul and reports whether no two
// keys share one.
func (b *smallBuild) fill() bool {
	for i := range b.slots {
		b.slots[i] = smallSlot{id: -1}
	}
	for id, k := range b.keys {
		s := &b.slots[(uint64(k)*b.mul)>>smallShift]
		if s.id >= 0 {
			return false
		}
		*s = smallSlot{key: k, id: int32(id)}
	}
	return true
}

// id returns the index of key w in b.keys, or -1.
func (b *smallBuild) id(w int64) int {
	if b.slots == nil {
		if len(b.keys) == 1 && b.keys[0] == w {
			return 0
		}
		return -1
	}
	s := b.slots[(uint64(w)*b.mul)>>smallShift&(smallSlots-1)]
	if s.key == w {
		return int(s.id)
	}
	return -1
}

// scan finds the rows of part whose key matches one of b's keys: a
// comparison per row with a single key; otherwise a range test, then the
// keys one by one. A row's validity is read only when its word matches.
func (b *smallBuild) scan(c *keyCol, part Range, out *smallPart) {
	words := c.words[part.Lo:part.Hi]
	switch len(b.keys) {
	case 0:
		return
	case 1:
		k0 := b.keys[0]
		for i, w := range words {
			if w == k0 {
				if q := part.Lo + i; c.valid.valid(q) {
					out.add(int32(q))
				}
			}
		}
		out.perKey[0] = out.n
		return
	}
	slots, mul := b.slots[:smallSlots], b.mul
	for i, w := range words {
		s := slots[(uint64(w)*mul)>>smallShift&(smallSlots-1)]
		if s.key == w && s.id >= 0 {
			if q := part.Lo + i; c.valid.valid(q) {
				out.add(int32(q))
				out.perKey[s.id]++
			}
		}
	}
}
