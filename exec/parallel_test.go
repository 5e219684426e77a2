package exec

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/dfopt/dfopt/plan"
)

// parTable has n rows: i = row, d = 1 except 0 at rows 50 and 900, e = 1
// except 0 at row 5, k = row % 7, big = MaxInt64/2 at rows 3, 600 and 990
// (else 1), x = row/3 as float64 (null every 11th row, NaN every 13th), s =
// "s" + row % 5 (null every 17th row).
func parTable(t testing.TB, n int) *plan.Table {
	i, d, e, k, big, x, s := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n),
		make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for r := 0; r < n; r++ {
		i[r] = plan.Int64Value(int64(r))
		d[r], e[r], big[r] = plan.Int64Value(1), plan.Int64Value(1), plan.Int64Value(1)
		if r == 50 || r == 900 {
			d[r] = plan.Int64Value(0)
		}
		if r == 5 {
			e[r] = plan.Int64Value(0)
		}
		if r == 3 || r == 600 || r == 990 {
			big[r] = plan.Int64Value(math.MaxInt64 / 2)
		}
		k[r] = plan.Int64Value(int64(r % 7))
		switch {
		case r%11 == 0:
			x[r] = plan.NullValue(plan.Float64)
		case r%13 == 0:
			x[r] = plan.Float64Value(math.NaN())
		default:
			x[r] = plan.Float64Value(float64(r) / 3)
		}
		s[r] = plan.StringValue(fmt.Sprintf("s%d", r%5))
		if r%17 == 0 {
			s[r] = plan.NullValue(plan.String)
		}
	}
	return mustTable(t, "p", []plan.Field{{Name: "i", Type: plan.Int64}, {Name: "d", Type: plan.Int64}, {Name: "e", Type: plan.Int64},
		{Name: "k", Type: plan.Int64}, {Name: "big", Type: plan.Int64}, {Name: "x", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}}, i, d, e, k, big, x, s)
}

// outcome is a collect's rows or error, for comparison.
type outcome struct {
	rows [][]plan.Value
	err  *plan.Error
}

func collectOutcome(t *testing.T, n plan.Node, opts Options) outcome {
	t.Helper()
	opts.Mem = checked(t)
	res, err := Collect(context.Background(), n, opts)
	if err != nil {
		pe, ok := plan.AsError(err)
		if !ok {
			t.Fatalf("error %v is not a *plan.Error", err)
		}
		return outcome{err: pe}
	}
	defer res.Release()
	rows, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	return outcome{rows: rows}
}

// sameOutcome compares rows bit for bit, or errors by kind, expression,
// row and node.
func sameOutcome(a, b outcome) string {
	switch {
	case a.err != nil || b.err != nil:
		if a.err == nil || b.err == nil || a.err.Kind != b.err.Kind || a.err.Expr != b.err.Expr ||
			a.err.Row != b.err.Row || a.err.Node != b.err.Node {
			return fmt.Sprintf("error %v, sequential %v", b.err, a.err)
		}
		return ""
	case len(a.rows) != len(b.rows):
		return fmt.Sprintf("%d rows, sequential %d", len(b.rows), len(a.rows))
	}
	for r := range a.rows {
		for c := range a.rows[r] {
			if !a.rows[r][c].Identical(b.rows[r][c]) {
				return fmt.Sprintf("row %d column %d: %v, sequential %v", r, c, b.rows[r][c], a.rows[r][c])
			}
		}
	}
	return ""
}

