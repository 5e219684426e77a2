package plan

import "testing"

// unnestTable is a table with a struct column s (fields a, b), a second
// struct t whose field is named t, a list l and a scalar k.
func unnestTable(t *testing.T) *Table {
	t.Helper()
	s := MustStructOf(StructField{Name: "a", Type: Int64}, StructField{Name: "b", Type: String})
	tt := MustStructOf(StructField{Name: "t", Type: Float64})
	clash := MustStructOf(StructField{Name: "k", Type: Bool})
	l := MustListOf(Int64)
	tab, err := NewTable("n", MustSchema(Field{"k", Int64, false}, Field{"s", s, true}, Field{"t", tt, false},
		Field{"l", l, true}, Field{"c", clash, true}, Field{"s2", s, true}), make([][]Value, 6))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestResolveUnnest: the fields replace the struct in place, nullable; the
// resolve errors of docs/semantics.md (Resolve errors) name the column or
// field and the path.
func TestResolveUnnest(t *testing.T) {
	n := Scan(unnestTable(t))
	runResolveCases(t, []resolveCase{
		{name: "in place", plan: n.Select(Col("k"), Col("s"), Col("l")).Unnest("s").Node(),
			schema: "[k: int64, a: int64?, b: string?, l: list<int64>?]"},
		{name: "a field named like its struct", plan: n.Select(Col("t"), Col("k")).Unnest("t").Node(),
			schema: "[t: float64?, k: int64]"},
		{name: "two structs", plan: n.Select(Col("t"), Col("s")).Unnest("s", "t").Node(),
			schema: "[t: float64?, a: int64?, b: string?]"},
		{name: "no column", plan: n.Unnest().Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.columns", msg: "unnest: no column"}},
		{name: "unknown", plan: n.Unnest("s", "x").Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.columns[1]", expr: "x"}},
		{name: "twice", plan: n.Unnest("s", "s").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.columns[1]", expr: "s"}},
		{name: "not a struct", plan: n.Unnest("l").Node(),
			err: &wantErr{kind: TypeError, path: "plan.columns[0]", expr: "l", msg: "column l has type list<int64>, not a struct"}},
		{name: "clash with a kept column", plan: n.Select(Col("k"), Col("c")).Unnest("c").Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.columns[0]", expr: "k", msg: "field k of c clashes with the column k"}},
		{name: "clash between structs", plan: n.Select(Col("s"), Col("s2")).Unnest("s", "s2").Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.columns[1]", expr: "a", msg: "field a of s2 clashes with a field of s"}},
	})
}

// TestResolveExplode: each list becomes its element type, nullable, in
// place; the resolve errors of docs/semantics.md (Resolve errors).
func TestResolveExplode(t *testing.T) {
	n := Scan(unnestTable(t))
	runResolveCases(t, []resolveCase{
		{name: "in place", plan: n.Select(Col("l"), Col("k"), Col("s")).Explode("l").Node(),
			schema: "[l: int64?, k: int64, s: struct{a: int64, b: string}?]"},
		{name: "two lists", plan: n.Select(Col("l"), Col("k")).WithColumns(Col("l").Alias("l2")).Explode("l2", "l").Node(),
			schema: "[l: int64?, k: int64, l2: int64?]"},
		{name: "no column", plan: n.Explode().Node(),
			err: &wantErr{kind: InvalidPlan, path: "plan.columns", msg: "explode: no column"}},
		{name: "unknown", plan: n.Explode("l", "x").Node(),
			err: &wantErr{kind: UnknownColumn, path: "plan.columns[1]", expr: "x"}},
		{name: "twice", plan: n.Explode("l", "l").Node(),
			err: &wantErr{kind: DuplicateColumn, path: "plan.columns[1]", expr: "l"}},
		{name: "not a list", plan: n.Explode("s").Node(),
			err: &wantErr{kind: TypeError, path: "plan.columns[0]", expr: "s", msg: "not a list"}},
	})
}
