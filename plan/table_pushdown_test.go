package plan

import "testing"

func TestTableWithPushdownClassifiesColumnLiteralComparisons(t *testing.T) {
	s := MustSchema(Field{Name: "a", Type: Int64, Nullable: true}, Field{Name: "b", Type: Int64, Nullable: true})
	base, err := NewTable("t", s, [][]Value{{Int64Value(1)}, {Int64Value(2)}})
	if err != nil {
		t.Fatal(err)
	}
	conj := []Expr{
		Col("a").Gt(Lit(1)).Expr(),               // column op literal
		Lit(3).Le(Col("b")).Expr(),               // literal op column
		Col("a").Gt(Col("b")).Expr(),             // two columns
		Col("a").Div(Col("b")).Gt(Lit(1)).Expr(), // computed
		Col("a").Eq(Null(Int64)).Expr(),          // null literal
		Col("a").IsNull().Expr(),                 // not a comparison
	}
	want := []bool{true, true, false, false, false, false}
	for _, support := range []PredicateSupport{Unsupported, Inexact, Exact} {
		tbl := base.WithPushdown(support)
		if base.Pushdown() != Unsupported {
			t.Fatal("WithPushdown must not modify the original table")
		}
		got, err := ClassifyPredicates(tbl, conj)
		if err != nil {
			t.Fatal(err)
		}
		for i := range conj {
			w := Unsupported
			if want[i] {
				w = support
			}
			if got[i] != w {
				t.Errorf("%v table: `%s` classified %v, want %v", support, conj[i], got[i], w)
			}
		}
	}
}

func TestTableExactAllPushdown(t *testing.T) {
	s := MustSchema(Field{Name: "a", Type: Int64, Nullable: true}, Field{Name: "b", Type: Int64, Nullable: true})
	base, err := NewTable("t", s, [][]Value{{Int64Value(1)}, {Int64Value(2)}})
	if err != nil {
		t.Fatal(err)
	}
	all := base.WithExactAllPushdown()
	if base.ExactAllPushdown() || !all.ExactAllPushdown() || all.Pushdown() != Exact {
		t.Fatal("WithExactAllPushdown must mark the copy only, and report Exact")
	}
	conj := []Expr{Col("a").Div(Col("b")).Gt(Lit(1)).Expr(), Col("a").IsNull().Expr(), Col("a").Gt(Lit(1)).Expr()}
	got, err := ClassifyPredicates(all, conj)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if g != Exact {
			t.Errorf("`%s` classified %v, want exact", conj[i], g)
		}
	}
	if back := all.WithPushdown(Inexact); back.ExactAllPushdown() {
		t.Error("WithPushdown must end the exact_all policy")
	}
}

func TestTableZoneMaps(t *testing.T) {
	s := MustSchema(Field{Name: "a", Type: Int64, Nullable: true}, Field{Name: "b", Type: Int64, Nullable: true})
	base, err := NewTable("t", s, [][]Value{{Int64Value(1)}, {Int64Value(2)}})
	if err != nil {
		t.Fatal(err)
	}
	conj := []Expr{Col("a").Gt(Lit(1)).Expr(), Col("a").Div(Col("b")).Gt(Lit(1)).Expr(), Col("a").Gt(Col("b")).Expr()}
	want := []PredicateSupport{Inexact, Exact, Exact}
	zone := base.WithZoneMaps(3)
	if zone.ZoneRows() != 3 || base.ZoneRows() != 0 || zone.Pushdown() != Inexact {
		t.Fatalf("zone rows %d (base %d), pushdown %v", zone.ZoneRows(), base.ZoneRows(), zone.Pushdown())
	}
	got, err := ClassifyPredicates(zone, conj)
	if err != nil {
		t.Fatal(err)
	}
	for i := range conj {
		if got[i] != want[i] {
			t.Errorf("%s: %v, want %v", conj[i], got[i], want[i])
		}
	}
	if z := base.WithZoneMaps(0).ZoneRows(); z != 1 {
		t.Errorf("WithZoneMaps(0) has zone rows %d, want 1", z)
	}
	if z := zone.WithPushdown(Exact).ZoneRows(); z != 0 {
		t.Errorf("WithPushdown keeps zone rows %d", z)
	}
	if z := zone.WithExactAllPushdown().ZoneRows(); z != 0 {
		t.Errorf("WithExactAllPushdown keeps zone rows %d", z)
	}
}
