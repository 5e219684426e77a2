package plan

import (
	"strconv"
	"strings"
)

// Expr is an expression of the dataframe language (docs/design.md §3). The interface
// is sealed: the concrete types are *Column, *Literal, *Alias, *Call, *Cast,
// *Over and *UDFCall, and a type switch over them is exhaustive.
// Expressions are immutable once built; rewrites build new ones.
type Expr interface {
	// String returns the canonical text, used in explain, traces and errors.
	String() string
	// Children returns the direct subexpressions in evaluation order.
	Children() []Expr
	// WithChildren returns a copy with the direct subexpressions replaced.
	WithChildren(args []Expr) Expr
	sealedExpr()
}

// Column references an input column by name.
type Column struct {
	Name string
	orig Expr
}

// Literal is a typed constant; a typed null is a Literal whose Value is null.
type Literal struct {
	Value Value
	// bad says why Lit could not type its Go value (Resolve reports it).
	bad  string
	orig Expr
}

// Alias names the output of an expression.
type Alias struct {
	Expr Expr
	Name string
	orig Expr
}

// Call applies a built-in function.
type Call struct {
	Fn   Func
	Args []Expr
	orig Expr
	// proof, when set, is a range proof that the call cannot raise on the
	// plan's input (WithProof).
	proof *proof
}

// Cast converts to another type. A strict cast fails with invalid_cast where
// a non-strict one yields null.
type Cast struct {
	Expr   Expr
	To     Type
	Strict bool
	orig   Expr
	// proof, when set, is a range proof that the cast cannot fail on the
	// plan's input (WithProof).
	proof *proof
}

// Over evaluates an aggregate per partition and broadcasts the result to the
// partition's rows, or a window function (cum_sum, rank, shift...) per row of
// each partition in window order: the partition's rows ordered stably by
// OrderBy, or in input order when OrderBy is empty (docs/semantics.md,
// Window functions and ordered windows). Agg must be a *Call of an
// aggregate or of a window function; OrderBy is allowed only with a window
// function.
type Over struct {
	Agg         Expr
	PartitionBy []Expr
	OrderBy     []SortKey
	orig        Expr
}

// UDFCall applies a registered user-defined function.
type UDFCall struct {
	UDF  *UDF
	Args []Expr
	orig Expr
}

func (*Column) sealedExpr()  {}
func (*Literal) sealedExpr() {}
func (*Alias) sealedExpr()   {}
func (*Call) sealedExpr()    {}
func (*Cast) sealedExpr()    {}
func (*Over) sealedExpr()    {}
func (*UDFCall) sealedExpr() {}

// Children returns nil: a column has no subexpressions.
func (*Column) Children() []Expr { return nil }

// Children returns nil: a literal has no subexpressions.
func (*Literal) Children() []Expr { return nil }

// Children returns the aliased expression.
func (e *Alias) Children() []Expr { return []Expr{e.Expr} }

// Children returns the call's arguments.
func (e *Call) Children() []Expr { return e.Args }

// Children returns the cast's operand.
func (e *Cast) Children() []Expr { return []Expr{e.Expr} }

// Children returns the aggregate followed by the partition keys and then
// the order keys' expressions.
func (e *Over) Children() []Expr {
	out := append([]Expr{e.Agg}, e.PartitionBy...)
	for _, k := range e.OrderBy {
		out = append(out, k.Expr)
	}
	return out
}

// Children returns the UDF's arguments.
func (e *UDFCall) Children() []Expr { return e.Args }

// WithChildren returns the column itself.
func (e *Column) WithChildren([]Expr) Expr { return e }

// WithChildren returns the literal itself.
func (e *Literal) WithChildren([]Expr) Expr { return e }

// WithChildren returns a copy aliasing args[0] (with e's origin).
func (e *Alias) WithChildren(args []Expr) Expr {
	return &Alias{Expr: args[0], Name: e.Name, orig: e.orig}
}

// WithChildren returns a copy with the given arguments (and e's origin).
// A range proof (WithProof) does not stay: the new operands may read other
// columns, whose values the proof never bounded (a join's key-equivalent
// copy renames c to its partner s, equal to c only on matched rows).
func (e *Call) WithChildren(args []Expr) Expr { return &Call{Fn: e.Fn, Args: args, orig: e.orig} }

// WithChildren returns a copy casting args[0] (with e's origin, without
// its range proof: see Call.WithChildren).
func (e *Cast) WithChildren(args []Expr) Expr {
	return &Cast{Expr: args[0], To: e.To, Strict: e.Strict, orig: e.orig}
}

