package rules

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// cellCase is one plan that makes one legality cell allow (or refuse) a
// rewrite, in the style of CockroachDB's expect= / expect-not= rule tests.
type cellCase struct {
	name  string
	cell  legality.CellID
	allow bool
	plan  plan.Frame
	// table overrides the default table: barrier cells can only allow under
	// their flipped mutant, and cells whose condition always holds on valid
	// plans can only refuse under a barrier override.
	table *legality.Table
	// masked: another cell also refuses this rewrite, so flipping this cell
	// alone changes nothing (defence in depth).
	masked bool
	// override: a refusing case that exists only because table makes the
	// cell a barrier. It tests the override switch, not the cell's
	// condition, so TestCells does not count it as the cell's refusing
	// case.
	override bool
	// partial: the cell refuses one rewrite but another cell allows another
	// part, so the plan changes anyway.
	partial bool
}

func flipped(id legality.CellID) *legality.Table {
	t, err := legality.Default().Flipped(id)
	if err != nil {
		panic(err)
	}
	return t
}

func barrier(id legality.CellID) *legality.Table {
	return mustOverride(legality.Default(), id, legality.Barrier)
}

func cellCases() []cellCase {
	gt := func(c string, v int) plan.E { return col(c).Gt(lit(v)) }
	div := col("a").Div(col("b"))
	over := col("a").Sum().Over(col("k")).Alias("s")
	join := scan(tL).JoinOn(scan(tR), plan.InnerJoin, "k")
	self := scan(tT).JoinOn(scan(tT), plan.InnerJoin, "k")
	// A join on a non-deterministic key: never shared itself, but both its
	// deterministic inputs are.
	nd := scan(tL).Join(scan(tR), plan.InnerJoin, []plan.E{plan.CallUDF(ndSeq, col("k"))}, []plan.E{col("k")})
	return append([]cellCase{
		// predicate_pushdown
		{name: "pp_deterministic_allow", cell: legality.PPDeterministic, allow: true, plan: scan(tT).SortBy("a").Filter(gt("a", 1))},
		{name: "pp_deterministic_refuse", cell: legality.PPDeterministic, plan: scan(tT).SortBy("a").Filter(plan.CallUDF(ndSeq, col("a")).Gt(lit(5)))},
		{name: "pp_split_allow", cell: legality.PPSplit, allow: true, plan: scan(tT).WithColumns(col("p").Alias("q")).Filter(col("q"), gt("a", 1))},
		{name: "pp_split_refuse", cell: legality.PPSplit, plan: scan(tT).WithColumns(lit(1).Alias("x")).Filter(gt("x", 0), gt("a", 1))},
		{name: "pp_split_refuse_at_scan", cell: legality.PPSplit, plan: scan(src).Filter(gt("a", 1), col("b").Div(col("a")).Gt(lit(0)))},
		{name: "pp_filter_allow_mutant", cell: legality.PPFilter, allow: true, table: flipped(legality.PPFilter),
			plan: scan(tT).WithColumns(lit(1).Alias("x")).Filter(gt("x", 0)).Filter(gt("a", 1))},
		{name: "pp_filter_refuse", cell: legality.PPFilter, plan: scan(tT).WithColumns(lit(1).Alias("x")).Filter(gt("x", 0)).Filter(gt("a", 1))},
		{name: "pp_project_allow", cell: legality.PPProject, allow: true, plan: scan(tT).Select(col("a"), col("b")).Filter(gt("a", 1))},
		{name: "pp_project_refuse", cell: legality.PPProject, plan: scan(tT).Select(col("a"), div.Alias("x")).Filter(gt("a", 0))},
		{name: "pp_project_shadow_allow", cell: legality.PPProjectShadow, allow: true, plan: scan(tT).Select(col("a"), col("b").Alias("x")).Filter(gt("a", 1))},
		{name: "pp_project_shadow_refuse", cell: legality.PPProjectShadow, plan: scan(tT).Select(col("a"), col("b").Alias("x")).Filter(gt("x", 1))},
		{name: "pp_project_shadow_mutant_substitutes", cell: legality.PPProjectShadow, allow: true, table: flipped(legality.PPProjectShadow),
			plan: scan(tT).Select(col("a"), col("b").Alias("x")).Filter(gt("x", 1))},
		{name: "pp_with_columns_allow", cell: legality.PPWithColumns, allow: true, plan: scan(tT).WithColumns(col("b").Alias("x")).Filter(gt("a", 1))},
		{name: "pp_with_columns_refuse", cell: legality.PPWithColumns, plan: scan(tT).WithColumns(div.Alias("x")).Filter(col("b").Ne(lit(0)))},
		{name: "pp_with_columns_shadow_allow", cell: legality.PPWithColumnsShadow, allow: true, plan: scan(tT).WithColumns(lit(0).Alias("x")).Filter(gt("a", 1))},
		{name: "pp_with_columns_shadow_refuse", cell: legality.PPWithColumnsShadow, plan: scan(tT).WithColumns(lit(0).Alias("a")).Filter(col("a").Eq(lit(0)))},
		{name: "pp_sort_allow", cell: legality.PPSort, allow: true, plan: scan(tT).SortBy("a").Filter(gt("b", 1))},
		{name: "pp_sort_refuse", cell: legality.PPSort, plan: scan(tT).Sort(plan.Asc(div)).Filter(col("b").Ne(lit(0)))},
		{name: "pp_scan_allow_exact", cell: legality.PPScan, allow: true, plan: scan(src).Filter(gt("a", 1))},
		{name: "pp_scan_allow_inexact", cell: legality.PPScan, allow: true, plan: scan(src).Filter(gt("b", 1))},
		{name: "pp_scan_refuse", cell: legality.PPScan, plan: scan(src).Filter(col("s").Eq(lit("x")))},
		{name: "pp_scan_refuse_misbehaving_source", cell: legality.PPScan, plan: scan(bad).Filter(gt("a", 1))},
		{name: "pp_scan_merge_allow", cell: legality.PPScanMerge, allow: true, plan: scan(exact).Filter(col("b").Ne(lit(0))).Filter(col("p"))},
		// The source applies its pushed list as one filter: a / b > 1 must
		// not join b != 0 there (a second run, finding b != 0 pushed, must
		// refuse too: TestCells checks idempotence).
		{name: "pp_scan_merge_refuse", cell: legality.PPScanMerge, partial: true, plan: scan(exact).Filter(col("b").Ne(lit(0))).Filter(div.Gt(lit(1)))},
		// A zone-map source skips row groups by k = 1 before it applies
		// a / b > 1: the Exact conjunct must be total for k = 1 to join.
		{name: "pp_scan_skip_allow", cell: legality.PPScanSkip, allow: true, plan: scan(zone).Filter(col("p")).Filter(col("k").Eq(lit(1)))},
		{name: "pp_scan_skip_refuse", cell: legality.PPScanSkip, partial: true, plan: scan(zone).Filter(div.Gt(lit(1))).Filter(col("k").Eq(lit(1)))},
		// pp.split refuses too: k = 1 would stay above, in the bounded tier a
		// partial comparison.
		{name: "pp_scan_skip_refuse_same_filter", cell: legality.PPScanSkip, partial: true, masked: true, plan: scan(zone).Filter(col("k").Eq(lit(1)), div.Gt(lit(1)))},
		{name: "pp_limit_allow_mutant", cell: legality.PPLimit, allow: true, table: flipped(legality.PPLimit), plan: scan(tT).Head(2).Filter(gt("a", 1))},
		{name: "pp_limit_refuse", cell: legality.PPLimit, plan: scan(tT).Head(2).Filter(gt("a", 1))},
		{name: "pp_slice_allow_mutant", cell: legality.PPSlice, allow: true, table: flipped(legality.PPSlice), plan: scan(tT).Slice(1, 2).Filter(gt("a", 1))},
		{name: "pp_slice_refuse", cell: legality.PPSlice, plan: scan(tT).Slice(1, 2).Filter(gt("a", 1))},
		{name: "pp_aggregate_allow_mutant", cell: legality.PPAggregate, allow: true, table: flipped(legality.PPAggregate),
			plan: scan(tT).GroupBy(col("k")).Agg(col("a").Sum().Alias("sum")).Filter(gt("k", 1))},
		{name: "pp_aggregate_refuse", cell: legality.PPAggregate, plan: scan(tT).GroupBy(col("k")).Agg(col("a").Sum().Alias("sum")).Filter(gt("k", 1))},
		{name: "pp_join_allow_mutant", cell: legality.PPJoin, allow: true, table: flipped(legality.PPJoin), plan: join.Filter(gt("w", 1))},
		{name: "pp_join_refuse", cell: legality.PPJoin, plan: join.Filter(gt("w", 1))},
		{name: "pp_window_allow_mutant", cell: legality.PPWindow, allow: true, table: flipped(legality.PPWindow), plan: scan(tT).WithColumns(over).Filter(gt("a", 0))},
		{name: "pp_window_refuse", cell: legality.PPWindow, plan: scan(tT).WithColumns(over).Filter(gt("a", 0))},
		{name: "pp_union_allow_mutant", cell: legality.PPUnion, allow: true, table: flipped(legality.PPUnion), plan: scan(tT).Union(scan(tT)).Filter(gt("a", 1))},
		{name: "pp_union_refuse", cell: legality.PPUnion, plan: scan(tT).Union(scan(tT)).Filter(gt("a", 1))},
		{name: "pp_distinct_allow_mutant", cell: legality.PPDistinct, allow: true, table: flipped(legality.PPDistinct), plan: scan(tT).Distinct("k").Filter(gt("a", 1))},
		{name: "pp_distinct_refuse", cell: legality.PPDistinct, plan: scan(tT).Distinct("k").Filter(gt("a", 1))},
		{name: "pp_extension_allow_mutant", cell: legality.PPExtension, allow: true, table: flipped(legality.PPExtension),
			plan: scan(tT).Extension(plan.IdentityExtension).Filter(gt("a", 1))},
		{name: "pp_extension_refuse", cell: legality.PPExtension, plan: scan(tT).Extension(plan.IdentityExtension).Filter(gt("a", 1))},

		// filter_fusion
		{name: "ff_total_outer_allow", cell: legality.FFTotalOuter, allow: true, plan: scan(tT).Filter(gt("a", 1)).Filter(col("p"))},
		{name: "ff_total_outer_refuse", cell: legality.FFTotalOuter, plan: scan(tT).Filter(col("b").Ne(lit(0))).Filter(div.Gt(lit(1)))},
		{name: "ff_boolean_allow", cell: legality.FFBoolean, allow: true, plan: scan(tT).Filter(gt("a", 1)).Filter(col("p"))},
		{name: "ff_boolean_refuse_override", cell: legality.FFBoolean, override: true, table: barrier(legality.FFBoolean), plan: scan(tT).Filter(gt("a", 1)).Filter(col("p"))},

		// projection_fusion
		{name: "pf_holder_allow", cell: legality.PFHolder, allow: true, plan: scan(tT).WithColumns(col("b").Alias("x")).Select(col("a"), col("x"))},
		{name: "pf_holder_refuse", cell: legality.PFHolder, plan: scan(tT).WithColumns(over).Select(col("s"))},
		{name: "pf_deterministic_allow", cell: legality.PFDeterministic, allow: true, plan: scan(tT).WithColumns(col("b").Alias("x")).Select(col("x"))},
		{name: "pf_deterministic_refuse", cell: legality.PFDeterministic, plan: scan(tT).WithColumns(plan.CallUDF(ndSeq, col("a")).Alias("x")).Select(col("x"))},
		{name: "pf_once_allow", cell: legality.PFOnce, allow: true, plan: scan(tT).WithColumns(col("b").Alias("x")).Select(col("x").Alias("y"))},
		{name: "pf_once_refuse", cell: legality.PFOnce, plan: scan(tT).WithColumns(col("b").Alias("x")).Select(col("x"), col("x").Alias("y"))},
		{name: "pf_capture_allow", cell: legality.PFCapture, allow: true, plan: scan(tT).WithColumns(col("b").Add(lit(1)).Alias("b")).Select(col("b"))},
		{name: "pf_capture_refuse", cell: legality.PFCapture, plan: scan(tT).WithColumns(col("b").Alias("x"), lit(0).Alias("b")).Select(col("x"))},
		{name: "pf_text_allow", cell: legality.PFText, allow: true, plan: scan(tT).WithColumns(col("a").Alias("x")).Select(plan.CallUDF(incWrap, col("x")).Alias("y"))},
		{name: "pf_text_refuse", cell: legality.PFText, plan: scan(tT).WithColumns(col("b").Alias("x")).Select(col("x").Add(lit(1)))},
		{name: "pf_inline_allow", cell: legality.PFInline, allow: true, plan: scan(tT).WithColumns(div.Alias("x")).Select(col("x"), col("a"))},
		{name: "pf_inline_refuse", cell: legality.PFInline, plan: scan(tT).WithColumns(div.Alias("x")).Select(col("a").Mul(lit(2)).Alias("y"), col("x"))},
		// pf.text refuses a reference inside if() first (if() is not an
		// alias or a total UDF); with pf.text flipped, pf.inline's own
		// if()-branch check is what refuses.
		{name: "pf_inline_refuse_if_branch", cell: legality.PFText, masked: true, plan: scan(tT).WithColumns(div.Alias("x")).Select(plan.If(col("p"), col("x"), lit(0)).Alias("y"))},
		{name: "pf_inline_refuse_if_branch_text_flipped", cell: legality.PFInline, table: flipped(legality.PFText),
			plan: scan(tT).WithColumns(div.Alias("x")).Select(plan.If(col("p"), col("x"), lit(0)).Alias("y"))},

		// projection_pruning
		{name: "pr_project_allow", cell: legality.PRProject, allow: true, plan: scan(tAB).Select(col("a"), col("b").Alias("x")).Select(col("a"))},
		{name: "pr_project_refuse", cell: legality.PRProject, plan: scan(tAB).Select(col("a"), div.Alias("x")).Select(col("a"))},
		{name: "pr_with_columns_allow", cell: legality.PRWithColumns, allow: true, plan: scan(tAB).WithColumns(col("b").Alias("x")).Select(col("a"))},
		{name: "pr_with_columns_refuse", cell: legality.PRWithColumns, plan: scan(tAB).WithColumns(div.Alias("x")).Select(col("a"))},
		{name: "pr_with_columns_empty_allow", cell: legality.PRWithColumnsEmpty, allow: true, plan: scan(tAB).WithColumns(col("b").Alias("x")).Select(col("a"))},
		// The dead `__over_0 as s` goes (pr.with_columns), but its emptied
		// with_columns owns the window and stays: under the sort, the window
		// would have no owner.
		{name: "pr_with_columns_empty_refuse", cell: legality.PRWithColumnsEmpty, partial: true, plan: scan(tT).WithColumns(over).SortBy("a").Select(col("a"))},
		{name: "pr_scan_allow", cell: legality.PRScan, allow: true, plan: scan(tAB).Select(col("a"))},
		{name: "pr_scan_allow_no_column", cell: legality.PRScan, allow: true, plan: scan(tAB).Select(lit(1).Alias("one"))},
		{name: "pr_scan_refuse_override", override: true, cell: legality.PRScan, table: barrier(legality.PRScan), plan: scan(tAB).Select(col("a"))},
		{name: "pr_aggregate_allow", cell: legality.PRAggregate, allow: true, plan: scan(tT).GroupBy(col("k")).Agg(col("a").Sum().Alias("sum"))},
		{name: "pr_aggregate_allow_len", cell: legality.PRAggregate, allow: true, plan: scan(tT).Agg(plan.Len())},
		{name: "pr_aggregate_refuse_override", override: true, cell: legality.PRAggregate, table: barrier(legality.PRAggregate), plan: scan(tT).GroupBy(col("k")).Agg(col("a").Sum().Alias("sum"))},
		{name: "pr_join_allow", cell: legality.PRJoin, allow: true, plan: join.Select(col("v_right"))},
		{name: "pr_join_refuse_override", override: true, cell: legality.PRJoin, table: barrier(legality.PRJoin), plan: join.Select(col("v_right"))},
		{name: "pr_passthrough_allow", cell: legality.PRPassthrough, allow: true, plan: scan(tT).Filter(gt("a", 1)).Select(col("b"))},
		{name: "pr_passthrough_refuse_override", override: true, cell: legality.PRPassthrough, table: barrier(legality.PRPassthrough), plan: scan(tT).Filter(gt("a", 1)).Select(col("b"))},
		{name: "pr_distinct_allow", cell: legality.PRDistinct, allow: true, plan: scan(tT).Distinct("k").Select(col("a"))},
		{name: "pr_distinct_refuse_override", override: true, cell: legality.PRDistinct, table: barrier(legality.PRDistinct), plan: scan(tT).Distinct("k").Select(col("a"))},
		{name: "pr_window_allow", cell: legality.PRWindow, allow: true, plan: scan(tT).WithColumns(over).Select(col("s"))},
		{name: "pr_window_refuse_override", override: true, cell: legality.PRWindow, table: barrier(legality.PRWindow), plan: scan(tT).WithColumns(over).Select(col("s"))},
		{name: "pr_union_allow_mutant", cell: legality.PRUnion, allow: true, table: flipped(legality.PRUnion), plan: scan(tT).Union(scan(tT)).Select(col("a"))},
		{name: "pr_union_refuse", cell: legality.PRUnion, plan: scan(tT).Union(scan(tT)).Select(col("a"))},
		{name: "pr_extension_allow_mutant", cell: legality.PRExtension, allow: true, table: flipped(legality.PRExtension),
			plan: scan(tT).Extension(plan.IdentityExtension).Select(col("a"))},
		{name: "pr_extension_refuse", cell: legality.PRExtension, plan: scan(tT).Extension(plan.IdentityExtension).Select(col("a"))},

		// shared_subplans
		{name: "ss_deterministic_allow", cell: legality.SSDeterministic, allow: true, plan: scan(tT).Union(scan(tT))},
		{name: "ss_deterministic_refuse", cell: legality.SSDeterministic, plan: nd.Union(nd)},
		{name: "ss_structural_allow", cell: legality.SSStructural, allow: true, plan: scan(tAB).Union(scan(tAB))},
		{name: "ss_structural_refuse", cell: legality.SSStructural, plan: scan(tAB).Union(scan(tTwin))},
		{name: "ss_nested_allow_mutant", cell: legality.SSNested, allow: true, table: flipped(legality.SSNested), plan: self.Union(self)},
		{name: "ss_nested_refuse", cell: legality.SSNested, plan: self.Union(self)},
	}, extensionCellCases()...)
}

