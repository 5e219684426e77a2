package tpch

import (
	"bufio"
	"fmt"
	"go/build"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// GoTPCVersion is the go-tpc module version whose dbgen generates the data
// and whose answer files the results are checked against.
const GoTPCVersion = "v1.0.7"

// ModuleDir is the directory of go-tpc in the Go module cache: $GOTPC_DIR
// when set, else $GOMODCACHE (or GOPATH/pkg/mod) + github.com/pingcap/
// go-tpc@v1.0.7. The module is a dependency of dfopt, so any build has
// downloaded it there.
func ModuleDir() string {
	if d := os.Getenv("GOTPC_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := strings.Split(build.Default.GOPATH, string(filepath.ListSeparator))[0]
		cache = filepath.Join(gopath, "pkg", "mod")
	}
	return filepath.Join(cache, "github.com", "pingcap", "go-tpc@"+GoTPCVersion)
}

// AnswersDir is where go-tpc keeps its SF1 answers: ModuleDir()/tpch/output.
func AnswersDir() string { return filepath.Join(ModuleDir(), "tpch", "output") }

// Answer is one of go-tpc's answer files: the column names of its header
// line and the rows, every cell as printed.
type Answer struct {
	Query  string
	Header []string
	Rows   [][]string
}

// ReadAnswer reads dir/<query>.out (query "q1" ... "q22").
func ReadAnswer(dir, query string) (*Answer, error) {
	path := filepath.Join(dir, query+".out")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tpch: answer of %s: %w", query, err)
	}
	defer f.Close()
	a, err := ParseAnswer(query, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ParseAnswer reads an answer in go-tpc's format: '|'-separated cells, a
// header line, then one line a row, every cell kept as printed (leading
// and trailing spaces included; a comment may start with one). Every row
// must have the header's column count.
func ParseAnswer(query string, r io.Reader) (*Answer, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	a := &Answer{Query: query}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			if text == "" {
				return nil, fmt.Errorf("line 1: empty header")
			}
			a.Header = strings.Split(text, "|")
			continue
		}
		if text == "" {
			return nil, fmt.Errorf("line %d: empty line (the answer of a query with one column has no empty rows)", line)
		}
		cells := strings.Split(text, "|")
		if len(cells) != len(a.Header) {
			return nil, fmt.Errorf("line %d: %d cells, the header has %d", line, len(cells), len(a.Header))
		}
		a.Rows = append(a.Rows, cells)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, fmt.Errorf("empty answer file")
	}
	return a, nil
}

// CompareOptions tune Compare.
type CompareOptions struct {
	// RelTol is a relative tolerance for decimal cells, applied when it is
	// larger than one unit of the last printed digit; 0 means
	// DefaultRelTol, a negative value none.
	RelTol float64
	// MaxMismatches caps the mismatches Report.Details lists; 0 means 10.
	MaxMismatches int
}

// DefaultRelTol is the relative tolerance Compare allows a decimal cell on
// top of one unit of its last printed digit: float64 sums of millions of
// values (Q1's 5.6e10 sum_charge, printed to 1e-6) carry rounding errors
// of about 1e-13 relative, more than the printed unit; 1e-12 stays far
// below any wrong answer's error.
const DefaultRelTol = 1e-12

// Report is the outcome of Compare.
type Report struct {
	Query                 string
	OK                    bool
	ExpectedRows, GotRows int
	Mismatches            int      // cells (and rows of a wrong width) that do not match
	Details               []string // the first mismatches, "row 3 col revenue: got ... expected ... (why)"
	MaxTolFrac            float64  // the largest |got - expected| / tolerance over the decimal cells
	ExpectedCols, GotCols int
	ExpectedHeader        []string
}

// String is a one-line summary: "q1: match (4 rows)" or the first
// mismatch and the count.
func (r Report) String() string {
	if r.OK {
		return fmt.Sprintf("%s: match (%d rows, max |diff|/tolerance %.3g)", r.Query, r.GotRows, r.MaxTolFrac)
	}
	first := ""
	if len(r.Details) > 0 {
		first = r.Details[0]
	}
	return fmt.Sprintf("%s: MISMATCH (%d mismatches; %d rows, expected %d): %s", r.Query, r.Mismatches, r.GotRows, r.ExpectedRows, first)
}

var (
	intLiteral = regexp.MustCompile(`^-?[0-9]+$`)
	decLiteral = regexp.MustCompile(`^-?[0-9]+\.([0-9]+)$`)
)

