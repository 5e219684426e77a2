package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// collectColumns collects n (resolved here) and returns its columns.
func collectColumns(t *testing.T, n plan.Node, opts Options) [][]plan.Value {
	t.Helper()
	opts.Mem = checked(t)
	res, err := Collect(context.Background(), n, opts)
	if err != nil {
		t.Fatalf("collect %s: %v", plan.Explain(n), err)
	}
	defer res.Release()
	cols, err := res.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// TestTopKSortIsSortThenLimit checks a top-k sort (SortNode.HasLimit,
// evaluated by ops.TopK's heap or partial sort) against the full sort
// followed by a limit, row for row and bit for bit, over keys that tie a
// lot (rows tied on every key must keep input order), NaN payloads, ±0.0
// and nulls, for k below, at and above the row count, sequentially and in
// parallel partitions; a limit over a top-k sort keeps the smaller count.
func TestTopKSortIsSortThenLimit(t *testing.T) {
	keySets := [][]plan.SortKey{
		{{Expr: plan.Col("k").Expr()}},
		{{Expr: plan.Col("k").Expr(), Desc: true}},
		{{Expr: plan.Col("k").Expr(), NullsLast: true}, {Expr: plan.Col("f").Expr(), Desc: true}},
		{{Expr: plan.Col("f").Expr()}},
		{{Expr: plan.Col("f").Expr(), Desc: true, NullsLast: true}},
	}
	for _, rows := range []int{0, 1, 7, 40, 300} {
		tbl := tieTable(t, rows, int64(rows))
		for ki, keys := range keySets {
			for _, k := range []int64{0, 1, 2, 5, int64(rows), int64(rows) + 3} {
				scan := plan.Scan(tbl).Node()
				full := &plan.LimitNode{Input: &plan.SortNode{Input: scan, Keys: keys}, N: k}
				topK := &plan.SortNode{Input: scan, Keys: keys, HasLimit: true, Limit: k}
				over := &plan.LimitNode{Input: &plan.SortNode{Input: scan, Keys: keys, HasLimit: true, Limit: k + 2}, N: k}
				for _, opts := range []Options{{Parallelism: 1}, forcedParallel} {
					want := collectColumns(t, full, opts)
					for name, n := range map[string]plan.Node{"top-k": topK, "limit over a larger top-k": over} {
						got := collectColumns(t, n, opts)
						for c := range want {
							if !sameValues(got[c], want[c]) {
								t.Fatalf("rows=%d keys#%d k=%d %s column %d: got %s, want %s", rows, ki, k, name, c, render(got[c]), render(want[c]))
							}
						}
					}
				}
			}
		}
	}
}

// TestTopKSortRaisesLikeTheSort: a top-k sort evaluates its keys over
// every input row, so a key that raises on a row past the k-th raises.
func TestTopKSortRaisesLikeTheSort(t *testing.T) {
	ks := []plan.Value{plan.Int64Value(2), plan.Int64Value(1), plan.Int64Value(0)}
	T, err := plan.NewTable("z", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64}), [][]plan.Value{ks})
	if err != nil {
		t.Fatal(err)
	}
	keys := []plan.SortKey{{Expr: plan.Lit(int64(1)).Div(plan.Col("k")).Expr()}}
	for _, k := range []int64{0, 1} {
		n := &plan.SortNode{Input: plan.Scan(T).Node(), Keys: keys, HasLimit: true, Limit: k}
		full := &plan.LimitNode{Input: &plan.SortNode{Input: plan.Scan(T).Node(), Keys: keys}, N: k}
		for _, p := range []plan.Node{n, full} {
			res, err := Collect(context.Background(), p, Options{Mem: checked(t)})
			if err == nil {
				res.Release()
				t.Fatalf("k=%d: %s succeeded; want divide_by_zero", k, plan.Explain(p))
			}
			if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.DivideByZero || pe.Expr != "1 / k" {
				t.Fatalf("k=%d: %v, want divide_by_zero in `1 / k`", k, err)
			}
		}
	}
}

