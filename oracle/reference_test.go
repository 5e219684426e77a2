package oracle

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
)

// TestReferenceWayRuns checks that the fourth way runs on an ordinary plan,
// agrees, and shows in the report.
func TestReferenceWayRuns(t *testing.T) {
	p := plan.Scan(testTable(t)).Filter(plan.Col("a").Gt(plan.Lit(int64(1)))).Node()
	rep := Check(context.Background(), Case{Name: "plain", Plan: p})
	if !rep.Agree() {
		t.Fatalf("%s", rep)
	}
	ref := rep.Results[Reference]
	if !ref.Ran || ref.Err != nil || ref.Skipped != "" || ref.Outcome.Rows != 2 {
		t.Errorf("the reference way: ran=%v err=%v skipped=%q rows=%d, want it run with 2 rows", ref.Ran, ref.Err, ref.Skipped, ref.Outcome.Rows)
	}
	if s := rep.String(); !strings.Contains(s, "reference:") {
		t.Errorf("the report does not show the reference way:\n%s", s)
	}
	if got := Ways(); len(got) != 4 || got[3] != Reference || Reference.String() != "reference" {
		t.Errorf("Ways() = %v", got)
	}
	off := Check(context.Background(), Case{Plan: p, NoReference: true})
	if off.Results[Reference].Ran || !off.Agree() {
		t.Errorf("NoReference: the reference way ran (%+v) or the rest disagree", off.Results[Reference])
	}
}

// TestReferenceWayResolveError checks that a plan that does not resolve
// fails the same way four times.
func TestReferenceWayResolveError(t *testing.T) {
	p := plan.Scan(testTable(t)).Select(plan.Col("nope")).Node()
	rep := Check(context.Background(), Case{Plan: p})
	if !rep.Agree() {
		t.Fatalf("%s", rep)
	}
	if k := rep.Results[Reference].ErrorKind(); k != plan.UnknownColumn {
		t.Errorf("the reference way's error kind is %q, want unknown_column", k)
	}
}

// wrongFirst is a host operator whose Arrow implementation (given to exec
// and eager alike) is wrong: it should add 1 to the first column, int64,
// but adds 2 on the last row. Its reference implementation is right. The
// three Arrow ways therefore agree on a wrong answer — a bug in code they
// share, the kind only the fourth way can see.
var wrongFirst = &plan.ExtensionDef{Name: "inc_first", Inputs: 1}

