package step

import (
	"sync"
	"sync/atomic"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Lazy frames. A flat frame holds one column entry per output column, each
// in the frame's own rows; a filter then composes an index vector into
// every column and a with_columns copies every entry, so a chain that
// alternates them over a schema growing by a column per node costs the
// width of the schema at every node, the square of the chain in all. A
// lazy frame makes both cost what the node itself reads and adds:
//
//   - its columns are a prefix of a shared, append-only store (colStore):
//     a with_columns appending columns to a frame nobody extended yet
//     writes them into the same store (a second extension copies), as
//     plan.Schema shares its prefix;
//   - each column lists its values for the rows of the row space it was
//     computed in (space); a filter or a sort (and a limit or slice of a
//     lazy frame) makes a new space, a child of its input's, holding only
//     the rows it keeps (sel), and touches no column. A column is brought to a frame's rows when something reads
//     it, through the composed map from the frame's space to the column's
//     (memoized per space, so a column read at every node of a chain costs
//     its rows at each), and Materialize brings every column in one walk up
//     the spaces.
//
// What stays inherent: a frame's result holds every column in its rows, so
// Materialize (and every node that needs whole columns: join, union,
// window, distinct, extensions) still pays columns x rows once, and a
// with_columns replacing a column of a lazy frame copies the store's
// entries (a column's place changes; appending is the shared case).
//
// The index memory a chain of spaces keeps is bounded: when the sels and
// memoized maps of a tree of spaces exceed lazyFactor times what the
// frame's columns would take as index vectors of its rows, the next filter
// flattens its input first (every column brought to its rows, the spaces
// dropped), which the filters since the last flattening have paid for.
//
// Under a memory limit (Env.WithBudget) frames stay flat: the limit
// counts every index vector a frame holds, and lazy spaces would hold
// vectors it does not see.

// lazyFactor bounds a tree of spaces' index bytes: at most lazyFactor
// times 4 bytes x (columns + 8) x (rows + 16) of the frame a filter reads
// before the filter flattens it.
const lazyFactor = 16

// space is a row space: the rows that the columns computed in it list
// values for. The root space of a store is the rows of the frame it was
// made from; a child space made by a filter or sort holds sel, the rows of
// its parent it keeps, in its order (distinct rows, none -1).
type space struct {
	parent *space
	sel    []int32
	rows   int
	// bytes counts the index bytes of every space of the tree (shared by
	// them all): sels and memoized maps.
	bytes *atomic.Int64
	mu    sync.Mutex
	// to memoizes maps to ancestors: to[a].rows[j] is the row of a that
	// row j of this space is.
	to map[*space]*gatherIdx
	// composed memoizes a column's index vector composed into this space:
	// composed[g] for a column of space a with index vector g is g read
	// through to[a] (so columns gathered alike stay alike, as filterOnBase
	// needs).
	composed map[*gatherIdx]*gatherIdx
}

// newRootSpace returns the root space of a store of rows rows.
func newRootSpace(rows int) *space {
	return &space{rows: rows, bytes: new(atomic.Int64)}
}

// child returns the space of sel's rows of s.
func (s *space) child(sel []int32) *space {
	s.bytes.Add(4 * int64(len(sel)))
	return &space{parent: s, sel: sel, rows: len(sel), bytes: s.bytes}
}

func (s *space) memoTo(a *space) *gatherIdx {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.to[a]
}

// setMemoTo memoizes g as s's map to a, counting its bytes when it is a
// vector of its own (fresh; not s's sel), and returns the memoized map
// (another reader's, when one got there first).
func (s *space) setMemoTo(a *space, g *gatherIdx, fresh bool) *gatherIdx {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.to[a]; old != nil {
		return old
	}
	if s.to == nil {
		s.to = map[*space]*gatherIdx{}
	}
	s.to[a] = g
	if fresh {
		s.bytes.Add(4 * int64(len(g.rows)))
	}
	return g
}

// mapTo returns the map from s's rows to the rows of its ancestor a (nil:
// a is s, the identity), and false when a is not an ancestor of s. It
// walks up to the nearest space that knows its map to a and composes back
// down, memoizing the map at every space on the way, so that the next
// space down the chain finds it one step up.
func (s *space) mapTo(a *space, par ops.Parallel) (*gatherIdx, bool) {
	if s == a {
		return nil, true
	}
	var path []*space
	var m *gatherIdx
	for t := s; t != a; t = t.parent {
		if t == nil {
			return nil, false
		}
		if g := t.memoTo(a); g != nil {
			m = g
			break
		}
		path = append(path, t)
	}
	for i := len(path) - 1; i >= 0; i-- {
		t := path[i]
		if m == nil {
			// The parent is a: the map is sel itself.
			m = t.setMemoTo(a, &gatherIdx{rows: t.sel}, false)
		} else {
			m = t.setMemoTo(a, &gatherIdx{rows: composeRows(m.rows, t.sel, par)}, true)
		}
	}
	return m, true
}

// composeRows returns rows[j] = base[sel[j]], -1 where sel[j] is -1 (the
// rows split over goroutines as par says).
func composeRows(base, sel []int32, par ops.Parallel) []int32 {
	out := make([]int32, len(sel))
	// The closure cannot panic (the indices are the frames' own).
	_ = par.For(len(sel), func(lo, hi int) {
		for j, r := range sel[lo:hi] {
			if r < 0 {
				out[lo+j] = -1
			} else {
				out[lo+j] = base[r]
			}
		}
	})
	return out
}

// composeIdx returns column index vector g (of an ancestor space) read
// through m, the map from s to that space, memoized in s.
func (s *space) composeIdx(g, m *gatherIdx, par ops.Parallel) *gatherIdx {
	s.mu.Lock()
	if c := s.composed[g]; c != nil {
		s.mu.Unlock()
		return c
	}
	s.mu.Unlock()
	rows := composeRows(g.rows, m.rows, par)
	c := &gatherIdx{rows: rows}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.composed[g]; old != nil {
		return old
	}
	if s.composed == nil {
		s.composed = map[*gatherIdx]*gatherIdx{}
	}
	s.composed[g] = c
	s.bytes.Add(4 * int64(len(rows)))
	return c
}

// lcol is a column of a store: its values for the rows of sp.
type lcol struct {
	fcol
	sp *space
}

// colStore is the shared, append-only column list of lazy frames. A frame
// holds one reference to the store (refs); the store holds one reference
// to each column's array, dropped with the last frame. Columns at
// positions below a frame's width never change; the frame whose width
// equals tail may append in place, below cap(cols) (cols is never
// resliced: readers read its entries below their width while an
// extension writes above it).
type colStore struct {
	cols []lcol
	tail atomic.Int64
	refs atomic.Int64
}

// newStore returns a store of cols (references handed over), held once.
func newStore(cols []lcol, capacity int) *colStore {
	st := &colStore{cols: make([]lcol, max(capacity, len(cols)))}
	copy(st.cols, cols)
	st.tail.Store(int64(len(cols)))
	st.refs.Store(1)
	return st
}

// release drops one frame's reference; the last releases every column.
func (st *colStore) release() {
	if st.refs.Add(-1) != 0 {
		return
	}
	for _, c := range st.cols[:st.tail.Load()] {
		c.release()
	}
	st.cols = nil
}

// lazyEnabled reports whether e's frames may be lazy (no memory limit).
func (e *Env) lazyEnabled() bool { return e.budget == nil && !e.flatFrames }

// lazyOf returns f's store (one more reference), width and space, making
// them from a flat f (one reference to each of its columns) the first time.
func lazyOf(f *Frame, extra int) (*colStore, int, *space) {
	if f.store != nil {
		f.store.refs.Add(1)
		return f.store, f.n, f.sp
	}
	sp := newRootSpace(f.rows)
	cols := make([]lcol, len(f.cols))
	for i, c := range f.cols {
		c.retain()
		cols[i] = lcol{fcol: c, sp: sp}
	}
	return newStore(cols, 2*len(cols)+extra), len(cols), sp
}

// colAt returns column i of lazy frame f in f's rows (not retained: f
// holds it).
func (e *Env) colAt(f *Frame, i int) (fcol, error) {
	c := f.store.cols[i]
	m, ok := f.sp.mapTo(c.sp, e.par)
	if !ok {
		return fcol{}, e.Internal("a column's rows are not an ancestor of its frame's")
	}
	switch {
	case m == nil:
		return c.fcol, nil
	case c.idx == nil:
		return c.withIdx(m), nil
	default:
		return c.withIdx(f.sp.composeIdx(c.idx, m, e.par)), nil
	}
}

// flatCols returns every column of lazy frame f in f's rows (not
// retained): one walk up f's spaces composes the map to each space some
// column lives in, so that a frame many filters deep costs their depth
// times its rows, not that per column.
func (e *Env) flatCols(f *Frame) ([]fcol, error) {
	need := map[*space]bool{}
	for _, c := range f.store.cols[:f.n] {
		need[c.sp] = true
	}
	maps := make(map[*space]*gatherIdx, len(need))
	var m *gatherIdx // f.sp to t: nil is the identity
	for t := f.sp; t != nil && len(maps) < len(need); t = t.parent {
		if need[t] {
			maps[t] = m
		}
		if t.parent == nil {
			break
		}
		if m == nil {
			m = &gatherIdx{rows: t.sel}
		} else {
			m = &gatherIdx{rows: composeRows(t.sel, m.rows, e.par)}
		}
	}
	out := make([]fcol, f.n)
	composed := map[*gatherIdx]*gatherIdx{}
	for i, c := range f.store.cols[:f.n] {
		m, ok := maps[c.sp]
		if !ok {
			return nil, e.Internal("a column's rows are not an ancestor of its frame's")
		}
		switch {
		case m == nil:
			out[i] = c.fcol
		case c.idx == nil:
			out[i] = c.withIdx(m)
		default:
			g := composed[c.idx]
			if g == nil {
				g = &gatherIdx{rows: composeRows(c.idx.rows, m.rows, e.par)}
				composed[c.idx] = g
			}
			out[i] = c.withIdx(g)
		}
	}
	return out, nil
}

// flat returns f as a flat frame the caller owns: f shared when it is
// flat, else its columns brought to its rows.
func (e *Env) flat(f *Frame) (*Frame, error) {
	if f.store == nil {
		return f.Share(f.schema), nil
	}
	cols, err := e.flatCols(f)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		c.retain()
	}
	return &Frame{schema: f.schema, rows: f.rows, cols: cols}, nil
}

