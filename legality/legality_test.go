package legality

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

var update = flag.Bool("update", false, "rewrite docs/legality.md")

var (
	totalUDF = &plan.UDF{Name: "tot", Params: []plan.Type{plan.Int64}, Result: plan.Int64, Total: true, Deterministic: true,
		Fn: func(context.Context, []plan.Value) (plan.Value, error) { return plan.NullValue(plan.Int64), nil }}
	partialUDF = &plan.UDF{Name: "part", Params: []plan.Type{plan.Int64}, Result: plan.Int64, Deterministic: true,
		Fn: func(context.Context, []plan.Value) (plan.Value, error) { return plan.NullValue(plan.Int64), nil }}
	ndTotalUDF = &plan.UDF{Name: "ndt", Params: []plan.Type{plan.Int64}, Result: plan.Int64, Total: true,
		Fn: func(context.Context, []plan.Value) (plan.Value, error) { return plan.NullValue(plan.Int64), nil }}
)

func col(n string) plan.E { return plan.Col(n) }

func TestTotalAndDeterministic(t *testing.T) {
	cases := []struct {
		name          string
		e             plan.Expr
		total, determ bool
	}{
		{"column", col("a").Expr(), true, true},
		{"literal", plan.Lit(1).Expr(), true, true},
		{"typed null", plan.Null(plan.Int64).Expr(), true, true},
		{"alias of column", col("a").Alias("x").Expr(), true, true},
		{"alias of alias", col("a").Alias("x").Alias("y").Expr(), true, true},
		{"alias of partial", col("a").Div(col("b")).Alias("x").Expr(), false, true},
		{"add", col("a").Add(plan.Lit(1)).Expr(), false, true},
		{"comparison is partial in the bounded tier", col("a").Gt(plan.Lit(1)).Expr(), false, true},
		{"is_null is partial in the bounded tier", col("a").IsNull().Expr(), false, true},
		{"non-strict cast", col("a").TryCast(plan.String).Expr(), false, true},
		{"total udf over column", plan.CallUDF(totalUDF, col("a")).Expr(), true, true},
		{"total udf over total udf", plan.CallUDF(totalUDF, plan.CallUDF(totalUDF, col("a"))).Expr(), true, true},
		{"total udf over partial arg", plan.CallUDF(totalUDF, col("a").Add(plan.Lit(1))).Expr(), false, true},
		{"partial udf", plan.CallUDF(partialUDF, col("a")).Expr(), false, true},
		{"nd total udf", plan.CallUDF(ndTotalUDF, col("a")).Expr(), true, false},
		{"nd inside comparison", plan.CallUDF(ndTotalUDF, col("a")).Gt(plan.Lit(5)).Expr(), false, false},
		{"udf without declaration", &plan.UDFCall{Args: []plan.Expr{col("a").Expr()}}, false, false},
		{"over", col("a").Sum().Over(col("k")).Expr(), false, true},
		{"nil", nil, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Total(c.e); got != c.total {
				t.Errorf("Total(%v) = %v, want %v", c.e, got, c.total)
			}
			if got := plan.IsDeterministic(c.e); got != c.determ {
				t.Errorf("plan.IsDeterministic(%v) = %v, want %v", c.e, got, c.determ)
			}
			if got, _ := Default().firstImmovable([]plan.Expr{c.e}, plan.Schema{}); got != (c.total && c.determ) {
				t.Errorf("firstImmovable(%v) = %v", c.e, got)
			}
		})
	}
}

// The starter table of docs/legality.md must be present with its verdicts.
func TestStarterCells(t *testing.T) {
	want := map[CellID]Verdict{
		"pp.project": CrossesIf, "pp.with_columns": CrossesIf, "pp.sort": CrossesIf, "pp.scan": CrossesIf,
		"pp.split": CrossesIf, "pp.filter": Barrier, "pp.limit": Barrier, "pp.slice": Barrier,
		"pp.aggregate": Barrier, "pp.join": Barrier, "pp.window": Barrier, "pp.union": Barrier,
		"pp.distinct": Barrier, "pp.extension": Barrier, "pp.unknown": Barrier, "ff.total_outer": CrossesIf,
		"pf.inline": CrossesIf, "pr.project": CrossesIf, "pr.with_columns": CrossesIf, "pr.scan": CrossesIf,
		"pr.aggregate": CrossesIf, "pr.join": CrossesIf, "ss.deterministic": CrossesIf,
		"ss.structural": CrossesIf, "ss.nested": CrossesIf,
	}
	for id, v := range want {
		c, ok := Default().Lookup(id)
		if !ok {
			t.Errorf("missing starter cell %s", id)
			continue
		}
		if c.Verdict != v {
			t.Errorf("%s: verdict %s, want %s", id, c.Verdict, v)
		}
	}
}

