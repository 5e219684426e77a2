package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/plan"
)

// The join is a hand-written hash join because Arrow's Go library has none.
// The build side's keys are encoded to dense ids (keys.go), its rows listed
// per id in row order (a CSR layout), and the probe side looked up row by
// row in order, which yields the semantics' output order directly: probe
// rows in order, each followed by its matches in build order.
//
// An inner join may hash its left input instead (BuildLeft, chosen by the
// standard tier's build_side rule when the left input is the smaller one):
// the left keys are encoded — the hash table holds the left side's
// distinct keys — and the right keys looked up in it, so both sides' rows
// carry ids of one id space; the right rows are then listed per id in
// right order (the CSR layout over the right side) and the left rows
// walked in order, each followed by its id's right rows. That is the same
// list of pairs in the same order as the right build gives: the order is
// decided by which side is walked (left, in order) and which is listed
// per id (right, in order), not by which side's keys were encoded.

// BuildSide says which input of an equi-join the hash table is built on.
type BuildSide uint8

// The build sides.
const (
	// BuildRight hashes the right input (the left one for a right join,
	// which walks the right rows in order): the default.
	BuildRight BuildSide = iota
	// BuildLeft hashes the left input of an inner join (plan.JoinNode's
	// BuildLeft); other kinds refuse it.
	BuildLeft
)

// String returns "right" or "left".
func (b BuildSide) String() string {
	if b == BuildLeft {
		return "left"
	}
	return "right"
}

// JoinIndices returns the row pairs of an equi-join in the output order of
// docs/semantics.md; li[j] and ri[j] are the left and right rows of output
// row j, and -1 marks the null-extended side:
//
//   - inner: left rows in order, each followed by its matches in right order;
//   - left: as inner, plus (l, -1) in place for a left row without a match;
//   - right: right rows in order, each with its matching left rows in left
//     order, or (-1, r) when it has none;
//   - full: the left join's pairs, then (-1, r) for every right row that
//     matched nothing, in right order;
//   - semi / anti: the left rows with / without a match, in order; ri is nil.
//
// left and right are the evaluated key columns (at least one pair, the
// columns of a side of equal length). Keys compare with all NaNs equal and
// -0.0 equal to +0.0, keys of different numeric types in the promoted type
// (int32 with int64 as int64, an integer with float64 as float64), and a
// null key matches nothing. A cross join has no keys: use CrossIndices.
func JoinIndices(kind plan.JoinKind, left, right []arrow.Array) (li, ri []int32, err error) {
	return JoinIndicesParallel(kind, left, right, Parallel{})
}

// JoinIndicesParallel is JoinIndices with the probe split over goroutines
// as p says: the build side's dictionary is built once, then partitions of
// the probe rows look their keys up and, for inner, left, semi and anti
// joins, emit their pairs at their place in the one output (each
// partition counts its output rows first). The pairs are JoinIndices's
// exactly.
func JoinIndicesParallel(kind plan.JoinKind, left, right []arrow.Array, p Parallel) (li, ri []int32, err error) {
	return joinIndices(kind, BuildRight, left, right, p, nil)
}

// JoinIndicesBuild is JoinIndicesParallel hashing the input build names:
// the pairs are JoinIndicesParallel's exactly, in the same order. Only an
// inner join can be built on the left. Without a memory limit an inner
// join hashes its left input whenever it has fewer rows than the right,
// whatever build says (JoinIndices and JoinIndicesParallel too): the
// build side decides only the cost.
func JoinIndicesBuild(kind plan.JoinKind, build BuildSide, left, right []arrow.Array, p Parallel) (li, ri []int32, err error) {
	return joinIndices(kind, build, left, right, p, nil)
}

// reserveFunc is asked for the bytes of an output before it is allocated
// (a join's pair vectors); a nil reserveFunc allows everything.
type reserveFunc func(n int64) error

