package plan

import "strings"

// Origins: errors name the expression as written.
//
// An evaluation error names the expression as the user wrote it, whatever
// rewrites happened (docs/semantics.md, Errors). A rewrite that puts one
// expression in place of another — inlining a with_columns value for the
// column that read it, synthesizing a window column for an over(), folding
// a constant — records what it replaced as the new expression's origin
// (WithOrigin). The canonical text (String) shows the expression that runs;
// Written shows the one the user wrote: a node with an origin renders as its
// origin inside an enclosing expression's text. So inlining x = a into
// `x + b` evaluates `a + b`, and an overflow there is reported in `x + b`;
// an error raised by the inlined `a / c` itself still names `a / c`, which
// is where it was written.

// WithOrigin returns a copy of e recording that it stands in for origin as
// written: inside an enclosing expression, Written renders it as origin
// (as origin would itself render: if origin stands in for an earlier
// expression, that one). e and origin must have the same type and value;
// the rewrite that pairs them vouches for it. A nil origin, or origin == e,
// returns e.
func WithOrigin(e, origin Expr) Expr {
	if origin == nil || e == nil || e == origin {
		return e
	}
	if o := Origin(origin); o != nil {
		origin = o
	}
	switch e := e.(type) {
	case *Column:
		c := *e
		c.orig = origin
		return &c
	case *Literal:
		c := *e
		c.orig = origin
		return &c
	case *Alias:
		c := *e
		c.orig = origin
		return &c
	case *Call:
		c := *e
		c.orig = origin
		return &c
	case *Cast:
		c := *e
		c.orig = origin
		return &c
	case *Over:
		c := *e
		c.orig = origin
		return &c
	case *UDFCall:
		c := *e
		c.orig = origin
		return &c
	}
	return e
}

// Origin returns the expression e stands in for as written (WithOrigin),
// or nil when e is as written.
func Origin(e Expr) Expr {
	switch e := e.(type) {
	case *Column:
		return e.orig
	case *Literal:
		return e.orig
	case *Alias:
		return e.orig
	case *Call:
		return e.orig
	case *Cast:
		return e.orig
	case *Over:
		return e.orig
	case *UDFCall:
		return e.orig
	}
	return nil
}

// Written returns the text of e as the user wrote it: e's canonical text,
// in which every subexpression that stands in for another (Origin) is
// rendered as that one. It is the text an error raised by e names (e's own
// origin does not apply: an error raised by a node is raised where that
// node's operation was written).
func Written(e Expr) string {
	if !hasOrigins(e) {
		return e.String()
	}
	var b strings.Builder
	renderer{b: &b, written: true}.expr(e, 0)
	return b.String()
}

// hasOrigins reports whether e or any subexpression records an origin.
func hasOrigins(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		found = found || Origin(x) != nil
		return !found
	})
	return found
}
