package tpch

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const fixture = `l_returnflag|sum_qty|avg_disc|count_order|o_orderdate|s_comment
A|37734107.00|0.049985|1478493|1994-04-07| special deposits
N|991417.00|0.050093|38854|1997-02-12|nts doze 
`

func TestParseAnswer(t *testing.T) {
	a, err := ParseAnswer("qx", strings.NewReader(fixture))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Header, ","); got != "l_returnflag,sum_qty,avg_disc,count_order,o_orderdate,s_comment" {
		t.Errorf("header %s", got)
	}
	if len(a.Rows) != 2 || a.Rows[0][5] != " special deposits" || a.Rows[1][5] != "nts doze " {
		t.Errorf("rows %q", a.Rows)
	}
	bad := []struct{ name, text, want string }{
		{"empty file", "", "empty answer file"},
		{"empty header", "\nA|1\n", "line 1: empty header"},
		{"short row", "a|b\n1|2\n3\n", "line 3: 1 cells, the header has 2"},
		{"long row", "a|b\n1|2|3\n", "line 2: 3 cells, the header has 2"},
		{"empty line", "a\n1\n\n2\n", "line 3: empty line"},
	}
	for _, tc := range bad {
		_, err := ParseAnswer("qx", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadAnswer(t.TempDir(), "q1"); err == nil || !strings.Contains(err.Error(), "answer of q1") {
		t.Errorf("missing file: %v", err)
	}
}

func day(s string) arrow.Date32 {
	tm, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return arrow.Date32FromTime(tm)
}

func TestCompare(t *testing.T) {
	ans, err := ParseAnswer("qx", strings.NewReader(fixture))
	if err != nil {
		t.Fatal(err)
	}
	good := func() [][]any {
		return [][]any{
			{"A", 37734107.0, 0.0499853, int64(1478493), day("1994-04-07"), " special deposits"},
			{"N", 991417.004, 0.050093, int32(38854), time.Date(1997, 2, 12, 0, 0, 0, 0, time.UTC), "nts doze "},
		}
	}
	if r := Compare(ans, good(), CompareOptions{}); !r.OK || r.Mismatches != 0 {
		t.Fatalf("matching result reported %v", r)
	} else if r.MaxTolFrac <= 0 || r.MaxTolFrac > 1 {
		t.Errorf("MaxTolFrac %v, want in (0, 1]", r.MaxTolFrac)
	}
	tests := []struct {
		name   string
		change func([][]any) [][]any
		want   string
	}{
		{"money off by two cents", func(r [][]any) [][]any { r[0][1] = 37734107.02; return r }, "row 0 col sum_qty: got 3.773410702e+07 expected \"37734107.00\" (|diff| 0.02 > tolerance 0.01)"},
		{"average off by two units", func(r [][]any) [][]any { r[1][2] = 0.050095; return r }, "row 1 col avg_disc"},
		{"count off by one", func(r [][]any) [][]any { r[0][3] = int64(1478494); return r }, "row 0 col count_order: got 1478494 expected \"1478493\" (integer differs)"},
		{"count as an inexact float", func(r [][]any) [][]any { r[0][3] = 1478493.5; return r }, "integer differs"},
		{"string", func(r [][]any) [][]any { r[1][0] = "R"; return r }, "row 1 col l_returnflag: got \"R\""},
		{"trimmed comment", func(r [][]any) [][]any { r[0][5] = "special deposits"; return r }, "col s_comment"},
		{"date", func(r [][]any) [][]any { r[0][4] = day("1994-04-08"); return r }, "row 0 col o_orderdate: got 1994-04-08"},
		{"null", func(r [][]any) [][]any { r[0][2] = nil; return r }, "(null)"},
		{"text where a number is expected", func(r [][]any) [][]any { r[0][1] = true; return r }, "a bool where a number is expected"},
		{"rows swapped", func(r [][]any) [][]any { r[0], r[1] = r[1], r[0]; return r }, "row 0 col l_returnflag"},
		{"missing row", func(r [][]any) [][]any { return r[:1] }, "1 rows, expected 2"},
		{"extra row", func(r [][]any) [][]any { return append(r, r[0]) }, "3 rows, expected 2"},
		{"missing column", func(r [][]any) [][]any { r[1] = r[1][:5]; return r }, "row 1: 5 columns, expected 6"},
	}
	for _, tc := range tests {
		r := Compare(ans, tc.change(good()), CompareOptions{})
		if r.OK || r.Mismatches == 0 || len(r.Details) == 0 || !strings.Contains(r.Details[0], tc.want) {
			t.Errorf("%s: %+v, want a mismatch %q", tc.name, r, tc.want)
		}
		if !strings.Contains(r.String(), "MISMATCH") {
			t.Errorf("%s: String() = %q", tc.name, r.String())
		}
	}
	// MaxMismatches caps the details, not the count.
	all := good()
	for _, row := range all {
		row[0] = "x"
		row[3] = int64(0)
	}
	if r := Compare(ans, all, CompareOptions{MaxMismatches: 3}); r.Mismatches != 4 || len(r.Details) != 3 {
		t.Errorf("mismatches %d, details %d; want 4 and 3", r.Mismatches, len(r.Details))
	}
}

// TestCompareTolerance pins the numeric rule at its edges: one unit of the
// last printed digit, and DefaultRelTol for large totals.
func TestCompareTolerance(t *testing.T) {
	tests := []struct {
		want string
		got  any
		opts CompareOptions
		ok   bool
	}{
		{"1.00", 1.01, CompareOptions{}, true},
		{"1.00", 0.99, CompareOptions{}, true},
		{"1.00", 1.0101, CompareOptions{}, false},
		{"0.04039139", 0.0403914, CompareOptions{}, true},
		{"0.04039139", 0.0403916, CompareOptions{}, false},
		{"55909065222.827692", 55909065222.827692 + 0.05, CompareOptions{}, true},
		{"55909065222.827692", 55909065222.827692 + 0.1, CompareOptions{}, false},
		{"55909065222.827692", 55909065222.827692 + 0.05, CompareOptions{RelTol: -1}, false},
		{"55909065222.827692", 55909065222.827692 + 50, CompareOptions{RelTol: 1e-9}, true},
		{"25.00", int64(25), CompareOptions{}, true},
		{"25.00", "25.00", CompareOptions{}, true},
		{"25", "25", CompareOptions{}, true},
		{"25", 25.0, CompareOptions{}, true},
		{"25", uint64(25), CompareOptions{}, true},
		{"1995", int64(1995), CompareOptions{}, true},
		{"1995", int64(1996), CompareOptions{}, false},
		{`\N`, nil, CompareOptions{}, true},
		{`\N`, int64(0), CompareOptions{}, false},
		{"true", true, CompareOptions{}, true},
	}
	ans := func(cell string) *Answer {
		return &Answer{Query: "qt", Header: []string{"c"}, Rows: [][]string{{cell}}}
	}
	for _, tc := range tests {
		r := Compare(ans(tc.want), [][]any{{tc.got}}, tc.opts)
		if r.OK != tc.ok {
			t.Errorf("expected %s, got %v (%T), %+v: ok %v, want %v (%v)", tc.want, tc.got, tc.got, tc.opts, r.OK, tc.ok, r.Details)
		}
	}
}

func TestRowsFromRecords(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{7, 0}, []bool{true, false})
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 2}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	b.Field(3).(*array.Date32Builder).AppendValues([]arrow.Date32{day("1998-08-15"), day("1970-01-01")}, nil)
	b.Field(4).(*array.Int32Builder).AppendValues([]int32{3, 4}, nil)
	b.Field(5).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rows, err := RowsFromRecords([]arrow.RecordBatch{rec, rec})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := ParseAnswer("qr", strings.NewReader("k|f|s|d|i|b\n7|1.50|x|1998-08-15|3|true\n\\N|2.00|y|1970-01-01|4|false\n7|1.50|x|1998-08-15|3|true\n\\N|2.00|y|1970-01-01|4|false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(ans, rows, CompareOptions{}); !r.OK {
		t.Errorf("%v\nrows %v", r, rows)
	}
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
	defer lb.Release()
	lb.AppendNull()
	list := lb.NewArray()
	defer list.Release()
	bad := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: list.DataType(), Nullable: true}}, nil), []arrow.Array{list}, 1)
	defer bad.Release()
	if _, err := RowsFromRecords([]arrow.RecordBatch{bad}); err == nil || !strings.Contains(err.Error(), "column l") {
		t.Errorf("list column: %v", err)
	}
}

