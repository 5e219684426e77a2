package planjson

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// maxDepth bounds JSON nesting: plan.MaxDepth, the limit Resolve applies to
// plans however they are built. A plan nests one level per node, so this
// admits chains as deep as Resolve accepts while keeping recursion below
// Go's stack limit (whose overflow would be a crash, not an error).
const maxDepth = plan.MaxDepth

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a bool", "a number", "a string", "an array", "an object"}[k]
}

// jvalue is a parsed JSON value that keeps what encoding/json's generic
// decoding loses: member order, duplicate keys (rejected by the decoder),
// number text (int64 beyond 2^53 stays exact), and each value's byte offset
// for errors. Encode builds the same tree and prints it.
type jvalue struct {
	kind jkind
	off  int64
	b    bool
	s    string // string contents, or number text
	arr  []*jvalue
	obj  []jmember
	// dup is the first repeated key of an object, reported by the decoder
	// (which knows the path) rather than by the parser.
	dup *jmember
}

type jmember struct {
	key string
	off int64
	val *jvalue
}

// get returns the member named key, or nil.
func (v *jvalue) get(key string) *jvalue {
	for i := range v.obj {
		if v.obj[i].key == key {
			return v.obj[i].val
		}
	}
	return nil
}

// jparser is a recursive-descent JSON parser (RFC 8259). Written by hand
// rather than on encoding/json's Decoder.Token because Token allocates an
// interface per token and hides byte offsets: Decode of the 400,000-value
// table of BenchmarkDecodeTable100k took 259 ms through Token and 64 ms
// with this parser (the same bytes, 2 shared cores). It accepts exactly
// what json.Valid accepts (the fuzz target FuzzJSONParser checks that, and
// that strings decode as encoding/json decodes them: invalid UTF-8 and lone
// surrogates become U+FFFD).
type jparser struct {
	data []byte
	pos  int
}

// parseJSON parses exactly one JSON value, rejecting trailing data.
// Duplicate object keys are recorded (jvalue.dup) for the decoder to reject.
func parseJSON(data []byte) (*jvalue, *Error) {
	v, err := parseTree(data)
	if err != nil {
		// Syntax errors have no JSON path; the byte offset (and the line
		// and column Decode adds) say where.
		err.Msg += fmt.Sprintf(" at byte %d", err.Offset)
		return nil, err
	}
	return v, nil
}

func parseTree(data []byte) (*jvalue, *Error) {
	p := &jparser{data: data}
	p.ws()
	if p.pos == len(data) {
		return nil, &Error{Offset: 0, Msg: "invalid JSON: empty input"}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(data) {
		return nil, &Error{Offset: int64(p.pos), Msg: "invalid JSON: unexpected data after the top-level object"}
	}
	return v, nil
}

func (p *jparser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// fail reports a syntax error at the current position.
func (p *jparser) fail(context string) *Error {
	if p.pos >= len(p.data) {
		return &Error{Offset: int64(len(p.data)), Msg: "invalid JSON: unexpected end of input"}
	}
	c := p.data[p.pos]
	shown := fmt.Sprintf("%q", rune(c))
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRune(p.data[p.pos:])
		shown = fmt.Sprintf("%q", r)
	}
	return &Error{Offset: int64(p.pos), Msg: fmt.Sprintf("invalid JSON: invalid character %s %s", shown, context)}
}

func (p *jparser) value(depth int) (*jvalue, *Error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("")
	}
	off := int64(p.pos)
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, &Error{Offset: off, Msg: fmt.Sprintf("invalid JSON: nested deeper than %d levels", maxDepth)}
		}
		return p.object(depth)
	case c == '[':
		if depth >= maxDepth {
			return nil, &Error{Offset: off, Msg: fmt.Sprintf("invalid JSON: nested deeper than %d levels", maxDepth)}
		}
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jvalue{kind: jString, off: off, s: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		s, err := p.number()
		if err != nil {
			return nil, err
		}
		return &jvalue{kind: jNumber, off: off, s: s}, nil
	case c == 't':
		return p.literal("true", &jvalue{kind: jBool, off: off, b: true})
	case c == 'f':
		return p.literal("false", &jvalue{kind: jBool, off: off})
	case c == 'n':
		return p.literal("null", &jvalue{kind: jNull, off: off})
	}
	return nil, p.fail("looking for beginning of value")
}

func (p *jparser) literal(word string, v *jvalue) (*jvalue, *Error) {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return nil, p.fail(fmt.Sprintf("in literal %s (expecting %q)", word, rune(word[i])))
		}
		p.pos++
	}
	return v, nil
}

func (p *jparser) object(depth int) (*jvalue, *Error) {
	v := &jvalue{kind: jObject, off: int64(p.pos)}
	p.pos++ // '{'
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	var seen map[string]bool
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("looking for beginning of object key string")
		}
		koff := int64(p.pos)
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("after object key")
		}
		p.pos++
		p.ws()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if seen == nil && len(v.obj) >= 8 {
			seen = make(map[string]bool, 2*len(v.obj))
			for _, m := range v.obj {
				seen[m.key] = true
			}
		}
		var dup bool
		if seen != nil {
			dup = seen[key]
			seen[key] = true
		} else {
			dup = v.get(key) != nil
		}
		if dup {
			if v.dup == nil {
				v.dup = &jmember{key: key, off: koff, val: val}
			}
		} else {
			v.obj = append(v.obj, jmember{key: key, off: koff, val: val})
		}
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return v, nil
		}
		return nil, p.fail("after object key:value pair")
	}
}

func (p *jparser) array(depth int) (*jvalue, *Error) {
	v := &jvalue{kind: jArray, off: int64(p.pos)}
	p.pos++ // '['
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.ws()
		el, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, el)
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return v, nil
		}
		return nil, p.fail("after array element")
	}
}

// number scans a JSON number and returns its text.
func (p *jparser) number() (string, *Error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return "", p.fail("in numeric literal")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.fail("after decimal point in numeric literal")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.fail("in exponent of numeric literal")
		}
	}
	return string(p.data[start:p.pos]), nil
}

// str scans a JSON string starting at its opening quote and returns its
// decoded contents.
func (p *jparser) str() (string, *Error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes, valid ASCII or UTF-8.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if utf8.Valid(s) {
				p.pos++
				return string(s), nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	p.pos = start
	var b []byte
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("in string literal")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(b), nil
		case c < 0x20:
			return "", p.fail("in string literal")
		case c == '\\':
			p.pos++
			if p.pos >= len(p.data) {
				return "", p.fail("in string escape code")
			}
			switch e := p.data[p.pos]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4(p.pos + 1)
				if !ok {
					p.pos++
					return "", p.fail("in \\u hexadecimal character escape")
				}
				p.pos += 4
				if utf16.IsSurrogate(r) {
					// A pair decodes to one rune; a lone surrogate is
					// U+FFFD, as in encoding/json.
					if p.pos+2 < len(p.data) && p.data[p.pos+1] == '\\' && p.data[p.pos+2] == 'u' {
						if r2, ok := p.hex4(p.pos + 3); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								p.pos += 6
								b = utf8.AppendRune(b, dec)
								break
							}
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", p.fail("in string escape code")
			}
			p.pos++
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			b = utf8.AppendRune(b, r) // invalid UTF-8 becomes U+FFFD
			p.pos += size
		}
	}
}

// hex4 reads four hex digits at i.
func (p *jparser) hex4(i int) (rune, bool) {
	if i+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
