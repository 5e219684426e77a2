package oracle

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// TestCheckDetects tampers with one way's outcome and checks that the
// oracle reports exactly the expected first divergence.
func TestCheckDetects(t *testing.T) {
	tab := testTable(t)
	scan := plan.Scan(tab)
	sel := scan.Filter(plan.Col("a").Gt(plan.Lit(0))).Node() // rows 0..2
	failing := scan.Select(plan.Col("a").Div(plan.Col("b")).Alias("q")).Node()
	payloadNaN := math.Float64frombits(0x7ff8000000000abc)

	tests := []struct {
		name   string
		plan   plan.Node
		target int
		tamper func(*Outcome, error) (Outcome, error)
		// want is the class of the first divergence; "" means agreement.
		want     string
		row, col int
		bits     string // a substring of the detail
	}{
		{name: "identity", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) { return *o, err }},
		{name: "negative zero", plan: sel, target: 1, tamper: setCell(2, 0, plan.Float64Value(math.Copysign(0, -1))),
			want: "value optimized/unoptimized", row: 0, col: 2, bits: "0x8000000000000000"},
		{name: "positive zero", plan: sel, target: 2, tamper: setCell(2, 1, plan.Float64Value(0)),
			want: "value unoptimized/eager", row: 1, col: 2, bits: "0x0000000000000000"},
		{name: "nan payload", plan: sel, target: 1, tamper: setCell(2, 2, plan.Float64Value(payloadNaN)),
			want: "value optimized/unoptimized", row: 2, col: 2, bits: "0x7ff8000000000abc"},
		{name: "validity", plan: sel, target: 1, tamper: setCell(3, 1, plan.NullValue(plan.String)),
			want: "validity optimized/unoptimized", row: 1, col: 3, bits: "null(string)"},
		{name: "int bits", plan: sel, target: 2, tamper: setCell(0, 2, plan.Int64Value(math.MinInt64)),
			want: "value unoptimized/eager", row: 2, col: 0, bits: "0x8000000000000000"},
		{name: "row count", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) {
			cols := make([][]plan.Value, len(o.Columns))
			for c := range cols {
				cols[c] = o.Columns[c][:o.Rows-1]
			}
			o.Columns, o.Rows = cols, o.Rows-1
			return *o, err
		}, want: "row_count optimized/unoptimized", row: -1, col: -1, bits: "has 2 rows"},
		{name: "schema", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) {
			f := o.Schema.Fields()
			f[0].Nullable = false
			o.Schema = plan.MustSchema(f...)
			return *o, err
		}, want: "schema optimized/unoptimized", row: -1, col: -1, bits: "a: int64"},
		{name: "outcome", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) {
			return Outcome{}, &plan.Error{Kind: plan.Overflow, Expr: "a + 1", Row: 0}
		}, want: "outcome optimized/unoptimized", row: -1, col: -1, bits: "overflow in `a + 1`"},
		{name: "error text", plan: failing, target: 2, tamper: func(o *Outcome, err error) (Outcome, error) {
			pe, _ := plan.AsError(err)
			cp := *pe
			cp.Expr = "a / c"
			return Outcome{}, &cp
		}, want: "error unoptimized/eager", row: -1, col: -1, bits: "divide_by_zero in `a / c`"},
		{name: "same error, other row", plan: failing, target: 2, tamper: func(o *Outcome, err error) (Outcome, error) {
			pe, _ := plan.AsError(err)
			cp := *pe
			cp.Row = 3
			return Outcome{}, &cp
		}},
		{name: "panic", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) { panic("boom") },
			want: "internal optimized", row: -1, col: -1, bits: "panic: boom"},
		{name: "not a plan error", plan: sel, target: 2, tamper: func(o *Outcome, err error) (Outcome, error) { return Outcome{}, errNotPlan },
			want: "internal unoptimized", row: -1, col: -1, bits: "not a plan error"},
		{name: "internal executor error", plan: sel, target: 0, tamper: func(o *Outcome, err error) (Outcome, error) {
			return Outcome{}, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: "executor: panic: x"}
		}, want: "internal optimized", row: -1, col: -1, bits: "executor: panic"},
		{name: "host executor without a memo", plan: sel, target: 0, tamper: func(o *Outcome, err error) (Outcome, error) {
			o.MemoHits = -1
			return *o, err
		}},
		{name: "memo", plan: sel, target: 1, tamper: func(o *Outcome, err error) (Outcome, error) {
			o.MemoHits++
			return *o, err
		}, want: "memo optimized", row: -1, col: -1, bits: "sharedSubplans=0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := &fakeExecutor{target: tc.target, tamper: tc.tamper}
			r := Check(context.Background(), Case{Name: tc.name, Plan: tc.plan, Executor: x})
			if tc.want == "" {
				if !r.Agree() {
					t.Fatalf("want agreement, got:\n%s", r)
				}
				return
			}
			if r.Agree() {
				t.Fatalf("want %s, the oracle agrees:\n%s", tc.want, r)
			}
			d := r.Divergences[0]
			if d.Class() != tc.want || d.Row != tc.row || d.Column != tc.col {
				t.Fatalf("first divergence %s at row %d column %d, want %s at row %d column %d:\n%s",
					d.Class(), d.Row, d.Column, tc.want, tc.row, tc.col, r)
			}
			if !strings.Contains(d.Detail, tc.bits) {
				t.Fatalf("detail %q lacks %q", d.Detail, tc.bits)
			}
			if !strings.Contains(r.String(), "optimized plan:") && r.Optimized != nil {
				t.Fatalf("report lacks the optimized plan:\n%s", r)
			}
		})
	}
}

