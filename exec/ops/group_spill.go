package ops

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// The aggregate's grouping under a memory limit. When GroupIDsParallel's
// structures (GroupBound) fit the budget the grouping is in memory. When
// they do not, the key rows are written to a spill file partitioned by a
// hash of the key (nulls are a key here), and each partition is grouped
// on its own: its rows in row order, so its local group ids are in
// first-appearance order within the partition, and a group's rows are all
// in its key's partition. Each partition's (row, local id) list goes to a
// second file, and its groups' first rows stay in memory. The global
// group order — first appearance over all rows — is the order of the
// groups' first rows, which a sort of those rows gives. An aggregate then
// replays the partitions one at a time: it gathers the argument's values
// at the partition's rows (in row order), reduces them per local group
// with the in-memory kernels — the same sequential, row-ordered fold, so
// float sums and means, min and max ties, first and last are bit for bit
// the in-memory ones — and the per-partition results are put in the
// global order by one gather. An integer sum that overflows reports the
// group that comes first in the output, as the in-memory sum does.

// Grouping is the grouping of an aggregate's rows by its keys: the groups
// in first-appearance order, each with its first row, and the means to
// reduce an aggregate argument per group. It is in memory (IDs, one group
// id per row) or, under a memory limit, spilled (see above). Close it
// when done.
type Grouping struct {
	// First is the first row of every group, in group (output) order.
	First []int32
	// IDs is every row's group when the grouping is in memory; nil when
	// it is spilled.
	IDs []int32

	groups int
	s      *Spill
	held   int64 // reserved while the grouping lives
	sp     *groupSpill
}

// Groups returns the number of groups.
func (g *Grouping) Groups() int { return g.groups }

// NewGrouping wraps an in-memory grouping: ids per row (as GroupIDs or
// OneGroup make them), first rows (nil for a keyless aggregate), groups.
func NewGrouping(ids, first []int32, groups int) *Grouping {
	return &Grouping{IDs: ids, First: first, groups: groups}
}

// OneGrouping is the grouping of a keyless aggregate over rows rows: one
// group holding every row (OneGroup), its ids counted in s's budget while
// the grouping lives (an *memlimit.ExceededError when they do not fit).
func OneGrouping(s *Spill, rows int) (*Grouping, error) {
	g := &Grouping{groups: 1}
	if s.limited() {
		if err := s.Budget.Reserve(4*int64(rows), "the group ids of a keyless aggregate"); err != nil {
			return nil, err
		}
		g.s, g.held = s, 4*int64(rows)
	}
	g.IDs = OneGroup(rows)
	return g, nil
}

// GroupLimited groups the rows of keys (at least one column) as
// GroupIDsParallel does, under s's memory limit: in memory when its
// structures fit the budget, spilled to disk by key hash when they do not
// and canSpill allows it (an aggregate; a window, which needs every row's
// group id, does not), an *memlimit.ExceededError otherwise. With no
// limit it is GroupIDsParallel. The group ids (in memory) and first rows
// are GroupIDs's exactly.
func GroupLimited(s *Spill, keys []arrow.Array, p Parallel, canSpill bool) (*Grouping, error) {
	if !s.limited() {
		ids, first, err := GroupIDsParallel(memOf(s), keys, p)
		if err != nil {
			return nil, err
		}
		return NewGrouping(ids, first, len(first)), nil
	}
	if _, err := checkKeys(keys); err != nil {
		return nil, fmt.Errorf("group: %w", err)
	}
	work := GroupBound(keys, p)
	if !canSpill {
		if err := s.Budget.Reserve(work, "the grouping's hash table and group ids"); err != nil {
			return nil, err
		}
	}
	if !canSpill || (s.Partitions <= 0 && s.Budget.Reserve(work, "") == nil) {
		ids, first, err := GroupIDsParallel(s.Mem, keys, p)
		s.Budget.Release(work)
		if err != nil {
			return nil, err
		}
		kept := 4*int64(len(ids)) + 4*int64(len(first))
		s.Budget.Force(kept)
		return &Grouping{IDs: ids, First: first, groups: len(first), s: s, held: kept}, nil
	}
	g := &Grouping{s: s}
	sp := &groupSpill{s: s, p: p}
	g.sp = sp
	if err := sp.group(keys, work, g); err != nil {
		g.Close()
		return nil, fmt.Errorf("group: %w", err)
	}
	return g, nil
}