// TestScanHintTableStopsEarly: an in-memory table given a max-rows hint
// applies its Exact conjuncts to a prefix only — a conjunct that raises
// past the prefix does not raise, which is why the optimizer gives the
// hint only when the Exact conjuncts are total (lp.scan) — reads on when
// the prefix holds too few passing rows, reads whole row groups of a
// zone-map table, and is read whole when nothing bounds the scan.
func TestScanHintTableStopsEarly(t *testing.T) {
	ids := []plan.Value{plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3), plan.Int64Value(4), plan.Int64Value(5)}
	divs := []plan.Value{plan.Int64Value(1), plan.Int64Value(1), plan.Int64Value(1), plan.Int64Value(1), plan.Int64Value(0)}
	tbl, err := plan.NewTable("h", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64}),
		[][]plan.Value{ids, divs})
	if err != nil {
		t.Fatal(err)
	}
	partial := plan.PushedPredicate{Expr: plan.Col("a").Div(plan.Col("b")).Gt(plan.Lit(int64(0))).Expr(), Support: plan.Exact}
	total := plan.PushedPredicate{Expr: plan.Col("a").Gt(plan.Lit(int64(2))).Expr(), Support: plan.Exact}
	a := func(vs ...int64) []col {
		out := make([]plan.Value, len(vs))
		for i, v := range vs {
			out[i] = plan.Int64Value(v)
		}
		return []col{{"a", out}, {"b", pick(divs, make([]int, len(vs))...)}}
	}
	// The source stops after two passing rows: the zero divisor of row 4
	// is never met.
	check(t, hinted(tbl, 2, 2, partial), want{cols: a(1, 2)})
	// Without the hint the whole table is filtered, and row 4 raises.
	check(t, &plan.LimitNode{Input: &plan.ScanNode{Source: tbl, SourceSchema: tbl.Schema(), Pushed: []plan.PushedPredicate{partial}}, N: 2},
		want{errKind: plan.DivideByZero, errExpr: "a / b"})
	// Too few rows pass in the prefix [1, 2]: the table reads on.
	check(t, hinted(tbl, 2, 2, total), want{cols: a(3, 4)})
	// A hint of 0 reads nothing.
	check(t, hinted(tbl, 0, 0, partial), want{cols: a()})
	// A zone-map table reads whole row groups: of 2 rows, the prefix for
	// a hint of 3 is rows [0, 4), so row 4 is still not met; of 5 rows, it
	// is the whole table, and row 4 raises.
	check(t, hinted(tbl.WithZoneMaps(2), 3, 3, partial), want{cols: a(1, 2, 3)})
	check(t, hinted(tbl.WithZoneMaps(5), 3, 3, partial), want{errKind: plan.DivideByZero, errExpr: "a / b"})
	check(t, hinted(tbl, 3, 3, partial), want{cols: a(1, 2, 3)})
	// A hinted scan that nothing bounds (the plan's root) is read whole:
	// Resolve cannot see the root from a subtree, so the executor gives a
	// source the hint only under a limit that allows it.
	root := &plan.ScanNode{Source: tbl, SourceSchema: tbl.Schema(), HasMaxRows: true, MaxRows: 1}
	check(t, root, want{cols: []col{{"a", ids}, {"b", divs}}})
	// A limit keeping more rows than the hint does not allow it either.
	check(t, hinted(tbl, 3, 1, partial), want{errKind: plan.InvalidPlan})
}

// TestResolveChecksHints: a hinted scan may be read only by a limit or
// slice keeping at most the hint's rows, through projections without
// over() whose expressions are deterministic and total; negative hints and
// top-k limits are rejected.
func TestResolveChecksHints(t *testing.T) {
	T := tableT(t)
	scan := func(hint int64) *plan.ScanNode {
		return &plan.ScanNode{Source: T, SourceSchema: T.Schema(), HasMaxRows: true, MaxRows: hint}
	}
	proj := func(in plan.Node) plan.Node {
		return &plan.ProjectNode{Input: in, Exprs: []plan.Expr{plan.Col("k").Expr()}}
	}
	ok := []plan.Node{
		&plan.LimitNode{Input: scan(3), N: 3},
		&plan.LimitNode{Input: proj(proj(scan(3))), N: 2},
		&plan.SliceNode{Input: scan(3), Offset: 1, Len: 2},
		&plan.SliceNode{Input: scan(math.MaxInt64), Offset: math.MaxInt64, Len: 1},
		&plan.SortNode{Input: plan.Scan(T).Node(), Keys: []plan.SortKey{{Expr: plan.Col("k").Expr()}}, HasLimit: true, Limit: 0},
	}
	for _, n := range ok {
		if _, err := plan.Resolve(n); err != nil {
			t.Errorf("%s: %v", plan.Explain(n), err)
		}
	}
	bad := []plan.Node{
		&plan.LimitNode{Input: scan(2), N: 3},
		&plan.SliceNode{Input: scan(3), Offset: 2, Len: 2},
		&plan.LimitNode{Input: &plan.FilterNode{Input: scan(3), Predicates: []plan.Expr{plan.Col("k").Gt(plan.Lit(int64(1))).Expr()}}, N: 1},
		&plan.LimitNode{Input: &plan.SortNode{Input: scan(3), Keys: []plan.SortKey{{Expr: plan.Col("k").Expr()}}}, N: 1},
		&plan.LimitNode{Input: &plan.WithColumnsNode{Input: scan(3), Exprs: []plan.Expr{plan.Col("k").Sum().Over(plan.Col("k")).Alias("s").Expr()}}, N: 1},
		// A projection passes the hint on only when it is deterministic
		// and total: k / k below limit 1 would not meet row 2's 0 / 0.
		&plan.LimitNode{Input: &plan.ProjectNode{Input: scan(1), Exprs: []plan.Expr{plan.Col("k").Div(plan.Col("k")).Alias("x").Expr()}}, N: 1},
		&plan.LimitNode{Input: &plan.WithColumnsNode{Input: scan(1), Exprs: []plan.Expr{plan.Col("k").Div(plan.Col("k")).Alias("x").Expr()}}, N: 1},
		&plan.LimitNode{Input: scan(-1), N: 0},
		&plan.SortNode{Input: plan.Scan(T).Node(), Keys: []plan.SortKey{{Expr: plan.Col("k").Expr()}}, HasLimit: true, Limit: -1},
	}
	for _, n := range bad {
		if _, err := plan.Resolve(n); err == nil {
			t.Errorf("%s resolves; want invalid_plan", plan.Explain(n))
		} else if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.InvalidPlan {
			t.Errorf("%s: %v, want invalid_plan", plan.Explain(n), err)
		}
	}
}