// answerDir is go-tpc's answers directory, or a skip when the module is
// not in the module cache (it is whenever dfopt was built with modules).
func answerDir(t *testing.T) string {
	t.Helper()
	dir := AnswersDir()
	if _, err := os.Stat(filepath.Join(dir, "q1.out")); err != nil {
		t.Skipf("go-tpc's answers are not at %s: %v", dir, err)
	}
	return dir
}

// TestGoTPCAnswers parses the 22 answer files and checks that each matches
// itself read back as typed values (integers as int64, decimals as
// float64, the rest as strings), and not once a decimal is moved by two
// units of its last digit.
func TestGoTPCAnswers(t *testing.T) {
	dir := answerDir(t)
	wantRows := map[string]int{"q1": 4, "q2": 100, "q3": 10, "q6": 1, "q13": 42, "q18": 9, "q22": 4}
	for q := 1; q <= 22; q++ {
		name := "q" + strconv.Itoa(q)
		a, err := ReadAnswer(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := wantRows[name]; ok && len(a.Rows) != n {
			t.Errorf("%s: %d rows, want %d", name, len(a.Rows), n)
		}
		typed := make([][]any, len(a.Rows))
		mi, mj := -1, -1 // the first decimal cell
		for i, row := range a.Rows {
			typed[i] = make([]any, len(row))
			for j, cell := range row {
				switch {
				case intLiteral.MatchString(cell):
					typed[i][j], _ = strconv.ParseInt(cell, 10, 64)
				case decLiteral.MatchString(cell):
					typed[i][j], _ = strconv.ParseFloat(cell, 64)
					if mi < 0 {
						mi, mj = i, j
					}
				default:
					typed[i][j] = cell
				}
			}
		}
		if r := Compare(a, typed, CompareOptions{}); !r.OK {
			t.Errorf("%s does not match itself: %v", name, r)
		}
		if mi >= 0 {
			changed := cloneRows(typed)
			f := changed[mi][mj].(float64)
			unit := math.Pow10(-len(decLiteral.FindStringSubmatch(a.Rows[mi][mj])[1]))
			changed[mi][mj] = f + 2*max(unit, DefaultRelTol*math.Abs(f))
			if r := Compare(a, changed, CompareOptions{}); r.OK || r.Mismatches != 1 {
				t.Errorf("%s: a decimal moved by two tolerances: %v", name, r)
			}
		}
	}
}

func cloneRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = append([]any{}, r...)
	}
	return out
}

