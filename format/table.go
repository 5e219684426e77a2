package format

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// Table writes r as an aligned text table for people: a header of column
// names, a line of types ("?" marks a nullable column), a rule, the rows,
// and a "(N rows)" line. Nulls print as null and numbers are
// right-aligned.
//
// What reaches the terminal is never a control sequence: a name or a
// string value holding a control character (an ESC, a newline, a C1 code),
// a bidirectional or other invisible format character, invalid UTF-8, or
// white space at either end is printed Go-quoted (strconv.Quote: "\x1b[31m",
// "a\nb"). So that a quoted cell cannot be mistaken for a raw one, a string
// value that starts with a double quote or is the word null is quoted too.
func Table(w io.Writer, r *exec.Result) error {
	if r == nil {
		return fmt.Errorf("table: no result")
	}
	s := r.Schema
	rows, err := r.Rows()
	if err != nil {
		return fmt.Errorf("table: %w", err)
	}
	cells := make([][]string, len(rows)+2)
	cells[0] = make([]string, s.Len())
	cells[1] = make([]string, s.Len())
	for c, f := range s.Fields() {
		cells[0][c] = tableName(f.Name)
		cells[1][c] = f.Type.String()
		if f.Nullable {
			cells[1][c] += "?"
		}
	}
	for i, row := range rows {
		line := make([]string, len(row))
		for c, v := range row {
			line[c] = tableValue(v)
		}
		cells[i+2] = line
	}
	width := make([]int, s.Len())
	for _, line := range cells {
		for c, cell := range line {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	writeLine := func(line []string, right func(c int) bool) {
		for c, cell := range line {
			if c > 0 {
				b.WriteString(" | ")
			}
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			switch {
			case right(c):
				b.WriteString(pad + cell)
			case c == len(line)-1:
				b.WriteString(cell)
			default:
				b.WriteString(cell + pad)
			}
		}
		b.WriteString("\n")
	}
	left := func(int) bool { return false }
	numeric := func(c int) bool { return s.Field(c).Type.IsNumeric() }
	writeLine(cells[0], left)
	writeLine(cells[1], left)
	rule := make([]string, s.Len())
	for c := range rule {
		rule[c] = strings.Repeat("-", width[c])
	}
	b.WriteString(strings.Join(rule, "-+-") + "\n")
	for _, line := range cells[2:] {
		writeLine(line, numeric)
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(rows))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	return nil
}

// tableName is a column name as the table header shows it.
func tableName(name string) string {
	if unsafeText(name) {
		return strconv.Quote(name)
	}
	return name
}

// tableValue is one cell as the table shows it.
func tableValue(v plan.Value) string {
	if v.IsNull() {
		return "null"
	}
	if v.Type() != plan.String {
		return valueText(v)
	}
	s := v.Str()
	if unsafeText(s) || s == "null" || strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	return s
}

// unsafeText reports whether s, printed raw, could drive a terminal or
// hide what it holds: it is not valid UTF-8, holds a rune strconv does not
// call printable (controls such as ESC, C1 codes, bidirectional and other
// format characters, separators other than the ASCII space), or starts or
// ends with white space.
func unsafeText(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return true
		}
	}
	if s == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(first) || unicode.IsSpace(last)
}
