package oracle

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/rules"
)

// CellStats counts one legality cell's decisions over a campaign.
type CellStats struct {
	// Allowed and Refused count trace entries.
	Allowed, Refused int
	// AllowedPlans and RefusedPlans count plans with at least one such
	// entry.
	AllowedPlans, RefusedPlans int
}

// Stats is what a campaign measured. Every count is a sum over plans, so
// the figures do not depend on the number of workers.
type Stats struct {
	// Seed, N and Shard repeat the campaign's parameters.
	Seed  int64
	N     int
	Shard Shard
	// Plans counts the plans checked.
	Plans int
	// Divergences counts the plans with at least one divergence or unmet
	// expectation; Classes counts them per Report.Class.
	Divergences int
	Classes     map[string]int
	// ResolveFailures counts plans that do not resolve (the generator's
	// deliberately ill-typed share); EvalErrors counts resolvable plans
	// whose unoptimized collect fails (divide_by_zero, overflow, ...).
	ResolveFailures, EvalErrors int
	// IllTypedMismatch counts generator slips: a case marked ill-typed that
	// resolves, or one marked well-typed that does not.
	IllTypedMismatch int
	// ReferenceRan counts the plans the reference way ran (and was
	// compared on); ReferenceSkipped those it skipped (a host extension
	// operator without a reference implementation, a source it cannot
	// read), with ReferenceSkips counting them per reason. Plans the
	// campaign did not give the reference way (Campaign.ReferenceEvery)
	// are in neither count.
	ReferenceRan, ReferenceSkipped int
	ReferenceSkips                 map[string]int
	// Fires counts, per rule, the plans in which it rewrote something (at
	// least one allowed trace entry of that rule).
	Fires map[string]int
	// Rewrites counts, per rule, the plans in which its counters moved
	// (Report.Rewrote): what it actually changed.
	Rewrites map[string]int
	// Cells counts every legality cell's decisions.
	Cells map[legality.CellID]*CellStats
	// Table is the legality table the optimizer consulted (its verdicts say
	// which outcomes each cell can have); nil means Registry's.
	Table *legality.Table
	// Registry holds the rules the campaign ran (nil: rules.Builtin()), as
	// its reports' flags name them: the rules of Fires and Rewrites, and
	// with their cells the rows of the cell table.
	Registry *rules.Registry
	// Elapsed is the wall-clock time of the checking phase; CPU is the
	// process's CPU time over it (user and system; 0 where unavailable).
	Elapsed, CPU time.Duration
	// Workers is the number of workers that ran.
	Workers int
	// Twins reports that the generator made twin tables
	// (Config.TwinShare > 0), which make ss.structural refusals possible.
	Twins bool
	// Counterexamples are the minimized divergences written (one per
	// class), in index order.
	Counterexamples []Counterexample
}

func newStats() *Stats {
	return &Stats{Classes: map[string]int{}, Fires: map[string]int{}, Rewrites: map[string]int{}, Cells: map[legality.CellID]*CellStats{},
		ReferenceSkips: map[string]int{}}
}

// add folds one report into the stats.
func (s *Stats) add(r *Report, pc *proptest.Case) {
	if s.Registry == nil && r.Flags.Registry != nil {
		s.Registry = r.Flags.Registry
	}
	s.Plans++
	if !r.Agree() {
		s.Divergences++
		class := r.Class()
		if class == "" {
			class = "unmet expectation"
		}
		s.Classes[class]++
	}
	switch {
	case r.ResolveErr != nil:
		s.ResolveFailures++
	case r.Results[Unoptimized].Err != nil:
		s.EvalErrors++
	}
	if pc != nil && pc.IllTyped != (r.ResolveErr != nil) {
		s.IllTypedMismatch++
	}
	switch ref := &r.Results[Reference]; {
	case ref.Skipped != "":
		s.ReferenceSkipped++
		s.ReferenceSkips[skipReason(ref.Skipped)]++
	case ref.Ran:
		s.ReferenceRan++
	}
	for _, rule := range r.Fired() {
		s.Fires[rule]++
	}
	for _, rule := range r.Rewrote() {
		s.Rewrites[rule]++
	}
	for id, n := range r.Cells() {
		c := s.Cells[id]
		if c == nil {
			c = &CellStats{}
			s.Cells[id] = c
		}
		c.Allowed += n[0]
		c.Refused += n[1]
		if n[0] > 0 {
			c.AllowedPlans++
		}
		if n[1] > 0 {
			c.RefusedPlans++
		}
	}
}