func TestCellsWellFormed(t *testing.T) {
	// Every cell is well declared (Cell.validate, which Table.With applies
	// to a host's cells) and unique; that each names a registered rule is
	// package rules' test (TestRegistryDeclaresEveryRule).
	seen := map[CellID]bool{}
	for _, c := range Default().Cells() {
		if seen[c.ID] {
			t.Errorf("duplicate cell %s", c.ID)
		}
		seen[c.ID] = true
		if err := c.validate(); err != nil {
			t.Error(err)
		}
	}
	// Every node kind has a predicate pushdown cell (closed world made
	// explicit); a scan's are per conjunct (PushdownScan, PushdownScanMerge).
	for _, k := range plan.Kinds() {
		chk := Default().PushdownNode(nodeOfKind(k))
		d := chk.Decision()
		if chk.Generic() && d.Cell == "" {
			// Decided conjunct by conjunct: the kind's cell is the
			// conjunct's (a conjunct reading no column).
			d = chk.Conjunct(plan.Lit(true).Expr())
		}
		if k == plan.KindScan {
			if !d.Allowed || d.Cell != "" {
				t.Errorf("scan: node-level decision %v, want an allowed decision naming no cell", d)
			}
			continue
		}
		if d.Cell == "" || d.Cell == PPUnknown {
			t.Errorf("kind %s has no predicate pushdown cell of its own (got %q)", k, d.Cell)
		}
	}
}

func nodeOfKind(k plan.Kind) plan.Node {
	switch k {
	case plan.KindScan:
		return &plan.ScanNode{}
	case plan.KindFilter:
		return &plan.FilterNode{}
	case plan.KindProject:
		return &plan.ProjectNode{}
	case plan.KindWithColumns:
		return &plan.WithColumnsNode{}
	case plan.KindSort:
		return &plan.SortNode{}
	case plan.KindLimit:
		return &plan.LimitNode{}
	case plan.KindSlice:
		return &plan.SliceNode{}
	case plan.KindAggregate:
		return &plan.AggregateNode{}
	case plan.KindJoin:
		return &plan.JoinNode{}
	case plan.KindUnion:
		return &plan.UnionNode{}
	case plan.KindDistinct:
		return &plan.DistinctNode{}
	case plan.KindWindow:
		return &plan.WindowNode{}
	case plan.KindExtension:
		return &plan.ExtensionNode{}
	case plan.KindGuard:
		return &plan.GuardNode{}
	case plan.KindTail:
		return &plan.TailNode{}
	case plan.KindReverse:
		return &plan.ReverseNode{}
	case plan.KindRowIndex:
		return &plan.RowIndexNode{}
	case plan.KindAsOfJoin:
		return &plan.AsOfJoinNode{}
	case plan.KindTemporalGroup:
		return &plan.TemporalGroupNode{}
	case plan.KindHStack:
		return &plan.HStackNode{}
	case plan.KindMergeSorted:
		return &plan.MergeSortedNode{}
	case plan.KindUnpivot:
		return &plan.UnpivotNode{}
	case plan.KindUnnest:
		return &plan.UnnestNode{}
	case plan.KindExplode:
		return &plan.ExplodeNode{}
	}
	return nil
}

func TestClosedWorld(t *testing.T) {
	if v := Default().Verdict("pp.no_such_cell"); v != Barrier {
		t.Fatalf("unknown cell verdict %s, want barrier", v)
	}
	var nilTable *Table
	if got := nilTable.Verdict(PPSort); got != CrossesIf {
		t.Fatalf("nil table should behave as Default, got %s", got)
	}
	if d := Default().PushdownNode(nil).Decision(); d.Allowed || d.Cell != PPUnknown {
		t.Fatalf("nil node: %v", d)
	}
	if _, err := Default().WithOverride("pp.nope", Crosses); err == nil {
		t.Fatal("overriding an unknown cell must fail")
	}
}

