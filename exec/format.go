package exec

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// FormatCSV writes the result as RFC 4180 CSV (encoding/csv): a header row
// of column names, then one record per row. A null is an empty field, a bool
// is true/false, an integer is decimal, a float is in Go's shortest
// round-trip form with the specials NaN, Inf, -Inf and -0.
func FormatCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(r.Schema.Names()); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	rec := make([]string, r.Schema.Len())
	for i := 0; i < r.NumRows(); i++ {
		row, err := r.Row(i)
		if err != nil {
			return fmt.Errorf("csv: row %d: %w", i, err)
		}
		for c, v := range row {
			rec[c] = CSVValue(v)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}

// CSVValue renders one value as FormatCSV does ("" for null).
func CSVValue(v plan.Value) string {
	if v.IsNull() {
		return ""
	}
	switch v.Type() {
	case plan.Bool:
		return strconv.FormatBool(v.Bool())
	case plan.Int32, plan.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case plan.Float64:
		return FormatFloatShortest(v.Float())
	case plan.String:
		return v.Str()
	}
	return ""
}

// FormatFloatShortest renders f in Go's shortest round-trip form
// (strconv 'g', -1), with the specials spelled NaN, Inf, -Inf and -0 as in
// plan files.
func FormatFloatShortest(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FormatTable writes the result as an aligned text table for people: a
// header of column names, a line of types ("?" marks a nullable column), a
// rule, then the rows; nulls print as "null", numbers are right-aligned.
func FormatTable(w io.Writer, r *Result) error {
	s := r.Schema
	n := r.NumRows()
	cells := make([][]string, n+2)
	cells[0] = s.Names()
	cells[1] = make([]string, s.Len())
	for c, f := range s.Fields() {
		cells[1][c] = f.Type.String()
		if f.Nullable {
			cells[1][c] += "?"
		}
	}
	for i := 0; i < n; i++ {
		row, err := r.Row(i)
		if err != nil {
			return fmt.Errorf("table: row %d: %w", i, err)
		}
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
			if right(c) {
				b.WriteString(pad + cell)
			} else if c == len(line)-1 {
				b.WriteString(cell)
			} else {
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
	fmt.Fprintf(&b, "(%d rows)\n", n)
	_, err := io.WriteString(w, b.String())
	return err
}

func tableValue(v plan.Value) string {
	if v.IsNull() {
		return "null"
	}
	if v.Type() == plan.String {
		s := v.Str()
		if strings.ContainsAny(s, "\n\r\t") {
			return strconv.Quote(s)
		}
		return s
	}
	return CSVValue(v)
}
