package step

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// filterRows keeps the rows of rec where every conjunct is valid and true.
// Every conjunct is evaluated over all rows, in list order, before any row
// is dropped. The result has rec's Arrow schema.
func (e *Env) filterRows(conjuncts []plan.Expr, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sel, err := e.evaluator().EvalPredicate(e.Ctx, conjuncts, rec, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	if int64(sel.Len()) != rec.NumRows() {
		return nil, e.Internal("a predicate selected %d rows of %d", sel.Len(), rec.NumRows())
	}
	out, err := ops.FilterRecord(e.Mem, rec, sel)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// filter keeps the rows where every conjunct is valid and true, by
// composing an index vector (no column is copied). The rows it keeps are
// those of evaluating each conjunct over all rows in list order
// (docs/semantics.md, filter); how it gets there is keptRows' business.
func (e *Env) filter(n *plan.FilterNode, in *Frame) (*Frame, error) {
	if rows, ok, err := e.filterOnBase(n.Predicates, in); ok {
		if err != nil {
			return nil, err
		}
		return e.selectRows(in, n.Schema(), rows)
	} else if err != nil {
		return nil, err
	}
	rows, err := e.keptRows(n.Predicates, in)
	if err != nil {
		return nil, err
	}
	return e.selectRows(in, n.Schema(), rows)
}

// A filter with several conjuncts evaluates them in stages, like a chain
// of one-conjunct filters: once the conjuncts evaluated so far keep few
// enough rows, the remaining ones are evaluated only over those (their
// columns gathered at the kept rows). The fused filter of TPC-H Q6
// (l_shipdate, l_discount, l_quantity) then compares l_discount and
// l_quantity on the 15% of lineitem the dates keep, not on all of it,
// which is what made filter_fusion a loss there. It is invisible: a
// conjunct evaluated over fewer rows is one that is deterministic and
// provably cannot raise (kernel.CannotRaise), so the rows it is not
// evaluated on could neither raise an error nor change the selection
// (they are dropped by an earlier conjunct anyway). The other conjuncts
// are evaluated first, over all rows, in list order, so the first error
// is the one the evaluation in list order raises (a total conjunct raises
// none).
var (
	// stagedFilter enables the stages; tests turn it off to compare the
	// two ways.
	stagedFilter = true
	// filterStageRows is the fewest rows a filter evaluates in stages:
	// below it one call over all conjuncts costs less than the stages'
	// bookkeeping (tests lower it).
	filterStageRows = 1 << 14
)

// stageFrom returns the fewest rows e's filters evaluate in stages.
func (e *Env) stageFrom() int {
	if e.stageRows > 0 {
		return e.stageRows
	}
	return filterStageRows
}

// filterStageShrink: the remaining conjuncts move to the kept rows once at
// most 1/filterStageShrink of the rows are kept (gathering their columns
// there, and listing the kept rows, must cost less than evaluating them
// over the dropped rows).
const filterStageShrink = 3

// keptRows returns the positions of the rows of f (ascending) where every
// conjunct is valid and true, as the evaluation of each conjunct over all
// rows in list order gives them, with its first error.
func (e *Env) keptRows(conjuncts []plan.Expr, f *Frame) ([]int32, error) {
	rows, _, err := e.stagedRows(conjuncts, f)
	return rows, err
}

// stagedRows is keptRows, also returning the number of stages it
// evaluated the conjuncts in (1: all over all rows of f).
func (e *Env) stagedRows(conjuncts []plan.Expr, f *Frame) (rows []int32, stages int, err error) {
	var order []plan.Expr
	total, ok := 0, stagedFilter && len(conjuncts) >= 2 && f.rows >= e.stageFrom()
	if ok {
		order, total, ok = stageOrder(conjuncts, f.schema)
	}
	if !ok || total == 0 {
		rows, err := e.keptRowsAtOnce(conjuncts, f)
		return rows, 1, err
	}
	cols := stageCols{e: e, f: f}
	defer cols.release()
	var acc []byte // the rows every conjunct so far keeps
	for k, c := range order {
		b, err := cols.batch(c)
		if err != nil {
			return nil, 0, err
		}
		sel, err := e.evaluator().EvalPredicate(e.Ctx, []plan.Expr{c}, b, 0)
		b.Release()
		if err != nil {
			return nil, 0, err
		}
		acc = andSelection(acc, sel, f.rows)
		sel.Release()
		if err := e.CheckCtx(); err != nil {
			return nil, 0, err
		}
		rest := order[k+1:]
		if len(rest) == 0 || len(rest) > total {
			continue // the conjuncts that may raise run over all rows
		}
		kept := bitutil.CountSetBits(acc, 0, f.rows)
		if kept == 0 {
			return []int32{}, 1, nil
		}
		if kept*filterStageShrink > f.rows {
			continue
		}
		if j := fullWidthNext(rest, f, kept); j >= 0 {
			// That conjunct next, over all rows (the others keep their
			// order); decide again after it.
			c := rest[j]
			copy(rest[1:j+1], rest[:j])
			rest[0] = c
			continue
		}
		rows, err := e.selectedRows(acc, f.rows)
		if err != nil {
			return nil, 0, err
		}
		cols.release()
		sub, err := e.selectRows(f, f.schema, rows)
		if err != nil {
			return nil, 0, err
		}
		subRows, subStages, err := e.stagedRows(rest, sub)
		sub.Release()
		if err != nil {
			return nil, 0, err
		}
		for i, r := range subRows {
			subRows[i] = rows[r]
		}
		return subRows, 1 + subStages, nil
	}
	rows, err = e.selectedRows(acc, f.rows)
	return rows, 1, err
}

// fullWidthNext returns the index in rest of the first conjunct that
// costs less evaluated over all rows of f than over the kept ones with
// its columns gathered there, or -1. Gathering a string costs far more
// than comparing it in place: TPC-H Q19 keeps 29% of lineitem by
// is_in(l_shipmode, ...), and l_shipinstruct == "DELIVER IN PERSON" is
// cheaper over all rows than gathering 1.7M strings to test it. Only a
// conjunct reading compact columns qualifies (a gathered column costs
// its gather over all rows too). The costs are rough per-row weights
// (filterCost, gatherCost).
func fullWidthNext(rest []plan.Expr, f *Frame, kept int) int {
	dropped := int64(f.rows - kept)
	for j, c := range rest {
		g, ok := int64(0), true
		for _, name := range plan.Columns(c) {
			fld, found := f.schema.Lookup(name)
			if !found || !compactColumn(f, name) {
				ok = false
				break
			}
			g += gatherCost(fld.Type)
		}
		if ok && int64(kept)*g > dropped*filterCost(c, f.schema) {
			return j
		}
	}
	return -1
}

// compactColumn reports whether f holds column name as an array of its
// rows (read in place, without a gather).
func compactColumn(f *Frame, name string) bool {
	if f.rec != nil {
		return true
	}
	i := f.schema.Index(name)
	return f.store == nil && i >= 0 && i < len(f.cols) && f.cols[i].idx == nil
}

// gatherCost is the rough cost of gathering one value of type t (a string
// is copied through a builder; a fixed-width value is one load and store).
func gatherCost(t plan.Type) int64 {
	if t.Physical() == plan.String {
		return 20
	}
	return 2
}

// filterCost is the rough cost of evaluating e on one row: each call 1,
// or 3 when it reads a string.
func filterCost(e plan.Expr, s plan.Schema) int64 {
	var cost int64
	plan.Walk(e, func(x plan.Expr) bool {
		c, ok := x.(*plan.Call)
		if !ok {
			return true
		}
		w := int64(1)
		for _, a := range c.Args {
			if f, err := plan.TypeOf(a, s); err == nil && f.Type.Physical() == plan.String {
				w = 3
				break
			}
		}
		cost += w
		return true
	})
	return max(cost, 1)
}

// keptRowsAtOnce is keptRows in one evaluation of every conjunct over all
// rows of f.
func (e *Env) keptRowsAtOnce(conjuncts []plan.Expr, f *Frame) ([]int32, error) {
	b, err := e.exprBatch(f, conjuncts)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	sel, err := e.evaluator().EvalPredicate(e.Ctx, conjuncts, b, 0)
	if err != nil {
		return nil, err
	}
	defer sel.Release()
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	return e.selectTrue(sel, f.rows)
}

// stageOrder orders a filter's conjuncts for keptRows: those that may raise
// or are not deterministic first, in list order, then the total ones, in
// list order; total is how many total ones end the order. ok is false when a conjunct does not
// type as bool over s (the evaluation at once reports that as it should).
func stageOrder(conjuncts []plan.Expr, s plan.Schema) (order []plan.Expr, total int, ok bool) {
	order = make([]plan.Expr, 0, len(conjuncts))
	var free []plan.Expr
	for _, c := range conjuncts {
		f, err := plan.TypeOf(c, s)
		if err != nil || f.Type != plan.Bool {
			return nil, 0, false
		}
		if plan.IsDeterministic(c) && kernel.CannotRaise(c, s) {
			free = append(free, c)
		} else {
			order = append(order, c)
		}
	}
	return append(order, free...), len(free), true
}

// andSelection ANDs the selection sel (never null, possibly at an offset)
// into acc, a bitmap of n rows; a nil acc is all true.
func andSelection(acc []byte, sel *array.Boolean, n int) []byte {
	bits := sel.Data().Buffers()[1].Bytes()
	off := int64(sel.Data().Offset())
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	if acc == nil {
		bitutil.CopyBitmap(bits, int(off), n, out, 0)
		return out
	}
	bitutil.BitmapAnd(acc, bits, 0, off, out, 0, int64(n))
	return out
}

// selectedRows lists the rows set in the bitmap sel of n rows.
func (e *Env) selectedRows(sel []byte, n int) ([]int32, error) {
	b := array.NewBoolean(n, memory.NewBufferBytes(sel), nil, 0)
	defer b.Release()
	return e.selectTrue(b, n)
}

// selectTrue lists the rows where sel is true, reserving its work.
func (e *Env) selectTrue(sel *array.Boolean, n int) ([]int32, error) {
	if sel.Len() != n {
		return nil, e.Internal("a predicate selected over %d rows of %d", sel.Len(), n)
	}
	// The selection's bitmap words and its row vector.
	work := int64(n)/8 + 4*int64(n) + 64
	if err := e.reserve(work, "the filter's selection"); err != nil {
		return nil, err
	}
	rows, err := ops.SelectTrueParallel(e.par, n, sel)
	e.release(work)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return rows, nil
}

// stageCols holds the columns one stage of keptRows has gathered from its
// frame, so that conjuncts reading the same column gather it once.
type stageCols struct {
	e    *Env
	f    *Frame
	cols map[string]arrow.Array
}

// batch returns a compact batch of the columns c reads (the frame's own
// record when it has one). The caller releases it.
func (s *stageCols) batch(c plan.Expr) (arrow.RecordBatch, error) {
	if s.f.rec != nil {
		s.f.rec.Retain()
		return s.f.rec, nil
	}
	if s.cols == nil {
		s.cols = map[string]arrow.Array{}
	}
	var fields []arrow.Field
	var arrs []arrow.Array
	seen := map[string]bool{}
	for _, name := range plan.Columns(c) {
		if seen[name] {
			continue
		}
		seen[name] = true
		a, ok := s.cols[name]
		if !ok {
			fc, err := s.e.col(s.f, name)
			if err != nil {
				return nil, err
			}
			if a, err = s.e.value(fc); err != nil {
				return nil, err
			}
			s.cols[name] = a
		}
		fld, _ := s.f.schema.Lookup(name)
		dt, err := kernel.ArrowType(fld.Type)
		if err != nil {
			return nil, s.e.Internal("column %q: %v", name, err)
		}
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: fld.Nullable})
		arrs = append(arrs, a)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(s.f.rows)), nil
}