func TestOverrideIsolation(t *testing.T) {
	base := Default()
	flipped, err := base.Flipped(PPLimit)
	if err != nil {
		t.Fatal(err)
	}
	if base.Verdict(PPLimit) != Barrier || flipped.Verdict(PPLimit) != Crosses {
		t.Fatalf("flip leaked: base %s flipped %s", base.Verdict(PPLimit), flipped.Verdict(PPLimit))
	}
	if got := flipped.Overrides(); len(got) != 1 || got[0] != PPLimit {
		t.Fatalf("overrides = %v", got)
	}
	both, _ := flipped.Flipped(PPSort)
	if got := both.Overrides(); len(got) != 2 || got[0] != PPLimit || got[1] != PPSort {
		t.Fatalf("overrides of a twice-flipped table = %v, want [pp.limit pp.sort]", got)
	}
	back, _ := flipped.WithOverride(PPLimit, Barrier)
	if len(back.Overrides()) != 0 {
		t.Fatalf("restoring the default verdict should clear the override: %v", back.Overrides())
	}
	// Concurrent flips of different cells never see each other.
	var wg sync.WaitGroup
	for _, id := range base.IDs() {
		wg.Add(1)
		go func(id CellID) {
			defer wg.Done()
			tb, err := base.Flipped(id)
			if err != nil {
				t.Error(err)
				return
			}
			for _, other := range base.IDs() {
				if other != id && tb.Verdict(other) != base.Verdict(other) {
					t.Errorf("flipping %s changed %s", id, other)
				}
			}
		}(id)
	}
	wg.Wait()
}

func TestFlip(t *testing.T) {
	for _, c := range []struct{ in, out Verdict }{{Barrier, Crosses}, {CrossesIf, Crosses}, {Crosses, Barrier}} {
		if got := Flip(c.in); got != c.out {
			t.Errorf("Flip(%s) = %s, want %s", c.in, got, c.out)
		}
		v, err := ParseVerdict(c.in.String())
		if err != nil || v != c.in {
			t.Errorf("ParseVerdict(%q) = %v, %v", c.in.String(), v, err)
		}
	}
	if _, err := ParseVerdict("maybe"); err == nil {
		t.Error("ParseVerdict accepted garbage")
	}
}

func schema(names ...string) plan.Schema {
	fs := make([]plan.Field, len(names))
	for i, n := range names {
		fs[i] = plan.Field{Name: n, Type: plan.Int64, Nullable: true}
	}
	return plan.MustSchema(fs...)
}

