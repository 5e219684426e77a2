package exec

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func formatTable(t *testing.T) *plan.Table {
	return mustTable(t, "fmt", []plan.Field{{Name: "i", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}, {Name: "b", Type: plan.Bool}},
		ints(1, nil, -300, 4), floats(0.1, math.Inf(1), negZero, nanA), strs("plain", "with, comma", `"q"`, nil),
		[]plan.Value{plan.BoolValue(true), plan.BoolValue(false), plan.BoolValue(true), plan.BoolValue(false)})
}

func TestFormatCSV(t *testing.T) {
	res, err := Collect(context.Background(), plan.Scan(formatTable(t)).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	var b bytes.Buffer
	if err := FormatCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "i,f,s,b\n1,0.1,plain,true\n,Inf,\"with, comma\",false\n-300,-0,\"\"\"q\"\"\",true\n4,NaN,,false\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{{1e21, "1e+21"}, {1.0, "1"}, {math.Inf(-1), "-Inf"}, {123456789.125, "1.23456789125e+08"}} {
		if got := FormatFloatShortest(tc.f); got != tc.want {
			t.Errorf("FormatFloatShortest(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestFormatTable(t *testing.T) {
	res, err := Collect(context.Background(), plan.Scan(formatTable(t)).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	var b bytes.Buffer
	if err := FormatTable(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"i      | f        | s           | b\n" +
		"int64? | float64? | string?     | bool\n" +
		"-------+----------+-------------+------\n" +
		"     1 |      0.1 | plain       | true\n" +
		"  null |      Inf | with, comma | false\n" +
		"  -300 |       -0 | \"q\"         | true\n" +
		"     4 |      NaN | null        | false\n" +
		"(4 rows)\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestResultAccess(t *testing.T) {
	res, err := Collect(context.Background(), plan.Scan(formatTable(t)).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	row, err := res.Row(2)
	if err != nil {
		t.Fatal(err)
	}
	if !sameValues(row, []plan.Value{plan.Int64Value(-300), plan.Float64Value(negZero), plan.StringValue(`"q"`), plan.BoolValue(true)}) {
		t.Errorf("row 2 = %v", row)
	}
	if _, err := res.Value(9, 0); err == nil {
		t.Error("Value outside the result succeeded")
	}
	rows, err := res.Rows()
	if err != nil || len(rows) != 4 {
		t.Errorf("Rows: %d rows, %v", len(rows), err)
	}
}
