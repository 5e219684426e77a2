package kernel

import (
	"bytes"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// The string functions of docs/semantics.md, Strings. compute has none of
// them with dfopt's rules (characters with invalid UTF-8 bytes as one
// character each, no error on any input), so each is a loop over the Arrow
// offsets and data buffers. A string result is appended to one growing
// data buffer from the evaluator's allocator (strBuilder).

// strBuilder assembles a string array of n rows: offsets sized once, data
// grown by doubling.
type strBuilder struct {
	obuf *memory.Buffer
	offs []int32
	dbuf *memory.Buffer
	data []byte // the data written so far (its capacity is dbuf's)
	row  int
}

func newStrBuilder(mem memory.Allocator, n, sizeHint int) *strBuilder {
	obuf, offs := newFixed[int32](mem, n+1)
	dbuf := memory.NewResizableBuffer(mem)
	dbuf.Reserve(max(sizeHint, 64))
	return &strBuilder{obuf: obuf, offs: offs, dbuf: dbuf, data: dbuf.Buf()[:0]}
}

// grow makes room for k more bytes; false when the column would outgrow
// Arrow's utf8 layout.
func (b *strBuilder) grow(k int) bool {
	need := len(b.data) + k
	if need > math.MaxInt32 {
		return false
	}
	if need > cap(b.data) {
		b.dbuf.Reserve(max(need, 2*cap(b.data)))
		b.data = b.dbuf.Buf()[:len(b.data)]
	}
	return true
}

// startRow records where the next row's value starts.
func (b *strBuilder) startRow() {
	b.offs[b.row] = int32(len(b.data))
	b.row++
}

func (b *strBuilder) release() {
	b.obuf.Release()
	b.dbuf.Release()
}

// finish returns the string array (n rows; null where valid says).
func (b *strBuilder) finish(n, nulls int, valid *memory.Buffer) datum {
	b.offs[n] = int32(len(b.data))
	b.dbuf.Resize(len(b.data))
	return freshDatum(plan.String, makeArray(plan.String, n, nulls, valid, b.obuf, b.dbuf))
}

// rowAt is row i of an operand view (row 0 of a scalar).
func rowAt(v *view, i int) int {
	if v.scalar {
		return 0
	}
	return i
}

// bytesAt is the bytes of row i of a string view.
func bytesAt(v *view, i int) []byte {
	j := rowAt(v, i)
	return v.data[v.offs[j]:v.offs[j+1]]
}

// intAt is row i of an integer (or temporal) view as an int64.
func intAt(v *view, i int) int64 {
	j := rowAt(v, i)
	if v.typ.Physical() == plan.Int32 {
		return int64(v.i32[j])
	}
	return v.i64[j]
}

// strMap evaluates the string-valued functions lower, upper, substring,
// replace, replace_all and strip: null where any operand is; each valid
// row's value appended by fn.
func (x *evalCtx) strMap(e *plan.Call, in *input, args []datum) (datum, error) {
	vs, vbuf, nulls, ok := x.sharedValidity(args, in.n)
	if !ok {
		return nullDatum(plan.String), nil
	}
	n := in.n
	var valid []byte
	if vbuf != nil {
		valid = vbuf.Bytes()
	}
	s := &vs[0]
	b := newStrBuilder(x.mem, n, int(s.offs[len(s.offs)-1]-s.offs[0]))
	var fn func(b *strBuilder, i int) bool
	switch e.Fn {
	case plan.FuncLower:
		fn = func(b *strBuilder, i int) bool { return appendCase(b, bytesAt(s, i), unicode.ToLower, 'A', 'Z') }
	case plan.FuncUpper:
		fn = func(b *strBuilder, i int) bool { return appendCase(b, bytesAt(s, i), unicode.ToUpper, 'a', 'z') }
	case plan.FuncSubstring:
		start := &vs[1]
		var length *view
		if len(vs) > 2 {
			length = &vs[2]
		}
		fn = func(b *strBuilder, i int) bool {
			str := bytesAt(s, i)
			var l int64 = math.MaxInt64
			if length != nil {
				l = intAt(length, i)
			}
			lo, hi := substringBytes(str, intAt(start, i), l, length != nil)
			if !b.grow(hi - lo) {
				return false
			}
			b.data = append(b.data, str[lo:hi]...)
			return true
		}
	case plan.FuncReplace, plan.FuncReplaceAll:
		old, repl := &vs[1], &vs[2]
		all := e.Fn == plan.FuncReplaceAll
		fn = func(b *strBuilder, i int) bool {
			return appendReplace(b, bytesAt(s, i), bytesAt(old, i), bytesAt(repl, i), all)
		}
	case plan.FuncStrip:
		if len(vs) == 1 {
			ascii := asciiTable(unicode.IsSpace)
			fn = func(b *strBuilder, i int) bool {
				str := bytesAt(s, i)
				lo, hi := stripBounds(str, unicode.IsSpace, ascii)
				return b.grow(hi-lo) && appendTo(b, str[lo:hi])
			}
		} else {
			chars := &vs[1]
			var (
				set   []rune
				in    func(rune) bool
				ascii *[utf8.RuneSelf]bool
			)
			if chars.scalar {
				set = runeSet(bytesAt(chars, 0))
				in = func(r rune) bool { return runeIn(set, r) }
				ascii = asciiTable(in)
			}
			fn = func(b *strBuilder, i int) bool {
				in, ascii := in, ascii
				if !chars.scalar {
					cs := runeSet(bytesAt(chars, i))
					in = func(r rune) bool { return runeIn(cs, r) }
					ascii = asciiTable(in)
				}
				str := bytesAt(s, i)
				lo, hi := stripBounds(str, in, ascii)
				return b.grow(hi-lo) && appendTo(b, str[lo:hi])
			}
		}
	default:
		b.release()
		if vbuf != nil {
			vbuf.Release()
		}
		return datum{}, internalError(e, "strMap: "+e.Fn.String())
	}
	for i := 0; i < n; i++ {
		b.startRow()
		if valid != nil && !bitAt(valid, 0, i) {
			continue
		}
		if !fn(b, i) {
			b.release()
			if vbuf != nil {
				vbuf.Release()
			}
			return datum{}, x.fail(plan.ResourceExhausted, e, in, i, errStringTooLong.Error(), nil)
		}
	}
	return b.finish(n, nulls, vbuf), nil
}

func appendTo(b *strBuilder, p []byte) bool {
	b.data = append(b.data, p...)
	return true
}

// appendCase appends s with every code point mapped by f (unicode.ToLower
// or ToUpper) and every invalid byte unchanged; ASCII letters lo..hi are
// mapped directly (f moves them by 32).
func appendCase(b *strBuilder, s []byte, f func(rune) rune, lo, hi byte) bool {
	if !b.grow(len(s)) {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= lo && c <= hi {
				c ^= 0x20
			}
			b.data = append(b.data, c)
			i++
			continue
		}
		r, w := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.data = append(b.data, c)
			i++
			continue
		}
		m := f(r)
		// A mapped code point may take more bytes than the original.
		if k := utf8.RuneLen(m); k > w && !b.grow(k-w+len(s)-i) {
			return false
		}
		b.data = utf8.AppendRune(b.data, m)
		i += w
	}
	return true
}