// release drops the gathered columns.
func (s *stageCols) release() {
	for _, a := range s.cols {
		a.Release()
	}
	s.cols = nil
}

// project computes one column per expression, each over every input row (a
// literal is broadcast to the input's height by the evaluator).
func (e *Env) project(n *plan.ProjectNode, in *Frame) (*Frame, error) {
	cols, err := e.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	return &Frame{schema: n.Schema(), rows: in.rows, cols: cols}, nil
}

// withColumns evaluates every expression over the input (a simultaneous
// assignment) and lays the output out by the node's resolved schema: a
// computed column where an expression produces the name, the input column
// of that name otherwise. The temporaries of a synthesized window below are
// not in the resolved schema, so they are not passed through.
func (e *Env) withColumns(n *plan.WithColumnsNode, in *Frame) (*Frame, error) {
	computed, err := e.computeExprs(n.Exprs, in)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, fc := range computed {
			fc.release()
		}
	}()
	byName := make(map[string]fcol, len(computed))
	for i, x := range n.Exprs {
		byName[plan.OutputName(x)] = computed[i]
	}
	s := n.Schema()
	if _, owns := plan.OwnedWindow(n); !owns && e.lazyEnabled() {
		// A lazy frame: the input's columns shared, the computed ones
		// replacing theirs or appended in the schema's order.
		set := map[int]fcol{}
		var add []fcol
		for i := in.width(); i < s.Len(); i++ {
			fc, ok := byName[s.Field(i).Name]
			if !ok {
				return nil, e.Internal("with_columns: no entry computes column %q", s.Field(i).Name)
			}
			add = append(add, fc)
		}
		for name, fc := range byName {
			if i := in.schema.Index(name); i >= 0 {
				set[i] = fc
			}
		}
		if len(set)+len(add) != len(computed) || s.Len() != in.width()+len(add) {
			return nil, e.Internal("with_columns produced %d columns, its schema has %d", in.width()+len(add), s.Len())
		}
		computed = nil // handed over to the frame
		return extend(in, s, set, add), nil
	}
	cols := make([]fcol, s.Len())
	for i, f := range s.Fields() {
		fc, ok := byName[f.Name]
		if !ok {
			if fc, err = e.col(in, f.Name); err != nil {
				return nil, err
			}
		}
		cols[i] = fc
	}
	for _, fc := range cols {
		fc.retain()
	}
	return &Frame{schema: s, rows: in.rows, cols: cols}, nil
}

