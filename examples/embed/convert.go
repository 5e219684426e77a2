package main

import (
	"fmt"
	"math"
	"sync"

	"github.com/dfopt/dfopt/plan"
)

// This file maps host plans to dfopt plans and back. It is the whole of
// what a host writes to embed the optimizer: a plan.Source for its tables,
// a declaration for each of its own operators, and two tree walks.

// --- the host table as a dfopt source -------------------------------------

// Name identifies the table in dfopt's explain output and errors.
func (t *Table) Name() string { return t.TableName }

// Schema maps the host columns to dfopt fields (every column nullable).
func (t *Table) Schema() plan.Schema {
	fields := make([]plan.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = plan.Field{Name: c.Name, Type: planType(c.Type), Nullable: true}
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		// A host table with duplicate or empty column names: a scan of it
		// fails to resolve, which Optimize reports.
		return plan.Schema{}
	}
	return s
}

// ClassifyPredicates tells the optimizer which conjuncts the host storage
// can apply (plan.PredicateClassifier): a comparison of a numeric or bool
// column with a literal is applied exactly by Scan (Exact: the optimizer
// removes it from the plan); one on a string column only as a hint the
// storage may ignore (Inexact: the filter stays above too); anything else
// not at all. It answers one entry per conjunct, as the contract requires.
func (t *Table) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conjuncts))
	schema := t.Schema()
	for i, e := range conjuncts {
		if !plan.IsColumnLiteralComparison(e) {
			continue
		}
		for _, a := range e.(*plan.Call).Args {
			c, ok := a.(*plan.Column)
			if !ok {
				continue
			}
			f, _ := schema.Lookup(c.Name)
			if f.Type == plan.String {
				out[i] = plan.Inexact
			} else {
				out[i] = plan.Exact
			}
		}
	}
	return out
}

// SupportsProjection reports that Scan can read a subset of the columns.
func (t *Table) SupportsProjection() bool { return true }

// EstimatedRows reports the row count (plan.RowCountEstimator).
func (t *Table) EstimatedRows() (int64, bool) { return int64(len(t.Rows)), true }

func planType(t ColType) plan.Type {
	switch t {
	case IntCol:
		return plan.Int64
	case FloatCol:
		return plan.Float64
	case StringCol:
		return plan.String
	case BoolCol:
		return plan.Bool
	}
	return plan.Invalid
}

// --- the host operator as a dfopt extension --------------------------------

// Bucket has parameters (the column and the width), and an extension node
// carries only its declaration, so each parameterization gets its own
// declaration, made once: plan.Equal compares declarations by pointer.
type bucketKey struct {
	col   string
	width int64
}

var (
	bucketMu   sync.Mutex
	bucketDefs = map[bucketKey]*plan.ExtensionDef{}
	bucketOf   = map[*plan.ExtensionDef]bucketKey{}
)

// bucketDef declares Bucket{col, width} to the optimizer. Bucket keeps
// every row, each computed from its own row, never fails (row_preserving),
// keeps their order (order_preserving), passes every input column through
// unchanged and adds "bucket" (column_passthrough), and is deterministic.
// It reads only its column (Reads), so pruning may drop the others below
// it.
func bucketDef(col string, width int64) *plan.ExtensionDef {
	bucketMu.Lock()
	defer bucketMu.Unlock()
	k := bucketKey{col, width}
	if d, ok := bucketDefs[k]; ok {
		return d
	}
	d := &plan.ExtensionDef{
		Name:   fmt.Sprintf("bucket(%s, %d)", col, width),
		Inputs: 1,
		Properties: []plan.ExtensionProperty{
			plan.RowPreserving, plan.OrderPreserving, plan.ColumnPassthrough, plan.DeterministicOp,
		},
		OutputSchema: func(in []plan.Schema) (plan.Schema, error) {
			f, ok := in[0].Lookup(col)
			if !ok || f.Type != plan.Int64 {
				return plan.Schema{}, fmt.Errorf("bucket: no int column %q", col)
			}
			return plan.NewSchema(append(in[0].Fields(), plan.Field{Name: "bucket", Type: plan.Int64, Nullable: true})...)
		},
		Reads: func(plan.Schema) []string { return []string{col} },
	}
	bucketDefs[k], bucketOf[d] = d, k
	return d
}

// --- host plan -> dfopt plan ------------------------------------------------

// ToDfopt maps a host plan to a dfopt plan.
func ToDfopt(n Node) (plan.Node, error) {
	f, err := toFrame(n)
	if err != nil {
		return nil, err
	}
	return f.Node(), nil
}