// unreachable lists the cells no valid plan can exercise in package rules,
// with the reason; legality's own tests cover them.
var unreachable = map[legality.CellID]string{
	legality.PPUnknown: "every node kind has its own predicate pushdown cell (the Node interface is sealed)",
	legality.PRUnknown: "every node kind has its own pruning cell (the Node interface is sealed)",
}

func TestCells(t *testing.T) {
	covered := map[legality.CellID][2]bool{}
	for _, c := range cellCases() {
		t.Run(c.name, func(t *testing.T) {
			cell, ok := legality.Default().Lookup(c.cell)
			if !ok {
				t.Fatalf("no cell %s", c.cell)
			}
			flags := only(cell.Rule)
			flags.Table = c.table
			in := resolve(t, c.plan.Node())
			res, err := Optimize(c.plan.Node(), flags)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range res.Trace {
				if e.Cell == c.cell && e.Allowed == c.allow {
					found = true
				}
			}
			if !found {
				t.Errorf("no entry with cell %s allowed=%v in the trace:\n%s", c.cell, c.allow, strings.Join(WhyLines(res), "\n"))
			}
			changed := !plan.Equal(res.Plan, in)
			switch {
			case cell.Rule == FlagSharedSubplans:
				if c.allow && res.Counters.Get("sharedSubplans") == 0 {
					t.Errorf("allowed sharing but sharedSubplans = 0")
				}
			case c.allow && !changed:
				t.Errorf("the cell allowed a rewrite but the plan is unchanged")
			case !c.allow && changed && !c.partial:
				t.Errorf("the cell refused but the plan changed:\n%s", plan.Explain(res.Plan))
			}
			checkAgreement(t, res)
			if c.table == nil {
				again, err := Optimize(res.Plan, flags)
				if err != nil {
					t.Fatal(err)
				}
				if !plan.Equal(again.Plan, res.Plan) {
					t.Errorf("not idempotent: a second run gives\n%s", plan.Explain(again.Plan))
				}
			}
			golden(t, "cells/"+c.name, report(in, res))
			v := covered[c.cell]
			switch {
			case c.allow:
				v[0] = true
			case !c.override:
				v[1] = true
			}
			covered[c.cell] = v
		})
	}
	for _, id := range legality.Default().IDs() {
		if why, ok := unreachable[id]; ok {
			t.Logf("cell %s: not reachable from a plan: %s", id, why)
			continue
		}
		v := covered[id]
		if !v[0] {
			t.Errorf("cell %s lacks an allowing case", id)
		}
		why, never := neverRefuses[id]
		switch {
		case never && v[1]:
			t.Errorf("cell %s is listed in neverRefuses (%s) but has a refusing case", id, why)
		case !never && !v[1]:
			t.Errorf("cell %s lacks a refusing case (an override-only case does not count)", id)
		}
	}
}

