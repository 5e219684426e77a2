package legality

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestEqualityTypesAreJoinKeyTypes: the proof collapse_cross_join rests on
// for type promotion — `l = r` types exactly when the pair can be join keys,
// and both compare in the same type (plan.JoinKeyType), for every pair of
// types; so only the compare type float64 needs a cell (ccj.float).
func TestEqualityTypesAreJoinKeyTypes(t *testing.T) {
	for _, a := range plan.Types() {
		for _, b := range plan.Types() {
			s := plan.MustSchema(plan.Field{Name: "x", Type: a, Nullable: true}, plan.Field{Name: "y", Type: b, Nullable: true})
			_, eqErr := plan.TypeOf(plan.Col("x").Eq(plan.Col("y")).Expr(), s)
			kt, keyOK := plan.JoinKeyType(a, b)
			if (eqErr == nil) != keyOK {
				t.Errorf("%s = %s types: %v; as join keys: %v", a, b, eqErr, keyOK)
			}
			if !keyOK {
				continue
			}
			want := a
			if a != b {
				want, _ = plan.Promote(a, b)
			}
			if kt != want {
				t.Errorf("%s = %s compares as %s, join keys as %s", a, b, want, kt)
			}
		}
	}
}

func TestCollapseKey(t *testing.T) {
	left := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true}, plan.Field{Name: "i", Type: plan.Int32},
		plan.Field{Name: "f", Type: plan.Float64, Nullable: true}, plan.Field{Name: "s", Type: plan.String})
	right := plan.MustSchema(plan.Field{Name: "b", Type: plan.Int64}, plan.Field{Name: "g", Type: plan.Float64},
		plan.Field{Name: "t", Type: plan.String, Nullable: true})
	udfs := plan.BuiltinUDFs()
	ndTick, _ := udfs.Lookup("nd_tick")
	incWrap, _ := udfs.Lookup("inc_wrap")
	checked, _ := udfs.Lookup("checked_double")
	col := func(n string) plan.Expr { return plan.Col(n).Expr() }
	tests := []struct {
		name   string
		l, r   plan.Expr
		allows bool
		cell   CellID
		detail string
	}{
		{"int64 = int64", col("a"), col("b"), true, CCJFloat, "they compare as int64"},
		{"int32 = int64 promotes", col("i"), col("b"), true, CCJFloat, "they compare as int64"},
		{"strings", col("s"), col("t"), true, CCJFloat, "they compare as string"},
		{"float = float", col("f"), col("g"), false, CCJFloat, "they compare as float64"},
		{"int = float promotes to float", col("a"), col("g"), false, CCJFloat, "they compare as float64"},
		{"a total computed key", plan.Col("s").Expr(), &plan.Cast{Expr: col("b"), To: plan.String}, true, CCJFloat, "they compare as string"},
		{"a declared-total UDF", &plan.UDFCall{UDF: incWrap, Args: []plan.Expr{col("a")}}, col("b"), true, CCJFloat, ""},
		{"a partial left key", plan.Col("a").Div(plan.Col("i")).Expr(), col("b"), false, CCJTotal, "`a / i` is partial"},
		{"a partial right key", col("a"), &plan.UDFCall{UDF: checked, Args: []plan.Expr{col("b")}}, false, CCJTotal, "`checked_double(b)` is partial"},
		{"a partial strict cast", col("a"), &plan.Cast{Expr: col("t"), To: plan.Int64, Strict: true}, false, CCJTotal, "is partial"},
		{"non-deterministic", &plan.UDFCall{UDF: ndTick, Args: []plan.Expr{col("a")}}, col("b"), false, CCJDeterministic, "non-deterministic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ru := Default().CollapseKey(tt.l, tt.r, left, right)
			last := ru.Decisions[len(ru.Decisions)-1]
			if ru.Allowed != tt.allows || last.Cell != tt.cell || !strings.Contains(last.Detail, tt.detail) {
				t.Errorf("got %v, want allowed=%v by %s (%q)", ru.Decisions, tt.allows, tt.cell, tt.detail)
			}
		})
	}
	// Each cell's mutant lets its counterexample through.
	for _, tt := range tests {
		if tt.allows {
			continue
		}
		mutant, err := Default().Flipped(tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		ru := mutant.CollapseKey(tt.l, tt.r, left, right)
		for _, d := range ru.Decisions {
			if d.Cell == tt.cell && !d.Allowed {
				t.Errorf("%s: the mutant of %s still refuses", tt.name, tt.cell)
			}
		}
	}
}

