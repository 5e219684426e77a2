package step

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// join evaluates the left keys over the left input, then the right keys
// over the right input (each over all rows, in order), checks validate
// (left, then right), matches the keys (a null key matches nothing unless
// nulls_equal; keys of different numeric types compare promoted), filters
// a semi or anti join's key-matched pairs by its residual, and gathers the
// output in the order docs/semantics.md defines per kind. The output is
// built from the join's plan.JoinLayout, column by column: the side and
// ordinal each comes from, a full join's merged key taking the right key
// where the row has no left row. An inner join with BuildLeft hashes its
// left keys instead of its right ones (ops.BuildLeft): the pairs, their
// order and the errors are the same; only which side's keys fill the hash
// table changes.
func (e *Env) join(n *plan.JoinNode, left, right *Frame) (*Frame, error) {
	return e.joinWith(n, left, right, nil)
}

// joinWith is join, its pairs shared through p when p is not nil (see
// JoinShared): taken from p when p holds them, else computed as the inner
// join's and stored in p.
func (e *Env) joinWith(n *plan.JoinNode, left, right *Frame, p *JoinPairs) (*Frame, error) {
	lay, ok := plan.LayoutOf(n)
	if !ok {
		return nil, e.Internal("join is not resolved")
	}
	if p != nil && p.done {
		// The keys are Equal to those the pairs were computed from, over
		// Equal inputs: evaluating them again gives the same columns and
		// raises nothing. Only this join's own validation needs them.
		if n.Validate.ChecksLeft() || n.Validate.ChecksRight() {
			if err := e.validateOnly(n, left, right); err != nil {
				return nil, err
			}
		}
		if n.How == plan.SemiJoin {
			return e.joinOutput(n, lay, left, right, LeftOnce(p.li), nil)
		}
		return e.joinOutput(n, lay, left, right, slices.Clone(p.li), slices.Clone(p.ri))
	}
	how := n.How
	if p != nil {
		how = plan.InnerJoin
	}
	li, ri, held, err := e.joinPairs(n, how, lay, left, right)
	if err != nil {
		return nil, err
	}
	// The output frames count the vectors they keep (gather); the pairs'
	// own reservation ends with the join.
	defer e.release(held)
	if p != nil {
		p.li, p.ri, p.done = li, ri, true
		if n.How == plan.SemiJoin {
			li, ri = LeftOnce(li), nil
		}
	}
	return e.joinOutput(n, lay, left, right, li, ri)
}

// joinPairs evaluates the keys of join n over left and right, validates
// them and returns the pairs of a join of kind how on them (how is n.How,
// or inner for a join whose pairs are shared), with the bytes the pairs
// hold under a memory limit.
func (e *Env) joinPairs(n *plan.JoinNode, how plan.JoinKind, lay *plan.JoinLayout, left, right *Frame) (li, ri []int32, held int64, err error) {
	if base, sel, ok := e.keysThroughIndex(n, how, left); ok {
		li, ri, err := e.joinThroughIndex(n, how, base, sel, right)
		return li, ri, 0, err
	}
	lk, rk, err := e.validatedKeys(n, left, right)
	if err != nil {
		return nil, nil, 0, err
	}
	defer releaseAll(lk)
	defer releaseAll(rk)
	if n.NullsEqual && how != plan.CrossJoin {
		l2, r2, err := ops.NullsEqualKeys(e.Mem, lk, rk)
		if err != nil {
			return nil, nil, 0, e.Internal("%v", err)
		}
		defer releaseAll(l2)
		defer releaseAll(r2)
		lk, rk = l2, r2
	}
	switch {
	case how == plan.CrossJoin:
		li, ri, held, err = ops.CrossIndicesLimited(e.spill(), left.rows, right.rows)
	case n.Residual != nil:
		li, held, err = e.residualRows(n, lay, left, right, lk, rk)
	default:
		build := ops.BuildRight
		if n.BuildLeft {
			build = ops.BuildLeft
		}
		li, ri, held, err = ops.JoinIndicesLimitedBuild(e.spill(), how, build, lk, rk, e.par)
	}
	if err != nil {
		if pe, ok := plan.AsError(err); ok {
			return nil, nil, 0, pe
		}
		return nil, nil, 0, e.opFailure(err)
	}
	return li, ri, held, nil
}

// validateOnly evaluates the keys of join n over left and right and
// checks its validate option, as joinPairs does before matching.
func (e *Env) validateOnly(n *plan.JoinNode, left, right *Frame) error {
	lk, rk, err := e.validatedKeys(n, left, right)
	releaseAll(lk)
	releaseAll(rk)
	return err
}