func TestPushdownNode(t *testing.T) {
	tbl, _ := plan.NewTable("t", schema("a", "b"), [][]plan.Value{{}, {}})
	scan := plan.Scan(tbl)
	gt := col("a").Gt(plan.Lit(1)).Expr()
	readsX := col("x").Gt(plan.Lit(1)).Expr()
	cases := []struct {
		name      string
		node      plan.Node
		conjunct  plan.Expr
		nodeCell  CellID
		nodeOK    bool
		conjCell  CellID
		conjOK    bool
		watchSize int
	}{
		{"project of identities", scan.Select(col("a"), col("b").Alias("b")).Node(), gt, PPProject, true, PPProjectShadow, true, 0},
		{"project with partial", scan.Select(col("a"), col("a").Div(col("b")).Alias("x")).Node(), gt, PPProject, false, PPProjectShadow, true, 1},
		{"project rename read", scan.Select(col("a").Alias("x")).Node(), readsX, PPProject, true, PPProjectShadow, false, 1},
		{"with_columns total", scan.WithColumns(plan.Lit(0).Alias("x")).Node(), gt, PPWithColumns, true, PPWithColumnsShadow, true, 1},
		{"with_columns shadow", scan.WithColumns(plan.Lit(0).Alias("x")).Node(), readsX, PPWithColumns, true, PPWithColumnsShadow, false, 1},
		{"with_columns identity replace", scan.WithColumns(col("a").Alias("a")).Node(), gt, PPWithColumns, true, PPWithColumnsShadow, true, 0},
		{"with_columns nd total", scan.WithColumns(plan.CallUDF(ndTotalUDF, col("a")).Alias("x")).Node(), gt, PPWithColumns, false, PPWithColumnsShadow, true, 1},
		{"sort total", scan.SortBy("a").Node(), gt, PPSort, true, "", true, 0},
		{"sort partial", scan.Sort(plan.Asc(col("a").Div(col("b")))).Node(), gt, PPSort, false, "", true, 0},
		{"limit", scan.Head(2).Node(), gt, PPLimit, false, "", true, 0},
		{"slice", scan.Slice(1, 2).Node(), gt, PPSlice, false, "", true, 0},
		{"distinct", scan.Distinct().Node(), gt, PPDistinct, false, "", true, 0},
		{"union", scan.Union(scan).Node(), gt, PPUnion, false, "", true, 0},
		{"extension", scan.Extension(testops.Identity).Node(), gt, PPExtension, false, "", true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := Default().PushdownNode(c.node)
			d := chk.Decision()
			if d.Cell != c.nodeCell || d.Allowed != c.nodeOK {
				t.Errorf("node decision %v, want %s allowed=%v", d, c.nodeCell, c.nodeOK)
			}
			cd := chk.Conjunct(c.conjunct)
			if cd.Cell != c.conjCell || cd.Allowed != c.conjOK {
				t.Errorf("conjunct decision %v, want %q allowed=%v", cd, c.conjCell, c.conjOK)
			}
			if len(chk.Watch()) != c.watchSize {
				t.Errorf("watch %v, want %d names", chk.Watch(), c.watchSize)
			}
		})
	}
}

func TestPushdownConjunctSplitScan(t *testing.T) {
	nd := plan.CallUDF(ndTotalUDF, col("a")).Expr()
	if d := Default().PushdownConjunct(nd); d.Allowed || d.Cell != PPDeterministic {
		t.Errorf("nd conjunct: %v", d)
	}
	if d := Default().PushdownConjunct(col("p").Expr()); !d.Allowed {
		t.Errorf("deterministic conjunct: %v", d)
	}
	if d := Default().PushdownSplit([]plan.Expr{col("p").Expr()}, plan.Schema{}); !d.Allowed || d.Cell != PPSplit {
		t.Errorf("total stay: %v", d)
	}
	if d := Default().PushdownSplit([]plan.Expr{col("a").Div(col("b")).Gt(plan.Lit(1)).Expr()}, plan.Schema{}); d.Allowed {
		t.Errorf("partial stay: %v", d)
	}
	if d := Default().PushdownSplit([]plan.Expr{nd}, plan.Schema{}); d.Allowed {
		t.Errorf("nd stay: %v", d)
	}
	if d := Default().PushdownPastFilter(nil, Default().NewMovability(plan.Schema{})); d.Allowed || d.Cell != PPFilter {
		t.Errorf("pp.filter: %v", d)
	}
	for s, want := range map[plan.PredicateSupport]bool{plan.Exact: true, plan.Inexact: true, plan.Unsupported: false} {
		if d := Default().PushdownScan(s); d.Allowed != want || d.Cell != PPScan {
			t.Errorf("scan %s: %v", s, d)
		}
	}
	if d := Default().PushdownScan(plan.Unsupported); d.Reason == "" || strings.Contains(d.Reason, "Inexact") {
		t.Errorf("an Unsupported refusal needs its own reason, not the Inexact counterexample: %q", d.Reason)
	}
	if d := Default().PushdownScan(plan.Exact); d.Reason != "" {
		t.Errorf("an allowed pp.scan decision carries a reason: %q", d.Reason)
	}
	// A Crosses override skips the condition.
	tb, _ := Default().WithOverride(PPScan, Crosses)
	if d := tb.PushdownScan(plan.Unsupported); !d.Allowed {
		t.Errorf("crosses override: %v", d)
	}
}

