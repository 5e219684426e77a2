package proptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/rules"
)

// TestRewriteShares checks that generated plans make every rule rewrite
// (its counters move, as the oracle's "rewrites (counters moved)" line
// counts) in at least 10% of the cases (build_side, error_guards and or_implied less: see minShare), and that the legality cells that
// used to be thin both allow and refuse in at least 1% of them: an
// optimizer that does nothing passes any oracle, so the generators must
// reach the rewrites. Only the optimizer runs here (no executor), so the
// test is cheap; run with -v to see the shares.
func TestRewriteShares(t *testing.T) {
	const n = 3000
	cfg := DefaultConfig()
	flags := rules.DefaultFlags()
	flags.Verify = true
	rewrites := map[string]int{}
	allowed, refused := map[legality.CellID]int{}, map[legality.CellID]int{}
	for i := 0; i < n; i++ {
		c := Generate(CaseSeed(41, i), cfg)
		if c.IllTyped {
			continue
		}
		res, err := rules.Optimize(c.Plan, flags)
		if err != nil {
			t.Fatalf("seed %d: optimize: %v\n%s", c.Seed, err, c)
		}
		for _, rule := range rules.Builtin().Rewrote(res.Counters) {
			rewrites[rule]++
		}
		for id, c := range res.Trace.Cells() {
			if c[0] > 0 {
				allowed[id]++
			}
			if c[1] > 0 {
				refused[id]++
			}
		}
	}
	// build_side rewrites only an inner join whose left input the row
	// bounds prove smaller than its right one: about 18% of the generated
	// plans hold an inner join at all, and in about a quarter of those the
	// left input is provably the smaller (its most rows below the right's
	// fewest, which any filter under the right input makes 0, and
	// or_implied's conjuncts pushed into a right input are such filters).
	// 10% would take making most generated joins small-left inner joins;
	// 2.5% still marks joins in hundreds of plans per 10,000, and a campaign checks
	// the executor's left build on every one (and on every inner join
	// under bs.estimate's mutant).
	//
	// error_guards rewrites only a filter directly over a project or
	// with_columns whose partial expressions range_proofs could not prove
	// total on the table's facts and whose error conditions are cheap: the
	// generator's guard templates build that shape in about one plan in
	// ten, and the adversarial integers of a part of them defeat the
	// proofs (the rest are rewritten by predicate_pushdown instead), while
	// eg.cost and eg.deterministic refuse others on purpose. 1.5% is some
	// 1,500 guarded plans per 100,000, each checked four ways, with data
	// that raises on rows the filter removes and on rows it keeps, and
	// every eg.* cell allows and refuses hundreds of times.
	//
	// semi_pushdown rewrites only a semi or anti join directly over an inner
	// join whose keys read one input, with no options, total keys and a
	// right input that cannot raise: the generator's semi-over-inner
	// template (a few percent of the join and filter moves) builds that
	// shape in about one plan in fifty, and refuses on purpose in a third
	// of them. 0.4% is some 400 moved joins per 100,000 plans, and every
	// sp.* cell allows and refuses well over 100 times in them.
	//
	// join_order rewrites only a left-deep chain of plain inner and cross
	// joins on column keys whose written order makes a cross join a
	// connected order avoids: the generator's joinChain template builds
	// one in a few plans in a hundred, and jo.deterministic and jo.errors
	// refuse about a third of them on purpose. 0.1% is a hundred or more
	// reordered chains per 100,000 plans, each checked four ways, and both
	// cells allow and refuse hundreds of times (docs/oracle.md).
	//
	// or_implied rewrites only a filter disjunction above a join whose
	// arms each read one column of a side alone: the SQL join template
	// puts one in two of five of its filters, some of them partial or
	// non-deterministic on purpose (oi.total, oi.deterministic refuse). 3%
	// is some 3,000 rewritten plans per 100,000, and both cells allow and
	// refuse hundreds of times.
	//
	// semi_reduction rewrites only an inner join keyed on a group key of an
	// aggregate on its right whose aggregates are total: the generator's
	// join-over-aggregate template (a twentieth of the filter moves)
	// builds it in about one plan in a hundred and fifty, and half of
	// those refuse on purpose (partial aggregates, nd_tick keys). 0.2% is
	// some 200 reduced aggregates per 100,000 plans; sr.rows allows and
	// refuses some 200 times, sr.source refuses fewer (about 85 per
	// 100,000 at seed 1, short of the 100 the cells aim at).
	minShare := map[string]float64{rules.FlagBuildSide: 0.025, rules.FlagErrorGuards: 0.015, rules.FlagSemiPushdown: 0.004, rules.FlagJoinOrder: 0.001, rules.FlagOrImplied: 0.03, rules.FlagSemiReduction: 0.002}
	var b strings.Builder
	for _, rule := range rules.Builtin().Rules() {
		share := float64(rewrites[rule.Name]) / n
		fmt.Fprintf(&b, "%-20s %5.1f%%\n", rule.Name, 100*share)
		want, ok := minShare[rule.Name]
		if !ok {
			want = 0.10
		}
		if share < want {
			t.Errorf("rule %s rewrites %.1f%% of the plans, want at least %.0f%%", rule.Name, 100*share, 100*want)
		}
	}
	tests := []struct {
		cell            legality.CellID
		allows, refuses bool
	}{
		{legality.PPScan, true, true},
		{legality.PPSplit, true, true},
		{legality.PPWithColumns, true, true},
		{legality.PPWithColumnsShadow, true, true},
		{legality.PPSort, true, true},
		{legality.PPDistinct, false, true},
		{legality.FFTotalOuter, true, true},
		{legality.PFInline, true, true},
	}
	for _, tt := range tests {
		fmt.Fprintf(&b, "%-24s allowed %4d refused %4d\n", tt.cell, allowed[tt.cell], refused[tt.cell])
		if tt.allows && allowed[tt.cell] < n/100 {
			t.Errorf("cell %s allows in %d of %d plans, want at least 1%%", tt.cell, allowed[tt.cell], n)
		}
		if tt.refuses && refused[tt.cell] < n/100 {
			t.Errorf("cell %s refuses in %d of %d plans, want at least 1%%", tt.cell, refused[tt.cell], n)
		}
	}
	t.Logf("rewrite shares and cells over %d cases:\n%s", n, b.String())
}