// validatedKeys evaluates the keys of join n over left and right and
// checks its validate option (validateJoin); the caller releases them.
func (e *Env) validatedKeys(n *plan.JoinNode, left, right *Frame) (lk, rk []arrow.Array, err error) {
	lk, err = e.evalOn(left, n.LeftOn)
	if err != nil {
		return nil, nil, err
	}
	rk, err = e.evalOn(right, n.RightOn)
	if err == nil {
		err = e.CheckCtx()
	}
	if err == nil {
		err = e.validateJoin(n, lk, rk)
	}
	if err != nil {
		releaseAll(lk)
		releaseAll(rk)
		return nil, nil, err
	}
	return lk, rk, nil
}

// JoinPairs holds the pairs of an inner equi-join that several joins of
// one plan share (JoinShared): the joins of one probe class, which have
// Equal inputs, Equal keys and the same nulls_equal and differ only in
// their kind (inner or semi), build side, validation or output options.
// The zero value holds nothing yet.
type JoinPairs struct {
	li, ri []int32
	done   bool
}

// held reports whether p holds pairs.
func (p *JoinPairs) held() bool { return p.done }

// Release drops the pairs p holds (a later JoinShared computes them
// again).
func (p *JoinPairs) Release() { p.li, p.ri, p.done = nil, nil, false }

// SharesPairs reports whether join n may take its pairs from a JoinPairs:
// an inner or semi equi-join without a residual. A semi join's left rows
// are then the distinct left rows of the inner join's pairs, in order
// (docs/semantics.md, join).
func SharesPairs(n *plan.JoinNode) bool {
	return (n.How == plan.InnerJoin || n.How == plan.SemiJoin) && n.Residual == nil && len(n.LeftOn) > 0
}

// JoinShared evaluates the inner or semi join n (SharesPairs) over its
// inputs' frames like Eval, its pairs shared through p by the joins of a
// probe class (exec's memo; the caller guarantees that every join given p
// has Equal inputs, evaluated to Equal frames, Equal keys and the same
// nulls_equal). The first join evaluated computes the inner join's pairs
// and stores them in p; the others take them from p: an inner join as
// they are (the pairs do not depend on the build side), a semi join the
// distinct left rows among them (LeftOnce). A join that validates
// evaluates its keys and checks them itself. Under a memory limit nothing
// is shared (the pairs' bytes are counted per join).
func JoinShared(e *Env, n *plan.JoinNode, left, right *Frame, p *JoinPairs) (*Frame, error) {
	switch {
	case n == nil || !n.Resolved():
		return nil, e.Internal("JoinShared of an unresolved join")
	case left == nil || right == nil || p == nil:
		return nil, e.Internal("join: a missing input or pair store")
	case !SharesPairs(n):
		return nil, e.Internal("join: a %s join with a residual or no keys cannot share pairs", n.How)
	case e.budget != nil:
		return e.join(n, left, right)
	}
	return e.joinWith(n, left, right, p)
}

// LeftOnce returns the distinct left rows of an inner equi-join's pairs
// li (left rows in order, each repeated once per match), in order: the
// left rows of the semi join on the same inputs and keys.
func LeftOnce(li []int32) []int32 {
	out := make([]int32, 0, len(li))
	for i, l := range li {
		if i == 0 || l != li[i-1] {
			out = append(out, l)
		}
	}
	return out
}

// joinOutput builds the join's output frame from its pairs (li, ri; ri
// unused for semi and anti) by its layout.
func (e *Env) joinOutput(n *plan.JoinNode, lay *plan.JoinLayout, left, right *Frame, li, ri []int32) (*Frame, error) {
	s := n.Schema()
	// Every left row exactly once, in order (a lookup join against a
	// dimension with unique keys): the left columns pass through as they are.
	lf, err := e.reorder(left, left.schema, li)
	if err != nil {
		return nil, err
	}
	defer lf.Release()
	var rf *Frame
	if n.How != plan.SemiJoin && n.How != plan.AntiJoin {
		if rf, err = e.reorder(right, right.schema, ri); err != nil {
			return nil, err
		}
		defer rf.Release()
	}
	cols := make([]fcol, 0, len(lay.Columns))
	var fresh []arrow.Array
	defer func() { releaseAll(fresh) }()
	for _, c := range lay.Columns {
		src := lf
		if c.Side == plan.SideRight {
			src = rf
		}
		if src == nil || c.Ordinal >= len(src.cols) {
			return nil, e.Internal("join layout names %s column %d, which the input lacks", c.Side, c.Ordinal)
		}
		if n.How == plan.FullJoin && c.CoalescedWith >= 0 {
			a, err := e.coalescedKey(c, lf, rf, li)
			if err != nil {
				return nil, err
			}
			fresh = append(fresh, a)
			cols = append(cols, fcol{arr: a})
			continue
		}
		cols = append(cols, src.cols[c.Ordinal])
	}
	if len(cols) != s.Len() {
		return nil, e.Internal("join produced %d columns, its schema has %d", len(cols), s.Len())
	}
	for _, fc := range cols {
		fc.retain()
	}
	return &Frame{schema: s, rows: len(li), cols: cols}, nil
}