// neverRefuses lists the cells that refuse nothing under the default
// table, with why. Their conditions hold wherever they are consulted, or
// add requirements instead of refusing, so only a barrier override makes
// them refuse; their *_refuse_override cases test that switch and do not
// count as refusing cases.
var neverRefuses = map[legality.CellID]string{
	legality.FFBoolean:     "Resolve rejects a filter whose conjunct is not bool (an equivalent mutant)",
	legality.PRScan:        "a scan always narrows to the columns required (an equivalent mutant)",
	legality.PRAggregate:   "an aggregate's input always narrows to its key and aggregate columns (an equivalent mutant)",
	legality.PRPassthrough: "a crosses cell",
	legality.PRJoin:        "its condition adds the left columns a kept right column shares a name with; it refuses nothing",
	legality.PRDistinct:    "its condition adds the subset columns to the requirement; it refuses nothing",
	legality.PRWindow:      "its condition adds the over() columns to the requirement; it refuses nothing",
}

// Every refusing case of a cell that is not Crosses must change behaviour
// when that one cell is flipped: the override reaches the code path.
func TestFlipReachesCodePath(t *testing.T) {
	for _, c := range cellCases() {
		if c.allow || c.table != nil || c.masked {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			cell, _ := legality.Default().Lookup(c.cell)
			flags := only(cell.Rule)
			flags.Verify = false // a mutant may break the plan; that is the oracle's to find
			base, err := Optimize(c.plan.Node(), flags)
			if err != nil {
				t.Fatal(err)
			}
			flags.Table = flipped(c.cell)
			mut, err := Optimize(c.plan.Node(), flags)
			if err != nil {
				return // the mutant produced a broken plan: visible
			}
			for _, e := range mut.Trace {
				if e.Cell == c.cell && !e.Allowed {
					t.Errorf("cell %s still refuses under its flipped verdict: %s", c.cell, e)
				}
			}
			if plan.Equal(base.Plan, mut.Plan) && base.Counters.Equal(mut.Counters) {
				t.Errorf("flipping %s changed nothing", c.cell)
			}
		})
	}
}
