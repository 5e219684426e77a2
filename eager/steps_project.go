package eager

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// projectStep computes one column per expression, each over every input
// row (a literal broadcasts to the input's height).
type projectStep struct {
	exprs []plan.Expr
	out   plan.Schema
}

func (st *projectStep) schema() plan.Schema { return st.out }

func (st *projectStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	cols, err := s.evalExprs(st.exprs, in[0].rec)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(cols)
	return s.newFrame(st.out, cols, in[0].rec.NumRows())
}

// withColumnsStep evaluates every expression over the input (a
// simultaneous assignment) and lays the output out by its schema: the
// computed column where an expression produces the name, the input column
// of that name otherwise. Columns of the input outside the schema (a
// window's temporaries) are not passed through.
type withColumnsStep struct {
	exprs []plan.Expr
	out   plan.Schema
}

func (st *withColumnsStep) schema() plan.Schema { return st.out }

func (st *withColumnsStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	computed, err := s.evalExprs(st.exprs, in[0].rec)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(computed)
	byName := make(map[string]arrow.Array, len(computed))
	for i, e := range st.exprs {
		byName[plan.OutputName(e)] = computed[i]
	}
	cols := make([]arrow.Array, st.out.Len())
	for i, f := range st.out.Fields() {
		if a, ok := byName[f.Name]; ok {
			cols[i] = a
			continue
		}
		if cols[i], err = in[0].column(f.Name); err != nil {
			return nil, err
		}
	}
	return s.newFrame(st.out, cols, in[0].rec.NumRows())
}

// windowStep appends one column per over() (each an *plan.Alias of an
// *plan.Over), in list order. Per over(): the aggregate's argument is
// evaluated over all rows, then the partition keys in order (the operands
// of agg.over(keys) left to right); the rows are grouped by the keys (nulls
// together, all NaNs one key, -0.0 and +0.0 one key), the aggregate reduces
// each partition and its value is broadcast back to the partition's rows.
type windowStep struct {
	exprs []plan.Expr
	out   plan.Schema
}

func (st *windowStep) schema() plan.Schema { return st.out }

func (st *windowStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	if err := arity(in, 1); err != nil {
		return nil, err
	}
	df := in[0]
	cols := append([]arrow.Array(nil), df.rec.Columns()...)
	var computed []arrow.Array
	defer func() { releaseArrays(computed) }()
	for _, e := range st.exprs {
		col, err := s.over(e, df.rec)
		if err != nil {
			return nil, err
		}
		computed = append(computed, col)
		cols = append(cols, col)
	}
	return s.newFrame(st.out, cols, df.rec.NumRows())
}

// over computes one window column.
func (s *Session) over(e plan.Expr, rec arrow.RecordBatch) (arrow.Array, error) {
	o, ok := plan.Unalias(e).(*plan.Over)
	if !ok {
		return nil, internalError("window entry `%s` is not an over()", e)
	}
	call, ok := plan.Unalias(o.Agg).(*plan.Call)
	if !ok || !call.Fn.IsAggregate() || len(call.Args) > 1 {
		return nil, internalError("`%s` is not an aggregate call", o.Agg)
	}
	var arg arrow.Array
	if len(call.Args) == 1 {
		var err error
		if arg, err = s.evalExpr(call.Args[0], rec); err != nil {
			return nil, err
		}
		defer arg.Release()
	}
	keys, err := s.evalExprs(o.PartitionBy, rec)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(keys)
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	ids, groups, err := groupIDs(keys, int(rec.NumRows()))
	if err != nil {
		return nil, err
	}
	per, err := ops.Aggregate(s.mem, call.Fn, call.String(), arg, ids, groups)
	if err != nil {
		return nil, opsError(err)
	}
	defer per.Release()
	out, err := ops.Broadcast(s.mem, per, ids)
	if err != nil {
		return nil, internalError("%v", err)
	}
	return out, nil
}

// groupIDs groups rows by keys; with no keys every row is in one group
// (also over no rows). first is nil without keys.
func groupIDs(keys []arrow.Array, rows int) (ids []int32, groups int, err error) {
	if len(keys) == 0 {
		return ops.OneGroup(rows), 1, nil
	}
	ids, first, err := ops.GroupIDs(keys)
	if err != nil {
		return nil, 0, internalError("%v", err)
	}
	return ids, len(first), nil
}

// chainStep runs one step over the output of another: a project or
// with_columns over the window that computes its over() calls. The
// intermediate frame is released.
type chainStep struct {
	first, then step
}

func (st *chainStep) schema() plan.Schema { return st.then.schema() }

