package oracle

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// The mutation campaign (docs/design.md §8, notes/verification.md R7 and R9): for
// each legality cell, the oracle runs generated plans with that one cell's
// verdict flipped (legality.Table.Flipped: a barrier or crosses-if cell
// becomes crosses, removing the guard; a crosses cell becomes a barrier).
// The cell is KILLED at the first plan on which the mutant diverges while
// the real table agrees. A cell that survives N plans is a gap in the
// generators or an unnecessary cell; the cells whose mutant provably cannot
// change any outcome are documented as equivalent mutants
// (legality.Cell.Equivalent) and left out of the score.
//
// Plan i is proptest.Generate(proptest.CaseSeed(Seed, i), Config) for every
// cell, so a cell's plans-to-first-kill does not depend on the other cells
// or on Workers. The plans are generated once and shared: a worker takes a
// plan, optimizes it under the real table, and for every cell not yet
// killed at a lower index optimizes it under that cell's mutant. Only when
// the two optimizations differ (plan or counters) can the outcomes differ,
// and only then does the oracle run the four ways. A cell's seconds to
// first kill add up what a campaign of that cell alone would have spent on
// the plans up to its kill: generating and optimizing each plan, and the
// cell's own mutant optimization and checks.

// Mutation configures a mutation campaign.
type Mutation struct {
	// Seed is the campaign seed; N the plans per cell (0: 20,000).
	Seed int64
	N    int
	// Workers is the number of goroutines (0: GOMAXPROCS). Results do not
	// depend on it, except the seconds, which are measured.
	Workers int
	// Cells are the cells to mutate (nil: every cell of the table).
	Cells []legality.CellID
	// Config bounds the generated cases (zero fields: the defaults), with
	// one difference: TwinShare 0 means 0.5 here (negative: no twins), since
	// only twin tables give the fingerprint collisions ss.structural needs.
	Config proptest.Config
	// Flags are the optimizer's flags (nil: DefaultFlags, Verify on); their
	// Table is the real table the mutants are flipped from.
	Flags *rules.Flags
	// Executor runs the optimized and unoptimized ways (nil: exec).
	Executor Executor
	// Generate, when set, makes plan i from its case seed instead of
	// proptest.Generate(seed, Config): a host's generator of plans holding
	// its own operators, so that the cells of its rules (Flags.Registry)
	// meet plans they decide.
	Generate func(seed int64) proptest.Case
	// Extensions and ReferenceExtensions implement a host's own operators
	// for the eager and reference ways (see Case).
	Extensions          *eager.Extensions
	ReferenceExtensions map[string]reference.ExtensionFunc
	// Progress, when set, is called (from one goroutine at a time) about
	// every 500 ms with the plans done and the cells killed so far.
	Progress func(done, total, killed, cells int)
}

// MutantResult is one cell's outcome.
type MutantResult struct {
	Cell legality.CellID
	Rule string
	// From is the cell's verdict in the real table, To the mutant's.
	From, To legality.Verdict
	// Killed reports a divergence within N plans. Index is the first
	// killing plan's index (-1 when it survived), Plans the plans it took
	// (Index+1, or N), Seconds what a one-cell campaign spends on them.
	Killed  bool
	Index   int
	Plans   int
	Seconds float64
	// Class is the killing divergence's class; Seed the killing plan's
	// case seed (proptest.Generate(Seed, Config) replays it).
	Class string
	Seed  int64
	// Changed counts the plans, up to the kill, whose optimization the
	// mutant changed: 0 means the generators never reached the mutated
	// code path.
	Changed int
	// Equivalent is the documented reason the mutant cannot be killed
	// (legality.Cell.Equivalent), "" for a cell the campaign must kill.
	Equivalent string
}

// Status renders "killed", "survived", "equivalent" or "KILLED-EQUIVALENT"
// (a documented equivalent mutant that was killed: the documentation is
// wrong).
func (m MutantResult) Status() string {
	switch {
	case m.Killed && m.Equivalent != "":
		return "KILLED-EQUIVALENT"
	case m.Killed:
		return "killed"
	case m.Equivalent != "":
		return "equivalent"
	}
	return "SURVIVED"
}

