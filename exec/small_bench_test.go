package exec

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// BenchmarkCollectSmall measures the fixed cost of a collect on oracle-sized
// data: a 6-row table through filter, with_columns, aggregate, join, sort.
func BenchmarkCollectSmall(b *testing.B) {
	T := tableT(b)
	n := plan.Scan(T).Filter(c("k").Gt(lt(0))).WithColumns(c("k").Mul(lt(2)).Alias("k2")).
		JoinOn(plan.Scan(T).GroupBy(c("k")).Agg(plan.Len().Alias("n")), plan.LeftJoin, "k").
		Sort(plan.Asc(c("k2"))).Node()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Collect(context.Background(), n, Options{})
		if err != nil {
			b.Fatal(err)
		}
		res.Release()
	}
}