// memOf is s's allocator, or the default one.
func memOf(s *Spill) memory.Allocator {
	if s == nil || s.Mem == nil {
		return memory.DefaultAllocator
	}
	return s.Mem
}

// Close drops the grouping's reservation and removes its spill files. It
// is safe on nil and more than once.
func (g *Grouping) Close() {
	if g == nil {
		return
	}
	if g.sp != nil {
		g.sp.close()
		g.sp = nil
	}
	if g.s != nil {
		g.s.Budget.Release(g.held)
		g.held = 0
	}
}

// Aggregate reduces the aggregate fn (plan.FuncSum ... plan.FuncLast) of
// arg (nil for len) per group, as AggregateParallel does over the ids of
// an in-memory grouping: the same result bits and the same error. mem
// allocates the result.
func (g *Grouping) Aggregate(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, p Parallel) (arrow.Array, error) {
	fn := agg.Fn
	if g.sp == nil {
		if g.s.limited() {
			work, seq, err := reserveReduce(g.s, fn, exprText, len(g.IDs), g.groups, p)
			if err != nil {
				return nil, err
			}
			defer g.s.Budget.Release(work)
			p = seq
			if err := g.s.Budget.Fits(AggregateBytes(fn, arg, g.groups), "the result of "+exprText); err != nil {
				return nil, err
			}
		}
		return AggregateParallel(mem, agg, exprText, arg, g.IDs, g.groups, p)
	}
	return g.sp.aggregate(mem, agg, exprText, arg, g)
}

// Fusable reports whether AggregateFused may reduce over g: an in-memory
// grouping with no memory limit to count the reductions in.
func (g *Grouping) Fusable() bool { return g.sp == nil && !g.s.limited() }

// AggregateFused reduces aggs (each ops.Fusable) together, as
// AggregateFused does over the ids of a grouping that is Fusable (with sel
// nil, or the rows of the arguments the grouping's rows are): each result
// is Aggregate's for that aggregate alone.
func (g *Grouping) AggregateFused(mem memory.Allocator, aggs []FusedAgg, sel []int32, p Parallel) ([]arrow.Array, error) {
	if !g.Fusable() {
		return nil, fmt.Errorf("aggregate: the grouping is spilled or counts its memory")
	}
	return AggregateFused(mem, aggs, sel, g.IDs, g.groups, p)
}

// AggregateBytes bounds the Arrow bytes of Aggregate's result for groups
// groups (its values and validity bitmap, each a multiple of 64 bytes; for
// strings at most all of arg's bytes), the check a caller under a memory
// limit makes before reducing.
func AggregateBytes(fn plan.Func, arg arrow.Array, groups int) int64 {
	g := int64(groups)
	valid := round64((g + 7) / 8)
	switch {
	case fn == plan.FuncLen, fn == plan.FuncCount, fn == plan.FuncSum, fn == plan.FuncMean, fn == plan.FuncNUnique,
		fn == plan.FuncArgMin, fn == plan.FuncArgMax,
		fn == plan.FuncMedian, fn == plan.FuncQuantile, fn == plan.FuncVar, fn == plan.FuncStd, arg == nil:
		return valid + round64(8*g)
	case fn == plan.FuncAny, fn == plan.FuncAll:
		return 2 * valid
	}
	switch arg.DataType().ID() {
	case arrow.BOOL:
		return 2 * valid
	case arrow.STRING:
		return valid + round64(4*(g+1)) + round64(stringBytes(arg))
	case arrow.INT32, arrow.DATE32:
		return valid + round64(4*g)
	}
	return valid + round64(8*g)
}

