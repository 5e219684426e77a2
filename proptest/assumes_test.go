package proptest

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// TestLyingAssumptionShapes checks that the generator writes false
// assumptions on scans (plan files may state ScanNode.Assumes) in the
// three shapes where the ways used to disagree, so that the oracle keeps
// them covered: (a) projection pruning drops the column a false fact is
// about, (b) the input scan is projected without that column, (c) a limit
// above gives the scan a max-rows hint (limit_pushdown). Every evaluation
// checks every assumption against every row the source holds, so each of
// these plans must fail every way with the same source_error; here only
// the shapes are counted (the oracle compares the outcomes). Run with -v
// to see the counts.
func TestLyingAssumptionShapes(t *testing.T) {
	const n = 6000
	cfg := DefaultConfig()
	flags := rules.DefaultFlags()
	var lying, pruned, unread, hinted int
	for i := 0; i < n; i++ {
		c := Generate(CaseSeed(43, i), cfg)
		if c.IllTyped {
			continue
		}
		// The false assumptions of the input's scans, by table.
		lies := map[*plan.Table][]string{}
		for _, nd := range nodes(c.Plan) {
			s, ok := nd.(*plan.ScanNode)
			if !ok {
				continue
			}
			tbl, ok := s.Source.(*plan.Table)
			if !ok {
				continue
			}
			for _, a := range s.Assumes {
				if broken(tbl, a) {
					lies[tbl] = append(lies[tbl], a.Column)
					if s.Projected && !contains(s.Columns, a.Column) {
						unread++
					}
				}
			}
		}
		if len(lies) == 0 {
			continue
		}
		lying++
		res, err := rules.Optimize(c.Plan, flags)
		if err != nil {
			t.Fatalf("seed %d: optimize: %v\n%s", c.Seed, err, c)
		}
		for _, nd := range nodes(res.Plan) {
			s, ok := nd.(*plan.ScanNode)
			if !ok {
				continue
			}
			tbl, _ := s.Source.(*plan.Table)
			cols := lies[tbl]
			if len(cols) == 0 {
				continue
			}
			if s.HasMaxRows {
				hinted++
			}
			for _, col := range cols {
				if s.Projected && !contains(s.Columns, col) {
					pruned++
				}
			}
		}
	}
	t.Logf("%d of %d plans hold a false assumption: column pruned %d, scan projected without it %d, max-rows hint %d",
		lying, n, pruned, unread, hinted)
	if lying < n/100 || pruned < 20 || unread < 10 || hinted < 5 {
		t.Errorf("too few false assumptions or shapes: %d plans, pruned %d (want 20), unread %d (want 10), hinted %d (want 5)",
			lying, pruned, unread, hinted)
	}
}

// broken reports whether some value of t's column breaks a, by the rule of
// docs/semantics.md (scan).
func broken(t *plan.Table, a plan.Assumption) bool {
	j := t.Schema().Index(a.Column)
	if j < 0 {
		return false
	}
	for _, v := range t.Column(j) {
		switch {
		case v.IsNull():
		case v.Type() == plan.Float64:
			f := v.Float()
			if f != f {
				if a.NaNFree {
					return true
				}
			} else if f < a.Min.Float() || f > a.Max.Float() {
				return true
			}
		case v.Int() < a.Min.Int() || v.Int() > a.Max.Int():
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
