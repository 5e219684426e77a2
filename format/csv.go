package format

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dfopt/dfopt/exec"
)

// CSV writes r as RFC 4180 CSV: a header row of column names, then one
// record per row, lines ending in "\n". A null is an empty field and an
// empty string is a quoted empty field (""), as Polars writes them, so the
// two read back apart; a bool is true/false, an integer is decimal, a
// float is spelled by Float. A field is quoted when it is the empty
// string, holds a comma, a double quote, CR or LF, starts with white space
// or is \. (the end-of-data marker of some readers); a double quote inside
// is doubled. Strings are written byte for byte: CSV is data, not
// terminal output (Table escapes).
func CSV(w io.Writer, r *exec.Result) error {
	if r == nil {
		return fmt.Errorf("csv: no result")
	}
	rows, err := r.Rows()
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	bw := bufio.NewWriter(w)
	for c, name := range r.Schema.Names() {
		if c > 0 {
			bw.WriteByte(',')
		}
		writeCSVField(bw, name)
	}
	bw.WriteByte('\n')
	for _, row := range rows {
		for c, v := range row {
			if c > 0 {
				bw.WriteByte(',')
			}
			if v.IsNull() {
				continue
			}
			writeCSVField(bw, valueText(v))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}

// writeCSVField writes one non-null field, quoted when csvNeedsQuotes.
func writeCSVField(w *bufio.Writer, s string) {
	if !csvNeedsQuotes(s) {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.WriteByte('"')
}

// csvNeedsQuotes reports whether a non-null field must be quoted: the
// empty string (an unquoted empty field is a null), a field with a
// separator, quote or line break, a leading space (which some readers
// trim) and the marker \. (as encoding/csv quotes it).
func csvNeedsQuotes(s string) bool {
	if s == "" || s == `\.` || strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}