func toFrame(n Node) (plan.Frame, error) {
	switch n := n.(type) {
	case Scan:
		if n.Columns != nil || len(n.Exact) > 0 || len(n.Hints) > 0 {
			return plan.Frame{}, fmt.Errorf("to dfopt: a scan with pushed work is already optimized")
		}
		return plan.Scan(n.Table), nil
	case Where:
		in, err := toFrame(n.Input)
		if err != nil {
			return in, err
		}
		preds, err := toExprs(n.Preds)
		return in.Filter(preds...), err
	case Extend:
		in, err := toFrame(n.Input)
		if err != nil {
			return in, err
		}
		items, err := toItems(n.Assign)
		return in.WithColumns(items...), err
	case Project:
		in, err := toFrame(n.Input)
		if err != nil {
			return in, err
		}
		items, err := toItems(n.Items)
		return in.Select(items...), err
	case OrderBy:
		in, err := toFrame(n.Input)
		if err != nil {
			return in, err
		}
		key := plan.Asc(plan.Col(n.Col))
		if n.Desc {
			key = plan.Desc(plan.Col(n.Col))
		}
		return in.Sort(key), nil
	case Take:
		in, err := toFrame(n.Input)
		return in.Head(int64(n.N)), err
	case Bucket:
		in, err := toFrame(n.Input)
		return in.Extension(bucketDef(n.Col, n.Width)), err
	}
	return plan.Frame{}, fmt.Errorf("to dfopt: unknown host node %T", n)
}

func toItems(items []Item) ([]plan.E, error) {
	out := make([]plan.E, len(items))
	for i, it := range items {
		e, err := toExpr(it.Expr)
		if err != nil {
			return nil, err
		}
		out[i] = e.Alias(it.Name)
	}
	return out, nil
}