// reserveReduce reserves the Go heap of reducing rows rows into groups
// groups with fn: per group a few words of accumulators and flags, per
// row what fn gathers (reduceRowBytes), and on the parallel path one set
// per partition (AggregateParallel splits only when they take no more
// words than the rows). When the parallel partials do not fit it reserves
// for the sequential reduction instead (the same bits) and returns the
// partitioning to use.
func reserveReduce(s *Spill, fn plan.Func, exprText string, rows, groups int, p Parallel) (int64, Parallel, error) {
	seq := int64(groups)*24 + int64(rows)*reduceRowBytes(fn)
	if parts := len(p.Split(rows)); parts > 1 && groups*parts <= rows {
		par := seq + int64(groups)*int64(parts)*24
		if s.Budget.Reserve(par, "") == nil {
			return par, p, nil
		}
	}
	if err := s.Budget.Reserve(seq, fmt.Sprintf("the reduction of %s", exprText)); err != nil {
		return 0, p, err
	}
	return seq, Parallel{}, nil
}

// reduceRowBytes is the Go heap per input row a reduction by fn holds
// besides its per-group accumulators: n_unique's value ids, pair words and
// the pairs' hash table; median's and quantile's float copy of the
// argument, the gathered values and the sort keys; var's and std's float
// copy.
func reduceRowBytes(fn plan.Func) int64 {
	switch fn {
	case plan.FuncNUnique:
		return 32
	case plan.FuncMedian, plan.FuncQuantile:
		return 24
	case plan.FuncVar, plan.FuncStd:
		return 8
	case plan.FuncArgMin, plan.FuncArgMax:
		return 8 // the order word of every row
	}
	return 0
}

// groupSpill is a grouping spilled by key hash.
type groupSpill struct {
	s        *Spill
	p        Parallel
	shape    spillShape
	keysFile *spillFile // row ids and keys, per partition
	idsFile  *spillFile // row ids and local group ids, per partition
	off      []int      // partition q's groups are [off[q], off[q+1]) of the partitions' concatenation
	perm     []int32    // the concatenation index of each global group
	held     int64
}

// idsSchema is the schema of a partition's rows and local group ids.
var idsSchema = arrow.NewSchema([]arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int32},
	{Name: "id", Type: arrow.PrimitiveTypes.Int32}}, nil)

// close removes the spill files and drops the reservation.
func (sp *groupSpill) close() {
	sp.keysFile.close()
	sp.idsFile.close()
	sp.s.Budget.Release(sp.held)
	sp.held = 0
}

