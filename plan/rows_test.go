package plan

import (
	"math"
	"testing"
)

// sized returns a one-column table of n rows.
func sized(t *testing.T, name string, n int) *Table {
	t.Helper()
	vals := make([]Value, n)
	for i := range vals {
		vals[i] = Int64Value(int64(i))
	}
	tb, err := NewTable(name, sch("k:int64"), [][]Value{vals})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// unsized is a source without an estimate.
type unsized struct{ *Table }

func (u unsized) EstimatedRows() (int64, bool) { return 0, false }

// lying panics when asked, and negative answers a negative count.
type lying struct{ *Table }

func (lying) EstimatedRows() (int64, bool) { panic("no idea") }

type negative struct{ *Table }

func (negative) EstimatedRows() (int64, bool) { return -3, true }

func TestRowBounds(t *testing.T) {
	ten, four := Scan(sized(t, "ten", 10)), Scan(sized(t, "four", 4))
	none := Scan(unsized{sized(t, "none", 7)})
	k := Col("k")
	exact := func(n int64) RowBounds { return RowBounds{Min: n, Max: n, Bounded: true} }
	span := func(lo, hi int64) RowBounds { return RowBounds{Min: lo, Max: hi, Bounded: true} }
	atLeast := func(n int64) RowBounds { return RowBounds{Min: n} }
	tag, identity := detExt, identityExt // row-preserving; declares nothing
	tests := []struct {
		name string
		n    Node
		want RowBounds
	}{
		{"scan", ten.Node(), exact(10)},
		{"scan without estimate", none.Node(), atLeast(0)},
		{"scan of a panicking estimator", Scan(lying{sized(t, "l", 3)}).Node(), atLeast(0)},
		{"scan of a negative estimate", Scan(negative{sized(t, "n", 3)}).Node(), atLeast(0)},
		{"scan with pushed conjuncts", &ScanNode{Source: ten.node.(*ScanNode).Source, SourceSchema: sch("k:int64"),
			Pushed: []PushedPredicate{{Expr: k.Gt(Lit(int64(1))).Expr(), Support: Exact}}}, span(0, 10)},
		{"scan with a max-rows hint", &ScanNode{Source: ten.node.(*ScanNode).Source, SourceSchema: sch("k:int64"),
			HasMaxRows: true, MaxRows: 3}, span(3, 10)},
		{"top-k sort", &SortNode{Input: ten.Node(), Keys: []SortKey{Asc(k)}, HasLimit: true, Limit: 4}, exact(4)},
		{"top-k sort over a filter", &SortNode{Input: ten.Filter(k.Gt(Lit(int64(3)))).Node(), Keys: []SortKey{Asc(k)}, HasLimit: true, Limit: 40}, span(0, 10)},
		{"filter", ten.Filter(k.Gt(Lit(int64(3)))).Node(), span(0, 10)},
		{"project, sort, with_columns", ten.Select(k).Sort(Asc(k)).WithColumns(k.Add(Lit(int64(1))).Alias("x")).Node(), exact(10)},
		{"window", ten.WithColumns(k.Sum().Over(k).Alias("w")).Node(), exact(10)},
		{"limit below", ten.Head(3).Node(), exact(3)},
		{"limit above", four.Head(30).Node(), exact(4)},
		{"limit over unknown", none.Head(5).Node(), span(0, 5)},
		{"slice", ten.Slice(8, 5).Node(), exact(2)},
		{"slice past the end", four.Slice(8, 5).Node(), exact(0)},
		{"slice over unknown", none.Slice(1, 5).Node(), span(0, 5)},
		{"slice over a filter", ten.Filter(k.Gt(Lit(int64(3)))).Slice(2, 5).Node(), span(0, 5)},
		{"slice to the end", ten.Slice(3, -1).Node(), exact(7)},
		{"slice to the end past the end", four.Slice(8, -1).Node(), exact(0)},
		{"slice to the end over a filter", ten.Filter(k.Gt(Lit(int64(3)))).Slice(2, -4).Node(), span(0, 8)},
		{"slice to the end over unknown", none.Slice(1, -1).Node(), atLeast(0)},
		{"slice to the end over a union with unknown", ten.Union(none).Slice(4, -1).Node(), atLeast(6)},
		{"global aggregate", none.Agg(k.Sum().Alias("s")).Node(), exact(1)},
		{"grouped aggregate", ten.GroupBy(k).Agg(k.Sum().Alias("s")).Node(), span(1, 10)},
		{"grouped aggregate of nothing", Scan(sized(t, "z", 0)).GroupBy(k).Agg(k.Sum().Alias("s")).Node(), exact(0)},
		{"distinct", ten.Distinct().Node(), span(1, 10)},
		{"inner", ten.JoinOn(four, InnerJoin, "k").Node(), span(0, 40)},
		{"left", ten.JoinOn(four, LeftJoin, "k").Node(), span(10, 40)},
		{"left over an empty right", ten.JoinOn(Scan(sized(t, "z", 0)), LeftJoin, "k").Node(), exact(10)},
		{"right", ten.JoinOn(four, RightJoin, "k").Node(), span(4, 40)},
		{"full", ten.JoinOn(four, FullJoin, "k").Node(), span(10, 54)},
		{"semi", ten.JoinOn(four, SemiJoin, "k").Node(), span(0, 10)},
		{"anti over unknown right", ten.JoinOn(none, AntiJoin, "k").Node(), span(0, 10)},
		{"cross", ten.CrossJoin(four).Node(), exact(40)},
		{"inner over unknown", ten.JoinOn(none, InnerJoin, "k").Node(), atLeast(0)},
		{"union", ten.Union(four, ten).Node(), exact(24)},
		{"union over unknown", ten.Union(none).Node(), atLeast(10)},
		{"row-preserving extension", &ExtensionNode{Def: tag, Inputs: []Node{ten.Node()}}, exact(10)},
		{"extension declaring nothing", &ExtensionNode{Def: identity, Inputs: []Node{ten.Node()}}, atLeast(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewRowEstimates().Of(tt.n); got != tt.want {
				t.Errorf("got %+v (%s), want %+v (%s)", got, got, tt.want, tt.want)
			}
		})
	}
}

// TestRowBoundsSaturate: products and sums beyond int64 saturate instead
// of wrapping, so a huge cross join is not taken for a small one.
func TestRowBoundsSaturate(t *testing.T) {
	big := RowBounds{Min: math.MaxInt64 / 2, Max: math.MaxInt64 / 2, Bounded: true}
	if got := joinBounds(CrossJoin, big, big); got.Max != math.MaxInt64 || got.Min != math.MaxInt64 {
		t.Errorf("cross of huge bounds: %+v", got)
	}
	if got := joinBounds(FullJoin, big, big); got.Max != math.MaxInt64 {
		t.Errorf("full of huge bounds: %+v", got)
	}
}

// TestRowBoundsSharedAndDeep: a subtree used twice is computed once and a
// chain deeper than any recursion would like is walked.
func TestRowBoundsSharedAndDeep(t *testing.T) {
	f := Scan(sized(t, "ten", 10))
	for i := 0; i < 100_000; i++ {
		f = f.Filter(Col("k").Gt(Lit(int64(i))))
	}
	n := f.Head(3).Node()
	est := NewRowEstimates()
	if got := est.Of(n); got != (RowBounds{Min: 0, Max: 3, Bounded: true}) {
		t.Errorf("deep chain: %+v", got)
	}
	s := Scan(sized(t, "four", 4))
	u := s.Union(s).Node()
	if got := est.Of(u); got != (RowBounds{Min: 8, Max: 8, Bounded: true}) {
		t.Errorf("union(S, S): %+v", got)
	}
}

func TestRowBoundsString(t *testing.T) {
	for b, want := range map[RowBounds]string{
		{Min: 3, Max: 3, Bounded: true}:  "3 rows",
		{Min: 0, Max: 64, Bounded: true}: "0..64 rows",
		{Min: 2}:                         "at least 2 rows",
	} {
		if got := b.String(); got != want {
			t.Errorf("%+v: %q, want %q", b, got, want)
		}
	}
}
