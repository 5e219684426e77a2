package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// Hand-written assumptions (plan files may state ScanNode.Assumes). A few
// scans of the input plans carry facts about their table's numeric
// columns, true (the values' hull, sometimes widened) or false (a range one
// value breaks, or "no NaN" over a column holding NaN). Every evaluation
// checks every assumption against every row the source holds, whatever the
// plan reads (docs/semantics.md, scan), so a false one must fail every way
// with the same source_error, also where the optimizer prunes the column
// (projection_pruning), the scan is projected without it, or a limit above
// gives the scan a max-rows hint (limit_pushdown). About a quarter of these
// scans are projected, leaving out an assumed column where they can.

// assumesShare is the share, in percent, of tables whose scan carries
// assumptions; half of those are false.
const assumesShare = 4

// withAssumptions gives raw, t's scan, hand-written assumptions at a low
// rate, and sometimes a projection that leaves an assumed column out.
func (g *gen) withAssumptions(raw *plan.ScanNode, t *plan.Table) {
	if g.ra.Intn(100) >= assumesShare {
		return
	}
	var numeric []int
	for i, f := range t.Schema().Fields() {
		switch f.Type {
		case plan.Int32, plan.Int64, plan.Float64:
			numeric = append(numeric, i)
		}
	}
	if len(numeric) == 0 {
		return
	}
	g.ra.Shuffle(len(numeric), func(i, j int) { numeric[i], numeric[j] = numeric[j], numeric[i] })
	n := 1 + g.ra.Intn(min(2, len(numeric)))
	lie := g.ra.Intn(n) // which of them is false, when one is
	if g.ra.Intn(2) == 0 {
		lie = -1
	}
	assumed := map[string]bool{}
	for k, i := range numeric[:n] {
		f := t.Schema().Field(i)
		raw.Assumes = append(raw.Assumes, g.assumption(f, t.Column(i), k == lie))
		assumed[f.Name] = true
	}
	if g.ra.Intn(4) != 0 {
		return
	}
	// A projected scan: the other columns first, an assumed one only when
	// nothing else is left (a scan of no column reads no value to check).
	var cols, rest []string
	for _, f := range t.Schema().Fields() {
		if assumed[f.Name] {
			rest = append(rest, f.Name)
		} else if g.ra.Intn(3) != 0 {
			cols = append(cols, f.Name)
		}
	}
	if len(cols) == 0 {
		cols = rest[:1]
	}
	raw.Projected, raw.Columns = true, cols
}

// assumption states a fact about column f (values vals): the hull of its
// non-null, non-NaN values, sometimes widened, or, when lie, a fact one of
// its values breaks (when every value is null, the lie holds vacuously).
func (g *gen) assumption(f plan.Field, vals []plan.Value, lie bool) plan.Assumption {
	a := plan.Assumption{Column: f.Name}
	if f.Type == plan.Float64 {
		lo, hi, seen, nan := math.Inf(1), math.Inf(-1), false, false
		for _, v := range vals {
			switch x := v.Float(); {
			case v.IsNull():
			case x != x:
				nan = true
			default:
				lo, hi, seen = math.Min(lo, x), math.Max(hi, x), true
			}
		}
		if !seen {
			lo, hi = -1, 1
		}
		if g.ra.Intn(3) == 0 && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
			lo, hi = lo-float64(g.ra.Intn(100)), hi+float64(g.ra.Intn(100))
		}
		a.NaNFree = !nan || (lie && (!seen || g.ra.Intn(2) == 0))
		switch {
		case !lie || !seen || (nan && a.NaNFree):
		case lo < hi && g.ra.Intn(2) == 0:
			hi = math.Nextafter(hi, math.Inf(-1)) // leaves out the largest value
		case lo < hi:
			lo = math.Nextafter(lo, math.Inf(1))
		case lo == 0:
			lo, hi = 1, 1 // every value is 0 (or -0.0)
		default:
			lo, hi = 0, 0
		}
		a.Min, a.Max = plan.Float64Value(lo), plan.Float64Value(hi)
		return a
	}
	lo, hi, seen := int64(math.MaxInt64), int64(math.MinInt64), false
	for _, v := range vals {
		if !v.IsNull() {
			lo, hi, seen = min(lo, v.Int()), max(hi, v.Int()), true
		}
	}
	tmin, tmax := int64(math.MinInt64), int64(math.MaxInt64)
	if f.Type == plan.Int32 {
		tmin, tmax = math.MinInt32, math.MaxInt32
	}
	if !seen {
		lo, hi = -1, 1
	}
	switch {
	case lie && seen && lo < hi && g.ra.Intn(2) == 0:
		hi--
	case lie && seen && lo < hi:
		lo++
	case lie && seen && hi < tmax:
		lo, hi = hi+1, hi+1
	case lie && seen:
		lo, hi = hi-1, hi-1
	case g.ra.Intn(3) == 0:
		// Widened, within the type.
		if lo-tmin > 100 {
			lo -= int64(g.ra.Intn(100))
		}
		if tmax-hi > 100 {
			hi += int64(g.ra.Intn(100))
		}
	}
	mk := plan.Int64Value
	if f.Type == plan.Int32 {
		mk = func(x int64) plan.Value { return plan.Int32Value(int32(x)) }
	}
	a.Min, a.Max = mk(lo), mk(hi)
	return a
}