// group partitions the key rows, groups every partition, and orders the
// groups globally by their first rows; it fills g.First and g.groups.
func (sp *groupSpill) group(keys []arrow.Array, work int64, g *Grouping) error {
	s := sp.s
	n := keys[0].Len()
	var err error
	if sp.shape, err = planSpill(s, work, s.Budget.Available(), n, "the grouping"); err != nil {
		return err
	}
	doms := make([]domain, len(keys))
	for k, a := range keys {
		if doms[k], err = keyDomain(a); err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
	}
	h := newPartHasher(doms, sp.shape.parts, true)
	if sp.keysFile, err = newSpillFile(s, "group-keys", keyBatchSchema(keys), sp.shape.parts); err != nil {
		return err
	}
	if err := partitionKeys(s, h, sp.shape, keys, sp.keysFile); err != nil {
		return err
	}
	if sp.idsFile, err = newSpillFile(s, "group-ids", idsSchema, sp.shape.parts); err != nil {
		return err
	}
	// The first rows of every partition's groups (global row ids, in
	// local order), 4 bytes per group.
	firsts := make([][]int32, sp.shape.parts)
	sp.off = make([]int, sp.shape.parts+1)
	for q := 0; q < sp.shape.parts; q++ {
		if err := s.ctxErr(); err != nil {
			return err
		}
		f, err := sp.groupPart(q)
		if err != nil {
			return err
		}
		if err := sp.reserve(4*int64(len(f)), "the first rows of the groups"); err != nil {
			return err
		}
		firsts[q] = f
		sp.off[q+1] = sp.off[q] + len(f)
	}
	// The keys are read: their file goes now rather than at Close.
	sp.keysFile.close()
	sp.keysFile = nil
	if err := sp.idsFile.finish(); err != nil {
		return err
	}
	// Global order: the groups sorted by first row (distinct rows), as
	// packed (first row, concatenation index) words, 8 bytes per group.
	G := sp.off[sp.shape.parts]
	if err := sp.reserve(8*int64(G), "the order of the groups"); err != nil {
		return err
	}
	packed := make([]uint64, G)
	for q, f := range firsts {
		for i, r := range f {
			c := sp.off[q] + i
			packed[c] = uint64(r)<<32 | uint64(c)
		}
		firsts[q] = nil
	}
	sp.s.Budget.Release(4 * int64(G)) // the partitions' first rows are garbage
	sp.held -= 4 * int64(G)
	slices.Sort(packed)
	if err := sp.reserve(4*int64(G), "the first rows of the groups"); err != nil {
		return err
	}
	g.First = make([]int32, G)
	// The concatenation indices in group order, compacted in place into
	// the first half of packed's memory: writing int32 k (bytes 4k..4k+4)
	// never reaches word k+1 (bytes 8k+8..) before it is read.
	view := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(packed))), 2*G)
	for k := 0; k < G; k++ {
		w := packed[k]
		g.First[k] = int32(w >> 32)
		view[k] = int32(uint32(w))
	}
	sp.perm = view[:G:G]
	g.groups = G
	return nil
}

// globalOf returns the global id of the group at concatenation index c
// (the error path: a scan of the order).
func (sp *groupSpill) globalOf(c int) int32 {
	for k, x := range sp.perm {
		if int(x) == c {
			return int32(k)
		}
	}
	return -1
}

// reserve reserves n bytes held until close.
func (sp *groupSpill) reserve(n int64, what string) error {
	if err := sp.s.Budget.Reserve(n, what); err != nil {
		return err
	}
	sp.held += n
	return nil
}

// groupPart groups partition q, writes its rows and local ids, and
// returns the first rows (global row ids) of its groups in local order.
func (sp *groupSpill) groupPart(q int) ([]int32, error) {
	s := sp.s
	rec, err := sp.keysFile.read(q)
	if err != nil || rec == nil {
		return nil, err
	}
	defer rec.Release()
	rows, err := int32Values(rec.Column(0))
	if err != nil {
		return nil, err
	}
	keys := rec.Columns()[1:]
	work := GroupBound(keys, sp.p)
	if err := s.Budget.Reserve(work, fmt.Sprintf("partition %d of %d of the grouping (%d rows; its keys do not split further)",
		q, sp.shape.parts, len(rows))); err != nil {
		return nil, err
	}
	defer s.Budget.Release(work)
	ids, first, err := GroupIDsParallel(s.Mem, keys, sp.p)
	if err != nil {
		return nil, err
	}
	for i, r := range first {
		first[i] = rows[r]
	}
	cols := []arrow.Array{int32Array(rows), int32Array(ids)}
	out := array.NewRecordBatch(idsSchema, cols, int64(len(rows)))
	releaseAll(cols)
	err = sp.idsFile.write(q, out)
	out.Release()
	if err != nil {
		return nil, err
	}
	return first, nil
}

