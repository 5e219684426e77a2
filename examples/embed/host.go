package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// This file is the host: a tiny query engine with its own plan types,
// expressions and interpreter, over rows held as maps. It knows
// nothing about dfopt; convert.go maps its plans to dfopt's and back.
//
// Its semantics follow the evaluation model dfopt's legality table assumes
// (docs/semantics.md): a plan evaluates bottom-up; a node evaluates its
// expressions in list order, each over all of its input rows, and an
// expression its operands each over all rows (see Eval); the first error
// aborts; a filter keeps a row when every predicate is true (null
// counts as false); integer arithmetic is checked; a comparison with null
// is null. A host whose semantics differ in a way the table relies on must
// not embed the optimizer for that construct (docs/embedding.md).

// Row is one row: column name to value (int64, float64, string, bool or nil
// for null).
type Row map[string]any

// ColType is a host column type.
type ColType string

// The host's column types.
const (
	IntCol    ColType = "int"
	FloatCol  ColType = "float"
	StringCol ColType = "string"
	BoolCol   ColType = "bool"
)

// Column is a host table column.
type Column struct {
	Name string
	Type ColType
}

// Table is a host table: columns and rows. It is also the dfopt source a
// scan reads (see convert.go).
type Table struct {
	TableName string
	Columns   []Column
	Rows      []Row
}

// Expr is a host expression: Ref, Const, Bin or IsNull.
type Expr interface{ hostExpr() }

// Ref reads a column.
type Ref string

// Const is a literal; V is int64, float64, string or bool.
type Const struct{ V any }

// Bin applies a binary operator: + - * / (checked for ints), = != < <= > >=,
// and, or.
type Bin struct {
	Op   string
	L, R Expr
}

// IsNull tests for null.
type IsNull struct{ E Expr }

func (Ref) hostExpr()    {}
func (Const) hostExpr()  {}
func (Bin) hostExpr()    {}
func (IsNull) hostExpr() {}

// Item is a named expression of a Project or Extend.
type Item struct {
	Name string
	Expr Expr
}

// Node is a host plan node.
type Node interface{ hostNode() }

// Scan reads a table: only Columns when set (nil: all), and only the rows
// for which every Exact predicate holds (the storage applies them). Hints
// are predicates the storage may use to skip data but need not apply.
type Scan struct {
	Table   *Table
	Columns []string
	Exact   []Expr
	Hints   []Expr
}

// Where keeps the rows for which every predicate is true.
type Where struct {
	Input Node
	Preds []Expr
}

// Extend assigns columns simultaneously (each reads the input): an
// existing name is replaced in place, a new one appended.
type Extend struct {
	Input  Node
	Assign []Item
}

// Check evaluates its expressions over every input row, in order, and
// keeps the input as it is: the host's form of dfopt's error guard (a
// guard raises what its expressions would raise and adds no column).
type Check struct {
	Input Node
	Exprs []Expr
}

// Project computes exactly the listed columns.
type Project struct {
	Input Node
	Items []Item
}

// OrderBy sorts stably by one column, nulls first.
type OrderBy struct {
	Input Node
	Col   string
	Desc  bool
}

// Take keeps the first N rows.
type Take struct {
	Input Node
	N     int
}

// Bucket is the host's own operator: it appends the column "bucket",
// floor(Col / Width) for an int column (null for null). It never fails
// (Width > 0), keeps every row, in order, and every input column.
type Bucket struct {
	Input Node
	Col   string
	Width int64
}

// FloorDiv is Bucket's value: v / width rounded toward minus infinity
// (width > 0).
func FloorDiv(v, width int64) int64 {
	q := v / width
	if v%width != 0 && v < 0 {
		q--
	}
	return q
}

func (Scan) hostNode()    {}
func (Where) hostNode()   {}
func (Extend) hostNode()  {}
func (Project) hostNode() {}
func (Check) hostNode()   {}
func (OrderBy) hostNode() {}
func (Take) hostNode()    {}
func (Bucket) hostNode()  {}

// Result is what the interpreter returns: the columns in order and the
// rows.
type Result struct {
	Cols []string
	Rows []Row
}

// HostError is an evaluation error: what went wrong (named like dfopt's
// error kinds), in which expression (the innermost one that failed, in
// dfopt's canonical text: see errorText).
type HostError struct {
	Kind string
	Expr string
}

