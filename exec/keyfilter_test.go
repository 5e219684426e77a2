package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestKeyFilterPays: a join collects the keys of an evaluated input for a
// runtime key filter only when that input has no more rows than the
// scan's source (when its rows are known) and at most maxFilterRows.
func TestKeyFilterPays(t *testing.T) {
	for _, tc := range []struct {
		name            string
		keyRows, probed int64
		want            bool
	}{
		{"small keys, big scan", 2_000, 6_000_000, true},
		{"as many rows as the scan", 10_000, 10_000, true},
		{"more rows than the scan", 800_000, 10_000, false},
		{"scan rows unknown", 1_000, -1, true},
		{"scan rows unknown, too many keys", maxFilterRows + 1, -1, false},
		{"too many keys for any scan", maxFilterRows + 1, 1 << 40, false},
		{"empty input", 0, 0, true},
	} {
		if got := keyFilterPays(tc.keyRows, tc.probed); got != tc.want {
			t.Errorf("%s: keyFilterPays(%d, %d) = %v, want %v", tc.name, tc.keyRows, tc.probed, got, tc.want)
		}
	}
}

// TestValueIndexes: a row_index node numbers rows for ordering only (a key
// filter may then drop rows below it) when its column's values are used
// only as plain-column sort keys, passed along by projections of plain
// columns, filters, joins and sorts, and dropped before the output; any
// other use of them marks it.
func TestValueIndexes(t *testing.T) {
	schema, err := plan.NewSchema(plan.Field{Name: "k", Type: plan.Int64}, plan.Field{Name: "v", Type: plan.Int64})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := plan.NewTable("t", schema, [][]plan.Value{{plan.Int64Value(1)}, {plan.Int64Value(2)}})
	if err != nil {
		t.Fatal(err)
	}
	col := plan.Col
	numbered := plan.Scan(tbl).WithRowIndex("r", 0).Select(col("r"), col("k"), col("v"))
	other := plan.Scan(tbl).Select(col("k").Alias("k2"), col("v").Alias("v2"))
	joined := numbered.Join(other, plan.InnerJoin, []plan.E{col("k")}, []plan.E{col("k2")})
	for _, tc := range []struct {
		name   string
		f      plan.Frame
		marked bool
	}{
		{"sorted by, then dropped", joined.Sort(plan.Asc(col("r"))).Select(col("k"), col("v2")), false},
		{"sorted by descending, renamed, filtered, dropped", numbered.Select(col("r").Alias("q"), col("k")).Filter(col("k").Gt(plan.Lit(int64(0)))).Sort(plan.Desc(col("q"))).Select(col("k")), false},
		{"never read", numbered.Select(col("k")), false},
		{"an aggregate that does not read it", numbered.GroupBy(col("k")).Agg(col("v").Sum().Alias("s")), false},
		{"output", joined, true},
		{"output after a sort", joined.Sort(plan.Asc(col("r"))), true},
		{"read by a filter", numbered.Filter(col("r").Gt(plan.Lit(int64(0)))).Select(col("k")), true},
		{"a sort key expression", numbered.Sort(plan.Asc(col("r").Add(plan.Lit(int64(1))))).Select(col("k")), true},
		{"computed on by a projection", numbered.Select(col("r").Add(plan.Lit(int64(1))).Alias("q"), col("k")).Select(col("k")), true},
		{"a join key", numbered.Join(other, plan.InnerJoin, []plan.E{col("r")}, []plan.E{col("k2")}).Select(col("k")), true},
		{"an aggregate key", numbered.GroupBy(col("r")).Agg(col("v").Sum().Alias("s")).Select(col("s")), true},
		{"an aggregate argument", numbered.GroupBy(col("k")).Agg(col("r").Sum().Alias("s")), true},
		{"read by with_columns", numbered.WithColumns(col("r").Add(plan.Lit(int64(1))).Alias("q")).Select(col("k")), true},
		{"under a union", numbered.Union(numbered).Select(col("k")), true},
		{"named like a column of the other input", numbered.Join(plan.Scan(tbl).Select(col("k").Alias("r")), plan.InnerJoin, []plan.E{col("k")}, []plan.E{col("r")}).Sort(plan.Asc(col("r"))).Select(col("k")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolved, err := plan.Resolve(tc.f.Node())
			if err != nil {
				t.Fatal(err)
			}
			marked := valueIndexes(resolved)
			var ri *plan.RowIndexNode
			plan.WalkNodes(resolved, func(n plan.Node) bool {
				if x, ok := n.(*plan.RowIndexNode); ok {
					ri = x
				}
				return true
			})
			if ri == nil {
				t.Fatal("no row_index node")
			}
			if got := marked[plan.Fingerprint(ri)]; got != tc.marked {
				t.Errorf("marked %v, want %v", got, tc.marked)
			}
		})
	}
}

// TestSortedDistinct: the keys a runtime filter carries are sorted and
// distinct, whether sorted or read back from a bitmap over their span
// (dense keys, negative ones, spans near the int64 range, few keys).
func TestSortedDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := r.IntN(3000)
		base := []int64{0, -5000, math.MinInt64, math.MaxInt64 - 100_000, 1 << 40}[r.IntN(5)]
		span := []int64{1, 50, 3000, 200_000, 1 << 50}[r.IntN(5)]
		keys := make([]int64, n)
		for j := range keys {
			if base > 0 && base > math.MaxInt64-span {
				keys[j] = base + r.Int64N(math.MaxInt64-base)
			} else {
				keys[j] = base + r.Int64N(span)
			}
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		want = slices.Compact(want)
		if got := sortedDistinct(keys); !slices.Equal(got, want) {
			t.Fatalf("case %d (n=%d base=%d span=%d): %d keys, want %d", i, n, base, span, len(got), len(want))
		}
	}
}
