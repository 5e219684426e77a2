package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/plan"
)

// The join under a memory limit. When the in-memory join's structures
// (joinBound) fit the budget it runs as JoinIndicesParallel does. When
// they do not, it is a grace hash join: both sides' key rows are written
// to spill files partitioned by a hash of the key (rows with a null key
// match nothing and are written nowhere), then each pair of partitions is
// joined in memory — the probe partition's rows in row order, each
// followed by its matches in the build partition's row order, which is
// the global build order restricted to the partition — and the matching
// (probe row, build row) pairs are written to a third file, per partition
// in probe row order. Every match of a probe row is in its key's
// partition, so the output order is restored by one pass over the probe
// rows in order: each row's partition is computed again, and its matches
// are the next pairs of that partition's list (a cursor per partition).
// Unmatched probe rows get their -1 pair in the same pass (left, right,
// full, anti); a full join's unmatched build rows follow from a pass over
// the build rows in order against per-partition lists of the build rows
// nothing matched. The pairs are therefore exactly JoinIndices's, in the
// same order; only the output vectors, which the join's result needs
// whole, cannot spill.

// JoinIndicesLimited is JoinIndicesParallel under s's memory limit: the
// same pairs in the same order, computed in memory when the join's
// structures fit the budget and as a grace hash join over spill files
// when they do not (see above). held is the bytes of the output vectors,
// reserved in s.Budget: the caller releases them (Budget.Release) once
// it has accounted for, or dropped, li and ri. An output that does not fit
// the budget is an *memlimit.ExceededError; with no limit (s nil or
// without a budget) it is JoinIndicesParallel.
func JoinIndicesLimited(s *Spill, kind plan.JoinKind, left, right []arrow.Array, p Parallel) (li, ri []int32, held int64, err error) {
	return JoinIndicesLimitedBuild(s, kind, BuildRight, left, right, p)
}

// JoinIndicesLimitedBuild is JoinIndicesLimited hashing the input build
// names (JoinIndicesBuild): the same pairs in the same order. With the
// left build the in-memory join's structures are sized for hashing the
// left keys, and a spilled join hashes the left partition of each pair of
// partitions; the partitioning and the merge, which restore the order,
// are the same.
func JoinIndicesLimitedBuild(s *Spill, kind plan.JoinKind, build BuildSide, left, right []arrow.Array, p Parallel) (li, ri []int32, held int64, err error) {
	if !s.limited() {
		li, ri, err = JoinIndicesBuild(kind, build, left, right, p)
		return li, ri, 0, err
	}
	if kind == plan.CrossJoin {
		return nil, nil, 0, fmt.Errorf("join: a cross join has no keys; use CrossIndicesLimited")
	}
	if err := checkBuild(kind, build); err != nil {
		return nil, nil, 0, err
	}
	if len(left) != len(right) {
		return nil, nil, 0, fmt.Errorf("join: %d left keys, %d right keys", len(left), len(right))
	}
	if _, err := checkKeys(left); err != nil {
		return nil, nil, 0, fmt.Errorf("join: left: %w", err)
	}
	if _, err := checkKeys(right); err != nil {
		return nil, nil, 0, fmt.Errorf("join: right: %w", err)
	}
	probeK, buildK := left, right
	if kind == plan.RightJoin {
		probeK, buildK = right, left
	}
	work, err := joinBoundBuild(probeK, buildK, build == BuildLeft)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("join: %w", err)
	}
	reserve := func(n int64) error {
		if err := s.Budget.Reserve(n, "the join's output pairs"); err != nil {
			return err
		}
		held += n
		return nil
	}
	fail := func(err error) ([]int32, []int32, int64, error) {
		s.Budget.Release(held)
		return nil, nil, 0, err
	}
	if s.Partitions <= 0 && s.Budget.Reserve(work, "") == nil {
		li, ri, err = joinIndices(kind, build, left, right, p, reserve)
		s.Budget.Release(work)
		if err == nil {
			return li, ri, held, nil
		}
		if !exceeded(err) {
			return fail(err)
		}
		// The output did not fit beside the in-memory structures (an
		// upper bound): the grace join holds less while it merges.
		s.Budget.Release(held)
		held = 0
	}
	j := &graceJoin{s: s, kind: kind, probe: probeK, build: buildK, p: p, hashProbe: build == BuildLeft}
	defer j.close()
	pout, bout, err := j.run(work, reserve)
	if err != nil {
		return fail(fmt.Errorf("join: %w", err))
	}
	if kind == plan.RightJoin {
		return bout, pout, held, nil
	}
	return pout, bout, held, nil
}

