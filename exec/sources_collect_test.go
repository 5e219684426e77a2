package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/exectest"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// hostSource is a test Source: it serves a plan table through Scan, can
// classify conjuncts Exact (and then filters them by evaluating them), and
// can misbehave on demand.
type hostSource struct {
	t      *plan.Table
	exact  bool   // classify every conjunct Exact and apply it
	lie    bool   // classify Exact but do not apply
	fail   string // "error", "panic", "type"
	pushed []plan.PushedPredicate
}

func (h *hostSource) Name() string        { return "host" }
func (h *hostSource) Schema() plan.Schema { return h.t.Schema() }

func (h *hostSource) ClassifyPredicates(conj []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conj))
	for i := range out {
		if h.exact || h.lie {
			out[i] = plan.Exact
		}
	}
	return out
}

func (h *hostSource) Scan(ctx context.Context, req ScanRequest) (array.RecordReader, error) {
	h.pushed = req.Predicates
	switch h.fail {
	case "error":
		return nil, errors.New("disk on fire")
	case "panic":
		panic("host bug")
	}
	rec, err := kernel.TableRecord(req.Mem, h.t)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if h.exact && len(req.Predicates) > 0 {
		ev := &kernel.Evaluator{Mem: req.Mem}
		exprs := make([]plan.Expr, len(req.Predicates))
		for i, p := range req.Predicates {
			exprs[i] = p.Expr
		}
		sel, err := ev.EvalPredicate(ctx, exprs, rec, 0)
		if err != nil {
			return nil, err
		}
		defer sel.Release()
		if rec, err = ops.FilterRecord(req.Mem, rec, sel); err != nil {
			return nil, err
		}
		defer rec.Release()
	}
	idx, err := req.ColumnIndices(h.t.Schema())
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for _, j := range idx {
		fields = append(fields, rec.Schema().Field(j))
		cols = append(cols, rec.Column(j))
	}
	switch h.fail {
	case "type":
		fields = []arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}}
		b := array.NewStringBuilder(req.Mem)
		b.AppendValues(make([]string, rec.NumRows()), nil)
		a := b.NewArray()
		b.Release()
		defer a.Release()
		cols = []arrow.Array{a}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer out.Release()
	return array.NewRecordReader(out.Schema(), []arrow.RecordBatch{out})
}

// pushedScan is exectest.PushedScan.
var pushedScan = exectest.PushedScan

func TestScanPushedPredicates(t *testing.T) {
	T := tableT(t)
	gt1 := c("k").Gt(lt(1))
	// A source without a classifier: the executor applies Exact conjuncts,
	// also over columns the scan does not output.
	check(t, pushedScan(T, []string{"s"}, plan.Exact, gt1), want{cols: []col{{"s", strs("b", "", "c")}}})
	// Inexact conjuncts are the plan's business (the filter stays above).
	check(t, pushedScan(T, []string{"s"}, plan.Inexact, gt1), want{cols: []col{{"s", tS}}})
	// A source that classifies Exact applies the conjunct itself...
	h := &hostSource{t: T, exact: true}
	check(t, pushedScan(h, nil, plan.Exact, gt1), want{cols: rowsT(1, 4, 5)})
	if len(h.pushed) != 1 {
		t.Errorf("the source received %d pushed conjuncts, want 1", len(h.pushed))
	}
	// ...and is trusted: the executor does not apply it again.
	check(t, pushedScan(&hostSource{t: T, lie: true}, nil, plan.Exact, gt1), want{cols: rowsT(0, 1, 2, 3, 4, 5)})
	// An executor-applied conjunct raises like a filter would.
	check(t, pushedScan(T, nil, plan.Exact, c("k").Div(lt(0)).Gt(lt(1))), want{errKind: plan.DivideByZero, errExpr: "k / 0"})
}

func TestHostSourceFailures(t *testing.T) {
	T := tableT(t)
	for _, fail := range []string{"error", "panic", "type"} {
		t.Run(fail, func(t *testing.T) {
			check(t, plan.Scan(&hostSource{t: T, fail: fail}).Node(), want{errKind: plan.SourceError, errExpr: "host"})
		})
	}
	// Nulls in a column the source declares non-nullable.
	liar := mustTable(t, "liar", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}}, ints(1, nil))
	strict := plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64})
	n := &plan.ScanNode{Source: &hostSource{t: liar}, SourceSchema: strict}
	check(t, n, want{errKind: plan.SourceError, errExpr: "host"})
	// A source the executor cannot read.
	check(t, plan.Scan(opaque{}).Node(), want{errKind: plan.SourceError})
}

type opaque struct{}

func (opaque) Name() string { return "opaque" }
func (opaque) Schema() plan.Schema {
	return plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64})
}