// TestGoTPCParams checks every written parameter against go-tpc's query
// text (tpch/query.go in the module cache) and every derived one by date
// arithmetic.
func TestGoTPCParams(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(ModuleDir(), "tpch", "query.go"))
	if err != nil {
		t.Skipf("go-tpc's query.go: %v", err)
	}
	queryRE := regexp.MustCompile("(?s)\\bq([0-9]+) = `(.*?)`")
	texts := map[string]string{}
	for _, m := range queryRE.FindAllStringSubmatch(string(src), -1) {
		texts["q"+m[1]] = m[2]
	}
	if len(texts) != 22 {
		t.Fatalf("found %d queries in query.go, want 22", len(texts))
	}
	if len(GoTPCParams) != 22 {
		t.Errorf("%d queries in GoTPCParams, want 22", len(GoTPCParams))
	}
	addDate := func(d string, y, m, days int) string {
		tm, err := time.Parse(time.DateOnly, d)
		if err != nil {
			t.Fatalf("date %q: %v", d, err)
		}
		return tm.AddDate(y, m, days).Format(time.DateOnly)
	}
	for q, params := range GoTPCParams {
		text, ok := texts[q]
		if !ok {
			t.Errorf("%s: no such query in query.go", q)
			continue
		}
		for _, p := range params {
			if p.Derived != "" {
				continue
			}
			for _, v := range strings.Split(p.Value, ", ") {
				if !strings.Contains(text, v) {
					t.Errorf("%s: parameter %s = %s does not occur in go-tpc's query", q, p.Name, v)
				}
			}
		}
		for _, p := range params {
			var want string
			switch {
			case p.Derived == "":
				continue
			case q == "q1" && p.Name == "cutoff":
				delta, _ := strconv.Atoi(ParamValue(q, "delta"))
				want = addDate("1998-12-01", 0, 0, -delta)
			case p.Name == "end" && strings.HasSuffix(p.Derived, "1 year"):
				want = addDate(ParamValue(q, "date"), 1, 0, 0)
			case p.Name == "end" && strings.HasSuffix(p.Derived, "3 months"):
				want = addDate(ParamValue(q, "date"), 0, 3, 0)
			case p.Name == "end" && strings.HasSuffix(p.Derived, "1 month"):
				want = addDate(ParamValue(q, "date"), 0, 1, 0)
			case p.Name == "dlo" || p.Name == "dhi":
				cents, _ := strconv.Atoi(strings.TrimPrefix(ParamValue(q, "discount"), "0."))
				if p.Name == "dlo" {
					cents--
				} else {
					cents++
				}
				want = "0." + strconv.Itoa(100 + cents)[1:]
			default:
				t.Errorf("%s: derived parameter %s (%s) is not checked", q, p.Name, p.Derived)
				continue
			}
			if p.Value != want {
				t.Errorf("%s: %s = %s, want %s (%s)", q, p.Name, p.Value, want, p.Derived)
			}
		}
	}
	if !strings.Contains(texts["q1"], "interval 108 day") {
		t.Errorf("q1's delta is not 108 days in query.go")
	}
}