// selectRows returns the rows idx of f under s — distinct rows of f, in
// any order, none -1: a filter's or a sort's — as a lazy frame: a child
// space of f's, no column touched. Under a memory limit, or when f's
// spaces hold more index bytes than lazyFactor allows, it gathers as
// reorder does (the latter first flattening f).
func (e *Env) selectRows(f *Frame, s plan.Schema, idx []int32) (*Frame, error) {
	if !e.lazyEnabled() {
		return e.reorder(f, s, idx)
	}
	if isIdentity(idx, f.rows) {
		return f.Share(s), nil
	}
	src := f
	if f.store != nil && f.sp.bytes.Load() > lazyFactor*4*int64(f.n+8)*int64(len(idx)+16) {
		flat, err := e.flat(f)
		if err != nil {
			return nil, err
		}
		defer flat.Release()
		src = flat
	}
	st, n, sp := lazyOf(src, 0)
	return &Frame{schema: s, rows: len(idx), store: st, n: n, sp: sp.child(idx)}, nil
}

// extend returns the lazy frame of f with the columns of a with_columns:
// set[i] replaces column i (in place), add is appended; their references
// are handed over, and all are in f's rows. Appending only to a frame
// nobody extended yet writes into f's store; anything else copies the
// store's entries for f (retaining each).
func extend(f *Frame, s plan.Schema, set map[int]fcol, add []fcol) *Frame {
	st, n, sp := lazyOf(f, len(add))
	if len(set) == 0 && n+len(add) <= len(st.cols) && st.tail.CompareAndSwap(int64(n), int64(n+len(add))) {
		for i, c := range add {
			st.cols[n+i] = lcol{fcol: c, sp: sp}
		}
		return &Frame{schema: s, rows: f.rows, store: st, n: n + len(add), sp: sp}
	}
	cols := make([]lcol, n, 2*(n+len(add)))
	for i, c := range st.cols[:n] {
		if r, ok := set[i]; ok {
			cols[i] = lcol{fcol: r, sp: sp}
			continue
		}
		c.retain()
		cols[i] = c
	}
	for _, c := range add {
		cols = append(cols, lcol{fcol: c, sp: sp})
	}
	st.release() // lazyOf's reference: the copy holds its own
	out := newStore(cols, cap(cols))
	return &Frame{schema: s, rows: f.rows, store: out, n: len(cols), sp: sp}
}
