// Package ops holds dfopt's relational kernels over Apache Arrow: grouping,
// aggregates, sorting, top-k, joins, distinct, and the row-gathering
// primitives (take, filter, slice, concatenate, broadcast) the operators are
// built from. The executor (exec) and the eager DataFrame (eager) both call
// it, so it is THE one place where the grouping, aggregate, sort and join
// semantics of docs/semantics.md live.
//
// The package evaluates no expressions: callers pass already-evaluated key
// and argument arrays (bool, int32, int64, float64 and string, as
// exec/kernel maps the plan types). Kernels return row indices as []int32
// (so one call handles at most math.MaxInt32 rows) and build new arrays with
// the allocator they are given; the caller releases what it receives.
// Inputs may be slices (arrays with a non-zero data offset).
//
// # API
//
//	GroupIDs(keys) (ids, firstRows, err)        group id per row, first-appearance order
//	OneGroup(rows) ids                          the ids of a keyless aggregate (one group)
//	FirstRows(ids, groups) firstRows            first row per group (-1 if none)
//	Aggregate(mem, fn, exprText, arg, ids, groups) (arrow.Array, error)
//	DistinctRows(keys) (rows, err)              first row of each distinct key
//	SortIndices(keys, desc, nullsLast) (perm, err)
//	SortIndicesLazy(n, nkeys, key, desc, nullsLast) (perm, err)  keys loaded as needed
//	TopK(keys, desc, nullsLast, k) (perm, err)  == SortIndices(...)[:k]
//	JoinIndices(kind, left, right) (li, ri, err) -1 = null-extended side
//	CrossIndices(leftRows, rightRows) (li, ri, err)
//	Take(mem, arr, idx) / TakeRecord(mem, rec, idx)  gather, -1 gives null
//	Broadcast(mem, perGroup, ids)               window results back to rows
//	SelectTrue(rows, masks...) / FilterRecord(mem, rec, masks...)
//	SliceRecord(rec, offset, length) / ConcatRecords(mem, schema, recs)
//
// Parallel forms split the rows over goroutines (Parallel) and return
// exactly what the sequential ones return, errors included:
// TakeParallel, SelectTrueParallel, GroupIDsParallel (needs mem for
// temporaries), AggregateParallel and JoinIndicesParallel.
//
// Limited forms run under a memory limit (Spill: a budget, a counting
// allocator, a spill directory) and return exactly what the unlimited
// ones return, errors included, spilling to Arrow IPC files when their
// hash tables do not fit: JoinIndicesLimited (a grace hash join),
// CrossIndicesLimited (which cannot spill), GroupLimited and OneGrouping
// (a Grouping whose Aggregate replays spilled partitions). GroupBound and
// TakeBytes size what a grouping and a gather hold, for callers that
// check before they allocate.
//
// # Key semantics
//
// Group, distinct, window and join keys compare with every NaN equal to
// every other NaN (whatever the payload) and -0.0 equal to +0.0. For
// grouping, distinct and windows a null key is a key like any other; for
// joins a null key matches nothing. Join keys of different numeric types
// compare in the promoted type (int32 with int64 as int64, an integer with
// float64 as float64). A group's key values are read from its first row, so
// they keep the first row's bits.
//
// Sorting uses the total order -Inf < ... < -0.0 < +0.0 < ... < +Inf < NaN
// (all NaNs equal), strings by bytes, false < true; it is stable; nulls come
// first unless nullsLast, and desc reverses the values but not the null
// placement.
//
// # Why hand-written
//
// Arrow's compute package has no aggregates and no hash grouping, its sort
// leaks scratch memory, orders NaN like a null and costs ~850 ns/row, and its
// take and filter cost 8–20 ns/row plus ~10 µs per call (see
// shared/notes/go-deps.md §1). The kernels here are typed loops over Arrow
// buffers; each file says why its kernel exists.
package ops
