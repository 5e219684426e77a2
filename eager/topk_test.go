package eager_test

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/plan"
)

// TestTopKSortFromPlan: the eager chain evaluates a top-k sort
// (plan.SortNode.HasLimit), as an optimized plan holds it, exactly as the
// sort followed by a limit: the first k rows of the stable order.
func TestTopKSortFromPlan(t *testing.T) {
	tbl, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "k", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "id", Type: plan.Int64}), [][]plan.Value{
		{plan.Int64Value(2), plan.NullValue(plan.Int64), plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(1), plan.Int64Value(0)},
		{plan.Int64Value(0), plan.Int64Value(1), plan.Int64Value(2), plan.Int64Value(3), plan.Int64Value(4), plan.Int64Value(5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := []plan.SortKey{{Expr: plan.Col("k").Expr(), Desc: true, NullsLast: true}}
	for _, k := range []int64{0, 1, 3, 6, 9} {
		scan := plan.Scan(tbl).Node()
		got, err := eager.FromPlan(context.Background(), &plan.SortNode{Input: scan, Keys: keys, HasLimit: true, Limit: k}, eager.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := eager.FromPlan(context.Background(), &plan.LimitNode{Input: &plan.SortNode{Input: scan, Keys: keys}, N: k}, eager.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := got.Rows()
		w, _ := want.Rows()
		if len(g) != len(w) || len(g) != int(min(k, 6)) {
			t.Fatalf("k=%d: %d rows, want %d", k, len(g), len(w))
		}
		for i := range g {
			if g[i][1].Int() != w[i][1].Int() {
				t.Errorf("k=%d row %d: id %v, want %v", k, i, g[i][1], w[i][1])
			}
		}
		got.Release()
		want.Release()
	}
}
