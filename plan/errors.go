package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrorKind classifies an evaluation or resolution error. Together with the
// failing expression's canonical text it is the identity the oracle compares.
type ErrorKind string

// The error kinds. Evaluation kinds come from the expression evaluator;
// resolution kinds from Resolve; the rest from the executor.
const (
	DivideByZero ErrorKind = "divide_by_zero"
	Overflow     ErrorKind = "overflow"
	InvalidCast  ErrorKind = "invalid_cast"
	// TemporalOutOfRange is temporal arithmetic whose exact result lies
	// outside its type (docs/semantics.md, Temporal types).
	TemporalOutOfRange ErrorKind = "temporal_out_of_range"
	UDFError           ErrorKind = "udf_error"
	TypeError          ErrorKind = "type_error"
	UnknownColumn      ErrorKind = "unknown_column"
	DuplicateColumn    ErrorKind = "duplicate_column"
	InvalidPlan        ErrorKind = "invalid_plan"
	SourceError        ErrorKind = "source_error"
	Cancelled          ErrorKind = "cancelled"
	// ResourceExhausted is a collect that would exceed its memory limit
	// (exec.Options.MemoryLimit) with work that cannot spill to disk; the
	// error names the node.
	ResourceExhausted ErrorKind = "resource_exhausted"
	// ValidationError is a join input whose keys break the join's validate
	// option (docs/semantics.md, join options): Expr is that side's key
	// list as written.
	ValidationError ErrorKind = "validation_error"
	// InvalidInput is input data that breaks a node's requirement on its
	// rows' order or count: an as-of join or temporal_group input not sorted on its
	// key, or a null temporal_group index (docs/semantics.md, asof_join and
	// temporal_group), a merge_sorted input not sorted on its key, or hstack
	// inputs of unequal heights (docs/semantics.md, merge_sorted and hstack);
	// the node verifies it at run time.
	InvalidInput ErrorKind = "invalid_input"
)

// ErrorKinds lists every kind, for plan files and generators.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{DivideByZero, Overflow, InvalidCast, TemporalOutOfRange, UDFError, TypeError, UnknownColumn,
		DuplicateColumn, InvalidPlan, SourceError, Cancelled, ResourceExhausted, ValidationError, InvalidInput}
}

// Error is an error as a value: what went wrong (Kind), in which expression
// (Expr, its canonical text), and, for people, where (Node, Path, Row). Two
// errors are the same error when Kind and Expr are equal (see Same); the row
// is not part of the identity because a legal rewrite may present rows in
// another order.
type Error struct {
	Kind ErrorKind
	// Expr is the canonical text of the failing expression, or the offending
	// name for errors that concern a node rather than an expression.
	Expr string
	// Row is the first failing row of the expression's input, or -1.
	Row int64
	// Node is the explain label of the node at fault, when known.
	Node string
	// Path locates the node or field in the plan file syntax
	// ("plan.input.predicates[1]"), when known.
	Path string
	// Msg says what is wrong in words.
	Msg string
	// Err is an underlying cause, if any (an I/O error, a UDF's own error).
	Err error
}

// Error renders the error with its location first, then the kind, the
// message and the expression. Each part is cut to MaxEcho bytes (Abbrev),
// so that a node label of thousands of columns or an expression of a
// million levels makes a message of a few kilobytes; the fields keep the
// whole text.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(Abbrev(e.Path, MaxEcho))
		b.WriteString(": ")
	}
	if e.Node != "" {
		b.WriteString(Abbrev(e.Node, MaxEcho))
		b.WriteString(": ")
	}
	b.WriteString(string(e.Kind))
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(Abbrev(e.Msg, MaxEcho))
	}
	if e.Expr != "" && (len(e.Msg) > MaxEcho || !strings.Contains(e.Msg, "`"+e.Expr+"`")) {
		fmt.Fprintf(&b, " in `%s`", Abbrev(e.Expr, MaxEcho))
	}
	if e.Row >= 0 {
		fmt.Fprintf(&b, " (first failing row %d)", e.Row)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Same reports whether two errors are the same error in the sense of the
// evaluation model: equal kind and equal expression text.
func (e *Error) Same(o *Error) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.Kind == o.Kind && e.Expr == o.Expr
}

// AsError extracts the *Error inside err, if there is one.
func AsError(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// errorf builds a resolution error for an expression.
func errorf(kind ErrorKind, e Expr, format string, args ...any) *Error {
	text := ""
	if e != nil {
		text = e.String()
	}
	return &Error{Kind: kind, Expr: text, Row: -1, Msg: fmt.Sprintf(format, args...)}
}

// MaxEcho is how many bytes of an input text (a node label, an expression,
// a literal, a path) a message repeats: Abbrev cuts longer ones.
const MaxEcho = 512

// Abbrev returns s when it has at most max bytes, else its first max bytes
// or fewer (cut at a UTF-8 character boundary) followed by "… (N more
// bytes)": messages and traces stay short whatever the plan holds, and say
// how much they left out.
func Abbrev(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}
