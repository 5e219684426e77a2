package eager_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

var kvFields = []plan.Field{
	{Name: "k", Type: plan.Int64},
	{Name: "v", Type: plan.String, Nullable: true},
}

// kv is a small non-nullable-key table.
func kv(t testing.TB) *plan.Table {
	return mustTable(t, "kv", kvFields,
		[]plan.Value{i64(1), i64(2), i64(1)},
		[]plan.Value{str("a"), null(plan.String), str("c")})
}

// TestChainDoesNotConsumeInputs runs a chain of steps keeping every
// intermediate frame alive and usable, then releases them all: nothing may
// leak and the inputs must be unchanged.
func TestChainDoesNotConsumeInputs(t *testing.T) {
	mem := eagertest.Checked(t)
	s := eager.NewSession(bg, eager.Options{Mem: mem})
	df, err := s.FromTable(kv(t))
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	f1, err := df.Filter(exprs(col("k").Eq(lit(1)))...)
	if err != nil {
		t.Fatal(err)
	}
	defer f1.Release()
	f2, err := f1.WithColumns(exprs(col("k").Mul(lit(10)).Alias("k10"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Release()
	f3, err := f2.Join(df, plan.InnerJoin, exprs(col("k")), exprs(col("k")), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f3.Release()
	f4, err := f3.Concat(f3)
	if err != nil {
		t.Fatal(err)
	}
	defer f4.Release()
	if got, want := f4.Schema().String(), "[k: int64, v: string?, k10: int64, v_right: string?]"; got != want {
		t.Fatalf("schema %s, want %s", got, want)
	}
	if f4.NumRows() != 8 || df.NumRows() != 3 || f1.NumRows() != 2 {
		t.Fatalf("rows: f4 %d df %d f1 %d", f4.NumRows(), df.NumRows(), f1.NumRows())
	}
	want := [][]plan.Value{
		{i64(1), str("a"), i64(10), str("a")}, {i64(1), str("a"), i64(10), str("c")},
		{i64(1), str("c"), i64(10), str("a")}, {i64(1), str("c"), i64(10), str("c")},
	}
	if d := eagertest.DiffRows(rowsOf(t, f3), want); d != "" {
		t.Fatal(d)
	}
	if d := eagertest.DiffRows(rowsOf(t, df), [][]plan.Value{{i64(1), str("a")}, {i64(2), null(plan.String)}, {i64(1), str("c")}}); d != "" {
		t.Fatalf("input changed: %s", d)
	}
	if f4.Session() != s {
		t.Fatal("a derived frame left its session")
	}
}

// TestReleasedAndNilFrames checks that misuse returns errors, never panics.
func TestReleasedAndNilFrames(t *testing.T) {
	mem := eagertest.Checked(t)
	df, err := eager.FromTable(bg, kv(t), eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	df.Release()
	df.Release() // idempotent
	var nilFrame *eager.DataFrame
	for _, f := range []*eager.DataFrame{df, nilFrame} {
		ops := map[string]func() (*eager.DataFrame, error){
			"filter":   func() (*eager.DataFrame, error) { return f.Filter(exprs(lit(true))...) },
			"select":   func() (*eager.DataFrame, error) { return f.Select(exprs(col("k"))...) },
			"head":     func() (*eager.DataFrame, error) { return f.Head(1) },
			"agg":      func() (*eager.DataFrame, error) { return f.Agg(exprs(plan.Len())...) },
			"group_by": func() (*eager.DataFrame, error) { return f.GroupBy(exprs(col("k"))...).Agg(exprs(plan.Len())...) },
			"concat":   func() (*eager.DataFrame, error) { return f.Concat() },
			"distinct": func() (*eager.DataFrame, error) { return f.Distinct() },
		}
		for name, op := range ops {
			out, err := op()
			if err == nil || out != nil {
				t.Fatalf("%s on a released or nil frame: %v, %v", name, out, err)
			}
			if _, ok := plan.AsError(err); !ok {
				t.Fatalf("%s: %T is not a *plan.Error", name, err)
			}
		}
		if _, err := f.Value(0, 0); err == nil {
			t.Fatal("Value on a released frame")
		}
		if f.NumRows() != 0 || f.Record() != nil {
			t.Fatal("a released frame still shows data")
		}
	}
	var g *eager.GroupBy
	if _, err := g.Agg(); err == nil {
		t.Fatal("Agg on a nil GroupBy")
	}
}

// TestValueBounds checks cell access.
func TestValueBounds(t *testing.T) {
	mem := eagertest.Checked(t)
	df, err := eager.FromTable(bg, kv(t), eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	v, err := df.Value(1, 2)
	if err != nil || !v.Identical(str("c")) {
		t.Fatalf("Value(1, 2) = %v, %v", v, err)
	}
	for _, c := range [][2]int{{-1, 0}, {2, 0}, {0, 3}, {0, -1}} {
		if _, err := df.Value(c[0], c[1]); err == nil {
			t.Fatalf("Value(%d, %d) did not fail", c[0], c[1])
		}
	}
	cols, err := df.Columns()
	if err != nil || len(cols) != 2 || len(cols[0]) != 3 {
		t.Fatalf("Columns: %v, %v", cols, err)
	}
	if !strings.Contains(df.String(), "3 rows") {
		t.Fatalf("String: %s", df)
	}
}

// TestFromRecordNullability takes nullability from the Arrow fields and
// rejects a non-nullable field holding a null.
func TestFromRecordNullability(t *testing.T) {
	mem := eagertest.Checked(t)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues([]int64{1, 2}, nil)
	clean := b.NewArray()
	defer clean.Release()
	b.AppendValues([]int64{1, 0}, []bool{true, false})
	holed := b.NewArray()
	defer holed.Release()

	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: false}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{clean}, 2)
	defer rec.Release()
	df, err := eager.FromRecord(bg, rec, eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	if f := df.Schema().Field(0); f.Nullable {
		t.Fatalf("field %s should be non-nullable", f)
	}
	// a + 1 over a non-nullable column is non-nullable, as Resolve says.
	out, err := df.Select(exprs(col("a").Add(lit(1)))...)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.Schema().Field(0).Nullable {
		t.Fatalf("a + 1 became nullable: %s", out.Schema())
	}

	bad := array.NewRecordBatch(schema, []arrow.Array{holed}, 2)
	defer bad.Release()
	if df, err := eager.FromRecord(bg, bad, eager.Options{Mem: mem}); err == nil {
		df.Release()
		t.Fatal("a null in a non-nullable field was accepted")
	}
}

// TestSessionCallCounter: one session counts nd_seq calls across steps in
// evaluation order; a new session starts again from 0.
func TestSessionCallCounter(t *testing.T) {
	mem := eagertest.Checked(t)
	s := eager.NewSession(bg, eager.Options{Mem: mem})
	df, err := s.FromTable(kv(t))
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	seq := exprs(plan.Wrap(eagertest.UDF("nd_seq", col("k")).Expr()).Alias("z"))
	a, err := df.Select(seq...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := df.Select(seq...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if d := eagertest.DiffRows(rowsOf(t, a), [][]plan.Value{{i64(1)}, {i64(3)}, {i64(3)}}); d != "" {
		t.Fatal(d)
	}
	if d := eagertest.DiffRows(rowsOf(t, b), [][]plan.Value{{i64(4)}, {i64(6)}, {i64(6)}}); d != "" {
		t.Fatal(d)
	}
	s2 := eager.NewSession(bg, eager.Options{Mem: mem})
	df2, err := s2.FromTable(kv(t))
	if err != nil {
		t.Fatal(err)
	}
	defer df2.Release()
	c, err := df2.Select(seq...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if d := eagertest.DiffRows(rowsOf(t, c), [][]plan.Value{{i64(1)}, {i64(3)}, {i64(3)}}); d != "" {
		t.Fatalf("a new session did not restart the counter: %s", d)
	}
}

// TestCancellation: a cancelled context stops FromPlan and every step.
func TestCancellation(t *testing.T) {
	mem := eagertest.Checked(t)
	ctx, cancel := context.WithCancel(bg)
	s := eager.NewSession(ctx, eager.Options{Mem: mem})
	df, err := s.FromTable(kv(t))
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	cancel()
	if out, err := df.Filter(exprs(lit(true))...); err == nil {
		out.Release()
		t.Fatal("a step ran under a cancelled context")
	} else if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.Cancelled {
		t.Fatalf("got %v, want kind cancelled", err)
	}
	if out, err := eager.FromPlan(ctx, plan.Scan(kv(t)).Node(), eager.Options{Mem: mem}); err == nil {
		out.Release()
		t.Fatal("FromPlan ran under a cancelled context")
	} else if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.Cancelled {
		t.Fatalf("got %v, want kind cancelled", err)
	}
}

// pairSum is a two-input extension: the row-wise sum of the inputs' k.
var pairSumDef = &plan.ExtensionDef{Name: "pair_sum", Inputs: 2,
	OutputSchema: func(in []plan.Schema) (plan.Schema, error) {
		return plan.NewSchema(plan.Field{Name: "k", Type: plan.Int64})
	}}

func pairSum(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	if in[0].NumRows() != in[1].NumRows() {
		return nil, errors.New("inputs of different heights")
	}
	a, b := in[0].Column(0).(*array.Int64), in[1].Column(0).(*array.Int64)
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	for i := 0; i < a.Len(); i++ {
		bld.Append(a.Value(i) + b.Value(i))
	}
	col := bld.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(a.Len())), nil
}

// TestExtensions runs host operators through the registry, and checks what
// becomes of a failing, panicking, lying or missing implementation.
func TestExtensions(t *testing.T) {
	exts := eager.BuiltinExtensions()
	if err := exts.Register("pair_sum", pairSum); err != nil {
		t.Fatal(err)
	}
	if err := exts.Register("pair_sum", pairSum); err == nil {
		t.Fatal("duplicate registration accepted")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(exts.Register("fails", func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		return nil, errors.New("boom")
	}))
	must(exts.Register("plan_error", func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		return nil, &plan.Error{Kind: plan.Overflow, Expr: "x + 1", Row: 3}
	}))
	must(exts.Register("panics", func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		panic("kaboom")
	}))
	// An operator may change the height: a first-row operator keeps one.
	must(exts.Register("first_row", func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
		return in[0].NewSlice(0, 1), nil
	}))
	must(exts.Register("wrong_schema", func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
		return in[0].NewSlice(0, 1), nil
	}))
	if got := strings.Join(exts.Names(), ","); got != "checked_tag,fails,first_row,identity,lag_first,nd_tag,null_first,pair_sum,panics,passthrough_tag,plan_error,swap_pairs,wrong_schema" {
		t.Fatalf("names: %s", got)
	}
	mem := eagertest.Checked(t)
	opts := eager.Options{Mem: mem, Extensions: exts}
	s := eager.NewSession(bg, opts)
	df, err := s.FromTable(kv(t))
	must(err)
	defer df.Release()
	keys, err := df.Select(exprs(col("k"))...)
	must(err)
	defer keys.Release()

	sum, err := keys.Extension(pairSumDef, keys)
	must(err)
	if d := eagertest.DiffRows(rowsOf(t, sum), [][]plan.Value{{i64(2)}, {i64(4)}, {i64(2)}}); d != "" {
		t.Fatal(d)
	}
	sum.Release()

	// The same through FromPlan, over two scans.
	n := plan.Scan(kv(t)).Select(col("k")).Extension(pairSumDef, plan.Scan(kv(t)).Select(col("k"))).Node()
	viaPlan, err := eager.FromPlan(bg, n, opts)
	must(err)
	if d := eagertest.DiffRows(rowsOf(t, viaPlan), [][]plan.Value{{i64(2)}, {i64(4)}, {i64(2)}}); d != "" {
		t.Fatal(d)
	}
	viaPlan.Release()

	oneDef := func(name string) *plan.ExtensionDef { return &plan.ExtensionDef{Name: name, Inputs: 1} }
	twoCols := func(name string) *plan.ExtensionDef {
		return &plan.ExtensionDef{Name: name, Inputs: 1, OutputSchema: func(in []plan.Schema) (plan.Schema, error) {
			return plan.NewSchema(plan.Field{Name: "other", Type: plan.Int64})
		}}
	}
	for _, c := range []struct {
		def  *plan.ExtensionDef
		kind plan.ErrorKind
		expr string
	}{
		{oneDef("fails"), plan.UDFError, "fails"},
		{oneDef("plan_error"), plan.Overflow, "x + 1"},
		{oneDef("panics"), plan.UDFError, "panics"},
		{twoCols("wrong_schema"), plan.InvalidPlan, "wrong_schema"},
		{oneDef("nowhere"), plan.InvalidPlan, "nowhere"},
		{nil, plan.InvalidPlan, ""},
		{pairSumDef, plan.InvalidPlan, ""}, // one input for two
	} {
		out, err := df.Extension(c.def)
		if err == nil {
			out.Release()
			t.Fatalf("%v: no error", c.def)
		}
		eagertest.CheckErr(t, fmt.Sprint(c.def), err, &eagertest.WantErr{Kind: c.kind, Expr: c.expr, Row: -1})
	}
	first, err := df.Extension(oneDef("first_row"))
	must(err)
	if d := eagertest.DiffRows(rowsOf(t, first), [][]plan.Value{{i64(1), str("a")}}); d != "" {
		t.Fatal(d)
	}
	first.Release()
}

// source is a host source that is not a *plan.Table.
type source struct {
	t    *plan.Table
	fail error
}

func (s *source) Name() string        { return "host" }
func (s *source) Schema() plan.Schema { return s.t.Schema() }

// scanner also implements eager.Scanner.
type scanner struct{ source }

func (s *scanner) ScanAll(_ context.Context, mem memory.Allocator) (arrow.RecordBatch, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	return kernel.TableRecord(mem, s.t)
}

// TestScanHooks covers the ways to read a source that is not a table.
func TestScanHooks(t *testing.T) {
	mem := eagertest.Checked(t)
	tb := kv(t)
	wantAll := [][]plan.Value{{i64(1), str("a")}, {i64(2), null(plan.String)}, {i64(1), str("c")}}
	byFunc := func(ctx context.Context, src plan.Source, mem memory.Allocator) (arrow.RecordBatch, error) {
		switch s := src.(type) {
		case *source:
			return kernel.TableRecord(mem, s.t)
		case *scanner:
			return nil, errors.New("the ScanFunc comes first")
		}
		return nil, errors.New("unknown source")
	}
	wrongType := mustTable(t, "wrong", []plan.Field{{Name: "k", Type: plan.String}, {Name: "v", Type: plan.String, Nullable: true}},
		[]plan.Value{str("1")}, []plan.Value{str("x")})
	for _, c := range []struct {
		name string
		src  plan.Source
		fn   eager.ScanFunc
		want [][]plan.Value
		err  *eagertest.WantErr
	}{
		{name: "scanner", src: &scanner{source{t: tb}}, want: wantAll},
		{name: "scan-func", src: &source{t: tb}, fn: byFunc, want: wantAll},
		{name: "scan-func-first", src: &scanner{source{t: tb}}, fn: byFunc, err: &eagertest.WantErr{Kind: plan.SourceError, Expr: "host", Row: -1}},
		{name: "no-way", src: &source{t: tb}, err: &eagertest.WantErr{Kind: plan.SourceError, Expr: "host", Row: -1}},
		{name: "scanner-fails", src: &scanner{source{t: tb, fail: errors.New("disk")}}, err: &eagertest.WantErr{Kind: plan.SourceError, Expr: "host", Row: -1}},
		{name: "scanner-cancelled", src: &scanner{source{t: tb, fail: context.Canceled}}, err: &eagertest.WantErr{Kind: plan.Cancelled, Row: -1}},
		{name: "wrong-data", src: &scanner{source{t: wrongType}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := plan.Scan(c.src).Node()
			if c.name == "wrong-data" {
				// The plan captured kv's schema; the source hands back strings.
				sn := n.(*plan.ScanNode)
				cp := *sn
				cp.SourceSchema = tb.Schema()
				n = &cp
				c.err = &eagertest.WantErr{Kind: plan.SourceError, Expr: "host", Row: -1}
			}
			df, err := eager.FromPlan(bg, n, eager.Options{Mem: mem, Scan: c.fn})
			if c.err != nil {
				if err == nil {
					df.Release()
				}
				eagertest.CheckErr(t, c.name, err, c.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer df.Release()
			if d := eagertest.DiffRows(rowsOf(t, df), c.want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestErrorsNameTheStep: a failing method's error names the step (the
// label of the equivalent plan node) and the first failing row.
func TestErrorsNameTheStep(t *testing.T) {
	mem := eagertest.Checked(t)
	tb := mustTable(t, "d", []plan.Field{{Name: "a", Type: plan.Int64}, {Name: "b", Type: plan.Int64}},
		[]plan.Value{i64(1), i64(2), i64(3)}, []plan.Value{i64(1), i64(1), i64(0)})
	df, err := eager.FromTable(bg, tb, eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	_, err = df.WithColumns(exprs(col("a").Div(col("b")).Alias("q"))...)
	pe, ok := plan.AsError(err)
	if !ok || pe.Kind != plan.DivideByZero || pe.Expr != "a / b" || pe.Row != 2 || pe.Node != "with_columns [a / b as q]" {
		t.Fatalf("got %#v", pe)
	}
	_, err = df.Filter(exprs(col("zz"))...)
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.UnknownColumn || pe.Node != "filter [zz]" || pe.Path != ".predicates[0]" {
		t.Fatalf("got %#v", pe)
	}
}

// TestFloatBitsSurvive checks bitwise preservation of NaN payloads and -0.0
// through sort, group keys, distinct and joins (the oracle compares bits).
func TestFloatBitsSurvive(t *testing.T) {
	mem := eagertest.Checked(t)
	nan := plan.Float64Value(mathNaNPayload)
	tb := mustTable(t, "f", []plan.Field{{Name: "x", Type: plan.Float64, Nullable: true}},
		[]plan.Value{f64(negZero), nan, f64(0)})
	df, err := eager.FromTable(bg, tb, eager.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer df.Release()
	sorted, err := df.Sort(plan.Desc(col("x")))
	if err != nil {
		t.Fatal(err)
	}
	defer sorted.Release()
	if d := eagertest.DiffRows(rowsOf(t, sorted), [][]plan.Value{{nan}, {f64(0)}, {f64(negZero)}}); d != "" {
		t.Fatal(d)
	}
	dist, err := df.Distinct()
	if err != nil {
		t.Fatal(err)
	}
	defer dist.Release()
	if d := eagertest.DiffRows(rowsOf(t, dist), [][]plan.Value{{f64(negZero)}, {nan}}); d != "" {
		t.Fatal(d)
	}
	joined, err := df.Join(df, plan.InnerJoin, exprs(col("x")), exprs(col("x")), "")
	if err != nil {
		t.Fatal(err)
	}
	defer joined.Release()
	if d := eagertest.DiffRows(rowsOf(t, joined), [][]plan.Value{{f64(negZero)}, {f64(negZero)}, {nan}, {f64(0)}, {f64(0)}}); d != "" {
		t.Fatal(d)
	}
}