// joinIndices is JoinIndicesBuild asking reserve for its output vectors'
// bytes before allocating them.
func joinIndices(kind plan.JoinKind, build BuildSide, left, right []arrow.Array, p Parallel, reserve reserveFunc) (li, ri []int32, err error) {
	if kind == plan.CrossJoin {
		return nil, nil, fmt.Errorf("join: a cross join has no keys; use CrossIndices")
	}
	if err := checkBuild(kind, build); err != nil {
		return nil, nil, err
	}
	if len(left) != len(right) {
		return nil, nil, fmt.Errorf("join: %d left keys, %d right keys", len(left), len(right))
	}
	nl, err := checkKeys(left)
	if err != nil {
		return nil, nil, fmt.Errorf("join: left: %w", err)
	}
	nr, err := checkKeys(right)
	if err != nil {
		return nil, nil, fmt.Errorf("join: right: %w", err)
	}
	if smallJoinApplies(kind, left, right) {
		// A build side of a few rows (join_small.go): the same pairs,
		// whichever side BuildLeft would have hashed.
		if li, ri, ok, err := smallJoin(kind, left, right, p, reserve); ok {
			return li, ri, err
		}
	}
	if build == BuildRight && kind == plan.InnerJoin && reserve == nil && nl < nr {
		// Hashing the smaller input is cheaper (fewer inserts, a table
		// that stays in cache), and the pairs do not depend on which
		// side is hashed. Under a memory limit (reserve set) the caller
		// reserved for the side it named, so that side is kept.
		build = BuildLeft
	}
	lids, rids := make([]int32, nl), make([]int32, nr)
	if build == BuildLeft {
		// Hash the left keys and look the right ones up; walk the left
		// rows in order, each followed by its id's right rows in order.
		g, err := joinIDs(right, left, rids, lids, p)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		li, ri, err := probe(lids, rids, g, false, false, p, reserve)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		return li, ri, nil
	}
	switch kind {
	case plan.RightJoin:
		// Mirror: build on the left, probe the right in order.
		g, err := joinIDs(right, left, rids, lids, p)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		pr, pl, err := probe(rids, lids, g, true, false, p, reserve)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		return pl, pr, nil
	case plan.InnerJoin, plan.LeftJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin:
		g, err := joinIDs(left, right, lids, rids, p)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		switch kind {
		case plan.SemiJoin, plan.AntiJoin:
			out, err := semiAnti(lids, kind == plan.SemiJoin, p, reserve)
			if err != nil {
				return nil, nil, fmt.Errorf("join: %w", err)
			}
			return out, nil, nil
		}
		li, ri, err := probe(lids, rids, g, kind != plan.InnerJoin, kind == plan.FullJoin, p, reserve)
		if err != nil {
			return nil, nil, fmt.Errorf("join: %w", err)
		}
		return li, ri, nil
	}
	return nil, nil, fmt.Errorf("join: unknown join kind %d", kind)
}

// checkBuild refuses a build side the kind has no path for: only an
// inner join hashes its left input.
func checkBuild(kind plan.JoinKind, build BuildSide) error {
	switch {
	case build == BuildRight:
		return nil
	case build == BuildLeft && kind == plan.InnerJoin:
		return nil
	case build == BuildLeft:
		return fmt.Errorf("join: a %s join cannot be built on its left input (only an inner join can)", kind)
	}
	return fmt.Errorf("join: unknown build side %d", build)
}

// CrossIndices returns the row pairs of a cross join: every left row, in
// order, paired with every right row, in order.
func CrossIndices(leftRows, rightRows int) (li, ri []int32, err error) {
	if leftRows < 0 || rightRows < 0 {
		return nil, nil, fmt.Errorf("cross join: negative row count")
	}
	total := int64(leftRows) * int64(rightRows)
	if total > maxRows {
		return nil, nil, fmt.Errorf("cross join: %d x %d rows exceed %d output rows", leftRows, rightRows, maxRows)
	}
	li, ri = make([]int32, total), make([]int32, total)
	j := 0
	for l := 0; l < leftRows; l++ {
		for r := 0; r < rightRows; r++ {
			li[j], ri[j] = int32(l), int32(r)
			j++
		}
	}
	return li, ri, nil
}