// CrossIndicesLimited is CrossIndices under s's memory limit: its output
// vectors (8 bytes per output row) are reserved before they are
// allocated, and held is what the caller releases as in
// JoinIndicesLimited. A cross join's output is the one thing it holds, so
// it does not spill: one that does not fit is an *memlimit.ExceededError,
// found before anything is allocated.
func CrossIndicesLimited(s *Spill, leftRows, rightRows int) (li, ri []int32, held int64, err error) {
	if !s.limited() {
		li, ri, err = CrossIndices(leftRows, rightRows)
		return li, ri, 0, err
	}
	if leftRows < 0 || rightRows < 0 {
		return nil, nil, 0, fmt.Errorf("cross join: negative row count")
	}
	total := int64(leftRows) * int64(rightRows)
	if err := s.Budget.Reserve(8*total, fmt.Sprintf("the cross join's %d x %d output pairs", leftRows, rightRows)); err != nil {
		return nil, nil, 0, err
	}
	li, ri, err = CrossIndices(leftRows, rightRows)
	if err != nil {
		s.Budget.Release(8 * total)
		return nil, nil, 0, err
	}
	return li, ri, 8 * total, nil
}

// graceJoin is one spilled join: probe rows in order each followed by
// their build matches in build order (for a right join the probe side is
// the right input). With hashProbe (an inner join built on its left
// input) each pair of partitions hashes the probe partition's keys
// instead of the build partition's; the pairs and their order are the
// same.
type graceJoin struct {
	s            *Spill
	kind         plan.JoinKind
	probe, build []arrow.Array
	p            Parallel
	h            *partHasher
	shape        spillShape
	hashProbe    bool

	probeFile, buildFile *spillFile
	pairFile, unmFile    *spillFile // matched pairs; unmatched build rows (full)
}

// close removes the join's spill files.
func (j *graceJoin) close() {
	for _, f := range []*spillFile{j.probeFile, j.buildFile, j.pairFile, j.unmFile} {
		f.close()
	}
}

// semiLike reports whether the output is probe rows only.
func (j *graceJoin) semiLike() bool { return j.kind == plan.SemiJoin || j.kind == plan.AntiJoin }

// run partitions both sides, joins the partitions, and merges the pairs
// in output order into vectors reserved through reserve.
func (j *graceJoin) run(work int64, reserve reserveFunc) (pout, bout []int32, err error) {
	s := j.s
	n := max(j.probe[0].Len(), j.build[0].Len())
	if j.shape, err = planSpill(s, work, s.Budget.Available(), n, "the join"); err != nil {
		return nil, nil, err
	}
	doms := make([]domain, len(j.build))
	for k := range j.build {
		if doms[k], err = joinDomain(j.probe[k], j.build[k]); err != nil {
			return nil, nil, fmt.Errorf("key %d: %w", k, err)
		}
	}
	j.h = newPartHasher(doms, j.shape.parts, false)
	if j.buildFile, err = newSpillFile(s, "join-build", keyBatchSchema(j.build), j.shape.parts); err != nil {
		return nil, nil, err
	}
	if err := partitionKeys(s, j.h, j.shape, j.build, j.buildFile); err != nil {
		return nil, nil, err
	}
	if j.probeFile, err = newSpillFile(s, "join-probe", keyBatchSchema(j.probe), j.shape.parts); err != nil {
		return nil, nil, err
	}
	if err := partitionKeys(s, j.h, j.shape, j.probe, j.probeFile); err != nil {
		return nil, nil, err
	}
	counts, err := j.joinParts()
	if err != nil {
		return nil, nil, err
	}
	return j.merge(counts, reserve)
}

// joinCounts sums what the partitions produced.
type joinCounts struct {
	pairs     int64 // matching pairs (semi: probe rows with a match)
	hitProbe  int64 // probe rows with at least one match
	unmatched int64 // build rows in a partition that nothing matched (full)
}

// pairSchema and rowSchema are the schemas of the pair and row lists.
var (
	pairSchema = arrow.NewSchema([]arrow.Field{{Name: "probe", Type: arrow.PrimitiveTypes.Int32},
		{Name: "build", Type: arrow.PrimitiveTypes.Int32}}, nil)
	rowSchema = arrow.NewSchema([]arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int32}}, nil)
)