func (e *HostError) Error() string { return e.Kind + " in " + e.Expr }

// Run interprets a host plan.
func Run(n Node) (Result, error) {
	switch n := n.(type) {
	case Scan:
		cols := n.Columns
		if cols == nil {
			for _, c := range n.Table.Columns {
				cols = append(cols, c.Name)
			}
		}
		all := Result{Rows: n.Table.Rows}
		for _, c := range n.Table.Columns {
			all.Cols = append(all.Cols, c.Name)
		}
		keep, err := where(all, n.Exact)
		if err != nil {
			return Result{}, err
		}
		out := Result{Cols: cols}
		for _, r := range keep.Rows {
			row := Row{}
			for _, c := range cols {
				row[c] = r[c]
			}
			out.Rows = append(out.Rows, row)
		}
		return out, nil
	case Where:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		return where(in, n.Preds)
	case Extend:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		vals, err := evalItems(in.Rows, n.Assign)
		if err != nil {
			return Result{}, err
		}
		out := Result{Cols: append([]string(nil), in.Cols...)}
		for _, it := range n.Assign {
			if !slices.Contains(out.Cols, it.Name) {
				out.Cols = append(out.Cols, it.Name)
			}
		}
		for i, r := range in.Rows {
			row := copyRow(r)
			for j, it := range n.Assign {
				row[it.Name] = vals[j][i]
			}
			out.Rows = append(out.Rows, row)
		}
		return out, nil
	case Check:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		for _, e := range n.Exprs {
			if _, err := Eval(e, in.Rows); err != nil {
				return Result{}, err
			}
		}
		return in, nil
	case Project:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		vals, err := evalItems(in.Rows, n.Items)
		if err != nil {
			return Result{}, err
		}
		out := Result{}
		for _, it := range n.Items {
			out.Cols = append(out.Cols, it.Name)
		}
		for i := range in.Rows {
			row := Row{}
			for j, it := range n.Items {
				row[it.Name] = vals[j][i]
			}
			out.Rows = append(out.Rows, row)
		}
		return out, nil
	case OrderBy:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		rows := append([]Row(nil), in.Rows...)
		sort.SliceStable(rows, func(i, j int) bool {
			a, b := rows[i][n.Col], rows[j][n.Col]
			switch {
			case a == nil || b == nil:
				return a == nil && b != nil // nulls first, in both directions
			case n.Desc:
				return sortOrder(b, a) < 0
			}
			return sortOrder(a, b) < 0
		})
		return Result{Cols: in.Cols, Rows: rows}, nil
	case Take:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		if n.N < len(in.Rows) {
			in.Rows = in.Rows[:n.N]
		}
		return in, nil
	case Bucket:
		in, err := Run(n.Input)
		if err != nil {
			return Result{}, err
		}
		out := Result{Cols: append(append([]string(nil), in.Cols...), "bucket")}
		for _, r := range in.Rows {
			row := copyRow(r)
			if v, ok := r[n.Col].(int64); ok {
				row["bucket"] = FloorDiv(v, n.Width)
			} else {
				row["bucket"] = nil
			}
			out.Rows = append(out.Rows, row)
		}
		return out, nil
	}
	return Result{}, fmt.Errorf("host: unknown node %T", n)
}