// MutationReport is what a mutation campaign measured.
type MutationReport struct {
	Seed    int64
	N       int
	Workers int
	Config  proptest.Config
	// Results holds one entry per cell, in table order.
	Results []MutantResult
	// Plans counts the plans generated; RealDivergences the plans on which
	// the real table itself diverged (a bug, reported, never counted as a
	// kill); Elapsed the campaign's wall-clock time.
	Plans           int
	RealDivergences int
	RealSeeds       []int64
	Elapsed         time.Duration
}

// cellState is one cell's progress during a campaign.
type cellState struct {
	id    legality.CellID
	flags rules.Flags
	kill  atomic.Int64 // the lowest killing index so far, or N
	mu    sync.Mutex
	class string
	// cost[i] is the nanoseconds spent on plan i for this cell alone;
	// changed[i] marks plans whose optimization the mutant changed.
	cost    []int64
	changed []bool
}

// Run runs the campaign. The error is ctx's when cancelled (the report then
// covers the plans done) or an invalid parameter.
func (m *Mutation) Run(ctx context.Context) (*MutationReport, error) {
	n := m.N
	if n == 0 {
		n = 20000
	}
	if n < 0 {
		return nil, fmt.Errorf("mutation: negative N %d", n)
	}
	base := DefaultFlags()
	if m.Flags != nil {
		base = *m.Flags
	}
	base.Limit = 0
	realTable := base.LegalityTable()
	ids := m.Cells
	if ids == nil {
		ids = realTable.IDs()
	}
	cells := make([]*cellState, len(ids))
	for k, id := range ids {
		t, err := realTable.Flipped(id)
		if err != nil {
			return nil, fmt.Errorf("mutation: %w", err)
		}
		f := base
		f.Table = t
		cells[k] = &cellState{id: id, flags: f, cost: make([]int64, n), changed: make([]bool, n)}
		cells[k].kill.Store(int64(n))
	}
	cfg := m.Config
	if cfg.TwinShare == 0 {
		cfg.TwinShare = 0.5
	}
	workers := m.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	shared := make([]int64, n) // generation and real optimization, per plan
	rep := &MutationReport{Seed: m.Seed, N: n, Workers: workers, Config: cfg}
	var (
		next, done atomic.Int64
		realMu     sync.Mutex
		wg         sync.WaitGroup
	)
	start := time.Now()
	stopProgress := m.startProgress(&done, n, cells)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if !anyAlive(cells, i) {
					return // every cell is killed below i
				}
				realDiverges := m.checkPlan(ctx, i, cfg, base, cells, shared)
				if realDiverges {
					realMu.Lock()
					rep.RealDivergences++
					rep.RealSeeds = append(rep.RealSeeds, proptest.CaseSeed(m.Seed, i))
					realMu.Unlock()
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	stopProgress()
	rep.Elapsed = time.Since(start)
	rep.Plans = int(done.Load())
	sort.Slice(rep.RealSeeds, func(a, b int) bool { return rep.RealSeeds[a] < rep.RealSeeds[b] })
	for _, c := range cells {
		rep.Results = append(rep.Results, c.result(realTable, n, shared, m.Seed))
	}
	return rep, ctx.Err()
}

// anyAlive reports whether some cell is not yet killed at an index <= i.
func anyAlive(cells []*cellState, i int) bool {
	for _, c := range cells {
		if c.kill.Load() > int64(i) {
			return true
		}
	}
	return false
}

// checkPlan generates plan i, optimizes it under the real table and under
// each cell's mutant that is still alive at i, and runs the oracle where a
// mutant changed the optimization. It reports whether the real table
// itself diverged on the plan (then no cell is killed by it).
func (m *Mutation) checkPlan(ctx context.Context, i int, cfg proptest.Config, base rules.Flags, cells []*cellState, shared []int64) (realDiverges bool) {
	t0 := time.Now()
	seed := proptest.CaseSeed(m.Seed, i)
	var pc proptest.Case
	generated := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false // a generator panic is the campaign's business, not a mutant's
			}
		}()
		if m.Generate != nil {
			pc = m.Generate(seed)
		} else {
			pc = proptest.Generate(seed, cfg)
		}
		return true
	}()
	if !generated {
		return false
	}
	in, resolveErr := plan.Resolve(pc.Plan)
	var realRes rules.Result
	var realErr error
	if resolveErr == nil {
		realRes, realErr = optimizeSafe(in, base)
	}
	shared[i] = int64(time.Since(t0))
	realChecked, realAgrees := false, false
	for _, c := range cells {
		if c.kill.Load() <= int64(i) {
			continue
		}
		t1 := time.Now()
		if resolveErr != nil {
			// The optimizer starts by resolving: every table fails alike.
			c.cost[i] = int64(time.Since(t1))
			continue
		}
		mutRes, mutErr := optimizeSafe(in, c.flags)
		if sameOptimization(realRes, realErr, mutRes, mutErr) {
			c.cost[i] = int64(time.Since(t1))
			continue
		}
		c.changed[i] = true
		rep := Check(ctx, m.caseOf(pc.Plan, &c.flags))
		killed := false
		if !rep.Agree() && ctx.Err() == nil {
			if !realChecked {
				realChecked = true
				realAgrees = Check(ctx, m.caseOf(pc.Plan, &base)).Agree()
			}
			killed = realAgrees
		}
		c.cost[i] = int64(time.Since(t1))
		if killed {
			c.mu.Lock()
			if int64(i) < c.kill.Load() {
				c.kill.Store(int64(i))
				c.class = rep.Class()
			}
			c.mu.Unlock()
		}
	}
	return realChecked && !realAgrees
}