// TestCmpOptionsBits checks the go-cmp comparer used in reports: it tells
// -0.0 from +0.0 and NaN payloads apart, and equates identical bits.
func TestCmpOptionsBits(t *testing.T) {
	nan2 := math.Float64frombits(0x7ff8000000000002)
	tests := []struct {
		a, b plan.Value
		want bool
	}{
		{plan.Float64Value(0), plan.Float64Value(math.Copysign(0, -1)), false},
		{plan.Float64Value(math.NaN()), plan.Float64Value(nan2), false},
		{plan.Float64Value(nan2), plan.Float64Value(nan2), true},
		{plan.Int64Value(1), plan.Int64Value(1), true},
		{plan.NullValue(plan.Int64), plan.Int64Value(0), false},
	}
	for _, tc := range tests {
		got := cmp.Equal(viewOf(tc.a), viewOf(tc.b), cmpOptions)
		if got != tc.want || got != tc.a.Identical(tc.b) {
			t.Errorf("%s vs %s: cmp.Equal %v, Identical %v, want %v", describeValue(tc.a), describeValue(tc.b), got, tc.a.Identical(tc.b), tc.want)
		}
	}
}

// TestCheckLegalityMutant flips pp.with_columns: the oracle must catch the
// filter pushed below a partial with_columns (docs/legality.md).
func TestCheckLegalityMutant(t *testing.T) {
	tab := testTable(t)
	p := plan.Scan(tab).
		WithColumns(plan.Col("a").Div(plan.Col("b")).Alias("x")).
		Filter(plan.Col("b").Ne(plan.Lit(0))).Node()
	if r := Check(context.Background(), Case{Plan: p}); !r.Agree() {
		t.Fatalf("the default table must agree:\n%s", r)
	}
	mutant, err := legality.Default().Flipped(legality.PPWithColumns)
	if err != nil {
		t.Fatal(err)
	}
	flags := DefaultFlags()
	flags.Table = mutant
	r := Check(context.Background(), Case{Plan: p, Flags: &flags})
	if r.Agree() || r.Divergences[0].Class() != "outcome optimized/unoptimized" {
		t.Fatalf("want an outcome divergence optimized/unoptimized, got:\n%s", r)
	}
	if got := r.Fired(); len(got) == 0 || got[0] != rules.FlagPredicatePushdown {
		t.Fatalf("fired %v, want predicate_pushdown first", got)
	}
	if c := r.Cells()[legality.PPWithColumns]; c[0] == 0 {
		t.Fatalf("pp.with_columns allowed nothing: %v", r.Cells())
	}
}

// TestCheckUnresolvable: a plan that does not resolve fails the same way
// three times, and the optimizer's resolve error is the optimized outcome.
func TestCheckUnresolvable(t *testing.T) {
	p := plan.Scan(testTable(t)).Filter(plan.Col("nope").Gt(plan.Lit(0))).Node()
	r := Check(context.Background(), Case{Plan: p})
	if !r.Agree() {
		t.Fatalf("want agreement:\n%s", r)
	}
	if r.ResolveErr == nil || r.Optimized != nil {
		t.Fatalf("want a resolve error and no optimized plan: %v", r.ResolveErr)
	}
	for _, w := range r.Results {
		if w.ErrorKind() != plan.UnknownColumn {
			t.Errorf("%s: error kind %q, want unknown_column", w.Way, w.ErrorKind())
		}
	}
}

