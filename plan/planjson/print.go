package planjson

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// printWidth is the line width the printer aims for. Written by hand
// because encoding/json's indenter puts every array element on its own line,
// which turns a table of values or a small expression into a page.
const printWidth = 100

// printDocument writes v with the top-level object always expanded and
// every nested value on one line when it fits in printWidth.
func printDocument(v *jvalue) []byte {
	var b bytes.Buffer
	printExpanded(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func isScalar(v *jvalue) bool { return v.kind != jArray && v.kind != jObject }

// printValue writes v starting at column col of a line indented by indent.
func printValue(b *bytes.Buffer, v *jvalue, indent, col int) {
	if isScalar(v) || fits(v, printWidth-col) >= 0 {
		printCompact(b, v)
		return
	}
	printExpanded(b, v, indent)
}

// maxIndent caps indentation: past it, nesting no longer indents, so that
// a 10,000-node chain prints in space linear in its size rather than
// quadratic (a page of spaces per line).
const maxIndent = 40

// deeper is the indentation one level below indent.
func deeper(indent int) int { return min(indent+2, maxIndent) }

func printExpanded(b *bytes.Buffer, v *jvalue, indent int) {
	inner := deeper(indent)
	pad := strings.Repeat(" ", inner)
	switch v.kind {
	case jObject:
		if len(v.obj) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v.obj {
			b.WriteString(pad)
			n := writeString(b, m.key)
			b.WriteString(": ")
			printValue(b, m.val, inner, inner+n+2)
			if i < len(v.obj)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad[:min(indent, inner)])
		b.WriteByte('}')
	case jArray:
		if len(v.arr) == 0 {
			b.WriteString("[]")
			return
		}
		allScalar := true
		for _, el := range v.arr {
			allScalar = allScalar && isScalar(el)
		}
		b.WriteString("[\n")
		b.WriteString(pad)
		col := inner
		for i, el := range v.arr {
			if allScalar {
				// Pack scalars into lines (a column of values reads as a
				// paragraph, not a page).
				w := compactWidth(el)
				if i > 0 {
					if col+2+w > printWidth {
						b.WriteString(",\n")
						b.WriteString(pad)
						col = inner
					} else {
						b.WriteString(", ")
						col += 2
					}
				}
				printCompact(b, el)
				col += w
				continue
			}
			if i > 0 {
				b.WriteString(",\n")
				b.WriteString(pad)
			}
			printValue(b, el, inner, inner)
		}
		b.WriteByte('\n')
		b.WriteString(pad[:min(indent, inner)])
		b.WriteByte(']')
	default:
		printCompact(b, v)
	}
}

// printCompact writes v on one line, with a space after ':' and ','.
func printCompact(b *bytes.Buffer, v *jvalue) {
	switch v.kind {
	case jNull:
		b.WriteString("null")
	case jBool:
		if v.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case jNumber:
		b.WriteString(v.s)
	case jString:
		writeString(b, v.s)
	case jArray:
		b.WriteByte('[')
		for i, el := range v.arr {
			if i > 0 {
				b.WriteString(", ")
			}
			printCompact(b, el)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, m.key)
			b.WriteString(": ")
			printCompact(b, m.val)
		}
		b.WriteByte('}')
	}
}

// fits returns what is left of budget after writing v compactly, or -1 as
// soon as v does not fit. It stops early, so asking at every level of a deep
// plan costs O(budget) per level, not O(size of the subtree).
func fits(v *jvalue, budget int) int {
	if budget < 0 {
		return -1
	}
	switch v.kind {
	case jNull:
		budget -= 4
	case jBool:
		budget -= 5
		if v.b {
			budget++
		}
	case jNumber:
		budget -= len(v.s)
	case jString:
		budget -= stringWidth(v.s, budget)
	case jArray:
		budget -= 2
		for i, el := range v.arr {
			if i > 0 {
				budget -= 2
			}
			if budget = fits(el, budget); budget < 0 {
				return -1
			}
		}
	case jObject:
		budget -= 2
		for i, m := range v.obj {
			if i > 0 {
				budget -= 2
			}
			budget -= stringWidth(m.key, budget) + 2
			if budget = fits(m.val, budget); budget < 0 {
				return -1
			}
		}
	}
	if budget < 0 {
		return -1
	}
	return budget
}

// compactWidth is the length of v written compactly.
func compactWidth(v *jvalue) int {
	const unlimited = 1 << 40
	return unlimited - fits(v, unlimited)
}

// stringWidth is the length of s as a JSON string, counting at most limit+1.
func stringWidth(s string, limit int) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
		if n > limit {
			return n
		}
	}
	return n
}

// writeString writes s as a JSON string and returns its width. s is valid
// UTF-8 (the encoder checks values and names before printing).
func writeString(b *bytes.Buffer, s string) int {
	start := b.Len()
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028', '\u2029':
			// Legal in JSON but not in JavaScript source; escaped as
			// encoding/json does.
			b.WriteString(`\u202`)
			b.WriteByte("89"[r-'\u2028'])
		default:
			if r < 0x20 {
				const hex = "0123456789abcdef"
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.Len() - start
}

// Indent parses a JSON document with the plan-file parser (nesting up to
// plan.MaxDepth, where encoding/json stops at 10,000) and prints it as plan
// files are printed: short values on one line, indentation capped so the
// output stays linear in the input. Tools that wrap encoded plans in a
// larger document (explain --format json) pretty-print it with Indent.
func Indent(data []byte) ([]byte, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return printDocument(v), nil
}