// aggregate reduces arg per group, partition by partition.
func (sp *groupSpill) aggregate(mem memory.Allocator, agg Agg, exprText string, arg arrow.Array, g *Grouping) (arrow.Array, error) {
	s := sp.s
	outs := make([]arrow.Array, 0, sp.shape.parts)
	defer func() { releaseAll(outs) }()
	var firstErr *plan.Error
	errGroup := int32(-1)
	for q := 0; q < sp.shape.parts; q++ {
		if err := s.ctxErr(); err != nil {
			return nil, err
		}
		out, pe, err := sp.aggregatePart(mem, q, agg, exprText, arg)
		if err != nil {
			return nil, err
		}
		if pe != nil {
			// pe.Row is the first row of the partition's first failing
			// group; keep the failing group that comes first globally.
			if gg := sp.globalOf(sp.off[q] + int(pe.Row)); errGroup < 0 || gg < errGroup {
				c := *pe
				c.Row = int64(g.First[gg])
				firstErr, errGroup = &c, gg
			}
			continue
		}
		outs = append(outs, out)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	var cat arrow.Array
	if len(outs) == 1 {
		cat = outs[0]
		cat.Retain()
	} else {
		need := int64(0)
		for _, o := range outs {
			need += ArrayBytes(o)
		}
		if err := s.Budget.Fits(need, "the result of "+exprText); err != nil {
			return nil, err
		}
		var err error
		if cat, err = array.Concatenate(outs, mem); err != nil {
			return nil, fmt.Errorf("aggregate %s: %w", exprText, err)
		}
	}
	releaseAll(outs)
	outs = outs[:0]
	defer cat.Release()
	if err := s.Budget.Fits(TakeBytes(cat, sp.perm), "the result of "+exprText); err != nil {
		return nil, err
	}
	return TakeParallel(mem, cat, sp.perm, sp.p)
}

// aggregatePart reduces arg over partition q's groups: the result (one
// value per local group), or the partition's reduction error (a
// *plan.Error whose Row is the LOCAL GROUP that failed first), or another
// error.
func (sp *groupSpill) aggregatePart(mem memory.Allocator, q int, agg Agg, exprText string, arg arrow.Array) (arrow.Array, *plan.Error, error) {
	fn := agg.Fn
	s := sp.s
	groups := sp.off[q+1] - sp.off[q]
	rec, err := sp.idsFile.read(q)
	if err != nil {
		return nil, nil, err
	}
	var rows, ids []int32
	if rec != nil {
		defer rec.Release()
		if rows, err = int32Values(rec.Column(0)); err != nil {
			return nil, nil, err
		}
		if ids, err = int32Values(rec.Column(1)); err != nil {
			return nil, nil, err
		}
	} else {
		rows, ids = []int32{}, []int32{}
	}
	var part arrow.Array
	if arg != nil {
		if err := s.Budget.Fits(TakeBytes(arg, rows), "the argument of "+exprText); err != nil {
			return nil, nil, err
		}
		if part, err = TakeParallel(mem, arg, rows, sp.p); err != nil {
			return nil, nil, fmt.Errorf("aggregate %s: %w", exprText, err)
		}
		defer part.Release()
	}
	work, p, err := reserveReduce(s, fn, exprText, len(ids), groups, sp.p)
	if err != nil {
		return nil, nil, err
	}
	defer s.Budget.Release(work)
	if err := s.Budget.Fits(AggregateBytes(fn, part, groups), "the result of "+exprText); err != nil {
		return nil, nil, err
	}
	out, err := AggregateParallel(mem, agg, exprText, part, ids, groups, p)
	if err != nil {
		if pe, ok := plan.AsError(err); ok {
			// The first row of the failing group is its first row in
			// this partition: its local group id maps to a global one.
			if pe.Row < 0 || int(pe.Row) >= len(ids) {
				return nil, nil, fmt.Errorf("aggregate %s: error at row %d of %d", exprText, pe.Row, len(ids))
			}
			c := *pe
			c.Row = int64(ids[pe.Row])
			return nil, &c, nil
		}
		return nil, nil, err
	}
	return out, nil, nil
}
