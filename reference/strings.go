package reference

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// The string, set and range functions, written from docs/semantics.md
// (Strings; Sets and ranges) one value at a time. Strings are read as
// lists of characters: a valid UTF-8 encoding of a code point, or a
// single byte that does not start one.

// chars splits s into its characters, each as its bytes.
func chars(s string) []string {
	var out []string
	for len(s) > 0 {
		_, w := utf8.DecodeRuneInString(s)
		out = append(out, s[:w])
		s = s[w:]
	}
	return out
}

// codePoint returns the code point character c encodes, or false when c is
// an invalid byte.
func codePoint(c string) (rune, bool) {
	r, w := utf8.DecodeRuneInString(c)
	if r == utf8.RuneError && w == 1 {
		return 0, false
	}
	return r, true
}

// mapCase maps every code point of s by f, keeping invalid bytes.
func mapCase(s string, f func(rune) rune) string {
	var sb strings.Builder
	for _, c := range chars(s) {
		if r, ok := codePoint(c); ok {
			sb.WriteRune(f(r))
		} else {
			sb.WriteString(c)
		}
	}
	return sb.String()
}

// likeMatch reports whether all of s matches pattern p with escape esc
// ("" for none): a table over (position in s, position in the pattern).
func likeMatch(s, p, esc string) bool {
	type tok struct {
		any, one bool
		lit      string
	}
	var toks []tok
	pc := chars(p)
	for i := 0; i < len(pc); i++ {
		c := pc[i]
		switch {
		case esc != "" && c == esc:
			if i+1 < len(pc) {
				i++
				c = pc[i]
			}
			toks = append(toks, tok{lit: c})
		case c == "%":
			toks = append(toks, tok{any: true})
		case c == "_":
			toks = append(toks, tok{one: true})
		default:
			toks = append(toks, tok{lit: c})
		}
	}
	sc := chars(s)
	// m[i][j]: sc[i:] matches toks[j:].
	m := make([][]bool, len(sc)+1)
	for i := range m {
		m[i] = make([]bool, len(toks)+1)
	}
	m[len(sc)][len(toks)] = true
	for i := len(sc); i >= 0; i-- {
		for j := len(toks) - 1; j >= 0; j-- {
			t := toks[j]
			switch {
			case t.any:
				m[i][j] = m[i][j+1] || (i < len(sc) && m[i+1][j])
			case i == len(sc):
				m[i][j] = false
			case t.one:
				m[i][j] = m[i+1][j+1]
			default:
				m[i][j] = sc[i] == t.lit && m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}

// less reports a < b.
func (a int128) less(b int128) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	return a.lo < b.lo
}

// substring is the characters at positions [b, b+length) ∩ [0, n), b being
// start or n+start for a negative start; without length, [b, n).
func substring(s string, start int64, length int64, hasLen bool) string {
	cs := chars(s)
	n := wide(int64(len(cs)))
	b := wide(start)
	if start < 0 {
		b = n.add(b)
	}
	e := n
	if hasLen {
		e = b.add(wide(length))
	}
	lo, hi := b, e
	if lo.less(wide(0)) {
		lo = wide(0)
	}
	if n.less(hi) {
		hi = n
	}
	if !lo.less(hi) {
		return ""
	}
	return strings.Join(cs[lo.lo:hi.lo], "")
}

// replaceLiteral replaces the first (or every) occurrence of old in s,
// left to right without overlap; an empty old occurs at the start and
// after every character.
func replaceLiteral(s, old, repl string, all bool) string {
	var sb strings.Builder
	if old == "" {
		sb.WriteString(repl)
		if !all {
			sb.WriteString(s)
			return sb.String()
		}
		for _, c := range chars(s) {
			sb.WriteString(c)
			sb.WriteString(repl)
		}
		return sb.String()
	}
	i := 0
	for i <= len(s)-len(old) {
		if s[i:i+len(old)] == old {
			sb.WriteString(repl)
			i += len(old)
			if !all {
				break
			}
			continue
		}
		sb.WriteByte(s[i])
		i++
	}
	sb.WriteString(s[i:])
	return sb.String()
}

// strip removes the longest prefix and suffix of characters that are code
// points drop accepts.
func strip(s string, drop func(rune) bool) string {
	cs := chars(s)
	gone := func(c string) bool {
		r, ok := codePoint(c)
		return ok && drop(r)
	}
	lo, hi := 0, len(cs)
	for lo < hi && gone(cs[lo]) {
		lo++
	}
	for hi > lo && gone(cs[hi-1]) {
		hi--
	}
	return strings.Join(cs[lo:hi], "")
}

// evalString evaluates the string functions and is_in and between over
// evaluated arguments; ok is false for a function it does not know.
func evalString(e *plan.Call, args [][]plan.Value, n int) ([]plan.Value, bool) {
	out := make([]plan.Value, n)
	rt := plan.String
	switch e.Fn {
	case plan.FuncStartsWith, plan.FuncEndsWith, plan.FuncContains, plan.FuncLike, plan.FuncIsIn, plan.FuncBetween:
		rt = plan.Bool
	case plan.FuncStrLenBytes:
		rt = plan.Int64
	}
	for k := 0; k < n; k++ {
		switch e.Fn {
		case plan.FuncIsIn:
			out[k] = isIn(args, k)
			continue
		case plan.FuncBetween:
			out[k] = between(args[0][k], args[1][k], args[2][k])
			continue
		}
		null := false
		for _, a := range args {
			null = null || a[k].IsNull()
		}
		if null {
			out[k] = plan.NullValue(rt)
			continue
		}
		s := args[0][k].Str()
		arg := func(i int) string { return args[i][k].Str() }
		switch e.Fn {
		case plan.FuncLower:
			out[k] = plan.StringValue(mapCase(s, unicode.ToLower))
		case plan.FuncUpper:
			out[k] = plan.StringValue(mapCase(s, unicode.ToUpper))
		case plan.FuncStartsWith:
			out[k] = plan.BoolValue(strings.HasPrefix(s, arg(1)))
		case plan.FuncEndsWith:
			out[k] = plan.BoolValue(strings.HasSuffix(s, arg(1)))
		case plan.FuncContains:
			out[k] = plan.BoolValue(strings.Contains(s, arg(1)))
		case plan.FuncLike:
			esc := ""
			if len(args) == 3 {
				esc = arg(2)
			}
			out[k] = plan.BoolValue(likeMatch(s, arg(1), esc))
		case plan.FuncSubstring:
			var length int64
			if len(args) == 3 {
				length = args[2][k].Int()
			}
			out[k] = plan.StringValue(substring(s, args[1][k].Int(), length, len(args) == 3))
		case plan.FuncReplace, plan.FuncReplaceAll:
			out[k] = plan.StringValue(replaceLiteral(s, arg(1), arg(2), e.Fn == plan.FuncReplaceAll))
		case plan.FuncStrip:
			if len(args) == 1 {
				out[k] = plan.StringValue(strip(s, unicode.IsSpace))
			} else {
				set := arg(1)
				out[k] = plan.StringValue(strip(s, func(r rune) bool {
					for _, c := range chars(set) {
						if q, ok := codePoint(c); ok && q == r {
							return true
						}
					}
					return false
				}))
			}
		case plan.FuncStrLenBytes:
			out[k] = plan.Int64Value(int64(len(s)))
		default:
			return nil, false
		}
	}
	return out, true
}

// isIn is row k of is_in: null for a null x; true when a non-null list
// value equals x (as eq decides); else null when the list holds a null;
// else false.
func isIn(args [][]plan.Value, k int) plan.Value {
	x := args[0][k]
	if x.IsNull() {
		return plan.NullValue(plan.Bool)
	}
	sawNull := false
	for _, a := range args[1:] {
		v := a[k]
		if v.IsNull() {
			sawNull = true
			continue
		}
		if c, ordered := compareIEEE(x, v); ordered && c == 0 {
			return plan.BoolValue(true)
		}
	}
	if sawNull {
		return plan.NullValue(plan.Bool)
	}
	return plan.BoolValue(false)
}

// between is x >= lo and x <= hi under Kleene and.
func between(x, lo, hi plan.Value) plan.Value {
	cmp := func(a, b plan.Value, ok func(int) bool) (bool, bool) {
		if a.IsNull() || b.IsNull() {
			return false, false
		}
		c, ordered := compareIEEE(a, b)
		return ordered && ok(c), true
	}
	ge, geKnown := cmp(x, lo, func(c int) bool { return c >= 0 })
	le, leKnown := cmp(x, hi, func(c int) bool { return c <= 0 })
	switch {
	case (geKnown && !ge) || (leKnown && !le):
		return plan.BoolValue(false)
	case geKnown && leKnown:
		return plan.BoolValue(true)
	}
	return plan.NullValue(plan.Bool)
}