// substringBytes returns the byte range of s holding the characters at
// positions [b, b+length) ∩ [0, n) (docs/semantics.md, substring), where b
// is start, or n+start for a negative start; without hasLen the range runs
// to the end. Each invalid byte is one character.
func substringBytes(s []byte, start, length int64, hasLen bool) (int, int) {
	if len(s) == 0 || (hasLen && length <= 0) {
		return 0, 0
	}
	b := start
	if start < 0 {
		n := int64(utf8.RuneCount(s))
		b = n + start // n >= 1: no overflow
		if b < 0 {
			// Positions b .. -1 lie before the string: they use up
			// -b of the length.
			if hasLen {
				if length <= -b {
					return 0, 0
				}
				length += b
			}
			b = 0
		}
	}
	// Skip b characters, then take length of them.
	lo := skipChars(s, 0, b)
	if lo == len(s) {
		return lo, lo
	}
	if !hasLen {
		return lo, len(s)
	}
	return lo, skipChars(s, lo, length)
}

// skipChars returns the byte offset k characters after byte offset i of s
// (len(s) when fewer remain).
func skipChars(s []byte, i int, k int64) int {
	for ; k > 0 && i < len(s); k-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRune(s[i:])
		i += w
	}
	return i
}

// appendReplace appends s with old replaced by repl: the first occurrence,
// or all non-overlapping ones left to right. An empty old occurs at the
// start and (for all) after every character.
func appendReplace(b *strBuilder, s, old, repl []byte, all bool) bool {
	if len(old) == 0 {
		if !all {
			return b.grow(len(repl)+len(s)) && appendTo(b, repl) && appendTo(b, s)
		}
		n := utf8.RuneCount(s)
		if int64(n+1)*int64(len(repl))+int64(len(s)) > math.MaxInt32 || !b.grow((n+1)*len(repl)+len(s)) {
			return false
		}
		b.data = append(b.data, repl...)
		for i := 0; i < len(s); {
			w := 1
			if s[i] >= utf8.RuneSelf {
				_, w = utf8.DecodeRune(s[i:])
			}
			b.data = append(b.data, s[i:i+w]...)
			b.data = append(b.data, repl...)
			i += w
		}
		return true
	}
	for {
		j := bytes.Index(s, old)
		if j < 0 {
			break
		}
		if !b.grow(j + len(repl)) {
			return false
		}
		b.data = append(b.data, s[:j]...)
		b.data = append(b.data, repl...)
		s = s[j+len(old):]
		if !all {
			break
		}
	}
	return b.grow(len(s)) && appendTo(b, s)
}