func wrongFirstArrow(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	rec := in[0]
	src := rec.Column(0).(*array.Int64)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < src.Len(); i++ {
		switch {
		case src.IsNull(i):
			b.AppendNull()
		case i == src.Len()-1:
			b.Append(src.Value(i) + 2) // the shared bug
		default:
			b.Append(src.Value(i) + 1)
		}
	}
	first := b.NewArray()
	defer first.Release()
	cols := append([]arrow.Array{first}, rec.Columns()[1:]...)
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

func incFirstReference(_ context.Context, _ *plan.ExtensionNode, in []*reference.Result) (*reference.Result, error) {
	r := in[0]
	first := make([]plan.Value, r.Rows)
	for i, v := range r.Columns[0] {
		if v.IsNull() {
			first[i] = v
		} else {
			first[i] = plan.Int64Value(v.Int() + 1)
		}
	}
	cols := append([][]plan.Value{first}, r.Columns[1:]...)
	return &reference.Result{Schema: r.Schema, Rows: r.Rows, Columns: cols}, nil
}

// TestReferenceWayFindsASharedBug checks that a bug shared by the executor
// and the eager chain diverges from the reference way only, and that the
// divergence names it.
func TestReferenceWayFindsASharedBug(t *testing.T) {
	exts := eager.BuiltinExtensions()
	if err := exts.Register(wrongFirst.Name, wrongFirstArrow); err != nil {
		t.Fatal(err)
	}
	p := plan.Scan(testTable(t)).Extension(wrongFirst).Node()
	c := Case{Name: "shared bug", Plan: p, Extensions: exts,
		ReferenceExtensions: map[string]reference.ExtensionFunc{wrongFirst.Name: incFirstReference}}
	rep := Check(context.Background(), c)
	if len(rep.Divergences) != 1 {
		t.Fatalf("want exactly one divergence, got:\n%s", rep)
	}
	d := rep.Divergences[0]
	if d.Class() != "value reference/unoptimized" || d.Row != 3 || d.Column != 0 {
		t.Errorf("divergence %s at row %d column %d, want value reference/unoptimized at row 3 column 0", d.Class(), d.Row, d.Column)
	}
	if !strings.Contains(d.Detail, "reference has -3") || !strings.Contains(rep.Summary(), "reference/unoptimized") {
		t.Errorf("the divergence does not name the reference way's value: %s", d.Detail)
	}
}

// TestReferenceWaySkipsHostOperators checks that a plan holding a host
// operator without a reference implementation is skipped by the fourth way,
// not reported, and counted by a campaign's statistics.
func TestReferenceWaySkipsHostOperators(t *testing.T) {
	p := plan.Scan(testTable(t)).Extension(hostTag).Node()
	rep := Check(context.Background(), Case{Plan: p, Extensions: hostExtensions(t)})
	if !rep.Agree() {
		t.Fatalf("%s", rep)
	}
	ref := rep.Results[Reference]
	if ref.Ran || !strings.Contains(ref.Skipped, "host_tag") {
		t.Errorf("the reference way: ran=%v skipped=%q, want it skipped naming host_tag", ref.Ran, ref.Skipped)
	}
	if s := rep.String(); !strings.Contains(s, "skipped: ") {
		t.Errorf("the report does not say the reference way skipped:\n%s", s)
	}
	st := newStats()
	st.add(rep, nil)
	st.add(Check(context.Background(), Case{Plan: plan.Scan(testTable(t)).Node()}), nil)
	if st.ReferenceRan != 1 || st.ReferenceSkipped != 1 || st.ReferenceSkips["extension host_tag"] != 1 {
		t.Errorf("stats: ran=%d skipped=%d reasons=%v", st.ReferenceRan, st.ReferenceSkipped, st.ReferenceSkips)
	}
	if s := st.ReferenceSummary(); !strings.Contains(s, "ran=1") || !strings.Contains(s, "[extension host_tag: 1]") {
		t.Errorf("summary %q", s)
	}
}

// TestReferenceWayReadsParquet checks the reference way's own Parquet
// reader: every cell of a file written from a table (NaN payloads, -0.0,
// nulls, several row groups) reads back identical, and a plan over the
// file is run, not skipped, and agrees four ways.
func TestReferenceWayReadsParquet(t *testing.T) {
	tab := testTable(t)
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := parquet.WriteTable(path, tab, 3); err != nil {
		t.Fatal(err)
	}
	src, err := parquet.OpenFile("t", path)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := ReadSourceValues(context.Background(), src, tab.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for i := range cols {
		want := tab.Column(i)
		if len(cols[i]) != len(want) {
			t.Fatalf("column %d: %d values, want %d", i, len(cols[i]), len(want))
		}
		for r := range want {
			if !cols[i][r].Identical(want[r]) {
				t.Errorf("column %d row %d: read %s, wrote %s", i, r, cols[i][r], want[r])
			}
		}
	}
	p := plan.Scan(src).Filter(plan.Col("f").IsNaN().Not()).Select(plan.Col("s"), plan.Col("f")).Node()
	rep := Check(context.Background(), Case{Plan: p})
	if !rep.Agree() {
		t.Fatalf("%s", rep)
	}
	if ref := rep.Results[Reference]; !ref.Ran || ref.Outcome.Rows != 3 {
		t.Errorf("the reference way over Parquet: ran=%v skipped=%q rows=%d, want it run with 3 rows", ref.Ran, ref.Skipped, ref.Outcome.Rows)
	}
	// Another source type is unsupported, not an error.
	if _, err := ReadSourceValues(context.Background(), otherSource{}, tab.Schema()); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("an unknown source: %v, want ErrUnsupported", err)
	}
	// A file that no longer matches is a skip too (the executor reports it).
	bad := plan.MustSchema(plan.Field{Name: "a", Type: plan.String, Nullable: true})
	if _, err := ReadSourceValues(context.Background(), src, bad); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("a type mismatch: %v, want ErrUnsupported", err)
	}
}

type otherSource struct{}

func (otherSource) Name() string        { return "other" }
func (otherSource) Schema() plan.Schema { return plan.Schema{} }

// TestCampaignReferenceEvery checks that a campaign gives the reference way
// to every plan by default and to every n-th with ReferenceEvery.
func TestCampaignReferenceEvery(t *testing.T) {
	for _, tc := range []struct{ every, want int }{{0, 40}, {4, 10}, {-1, 0}} {
		c := &Campaign{Seed: 3, N: 40, Workers: 2, MaxShrink: -1, ReferenceEvery: tc.every}
		st, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := st.ReferenceRan + st.ReferenceSkipped; got != tc.want {
			t.Errorf("ReferenceEvery=%d: the reference way saw %d plans, want %d", tc.every, got, tc.want)
		}
		if st.Divergences != 0 {
			t.Errorf("ReferenceEvery=%d: %d divergent plans: %v", tc.every, st.Divergences, st.Classes)
		}
	}
}

// TestReferenceWayOverParquetCases checks generated plans whose tables are
// backed by Parquet files (proptest.WithParquet): the reference way reads
// them with its own reader, runs every plan, and agrees with the others.
func TestReferenceWayOverParquetCases(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	dir := t.TempDir()
	ran := 0
	for i := 0; i < n; i++ {
		pc := proptest.Generate(proptest.CaseSeed(11, i), proptest.DefaultConfig())
		root, tables, err := proptest.WithParquet(pc, dir, 60)
		if err != nil {
			t.Fatal(err)
		}
		rep := Check(context.Background(), Case{Name: fmt.Sprintf("parquet case %d", i), Plan: root})
		if !rep.Agree() {
			t.Fatalf("%s\n%s", rep, pc)
		}
		ref := rep.Results[Reference]
		if ref.Skipped != "" {
			t.Fatalf("case %d: the reference way skipped a plan over Parquet files: %s", i, ref.Skipped)
		}
		if ref.Ran && len(tables) > 0 {
			ran++
		}
	}
	if ran < n/2 {
		t.Errorf("the reference way ran only %d of %d plans over Parquet files", ran, n)
	}
}