func TestCollectArrowSource(t *testing.T) {
	mem := checked(t)
	T := tableT(t)
	rec, err := kernel.TableRecord(mem, T)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewArrowSource("arrow_t", rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	res, err := Collect(context.Background(), plan.Scan(src).Filter(c("k").Gt(lt(1))).Node(), Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	compare(t, res, rowsT(1, 4, 5))
}

// TestCollectSourceBatchCounts: a host source that yields no batch gives an
// empty result with the read columns; one that yields several batches of no
// column keeps their total height.
func TestCollectSourceBatchCounts(t *testing.T) {
	mem := checked(t)
	T := tableT(t)
	rec, err := kernel.TableRecord(mem, T)
	if err != nil {
		t.Fatal(err)
	}
	empty := array.NewTableFromRecords(rec.Schema(), nil)
	twice := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec, rec})
	rec.Release()
	defer empty.Release()
	defer twice.Release()
	for _, tc := range []struct {
		name string
		data arrow.Table
		cols []string
		want []col
	}{
		{"no batch", empty, []string{"s", "k"}, []col{{"s", strs()}, {"k", ints()}}},
		{"no batch, all columns", empty, nil, rowsT()},
		{"two batches of no column", twice, []string{}, []col{{"one", repeat(plan.Int64Value(1), 12)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := NewArrowSource("arrow_t", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Release()
			scan := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Projected: tc.cols != nil, Columns: tc.cols}
			n := plan.Node(scan)
			if len(tc.cols) == 0 && tc.cols != nil {
				n = plan.FromNode(scan).Select(lt(1).Alias("one")).Node()
			}
			check(t, n, want{cols: tc.want})
		})
	}
}

func TestBadPlans(t *testing.T) {
	T := tableT(t)
	cases := []struct {
		name string
		plan plan.Node
		kind plan.ErrorKind
	}{
		{"unknown column", plan.Scan(T).Select(c("zz")).Node(), plan.UnknownColumn},
		{"type error", plan.Scan(T).Filter(c("k").Add(lt("x")).Gt(lt(1))).Node(), plan.TypeError},
		{"non-bool filter", plan.Scan(T).Filter(c("k")).Node(), plan.TypeError},
		{"duplicate output", plan.Scan(T).Select(c("k"), c("k")).Node(), plan.DuplicateColumn},
		{"scan without source", &plan.ScanNode{}, plan.InvalidPlan},
		{"join without keys", &plan.JoinNode{Left: plan.Scan(T).Node(), Right: plan.Scan(T).Node(), How: plan.InnerJoin}, plan.InvalidPlan},
		{"nil input", &plan.FilterNode{Predicates: []plan.Expr{lt(true).Expr()}}, plan.InvalidPlan},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.plan, want{errKind: tc.kind}) })
	}
	if _, err := Collect(context.Background(), nil, Options{}); err == nil {
		t.Fatal("collect of a nil plan succeeded")
	}
}

func TestCancellation(t *testing.T) {
	T := tableT(t)
	// Already cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Collect(ctx, plan.Scan(T).Node(), Options{Mem: checked(t)})
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled {
		t.Fatalf("pre-cancelled collect: %v", err)
	}
	// Cancelled by a node in the middle of the plan: the next node stops.
	def := &plan.ExtensionDef{Name: "cancel", Inputs: 1}
	exts := BuiltinExtensions()
	var stop context.CancelFunc
	if err := exts.Register("cancel", func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
		stop()
		in[0].Retain()
		return in[0], nil
	}); err != nil {
		t.Fatal(err)
	}
	var evaluated []string
	ctx, stop = context.WithCancel(context.Background())
	n := plan.Scan(T).Filter(c("k").Gt(lt(0))).Extension(def).Filter(c("k").Gt(lt(1))).Sort(plan.Asc(c("k"))).Node()
	_, err = Collect(ctx, n, Options{Mem: checked(t), Extensions: exts, OnEvaluate: func(n plan.Node) { evaluated = append(evaluated, n.Kind().String()) }})
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled {
		t.Fatalf("collect cancelled by a node: %v", err)
	}
	stop()
	if got := strings.Join(evaluated, ","); got != "scan,filter,extension" {
		t.Errorf("evaluated %s after cancellation, want scan,filter,extension", got)
	}
	// Cancelled inside an expression over a large input.
	big := bigTable(t, 200_000)
	defer big.Release()
	cancelUDF := &plan.UDF{Name: "cancel_at_10", Params: []plan.Type{plan.Int64}, Result: plan.Int64, Deterministic: true,
		Fn: func(ctx context.Context, args []plan.Value) (plan.Value, error) {
			if plan.CallCount(ctx) == 10 {
				stop()
			}
			return args[0], nil
		}}
	ctx, stop = context.WithCancel(context.Background())
	defer stop()
	_, err = Collect(ctx, plan.Scan(big).Select(plan.CallUDF(cancelUDF, c("c0")).Alias("x")).Node(), Options{Mem: checked(t)})
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled {
		t.Fatalf("collect cancelled inside an expression: %v", err)
	}
}

// bigTable is an n-row ArrowSource with int64 columns c0 (row number) and c1
// (row number mod 1000).
func bigTable(t testing.TB, n int) *ArrowSource {
	t.Helper()
	b0 := array.NewInt64Builder(memory.DefaultAllocator)
	b1 := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		b0.Append(int64(i))
		b1.Append(int64(i % 1000))
	}
	a0, a1 := b0.NewArray(), b1.NewArray()
	b0.Release()
	b1.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "c0", Type: arrow.PrimitiveTypes.Int64}, {Name: "c1", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{a0, a1}, int64(n))
	a0.Release()
	a1.Release()
	src, err := NewArrowSource(fmt.Sprintf("big%d", n), rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	return src
}