// TestScanHintArrowSource: an Arrow source given a hint produces only the
// batches that hold the first rows; without it, all of them.
func TestScanHintArrowSource(t *testing.T) {
	mem := checked(t)
	tbl := tieTable(t, 9, 4)
	rec, err := kernel.TableRecord(mem, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var batches []arrow.RecordBatch
	for lo := int64(0); lo < rec.NumRows(); lo += 3 {
		batches = append(batches, rec.NewSlice(lo, lo+3))
	}
	at := array.NewTableFromRecords(rec.Schema(), batches)
	for _, b := range batches {
		b.Release()
	}
	defer at.Release()
	src, err := NewArrowSource("arrow", at)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	for _, tc := range []struct {
		req  ScanRequest
		rows int64
	}{
		{ScanRequest{}, 9},
		{ScanRequest{HasMaxRows: true, MaxRows: 0}, 0},
		{ScanRequest{HasMaxRows: true, MaxRows: 2}, 3},
		{ScanRequest{HasMaxRows: true, MaxRows: 4}, 6},
		{ScanRequest{HasMaxRows: true, MaxRows: 100}, 9},
	} {
		tc.req.Mem = mem
		rr, err := src.Scan(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		var rows int64
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		rr.Release()
		if rows != tc.rows {
			t.Errorf("%+v: %d rows, want %d", tc.req, rows, tc.rows)
		}
	}
	// Collected under a limit, the rows are the limit's.
	got := collectColumns(t, hinted(src, 4, 4), Options{Parallelism: 1})
	want := collectColumns(t, &plan.LimitNode{Input: plan.Scan(tbl).Node(), N: 4}, Options{Parallelism: 1})
	for c := range want {
		if !sameValues(got[c], want[c]) {
			t.Errorf("column %d: %s, want %s", c, render(got[c]), render(want[c]))
		}
	}
}

// arrowOf serves an in-memory table as an Arrow source (converted once,
// so a benchmark's collects measure the plan, not the conversion).
func arrowOf(b *testing.B, tbl *plan.Table) *ArrowSource {
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Release()
	src, err := NewArrowSource(tbl.Name(), rec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(src.Release)
	return src
}

// BenchmarkTopK compares a top-k sort with the full sort followed by a
// slice (which the executor sorts in full; a limit directly over a sort it
// already evaluates as a top-k), over one int64 key with ties and over two
// keys with nulls and NaNs, for a few k, on 200,000 rows of an Arrow
// source.
func BenchmarkTopK(b *testing.B) {
	const rows = 200_000
	tbl := tieTable(b, rows, 9)
	ids := make([]plan.Value, rows)
	r := rand.New(rand.NewSource(1))
	for i := range ids {
		ids[i] = plan.Int64Value(r.Int63n(rows))
	}
	keyed, err := plan.NewTable("keyed", plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64}), [][]plan.Value{ids})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		src  plan.Source
		keys []plan.SortKey
	}{
		{"one_key", arrowOf(b, keyed), []plan.SortKey{{Expr: plan.Col("x").Expr(), Desc: true}}},
		{"two_keys", arrowOf(b, tbl), []plan.SortKey{{Expr: plan.Col("k").Expr(), NullsLast: true}, {Expr: plan.Col("f").Expr(), Desc: true}}},
	} {
		for _, k := range []int64{10, 1000} {
			scan := plan.Scan(tc.src).Node()
			plans := map[string]plan.Node{
				"topk":       &plan.SortNode{Input: scan, Keys: tc.keys, HasLimit: true, Limit: k},
				"sort_limit": &plan.SliceNode{Input: &plan.SortNode{Input: scan, Keys: tc.keys}, Offset: 0, Len: k},
			}
			for _, way := range []string{"topk", "sort_limit"} {
				n, err := plan.Resolve(plans[way])
				if err != nil {
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("%s/k=%d/%s", tc.name, k, way), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						res, err := Collect(context.Background(), n, Options{Parallelism: 1})
						if err != nil {
							b.Fatal(err)
						}
						res.Release()
					}
				})
			}
		}
	}
}