// stripBounds returns the byte range of s left when the longest prefix
// and suffix of characters that are code points strip accepts are removed;
// an invalid byte is never stripped. ascii says which ASCII bytes strip
// accepts. The prefix is read forwards; the suffix backwards while it is
// ASCII (an ASCII byte is always a character of its own), and forwards
// from the prefix's end once it meets another byte, so the characters are
// always those a forward reading gives.
func stripBounds(s []byte, strip func(rune) bool, ascii *[utf8.RuneSelf]bool) (int, int) {
	lo := 0
	for lo < len(s) {
		if c := s[lo]; c < utf8.RuneSelf {
			if !ascii[c] {
				break
			}
			lo++
			continue
		}
		r, w := utf8.DecodeRune(s[lo:])
		if (r == utf8.RuneError && w == 1) || !strip(r) {
			break
		}
		lo += w
	}
	hi := len(s)
	for hi > lo && s[hi-1] < utf8.RuneSelf && ascii[s[hi-1]] {
		hi--
	}
	if hi == lo || s[hi-1] < utf8.RuneSelf {
		return lo, hi
	}
	// A non-ASCII byte ends the rest: find the end of its last kept
	// character reading forwards (s[lo] starts a kept character).
	end := lo
	for i := lo; i < hi; {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(s[i:hi])
		}
		if (r == utf8.RuneError && w == 1) || !strip(r) {
			end = i + w
		}
		i += w
	}
	return lo, end
}

// asciiTable is the ASCII bytes strip accepts.
func asciiTable(strip func(rune) bool) *[utf8.RuneSelf]bool {
	var t [utf8.RuneSelf]bool
	for c := range t {
		t[c] = strip(rune(c))
	}
	return &t
}

// runeSet is the code points of chars (its invalid bytes strip nothing).
func runeSet(chars []byte) []rune {
	var set []rune
	for i := 0; i < len(chars); {
		r, w := utf8.DecodeRune(chars[i:])
		if !(r == utf8.RuneError && w == 1) {
			set = append(set, r)
		}
		i += w
	}
	return set
}

func runeIn(set []rune, r rune) bool {
	for _, c := range set {
		if c == r {
			return true
		}
	}
	return false
}