func TestPushdownScanMerge(t *testing.T) {
	div := col("a").Div(col("b")).Gt(plan.Lit(1)).Expr()
	nd := plan.CallUDF(ndTotalUDF, col("a")).Expr()
	for _, c := range []struct {
		name string
		e    plan.Expr
		ok   bool
	}{
		{"total", col("p").Expr(), true},
		{"partial", div, false},
		{"comparison (partial in the bounded tier)", col("a").Gt(plan.Lit(1)).Expr(), false},
		{"non-deterministic", nd, false},
		{"missing", nil, false},
	} {
		if d := Default().PushdownScanMerge(c.e, plan.Schema{}); d.Allowed != c.ok || d.Cell != PPScanMerge {
			t.Errorf("%s: %v, want allowed=%v by %s", c.name, d, c.ok, PPScanMerge)
		}
	}
	mut, _ := Default().Flipped(PPScanMerge)
	if d := mut.PushdownScanMerge(div, plan.Schema{}); !d.Allowed {
		t.Errorf("flipped: %v", d)
	}
}

func TestPushdownScanSplit(t *testing.T) {
	div := col("a").Div(col("b")).Gt(plan.Lit(1)).Expr()
	p := col("p").Expr()
	gt := col("a").Gt(plan.Lit(1)).Expr()
	S, I, E := ScanStays, ScanInexact, ScanExact
	for _, c := range []struct {
		name  string
		conjs []plan.Expr
		fates []ScanFate
		ok    bool
		cell  CellID
	}{
		{"nothing handed", []plan.Expr{div, gt}, []ScanFate{S, S}, true, ""},
		{"all exact", []plan.Expr{div, gt}, []ScanFate{E, E}, true, ""},
		{"exact, partial left", []plan.Expr{gt, div}, []ScanFate{E, S}, false, PPSplit},
		{"exact, total left", []plan.Expr{gt, p}, []ScanFate{E, S}, true, PPSplit},
		{"lone inexact, partial itself", []plan.Expr{div}, []ScanFate{I}, true, ""},
		{"lone inexact, total left", []plan.Expr{div, p}, []ScanFate{I, S}, true, PPSplit},
		{"lone inexact, partial left", []plan.Expr{gt, div}, []ScanFate{I, S}, false, PPSplit},
		{"two inexact: each left above counts", []plan.Expr{gt, div}, []ScanFate{I, I}, false, PPSplit},
		{"exact and a partial inexact", []plan.Expr{p, div}, []ScanFate{E, I}, false, PPSplit},
	} {
		d := Default().PushdownScanSplit(c.conjs, c.fates, plan.Schema{})
		if d.Allowed != c.ok || d.Cell != c.cell {
			t.Errorf("%s: %v, want allowed=%v by %q", c.name, d, c.ok, c.cell)
		}
	}
}

func TestInlineCheck(t *testing.T) {
	tbl, _ := plan.NewTable("t", schema("a", "b"), [][]plan.Value{{}, {}})
	scan := plan.Scan(tbl)
	div := col("a").Div(col("b"))
	cases := []struct {
		name    string
		with    []plan.E
		project []plan.E
		value   int
		ok      bool
		cell    CellID
	}{
		{"total value into plain reference", []plan.E{col("b").Alias("x")}, []plan.E{col("a"), col("x")}, 0, true, PFInline},
		{"partial value first", []plan.E{div.Alias("x")}, []plan.E{col("x"), col("a")}, 0, true, PFInline},
		{"partial value after partial expression", []plan.E{div.Alias("x")}, []plan.E{col("a").Mul(plan.Lit(2)).Alias("y"), col("x")}, 0, false, PFInline},
		{"partial value before a partial value", []plan.E{div.Alias("x"), col("a").Mul(plan.Lit(2)).Alias("y")}, []plan.E{col("x"), col("y")}, 0, false, PFInline},
		{"partial value after a partial value", []plan.E{col("a").Mul(plan.Lit(2)).Alias("y"), div.Alias("x")}, []plan.E{col("x"), col("y")}, 1, true, PFInline},
		{"referenced twice", []plan.E{col("b").Alias("x")}, []plan.E{col("x"), col("x").Alias("y")}, 0, false, PFOnce},
		{"enclosed by partial (the value keeps the reference as its origin)", []plan.E{col("b").Alias("x")}, []plan.E{col("x").Add(plan.Lit(1))}, 0, true, PFInline},
		{"enclosed by total udf", []plan.E{col("b").Alias("x")}, []plan.E{plan.CallUDF(totalUDF, col("x"))}, 0, true, PFInline},
		{"capture", []plan.E{col("a").Add(plan.Lit(1)).Alias("x"), col("b").Alias("a")}, []plan.E{col("x"), col("a")}, 0, false, PFCapture},
		{"nd value", []plan.E{plan.CallUDF(ndTotalUDF, col("a")).Alias("x")}, []plan.E{col("x")}, 0, false, PFDeterministic},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := plan.Resolve(scan.WithColumns(c.with...).Node())
			if err != nil {
				t.Fatal(err)
			}
			p := plan.FromNode(w).Select(c.project...).Node().(*plan.ProjectNode)
			wc := w.(*plan.WithColumnsNode)
			chk := Default().NewInlineCheck(p.Exprs, wc, wc.Input.Schema(), wc.Schema())
			r := chk.Value(c.value)
			last := r.Decisions[len(r.Decisions)-1]
			if r.Allowed != c.ok || last.Cell != c.cell {
				t.Errorf("ruling allowed=%v last=%v, want allowed=%v cell=%s", r.Allowed, last, c.ok, c.cell)
			}
		})
	}
}