// WithChildren returns a copy with args[0] as the aggregate, the next
// len(e.PartitionBy) as partition keys and the rest as the order keys'
// expressions, each keeping e's direction and null placement (and e's
// origin).
func (e *Over) WithChildren(args []Expr) Expr {
	np := len(args) - 1 - len(e.OrderBy)
	if np < 0 {
		np = 0
	}
	o := &Over{Agg: args[0], PartitionBy: append([]Expr(nil), args[1:1+np]...), orig: e.orig}
	for i, k := range e.OrderBy {
		if 1+np+i < len(args) {
			o.OrderBy = append(o.OrderBy, SortKey{Expr: args[1+np+i], Desc: k.Desc, NullsLast: k.NullsLast})
		}
	}
	return o
}

// WithChildren returns a copy with the given arguments (and e's origin).
func (e *UDFCall) WithChildren(args []Expr) Expr {
	return &UDFCall{UDF: e.UDF, Args: args, orig: e.orig}
}

// OutputName is the name a projection gives an expression: an alias's name,
// else the name of the leftmost column (or len() call, named "len") the
// expression reads, else "literal". This is Polars' rule, so plans ported
// from Polars keep their column names: len().over(k) is named "len".
func OutputName(e Expr) string {
	if n := leftmostColumn(e); n != "" {
		return n
	}
	return "literal"
}

// leftmostColumn is OutputName without the "literal" default: the name of
// an alias, a column, or a len() call, else the first such name among the
// operands, left to right; "" when there is none.
func leftmostColumn(e Expr) string {
	switch e := e.(type) {
	case nil:
		return ""
	case *Column:
		return e.Name
	case *Alias:
		return e.Name
	case *Call:
		// len() reads no column but names its result, also under over():
		// len().over(k) is "len", not "k" (which would replace k).
		if e.Fn == FuncLen {
			return "len"
		}
	}
	for _, a := range e.Children() {
		if n := leftmostColumn(a); n != "" {
			return n
		}
	}
	return ""
}

// Unalias strips any aliases wrapped around e.
func Unalias(e Expr) Expr {
	for {
		a, ok := e.(*Alias)
		if !ok {
			return e
		}
		e = a.Expr
	}
}

// Walk calls visit on e and then on each subexpression, depth first in
// evaluation order, descending only while visit returns true. A nil
// expression (an incomplete plan) is not visited.
func Walk(e Expr, visit func(Expr) bool) {
	if e == nil || !visit(e) {
		return
	}
	for _, a := range e.Children() {
		Walk(a, visit)
	}
}

// Columns returns the distinct column names e reads, in first-use order.
func Columns(e Expr) []string {
	var names []string
	seen := map[string]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Column); ok && !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
		return true
	})
	return names
}

// IsDeterministic reports whether e gives the same result every time it is
// evaluated over the same input: false when it calls a UDF declared
// non-deterministic.
func IsDeterministic(e Expr) bool {
	det := true
	Walk(e, func(x Expr) bool {
		if u, ok := x.(*UDFCall); ok && (u.UDF == nil || !u.UDF.Deterministic) {
			det = false
		}
		return det
	})
	return det
}

// ContainsAggregate reports whether e calls an aggregate outside over().
func ContainsAggregate(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Over:
			return false
		case *Call:
			if x.Fn.IsAggregate() || x.Fn.IsWindow() {
				found = true
			}
		}
		return !found
	})
	return found
}

// ContainsOver reports whether e contains a window expression.
func ContainsOver(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if _, ok := x.(*Over); ok {
			found = true
		}
		return !found
	})
	return found
}

// String renders the column name, quoted as col("...") when it is not a
// plain identifier.
func (e *Column) String() string {
	if isIdent(e.Name) {
		return e.Name
	}
	return "col(" + strconv.Quote(e.Name) + ")"
}

// String renders the literal (see Value.String); a literal Lit could not
// type renders as "invalid(uint8 3)".
func (e *Literal) String() string {
	if e.bad != "" {
		return "invalid(" + e.bad + ")"
	}
	return e.Value.String()
}

// String renders "expr as name".
func (e *Alias) String() string { return render(e, 0) }

// String renders infix operators with minimal parentheses and everything
// else in call syntax: "a / b > 1", "is_null(s)".
func (e *Call) String() string { return render(e, 0) }

// String renders "cast(a, int32)" or "cast(a, int32, strict=false)".
func (e *Cast) String() string { return render(e, 0) }

// String renders "sum(a).over(k, j)".
func (e *Over) String() string { return render(e, 0) }

// String renders "name(args)".
func (e *UDFCall) String() string { return render(e, 0) }

// render returns e's text, parenthesised when its precedence is below min.
// It writes into one builder, so the cost is linear in the text's length
// however deep e nests (concatenating each level's operands' strings would
// copy a deep chain's text once per level).
func render(e Expr, min int) string {
	var b strings.Builder
	renderTo(&b, e, min)
	return b.String()
}