// where evaluates each predicate over all rows, in order, and keeps the
// rows for which all are true.
func where(in Result, preds []Expr) (Result, error) {
	keep := make([]bool, len(in.Rows))
	for i := range keep {
		keep[i] = true
	}
	for _, p := range preds {
		vals, err := Eval(p, in.Rows)
		if err != nil {
			return Result{}, err
		}
		for i, v := range vals {
			if b, ok := v.(bool); !ok || !b {
				keep[i] = false
			}
		}
	}
	out := Result{Cols: in.Cols}
	for i, r := range in.Rows {
		if keep[i] {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

// evalItems evaluates each item over all rows, item by item.
func evalItems(rows []Row, items []Item) ([][]any, error) {
	out := make([][]any, len(items))
	for j, it := range items {
		vals, err := Eval(it.Expr, rows)
		if err != nil {
			return nil, err
		}
		out[j] = vals
	}
	return out, nil
}

// Eval evaluates an expression over rows, one value per row. The rows are
// maps, but an expression is evaluated operand by operand, each over ALL
// the rows, left before right, and an operator then runs row by row, with
// divide_by_zero winning over overflow when a division fails both ways: so
// which error a plan raises does not depend on the order of its rows. That
// is dfopt's evaluation model, and the legality table relies on it: a
// predicate may cross a sort, which reorders the rows it meets. A host that
// evaluated a whole expression row by row would report, for
// (100 / b) / (b - 7) over rows b=0 then b=MinInt64, divide_by_zero in one
// order and overflow in the other (embed_test found exactly that).
func Eval(e Expr, rows []Row) ([]any, error) {
	out := make([]any, len(rows))
	switch e := e.(type) {
	case Ref:
		for i, r := range rows {
			out[i] = r[string(e)]
		}
	case Const:
		for i := range rows {
			out[i] = e.V
		}
	case IsNull:
		vals, err := Eval(e.E, rows)
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			out[i] = v == nil
		}
	case Bin:
		// Both operands are always evaluated (no short-circuit), left first.
		a, err := Eval(e.L, rows)
		if err != nil {
			return nil, err
		}
		b, err := Eval(e.R, rows)
		if err != nil {
			return nil, err
		}
		var first error
		for i := range rows {
			v, err := binary(e, a[i], b[i])
			if err == nil {
				out[i] = v
				continue
			}
			// The error must not depend on row order: a division that
			// both divides by zero and overflows raises divide_by_zero,
			// wherever those rows are (dfopt's docs/semantics.md).
			if he, ok := err.(*HostError); ok && he.Kind == "divide_by_zero" {
				return nil, err
			}
			if first == nil {
				first = err
			}
		}
		if first != nil {
			return nil, first
		}
	default:
		return nil, fmt.Errorf("host: unknown expression %T", e)
	}
	return out, nil
}

func binary(e Bin, a, b any) (any, error) {
	switch e.Op {
	case "and", "or":
		return kleene(e.Op, a, b), nil
	}
	if a == nil || b == nil {
		return nil, nil
	}
	switch e.Op {
	case "+", "-", "*", "/":
		x, xi := a.(int64)
		y, yi := b.(int64)
		if xi && yi {
			return intArith(e, x, y)
		}
		fx, fy := toFloat(a), toFloat(b)
		switch e.Op {
		case "+":
			return fx + fy, nil
		case "-":
			return fx - fy, nil
		case "*":
			return fx * fy, nil
		}
		return fx / fy, nil
	}
	c := order(a, b)
	if fa, ok := numeric(a); ok {
		if fb, ok := numeric(b); ok && (math.IsNaN(fa) || math.IsNaN(fb)) {
			return e.Op == "!=", nil // IEEE: NaN is unequal to everything
		}
	}
	switch e.Op {
	case "=":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return nil, fmt.Errorf("host: unknown operator %q", e.Op)
}

func intArith(e Bin, x, y int64) (any, error) {
	overflow := &HostError{Kind: "overflow", Expr: errorText(e)}
	switch e.Op {
	case "+":
		s := x + y
		if (s > x) != (y > 0) {
			return nil, overflow
		}
		return s, nil
	case "-":
		s := x - y
		if (s < x) != (y > 0) {
			return nil, overflow
		}
		return s, nil
	case "*":
		if x != 0 && y != 0 {
			p := x * y
			if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return nil, overflow
			}
			return p, nil
		}
		return int64(0), nil
	}
	if y == 0 {
		return nil, &HostError{Kind: "divide_by_zero", Expr: errorText(e)}
	}
	if x == math.MinInt64 && y == -1 {
		return nil, overflow
	}
	return x / y, nil
}

func kleene(op string, a, b any) any {
	x, xok := a.(bool)
	y, yok := b.(bool)
	if op == "and" {
		switch {
		case (xok && !x) || (yok && !y):
			return false
		case xok && yok:
			return true
		}
		return nil
	}
	switch {
	case (xok && x) || (yok && y):
		return true
	case xok && yok:
		return false
	}
	return nil
}

func numeric(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func toFloat(v any) float64 { f, _ := numeric(v); return f }

// order compares two non-null values for the comparison operators:
// numbers by value (an int with a float as floats; NaN is handled by the
// caller), strings by bytes, false < true.
func order(a, b any) int {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp3(x < y, x > y)
		}
	case string:
		y := b.(string)
		return strings.Compare(x, y)
	case bool:
		y := b.(bool)
		return cmp3(!x && y, x && !y)
	}
	fx, fy := toFloat(a), toFloat(b)
	return cmp3(fx < fy, fx > fy)
}

// sortOrder is order for sorting: floats by the total order -Inf < ... <
// -0.0 < +0.0 < ... < +Inf < NaN (all NaNs equal), as dfopt sorts them.
func sortOrder(a, b any) int {
	fx, xf := a.(float64)
	fy, yf := b.(float64)
	if !xf || !yf {
		return order(a, b)
	}
	switch xn, yn := math.IsNaN(fx), math.IsNaN(fy); {
	case xn || yn:
		return cmp3(!xn, !yn)
	case fx == 0 && fy == 0:
		return cmp3(math.Signbit(fx) && !math.Signbit(fy), !math.Signbit(fx) && math.Signbit(fy))
	}
	return cmp3(fx < fy, fx > fy)
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

func copyRow(r Row) Row {
	out := make(Row, len(r)+1)
	for k, v := range r {
		out[k] = v
	}
	return out
}

// errorText names a failing expression in errors by dfopt's canonical text
// of it ("a + b", "100 / b / (b - 7)"): the one place the host borrows from
// dfopt, so that its errors compare with the eager chain's when it runs
// dfopt's differential oracle against its own executor.
func errorText(e Expr) string {
	if x, err := toExpr(e); err == nil {
		return x.String()
	}
	return Text(e)
}

// Text renders an expression for the host's explain output.
func Text(e Expr) string {
	switch e := e.(type) {
	case Ref:
		return string(e)
	case Const:
		if s, ok := e.V.(string); ok {
			return fmt.Sprintf("%q", s)
		}
		return fmt.Sprint(e.V)
	case IsNull:
		return "is_null(" + Text(e.E) + ")"
	case Bin:
		return "(" + Text(e.L) + " " + e.Op + " " + Text(e.R) + ")"
	}
	return "?"
}

// Explain renders a host plan, one node per line.
func Explain(n Node) string {
	var b strings.Builder
	var walk func(Node, string)
	items := func(its []Item) string {
		parts := make([]string, len(its))
		for i, it := range its {
			parts[i] = it.Name + " := " + Text(it.Expr)
		}
		return strings.Join(parts, ", ")
	}
	exprs := func(es []Expr) string {
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = Text(e)
		}
		return strings.Join(parts, ", ")
	}
	walk = func(n Node, indent string) {
		switch n := n.(type) {
		case Scan:
			fmt.Fprintf(&b, "%sScan %s", indent, n.Table.TableName)
			if n.Columns != nil {
				fmt.Fprintf(&b, " columns=[%s]", strings.Join(n.Columns, ", "))
			}
			if len(n.Exact) > 0 {
				fmt.Fprintf(&b, " exact=[%s]", exprs(n.Exact))
			}
			if len(n.Hints) > 0 {
				fmt.Fprintf(&b, " hints=[%s]", exprs(n.Hints))
			}
			b.WriteString("\n")
		case Where:
			fmt.Fprintf(&b, "%sWhere %s\n", indent, exprs(n.Preds))
			walk(n.Input, indent+"  ")
		case Extend:
			fmt.Fprintf(&b, "%sExtend %s\n", indent, items(n.Assign))
			walk(n.Input, indent+"  ")
		case Project:
			fmt.Fprintf(&b, "%sProject %s\n", indent, items(n.Items))
			walk(n.Input, indent+"  ")
		case OrderBy:
			dir := "asc"
			if n.Desc {
				dir = "desc"
			}
			fmt.Fprintf(&b, "%sOrderBy %s %s\n", indent, n.Col, dir)
			walk(n.Input, indent+"  ")
		case Take:
			fmt.Fprintf(&b, "%sTake %d\n", indent, n.N)
			walk(n.Input, indent+"  ")
		case Bucket:
			fmt.Fprintf(&b, "%sBucket %s by %d\n", indent, n.Col, n.Width)
			walk(n.Input, indent+"  ")
		}
	}
	walk(n, "")
	return b.String()
}