// TestCheckDocumentExpect checks a plan file's expectations: counters and
// the error kind.
func TestCheckDocumentExpect(t *testing.T) {
	const file = `{"format": "dfopt-plan/1",
	  "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, 0]},
	                               {"name": "b", "type": "int64", "values": [0, 1]}]}},
	  "plan": {"op": "filter", "input": {"op": "project", "input": {"op": "scan", "table": "t"},
	            "exprs": [{"col": "a"}, {"col": "b"}]},
	           "predicates": [{"fn": "gt", "args": [{"col": "a"}, {"lit": 0, "type": "int64"}]}]},
	  "expect": EXPECT}`
	tests := []struct {
		expect string
		unmet  []string
	}{
		{`{"counters": {"pushedFilters": 1}, "error": null}`, nil},
		{`{"counters": {"pushedFilters": 0}}`, []string{"expect.counters.pushedFilters: want 0, got 1"}},
		{`{"counters": {"pushedFilter": 1}}`, []string{`expect.counters: unknown counter "pushedFilter"`}},
		{`{"error": "divide_by_zero"}`, []string{"expect.error: want divide_by_zero, the unoptimized outcome is success"}},
	}
	for _, tc := range tests {
		doc, err := planjson.Decode([]byte(strings.Replace(file, "EXPECT", tc.expect, 1)), planjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := CheckDocument(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Divergences) != 0 {
			t.Fatalf("%s: divergence:\n%s", tc.expect, r)
		}
		if diff := cmp.Diff(tc.unmet, r.Unmet); diff != "" {
			t.Errorf("%s: unmet (-want +got):\n%s", tc.expect, diff)
		}
		if !r.Flags.Verify {
			t.Errorf("verify is off by default for documents")
		}
	}
	doc, err := planjson.Decode([]byte(strings.Replace(file, "EXPECT", "{}", 1)), planjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc.Flags = map[string]bool{"predicate_pushdwn": true}
	if _, err := CheckDocument(context.Background(), doc); err == nil {
		t.Errorf("an unknown flag must be an error")
	}
}

// TestOutcomeFromRecordShape rejects a record that does not match the
// schema (no record, another column count, another column type) and
// converts one that does.
func TestOutcomeFromRecordShape(t *testing.T) {
	if _, err := OutcomeFromRecord(plan.MustSchema(), nil, 0); err == nil {
		t.Fatal("a nil record must be an error")
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{7, 0}, []bool{true, false})
	ints := b.NewArray()
	defer ints.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil), []arrow.Array{ints}, 2)
	defer rec.Release()
	field := func(typ plan.Type) plan.Field { return plan.Field{Name: "a", Type: typ, Nullable: true} }
	for _, tc := range []struct {
		name   string
		schema plan.Schema
		want   string // a substring of the error; "" for success
	}{
		{"matching", plan.MustSchema(field(plan.Int64)), ""},
		{"two columns", plan.MustSchema(field(plan.Int64), plan.Field{Name: "b", Type: plan.Int64}), "has 1 columns"},
		{"float schema", plan.MustSchema(field(plan.Float64)), "an Arrow int64 array where the schema says float64"},
		{"int32 schema", plan.MustSchema(field(plan.Int32)), "an Arrow int64 array where the schema says int32"},
	} {
		out, err := OutcomeFromRecord(tc.schema, rec, 3)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "":
			if want := []plan.Value{plan.Int64Value(7), plan.NullValue(plan.Int64)}; out.Rows != 2 || out.MemoHits != 3 ||
				!out.Columns[0][0].Identical(want[0]) || !out.Columns[0][1].Identical(want[1]) {
				t.Errorf("%s: outcome %+v, want rows [7 null]", tc.name, out)
			}
		case err == nil || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestFiredVersusRewrote: in the bounded tier, projection_pruning fires
// (passes requirements through a sort) without changing anything (the
// union below keeps every column); predicate_pushdown and shared_subplans
// both fire and rewrite.
func TestFiredVersusRewrote(t *testing.T) {
	tab, err := plan.NewTable("ab", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true}, plan.Field{Name: "b", Type: plan.Int64, Nullable: true}),
		[][]plan.Value{{plan.Int64Value(2), plan.Int64Value(1)}, {plan.Int64Value(3), plan.Int64Value(4)}})
	if err != nil {
		t.Fatal(err)
	}
	one := plan.Scan(tab)
	p := one.Union(one).SortBy("a").Filter(plan.Col("a").Gt(plan.Lit(1))).Select(plan.Col("a")).Node()
	flags := rules.BoundedFlags()
	flags.Verify = true
	r := Check(context.Background(), Case{Plan: p, Flags: &flags})
	if !r.Agree() {
		t.Fatalf("%s", r)
	}
	if diff := cmp.Diff([]string{"predicate_pushdown", "projection_pruning", "shared_subplans"}, r.Fired()); diff != "" {
		t.Errorf("fired (-want +got):\n%s\n%s", diff, r)
	}
	if diff := cmp.Diff([]string{"predicate_pushdown", "shared_subplans"}, r.Rewrote()); diff != "" {
		t.Errorf("rewrote (-want +got):\n%s\n%s", diff, r)
	}
}
