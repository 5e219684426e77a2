package planjson

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// baseTables is a table with one column of each type, for plan snippets.
const baseTables = `{"t": {"columns": [
  {"name": "a", "type": "int64", "values": [1, 2]},
  {"name": "b", "type": "float64", "values": [1.5, "NaN"]},
  {"name": "s", "type": "string", "values": ["x", null]},
  {"name": "p", "type": "bool", "values": [true, false]},
  {"name": "i", "type": "int32", "values": [3, 4]}
]}}`

// withPlan is a whole document around a plan snippet.
func withPlan(planJSON string) string {
	return `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + planJSON + `}`
}

// withTables is a whole document around a tables snippet, scanning t.
func withTables(tablesJSON string) string {
	return `{"format": "dfopt-plan/1", "tables": ` + tablesJSON + `, "plan": {"op": "scan", "table": "t"}}`
}

const scanT = `{"op": "scan", "table": "t"}`

func filterT(preds string) string {
	return `{"op": "filter", "input": ` + scanT + `, "predicates": [` + preds + `]}`
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // substrings of the error, in order
	}{
		{"empty input", ``, []string{"invalid JSON: empty input"}},
		{"malformed", "{\"format\": \"dfopt-plan/1\",\n  \"tables\": }",
			[]string{"invalid JSON: invalid character '}' looking for beginning of value at byte 39 (line 2, column 13)"}},
		{"bad literal", `{"format": tru}`, []string{"invalid JSON: invalid character '}' in literal true (expecting 'e') at byte 14"}},
		{"bad escape", `{"format": "\x"}`, []string{"invalid character 'x' in string escape code"}},
		{"truncated", `{"format": "dfopt-plan/1"`, []string{"invalid JSON: unexpected end of input"}},
		{"trailing data", `{"format": "dfopt-plan/1"} {}`, []string{"unexpected data after the top-level object"}},
		{"not an object", `[1, 2]`, []string{"a plan file is a JSON object, got an array"}},
		{"wrong version", `{"format": "dfopt-plan/2", "tables": {}, "plan": {}}`,
			[]string{`format: unsupported format "dfopt-plan/2"; this build reads "dfopt-plan/1"`}},
		{"version not a string", `{"format": 1}`, []string{`format: unsupported format a number`}},
		{"missing format", `{"tables": {}, "plan": {}}`, []string{`missing required field "format" in the plan file`}},
		{"missing plan", `{"format": "dfopt-plan/1", "tables": {}}`, []string{`missing required field "plan"`}},
		{"unknown top-level field", `{"format": "dfopt-plan/1", "tables": {}, "plan": {}, "flag": {}}`,
			[]string{`unknown field "flag" in the plan file`, `did you mean "flags"?`}},
		{"duplicate key", `{"format": "dfopt-plan/1", "tables": {}, "plan": {}, "plan": {}}`,
			[]string{`plan: duplicate key "plan"`}},
		{"unknown op", withPlan(`{"op": "project", "exprs": [], "input": {"op": "fliter"}}`),
			[]string{`plan.input: unknown op "fliter"`, `did you mean "filter"?`}},
		{"op not a string", withPlan(`{"op": 3}`), []string{`plan.op: expected a string, got a number`}},
		{"missing op", withPlan(`{"input": {}}`), []string{`plan: missing required field "op" in a plan node`}},
		{"expression where a node belongs", withPlan(`{"col": "a"}`), []string{`plan: expected a plan node, got an expression`}},
		{"node where an expression belongs", withPlan(filterT(scanT)), []string{`plan.predicates[0]: expected an expression, got a plan node`}},
		{"unknown function (the issue's example)", withPlan(`{"op": "project", "exprs": [{"col": "a"}], "input": ` +
			filterT(`{"col": "p"}, {"fn": "not", "args": [{"fn": "gtt", "args": [{"col": "a"}, {"lit": 1}]}]}`) + `}`),
			[]string{`plan.input.predicates[1].args[0]: unknown function "gtt"; did you mean "gt"?`}},
		{"when with an even count", withPlan(filterT(`{"fn": "when", "args": [{"col": "p"}, {"col": "p"}]}`)),
			[]string{`plan.predicates[0]: when: expects condition, value pairs and an otherwise value (an odd count of 3 or more arguments), got 2`}},
		{"udf name used as a function", withPlan(filterT(`{"fn": "inc_wrap", "args": [{"col": "a"}]}`)),
			[]string{`plan.predicates[0]: unknown function "inc_wrap"; "inc_wrap" is a udf`}},
		{"unknown udf", withPlan(filterT(`{"udf": "inc_wrapp", "args": [{"col": "a"}]}`)),
			[]string{`plan.predicates[0]: unknown udf "inc_wrapp" (registered: checked_double, inc_wrap, nd_seq, nd_tick); did you mean "inc_wrap"?`}},
		{"function name used as a udf", withPlan(filterT(`{"udf": "gt", "args": []}`)),
			[]string{`"gt" is a built-in function`}},
		{"unknown type in a literal", withPlan(filterT(`{"fn": "gt", "args": [{"col": "a"}, {"lit": 1, "type": "int"}]}`)),
			[]string{`plan.predicates[0].args[1].type: unknown type "int" (known: bool, date, datetime, duration, float32, float64, int16, int32, int64, int8, string, uint16, uint32, uint64, uint8); did you mean "int8"?`}},
		{"a datetime type with a time zone", withPlan(`{"op": "project", "input": ` + scanT + `, "exprs": [{"cast": {"col": "a"}, "to": "datetime[us, UTC]"}]}`),
			[]string{`plan.exprs[0].to: type "datetime[us, UTC]": a datetime carries no time zone`}},
		{"a datetime literal with a time zone", withPlan(filterT(`{"fn": "gt", "args": [{"col": "a"}, {"lit": "2024-01-01T00:00:00Z", "type": "datetime"}]}`)),
			[]string{`datetime value "2024-01-01T00:00:00Z" names a time zone; datetimes carry none`}},
		{"a date literal that is no day", withPlan(filterT(`{"fn": "gt", "args": [{"col": "a"}, {"lit": "2023-02-29", "type": "date"}]}`)),
			[]string{`date value "2023-02-29" is not a date`}},
		{"a date literal as a number", withPlan(filterT(`{"fn": "gt", "args": [{"col": "a"}, {"lit": 5, "type": "date"}]}`)),
			[]string{`expected a date value (ISO 8601 text such as "2024-02-29"), got a number`}},
		{"unknown type in a cast", withPlan(`{"op": "project", "input": ` + scanT + `, "exprs": [{"cast": {"col": "a"}, "to": "double"}]}`),
			[]string{`plan.exprs[0].to: unknown type "double"`}},
		{"cast without to", withPlan(`{"op": "project", "input": ` + scanT + `, "exprs": [{"cast": {"col": "a"}}]}`),
			[]string{`plan.exprs[0]: missing required field "to" in a cast expression`}},
		{"alias without name", withPlan(`{"op": "project", "input": ` + scanT + `, "exprs": [{"alias": {"col": "a"}}]}`),
			[]string{`plan.exprs[0]: missing required field "name" in an alias expression`}},
		{"two expressions in one object", withPlan(filterT(`{"col": "p", "fn": "not"}`)),
			[]string{`plan.predicates[0]: an expression has both "col" and "fn"`}},
		{"unknown expression field", withPlan(filterT(`{"fn": "not", "arg": [{"col": "p"}]}`)),
			[]string{`plan.predicates[0]: unknown field "arg" in a fn expression`, `did you mean "args"?`}},
		{"no expression key", withPlan(filterT(`{"column": "p"}`)),
			[]string{`plan.predicates[0]: expected an expression: an object with one of alias, cast, col, fn, lit, over, udf`}},
		{"expression not an object", withPlan(filterT(`"p"`)), []string{`plan.predicates[0]: expected an expression`, `got a string`}},
		{"null literal without type", withPlan(filterT(`{"fn": "is_null", "args": [{"lit": null}]}`)),
			[]string{`plan.predicates[0].args[0]: a null literal needs a "type"`}},
		{"literal of the wrong type", withPlan(filterT(`{"fn": "eq", "args": [{"col": "a"}, {"lit": "x", "type": "int64"}]}`)),
			[]string{`plan.predicates[0].args[1].lit: int64 value "x" is not a decimal integer`}},
		{"literal array", withPlan(filterT(`{"lit": [1]}`)), []string{`plan.predicates[0].lit: a literal is a number, string, bool or null, got an array`}},
		{"unknown join kind", withPlan(`{"op": "join", "kind": "outer", "left": ` + scanT + `, "right": ` + scanT + `}`),
			[]string{`plan.kind: unknown join kind "outer" (known: anti, cross, full, inner, left, right, semi); did you mean "full"?`}},
		{"join without kind", withPlan(`{"op": "join", "left": ` + scanT + `, "right": ` + scanT + `}`),
			[]string{`plan: missing required field "kind" in a join node`}},
		{"error in the right input", withPlan(`{"op": "join", "kind": "cross", "left": ` + scanT + `, "right": {"op": "scan"}}`),
			[]string{`plan.right: missing required field "table" in a scan node`}},
		{"unknown extension", withPlan(`{"op": "extension", "name": "identiy", "input": ` + scanT + `}`),
			[]string{`plan: unknown extension "identiy" (registered: checked_tag, identity, lag_first, nd_tag, null_first, passthrough_tag, swap_pairs); did you mean "identity"?`}},
		{"extension with input and inputs", withPlan(`{"op": "extension", "name": "identity", "input": ` + scanT + `, "inputs": []}`),
			[]string{`plan: an extension node has "input" (one child) or "inputs" (a list), not both`}},
		{"extension without input", withPlan(`{"op": "extension", "name": "identity"}`),
			[]string{`plan: missing required field "input" (or "inputs") in an extension node`}},
		{"unknown table", withPlan(`{"op": "scan", "table": "u"}`), []string{`plan.table: unknown table "u" (declared: t); did you mean "t"?`}},
		{"missing required field", withPlan(`{"op": "filter", "input": ` + scanT + `}`),
			[]string{`plan: missing required field "predicates" in a filter node`}},
		{"unknown node field", withPlan(`{"op": "filter", "input": ` + scanT + `, "predicates": [], "predicate": []}`),
			[]string{`plan: unknown field "predicate" in a filter node (allowed: input, op, predicates); did you mean "predicates"?`}},
		{"unknown sort key field", withPlan(`{"op": "sort", "input": ` + scanT + `, "keys": [{"expr": {"col": "a"}, "descending": true}]}`),
			[]string{`plan.keys[0]: unknown field "descending" in a sort key`}},
		{"sort desc not a bool", withPlan(`{"op": "sort", "input": ` + scanT + `, "keys": [{"expr": {"col": "a"}, "desc": 1}]}`),
			[]string{`plan.keys[0].desc: expected a bool (true or false), got a number`}},
		{"limit n fraction", withPlan(`{"op": "limit", "n": 2.5, "input": ` + scanT + `}`), []string{`plan.n: int64 value 2.5 is not an integer`}},
		{"slice without len", withPlan(`{"op": "slice", "offset": 1, "input": ` + scanT + `}`), []string{`plan: missing required field "len" in a slice node`}},
		{"union inputs not a list", withPlan(`{"op": "union", "inputs": ` + scanT + `}`), []string{`plan.inputs: expected an array, got an object`}},
		{"distinct subset of numbers", withPlan(`{"op": "distinct", "subset": [1], "input": ` + scanT + `}`), []string{`plan.subset[0]: expected a string, got a number`}},
		{"unknown pushed support", withPlan(`{"op": "scan", "table": "t", "pushed": [{"expr": {"col": "p"}, "support": "maybe"}]}`),
			[]string{`plan.pushed[0].support: unknown predicate support "maybe"`}},
		{"scan columns not strings", withPlan(`{"op": "scan", "table": "t", "columns": [{"col": "a"}]}`),
			[]string{`plan.columns[0]: expected a string, got an object`}},
		// Tables.
		{"duplicate column name", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": []}, {"name": "a", "type": "bool", "values": []}]}}`),
			[]string{`tables.t.columns[1].name: duplicate column name "a" (also columns[0])`}},
		{"ragged table", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 2]}, {"name": "b", "type": "int64", "values": [1]}]}}`),
			[]string{`tables.t.columns[1].values: column "b" has 1 values but column "a" has 2 (ragged table)`}},
		{"int64 out of range (the issue's example)", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": [0, 0, 0, 0, 0, 0]},
			{"name": "b", "type": "int64", "values": [0, 0, 0, 0, 0, 0]}, {"name": "c", "type": "int64", "values": [0, 1, 2, 3, 4, 1e30]}]}}`),
			[]string{`tables.t.columns[2].values[5]: int64 value 1e30 out of range`}},
		{"int64 fraction", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": [1.5]}]}}`),
			[]string{`tables.t.columns[0].values[0]: int64 value 1.5 is not an integer`}},
		{"int64 string beyond range", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": ["9223372036854775808"]}]}}`),
			[]string{`int64 value "9223372036854775808" out of range`}},
		{"int64 from a bool", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "values": [true]}]}}`),
			[]string{`tables.t.columns[0].values[0]: expected an int64 value (a number or a decimal string), got a bool`}},
		{"int32 out of range", withTables(`{"t": {"columns": [{"name": "a", "type": "int32", "values": [2147483648]}]}}`),
			[]string{`int32 value 2147483648 out of range`}},
		{"float64 out of range", withTables(`{"t": {"columns": [{"name": "a", "type": "float64", "values": [1e400]}]}}`),
			[]string{`float64 value 1e400 out of range (write "Inf" or "-Inf" for an infinity)`}},
		{"float64 bad special", withTables(`{"t": {"columns": [{"name": "a", "type": "float64", "values": ["nan"]}]}}`),
			[]string{`float64 value "nan" is not a number; the only strings allowed are "NaN", "Inf", "-Inf" and "-0"`}},
		{"string from a number", withTables(`{"t": {"columns": [{"name": "a", "type": "string", "values": [1]}]}}`),
			[]string{`expected a string value, got a number`}},
		{"bool from a string", withTables(`{"t": {"columns": [{"name": "a", "type": "bool", "values": ["true"]}]}}`),
			[]string{`expected a bool value (true or false), got a string`}},
		{"null in a non-nullable column", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "nullable": false, "values": [1, null]}]}}`),
			[]string{`tables.t.columns[0].values[1]: null in the non-nullable column "a"`}},
		{"unknown column type", withTables(`{"t": {"columns": [{"name": "a", "type": "integer", "values": []}]}}`),
			[]string{`tables.t.columns[0].type: unknown type "integer"`}},
		{"unknown column field", withTables(`{"t": {"columns": [{"name": "a", "type": "int64", "value": []}]}}`),
			[]string{`tables.t.columns[0]: unknown field "value" in a column`, `did you mean "values"?`}},
		{"empty column name", withTables(`{"t": {"columns": [{"name": "", "type": "int64", "values": []}]}}`),
			[]string{`tables.t.columns[0].name: a column name must not be empty`}},
		{"table both inline and parquet", withTables(`{"t": {"columns": [], "parquet": "x.parquet"}}`),
			[]string{`tables.t: a table is either inline ("columns") or a Parquet file ("parquet"), not both`}},
		{"table neither", withTables(`{"t": {}}`), []string{`tables.t: a table needs "columns"`}},
		{"parquet without a reader", withTables(`{"t": {"parquet": "data/big.parquet"}}`),
			[]string{`tables.t.parquet: table "t" is a Parquet file ("data/big.parquet") but no Parquet reader was given: Options.OpenParquet is nil`}},
		{"odd table name in the path", withTables(`{"my table": {"columns": [{"name": "a", "type": "int64", "values": ["x"]}]}}`),
			[]string{`tables["my table"].columns[0].values[0]: int64 value "x"`}},
		{"empty table name", withTables(`{"": {"columns": []}}`), []string{`tables: a table name must not be empty`}},
		// Flags and expect.
		{"flag not a bool", `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + scanT + `, "flags": {"predicate_pushdown": "yes"}}`,
			[]string{`flags.predicate_pushdown: expected a bool (true or false), got a string`}},
		{"unknown error kind", `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + scanT + `, "expect": {"error": "div_by_zero"}}`,
			[]string{`expect.error: unknown error kind "div_by_zero"`, `did you mean "divide_by_zero"?`}},
		{"counter not an integer", `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + scanT + `, "expect": {"counters": {"pushedFilters": 0.5}}}`,
			[]string{`expect.counters.pushedFilters: int64 value 0.5 is not an integer`}},
		{"unknown expect field", `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + scanT + `, "expect": {"errors": null}}`,
			[]string{`expect: unknown field "errors" in expect`, `did you mean "error"?`}},
		{"too deep", strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2), []string{"nested deeper than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Decode([]byte(tt.in), Options{})
			if err == nil {
				t.Fatalf("Decode succeeded (%v); want an error containing %q", doc.Plan, tt.want)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not a *planjson.Error", err, err)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error\n  %s\ndoes not contain (in order)\n  %s", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestDecodeErrorPosition checks that errors point at the offending value.
func TestDecodeErrorPosition(t *testing.T) {
	in := "{\"format\": \"dfopt-plan/1\",\n \"tables\": {\"t\": {\"columns\": [\n  {\"name\": \"a\", \"type\": \"int64\", \"values\": [1, true]}]}},\n \"plan\": {}}"
	_, err := Decode([]byte(in), Options{})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v", err)
	}
	if pe.Line != 3 || pe.Col != 48 || pe.Path != "tables.t.columns[0].values[1]" {
		t.Fatalf("got line %d col %d path %q (%v); want line 3 col 48", pe.Line, pe.Col, pe.Path, err)
	}
	if !strings.HasSuffix(err.Error(), "(line 3, column 48)") {
		t.Fatalf("error %q does not end with its position", err)
	}
}

func TestDecodeFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(withPlan(`{"op": "scan", "table": "nope"}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := DecodeFile(bad, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), bad+":7:38: plan.table: unknown table \"nope\"") {
		t.Fatalf("error %v does not name the file, position and path", err)
	}
	if _, err := DecodeFile(filepath.Join(dir, "missing.json"), Options{}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: got %v", err)
	}
}

// fakeSource is a plan.Source standing in for a Parquet file.
type fakeSource struct {
	name   string
	schema plan.Schema
}

func (s *fakeSource) Name() string        { return s.name }
func (s *fakeSource) Schema() plan.Schema { return s.schema }

func TestDecodeParquet(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plans", "p.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "abs.parquet")
	in := `{"format": "dfopt-plan/1", "tables": {"big": {"parquet": "data/big.parquet"}, "abs": {"parquet": ` + fmt.Sprintf("%q", abs) + `}},
	        "plan": {"op": "union", "inputs": [{"op": "scan", "table": "big"}, {"op": "scan", "table": "abs"}]}}`
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	var opened []string
	opts := Options{OpenParquet: func(name, path string) (plan.Source, error) {
		opened = append(opened, name+"="+path)
		return &fakeSource{name: name, schema: plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64, Nullable: true})}, nil
	}}
	doc, err := DecodeFile(file, opts)
	if err != nil {
		t.Fatal(err)
	}
	big := doc.Tables["big"]
	if big.Parquet != "data/big.parquet" || big.ParquetPath != filepath.Join(dir, "plans", "data", "big.parquet") {
		t.Fatalf("big: written %q resolved %q", big.Parquet, big.ParquetPath)
	}
	if doc.Tables["abs"].ParquetPath != abs {
		t.Fatalf("an absolute path changed: %q", doc.Tables["abs"].ParquetPath)
	}
	scan := doc.Plan.(*plan.UnionNode).Inputs[0].(*plan.ScanNode)
	if scan.Source != big.ParquetSource || !scan.SourceSchema.Equal(big.ParquetSource.Schema()) {
		t.Fatalf("the scan does not read the opened source")
	}
	if _, err := plan.Resolve(doc.Plan); err != nil {
		t.Fatal(err)
	}
	// The path as written is what Encode writes back.
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"big": {"parquet": "data/big.parquet"}`) {
		t.Fatalf("encoded:\n%s", out)
	}
	// A failing or panicking reader is an error naming the table.
	for name, open := range map[string]func(string, string) (plan.Source, error){
		"error":  func(string, string) (plan.Source, error) { return nil, os.ErrPermission },
		"panic":  func(string, string) (plan.Source, error) { panic("boom") },
		"nil":    func(string, string) (plan.Source, error) { return nil, nil },
		"schema": func(n, _ string) (plan.Source, error) { return panicSchema{}, nil },
	} {
		_, err := DecodeFile(file, Options{OpenParquet: open})
		if err == nil || !strings.Contains(err.Error(), `"big"`) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

type panicSchema struct{}

func (panicSchema) Name() string        { return "p" }
func (panicSchema) Schema() plan.Schema { panic("no schema") }

// TestDecodePlan checks that each node and expression form builds the
// expected plan types.
func TestDecodePlan(t *testing.T) {
	in := withPlan(`{"op": "union", "inputs": [
	  {"op": "project", "exprs": [
	     {"alias": {"cast": {"col": "a"}, "to": "int32", "strict": false}, "name": "c"},
	     {"alias": {"over": {"fn": "sum", "args": [{"col": "a"}]}, "partition_by": [{"col": "s"}]}, "name": "w"},
	     {"alias": {"udf": "inc_wrap", "args": [{"col": "a"}]}, "name": "u"},
	     {"alias": {"lit": null, "type": "string"}, "name": "n"},
	     {"alias": {"lit": 2.0}, "name": "f"},
	     {"alias": {"lit": "-9223372036854775808", "type": "int64"}, "name": "m"},
	     {"alias": {"cast": {"col": "b"}, "to": "string"}, "name": "cs"}],
	   "input": {"op": "sort", "keys": [{"expr": {"col": "a"}, "desc": true, "nulls_last": true}, {"expr": {"col": "b"}}],
	     "input": {"op": "slice", "offset": 1, "len": "2", "input": {"op": "limit", "n": 10,
	       "input": {"op": "distinct", "subset": ["a"], "input": {"op": "extension", "name": "identity", "inputs": [
	         {"op": "scan", "table": "t", "columns": ["a", "b", "s"], "pushed": [{"expr": {"col": "p"}, "support": "inexact"}]}]}}}}}}
	]}`)
	doc, err := Decode([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	proj := doc.Plan.(*plan.UnionNode).Inputs[0].(*plan.ProjectNode)
	wantExprs := []string{"cast(a, int32, strict=false) as c", "sum(a).over(s) as w", "inc_wrap(a) as u",
		"null(string) as n", "2.0 as f", "-9223372036854775808 as m", "cast(b, string) as cs"}
	for i, w := range wantExprs {
		if got := proj.Exprs[i].String(); got != w {
			t.Errorf("exprs[%d] = %s, want %s", i, got, w)
		}
	}
	sort := proj.Input.(*plan.SortNode)
	if !sort.Keys[0].Desc || !sort.Keys[0].NullsLast || sort.Keys[1].Desc || sort.Keys[1].NullsLast {
		t.Errorf("sort keys %+v", sort.Keys)
	}
	sl := sort.Input.(*plan.SliceNode)
	if sl.Offset != 1 || sl.Len != 2 {
		t.Errorf("slice %d %d", sl.Offset, sl.Len)
	}
	lim := sl.Input.(*plan.LimitNode)
	dis := lim.Input.(*plan.DistinctNode)
	ext := dis.Input.(*plan.ExtensionNode)
	scan := ext.Inputs[0].(*plan.ScanNode)
	if lim.N != 10 || len(dis.Subset) != 1 || ext.Def.Name != "identity" {
		t.Errorf("limit/distinct/extension wrong")
	}
	if !scan.Projected || strings.Join(scan.Columns, ",") != "a,b,s" || len(scan.Pushed) != 1 || scan.Pushed[0].Support != plan.Inexact {
		t.Errorf("scan %s", scan.Label())
	}
	if _, err := plan.Resolve(doc.Plan); err != nil {
		t.Fatalf("resolve: %v", err)
	}
}

// TestJoinKeyCountLeftToResolve: unequal key counts are representable (the
// oracle compares the resolve error), and Resolve's error names the path.
func TestJoinKeyCountLeftToResolve(t *testing.T) {
	in := withPlan(`{"op": "project", "exprs": [{"col": "a"}], "input": {"op": "join", "kind": "inner",
	  "left_on": [{"col": "a"}, {"col": "b"}], "right_on": [{"col": "a"}], "left": ` + scanT + `, "right": ` + scanT + `}}`)
	doc, err := Decode([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = plan.Resolve(doc.Plan)
	if err == nil || !strings.Contains(err.Error(), "plan.input.right_on") || !strings.Contains(err.Error(), "2 left keys but 1 right keys") {
		t.Fatalf("resolve error %v does not name plan.input.right_on", err)
	}
}

func TestDecodeValue(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		json string
		typ  plan.Type
		want plan.Value
		err  string
	}{
		{`1`, plan.Int64, plan.Int64Value(1), ""},
		{`-9223372036854775808`, plan.Int64, plan.Int64Value(math.MinInt64), ""},
		{`"-9223372036854775808"`, plan.Int64, plan.Int64Value(math.MinInt64), ""},
		{`"9223372036854775807"`, plan.Int64, plan.Int64Value(math.MaxInt64), ""},
		{`9223372036854775807`, plan.Int64, plan.Int64Value(math.MaxInt64), ""},
		{`9223372036854775808`, plan.Int64, plan.Value{}, "int64 value 9223372036854775808 out of range"},
		{`-9223372036854775809`, plan.Int64, plan.Value{}, "out of range"},
		{`1e3`, plan.Int64, plan.Int64Value(1000), ""},
		{`2.0`, plan.Int64, plan.Int64Value(2), ""},
		{`-0`, plan.Int64, plan.Int64Value(0), ""},
		{`0.000e99`, plan.Int64, plan.Int64Value(0), ""},
		{`9.223372036854775807e18`, plan.Int64, plan.Int64Value(math.MaxInt64), ""},
		{`1e19`, plan.Int64, plan.Value{}, "out of range"},
		{`1e999999999999`, plan.Int64, plan.Value{}, "out of range"},
		{`1e-999999999999`, plan.Int64, plan.Value{}, "is not an integer"},
		{`12.5e1`, plan.Int64, plan.Int64Value(125), ""},
		{`12.55e1`, plan.Int64, plan.Value{}, "is not an integer"},
		{`0.5`, plan.Int64, plan.Value{}, "is not an integer"},
		{`"1.0"`, plan.Int64, plan.Value{}, "is not a decimal integer"},
		{`" 1"`, plan.Int64, plan.Value{}, "is not a decimal integer"},
		{`null`, plan.Int64, plan.NullValue(plan.Int64), ""},
		{`2147483647`, plan.Int32, plan.Int32Value(math.MaxInt32), ""},
		{`"-2147483648"`, plan.Int32, plan.Int32Value(math.MinInt32), ""},
		{`-2147483649`, plan.Int32, plan.Value{}, "int32 value -2147483649 out of range"},
		{`1.5`, plan.Float64, plan.Float64Value(1.5), ""},
		{`1`, plan.Float64, plan.Float64Value(1), ""},
		{`-0`, plan.Float64, plan.Float64Value(negZero), ""},
		{`-0.0`, plan.Float64, plan.Float64Value(negZero), ""},
		{`"-0"`, plan.Float64, plan.Float64Value(negZero), ""},
		{`"-0.0"`, plan.Float64, plan.Float64Value(negZero), ""},
		{`"NaN"`, plan.Float64, plan.Float64Value(math.NaN()), ""},
		{`"Inf"`, plan.Float64, plan.Float64Value(math.Inf(1)), ""},
		{`"-Inf"`, plan.Float64, plan.Float64Value(math.Inf(-1)), ""},
		{`"+Inf"`, plan.Float64, plan.Value{}, "is not a number"},
		{`5e-324`, plan.Float64, plan.Float64Value(5e-324), ""},
		{`1e-400`, plan.Float64, plan.Float64Value(0), ""},
		{`1.7976931348623157e308`, plan.Float64, plan.Float64Value(math.MaxFloat64), ""},
		{`1.8e308`, plan.Float64, plan.Value{}, "out of range"},
		{`true`, plan.Float64, plan.Value{}, "expected a float64 value"},
		{`"a\u00e9\n"`, plan.String, plan.StringValue("aé\n"), ""},
		{`""`, plan.String, plan.StringValue(""), ""},
		{`false`, plan.Bool, plan.BoolValue(false), ""},
		{`null`, plan.Bool, plan.NullValue(plan.Bool), ""},
	}
	for _, tt := range tests {
		v, perr := parseJSON([]byte(tt.json))
		if perr != nil {
			t.Fatalf("%s: %v", tt.json, perr)
		}
		got, msg := decodeValue(v, tt.typ)
		switch {
		case tt.err != "" && !strings.Contains(msg, tt.err):
			t.Errorf("%s as %s: error %q, want %q", tt.json, tt.typ, msg, tt.err)
		case tt.err == "" && msg != "":
			t.Errorf("%s as %s: unexpected error %q", tt.json, tt.typ, msg)
		case tt.err == "" && !got.Identical(tt.want) && !(tt.want.Type() == plan.Float64 && math.IsNaN(tt.want.Float()) && math.IsNaN(got.Float())):
			t.Errorf("%s as %s: got %v (bits %x), want %v", tt.json, tt.typ, got, math.Float64bits(got.Float()), tt.want)
		}
	}
}

func TestDecodeLiteralInference(t *testing.T) {
	tests := map[string]string{
		`{"lit": 1}`:                        "int64",
		`{"lit": 1.0}`:                      "float64",
		`{"lit": 1e2}`:                      "float64",
		`{"lit": "NaN"}`:                    "string", // without a type, a string is a string
		`{"lit": true}`:                     "bool",
		`{"lit": 1, "type": "int32"}`:       "int32",
		`{"lit": "NaN", "type": "float64"}`: "float64",
	}
	for in, want := range tests {
		doc, err := Decode([]byte(withPlan(`{"op": "project", "input": `+scanT+`, "exprs": [`+in+`]}`)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		lit := doc.Plan.(*plan.ProjectNode).Exprs[0].(*plan.Literal)
		if got := lit.Value.Type().String(); got != want {
			t.Errorf("%s: type %s, want %s", in, got, want)
		}
	}
}

func TestDecodeFlagsAndExpect(t *testing.T) {
	base := `{"format": "dfopt-plan/1", "tables": ` + baseTables + `, "plan": ` + scanT
	tests := []struct {
		in          string
		flags       map[string]bool
		expect      bool
		counters    map[string]int64
		errSet      bool
		errKind     plan.ErrorKind
		description string
	}{
		{in: base + `}`},
		{in: base + `, "flags": {}}`, flags: map[string]bool{}},
		{in: base + `, "flags": {"predicate_pushdown": true, "No_Such_Rule": false}}`, flags: map[string]bool{"predicate_pushdown": true, "No_Such_Rule": false}},
		{in: base + `, "expect": {}}`, expect: true},
		{in: base + `, "expect": {"error": null}}`, expect: true, errSet: true},
		{in: base + `, "expect": {"error": "overflow", "counters": {"pushedFilters": 2, "big": "9007199254740993"}}}`,
			expect: true, errSet: true, errKind: plan.Overflow, counters: map[string]int64{"pushedFilters": 2, "big": 9007199254740993}},
		{in: base + `, "description": "hello"}`, description: "hello"},
	}
	for _, tt := range tests {
		doc, err := Decode([]byte(tt.in), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if (doc.Flags == nil) != (tt.flags == nil) || fmt.Sprint(doc.Flags) != fmt.Sprint(tt.flags) {
			t.Errorf("%s: flags %v, want %v", tt.in, doc.Flags, tt.flags)
		}
		if doc.Description != tt.description {
			t.Errorf("%s: description %q", tt.in, doc.Description)
		}
		if (doc.Expect != nil) != tt.expect {
			t.Fatalf("%s: expect %v", tt.in, doc.Expect)
		}
		if doc.Expect == nil {
			continue
		}
		if (doc.Expect.Error != nil) != tt.errSet || (tt.errSet && *doc.Expect.Error != tt.errKind) {
			t.Errorf("%s: expect.error %v", tt.in, doc.Expect.Error)
		}
		if doc.Expect.ExpectsSuccess() != (tt.errSet && tt.errKind == "") {
			t.Errorf("%s: ExpectsSuccess wrong", tt.in)
		}
		if fmt.Sprint(doc.Expect.Counters) != fmt.Sprint(tt.counters) {
			t.Errorf("%s: counters %v, want %v", tt.in, doc.Expect.Counters, tt.counters)
		}
	}
}

// TestErrorsCutEchoedInput: a literal of a million digits, or a name of a
// million letters, is not echoed whole by the error naming it.
func TestErrorsCutEchoedInput(t *testing.T) {
	digits := strings.Repeat("9", 1_000_000)
	for _, lit := range []string{digits, `"` + digits + `"`, `"` + strings.Repeat("x", 1_000_000) + `"`} {
		typ := "int64"
		if strings.HasPrefix(lit, `"x`) {
			typ = "float64"
		}
		doc := `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1]}]}},
		  "plan": {"op": "project", "exprs": [{"lit": ` + lit + `, "type": "` + typ + `"}], "input": {"op": "scan", "table": "t"}}}`
		_, err := Decode([]byte(doc), Options{})
		if err == nil {
			t.Fatal("no error")
		}
		if n := len(err.Error()); n > 400 || !strings.Contains(err.Error(), "more bytes") {
			t.Errorf("a %d-byte literal gives a %d-byte message: %.200s", len(lit), n, err)
		}
	}
	doc := `{"format": "dfopt-plan/1", "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1]}]}},
	  "plan": {"op": "frobnicate` + strings.Repeat("z", 1_000_000) + `", "input": {"op": "scan", "table": "t"}}}`
	if _, err := Decode([]byte(doc), Options{}); err == nil || len(err.Error()) > 4*plan.MaxEcho {
		t.Errorf("an unknown op of a million letters: a %d-byte message", len(fmt.Sprint(err)))
	}
}