// joinThroughIndex enables keysThroughIndex; tests turn it off to
// compare the two ways.
var joinThroughIndex = true

// keysThroughIndex returns, when the join may match its left keys on the
// rows they were gathered from (ops.ExpandJoin), those rows' key columns
// (not retained) and the gather's index vector. That is when the join,
// matched as kind how, is an inner, left, semi or anti equi-join hashing
// its right input, with no
// residual, validation or nulls_equal and no memory limit, every left key
// is a plain column, all of them gathers through one index vector from
// columns at most a quarter as long. A plain column raises nothing, so
// matching the base rows first changes no error.
func (e *Env) keysThroughIndex(n *plan.JoinNode, how plan.JoinKind, left *Frame) ([]arrow.Array, []int32, bool) {
	switch {
	case !joinThroughIndex, e.budget != nil, n.Residual != nil, n.NullsEqual, n.BuildLeft,
		n.Validate.ChecksLeft(), n.Validate.ChecksRight(), len(n.LeftOn) == 0:
		return nil, nil, false
	case how != plan.InnerJoin && how != plan.LeftJoin && how != plan.SemiJoin && how != plan.AntiJoin:
		return nil, nil, false
	}
	var sel []int32
	base := make([]arrow.Array, 0, len(n.LeftOn))
	for _, x := range n.LeftOn {
		name, ok := isPlainColumn(x)
		if !ok {
			return nil, nil, false
		}
		arr, rows, ok := e.gatheredColumn(left, name, sel, base)
		if !ok {
			return nil, nil, false
		}
		sel = rows
		base = append(base, arr)
	}
	if 4*base[0].Len() > len(sel) {
		return nil, nil, false
	}
	return base, sel, true
}

// joinThroughIndex evaluates the right keys over the right input, joins
// the left key rows base to them (an inner join) and expands the pairs to
// the left rows, rows sel of base (ops.ExpandJoin): the pairs the join of
// the gathered left keys gives.
func (e *Env) joinThroughIndex(n *plan.JoinNode, how plan.JoinKind, base []arrow.Array, sel []int32, right *Frame) (li, ri []int32, err error) {
	rk, err := e.evalOn(right, n.RightOn)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(rk)
	if err := e.CheckCtx(); err != nil {
		return nil, nil, err
	}
	bl, br, err := ops.JoinIndicesParallel(plan.InnerJoin, base, rk, e.par)
	if err == nil {
		li, ri, err = ops.ExpandJoin(how, bl, br, base[0].Len(), sel)
	}
	if err != nil {
		if pe, ok := plan.AsError(err); ok {
			return nil, nil, pe
		}
		return nil, nil, e.opFailure(err)
	}
	return li, ri, nil
}

// coalescedKey is a full join's merged key column: the left key where the
// output row has a left row, the right key converted to the column's type
// where it has none. Those rows are the trailing block of the full join's
// output (the right rows that matched nothing).
func (e *Env) coalescedKey(c plan.JoinColumn, lf, rf *Frame, li []int32) (arrow.Array, error) {
	m := len(li)
	for m > 0 && li[m-1] < 0 {
		m--
	}
	for _, l := range li[:m] {
		if l < 0 {
			return nil, e.Internal("a full join's row without a left row precedes one with")
		}
	}
	conv := func(f *Frame, ord int) (arrow.Array, error) {
		a, err := e.value(f.cols[ord])
		if err != nil {
			return nil, err
		}
		ft := f.schema.Field(ord)
		if ft.Type == c.Type {
			return a, nil
		}
		defer a.Release()
		dt, err := kernel.ArrowType(ft.Type)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: dt, Nullable: true}}, nil), []arrow.Array{a}, int64(a.Len()))
		defer rec.Release()
		return e.evalExpr(plan.Col("k").Cast(c.Type).Expr(), rec)
	}
	la, err := conv(lf, c.Ordinal)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := conv(rf, c.CoalescedWith)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	ls, rs := array.NewSlice(la, 0, int64(m)), array.NewSlice(ra, int64(m), int64(len(li)))
	defer ls.Release()
	defer rs.Release()
	out, err := array.Concatenate([]arrow.Array{ls, rs}, e.Mem)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	return out, nil
}