func TestEvaluatedBeforeIfBranch(t *testing.T) {
	c := &InlineCheck{t: Default()}
	e := plan.If(col("c"), col("x"), plan.Lit(0)).Expr()
	if ok, _ := c.evaluatedBeforeTotal(e, "x"); ok {
		t.Error("a reference inside an if() branch must be refused")
	}
	e = plan.If(col("x").Gt(plan.Lit(0)), plan.Lit(1), plan.Lit(0)).Expr()
	if ok, _ := c.evaluatedBeforeTotal(e, "x"); !ok {
		t.Error("a reference in the condition of if() sees every row")
	}
	e = plan.Coalesce(col("a").Div(col("b")), col("x")).Expr()
	if ok, _ := c.evaluatedBeforeTotal(e, "x"); ok {
		t.Error("a partial operand before the reference must be refused")
	}
}

func TestFuseFilters(t *testing.T) {
	tbl, _ := plan.NewTable("t", schema("a", "b"), [][]plan.Value{{}, {}})
	pb, _ := plan.NewTable("u", plan.MustSchema(plan.Field{Name: "p", Type: plan.Bool, Nullable: true}), [][]plan.Value{{}})
	inner, _ := plan.Resolve(plan.Scan(tbl).Filter(col("b").Ne(plan.Lit(0))).Node())
	partial, _ := plan.Resolve(plan.FromNode(inner).Filter(col("a").Div(col("b")).Gt(plan.Lit(1))).Node())
	total, _ := plan.Resolve(plan.Scan(pb).Filter(col("p")).Filter(col("p")).Node())
	r := Default().FuseFilters(FactsOf(partial.(*plan.FilterNode)), FactsOf(inner.(*plan.FilterNode)))
	if d, _ := r.Refusal(); r.Allowed || d.Cell != FFTotalOuter {
		t.Errorf("partial outer: %+v", r)
	}
	tf := total.(*plan.FilterNode)
	r = Default().FuseFilters(FactsOf(tf), FactsOf(tf.Input.(*plan.FilterNode)))
	if !r.Allowed || len(r.Decisions) != 2 {
		t.Errorf("total outer: %+v", r)
	}
	// An unresolved input does not resolve to bool.
	raw := &plan.FilterNode{Input: &plan.ScanNode{}, Predicates: []plan.Expr{col("p").Expr()}}
	r = Default().FuseFilters(FactsOf(tf), FactsOf(raw))
	if d, _ := r.Refusal(); r.Allowed || d.Cell != FFBoolean {
		t.Errorf("non-bool inner: %+v", r)
	}
}