// joinIDs encodes the build keys to dense ids (nulls -1) and looks the probe
// keys up in the same id space (-1 for a null or absent key). It returns
// the number of build ids. Multi-column keys fold pairwise as in grouping.
// The id space, and so which pairs match, does not depend on which side
// is encoded: two keys get one id exactly when they compare equal under
// the join's key semantics (joinDomain is symmetric).
func joinIDs(probeKeys, buildKeys []arrow.Array, pids, bids []int32, p Parallel) (int, error) {
	lookup := func(d colDict, c *keyCol, ids []int32) error {
		prepareLookups(d, c.n)
		return p.For(c.n, func(lo, hi int) { d.lookup(c, ids, lo, hi) })
	}
	var pcol, bcol []int32
	groups := 0
	for k := range buildKeys {
		dom, err := joinDomain(probeKeys[k], buildKeys[k])
		if err != nil {
			return 0, fmt.Errorf("key %d: %w", k, err)
		}
		pc, err := newKeyCol(probeKeys[k], dom)
		if err != nil {
			return 0, fmt.Errorf("key %d: %w", k, err)
		}
		bc, err := newKeyCol(buildKeys[k], dom)
		if err != nil {
			return 0, fmt.Errorf("key %d: %w", k, err)
		}
		if k == 0 {
			g, d := encode(bc, false, bids)
			if err := lookup(d, pc, pids); err != nil {
				return 0, err
			}
			groups = g
			continue
		}
		if pcol == nil {
			pcol, bcol = make([]int32, len(pids)), make([]int32, len(bids))
		}
		g, d := encode(bc, false, bcol)
		if err := lookup(d, pc, pcol); err != nil {
			return 0, err
		}
		bw, bv := pairWords(bids, bcol, g)
		pw, pv := pairWords(pids, pcol, g)
		g2, d2 := encodeWords(bw, bv, false, bids)
		if err := lookup(d2, &keyCol{dom: domInt, words: pw, valid: pv, n: len(pw)}, pids); err != nil {
			return 0, err
		}
		groups = g2
	}
	return groups, nil
}