func toExprs(es []Expr) ([]plan.E, error) {
	out := make([]plan.E, len(es))
	for i, e := range es {
		x, err := toExpr(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

var binOps = map[string]func(a, b plan.E) plan.E{
	"+": plan.E.Add, "-": plan.E.Sub, "*": plan.E.Mul, "/": plan.E.Div,
	"=": plan.E.Eq, "!=": plan.E.Ne, "<": plan.E.Lt, "<=": plan.E.Le, ">": plan.E.Gt, ">=": plan.E.Ge,
	"and": plan.E.And, "or": plan.E.Or,
}

func toExpr(e Expr) (plan.E, error) {
	switch e := e.(type) {
	case Ref:
		return plan.Col(string(e)), nil
	case Const:
		return plan.Lit(e.V), nil
	case IsNull:
		x, err := toExpr(e.E)
		return x.IsNull(), err
	case Bin:
		op, ok := binOps[e.Op]
		if !ok {
			return plan.E{}, fmt.Errorf("to dfopt: unknown operator %q", e.Op)
		}
		l, err := toExpr(e.L)
		if err != nil {
			return l, err
		}
		r, err := toExpr(e.R)
		return op(l, r), err
	}
	return plan.E{}, fmt.Errorf("to dfopt: unknown host expression %T", e)
}

// --- dfopt plan -> host plan ------------------------------------------------

// FromDfopt maps an optimized dfopt plan back to a host plan: scans carry
// the columns the optimizer narrowed them to and the conjuncts the source
// accepted (Exact ones are applied by the storage, Inexact ones are only
// hints, since the filter above still applies them); a top-k sort becomes
// the host's sort under its take, and a scan's max-rows hint is dropped
// (the host reads whole tables, which is always correct: the limit above
// stays).
func FromDfopt(n plan.Node) (Node, error) {
	switch n := n.(type) {
	case *plan.ScanNode:
		t, err := hostTable(n.Source)
		if err != nil {
			return nil, err
		}
		s := Scan{Table: t}
		if n.Projected {
			s.Columns = append([]string{}, n.Columns...)
		}
		for _, p := range n.Pushed {
			e, err := fromExpr(p.Expr)
			if err != nil {
				return nil, err
			}
			if p.Support == plan.Exact {
				s.Exact = append(s.Exact, e)
			} else {
				s.Hints = append(s.Hints, e)
			}
		}
		return s, nil
	case *plan.FilterNode:
		in, err := FromDfopt(n.Input)
		if err != nil {
			return nil, err
		}
		preds := make([]Expr, len(n.Predicates))
		for i, p := range n.Predicates {
			if preds[i], err = fromExpr(p); err != nil {
				return nil, err
			}
		}
		return Where{Input: in, Preds: preds}, nil
	case *plan.WithColumnsNode:
		in, err := FromDfopt(n.Input)
		if err != nil {
			return nil, err
		}
		items, err := fromItems(n.Exprs)
		return Extend{Input: in, Assign: items}, err
	case *plan.ProjectNode:
		in, err := FromDfopt(n.Input)
		if err != nil {
			return nil, err
		}
		items, err := fromItems(n.Exprs)
		return Project{Input: in, Items: items}, err
	case *plan.GuardNode:
		// error_guards' output: the host evaluates the expressions and
		// keeps its rows (a host without such an operator turns the
		// error_guards flag off).
		in, err := FromDfopt(n.Input)
		if err != nil {
			return nil, err
		}
		exprs := make([]Expr, len(n.Exprs))
		for i, e := range n.Exprs {
			if exprs[i], err = fromExpr(e); err != nil {
				return nil, err
			}
		}
		return Check{Input: in, Exprs: exprs}, nil
	case *plan.SortNode:
		in, err := FromDfopt(n.Input)
		if err != nil {
			return nil, err
		}
		if len(n.Keys) != 1 {
			return nil, fmt.Errorf("from dfopt: a sort on %d keys", len(n.Keys))
		}
		c, ok := n.Keys[0].Expr.(*plan.Column)
		if !ok || n.Keys[0].NullsLast {
			return nil, fmt.Errorf("from dfopt: sort key %s", n.Keys[0].Expr)
		}
		var out Node = OrderBy{Input: in, Col: c.Name, Desc: n.Keys[0].Desc}
		if n.HasLimit {
			// A top-k sort (limit_pushdown) is the sort, then a limit.
			out = Take{Input: out, N: int(min(n.Limit, math.MaxInt32))}
		}
		return out, nil
	case *plan.LimitNode:
		in, err := FromDfopt(n.Input)
		return Take{Input: in, N: int(n.N)}, err
	case *plan.ExtensionNode:
		bucketMu.Lock()
		k, ok := bucketOf[n.Def]
		bucketMu.Unlock()
		if !ok || len(n.Inputs) != 1 {
			return nil, fmt.Errorf("from dfopt: unknown extension %s", n.Label())
		}
		in, err := FromDfopt(n.Inputs[0])
		return Bucket{Input: in, Col: k.col, Width: k.width}, err
	}
	return nil, fmt.Errorf("from dfopt: the host has no operator for %s", n.Label())
}

// hostTable returns the host table a scan reads: one of the host's own, or
// dfopt's in-memory plan.Table (which the eager chain reads too, so that
// the oracle can run plans over the same data both ways), converted once.
func hostTable(src plan.Source) (*Table, error) {
	switch s := src.(type) {
	case *Table:
		return s, nil
	case *plan.Table:
		tablesMu.Lock()
		defer tablesMu.Unlock()
		if t, ok := fromTables[s]; ok {
			return t, nil
		}
		t := &Table{TableName: s.Name()}
		schema := s.Schema()
		for i, f := range schema.Fields() {
			typ, ok := hostTypes[f.Type]
			if !ok {
				return nil, fmt.Errorf("from dfopt: table %s: the host has no %s columns", s.Name(), f.Type)
			}
			t.Columns = append(t.Columns, Column{Name: f.Name, Type: typ})
			for r, v := range s.Column(i) {
				if i == 0 {
					t.Rows = append(t.Rows, Row{})
				}
				t.Rows[r][f.Name] = hostValue(v)
			}
		}
		fromTables[s] = t
		return t, nil
	}
	return nil, fmt.Errorf("from dfopt: scan of a foreign source %T", src)
}

var (
	tablesMu   sync.Mutex
	fromTables = map[*plan.Table]*Table{}
	hostTypes  = map[plan.Type]ColType{plan.Int64: IntCol, plan.Float64: FloatCol, plan.String: StringCol, plan.Bool: BoolCol}
)

// hostValue converts a dfopt value to a host value (nil for null).
func hostValue(v plan.Value) any {
	switch {
	case v.IsNull():
		return nil
	case v.Type() == plan.Int64:
		return v.Int()
	case v.Type() == plan.Float64:
		return v.Float()
	case v.Type() == plan.String:
		return v.Str()
	case v.Type() == plan.Bool:
		return v.Bool()
	}
	return nil
}

func fromItems(es []plan.Expr) ([]Item, error) {
	out := make([]Item, len(es))
	for i, e := range es {
		x, err := fromExpr(plan.Unalias(e))
		if err != nil {
			return nil, err
		}
		out[i] = Item{Name: plan.OutputName(e), Expr: x}
	}
	return out, nil
}

var fromOps = map[plan.Func]string{
	plan.FuncAdd: "+", plan.FuncSub: "-", plan.FuncMul: "*", plan.FuncDiv: "/",
	plan.FuncEq: "=", plan.FuncNe: "!=", plan.FuncLt: "<", plan.FuncLe: "<=", plan.FuncGt: ">", plan.FuncGe: ">=",
	plan.FuncAnd: "and", plan.FuncOr: "or",
}

func fromExpr(e plan.Expr) (Expr, error) {
	switch e := e.(type) {
	case *plan.Column:
		return Ref(e.Name), nil
	case *plan.Literal:
		if v := e.Value; !v.IsNull() {
			if _, ok := hostTypes[v.Type()]; ok {
				return Const{V: hostValue(v)}, nil
			}
		}
	case *plan.Call:
		if e.Fn == plan.FuncIsNull && len(e.Args) == 1 {
			x, err := fromExpr(e.Args[0])
			return IsNull{E: x}, err
		}
		op, ok := fromOps[e.Fn]
		if !ok || len(e.Args) != 2 {
			break
		}
		l, err := fromExpr(e.Args[0])
		if err != nil {
			return nil, err
		}
		r, err := fromExpr(e.Args[1])
		return Bin{Op: op, L: l, R: r}, err
	}
	return nil, fmt.Errorf("from dfopt: the host cannot evaluate %s", e)
}
