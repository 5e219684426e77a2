package planjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds JSON nesting. A plan nests one level per node, so this
// admits chains of ~100,000 nodes while keeping recursion far below Go's
// stack limit (whose overflow would be a crash, not an error).
const maxDepth = 100_000

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
// decoding loses: member order, duplicate keys (rejected here), number text
// (int64 beyond 2^53 stays exact), and each value's byte offset for errors.
// Encode builds the same tree and prints it.
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

type jparser struct {
	data []byte
	dec  *json.Decoder
}

// parseJSON parses exactly one JSON value, rejecting trailing data.
// Duplicate object keys are recorded (jvalue.dup) for the decoder to reject.
func parseJSON(data []byte) (*jvalue, *Error) {
	p := &jparser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	off := p.next()
	if _, terr := p.dec.Token(); terr != io.EOF {
		return nil, &Error{Offset: off, Msg: "invalid JSON: unexpected data after the top-level object"}
	}
	return v, nil
}

// next returns the offset where the next token starts.
func (p *jparser) next() int64 {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jparser) syntax(err error, off int64) *Error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &Error{Offset: se.Offset, Msg: "invalid JSON: " + se.Error()}
	case err == io.EOF && off == 0:
		return &Error{Offset: 0, Msg: "invalid JSON: empty input"}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Offset: int64(len(p.data)), Msg: "invalid JSON: unexpected end of input"}
	}
	return &Error{Offset: off, Msg: "invalid JSON", Err: err}
}

func (p *jparser) value(depth int) (*jvalue, *Error) {
	off := p.next()
	if depth > maxDepth {
		return nil, &Error{Offset: off, Msg: fmt.Sprintf("invalid JSON: nested deeper than %d levels", maxDepth)}
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err, off)
	}
	switch t := tok.(type) {
	case nil:
		return &jvalue{kind: jNull, off: off}, nil
	case bool:
		return &jvalue{kind: jBool, off: off, b: t}, nil
	case json.Number:
		return &jvalue{kind: jNumber, off: off, s: string(t)}, nil
	case string:
		return &jvalue{kind: jString, off: off, s: t}, nil
	case json.Delim:
		switch t {
		case '{':
			return p.object(off, depth)
		case '[':
			return p.array(off, depth)
		}
	}
	return nil, &Error{Offset: off, Msg: fmt.Sprintf("invalid JSON: unexpected %v", tok)}
}

func (p *jparser) object(off int64, depth int) (*jvalue, *Error) {
	v := &jvalue{kind: jObject, off: off}
	var seen map[string]bool
	for p.dec.More() {
		koff := p.next()
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err, koff)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, &Error{Offset: koff, Msg: "invalid JSON: object key is not a string"}
		}
		if seen == nil && len(v.obj) >= 8 {
			seen = make(map[string]bool, 2*len(v.obj))
			for _, m := range v.obj {
				seen[m.key] = true
			}
		}
		dup := false
		if seen != nil {
			dup = seen[key]
			seen[key] = true
		} else {
			dup = v.get(key) != nil
		}
		val, perr := p.value(depth + 1)
		if perr != nil {
			return nil, perr
		}
		if dup {
			if v.dup == nil {
				v.dup = &jmember{key: key, off: koff, val: val}
			}
			continue
		}
		v.obj = append(v.obj, jmember{key: key, off: koff, val: val})
	}
	end := p.next()
	if _, err := p.dec.Token(); err != nil {
		return nil, p.syntax(err, end)
	}
	return v, nil
}

func (p *jparser) array(off int64, depth int) (*jvalue, *Error) {
	v := &jvalue{kind: jArray, off: off}
	for p.dec.More() {
		el, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, el)
	}
	end := p.next()
	if _, err := p.dec.Token(); err != nil {
		return nil, p.syntax(err, end)
	}
	return v, nil
}