func (st *chainStep) run(s *Session, in []*DataFrame) (*DataFrame, error) {
	mid, err := st.first.run(s, in)
	if err != nil {
		return nil, err
	}
	defer mid.Release()
	if err := checkCtx(s.ctx); err != nil {
		return nil, err
	}
	return st.then.run(s, []*DataFrame{mid})
}

// hasOver reports whether any expression uses over().
func hasOver(exprs []plan.Expr) bool {
	for _, e := range exprs {
		if e != nil && plan.ContainsOver(e) {
			return true
		}
	}
	return false
}

// synthesize pulls the over() calls out of a project's or with_columns'
// expressions the way plan.Resolve does: every outermost over(), in order of
// appearance (expressions in list order, operands left to right), becomes a
// window entry aliased __over_N (the first N not taken by an input column
// or an earlier temporary), and the expression reads that column instead.
// An expression whose output name the rewrite would change is aliased back
// to it. The names matter: an error raised above a window names them.
func synthesize(exprs []plan.Expr, in plan.Schema) (windows, rewritten []plan.Expr) {
	taken := make(map[string]bool, in.Len())
	for _, name := range in.Names() {
		taken[name] = true
	}
	next := 0
	var replace func(e plan.Expr) plan.Expr
	replace = func(e plan.Expr) plan.Expr {
		if o, ok := e.(*plan.Over); ok {
			name := ""
			for {
				name = "__over_" + strconv.Itoa(next)
				next++
				if !taken[name] {
					break
				}
			}
			taken[name] = true
			windows = append(windows, &plan.Alias{Expr: o, Name: name})
			return &plan.Column{Name: name}
		}
		args := e.Children()
		if len(args) == 0 {
			return e
		}
		newArgs := make([]plan.Expr, len(args))
		for i, a := range args {
			newArgs[i] = replace(a)
		}
		return e.WithChildren(newArgs)
	}
	rewritten = make([]plan.Expr, len(exprs))
	for i, e := range exprs {
		r := replace(e)
		if name := plan.OutputName(e); plan.OutputName(r) != name {
			r = &plan.Alias{Expr: r, Name: name}
		}
		rewritten[i] = r
	}
	return windows, rewritten
}

// prepareProject checks a projection over in. With over() it becomes a
// window step followed by the rewritten projection; type errors are
// reported against the expressions as written, first.
func prepareProject(in plan.Schema, exprs []plan.Expr, p string) (step, error) {
	if !hasOver(exprs) {
		out, err := checkProject(exprs, in, p)
		if err != nil {
			return nil, err
		}
		return &projectStep{exprs: exprs, out: out}, nil
	}
	win, rewritten, err := prepareWindowFor(in, exprs, p)
	if err != nil {
		return nil, err
	}
	out, err := checkProject(rewritten, win.out, p)
	if err != nil {
		return nil, err
	}
	return &chainStep{first: win, then: &projectStep{exprs: rewritten, out: out}}, nil
}

// prepareWithColumns checks a with_columns over in whose passed-through
// columns are pass (in itself, except directly over a window node). With
// over() it becomes a window step followed by the rewritten with_columns,
// which passes through in (not the temporaries).
func prepareWithColumns(in, pass plan.Schema, exprs []plan.Expr, p string) (step, error) {
	if !hasOver(exprs) {
		out, err := checkWithColumns(exprs, in, pass, p)
		if err != nil {
			return nil, err
		}
		return &withColumnsStep{exprs: exprs, out: out}, nil
	}
	win, rewritten, err := prepareWindowFor(in, exprs, p)
	if err != nil {
		return nil, err
	}
	out, err := checkWithColumns(rewritten, win.out, in, p)
	if err != nil {
		return nil, err
	}
	return &chainStep{first: win, then: &withColumnsStep{exprs: rewritten, out: out}}, nil
}

// prepareWindowFor types exprs as written, then synthesizes and checks the
// window that computes their over() calls.
func prepareWindowFor(in plan.Schema, exprs []plan.Expr, p string) (*windowStep, []plan.Expr, error) {
	if _, err := typeFields(exprs, in, p, "exprs"); err != nil {
		return nil, nil, err
	}
	windows, rewritten := synthesize(exprs, in)
	out, err := checkWindow(in, windows, p+".input")
	if err != nil {
		return nil, nil, err
	}
	return &windowStep{exprs: windows, out: out}, rewritten, nil
}

// prepareWindow checks an explicit window node's entries.
func prepareWindow(in plan.Schema, exprs []plan.Expr, p string) (step, error) {
	out, err := checkWindow(in, exprs, p)
	if err != nil {
		return nil, err
	}
	return &windowStep{exprs: exprs, out: out}, nil
}
