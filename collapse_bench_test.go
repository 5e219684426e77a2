package dfopt

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// joinWhereTables returns two tables of n rows: k a key in [0, n) (each
// value about once on the left, a permutation on the right), v a payload.
func joinWhereTables(tb testing.TB, n int) (*plan.Table, *plan.Table) {
	tb.Helper()
	lk, lv, rk, rv := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for i := 0; i < n; i++ {
		lk[i] = plan.Int64Value(int64((i * 7919) % n))
		lv[i] = plan.Int64Value(int64(i))
		rk[i] = plan.Int64Value(int64((i * 104729) % n))
		rv[i] = plan.Int64Value(int64(-i))
	}
	schema := plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64}, plan.Field{Name: "v", Type: plan.Int64})
	l, err := plan.NewTable("l", schema, [][]plan.Value{lk, lv})
	if err != nil {
		tb.Fatal(err)
	}
	r, err := plan.NewTable("r", schema, [][]plan.Value{rk, rv})
	if err != nil {
		tb.Fatal(err)
	}
	return l, r
}

// joinWhereRows is DFOPT_JOIN_WHERE_ROWS, or 10,000: the rows of each side
// of BenchmarkJoinWhere.
func joinWhereRows() int {
	if n, err := strconv.Atoi(os.Getenv("DFOPT_JOIN_WHERE_ROWS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// BenchmarkJoinWhere collects `FROM l, r WHERE l.k = r.k AND l.v > r.v`
// (Frame.JoinWhere) over two tables of 10,000 rows each
// (DFOPT_JOIN_WHERE_ROWS changes it), optimized with the standard tier
// with collapse_cross_join on and off. Off, the executor materializes the
// 100,000,000-pair cross product and filters it; on, it hashes one side
// and probes the other. Both give the same 10,000-ish rows (checked).
// Run it alone: go test -run XXX -bench JoinWhere -benchtime 1x -benchmem.
func BenchmarkJoinWhere(b *testing.B) {
	n := joinWhereRows()
	l, r := joinWhereTables(b, n)
	q := plan.Scan(l).JoinWhere(plan.Scan(r), plan.Col("k").Eq(plan.Col("k_right")), plan.Col("v").Gt(plan.Col("v_right")))
	rowsBy := map[bool]int{}
	for _, collapse := range []bool{true, false} {
		b.Run(fmt.Sprintf("rows=%d/collapse=%v", n, collapse), func(b *testing.B) {
			flags := rules.DefaultFlags()
			if err := flags.Set(rules.FlagCollapseCrossJoin, collapse); err != nil {
				b.Fatal(err)
			}
			lf := Lazy(q).WithFlags(flags)
			for i := 0; i < b.N; i++ {
				res, err := lf.Collect(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				rowsBy[collapse] = res.NumRows()
				res.Release()
			}
			b.ReportMetric(float64(rowsBy[collapse]), "rows")
		})
	}
	if rowsBy[true] != rowsBy[false] {
		b.Errorf("collapsed: %d rows, not collapsed: %d", rowsBy[true], rowsBy[false])
	}
}

// TestJoinWhereCollapses: the benchmark's query collapses into an inner
// join (and hashes neither side differently: both are 1,000 rows), and the
// optimized and unoptimized collects give the same rows.
func TestJoinWhereCollapses(t *testing.T) {
	l, r := joinWhereTables(t, 1000)
	q := plan.Scan(l).JoinWhere(plan.Scan(r), plan.Col("k").Eq(plan.Col("k_right")), plan.Col("v").Gt(plan.Col("v_right")))
	res, err := Lazy(q).Optimize()
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Counters.Get("collapsedJoins"); got != 1 {
		t.Fatalf("collapsedJoins = %d:\n%s", got, rules.ExplainText(res, true))
	}
	want := "filter [v > v_right]\n  join inner on=[k = k as k]\n    scan l\n    scan r\n"
	if got := plan.Explain(res.Plan); got != want {
		t.Errorf("optimized plan:\n%s\nwant\n%s", got, want)
	}
	var texts [2]string
	for i, flags := range []rules.Flags{rules.DefaultFlags(), {}} {
		out, err := Lazy(q).WithFlags(flags).Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if texts[i], err = FormatCSV(out); err != nil {
			t.Fatal(err)
		}
		out.Release()
	}
	if texts[0] != texts[1] {
		t.Errorf("the collapsed join gives other rows than the cross join")
	}
}

// arrowKeys returns an Arrow source of n rows: k, the keys 0..n-1 in a
// scrambled order times a large odd constant (so they are hashed, not
// direct-mapped), and v a payload.
func arrowKeys(tb testing.TB, name string, n int) *exec.ArrowSource {
	tb.Helper()
	mem := memory.DefaultAllocator
	kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer kb.Release()
	defer vb.Release()
	for i := 0; i < n; i++ {
		kb.Append(int64((i*104729)%n) * 1_000_003_567)
		vb.Append(int64(i))
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{k, v}, int64(n))
	defer rec.Release()
	src, err := exec.NewArrowSource(name, rec)
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

// BenchmarkBuildSide collects an inner join of a 1,000-row Arrow table
// (left) with a 1,000,000-row one (right) on hashed keys that are all
// different, with build_side on (the left input is hashed: 1,000 keys,
// 1,000,000 looked up) and off (the right one: 1,000,000 keys hashed,
// 1,000 looked up). Both give the same 1,000 rows (checked).
func BenchmarkBuildSide(b *testing.B) {
	small, big := arrowKeys(b, "small", 1000), arrowKeys(b, "big", 1_000_000)
	defer small.Release()
	defer big.Release()
	q := plan.Scan(small).JoinOn(plan.Scan(big), plan.InnerJoin, "k")
	rowsBy := map[bool]int{}
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("build_side=%v", on), func(b *testing.B) {
			flags := rules.DefaultFlags()
			if err := flags.Set(rules.FlagBuildSide, on); err != nil {
				b.Fatal(err)
			}
			lf := Lazy(q).WithFlags(flags)
			res, err := lf.Optimize()
			if err != nil {
				b.Fatal(err)
			}
			if got := res.Counters.Get("buildLeft"); got != map[bool]int{true: 1, false: 0}[on] {
				b.Fatalf("buildLeft = %d", got)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := lf.Collect(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				rowsBy[on] = out.NumRows()
				out.Release()
			}
			b.ReportMetric(float64(rowsBy[on]), "rows")
		})
	}
	if rowsBy[true] != rowsBy[false] {
		b.Errorf("left build: %d rows, right build: %d", rowsBy[true], rowsBy[false])
	}
}