func TestPruneJoinKeepsSuffixes(t *testing.T) {
	l, _ := plan.NewTable("l", schema("k", "v", "w"), [][]plan.Value{{}, {}, {}})
	r, _ := plan.NewTable("r", schema("k", "v", "z"), [][]plan.Value{{}, {}, {}})
	j, err := plan.Resolve(plan.Scan(l).JoinOn(plan.Scan(r), plan.InnerJoin, "k").Node())
	if err != nil {
		t.Fatal(err)
	}
	d, kl, kr := Default().PruneJoin(j.(*plan.JoinNode), map[string]bool{"v_right": true})
	if !d.Allowed {
		t.Fatal(d)
	}
	if strings.Join(kl, ",") != "k,v" || strings.Join(kr, ",") != "k,v" {
		t.Errorf("keep left %v right %v, want [k v] [k v]", kl, kr)
	}
	mut, _ := Default().WithOverride(PRJoin, Crosses)
	_, kl, _ = mut.PruneJoin(j.(*plan.JoinNode), map[string]bool{"v_right": true})
	if strings.Join(kl, ",") != "k" {
		t.Errorf("the crosses mutant should drop the collision guard, kept %v", kl)
	}
}

func TestMarkdownUpToDate(t *testing.T) {
	path := filepath.Join("..", "docs", "legality.md")
	got := Markdown(Default())
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./legality -update)", err)
	}
	if string(want) != got {
		t.Fatalf("docs/legality.md is stale: run go test ./legality -update")
	}
	for _, id := range Default().IDs() {
		if !strings.Contains(got, "`"+string(id)+"`") {
			t.Errorf("markdown misses %s", id)
		}
	}
}

func TestPushdownOneConjunct(t *testing.T) {
	tbl, _ := plan.NewTable("t", schema("a", "b"), [][]plan.Value{{}, {}})
	scan := plan.Scan(tbl)
	nd := plan.CallUDF(ndTotalUDF, col("a")).Gt(plan.Lit(1)).Expr()
	cases := []struct {
		name string
		e    plan.Expr
		n    plan.Node
		ok   bool
		last CellID
	}{
		{"limit", col("a").Gt(plan.Lit(1)).Expr(), scan.Head(1).Node(), false, PPLimit},
		{"nd conjunct", nd, scan.SortBy("a").Node(), false, PPDeterministic},
		{"sort", col("a").Gt(plan.Lit(1)).Expr(), scan.SortBy("a").Node(), true, PPSort},
		{"shadowed", col("x").Gt(plan.Lit(1)).Expr(), scan.WithColumns(plan.Lit(1).Alias("x")).Node(), false, PPWithColumnsShadow},
		{"identity", col("a").Gt(plan.Lit(1)).Expr(), scan.WithColumns(plan.Lit(1).Alias("x")).Node(), true, PPWithColumnsShadow},
		{"scan without classifier", col("a").Gt(plan.Lit(1)).Expr(), scan.Node(), false, PPScan},
		// A resolved with_columns owning a window reads `__over_0 as s`,
		// which is total: only the window it owns stops the conjunct.
		{"window owner", col("a").Gt(plan.Lit(1)).Expr(), mustResolve(t, scan.WithColumns(col("a").Sum().Over(col("b")).Alias("s")).Node()), false, PPWindow},
		{"window owner (project)", col("a").Gt(plan.Lit(1)).Expr(), mustResolve(t, scan.Select(col("a"), col("a").Sum().Over(col("b")).Alias("s")).Node()), false, PPWindow},
	}
	for _, c := range cases {
		r := Default().Pushdown(c.e, c.n)
		last := r.Decisions[len(r.Decisions)-1]
		if r.Allowed != c.ok || last.Cell != c.last {
			t.Errorf("%s: allowed=%v last=%v, want %v %s", c.name, r.Allowed, last, c.ok, c.last)
		}
	}
	// Under pp.window's mutant, the owner is crossed with its window.
	owner := mustResolve(t, scan.WithColumns(col("a").Sum().Over(col("b")).Alias("s")).Node())
	mut, err := Default().Flipped(PPWindow)
	if err != nil {
		t.Fatal(err)
	}
	if r := mut.Pushdown(col("a").Gt(plan.Lit(1)).Expr(), owner); !r.Allowed {
		t.Errorf("flipped pp.window: %v", r.Decisions)
	}
}

func mustResolve(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	r, err := plan.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
