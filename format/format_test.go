package format

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

var negZero = math.Copysign(0, -1)

// collect returns the result of scanning one table built from columns,
// released when the test ends; the allocator must be back at zero.
func collect(t *testing.T, fields []plan.Field, cols ...[]plan.Value) *exec.Result {
	t.Helper()
	tab, err := plan.NewTable("t", plan.MustSchema(fields...), cols)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	res, err := exec.Collect(context.Background(), plan.Scan(tab).Node(), exec.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		res.Release()
		mem.AssertSize(t, 0)
	})
	return res
}

func null(typ plan.Type) plan.Value { return plan.NullValue(typ) }

// mixed is a small table of every type with the cases each format must
// spell: null, the float specials, a string that needs quoting.
func mixed(t *testing.T) *exec.Result {
	return collect(t, []plan.Field{{Name: "i", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}, {Name: "b", Type: plan.Bool}},
		[]plan.Value{plan.Int64Value(1), null(plan.Int64), plan.Int64Value(-300), plan.Int64Value(4)},
		[]plan.Value{plan.Float64Value(0.1), plan.Float64Value(math.Inf(1)), plan.Float64Value(negZero), plan.Float64Value(math.NaN())},
		[]plan.Value{plan.StringValue("plain"), plan.StringValue("with, comma"), plan.StringValue(`"q"`), null(plan.String)},
		[]plan.Value{plan.BoolValue(true), plan.BoolValue(false), plan.BoolValue(true), plan.BoolValue(false)})
}

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{negZero, "-0"}, {0, "0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Inf"}, {math.Inf(-1), "-Inf"},
		{1e21, "1e+21"}, {1.0, "1"}, {0.1, "0.1"}, {123456789.125, "1.23456789125e+08"}, {5e-324, "5e-324"},
	} {
		if got := Float(tc.f); got != tc.want {
			t.Errorf("Float(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, mixed(t)); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"i      | f        | s           | b\n" +
		"int64? | float64? | string?     | bool\n" +
		"-------+----------+-------------+------\n" +
		"     1 |      0.1 | plain       | true\n" +
		"  null |      Inf | with, comma | false\n" +
		"  -300 |       -0 | \"\\\"q\\\"\"     | true\n" +
		"     4 |      NaN | null        | false\n" +
		"(4 rows)\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A table printed on a terminal must not carry control sequences, in the
// values or in the names, and a name with a newline must not break the
// header into two lines.
func TestTableEscapesControlCharacters(t *testing.T) {
	res := collect(t, []plan.Field{{Name: "evil\nname", Type: plan.String}, {Name: "\x1b[2Jx", Type: plan.String}},
		[]plan.Value{plan.StringValue("\x1b[31mred\x1b[0m"), plan.StringValue("a\u202eb"), plan.StringValue("null"),
			plan.StringValue(" pad"), plan.StringValue("\xff"), plan.StringValue("ok é")},
		[]plan.Value{plan.StringValue("\x9b31m"), plan.StringValue("\u009b"), plan.StringValue(""),
			plan.StringValue("tab\t"), plan.StringValue("\r"), plan.StringValue("fine")})
	var b bytes.Buffer
	if err := Table(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, r := range out {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e') {
			t.Fatalf("table output holds control character %U at byte %d:\n%q", r, i, out)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3+6+1 {
		t.Fatalf("table has %d lines, want 10 (header, types, rule, 6 rows, count):\n%s", len(lines), out)
	}
	for _, want := range []string{`"evil\nname"`, `"\x1b[2Jx"`, `"\x1b[31mred\x1b[0m"`, `"a\u202eb"`, `"null"`,
		`" pad"`, `"\xff"`, "ok é", `"\x9b31m"`, `"\u009b"`, `"tab\t"`, `"\r"`} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %s:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(lines[0], `"evil\nname"`) {
		t.Errorf("header = %q", lines[0])
	}
}

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, mixed(t)); err != nil {
		t.Fatal(err)
	}
	want := "i,f,s,b\n1,0.1,plain,true\n,Inf,\"with, comma\",false\n-300,-0,\"\"\"q\"\"\",true\n4,NaN,,false\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A null is an empty field and the empty string a quoted one, so a CSV
// reader tells them apart (encoding/csv reports both as "", so the test
// reads the raw fields).
func TestCSVNullAndEmptyString(t *testing.T) {
	res := collect(t, []plan.Field{{Name: "s", Type: plan.String, Nullable: true}, {Name: "k", Type: plan.Int64}},
		[]plan.Value{null(plan.String), plan.StringValue(""), plan.StringValue(" lead"), plan.StringValue(`\.`), plan.StringValue("a\nb")},
		[]plan.Value{plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3), plan.Int64Value(4), plan.Int64Value(5)})
	var b bytes.Buffer
	if err := CSV(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "s,k\n,1\n\"\",2\n\" lead\",3\n\"\\.\",4\n\"a\nb\",5\n"
	if b.String() != want {
		t.Errorf("csv:\n%q\nwant:\n%q", b.String(), want)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatalf("the output is not CSV: %v", err)
	}
	if len(recs) != 6 || recs[3][0] != " lead" || recs[5][0] != "a\nb" {
		t.Errorf("read back: %q", recs)
	}
}

// wantCounters is the "counters" object's expected body: every counter of
// the registry, in its order, with its value (the rules add counters, so
// the list comes from them; the test pins the encoding).
func wantCounters(c rules.Counters) string {
	var parts []string
	for _, k := range c.List() {
		parts = append(parts, fmt.Sprintf("%q:%d", k.Name, k.Value))
	}
	return strings.Join(parts, ",")
}

func TestJSON(t *testing.T) {
	const p53 = 1 << 53
	res := collect(t, []plan.Field{{Name: "n", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64}, {Name: "s", Type: plan.String}},
		[]plan.Value{plan.Int64Value(p53), plan.Int64Value(p53 + 1), plan.Int64Value(-p53), plan.Int64Value(-p53 - 1),
			plan.Int64Value(math.MaxInt64), plan.Int64Value(math.MinInt64), null(plan.Int64)},
		[]plan.Value{plan.Float64Value(1.5), plan.Float64Value(negZero), plan.Float64Value(math.NaN()), plan.Float64Value(math.Inf(-1)),
			plan.Float64Value(1e300), plan.Float64Value(2), plan.Float64Value(0)},
		[]plan.Value{plan.StringValue("<&>"), plan.StringValue("\x1b"), plan.StringValue(""), plan.StringValue("é"),
			plan.StringValue("\u2028"), plan.StringValue(`"`), plan.StringValue("x")})
	var b bytes.Buffer
	var counters rules.Counters
	if err := counters.Set("pushedFilters", 2); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&b, res, &counters); err != nil {
		t.Fatal(err)
	}
	want := `{"schema":[{"name":"n","type":"int64","nullable":true},{"name":"f","type":"float64","nullable":false},{"name":"s","type":"string","nullable":false}],` +
		`"rows":[[9007199254740992,1.5,"<&>"],["9007199254740993","-0","\u001b"],[-9007199254740992,"NaN",""],["-9007199254740993","-Inf","é"],` +
		`["9223372036854775807",1e+300,"\u2028"],["-9223372036854775808",2,"\""],[null,0,"x"]],"error":null,` +
		`"counters":{` + wantCounters(counters) + `}}` + "\n"
	if b.String() != want || !strings.Contains(want, `"counters":{"pushedFilters":2,"prunedProjections":0,`) {
		t.Errorf("json:\n%s\nwant:\n%s", b.String(), want)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	b.Reset()
	if err := JSON(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "counters") {
		t.Errorf("nil counters are written: %s", b.String())
	}
}

func TestJSONError(t *testing.T) {
	var b bytes.Buffer
	cause := &plan.Error{Kind: plan.DivideByZero, Expr: "a / b", Row: 3, Msg: "division by zero"}
	if err := JSONError(&b, plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}), nil, cause); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema []Field
		Rows   *[][]any
		Error  *Error
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if got.Rows != nil || got.Error == nil || got.Error.Kind != "divide_by_zero" || got.Error.Row == nil || *got.Error.Row != 3 || len(got.Schema) != 1 {
		t.Errorf("error object: %s", b.String())
	}
}

// Every accessor of a released result is an error, and so is printing it.
func TestReleasedResult(t *testing.T) {
	res := mixed(t)
	res.Release()
	var b bytes.Buffer
	for name, f := range map[string]func() error{
		"table": func() error { return Table(&b, res) },
		"csv":   func() error { return CSV(&b, res) },
		"json":  func() error { return JSON(&b, res, nil) },
	} {
		if err := f(); err == nil {
			t.Errorf("%s of a released result succeeded: %q", name, b.String())
		}
	}
}