// caseOf is the oracle case of plan p under flags f.
func (m *Mutation) caseOf(p plan.Node, f *rules.Flags) Case {
	return Case{Plan: p, Flags: f, Executor: m.Executor, Extensions: m.Extensions, ReferenceExtensions: m.ReferenceExtensions}
}

// optimizeSafe runs the optimizer, turning a panic into an error.
func optimizeSafe(in plan.Node, f rules.Flags) (res rules.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return rules.Optimize(in, WithEvaluator(f))
}

// sameOptimization reports whether two optimizer runs lead to the same
// oracle outcome: both failed, or both produced structurally equal plans
// with equal counters (the oracle's comparisons depend on nothing else).
func sameOptimization(a rules.Result, aErr error, b rules.Result, bErr error) bool {
	if aErr != nil || bErr != nil {
		return aErr != nil && bErr != nil
	}
	return a.Counters.Equal(b.Counters) && plan.Equal(a.Plan, b.Plan)
}

// result summarizes a cell after the campaign.
func (c *cellState) result(realTable *legality.Table, n int, shared []int64, seed int64) MutantResult {
	cell, _ := realTable.Lookup(c.id)
	r := MutantResult{Cell: c.id, Rule: cell.Rule, From: realTable.Verdict(c.id), To: c.flags.Table.Verdict(c.id),
		Index: -1, Plans: n, Equivalent: cell.Equivalent}
	last := n - 1
	if k := int(c.kill.Load()); k < n {
		r.Killed, r.Index, r.Plans, r.Class, r.Seed = true, k, k+1, c.class, proptest.CaseSeed(seed, k)
		last = k
	}
	var ns int64
	for i := 0; i <= last; i++ {
		ns += shared[i] + c.cost[i]
		if c.changed[i] {
			r.Changed++
		}
	}
	r.Seconds = float64(ns) / 1e9
	return r
}

// startProgress calls m.Progress every 500 ms until the returned function
// is called.
func (m *Mutation) startProgress(done *atomic.Int64, total int, cells []*cellState) func() {
	if m.Progress == nil {
		return func() {}
	}
	report := func() {
		killed := 0
		for _, c := range cells {
			if c.kill.Load() < int64(total) {
				killed++
			}
		}
		m.Progress(int(done.Load()), total, killed, len(cells))
	}
	stop := tick(500*time.Millisecond, report)
	return func() {
		stop()
		report()
	}
}

