package planjson

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// Error is a decoding error. It names the JSON path of the offending field
// in plan-file syntax ("plan.input.predicates[1].args[0]", the same syntax
// plan.Resolve uses), the position in the input, and, for DecodeFile, the
// file.
type Error struct {
	// File is the file name, set by DecodeFile.
	File string
	// Path is the JSON path of the field at fault; "" for a syntax error.
	Path string
	// Offset is the byte offset in the input, or -1 when unknown.
	Offset int64
	// Line and Col are the 1-based position of Offset (0 when unknown).
	Line, Col int
	// Msg says what is wrong.
	Msg string
	// Err is the underlying cause, if any (an OpenParquet error, a
	// schema error).
	Err error
}

// Error renders "path: message (line L, column C)", or with a file
// "file:L:C: path: message", the form editors and CI logs link to.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(plan.Abbrev(e.Path, plan.MaxEcho))
		b.WriteString(": ")
	}
	// Messages echo names and values from the input; cut, they keep the
	// message short whatever the file holds.
	b.WriteString(plan.Abbrev(e.Msg, 2*plan.MaxEcho))
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.File == "" && e.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Col)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// locate fills Line and Col from Offset.
func (e *Error) locate(data []byte) {
	if e.Offset < 0 || e.Offset > int64(len(data)) {
		return
	}
	line, col := 1, 1
	for _, c := range data[:e.Offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	e.Line, e.Col = line, col
}

// path is a JSON path built lazily: a deep plan must not pay for path
// strings unless an error needs one.
type path struct {
	parent *path
	seg    string
}

func root(name string) *path { return &path{seg: name} }

func (p *path) String() string {
	var segs []string
	for q := p; q != nil; q = q.parent {
		segs = append(segs, q.seg)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteString(segs[i])
	}
	return b.String()
}

// field names a member: ".name", or `["odd name"]` for keys that are not
// identifiers.
func (p *path) field(name string) *path {
	if p == nil {
		return root(name)
	}
	if isPathIdent(name) {
		return &path{parent: p, seg: "." + name}
	}
	return &path{parent: p, seg: "[" + strconv.Quote(name) + "]"}
}

func (p *path) index(i int) *path { return &path{parent: p, seg: "[" + strconv.Itoa(i) + "]"} }

func isPathIdent(s string) bool {
	if s == "" {
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

// errAt builds an error for the JSON value v at path p.
func errAt(v *jvalue, p *path, format string, args ...any) *Error {
	off := int64(-1)
	if v != nil {
		off = v.off
	}
	ps := ""
	if p != nil {
		ps = p.String()
	}
	return &Error{Path: ps, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// suggest returns `; did you mean "x"?` for the closest candidate within
// edit distance max(2, len/3), or "".
func suggest(got string, candidates []string) string {
	best, bestD := "", max(2, len(got)/3)+1
	for _, c := range candidates {
		if d := editDistance(got, c, bestD); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance, giving up (returning limit) once
// it cannot be below limit; names are short, so the quadratic table is fine.
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// list renders names sorted and comma separated, for "known: ..." hints.
func list(names []string) string {
	return strings.Join(slices.Sorted(slices.Values(names)), ", ")
}