// TestParallelCollect: with nodes split into partitions (8, 64 and 200
// rows, over 2 to 4 goroutines) every plan gives the sequential outcome:
// the same rows in the same order with the same bits, or the same error —
// kind, expression, row and node — also when the failing rows sit in
// several partitions and in an order opposite to the expressions'. No
// goroutine outlives the collects.
func TestParallelCollect(t *testing.T) {
	before := runtime.NumGoroutine()
	P := parTable(t, 997)
	dim := mustTable(t, "dim", []plan.Field{{Name: "dk", Type: plan.Int64}, {Name: "name", Type: plan.String}},
		ints(0, 1, 2, 3, 4, 5, 9), strs("zero", "one", "two", "three", "four", "five", "nine"))
	nd, _ := plan.BuiltinUDFs().Lookup("nd_seq")
	dbl, _ := plan.BuiltinUDFs().Lookup("checked_double")
	scan := plan.Scan(P)
	cases := []struct {
		name string
		plan plan.Frame
		fail bool // the sequential collect must fail
	}{
		{"filter: the first conjunct fails late, the second early", scan.Filter(c("i").Div(c("d")).Gt(lt(100)), c("i").Div(c("e")).Gt(lt(0))), true},
		{"filter: the first operand fails late, the second early", scan.Filter(c("i").Div(c("d")).Add(c("i").Div(c("e"))).Gt(lt(0))), true},
		{"project: expressions in order", scan.Select(c("i").Mul(lt(3)).Alias("a"), c("i").Div(c("d")).Alias("b"), c("i").Div(c("e")).Alias("c")), true},
		{"filter then project: the failing rows are gone", scan.Filter(c("d").Gt(lt(0)), c("e").Gt(lt(0))).Select(c("i").Div(c("d")).Alias("q"), c("x").Mul(lt(2.0)).Alias("y")), false},
		{"a Q6-like chain", scan.WithColumns(c("i").Mul(lt(3)).Alias("x1")).Filter(c("k").Lt(lt(5))).
			WithColumns(c("x1").Add(c("x")).Alias("x2")).Filter(c("s").Ne(lt("s3"))).
			WithColumns(c("x2").Mul(lt(0.5)).Alias("x4")).Filter(c("i").Mod(lt(3)).Eq(lt(0))).
			Select(c("i"), c("k"), c("x4")), false},
		{"if: a branch fails only on its rows", scan.Select(plan.If(c("d").Eq(lt(0)), lt(0), c("i").Div(c("d"))).Alias("q")), false},
		{"if: a branch fails", scan.Select(plan.If(c("k").Eq(lt(3)), c("i").Div(c("d").Sub(lt(1))), lt(0)).Alias("q")), true},
		{"aggregate", scan.GroupBy(c("k")).Agg(c("i").Sum().Alias("si"), c("x").Mean().Alias("mx"), c("x").Min().Alias("lo"),
			c("x").Max().Alias("hi"), c("s").Max().Alias("ms"), c("x").Count().Alias("n"), plan.Len().Alias("len"),
			c("s").First().Alias("f")), false},
		{"aggregate: the sum overflows across partitions", scan.GroupBy(c("k").Mod(lt(2))).Agg(c("big").Sum().Alias("b")), true},
		{"aggregate: no keys", scan.Agg(c("big").Sum().Alias("b"), plan.Len().Alias("n")), true},
		{"aggregate: string keys", scan.GroupBy(c("s")).Agg(c("i").Sum().Alias("si")), false},
		{"join: inner, then a filter on the dimension", scan.Join(plan.Scan(dim), plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("dk")}).
			Filter(c("name").Eq(lt("three"))).Select(c("i"), c("name")), false},
		{"join: left, unmatched rows", scan.Join(plan.Scan(dim), plan.LeftJoin, []plan.E{c("k")}, []plan.E{c("dk")}).
			Filter(c("name").IsNull()).Select(c("i"), c("k")), false},
		{"join: semi and anti", scan.Join(plan.Scan(dim), plan.SemiJoin, []plan.E{c("k")}, []plan.E{c("dk")}).
			Join(plan.Scan(dim), plan.AntiJoin, []plan.E{c("i")}, []plan.E{c("dk")}), false},
		{"window", scan.WithColumns(c("x").Sum().Over(c("k")).Alias("w"), c("i").Max().Over(c("s")).Alias("m")), false},
		{"sort and top-k", scan.Sort(plan.Desc(c("x")), plan.Asc(c("i"))).Head(50), false},
		{"distinct", scan.Distinct("k", "s"), false},
		{"nd_seq counts rows in order", scan.Filter(c("k").Gt(lt(2))).Select(plan.CallUDF(nd, c("i")).Alias("n"), c("i")), false},
		{"a deterministic UDF fails", scan.Select(plan.CallUDF(dbl, c("big").Add(lt(1))).Alias("b")), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.plan.Node()
			seq := collectOutcome(t, n, Options{Parallelism: 1})
			if (seq.err != nil) != tc.fail {
				t.Fatalf("sequential outcome: error %v, want failure %v", seq.err, tc.fail)
			}
			for _, opts := range []Options{{Parallelism: 2, PartitionRows: 1}, {Parallelism: 3, PartitionRows: 64}, {Parallelism: 4, PartitionRows: 200}} {
				if msg := sameOutcome(seq, collectOutcome(t, n, opts)); msg != "" {
					t.Errorf("parallelism %d, partitions of %d rows: %s", opts.Parallelism, opts.PartitionRows, msg)
				}
			}
		})
	}
	waitGoroutines(t, before)
}

// TestParallelCancellation: a collect cancelled while its nodes run in
// parallel fails with kind cancelled, releases everything it allocated
// and leaves no goroutine behind.
func TestParallelCancellation(t *testing.T) {
	before := runtime.NumGoroutine()
	big := bigTable(t, 100_000)
	defer big.Release()
	for _, at := range []int64{0, 10, 40_000} {
		ctx, stop := context.WithCancel(context.Background())
		cancelUDF := &plan.UDF{Name: "cancel_at", Params: []plan.Type{plan.Int64}, Result: plan.Int64, Deterministic: true,
			Fn: func(ctx context.Context, args []plan.Value) (plan.Value, error) {
				if plan.CallCount(ctx) == at {
					stop()
				}
				return args[0], nil
			}}
		n := plan.Scan(big).WithColumns(c("c0").Mul(lt(2)).Alias("a")).Filter(c("c1").Lt(lt(500))).
			Select(plan.CallUDF(cancelUDF, c("a")).Alias("x"), c("c1")).GroupBy(c("c1")).Agg(c("x").Sum().Alias("s")).Node()
		res, err := Collect(ctx, n, Options{Mem: checked(t), Parallelism: 2, PartitionRows: 1000})
		stop()
		res.Release()
		if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled {
			t.Errorf("cancelled at call %d: %v, want kind cancelled", at, err)
		}
	}
	waitGoroutines(t, before)
}

// waitGoroutines fails the test when more goroutines run than before (a
// finished goroutine may take a moment to leave the count).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after: a parallel node leaked goroutines", before, after)
	}
}