// Score returns the killed cells, the counted cells (every cell but the
// documented equivalent mutants) and the score killed/counted (1 when
// nothing is counted). A killed equivalent mutant counts as neither.
func (r *MutationReport) Score() (killed, counted int, score float64) {
	for _, m := range r.Results {
		if m.Equivalent != "" {
			continue
		}
		counted++
		if m.Killed {
			killed++
		}
	}
	if counted == 0 {
		return 0, 0, 1
	}
	return killed, counted, float64(killed) / float64(counted)
}

// MedianPlansToKill is the median of the killed cells' plans to first kill
// (0 when none was killed).
func (r *MutationReport) MedianPlansToKill() float64 {
	var p []int
	for _, m := range r.Results {
		if m.Killed {
			p = append(p, m.Plans)
		}
	}
	if len(p) == 0 {
		return 0
	}
	sort.Ints(p)
	if len(p)%2 == 1 {
		return float64(p[len(p)/2])
	}
	return float64(p[len(p)/2-1]+p[len(p)/2]) / 2
}

// Survivors lists the cells that survived and are not documented
// equivalent mutants, and the documented ones that were killed.
func (r *MutationReport) Survivors() []legality.CellID {
	var out []legality.CellID
	for _, m := range r.Results {
		if m.Killed == (m.Equivalent != "") {
			out = append(out, m.Cell)
		}
	}
	return out
}

// Table renders the report as aligned text, one line per cell.
func (r *MutationReport) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %-19s %-23s %-17s %8s %9s %8s  %s\n", "cell", "rule", "mutant", "result", "plans", "seconds", "changed", "kill / note")
	for _, m := range r.Results {
		note := m.Class
		if m.Killed {
			note = fmt.Sprintf("%s (index %d, case seed %d)", m.Class, m.Index, m.Seed)
		}
		if m.Equivalent != "" {
			note = strings.TrimSpace(note + " equivalent: " + m.Equivalent)
		}
		fmt.Fprintf(&b, "%-24s %-19s %-23s %-17s %8d %9.2f %8d  %s\n", m.Cell, m.Rule, m.From.String()+" -> "+m.To.String(),
			m.Status(), m.Plans, m.Seconds, m.Changed, note)
	}
	return b.String()
}

// Markdown renders the report as the table docs/oracle.md carries: one row
// per cell and the score, with the campaign's date, N and seed.
func (r *MutationReport) Markdown(date string) string {
	var b strings.Builder
	killed, counted, score := r.Score()
	eq := 0
	for _, m := range r.Results {
		if m.Equivalent != "" {
			eq++
		}
	}
	fmt.Fprintf(&b, "Mutation campaign of %s: `dfopt mutate -n %d -seed %d` (%d workers, %d plans generated, %s).\n\n",
		date, r.N, r.Seed, r.Workers, r.Plans, r.Elapsed.Round(time.Second))
	fmt.Fprintf(&b, "Score: **%d / %d = %.1f%%** (%d cells, %d documented equivalent mutants not counted); median plans to first kill: %.0f.\n\n",
		killed, counted, 100*score, len(r.Results), eq, r.MedianPlansToKill())
	b.WriteString("| cell | rule | mutant | result | plans to first kill | seconds to first kill | plans changed |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|\n")
	for _, m := range r.Results {
		plans, secs := "-", "-"
		if m.Killed {
			plans, secs = fmt.Sprint(m.Plans), fmt.Sprintf("%.2f", m.Seconds)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s → %s | %s | %s | %s | %d |\n", m.Cell, m.Rule, m.From, m.To, m.Status(), plans, secs, m.Changed)
	}
	if r.RealDivergences > 0 {
		fmt.Fprintf(&b, "\nThe real table diverged on %d plans (bugs, not kills): case seeds %v.\n", r.RealDivergences, r.RealSeeds)
	}
	return b.String()
}