// Compare checks a query result against an answer, row by row in order
// (the order of the query's ORDER BY): the same row count and column
// count, and every cell by what the expected cell looks like as printed:
//
//   - an integer literal ("1478493"): an integer value exactly equal (a
//     float only when it is that integer exactly), or a string spelling it;
//   - a decimal literal ("38273.129735", k digits after the point): a
//     number within max(10^-k, RelTol × |expected|) of it, i.e. one unit of
//     the last printed digit (0.01 for money), or a string spelling it;
//   - anything else: the cell's text exactly (strings as they are, a date
//     as YYYY-MM-DD); "\N" or "NULL" expects a null.
//
// A got cell is nil (null), an integer (int, int8 ... int64, uint8 ...
// uint64), a float (float32, float64), a string, a bool, an arrow.Date32
// or a time.Time (a date); RowsFromRecords converts Arrow results to that.
func Compare(ans *Answer, got [][]any, opts CompareOptions) Report {
	if opts.RelTol == 0 {
		opts.RelTol = DefaultRelTol
	}
	if opts.RelTol < 0 {
		opts.RelTol = 0
	}
	if opts.MaxMismatches == 0 {
		opts.MaxMismatches = 10
	}
	r := Report{Query: ans.Query, ExpectedRows: len(ans.Rows), GotRows: len(got), ExpectedCols: len(ans.Header), ExpectedHeader: ans.Header}
	if len(got) > 0 {
		r.GotCols = len(got[0])
	}
	note := func(format string, args ...any) {
		r.Mismatches++
		if len(r.Details) < opts.MaxMismatches {
			r.Details = append(r.Details, fmt.Sprintf(format, args...))
		}
	}
	if len(got) != len(ans.Rows) {
		note("%d rows, expected %d", len(got), len(ans.Rows))
	}
	for i := 0; i < min(len(got), len(ans.Rows)); i++ {
		want, have := ans.Rows[i], got[i]
		if len(have) != len(want) {
			note("row %d: %d columns, expected %d", i, len(have), len(want))
			continue
		}
		for j := range want {
			why, frac := cellMismatch(want[j], have[j], opts.RelTol)
			r.MaxTolFrac = max(r.MaxTolFrac, frac)
			if why != "" {
				note("row %d col %s: got %s expected %q (%s)", i, ans.Header[j], showCell(have[j]), want[j], why)
			}
		}
	}
	r.OK = r.Mismatches == 0
	return r
}

// cellMismatch says why a got cell does not match the expected text ("" if
// it does) and, for a decimal cell, |got - expected| / tolerance.
func cellMismatch(want string, got any, relTol float64) (string, float64) {
	if got == nil {
		if want == `\N` || want == "NULL" {
			return "", 0
		}
		return "null", 0
	}
	if want == `\N` || want == "NULL" {
		return "expected null", 0
	}
	if s, ok := got.(string); ok {
		if s == want {
			return "", 0
		}
		return "string differs", 0
	}
	switch {
	case intLiteral.MatchString(want):
		w, err := strconv.ParseInt(want, 10, 64)
		if err != nil {
			return "expected integer out of int64 range", 0
		}
		switch v := got.(type) {
		case float64:
			if v == math.Trunc(v) && math.Abs(v) < 1<<53 && int64(v) == w {
				return "", 0
			}
			return "integer differs", 0
		case float32:
			return cellMismatch(want, float64(v), relTol)
		}
		v, ok := asInt(got)
		if !ok {
			return fmt.Sprintf("a %T where an integer is expected", got), 0
		}
		if v != w {
			return "integer differs", 0
		}
		return "", 0
	case decLiteral.MatchString(want):
		w, err := strconv.ParseFloat(want, 64)
		if err != nil {
			return "bad decimal", 0
		}
		var v float64
		switch x := got.(type) {
		case float64:
			v = x
		case float32:
			v = float64(x)
		default:
			i, ok := asInt(got)
			if !ok {
				return fmt.Sprintf("a %T where a number is expected", got), 0
			}
			v = float64(i)
		}
		digits := len(decLiteral.FindStringSubmatch(want)[1])
		tol := max(math.Pow10(-digits), relTol*math.Abs(w))
		diff := math.Abs(v - w)
		frac := diff / tol
		if math.IsNaN(diff) || diff > tol*(1+1e-9) {
			return fmt.Sprintf("|diff| %.3g > tolerance %.3g", diff, tol), frac
		}
		return "", frac
	}
	var text string
	switch v := got.(type) {
	case arrow.Date32:
		text = v.FormattedString()
	case time.Time:
		text = v.Format(time.DateOnly)
	case bool:
		text = strconv.FormatBool(v)
	default:
		if i, ok := asInt(got); ok {
			text = strconv.FormatInt(i, 10)
		} else if f, ok := got.(float64); ok {
			text = strconv.FormatFloat(f, 'f', -1, 64)
		} else {
			return fmt.Sprintf("a %T where text is expected", got), 0
		}
	}
	if text != want {
		return "differs", 0
	}
	return "", 0
}

// asInt converts any Go integer type to int64 (a uint64 above MaxInt64 is
// not one).
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// showCell prints a got cell for a mismatch message.
func showCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case arrow.Date32:
		return x.FormattedString()
	case time.Time:
		return x.Format(time.DateOnly)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
