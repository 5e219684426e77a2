package plan

import (
	"math"
	"testing"
)

// modTable returns a one-column table of n rows holding i % m.
func modTable(t *testing.T, name string, n, m int) *Table {
	t.Helper()
	vals := make([]Value, n)
	for i := range vals {
		vals[i] = Int64Value(int64(i % m))
	}
	tb, err := NewTable(name, sch("k:int64"), [][]Value{vals})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestEstimate(t *testing.T) {
	hundred := Scan(sized(t, "hundred", 100))
	ten := Scan(sized(t, "ten", 10))
	none := Scan(unsized{sized(t, "none", 7)})
	k := Col("k")
	one := Lit(int64(1))
	tests := []struct {
		name string
		n    Node
		want float64
	}{
		{"scan", hundred.Node(), 100},
		{"scan without estimate", none.Node(), 1000},
		{"equality: 1/25", Scan(sized(t, "big", 1000)).Filter(k.Eq(one)).Node(), 40},
		{"equality keeps at least a row", ten.Filter(k.Eq(one)).Node(), 1},
		{"range: 1/3", Scan(sized(t, "r", 300)).Filter(k.Gt(one)).Node(), 100},
		{"two conjuncts multiply", Scan(sized(t, "r2", 900)).Filter(k.Gt(one), k.Lt(one)).Node(), 100},
		{"is_in of k values: k/25", Scan(sized(t, "in", 1000)).Filter(k.IsIn(Int64Value(1), Int64Value(2))).Node(), 80},
		{"or: union of independent events", Scan(sized(t, "or", 625)).Filter(k.Eq(one).Or(k.Eq(one))).Node(), 625 * (0.04 + 0.04 - 0.04*0.04)},
		{"not: complement", Scan(sized(t, "not", 1000)).Filter(k.Gt(one).Not()).Node(), 1000 * (1 - 1.0/3)},
		{"limit clamps to its bound", hundred.Head(5).Node(), 5},
		{"inner join: the larger input", hundred.Join(ten, InnerJoin, []E{k}, []E{k}).Node(), 100},
		{"semi join: at most the right's rows", hundred.Join(ten, SemiJoin, []E{k}, []E{k}).Node(), 10},
		{"cross join: the product", hundred.CrossJoin(ten).Node(), 1000},
		{"aggregate with keys: a tenth", hundred.GroupBy(k).Agg(k.Sum().Alias("s")).Node(), 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewRowEstimates().Estimate(tt.n); math.Abs(got-tt.want) > 1e-9*tt.want {
				t.Errorf("Estimate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDistinct(t *testing.T) {
	k := Col("k")
	dup := Scan(modTable(t, "dup", 100, 5))          // k in [0, 4]
	wide := Scan(sized(t, "wide", 100))              // k in [0, 99]
	none := Scan(unsized{modTable(t, "none", 7, 7)}) // no estimate
	tests := []struct {
		name       string
		n          Node
		col        string
		want, base float64
	}{
		{"the stated range bounds a column's values", dup.Node(), "k", 5, 5},
		{"a range wider than the rows: the rows", wide.Node(), "k", 100, 100},
		{"a filter caps at its rows, not its base", wide.Filter(k.Eq(Lit(int64(1)))).Node(), "k", 4, 100},
		{"a project follows an alias", dup.Select(k.Alias("x")).Node(), "x", 5, 5},
		{"a computed column: its rows", dup.Select(k.Add(Lit(int64(1))).Alias("x")).Node(), "x", 100, 100},
		{"a semi join keeps its left's", dup.Join(wide, SemiJoin, []E{k}, []E{k}).Node(), "k", 5, 5},
		{"a row number passes the others", dup.WithRowIndex("i", 0).Node(), "k", 5, 5},
		{"no row estimate: the range still bounds", none.Node(), "k", 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := NewRowEstimates()
			if got := est.Distinct(tt.n, tt.col); got != tt.want {
				t.Errorf("Distinct = %v, want %v", got, tt.want)
			}
			if got := est.BaseDistinct(tt.n, tt.col); got != tt.base {
				t.Errorf("BaseDistinct = %v, want %v", got, tt.base)
			}
		})
	}
}