func TestCollapseKeyColumnAndRest(t *testing.T) {
	col := func(n string) plan.Expr { return plan.Col(n).Expr() }
	if d := Default().CollapseKeyColumn(col("k"), col("k")); d.Allowed || d.Cell != CCJKeyColumn {
		t.Errorf("k = k: %v", d)
	}
	for _, pair := range [][2]plan.Expr{{col("k"), col("z")}, {col("k"), &plan.Alias{Expr: col("k"), Name: "k"}},
		{plan.Col("k").Add(plan.Lit(int64(0))).Expr(), col("k")}} {
		if d := Default().CollapseKeyColumn(pair[0], pair[1]); !d.Allowed {
			t.Errorf("%s = %s: %v", pair[0], pair[1], d)
		}
	}
	in := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.Int64})
	ndTick, _ := plan.BuiltinUDFs().Lookup("nd_tick")
	for _, tt := range []struct {
		rest   []plan.Expr
		allows bool
	}{
		{nil, true},
		{[]plan.Expr{plan.Col("a").Gt(plan.Col("b")).Expr(), plan.Col("a").IsNull().Expr()}, true},
		{[]plan.Expr{plan.Col("a").Gt(plan.Col("b")).Expr(), plan.Col("a").Div(plan.Col("b")).Gt(plan.Lit(int64(1))).Expr()}, false},
		{[]plan.Expr{&plan.Call{Fn: plan.FuncGt, Args: []plan.Expr{&plan.Cast{Expr: col("a"), To: plan.Int32, Strict: true}, col("b")}}}, false},
		{[]plan.Expr{&plan.Call{Fn: plan.FuncGt, Args: []plan.Expr{&plan.UDFCall{UDF: ndTick, Args: []plan.Expr{col("a")}}, col("b")}}}, false},
	} {
		if d := Default().CollapseRest(tt.rest, in); d.Allowed != tt.allows || d.Cell != CCJRest {
			t.Errorf("rest %v: %v, want allowed=%v", tt.rest, d, tt.allows)
		}
	}
}

func TestBuildLeftCells(t *testing.T) {
	exact := func(n int64) plan.RowBounds { return plan.RowBounds{Min: n, Max: n, Bounded: true} }
	span := func(lo, hi int64) plan.RowBounds { return plan.RowBounds{Min: lo, Max: hi, Bounded: true} }
	for _, tt := range []struct {
		how         plan.JoinKind
		left, right plan.RowBounds
		allows      bool
		cell        CellID
	}{
		{plan.InnerJoin, exact(3), exact(20), true, BSEstimate},
		{plan.InnerJoin, span(0, 19), exact(20), true, BSEstimate},
		{plan.InnerJoin, exact(20), exact(20), false, BSEstimate},
		{plan.InnerJoin, exact(3), span(0, 20), false, BSEstimate},
		{plan.InnerJoin, plan.RowBounds{}, exact(20), false, BSEstimate},
		{plan.InnerJoin, exact(3), plan.RowBounds{Min: 5}, true, BSEstimate},
		{plan.LeftJoin, exact(3), exact(20), false, BSKind},
		{plan.SemiJoin, exact(3), exact(20), false, BSKind},
		{plan.CrossJoin, exact(3), exact(20), false, BSKind},
	} {
		ru := Default().BuildLeft(&plan.JoinNode{How: tt.how}, tt.left, tt.right)
		last := ru.Decisions[len(ru.Decisions)-1]
		if ru.Allowed != tt.allows || last.Cell != tt.cell {
			t.Errorf("%s join, left %s, right %s: %v, want allowed=%v by %s", tt.how, tt.left, tt.right, ru.Decisions, tt.allows, tt.cell)
		}
		if last.Cell == BSEstimate && !strings.Contains(last.Detail, "left "+tt.left.String()+", right "+tt.right.String()) {
			t.Errorf("the detail does not show the bounds: %q", last.Detail)
		}
	}
}