// precOf is the precedence of e's text, the one renderTo writes it with.
func precOf(e Expr) int {
	switch e := e.(type) {
	case *Literal:
		if strings.HasPrefix(e.String(), "-") {
			return precUnary
		}
	case *Alias:
		return precAlias
	case *Call:
		switch {
		case e.Fn == FuncNeg && len(e.Args) == 1:
			return precUnary
		case e.Fn < funcCount && funcs[e.Fn].symbol != "" && len(e.Args) == 2:
			return funcs[e.Fn].prec
		}
	}
	return precAtom
}

// renderTo writes e's canonical text to b, parenthesised when its
// precedence is below min.
func renderTo(b *strings.Builder, e Expr, min int) { renderer{b: b}.expr(e, min) }

// renderer writes expression text into b; with written, every operand that
// stands in for another expression (Origin) is written as that one
// (Written).
type renderer struct {
	b       *strings.Builder
	written bool
}

// sub writes an operand of the expression being written.
func (r renderer) sub(c Expr, min int) {
	if r.written {
		if o := Origin(c); o != nil {
			c = o
		}
	}
	r.expr(c, min)
}

func (r renderer) list(args []Expr) {
	for i, a := range args {
		if i > 0 {
			r.b.WriteString(", ")
		}
		r.sub(a, 0)
	}
}

// expr writes e, parenthesised when its precedence is below min.
func (r renderer) expr(e Expr, min int) {
	b := r.b
	prec := precOf(e)
	if prec < min {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch e := e.(type) {
	case *Column:
		b.WriteString(e.String())
	case *Literal:
		b.WriteString(e.String())
	case *Alias:
		r.sub(e.Expr, precAlias+1)
		b.WriteString(" as ")
		b.WriteString(quoteName(e.Name))
	case *Call:
		var info funcInfo
		if e.Fn < funcCount {
			info = funcs[e.Fn] // an unknown Fn renders as "invalid(...)"
		}
		switch {
		case e.Fn == FuncNeg && len(e.Args) == 1:
			arg := e.Args[0]
			if r.written && Origin(arg) != nil {
				arg = Origin(arg)
			}
			if _, lit := arg.(*Literal); lit {
				// "-(5)", so that neg(5) never reads as the literal -5.
				b.WriteString("-(")
				r.sub(e.Args[0], 0)
				b.WriteByte(')')
			} else {
				b.WriteByte('-')
				r.sub(e.Args[0], precAtom)
			}
		case info.symbol != "" && len(e.Args) == 2:
			// Left-associative, except that comparisons do not chain: a
			// comparison on the left is parenthesised too.
			left := prec
			if e.Fn.IsComparison() {
				left = prec + 1
			}
			r.sub(e.Args[0], left)
			b.WriteString(" " + info.symbol + " ")
			r.sub(e.Args[1], prec+1)
		case e.Fn == FuncIsIn && len(e.Args) >= 1:
			// is_in(x, [1, 2, 3]): the literals after x are its list.
			b.WriteString("is_in(")
			r.sub(e.Args[0], 0)
			b.WriteString(", [")
			r.list(e.Args[1:])
			b.WriteString("])")
		default:
			b.WriteString(e.Fn.String())
			b.WriteByte('(')
			r.list(e.Args)
			b.WriteByte(')')
		}
	case *Cast:
		b.WriteString("cast(")
		r.sub(e.Expr, 0)
		b.WriteString(", " + e.To.String())
		if !e.Strict {
			b.WriteString(", strict=false")
		}
		b.WriteByte(')')
	case *Over:
		r.sub(e.Agg, precAtom)
		b.WriteString(".over(")
		r.list(e.PartitionBy)
		if len(e.OrderBy) > 0 {
			if len(e.PartitionBy) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("order_by=[")
			for i, k := range e.OrderBy {
				if i > 0 {
					b.WriteString(", ")
				}
				r.sub(k.Expr, 0)
				if k.Desc {
					b.WriteString(" desc")
				}
				if k.NullsLast {
					b.WriteString(" nulls_last")
				}
			}
			b.WriteByte(']')
		}
		b.WriteByte(')')
	case *UDFCall:
		name := "udf"
		if e.UDF != nil {
			name = e.UDF.Name
		}
		b.WriteString(name)
		b.WriteByte('(')
		r.list(e.Args)
		b.WriteByte(')')
	case nil:
		b.WriteString("<nil>")
	}
}

func renderList(args []Expr) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		renderTo(&b, a, 0)
	}
	return b.String()
}

func quoteName(name string) string {
	if isIdent(name) {
		return name
	}
	return strconv.Quote(name)
}

var keywords = map[string]bool{"and": true, "or": true, "as": true, "true": true, "false": true,
	"null": true, "NaN": true, "Inf": true, "col": true}

func isIdent(s string) bool {
	if s == "" || keywords[s] {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
