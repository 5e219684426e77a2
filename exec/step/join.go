package step

import (
	"fmt"
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
	lay, ok := plan.LayoutOf(n)
	if !ok {
		return nil, e.Internal("join is not resolved")
	}
	if base, sel, ok := e.keysThroughIndex(n, left); ok {
		li, ri, err := e.joinThroughIndex(n, base, sel, right)
		if err != nil {
			return nil, err
		}
		return e.joinOutput(n, lay, left, right, li, ri)
	}
	lk, err := e.evalOn(left, n.LeftOn)
	if err != nil {
		return nil, err
	}
	defer releaseAll(lk)
	rk, err := e.evalOn(right, n.RightOn)
	if err != nil {
		return nil, err
	}
	defer releaseAll(rk)
	if err := e.CheckCtx(); err != nil {
		return nil, err
	}
	if err := e.validateJoin(n, lk, rk); err != nil {
		return nil, err
	}
	if n.NullsEqual && n.How != plan.CrossJoin {
		l2, r2, err := ops.NullsEqualKeys(e.Mem, lk, rk)
		if err != nil {
			return nil, e.Internal("%v", err)
		}
		defer releaseAll(l2)
		defer releaseAll(r2)
		lk, rk = l2, r2
	}
	var li, ri []int32
	var held int64 // the pair vectors' reservation under a memory limit
	switch {
	case n.How == plan.CrossJoin:
		li, ri, held, err = ops.CrossIndicesLimited(e.spill(), left.rows, right.rows)
	case n.Residual != nil:
		li, held, err = e.residualRows(n, lay, left, right, lk, rk)
	default:
		build := ops.BuildRight
		if n.BuildLeft {
			build = ops.BuildLeft
		}
		li, ri, held, err = ops.JoinIndicesLimitedBuild(e.spill(), n.How, build, lk, rk, e.par)
	}
	if err != nil {
		if pe, ok := plan.AsError(err); ok {
			return nil, pe
		}
		return nil, e.opFailure(err)
	}
	// The output frames count the vectors they keep (gather); the pairs'
	// own reservation ends with the join.
	defer e.release(held)
	return e.joinOutput(n, lay, left, right, li, ri)
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
// (not retained) and the gather's index vector. That is when the join is
// an inner, left, semi or anti equi-join hashing its right input, with no
// residual, validation or nulls_equal and no memory limit, every left key
// is a plain column, all of them gathers through one index vector from
// columns at most a quarter as long. A plain column raises nothing, so
// matching the base rows first changes no error.
func (e *Env) keysThroughIndex(n *plan.JoinNode, left *Frame) ([]arrow.Array, []int32, bool) {
	switch {
	case !joinThroughIndex, e.budget != nil, n.Residual != nil, n.NullsEqual, n.BuildLeft,
		n.Validate.ChecksLeft(), n.Validate.ChecksRight(), len(n.LeftOn) == 0:
		return nil, nil, false
	case n.How != plan.InnerJoin && n.How != plan.LeftJoin && n.How != plan.SemiJoin && n.How != plan.AntiJoin:
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
func (e *Env) joinThroughIndex(n *plan.JoinNode, base []arrow.Array, sel []int32, right *Frame) (li, ri []int32, err error) {
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
		li, ri, err = ops.ExpandJoin(n.How, bl, br, base[0].Len(), sel)
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
