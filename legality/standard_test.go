package legality

import (
	"slices"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// standard is the default table under the standard tier's totality.
var standard = Default().WithTotality(StandardTotality)

// typed returns a schema of the named fields (name, type pairs), nullable.
func typed(pairs ...any) plan.Schema {
	var fs []plan.Field
	for i := 0; i+1 < len(pairs); i += 2 {
		fs = append(fs, plan.Field{Name: pairs[i].(string), Type: pairs[i+1].(plan.Type), Nullable: true})
	}
	return plan.MustSchema(fs...)
}

func resolved(t *testing.T, f plan.Frame) plan.Node {
	t.Helper()
	n, err := plan.Resolve(f.Node())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tableOf(t *testing.T, name string, s plan.Schema) plan.Frame {
	t.Helper()
	tbl, err := plan.NewTable(name, s, make([][]plan.Value, s.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return plan.Scan(tbl)
}

// TestTableTotality: the table decides totality by its Totality, the
// bounded one without looking at types, the standard one with plan.Total
// over the schema given.
func TestTableTotality(t *testing.T) {
	in := typed("a", plan.Int64, "f", plan.Float64, "s", plan.String)
	for _, c := range []struct {
		name              string
		e                 plan.Expr
		bounded, standard bool
	}{
		{"column", col("a").Expr(), true, true},
		{"comparison", col("a").Gt(plan.Lit(1)).Expr(), false, true},
		{"float arithmetic", col("f").Add(plan.Lit(1.5)).Expr(), false, true},
		{"integer arithmetic", col("a").Add(plan.Lit(1)).Expr(), false, false},
		{"cast to string", col("a").Cast(plan.String).Expr(), false, true},
		{"strict parse", col("s").Cast(plan.Int64).Expr(), false, false},
		{"non-strict parse", col("s").TryCast(plan.Int64).Expr(), false, true},
		{"declared-total udf", plan.CallUDF(totalUDF, col("a")).Expr(), true, true},
		{"partial udf", plan.CallUDF(partialUDF, col("a")).Expr(), false, false},
		{"unknown column", col("nope").Gt(plan.Lit(1)).Expr(), false, false},
		{"nil", nil, false, false},
	} {
		if got := Default().Total(c.e, in); got != c.bounded {
			t.Errorf("%s: bounded Total = %v, want %v", c.name, got, c.bounded)
		}
		if got := standard.Total(c.e, in); got != c.standard {
			t.Errorf("%s: standard Total = %v, want %v", c.name, got, c.standard)
		}
	}
}

// TestWithTotality: the default table is bounded, WithTotality shares the
// cells and keeps the verdicts, and overrides and host cells keep the
// totality.
func TestWithTotality(t *testing.T) {
	if Default().Totality() != BoundedTotality || standard.Totality() != StandardTotality {
		t.Fatalf("totalities: default %v, standard %v", Default().Totality(), standard.Totality())
	}
	if standard != Default().WithTotality(StandardTotality) || standard.WithTotality(BoundedTotality) != Default() {
		t.Error("the default table's twins are not reused")
	}
	if len(standard.Cells()) != len(Default().Cells()) || len(standard.Overrides()) != 0 {
		t.Error("the standard twin does not hold the default cells at their verdicts")
	}
	flipped, err := standard.Flipped(PPUnion)
	if err != nil {
		t.Fatal(err)
	}
	if flipped.Totality() != StandardTotality || flipped.Verdict(PPUnion) != Crosses {
		t.Errorf("an override lost the totality or the verdict: %v %v", flipped.Totality(), flipped.Verdict(PPUnion))
	}
	host, err := flipped.With(Cell{ID: "host.cell", Rule: "host", Node: "any", Verdict: Barrier, Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if host.Totality() != StandardTotality || host.Verdict(PPUnion) != Crosses {
		t.Error("With lost the totality or an override")
	}
	if got := flipped.WithTotality(BoundedTotality); got.Totality() != BoundedTotality || got.Verdict(PPUnion) != Crosses {
		t.Error("WithTotality dropped an override")
	}
}

// TestStandardCrossingsOnlyUnderStandardTotality: under the bounded
// totality, aggregates, distincts and unions stop every conjunct (their
// barriers, node-level); under the standard one, their conjunct-level
// cells decide.
func TestStandardCrossingsOnlyUnderStandardTotality(t *testing.T) {
	s := typed("k", plan.Int64, "a", plan.Int64, "f", plan.Float64)
	src := tableOf(t, "t", s)
	agg := resolved(t, src.GroupBy(col("k")).Agg(col("a").Count().Alias("n")))
	dis := resolved(t, src.Distinct("k"))
	uni := resolved(t, src.Union(src))
	onKey := col("k").Gt(plan.Lit(1)).Expr()
	for _, c := range []struct {
		n             plan.Node
		barrier, cell CellID
	}{{agg, PPAggregate, PPAggregateKeys}, {dis, PPDistinct, PPDistinctKeys}, {uni, PPUnion, PPUnionInputs}} {
		r := Default().Pushdown(onKey, c.n)
		if d, refused := r.Refusal(); !refused || d.Cell != c.barrier {
			t.Errorf("bounded %s: %+v, want refused by %s", c.n.Kind(), r, c.barrier)
		}
		r = standard.Pushdown(onKey, c.n)
		last := r.Decisions[len(r.Decisions)-1]
		if !r.Allowed || last.Cell != c.cell {
			t.Errorf("standard %s: %+v, want allowed by %s", c.n.Kind(), r, c.cell)
		}
	}
	for _, c := range []struct {
		name string
		n    plan.Node
		e    plan.Expr
		cell CellID
	}{
		{"aggregate output", agg, col("n").Gt(plan.Lit(1)).Expr(), PPAggregate},
		{"partial conjunct on a key", agg, col("k").Div(plan.Lit(0)).Gt(plan.Lit(1)).Expr(), PPAggregateKeys},
		{"no keys", resolved(t, src.Agg(col("a").Count().Alias("n"))), plan.Lit(false).Expr(), PPAggregate},
		{"partial aggregate", resolved(t, src.GroupBy(col("k")).Agg(col("a").Sum().Alias("s"))), onKey, PPAggregateTotal},
		{"outside the subset", dis, col("a").Gt(plan.Lit(1)).Expr(), PPDistinct},
		{"partial into a union", uni, col("a").Div(col("k")).Gt(plan.Lit(1)).Expr(), PPUnion},
		{"signed zero of a float key", resolved(t, src.Distinct("f")),
			col("f").Cast(plan.String).Eq(plan.Lit("0.0")).Expr(), PPDistinctKeys},
	} {
		r := standard.Pushdown(c.e, c.n)
		if d, refused := r.Refusal(); !refused || d.Cell != c.cell {
			t.Errorf("%s: %+v, want refused by %s", c.name, r, c.cell)
		}
	}
}

// TestKeyRespecting: a float key may be read only as a direct operand of a
// comparison or a null or NaN test.
func TestKeyRespecting(t *testing.T) {
	floats := map[string]bool{"f": true}
	for _, c := range []struct {
		e  plan.E
		ok bool
	}{
		{col("f").Gt(plan.Lit(0.0)), true},
		{col("f").IsNaN().Or(col("f").IsNull()), true},
		{col("f").Eq(col("f")), true},
		{col("a").Add(plan.Lit(1)).Gt(plan.Lit(0)), true},
		{plan.Lit(1.0).Div(col("f")).Gt(plan.Lit(0.0)), false},
		{col("f").Cast(plan.String).Eq(plan.Lit("0.0")), false},
		{col("f").Add(plan.Lit(0.0)).Gt(plan.Lit(0.0)), false},
	} {
		if ok, detail := keyRespecting(c.e.Expr(), floats); ok != c.ok {
			t.Errorf("keyRespecting(%s) = %v (%s), want %v", c.e.Expr(), ok, detail, c.ok)
		}
	}
}

// TestPushdownPastFilter: bounded, pp.filter refuses; standard, a partial
// mover is refused by pp.filter and a total one by pp.filter.total while a
// conjunct staying is partial.
func TestPushdownPastFilter(t *testing.T) {
	in := typed("a", plan.Int64, "b", plan.Int64)
	total := col("a").Gt(plan.Lit(1)).Expr()
	partial := col("a").Div(col("b")).Gt(plan.Lit(1)).Expr()
	staying := func(es ...plan.Expr) *Movability {
		m := standard.NewMovability(in)
		m.Add(es...)
		return m
	}
	if d := Default().PushdownPastFilter([]plan.Expr{total}, Default().NewMovability(in)); d.Allowed || d.Cell != PPFilter {
		t.Errorf("bounded: %v", d)
	}
	for _, c := range []struct {
		name    string
		movers  []plan.Expr
		staying *Movability
		ok      bool
		cell    CellID
	}{
		{"total past total", []plan.Expr{total}, staying(total), true, PPFilterTotal},
		{"total past partial", []plan.Expr{total}, staying(total, partial), false, PPFilterTotal},
		{"partial past total", []plan.Expr{partial}, staying(total), false, PPFilter},
	} {
		if d := standard.PushdownPastFilter(c.movers, c.staying); d.Allowed != c.ok || d.Cell != c.cell {
			t.Errorf("%s: %v, want allowed=%v by %s", c.name, d, c.ok, c.cell)
		}
	}
	m := standard.NewMovability(in)
	m.Add(partial)
	m.Add(total)
	if ok, detail := m.Movable(); ok || detail == "" {
		t.Errorf("a partial expression added first is forgotten: %v %q", ok, detail)
	}
}

// TestPushdownJoin: a conjunct goes into the input whose columns it reads,
// under that input's names; preserved inputs take total conjuncts,
// null-supplying ones none; and on an inner join a conjunct on a key may
// be copied to the partner of the same type.
func TestPushdownJoin(t *testing.T) {
	l := tableOf(t, "l", typed("k", plan.Int64, "v", plan.Int64, "f", plan.Float64))
	r := tableOf(t, "r", typed("k", plan.Int64, "v", plan.Int64, "g", plan.Float64, "h", plan.Int32))
	inner := resolved(t, l.Join(r, plan.InnerJoin, []plan.E{col("k"), col("f")}, []plan.E{col("k"), col("g")})).(*plan.JoinNode)
	chk := standard.PushdownJoin(inner)
	if d := chk.Decision(); !d.Allowed || d.Cell != PPJoinKeys {
		t.Fatalf("node-level: %v", d)
	}
	for _, c := range []struct {
		e    plan.E
		side int
	}{
		{col("v").Gt(plan.Lit(1)), 0},
		{col("v_right").Gt(plan.Lit(1)), 1},
		{col("g").Gt(plan.Lit(0.0)), 1},
		{col("v").Gt(col("v_right")), -1},
		{plan.Lit(false), 0},
	} {
		if got := chk.JoinInput(c.e.Expr()); got != c.side {
			t.Errorf("JoinInput(%s) = %d, want %d", c.e.Expr(), got, c.side)
		}
	}
	if ren := chk.JoinRenames(1); ren["v_right"] == nil || ren["v_right"].String() != "v" || ren["k"] != nil {
		t.Errorf("JoinRenames(1) = %v", ren)
	}
	if d := chk.Conjunct(col("v").Div(col("k")).Gt(plan.Lit(1)).Expr()); d.Allowed || d.Cell != PPJoinPreserved {
		t.Errorf("partial conjunct: %v", d)
	}
	ren, d, asked := chk.KeyCopy(col("k").Gt(plan.Lit(1)).Expr(), 0)
	if !asked || !d.Allowed || d.Cell != PPJoinKeyEquivalence || ren["k"].String() != "k" {
		t.Errorf("KeyCopy on k: %v %v %v", ren, d, asked)
	}
	if _, d, asked := chk.KeyCopy(plan.Lit(1.0).Div(col("f")).Gt(plan.Lit(0.0)).Expr(), 0); !asked || d.Allowed {
		t.Errorf("KeyCopy of a sign-revealing conjunct on a float key: %v %v", d, asked)
	}
	if _, _, asked := chk.KeyCopy(col("v").Gt(plan.Lit(1)).Expr(), 0); asked {
		t.Error("KeyCopy asked about a conjunct reading a column that is not a key")
	}
	mixed := resolved(t, l.Join(r, plan.InnerJoin, []plan.E{col("k")}, []plan.E{col("h")})).(*plan.JoinNode)
	if _, d, asked := standard.PushdownJoin(mixed).KeyCopy(col("k").Gt(plan.Lit(1)).Expr(), 0); !asked || d.Allowed {
		t.Errorf("KeyCopy across int64 and int32 keys: %v %v", d, asked)
	}
	for _, c := range []struct {
		how  plan.JoinKind
		e    plan.E
		cell CellID
	}{
		{plan.LeftJoin, col("v_right").Gt(plan.Lit(1)), PPJoinLeftRightSide},
		{plan.RightJoin, col("v").Gt(plan.Lit(1)), PPJoinRightLeftSide},
		{plan.FullJoin, col("v").Gt(plan.Lit(1)), PPJoinFullLeftSide},
		{plan.FullJoin, col("v_right").Gt(plan.Lit(1)), PPJoinFullRightSide},
	} {
		j := resolved(t, l.JoinOn(r, c.how, "k")).(*plan.JoinNode)
		if d := standard.PushdownJoin(j).Conjunct(c.e.Expr()); d.Allowed || d.Cell != c.cell {
			t.Errorf("%s join, %s: %v, want refused by %s", c.how, c.e.Expr(), d, c.cell)
		}
	}
	partialKey := resolved(t, l.Join(r, plan.InnerJoin, []plan.E{col("k").Mul(plan.Lit(2))}, []plan.E{col("k")})).(*plan.JoinNode)
	if d := standard.PushdownJoin(partialKey).Decision(); d.Allowed || d.Cell != PPJoinKeys {
		t.Errorf("partial key: %v", d)
	}
}

// TestPruneUnion: a union narrows to the required columns in its order
// under the standard totality, and an input keeping other columns is
// refused them.
func TestPruneUnion(t *testing.T) {
	src := tableOf(t, "t", typed("a", plan.Int64, "b", plan.Int64, "c", plan.Int64))
	u := resolved(t, src.Union(src)).(*plan.UnionNode)
	d, keep := standard.PruneUnion(u, map[string]bool{"c": true, "a": true, "zz": true})
	if !d.Allowed || d.Cell != PRUnionInputs || !slices.Equal(keep, []string{"a", "c"}) {
		t.Errorf("standard: %v %v", d, keep)
	}
	if d, keep := Default().PruneUnion(u, map[string]bool{"a": true}); d.Allowed || d.Cell != PRUnion || keep == nil {
		t.Errorf("bounded: %v %v", d, keep)
	}
	if d, keep := standard.PruneUnion(u, map[string]bool{"a": true, "b": true, "c": true}); d.Cell != "" || keep != nil {
		t.Errorf("nothing to narrow: %v %v", d, keep)
	}
	if d := standard.PruneUnionInput(1, []string{"a", "b"}, []string{"a"}); d.Allowed || d.Cell != PRUnion || d.Reason == "" {
		t.Errorf("an input keeping more: %v", d)
	}
}

// TestInlineCheckStandard: under the standard totality, a value total over
// the with_columns' input inlines past expressions the bounded tier counts
// as partial; after a value leaves, the projection reads its name from the
// input again.
func TestInlineCheckStandard(t *testing.T) {
	src := tableOf(t, "t", typed("a", plan.Int64, "f", plan.Float64))
	w := resolved(t, src.WithColumns(col("a").Div(col("a")).Alias("x"), col("f").TryCast(plan.Int64).Alias("f"))).(*plan.WithColumnsNode)
	p := plan.FromNode(w).Select(col("f").Gt(plan.Lit(1)).Alias("y"), col("x")).Node().(*plan.ProjectNode)
	for _, c := range []struct {
		table *Table
		ok    bool
	}{{Default(), false}, {standard, true}} {
		chk := c.table.NewInlineCheck(p.Exprs, w, w.Input.Schema(), w.Schema())
		if r := chk.Value(0); r.Allowed != c.ok {
			t.Errorf("%v: the partial x after f > 1: %+v, want allowed=%v", c.table.Totality(), r, c.ok)
		}
	}
	chk := standard.NewInlineCheck(p.Exprs, w, w.Input.Schema(), w.Schema())
	if f, _ := chk.current().Lookup("f"); f.Type != plan.Int64 {
		t.Fatalf("before inlining, f is the with_columns' int64: %v", f.Type)
	}
	chk.Inlined(1)
	if f, _ := chk.current().Lookup("f"); f.Type != plan.Float64 {
		t.Errorf("after f leaves, the projection reads the input's float64 f: %v", f.Type)
	}
	if _, ok := chk.current().Lookup("x"); !ok {
		t.Error("x, still in the with_columns, left the schema")
	}
}

// TestPushdownJoinOptions: validate keeps conjuncts (and key copies) out of
// the inputs it checks, a partial residual keeps every conjunct above a
// semi or anti join, a full join's merged key reads both inputs, a right
// join's merged key is the right input's, and pruning keeps a residual's
// columns with the left column a suffixed one collides with.
func TestPushdownJoinOptions(t *testing.T) {
	l := tableOf(t, "l", typed("k", plan.Int64, "v", plan.Int64, "a", plan.Int64))
	r := tableOf(t, "r", typed("k", plan.Int64, "v", plan.Int64, "b", plan.Int64))
	join := func(how plan.JoinKind, o plan.JoinOptions) *plan.JoinNode {
		return resolved(t, l.JoinOn(r, how, "k").WithJoinOptions(o)).(*plan.JoinNode)
	}
	for _, c := range []struct {
		name    string
		j       *plan.JoinNode
		e       plan.E
		allowed bool
		cell    CellID
	}{
		{"1:m keeps a left conjunct above", join(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany}), col("a").Gt(plan.Lit(1)), false, PPJoinValidate},
		{"1:m lets a right conjunct down", join(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateOneToMany}), col("b").Gt(plan.Lit(1)), true, PPJoinValidate},
		{"m:1 keeps a right conjunct above", join(plan.LeftJoin, plan.JoinOptions{Validate: plan.ValidateManyToOne}), col("a").Gt(plan.Lit(1)), true, PPJoinValidate},
		{"1:1 keeps both", join(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateOneToOne}), col("b").Gt(plan.Lit(1)), false, PPJoinValidate},
		{"m:m is not asked", join(plan.InnerJoin, plan.JoinOptions{}), col("b").Gt(plan.Lit(1)), true, PPJoinPreserved},
		{"a full coalesce key reads both inputs", join(plan.FullJoin, plan.JoinOptions{Coalesce: plan.CoalesceMerge}), col("k").Gt(plan.Lit(1)), false, PPJoin},
		{"a right join's merged key is the right's", join(plan.RightJoin, plan.JoinOptions{}), col("k").Gt(plan.Lit(1)), true, PPJoinPreserved},
	} {
		if d := standard.PushdownJoin(c.j).Conjunct(c.e.Expr()); d.Allowed != c.allowed || d.Cell != c.cell {
			t.Errorf("%s: %v, want allowed=%v by %s", c.name, d, c.allowed, c.cell)
		}
	}
	oneToMany := join(plan.InnerJoin, plan.JoinOptions{Validate: plan.ValidateManyToOne})
	if _, d, asked := standard.PushdownJoin(oneToMany).KeyCopy(col("k").Gt(plan.Lit(1)).Expr(), 0); !asked || d.Allowed || d.Cell != PPJoinValidate {
		t.Errorf("KeyCopy into a validated right input: %v %v", d, asked)
	}
	partial := join(plan.SemiJoin, plan.JoinOptions{Residual: col("a").Div(col("b")).Gt(plan.Lit(0))})
	if d := standard.PushdownJoin(partial).Decision(); d.Allowed || d.Cell != PPJoinResidual {
		t.Errorf("partial residual: %v", d)
	}
	total := join(plan.AntiJoin, plan.JoinOptions{Residual: col("a").Ne(col("v_right"))})
	if d := standard.PushdownJoin(total).Decision(); !d.Allowed || d.Cell != PPJoinResidual {
		t.Errorf("total residual: %v", d)
	}
	// Every left column stays (nil): k the key, a and v read by the residual.
	d, keepL, keepR := standard.PruneJoin(total, map[string]bool{"k": true})
	if !d.Allowed || keepL != nil || !slices.Equal(keepR, []string{"k", "v"}) {
		t.Errorf("pruning under a residual: %v %v %v", d, keepL, keepR)
	}
}