// sort orders the input stably by its keys (each evaluated over all rows,
// in order) by composing the permutation into the columns. With k >= 0 only
// the first k rows of the order are produced (top-k; the same rows as
// sorting everything and keeping k).
func (e *Env) sort(n *plan.SortNode, in *Frame, k int64) (*Frame, error) {
	exprs := make([]plan.Expr, len(n.Keys))
	desc := make([]bool, len(n.Keys))
	nullsLast := make([]bool, len(n.Keys))
	for i, key := range n.Keys {
		exprs[i], desc[i], nullsLast[i] = key.Expr, key.Desc, key.NullsLast
	}
	if (k < 0 || k >= int64(in.rows)) && lazyKeys(exprs) {
		return e.sortLazily(n, in, exprs, desc, nullsLast)
	}
	keys, err := e.evalOn(in, exprs)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	// The permutation, per-key words, scratch and merge pairs.
	work := int64(in.rows) * (40 + 8*int64(len(keys)))
	if err := e.reserve(work, "the sort's permutation"); err != nil {
		return nil, err
	}
	var perm []int32
	if k >= 0 && k < int64(in.rows) {
		perm, err = ops.TopK(keys, desc, nullsLast, int(k))
	} else {
		perm, err = ops.SortIndices(keys, desc, nullsLast)
	}
	e.release(work)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return e.selectRows(in, n.Schema(), perm)
}