// merge adds o's counts into s.
func (s *Stats) merge(o *Stats) {
	if s.Registry == nil {
		s.Registry = o.Registry
	}
	s.Plans += o.Plans
	s.Divergences += o.Divergences
	s.ResolveFailures += o.ResolveFailures
	s.EvalErrors += o.EvalErrors
	s.IllTypedMismatch += o.IllTypedMismatch
	s.ReferenceRan += o.ReferenceRan
	s.ReferenceSkipped += o.ReferenceSkipped
	for k, v := range o.ReferenceSkips {
		s.ReferenceSkips[k] += v
	}
	for k, v := range o.Classes {
		s.Classes[k] += v
	}
	for k, v := range o.Fires {
		s.Fires[k] += v
	}
	for k, v := range o.Rewrites {
		s.Rewrites[k] += v
	}
	for id, c := range o.Cells {
		d := s.Cells[id]
		if d == nil {
			d = &CellStats{}
			s.Cells[id] = d
		}
		d.Allowed += c.Allowed
		d.Refused += c.Refused
		d.AllowedPlans += c.AllowedPlans
		d.RefusedPlans += c.RefusedPlans
	}
}

// PlansPerSecond is the wall-clock throughput of the checking phase.
func (s *Stats) PlansPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Plans) / s.Elapsed.Seconds()
}

// PlansPerCPUSecond is the throughput per second of CPU time, a figure
// that does not depend on the machine's other load (0 when CPU time is
// unavailable).
func (s *Stats) PlansPerCPUSecond() float64 {
	if s.CPU <= 0 {
		return 0
	}
	return float64(s.Plans) / s.CPU.Seconds()
}

// FireShare is the share of plans in which rule fired.
func (s *Stats) FireShare(rule string) float64 {
	if s.Plans == 0 {
		return 0
	}
	return float64(s.Fires[rule]) / float64(s.Plans)
}

// Share is n as a share of the plans.
func (s *Stats) Share(n int) float64 {
	if s.Plans == 0 {
		return 0
	}
	return float64(n) / float64(s.Plans)
}

// Unexercised is a legality cell outcome a campaign never saw although the
// cell can produce it.
type Unexercised struct {
	Cell legality.CellID
	// Missing is "allowed" or "refused".
	Missing string
}

// String renders "pp.sort never refused".
func (u Unexercised) String() string { return fmt.Sprintf("%s never %s", u.Cell, u.Missing) }

// Unexercised lists, in table order, every cell outcome that the cell can
// produce (see CellOutcomes) but that no plan of the campaign produced.
func (s *Stats) Unexercised() []Unexercised {
	var out []Unexercised
	for _, id := range s.table().IDs() {
		canAllow, canRefuse := s.table().Outcomes(id, s.Twins)
		c := s.Cells[id]
		if c == nil {
			c = &CellStats{}
		}
		if canAllow && c.AllowedPlans == 0 {
			out = append(out, Unexercised{Cell: id, Missing: "allowed"})
		}
		if canRefuse && c.RefusedPlans == 0 {
			out = append(out, Unexercised{Cell: id, Missing: "refused"})
		}
	}
	return out
}

// table is the legality table the campaign's optimizer consulted: Table,
// else its registry's.
func (s *Stats) table() *legality.Table {
	if s.Table == nil {
		return s.rules().Table()
	}
	return s.Table
}