// writeRows writes columns of equal length to f as batches of partition p
// of at most the shape's buffer rows.
func (j *graceJoin) writeRows(f *spillFile, p int, cols ...[]int32) error {
	n := len(cols[0])
	step := max(j.shape.bufRows, 1)
	arrs := make([]arrow.Array, len(cols))
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		for c, v := range cols {
			arrs[c] = int32Array(v[lo:hi])
		}
		rec := array.NewRecordBatch(f.schema, arrs, int64(hi-lo))
		releaseAll(arrs)
		err := f.write(p, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// joinParts joins each pair of partitions in memory and writes its pairs
// (global row ids, in output order within the partition) and, for a full
// join, its unmatched build rows.
func (j *graceJoin) joinParts() (joinCounts, error) {
	s := j.s
	var c joinCounts
	var err error
	if j.semiLike() {
		j.pairFile, err = newSpillFile(s, "join-rows", rowSchema, j.shape.parts)
	} else {
		j.pairFile, err = newSpillFile(s, "join-pairs", pairSchema, j.shape.parts)
	}
	if err != nil {
		return c, err
	}
	full := j.kind == plan.FullJoin
	if full {
		if j.unmFile, err = newSpillFile(s, "join-unmatched", rowSchema, j.shape.parts); err != nil {
			return c, err
		}
	}
	for q := 0; q < j.shape.parts; q++ {
		if err := s.ctxErr(); err != nil {
			return c, err
		}
		if err := j.joinPart(q, full, &c); err != nil {
			return c, err
		}
	}
	if err := j.pairFile.finish(); err != nil {
		return c, err
	}
	if full {
		if err := j.unmFile.finish(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// joinPart joins partition q.
func (j *graceJoin) joinPart(q int, full bool, c *joinCounts) error {
	s := j.s
	bp, err := j.buildFile.read(q)
	if err != nil {
		return err
	}
	if bp != nil {
		defer bp.Release()
	}
	pp, err := j.probeFile.read(q)
	if err != nil {
		return err
	}
	if pp != nil {
		defer pp.Release()
	}
	if bp == nil {
		return nil // no build row: every probe row of q is unmatched
	}
	brows, err := int32Values(bp.Column(0))
	if err != nil {
		return err
	}
	if pp == nil {
		if full {
			c.unmatched += int64(len(brows))
			return j.writeRows(j.unmFile, q, brows)
		}
		return nil
	}
	prows, err := int32Values(pp.Column(0))
	if err != nil {
		return err
	}
	pk, bk := pp.Columns()[1:], bp.Columns()[1:]
	work, err := joinBoundBuild(pk, bk, j.hashProbe)
	if err != nil {
		return err
	}
	if err := s.Budget.Reserve(work, fmt.Sprintf("partition %d of %d of the join (%d probe and %d build rows; its keys do not split further)",
		q, j.shape.parts, len(prows), len(brows))); err != nil {
		return err
	}
	defer s.Budget.Release(work)
	var out int64
	defer func() { s.Budget.Release(out) }()
	reserve := func(n int64) error {
		if err := s.Budget.Reserve(n, fmt.Sprintf("the pairs of partition %d of the join", q)); err != nil {
			return err
		}
		out += n
		return nil
	}
	if j.semiLike() {
		lp, _, err := joinIndices(plan.SemiJoin, BuildRight, pk, bk, j.p, reserve)
		if err != nil {
			return err
		}
		for i, r := range lp {
			lp[i] = prows[r]
		}
		c.pairs += int64(len(lp))
		c.hitProbe += int64(len(lp))
		return j.writeRows(j.pairFile, q, lp)
	}
	side := BuildRight
	if j.hashProbe {
		side = BuildLeft
	}
	lp, lb, err := joinIndices(plan.InnerJoin, side, pk, bk, j.p, reserve)
	if err != nil {
		return err
	}
	var matched []bool
	if full {
		if err := reserve(int64(len(brows))); err != nil {
			return err
		}
		matched = make([]bool, len(brows))
	}
	last := int32(-1)
	for i := range lp {
		if lp[i] != last {
			c.hitProbe++
			last = lp[i]
		}
		if matched != nil {
			matched[lb[i]] = true
		}
		lp[i], lb[i] = prows[lp[i]], brows[lb[i]]
	}
	c.pairs += int64(len(lp))
	if err := j.writeRows(j.pairFile, q, lp, lb); err != nil {
		return err
	}
	if full {
		u := 0
		for _, m := range matched {
			if !m {
				u++
			}
		}
		if err := reserve(4 * int64(u)); err != nil {
			return err
		}
		unm := make([]int32, 0, u)
		for r, m := range matched {
			if !m {
				unm = append(unm, brows[r])
			}
		}
		c.unmatched += int64(len(unm))
		if len(unm) > 0 {
			return j.writeRows(j.unmFile, q, unm)
		}
	}
	return nil
}

// merge builds the output vectors: one pass over the probe rows in order
// (each row's matches are the next pairs of its partition), then, for a
// full join, one over the build rows in order.
func (j *graceJoin) merge(c joinCounts, reserve reserveFunc) (pout, bout []int32, err error) {
	s := j.s
	np, nb := j.probe[0].Len(), j.build[0].Len()
	var total int64
	switch j.kind {
	case plan.InnerJoin:
		total = c.pairs
	case plan.LeftJoin, plan.RightJoin:
		total = c.pairs + int64(np) - c.hitProbe
	case plan.FullJoin:
		// Build rows with a null key are in no partition and match nothing.
		total = c.pairs + int64(np) - c.hitProbe + int64(nb) - (j.buildRows() - c.unmatched)
	case plan.SemiJoin:
		total = c.pairs
	case plan.AntiJoin:
		total = int64(np) - c.hitProbe
	default:
		return nil, nil, fmt.Errorf("unknown join kind %d", j.kind)
	}
	if total > maxRows {
		return nil, nil, fmt.Errorf("%d output rows exceed %d", total, maxRows)
	}
	width := int64(8)
	if j.semiLike() {
		width = 4
	}
	if err := reserve(width * total); err != nil {
		return nil, nil, err
	}
	// The cursors hold one batch per partition.
	if err := s.Budget.Fits(int64(j.shape.parts)*(int64(j.shape.bufRows)*8+64), "the join's merge cursors"); err != nil {
		return nil, nil, err
	}
	pout = make([]int32, total)
	if !j.semiLike() {
		bout = make([]int32, total)
	}
	k := 0
	outer := j.kind == plan.LeftJoin || j.kind == plan.RightJoin || j.kind == plan.FullJoin
	err = j.eachRow(j.probe, j.pairFile, func(row int32, cur *cursor) error {
		matched := false
		if cur != nil {
			for {
				ok, err := cur.ok()
				if err != nil {
					return err
				}
				if !ok || cur.cols[0][cur.i] != row {
					break
				}
				matched = true
				if j.kind == plan.SemiJoin {
					pout[k] = row
					k++
				} else if !j.semiLike() {
					pout[k], bout[k] = row, cur.cols[1][cur.i]
					k++
				}
				cur.i++
			}
		}
		switch {
		case !matched && outer:
			pout[k], bout[k] = row, -1
			k++
		case !matched && j.kind == plan.AntiJoin:
			pout[k] = row
			k++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if j.kind == plan.FullJoin {
		err = j.eachRow(j.build, j.unmFile, func(row int32, cur *cursor) error {
			if cur != nil {
				ok, err := cur.ok()
				if err != nil {
					return err
				}
				if !ok || cur.cols[0][cur.i] != row {
					return nil // matched
				}
				cur.i++
			}
			pout[k], bout[k] = -1, row
			k++
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if int64(k) != total {
		return nil, nil, fmt.Errorf("spilled join produced %d rows, counted %d", k, total)
	}
	return pout, bout, nil
}

// buildRows is how many build rows were written to partitions (those
// without a null key).
func (j *graceJoin) buildRows() int64 {
	t := int64(0)
	for _, r := range j.buildFile.rows {
		t += int64(r)
	}
	return t
}

// eachRow calls fn for every row of the side whose keys are keys, in
// order, with the cursor of the row's partition in f (nil for a row with
// a null key, which is in no partition).
func (j *graceJoin) eachRow(keys []arrow.Array, f *spillFile, fn func(row int32, cur *cursor) error) error {
	s := j.s
	curs := make([]cursor, j.shape.parts)
	for q := range curs {
		curs[q] = cursor{f: f, p: q}
	}
	defer func() {
		for q := range curs {
			curs[q].close()
		}
	}()
	n := keys[0].Len()
	chunk := j.shape.chunkRows
	if err := s.Budget.Reserve(int64(chunk)*20, "the join's hash chunk"); err != nil {
		return err
	}
	defer s.Budget.Release(int64(chunk) * 20)
	hs := make([]uint64, chunk)
	ps := make([]int32, chunk)
	for lo := 0; lo < n; lo += chunk {
		if err := s.ctxErr(); err != nil {
			return err
		}
		hi := min(lo+chunk, n)
		if err := j.h.parts(keys, lo, hi, hs, ps); err != nil {
			return err
		}
		for i, q := range ps[:hi-lo] {
			var cur *cursor
			if q >= 0 {
				cur = &curs[q]
			}
			if err := fn(int32(lo+i), cur); err != nil {
				return err
			}
		}
	}
	return nil
}

// exceeded reports whether err is a memory limit error.
func exceeded(err error) bool {
	_, ok := memlimit.AsExceeded(err)
	return ok
}