// lazyKeys reports whether a full sort may compute its keys after the first
// only when it needs them: several keys, each after the first a plain
// column, whose reading can raise nothing, so a key never computed changes
// no result and hides no error.
func lazyKeys(exprs []plan.Expr) bool {
	if len(exprs) < 2 {
		return false
	}
	for _, x := range exprs[1:] {
		if _, ok := x.(*plan.Column); !ok {
			return false
		}
	}
	return true
}

// sortLazily is the full sort with its keys computed as the sort needs them
// (ops.SortIndicesLazy): the row numbers join_order sorts a reordered
// chain back on are told apart by the first few, and the others are never
// gathered through the joins' rows.
func (e *Env) sortLazily(n *plan.SortNode, in *Frame, exprs []plan.Expr, desc, nullsLast []bool) (*Frame, error) {
	keys, err := e.evalOn(in, exprs[:1])
	defer func() { releaseAll(keys) }()
	if err != nil {
		return nil, err
	}
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	work := int64(in.rows) * (40 + 8*int64(len(exprs)))
	if err := e.reserve(work, "the sort's permutation"); err != nil {
		return nil, err
	}
	perm, err := ops.SortIndicesLazy(in.rows, len(exprs), func(k int) (arrow.Array, error) {
		if k == 0 {
			return keys[0], nil
		}
		if err := e.CheckCtx(); err != nil {
			return nil, err
		}
		a, err := e.evalOn(in, exprs[k:k+1])
		if err != nil {
			return nil, err
		}
		keys = append(keys, a...)
		return a[0], nil
	}, desc, nullsLast)
	e.release(work)
	if err != nil {
		var pe *plan.Error
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, e.Internal("%v", err)
	}
	return e.selectRows(in, n.Schema(), perm)
}

// distinct keeps the first row of each distinct key (the Subset columns,
// or all columns), in input order.
func (e *Env) distinct(n *plan.DistinctNode, in *Frame) (*Frame, error) {
	names := n.Subset
	if len(names) == 0 {
		names = in.schema.Names()
	}
	var rows []int32
	if len(names) == 0 {
		// No column at all: every row has the same (empty) key.
		if in.rows > 0 {
			rows = []int32{0}
		}
	} else {
		keys, err := e.batch(in, names)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		work := ops.GroupBound(keys.Columns(), e.par)
		if err := e.reserve(work, "the distinct's hash table"); err != nil {
			return nil, err
		}
		_, rows, err = ops.GroupIDsParallel(e.Mem, keys.Columns(), e.par)
		e.release(work)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
	}
	return e.reorder(in, n.Schema(), rows)
}