// semiAnti returns the probe rows with (semi) or without (anti) a match,
// each partition of the probe rows counting, then writing, its own.
func semiAnti(pids []int32, semi bool, p Parallel, reserve reserveFunc) ([]int32, error) {
	parts := p.Split(len(pids))
	starts := make([]int, len(parts)+1)
	if err := p.Run(len(parts), func(k int) {
		c := 0
		for _, g := range pids[parts[k].Lo:parts[k].Hi] {
			if (g >= 0) == semi {
				c++
			}
		}
		starts[k+1] = c
	}); err != nil {
		return nil, err
	}
	for k := range parts {
		starts[k+1] += starts[k]
	}
	if reserve != nil {
		if err := reserve(4 * int64(starts[len(parts)])); err != nil {
			return nil, err
		}
	}
	out := make([]int32, starts[len(parts)])
	if err := p.Run(len(parts), func(k int) {
		j := starts[k]
		for i := parts[k].Lo; i < parts[k].Hi; i++ {
			if (pids[i] >= 0) == semi {
				out[j] = int32(i)
				j++
			}
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// probe emits, for each probe row in order, its build matches in build row
// order; with outer, a probe row without a match appears once paired with
// -1; with trailing, the build rows no probe row matched follow, paired
// with -1, in build order. Without trailing the probe rows are split over
// goroutines as p says: each partition counts its output rows, then
// writes its pairs at its place.
func probe(pids, bids []int32, groups int, outer, trailing bool, p Parallel, reserve reserveFunc) (pout, bout []int32, err error) {
	// Ids are shifted by one below so that -1 (no match) indexes slot 0 and
	// the hot loops need no branch on it. cnt1[g+1] is the number of output
	// rows a probe row of id g yields; cnt1[0] is what an unmatched one does.
	cnt1 := make([]int32, groups+1)
	for _, g := range bids {
		cnt1[g+1]++ // null build keys (-1) land in slot 0, overwritten below
	}
	cnt1[0] = 0
	if outer {
		cnt1[0] = 1
	}
	unique := true
	for _, c := range cnt1[1:] {
		if c != 1 {
			unique = false
			break
		}
	}
	parts := []Range{{Lo: 0, Hi: len(pids)}}
	if !trailing {
		parts = p.Split(len(pids))
	}
	starts := make([]int64, len(parts)+1)
	if err := p.Run(len(parts), func(k int) {
		t := int64(0)
		if unique && !outer {
			// A probe row yields one pair when it has an id (a build
			// key's), none for -1: count the ids without looking them up.
			for _, g := range pids[parts[k].Lo:parts[k].Hi] {
				t += int64(uint32(^g) >> 31)
			}
			starts[k+1] = t
			return
		}
		for _, g := range pids[parts[k].Lo:parts[k].Hi] {
			t += int64(cnt1[g+1])
		}
		starts[k+1] = t
	}); err != nil {
		return nil, nil, err
	}
	for k := range parts {
		starts[k+1] += starts[k]
	}
	total := starts[len(parts)]
	var matched []bool
	if trailing {
		hit := make([]bool, groups+1)
		for _, g := range pids {
			hit[g+1] = true
		}
		matched = make([]bool, len(bids))
		for r, g := range bids {
			matched[r] = g >= 0 && hit[g+1]
			if !matched[r] {
				total++
			}
		}
	}
	if total > maxRows {
		return nil, nil, fmt.Errorf("%d output rows exceed %d", total, maxRows)
	}
	if reserve != nil {
		if err := reserve(8 * (total + 1)); err != nil {
			return nil, nil, err
		}
	}
	// One spare slot lets the unique-key loop write before it knows whether
	// the row is kept.
	pout, bout = make([]int32, total+1), make([]int32, total+1)
	var fill func(k int)
	if unique {
		// Every build key occurs once (a dimension table): one step per
		// probe row, branch-free when one partition owns the whole output
		// (a write past a partition's end would land in the next one's)
		// and more than one probe row in eight matches. When fewer do
		// (sparse: TPC-H Q17's lineitem against a brand's parts, one row
		// in a thousand), the loop branches on the match, a branch then
		// mostly predicted, and skips the two stores of every row without
		// one.
		row1 := make([]int32, groups+1)
		row1[0] = -1
		for r, g := range bids {
			if g >= 0 {
				row1[g+1] = int32(r)
			}
		}
		sparse := !outer && total <= int64(len(pids))/8
		fill = func(k int) {
			j := int(starts[k])
			if sparse {
				// A probe row's id is a build key's, which occurs once,
				// or -1 (no match, not outer).
				lo := parts[k].Lo
				for i, g := range pids[lo:parts[k].Hi] {
					if g >= 0 {
						pout[j], bout[j] = int32(lo+i), row1[g+1]
						j++
					}
				}
				return
			}
			if len(parts) == 1 {
				for q, g := range pids {
					pout[j], bout[j] = int32(q), row1[g+1]
					j += int(cnt1[g+1])
				}
				return
			}
			for q := parts[k].Lo; q < parts[k].Hi; q++ {
				if g := pids[q]; cnt1[g+1] != 0 {
					pout[j], bout[j] = int32(q), row1[g+1]
					j++
				}
			}
		}
	} else {
		// start[g] .. start[g+1] indexes rows, the build rows of id g in
		// build order (a CSR layout).
		start := make([]int32, groups+1)
		for g := 0; g < groups; g++ {
			start[g+1] = start[g] + cnt1[g+1]
		}
		rows := make([]int32, start[groups])
		next := make([]int32, groups)
		copy(next, start[:groups])
		for r, g := range bids {
			if g >= 0 {
				rows[next[g]] = int32(r)
				next[g]++
			}
		}
		fill = func(k int) {
			j := int(starts[k])
			for q := parts[k].Lo; q < parts[k].Hi; q++ {
				if g := pids[q]; g >= 0 {
					for _, r := range rows[start[g]:start[g+1]] {
						pout[j], bout[j] = int32(q), r
						j++
					}
				} else if outer {
					pout[j], bout[j] = int32(q), -1
					j++
				}
			}
		}
	}
	if err := p.Run(len(parts), fill); err != nil {
		return nil, nil, err
	}
	j := int(starts[len(parts)])
	for r, m := range matched {
		if !m {
			pout[j], bout[j] = -1, int32(r)
			j++
		}
	}
	return pout[:total:total], bout[:total:total], nil
}
