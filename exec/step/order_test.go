package step

import (
	"fmt"
	"math"
	"testing"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// TestSumIgnoresRowOrder: an integer sum is exact in the aggregate node and
// in over() windows (docs/semantics.md): the rows of a group in any order,
// evaluated sequentially or split over partitions, give the same total, or
// overflow (naming the call) in every order when the exact total does not
// fit int64.
func TestSumIgnoresRowOrder(t *testing.T) {
	const big = math.MaxInt64
	for _, c := range []struct {
		vals []int64
		ovf  bool
	}{
		{[]int64{big, 1, -1}, false},
		{[]int64{math.MinInt64, -1, 1}, false},
		{[]int64{big, big, -big, -big, 5}, false},
		{[]int64{big, 1, 1, -1}, true},
		{[]int64{math.MinInt64, -1, 2, -2}, true},
	} {
		var total int64
		if !c.ovf {
			for _, v := range c.vals {
				total += v
			}
		}
		for _, perm := range permutations(len(c.vals)) {
			// Group k = 1 holds the values, one every 8 rows (nulls
			// between them), so partitions of 8 rows split the group;
			// group k = 2 is a row of 0.
			var ks, as []plan.Value
			for _, j := range perm {
				ks = append(ks, i64(1))
				as = append(as, i64(c.vals[j]))
				for range 7 {
					ks = append(ks, i64(1))
					as = append(as, plan.NullValue(plan.Int64))
				}
			}
			ks, as = append(ks, i64(2)), append(as, i64(0))
			T, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64}, plan.Field{Name: "a", Type: plan.Int64, Nullable: true}),
				[][]plan.Value{ks, as})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("sum%v", permuted(c.vals, perm))
			for _, n := range []struct {
				what, expr string
				node       plan.Node
			}{
				{"aggregate", "sum(a)", plan.Scan(T).GroupBy(col("k")).Agg(col("a").Sum().Alias("s")).Node()},
				{"window", "sum(a)", plan.Scan(T).WithColumns(col("a").Sum().Over(col("k")).Alias("s")).Node()},
			} {
				for _, p := range []ops.Parallel{{}, {Workers: 2, MinRows: 8}} {
					rows, err := collect(env(t).WithParallel(p), n.node)
					where := fmt.Sprintf("%s %s, %+v", n.what, name, p)
					if c.ovf {
						if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Overflow || pe.Expr != n.expr {
							t.Errorf("%s: got %v, want overflow in `%s`", where, err, n.expr)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: unexpected %v", where, err)
						continue
					}
					// The sum is the last column; group 1's rows come first.
					if s := rows[0][len(rows[0])-1]; s.IsNull() || s.Int() != total {
						t.Errorf("%s: first row %v, want the sum %d last", where, rows[0], total)
					}
				}
			}
		}
	}
}

// permutations lists every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int(nil), p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// permuted returns vals in the order perm.
func permuted(vals []int64, perm []int) []int64 {
	out := make([]int64, len(perm))
	for i, j := range perm {
		out[i] = vals[j]
	}
	return out
}