// rules is the registry of the campaign's rules, the one its reports' flags
// name (Builtin() before any report).
func (s *Stats) rules() *rules.Registry {
	if s.Registry == nil {
		return rules.Builtin()
	}
	return s.Registry
}

// CellTable renders the per-cell table: one line per cell in table order
// with its verdict, the plans in which it allowed and refused, and
// UNEXERCISED marks for outcomes it can produce but never did ("-" marks an
// outcome the cell cannot produce).
func (s *Stats) CellTable() string {
	var b strings.Builder
	t := s.table()
	w := len("cell")
	for _, id := range t.IDs() {
		w = max(w, len(id))
	}
	fmt.Fprintf(&b, "%-*s %-11s %12s %12s\n", w, "cell", "verdict", "allowed", "refused")
	for _, id := range t.IDs() {
		canAllow, canRefuse := t.Outcomes(id, s.Twins)
		c := s.Cells[id]
		if c == nil {
			c = &CellStats{}
		}
		col := func(can bool, plans int) string {
			if !can {
				if plans > 0 {
					return fmt.Sprintf("%d!", plans)
				}
				return "-"
			}
			return fmt.Sprint(plans)
		}
		var marks []string
		if canAllow && c.AllowedPlans == 0 {
			marks = append(marks, "UNEXERCISED: never allowed")
		}
		if canRefuse && c.RefusedPlans == 0 {
			marks = append(marks, "UNEXERCISED: never refused")
		}
		if (!canAllow && c.AllowedPlans > 0) || (!canRefuse && c.RefusedPlans > 0) {
			marks = append(marks, "seen an outcome marked impossible (stale exemption?)")
		}
		line := fmt.Sprintf("%-*s %-11s %12s %12s  %s", w, id, t.Verdict(id), col(canAllow, c.AllowedPlans), col(canRefuse, c.RefusedPlans), strings.Join(marks, "; "))
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// FireSummary renders "predicate_pushdown=12.3% filter_fusion=..." in rule
// order: the share of plans in which each rule fired.
func (s *Stats) FireSummary() string { return s.shareSummary(s.Fires) }

// RewriteSummary is FireSummary for Rewrites: the share of plans each rule
// changed.
func (s *Stats) RewriteSummary() string { return s.shareSummary(s.Rewrites) }

func (s *Stats) shareSummary(m map[string]int) string {
	var parts []string
	for _, r := range s.rules().Rules() {
		parts = append(parts, fmt.Sprintf("%s=%.1f%%", r.Name, 100*s.Share(m[r.Name])))
	}
	return strings.Join(parts, " ")
}

// ReferenceSummary renders the reference way's share of the campaign in
// one line: "reference: ran=N (S%) skipped=M" followed by the skip reasons,
// most frequent first, and the divergent plans whose classes involve it.
func (s *Stats) ReferenceSummary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reference: ran=%d (%.1f%%) skipped=%d", s.ReferenceRan, 100*s.Share(s.ReferenceRan), s.ReferenceSkipped)
	reasons := slices.Sorted(maps.Keys(s.ReferenceSkips))
	sort.SliceStable(reasons, func(i, j int) bool { return s.ReferenceSkips[reasons[i]] > s.ReferenceSkips[reasons[j]] })
	for _, why := range reasons {
		fmt.Fprintf(&b, " [%s: %d]", why, s.ReferenceSkips[why])
	}
	n := 0
	for class, plans := range s.Classes {
		if strings.Contains(class, Reference.String()) {
			n += plans
		}
	}
	fmt.Fprintf(&b, " divergent=%d", n)
	return b.String()
}

// ClassList returns the divergence classes seen, most frequent first.
func (s *Stats) ClassList() []string {
	out := slices.Sorted(maps.Keys(s.Classes))
	sort.SliceStable(out, func(i, j int) bool { return s.Classes[out[i]] > s.Classes[out[j]] })
	return out
}
