package planjson

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestEncodeValue(t *testing.T) {
	tests := []struct {
		v    plan.Value
		want string
	}{
		{plan.Int64Value(0), `0`},
		{plan.Int64Value(1 << 53), `9007199254740992`},
		{plan.Int64Value(-(1 << 53)), `-9007199254740992`},
		{plan.Int64Value(1<<53 + 1), `"9007199254740993"`},
		{plan.Int64Value(-(1<<53 + 1)), `"-9007199254740993"`},
		{plan.Int64Value(math.MinInt64), `"-9223372036854775808"`},
		{plan.Int64Value(math.MaxInt64), `"9223372036854775807"`},
		{plan.Int32Value(math.MinInt32), `-2147483648`},
		{plan.Float64Value(1), `1.0`},
		{plan.Float64Value(0), `0.0`},
		{plan.Float64Value(math.Copysign(0, -1)), `"-0"`},
		{plan.Float64Value(0.1), `0.1`},
		{plan.Float64Value(1e300), `1e+300`},
		{plan.Float64Value(-2.5e-8), `-2.5e-08`},
		{plan.Float64Value(5e-324), `5e-324`},
		{plan.Float64Value(math.MaxFloat64), `1.7976931348623157e+308`},
		{plan.Float64Value(math.NaN()), `"NaN"`},
		{plan.Float64Value(math.Float64frombits(0xfff0000000000123)), `"NaN"`},
		{plan.Float64Value(math.Inf(1)), `"Inf"`},
		{plan.Float64Value(math.Inf(-1)), `"-Inf"`},
		{plan.StringValue("a\"b\\c\n\t\x01\u2028é"), `"a\"b\\c\n\t\u0001\u2028é"`},
		{plan.BoolValue(true), `true`},
		{plan.NullValue(plan.Float64), `null`},
	}
	for _, tt := range tests {
		jv, err := encodeValue(tt.v)
		if err != nil {
			t.Fatalf("%v: %v", tt.v, err)
		}
		var b bytes.Buffer
		printCompact(&b, jv)
		if b.String() != tt.want {
			t.Errorf("%v: wrote %s, want %s", tt.v, b.String(), tt.want)
		}
		// And it reads back (NaN as NaN).
		back, perr := parseJSON(b.Bytes())
		if perr != nil {
			t.Fatalf("%s: %v", b.String(), perr)
		}
		got, msg := decodeValue(back, tt.v.Type())
		if msg != "" || !sameValue(got, tt.v) {
			t.Errorf("%s read back as %v (%s), want %v", b.String(), got, msg, tt.v)
		}
	}
	for _, bad := range []plan.Value{plan.StringValue("\xff"), plan.NullValue(plan.Invalid), {}} {
		if _, err := encodeValue(bad); err == nil {
			t.Errorf("%v (%q): encoded, want an error", bad, bad.Str())
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	tab := windowTable(t)
	other := windowTable(t)
	scan := plan.Scan(tab)
	docOf := func(n plan.Node) *Document {
		return &Document{Tables: map[string]*TableSpec{"w": {Inline: tab}}, Plan: n}
	}
	tests := []struct {
		name string
		doc  *Document
		want string
	}{
		{"nil document", nil, "nil document"},
		{"nil plan", docOf(nil), "encode plan: nil plan node"},
		{"scan of a table not in the document", docOf(plan.Scan(other).Node()),
			`encode plan.table: the scan's source "w" is not one of the document's tables`},
		{"nil input", docOf(&plan.FilterNode{Predicates: []plan.Expr{&plan.Column{Name: "a"}}}), "encode plan.input: nil plan node"},
		{"typed nil input", docOf(&plan.LimitNode{Input: (*plan.FilterNode)(nil), N: 1}), "encode plan.input: nil plan node"},
		{"nil expression", docOf(&plan.ProjectNode{Input: scan.Node(), Exprs: []plan.Expr{nil}}), "encode plan.exprs[0]: nil expression"},
		{"invalid literal type", docOf(scan.Select(plan.Lit(struct{}{})).Node()), "encode plan.exprs[0].type: a literal of type invalid cannot be written"},
		{"invalid function", docOf(scan.Select(plan.Wrap(&plan.Call{Fn: plan.FuncInvalid})).Node()), "encode plan.exprs[0].fn: invalid function 0"},
		{"udf without declaration", docOf(scan.Select(plan.Wrap(&plan.UDFCall{})).Node()), "encode plan.exprs[0].udf: udf call without a declaration"},
		{"non-UTF-8 column name", docOf(scan.Select(plan.Col("\xfe")).Node()), "encode plan.exprs[0].col: column name"},
		{"non-UTF-8 string literal", docOf(scan.Filter(plan.Col("k").Eq(plan.Lit("\xfe"))).Node()),
			"encode plan.predicates[0].args[1].lit: string value"},
		{"invalid predicate support", docOf(&plan.ScanNode{Source: tab, SourceSchema: tab.Schema(),
			Pushed: []plan.PushedPredicate{{Expr: plan.Col("a").IsNull().Expr(), Support: plan.PredicateSupport(7)}}}),
			"encode plan.pushed[0].support: invalid predicate support 7"},
		{"extension without declaration", docOf(&plan.ExtensionNode{Inputs: []plan.Node{scan.Node()}}), "extension node without a declaration"},
		{"table without content", &Document{Tables: map[string]*TableSpec{"w": {}}, Plan: scan.Node()}, `encode tables.w: a table needs Inline or Parquet`},
		{"unknown expected error kind", &Document{Tables: map[string]*TableSpec{"w": {Inline: tab}}, Plan: scan.Node(),
			Expect: &Expect{Error: ptr(plan.ErrorKind("oops"))}}, `unknown error kind "oops"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Encode(tt.doc)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v (%s), want an error containing %q", err, out, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestEncodePlanAndNewDocument(t *testing.T) {
	tab := windowTable(t)
	n := plan.Scan(tab).Filter(plan.Col("a").Gt(plan.Lit(1))).Node()
	out, err := EncodePlan(n)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "op": "filter",
  "predicates": [{"fn": "gt", "args": [{"col": "a"}, {"lit": 1, "type": "int64"}]}],
  "input": {"op": "scan", "table": "w"}
}
`
	if string(out) != want {
		t.Fatalf("EncodePlan:\n%s\nwant\n%s", out, want)
	}
	doc, err := NewDocument(plan.Scan(tab).Union(plan.Scan(tab)).Node())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Tables) != 1 || doc.Tables["w"].Inline != tab {
		t.Fatalf("tables %v", doc.Tables)
	}
	if _, err := NewDocument(plan.Scan(tab).Union(plan.Scan(windowTable(t))).Node()); err == nil {
		t.Fatal("two tables named w: no error")
	}
	if _, err := NewDocument(plan.Scan(&fakeSource{name: "f"}).Node()); err == nil {
		t.Fatal("a non-Table source: no error")
	}
}

// goldenDoc exercises every node kind, every expression form, the value
// encodings and the optimizer-output scan fields.
func goldenDoc(t *testing.T) *Document {
	t.Helper()
	schema := plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64},
		plan.Field{Name: "small", Type: plan.Int32, Nullable: true},
		plan.Field{Name: "x", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "name", Type: plan.String, Nullable: true},
		plan.Field{Name: "ok", Type: plan.Bool, Nullable: true},
	)
	nan := math.Float64frombits(0x7ff8000000000001)
	tab, err := plan.NewTable("t", schema, [][]plan.Value{
		{plan.Int64Value(1), plan.Int64Value(math.MinInt64), plan.Int64Value(math.MaxInt64), plan.Int64Value(-1)},
		{plan.Int32Value(0), plan.NullValue(plan.Int32), plan.Int32Value(math.MaxInt32), plan.Int32Value(math.MinInt32)},
		{plan.Float64Value(nan), plan.Float64Value(math.Copysign(0, -1)), plan.Float64Value(math.Inf(1)), plan.Float64Value(0.1)},
		{plan.StringValue(""), plan.StringValue("naïve \"quoted\""), plan.NullValue(plan.String), plan.StringValue("z")},
		{plan.BoolValue(true), plan.BoolValue(false), plan.NullValue(plan.Bool), plan.BoolValue(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	udfs := plan.BuiltinUDFs()
	inc, _ := udfs.Lookup("inc_wrap")
	id, x, name := plan.Col("id"), plan.Col("x"), plan.Col("name")
	scan := &plan.ScanNode{Source: tab, SourceSchema: schema, Projected: true, Columns: []string{"id", "x", "name", "ok"},
		Pushed: []plan.PushedPredicate{{Expr: id.Gt(plan.Lit(0)).Expr(), Support: plan.Inexact}}}
	left := plan.FromNode(scan).
		Filter(id.Gt(plan.Lit(0)), plan.Col("ok").Not().Or(plan.Null(plan.Bool))).
		WithColumns(x.Div(plan.Lit(2.0)).Alias("half"), plan.CallUDF(inc, id).Alias("next"),
			x.Sum().Over(name).Alias("total"), x.Cast(plan.Int64).Alias("xi"), x.TryCast(plan.Int32).Alias("xs")).
		Sort(plan.SortKey{Expr: x.Expr(), Desc: true, NullsLast: true}, plan.Asc(id)).
		Slice(1, 2).
		Head(3)
	right := plan.Scan(tab).Distinct("name").Extension(testops.Identity)
	joined := left.Join(right, plan.LeftJoin, []plan.E{id}, []plan.E{id.Add(plan.Lit(int64(1) << 60))}).WithSuffix("_r")
	agg := joined.GroupBy(name).Agg(plan.Len(), id.Max().Alias("top"), plan.Coalesce(x.Mean(), plan.Lit(math.Inf(-1))).Alias("m"))
	root := agg.Union(plan.Scan(tab).CrossJoin(plan.Scan(tab)).Select(name, plan.Concat(name, plan.Lit("!")).StrLen().Alias("n")).
		GroupBy(name).Agg(plan.Col("n").Sum().Alias("top"), plan.Col("n").First().Cast(plan.Float64).Alias("m")).
		Select(plan.Lit(int32(5)).Alias("len"), name, plan.Col("top"), plan.Col("m")))
	kind := plan.DivideByZero
	return &Document{
		Description: "every node and expression",
		Tables:      map[string]*TableSpec{"t": {Inline: tab}, "big": {Parquet: "data/big.parquet"}},
		Plan:        root.Node(),
		Flags:       map[string]bool{"predicate_pushdown": true, "projection_pruning": false},
		Expect:      &Expect{Counters: map[string]int64{"pushedFilters": 1, "sharedSubplans": 0}, Error: &kind},
	}
}

func TestGolden(t *testing.T) {
	cases := map[string]*Document{"all_nodes": goldenDoc(t)}
	for _, file := range exampleFiles(t) {
		doc, err := DecodeFile(file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cases["example_"+strings.TrimSuffix(filepath.Base(file), ".json")] = doc
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := Encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Fatalf("Encode differs from %s (go test -update rewrites it):\n%s", golden, out)
			}
		})
	}
}