// strPred evaluates the string tests starts_with, ends_with, contains and
// like into a bool array, null where any operand is. like's pattern is
// compiled once when it is a literal, else once per row.
func (x *evalCtx) strPred(e *plan.Call, in *input, args []datum) (datum, error) {
	for _, a := range args[:2] {
		if a.isNullScalar() {
			return nullDatum(plan.Bool), nil
		}
	}
	s, p := viewOf(args[0]), viewOf(args[1])
	n := in.n
	vbuf, nulls := andValidity(x.mem, n, &s, &p)
	buf, out := newBitmap(x.mem, n)
	var test func(i int) bool
	switch e.Fn {
	case plan.FuncStartsWith:
		test = func(i int) bool { return bytes.HasPrefix(bytesAt(&s, i), bytesAt(&p, i)) }
	case plan.FuncEndsWith:
		test = func(i int) bool { return bytes.HasSuffix(bytesAt(&s, i), bytesAt(&p, i)) }
	case plan.FuncContains:
		if p.scalar {
			pat := bytesAt(&p, 0)
			test = func(i int) bool { return bytes.Contains(bytesAt(&s, i), pat) }
		} else {
			test = func(i int) bool { return bytes.Contains(bytesAt(&s, i), bytesAt(&p, i)) }
		}
	case plan.FuncLike:
		esc := ""
		if len(e.Args) == 3 {
			var err error
			if esc, err = plan.LikeEscape(e.Args[2]); err != nil {
				buf.Release()
				if vbuf != nil {
					vbuf.Release()
				}
				return datum{}, internalError(e, err.Error())
			}
		}
		if p.scalar {
			m := compileLike(bytesAt(&p, 0), esc)
			test = func(i int) bool { return m.match(bytesAt(&s, i)) }
		} else {
			test = func(i int) bool { return compileLike(bytesAt(&p, i), esc).match(bytesAt(&s, i)) }
		}
	default:
		buf.Release()
		if vbuf != nil {
			vbuf.Release()
		}
		return datum{}, internalError(e, "strPred: "+e.Fn.String())
	}
	var valid []byte
	if vbuf != nil {
		valid = vbuf.Bytes()
	}
	for i := 0; i < n; i++ {
		if valid != nil && !bitAt(valid, 0, i) {
			continue
		}
		if test(i) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	return freshDatum(plan.Bool, makeArray(plan.Bool, n, nulls, vbuf, buf)), nil
}

// strLenBytes is the byte length of each row.
func (x *evalCtx) strLenBytes(a datum) (datum, error) {
	v := viewOf(a)
	n := v.n
	buf, out := newFixed[int64](x.mem, n)
	for i := range out {
		out[i] = int64(v.offs[i+1] - v.offs[i])
	}
	valid := shareValidity(x.mem, &v)
	return freshDatum(plan.Int64, makeArray(plan.Int64, n, v.nulls, valid, buf)), nil
}

// likeToken is one element of a compiled LIKE pattern.
type likeToken struct {
	kind uint8  // tokLit, tokOne or tokAny
	lit  []byte // the character a tokLit matches (its bytes)
}

const (
	tokLit uint8 = iota
	tokOne
	tokAny
)

// likeMatcher is a compiled LIKE pattern. When the pattern has no _ and
// every literal run is valid UTF-8, it is matched as byte segments
// separated by % (segs; a valid UTF-8 run found in s by bytes starts and
// ends on character boundaries, so bytes and characters agree); otherwise
// character by character over toks.
type likeMatcher struct {
	simple           bool
	segs             [][]byte // literal runs between %s
	anchorL, anchorR bool     // no % at the start / end
	toks             []likeToken
}

// compileLike reads pattern p with escape character esc ("" for none)
// into tokens: each character of p (an invalid byte is one) is %, _, or a
// literal; an escape makes the next character literal, and an escape that
// ends p is itself a literal.
func compileLike(p []byte, esc string) *likeMatcher {
	m := &likeMatcher{}
	for i := 0; i < len(p); {
		w := 1
		if p[i] >= utf8.RuneSelf {
			_, w = utf8.DecodeRune(p[i:])
		}
		c := p[i : i+w]
		i += w
		switch {
		case esc != "" && string(c) == esc:
			if i < len(p) {
				w2 := 1
				if p[i] >= utf8.RuneSelf {
					_, w2 = utf8.DecodeRune(p[i:])
				}
				c = p[i : i+w2]
				i += w2
			}
			m.toks = append(m.toks, likeToken{kind: tokLit, lit: c})
		case c[0] == '%':
			if len(m.toks) == 0 || m.toks[len(m.toks)-1].kind != tokAny {
				m.toks = append(m.toks, likeToken{kind: tokAny})
			}
		case c[0] == '_':
			m.toks = append(m.toks, likeToken{kind: tokOne})
		default:
			m.toks = append(m.toks, likeToken{kind: tokLit, lit: c})
		}
	}
	// The segment form: literal runs between %s, when there is no _ and
	// every run is valid UTF-8.
	m.simple = true
	m.anchorL = len(m.toks) == 0 || m.toks[0].kind != tokAny
	m.anchorR = len(m.toks) == 0 || m.toks[len(m.toks)-1].kind != tokAny
	var seg []byte
	for _, t := range m.toks {
		switch t.kind {
		case tokOne:
			m.simple = false
		case tokAny:
			if len(seg) > 0 {
				m.segs = append(m.segs, seg)
				seg = nil
			}
		default:
			seg = append(seg, t.lit...)
		}
	}
	if len(seg) > 0 || len(m.toks) == 0 {
		m.segs = append(m.segs, seg)
	}
	for _, s := range m.segs {
		if !utf8.Valid(s) {
			m.simple = false
		}
	}
	return m
}

// match reports whether all of s matches the pattern.
func (m *likeMatcher) match(s []byte) bool {
	if m.simple {
		return m.matchSegs(s)
	}
	return m.matchToks(s)
}

// matchSegs: the first segment a prefix (when anchored), the last a suffix
// (when anchored), the ones between found left to right, leftmost first,
// without overlapping.
func (m *likeMatcher) matchSegs(s []byte) bool {
	segs := m.segs
	if len(segs) == 0 {
		return true // the pattern is a lone %
	}
	if m.anchorL && m.anchorR && len(segs) == 1 {
		return bytes.Equal(s, segs[0])
	}
	if m.anchorL {
		if !bytes.HasPrefix(s, segs[0]) {
			return false
		}
		s, segs = s[len(segs[0]):], segs[1:]
	}
	if m.anchorR {
		last := segs[len(segs)-1]
		if !bytes.HasSuffix(s, last) {
			return false
		}
		s, segs = s[:len(s)-len(last)], segs[:len(segs)-1]
	}
	for _, g := range segs {
		j := bytes.Index(s, g)
		if j < 0 {
			return false
		}
		s = s[j+len(g):]
	}
	return true
}

// matchToks matches character by character, backtracking to the last %
// (the classic wildcard algorithm: with one kind of run wildcard,
// retrying only the latest % is enough).
func (m *likeMatcher) matchToks(s []byte) bool {
	toks := m.toks
	si, ti := 0, 0
	starT, starS := -1, 0
	for si < len(s) {
		w := 1
		if s[si] >= utf8.RuneSelf {
			_, w = utf8.DecodeRune(s[si:])
		}
		if ti < len(toks) {
			switch t := toks[ti]; t.kind {
			case tokAny:
				starT, starS = ti, si
				ti++
				continue
			case tokOne:
				si += w
				ti++
				continue
			default:
				if len(t.lit) == w && bytes.Equal(t.lit, s[si:si+w]) {
					si += w
					ti++
					continue
				}
			}
		}
		if starT < 0 {
			return false
		}
		// Let the last % take one more character and retry after it.
		w0 := 1
		if s[starS] >= utf8.RuneSelf {
			_, w0 = utf8.DecodeRune(s[starS:])
		}
		starS += w0
		si, ti = starS, starT+1
	}
	for ti < len(toks) && toks[ti].kind == tokAny {
		ti++
	}
	return ti == len(toks)
}