// validateJoin checks the join's validate option, the left input before
// the right one: a side asserted unique whose keys repeat raises
// validation_error naming the side's key list as written.
func (e *Env) validateJoin(n *plan.JoinNode, lk, rk []arrow.Array) error {
	check := func(side string, keys, other []arrow.Array, exprs []plan.Expr) error {
		first, dup, err := ops.DuplicateKey(keys, other, n.NullsEqual)
		if err != nil {
			return e.Internal("%v", err)
		}
		if dup < 0 {
			return nil
		}
		texts := make([]string, len(exprs))
		vals := make([]string, len(exprs))
		for i, x := range exprs {
			texts[i] = plan.Written(x)
			vals[i] = texts[i] + " = " + keys[i].ValueStr(int(first))
		}
		return &plan.Error{Kind: plan.ValidationError, Expr: strings.Join(texts, ", "), Row: int64(dup),
			Msg: fmt.Sprintf("join validate %s: the %s input has the key %s on rows %d and %d", n.Validate, side, strings.Join(vals, ", "), first, dup)}
	}
	if n.Validate.ChecksLeft() {
		if err := check("left", lk, rk, n.LeftOn); err != nil {
			return err
		}
	}
	if n.Validate.ChecksRight() {
		if err := check("right", rk, lk, n.RightOn); err != nil {
			return err
		}
	}
	return nil
}

// residualRows is a semi or anti join with a residual: the key-matched
// pairs (an inner join's, in its order), the residual evaluated over all
// of them under the pair schema, and the left rows with (semi) or without
// (anti) a pair on which it is true, in left order.
func (e *Env) residualRows(n *plan.JoinNode, lay *plan.JoinLayout, left, right *Frame, lk, rk []arrow.Array) ([]int32, int64, error) {
	li, ri, held, err := ops.JoinIndicesLimitedBuild(e.spill(), plan.InnerJoin, ops.BuildRight, lk, rk, e.par)
	if err != nil {
		return nil, 0, err
	}
	defer e.release(held)
	fields := append(left.schema.Fields(), right.schema.Fields()...)
	if len(fields) != len(lay.PairNames) {
		return nil, 0, e.Internal("the residual's pair schema has %d names for %d columns", len(lay.PairNames), len(fields))
	}
	for i := range fields {
		fields[i].Name = lay.PairNames[i]
	}
	ps, err := plan.NewSchema(fields...)
	if err != nil {
		return nil, 0, e.Internal("%v", err)
	}
	lf, err := e.reorder(left, left.schema, li)
	if err != nil {
		return nil, 0, err
	}
	defer lf.Release()
	rf, err := e.reorder(right, right.schema, ri)
	if err != nil {
		return nil, 0, err
	}
	defer rf.Release()
	pair := &Frame{schema: ps, rows: len(li), cols: append(append([]fcol(nil), lf.cols...), rf.cols...)}
	for _, c := range pair.cols {
		c.retain()
	}
	defer pair.Release()
	vals, err := e.evalOn(pair, []plan.Expr{n.Residual})
	if err != nil {
		return nil, 0, err
	}
	defer releaseAll(vals)
	b, ok := vals[0].(*array.Boolean)
	if !ok {
		return nil, 0, e.Internal("the residual is %s, not bool", vals[0].DataType())
	}
	hit := make([]bool, left.rows)
	for j, l := range li {
		if b.IsValid(j) && b.Value(j) {
			hit[l] = true
		}
	}
	semi := n.How == plan.SemiJoin
	var out []int32
	for l, h := range hit {
		if h == semi {
			out = append(out, int32(l))
		}
	}
	if out == nil {
		out = []int32{}
	}
	return out, 0, nil
}

// union concatenates its inputs in order.
func (e *Env) union(n *plan.UnionNode, inputs []*Frame) (*Frame, error) {
	as, err := e.arrowSchemaOf(n.Schema())
	if err != nil {
		return nil, err
	}
	recs, err := e.materializeAll(inputs)
	if err != nil {
		return nil, err
	}
	defer releaseBatches(recs)
	if n.Diagonal {
		// Each input widened to the output's columns, in the output's
		// order, a column it lacks as nulls.
		wide := make([]arrow.RecordBatch, len(recs))
		defer func() { releaseBatches(wide) }()
		for i, r := range recs {
			s := inputs[i].schema
			cols := make([]arrow.Array, as.NumFields())
			for j, f := range as.Fields() {
				if k := s.Index(f.Name); k >= 0 {
					cols[j] = r.Column(k)
					cols[j].Retain()
				} else {
					cols[j] = array.MakeArrayOfNull(e.Mem, f.Type, int(r.NumRows()))
				}
			}
			wide[i] = array.NewRecordBatch(as, cols, r.NumRows())
			releaseAll(cols)
		}
		recs = wide
	}
	out, err := ops.ConcatRecords(e.Mem, as, recs)
	if err != nil {
		return nil, e.Internal("%v", err)
	}
	defer out.Release()
	return e.FromRecord(n.Schema(), out)
}
