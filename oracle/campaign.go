package oracle

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// Shard selects the indices i of a campaign with i % N == K, so that N
// machines (or CI jobs) split one campaign. The zero value is the whole
// campaign.
type Shard struct {
	K, N int
}

// ParseShard parses "K/N" (0 <= K < N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N", s)
	}
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || ni < 1 || ki < 0 || ki >= ni {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 0 <= K < N", s)
	}
	return Shard{K: ki, N: ni}, nil
}

// String renders "K/N", or "all" for the whole campaign.
func (s Shard) String() string {
	if s.N <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// count returns how many of the indices 0..n-1 belong to the shard.
func (s Shard) count(n int) int {
	if s.N <= 1 {
		return n
	}
	if n <= s.K {
		return 0
	}
	return (n-1-s.K)/s.N + 1
}

// index returns the shard's k-th campaign index.
func (s Shard) index(k int) int {
	if s.N <= 1 {
		return k
	}
	return k*s.N + s.K
}

// Progress is a campaign's state, passed to Campaign.Progress.
type Progress struct {
	// Done counts the plans checked so far, Total the plans of the shard.
	Done, Total int
	// Divergences counts the divergent plans so far.
	Divergences int
	// Elapsed is the time since the campaign started.
	Elapsed time.Duration
	// Phase is "check" while plans are checked, and "shrink" once, when
	// the minimization of Shrinking divergence classes starts.
	Phase     string
	Shrinking int
}

// Campaign checks many generated plans. Plan i is
// proptest.Generate(proptest.CaseSeed(Seed, i), Config) (or Generate's), so any plan
// replays alone, and the results (statistics, counterexamples) do not depend
// on Workers.
type Campaign struct {
	// Seed is the campaign seed; N the number of plans (indices 0..N-1).
	Seed int64
	N    int
	// Workers is the number of goroutines checking plans (0: GOMAXPROCS).
	Workers int
	// Shard restricts the campaign to the indices i with i % Shard.N ==
	// Shard.K.
	Shard Shard
	// Config bounds the generated cases (zero fields: the defaults).
	Config proptest.Config
	// Flags are the optimizer's flags (nil: DefaultFlags, Verify on).
	Flags *rules.Flags
	// Executor runs the optimized and unoptimized ways (nil: exec).
	Executor Executor
	// Generate, when set, makes plan i from its case seed instead of
	// proptest.Generate(seed, Config): a host's generator of plans holding
	// its own operators, so that its rules (Flags.Registry) fire and its
	// cells count in the statistics like the built-in ones.
	Generate func(seed int64) proptest.Case
	// Extensions and ReferenceExtensions implement a host's own operators
	// for the eager and reference ways (see Case).
	Extensions          *eager.Extensions
	ReferenceExtensions map[string]reference.ExtensionFunc
	// ReferenceEvery gives the reference way (the fourth, package
	// reference) to the plans whose index is a multiple of it: 0 and 1
	// mean every plan, a negative value none. Shrinking a divergence
	// always runs all four ways.
	ReferenceEvery int
	// Parquet is the share, in percent, of each case's tables that are
	// written to Parquet files and scanned from them (proptest.WithParquet:
	// row groups of 1 to 3 rows, statistics with NaN, nulls and ±0.0), so
	// that the Parquet source, its pruning and its decoder meet the
	// adversarial data; 0 scans every table in memory. The files go to a
	// temporary directory removed when Run returns; a counterexample's
	// files are written next to its plan file.
	Parquet int
	// OutDir receives one minimized plan file per divergence class; ""
	// means divergences are shrunk but not written.
	OutDir string
	// MaxShrink bounds the number of divergence classes shrunk (0: 20;
	// negative: none).
	MaxShrink int
	// ShrinkCalls bounds the oracle calls spent minimizing one divergence
	// (0: 5000).
	ShrinkCalls int
	// Progress, when set, is called from one goroutine about every
	// ProgressEvery (0: 200ms) and once at the end of each phase.
	Progress      func(Progress)
	ProgressEvery time.Duration

	// parquetDir holds the Parquet tables of the cases being checked.
	parquetDir string
}

// failure is a divergent plan remembered for shrinking.
type failure struct {
	index int
	seed  int64
	class string
	rep   *Report
}

// Run checks the campaign's plans and shrinks one divergence per class (the
// lowest index of each, for at most MaxShrink classes), writing each to
// OutDir. It returns the statistics; the error is ctx's when the campaign
// was cancelled (the statistics then cover the plans checked) or an
// invalid parameter.
func (c *Campaign) Run(ctx context.Context) (*Stats, error) {
	if c.N < 0 {
		return nil, fmt.Errorf("campaign: negative N %d", c.N)
	}
	if c.Shard.N > 1 && (c.Shard.K < 0 || c.Shard.K >= c.Shard.N) {
		return nil, fmt.Errorf("campaign: shard %d/%d out of range", c.Shard.K, c.Shard.N)
	}
	if c.Parquet < 0 || c.Parquet > 100 {
		return nil, fmt.Errorf("campaign: Parquet share %d%% out of range 0-100", c.Parquet)
	}
	flags := DefaultFlags()
	if c.Flags != nil {
		flags = *c.Flags
	}
	if c.Parquet > 0 {
		dir, err := os.MkdirTemp("", "dfopt-oracle-parquet-")
		if err != nil {
			return nil, fmt.Errorf("campaign: a directory for Parquet tables: %w", err)
		}
		defer os.RemoveAll(dir)
		c.parquetDir = dir
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	count := c.Shard.count(c.N)
	total := newStats()
	total.Seed, total.N, total.Shard, total.Workers, total.Table = c.Seed, c.N, c.Shard, workers, flags.Table
	total.Twins = c.Config.TwinShare > 0

	start := time.Now()
	cpu0, _ := cputime.Process()
	var done, divergent atomic.Int64
	stopProgress := c.startProgress(start, count, &done, &divergent)

	var (
		next     atomic.Int64
		mu       sync.Mutex
		failures = map[string]failure{} // lowest index per class
		wg       sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := newStats()
			defer func() {
				mu.Lock()
				total.merge(local)
				mu.Unlock()
			}()
			for {
				k := int(next.Add(1) - 1)
				if k >= count || ctx.Err() != nil {
					return
				}
				i := c.Shard.index(k)
				seed := proptest.CaseSeed(c.Seed, i)
				rep, pc := c.checkIndex(ctx, i, seed, flags)
				if ctx.Err() != nil {
					return // a cancelled collect is not a result
				}
				local.add(rep, pc)
				done.Add(1)
				if !rep.Agree() {
					divergent.Add(1)
					class := rep.Class()
					mu.Lock()
					if f, seen := failures[class]; !seen || i < f.index {
						failures[class] = failure{index: i, seed: seed, class: class, rep: rep}
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	total.Elapsed = time.Since(start)
	cpu1, _ := cputime.Process()
	total.CPU = cpu1 - cpu0
	stopProgress("check")
	if err := ctx.Err(); err != nil {
		return total, err
	}

	// Shrink one divergence per class, lowest index first, in parallel.
	list := make([]failure, 0, len(failures))
	for _, f := range failures {
		list = append(list, f)
	}
	sort.Slice(list, func(a, b int) bool { return list[a].index < list[b].index })
	maxShrink := c.MaxShrink
	if maxShrink == 0 {
		maxShrink = 20
	}
	if maxShrink < 0 {
		maxShrink = 0
	}
	if len(list) > maxShrink {
		list = list[:maxShrink]
	}
	if c.Progress != nil && len(list) > 0 {
		c.Progress(Progress{Done: int(done.Load()), Total: count, Divergences: int(divergent.Load()),
			Elapsed: time.Since(start), Phase: "shrink", Shrinking: len(list)})
	}
	out := make([]Counterexample, len(list))
	var sg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for k := range list {
		sg.Add(1)
		sem <- struct{}{}
		go func(k int) {
			defer sg.Done()
			defer func() { <-sem }()
			out[k] = c.minimize(ctx, list[k], flags)
		}(k)
	}
	sg.Wait()
	total.Counterexamples = out
	return total, ctx.Err()
}

// checkIndex generates and checks plan i; a generator panic becomes a
// divergence of kind generator.
func (c *Campaign) checkIndex(ctx context.Context, i int, seed int64, flags rules.Flags) (rep *Report, pc *proptest.Case) {
	name := fmt.Sprintf("seed=%d index=%d", c.Seed, i)
	defer func() {
		if p := recover(); p != nil {
			rep = &Report{Name: name, Flags: flags}
			rep.Divergences = append(rep.Divergences, Divergence{
				Kind: DiffGenerator, Column: -1, Row: -1,
				Detail: fmt.Sprintf("proptest.Generate(%d) panicked: %v", seed, p),
			})
			pc = nil
		}
	}()
	gc := c.generate(seed)
	pc = &gc
	root, cleanup, err := c.scanned(gc)
	if err != nil {
		rep = &Report{Name: name, Flags: flags}
		rep.Divergences = append(rep.Divergences, Divergence{Kind: DiffGenerator, Column: -1, Row: -1,
			Detail: fmt.Sprintf("writing the tables of case %d to Parquet: %v", seed, err)})
		return rep, pc
	}
	defer cleanup()
	cs := c.caseOf(name, root, &flags)
	cs.NoReference = !c.referenceFor(i)
	return Check(ctx, cs), pc
}

// generate makes the case of a case seed: Generate's, else proptest's.
func (c *Campaign) generate(seed int64) proptest.Case {
	if c.Generate != nil {
		return c.Generate(seed)
	}
	return proptest.Generate(seed, c.Config)
}

// caseOf is the oracle case of plan p under flags f, with the campaign's
// executor and host operators.
func (c *Campaign) caseOf(name string, p plan.Node, f *rules.Flags) Case {
	return Case{Name: name, Plan: p, Flags: f, Executor: c.Executor, Extensions: c.Extensions, ReferenceExtensions: c.ReferenceExtensions}
}

// scanned returns the plan a case is checked as: its own, or, with Parquet
// on, the one scanning some tables from Parquet files, and a function that
// removes those files.
func (c *Campaign) scanned(pc proptest.Case) (plan.Node, func(), error) {
	if c.Parquet == 0 || c.parquetDir == "" {
		return pc.Plan, func() {}, nil
	}
	dir, err := os.MkdirTemp(c.parquetDir, "case-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	root, _, err := proptest.WithParquet(pc, dir, c.Parquet)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return root, cleanup, nil
}

// referenceFor reports whether plan i gets the reference way.
func (c *Campaign) referenceFor(i int) bool {
	switch {
	case c.ReferenceEvery < 0:
		return false
	case c.ReferenceEvery <= 1:
		return true
	}
	return i%c.ReferenceEvery == 0
}

// startProgress calls c.Progress periodically until the returned function
// is called with the finished phase's name.
func (c *Campaign) startProgress(start time.Time, total int, done, divergent *atomic.Int64) func(phase string) {
	if c.Progress == nil {
		return func(string) {}
	}
	every := c.ProgressEvery
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	snapshot := func(phase string) Progress {
		return Progress{Done: int(done.Load()), Total: total, Divergences: int(divergent.Load()), Elapsed: time.Since(start), Phase: phase}
	}
	stop := tick(every, func() { c.Progress(snapshot("check")) })
	return func(phase string) {
		stop()
		c.Progress(snapshot(phase))
	}
}

// tick calls f every d from a goroutine of its own until the returned stop
// function is called; stop returns once the goroutine has finished, so f
// is never called after it.
func tick(d time.Duration, f func()) (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
