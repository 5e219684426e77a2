package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/internal/cputime"
	"github.com/dfopt/dfopt/rules"
)

// DefaultRuns is the number of timed runs per query when Options.Runs is 0.
const DefaultRuns = 5

// Options configure Load, Measure and Run.
type Options struct {
	// Runs is the number of timed runs per query after the one warm-up;
	// 0 means DefaultRuns.
	Runs int
	// NoOpt collects every plan as written, without rules.Optimize.
	NoOpt bool
	// Memory reads each Parquet file once, whole, into memory and serves
	// the scans from there; otherwise every run reads the files again.
	Memory bool
	// DataDir, when set, replaces the directory of every Parquet table:
	// a plan file's "../data/t.parquet" is read as DataDir/t.parquet. The
	// plan files in bench/queries can thus run over a dataset anywhere.
	DataDir string
	// Flags override the optimizer flags (applied after a file's own
	// "flags"); names as in rules.FlagNames.
	Flags map[string]bool
	// Mem allocates every Arrow buffer; nil means memory.DefaultAllocator.
	Mem memory.Allocator
	// OnResult, when set, is called after each query is measured (the CLI
	// prints results as they come).
	OnResult func(QueryResult)
}

// Sample is one optimize+collect of a query.
type Sample struct {
	// Total is the wall time of optimize and collect together.
	Total time.Duration
	// CPU is the process's CPU time (user + system, every thread) over the
	// same span: unlike Total it does not grow when other processes compete
	// for the cores. Zero where the platform cannot measure it.
	CPU time.Duration
	// Optimize is the wall time of rules.Optimize alone (zero with NoOpt).
	Optimize time.Duration
	// Counters are the optimizer's counters (zero with NoOpt).
	Counters rules.Counters
}

// Once optimizes (unless q.NoOpt) and collects q, timing both. The caller
// releases the result.
func (q *Query) Once(ctx context.Context, mem memory.Allocator) (*exec.Result, Sample, error) {
	var s Sample
	cpu0, cpuOK := cputime.Process()
	start := time.Now()
	root := q.Plan
	if !q.NoOpt {
		flags := q.Flags
		if flags.Evaluator == nil {
			flags.Evaluator = exec.ConstEvaluator{}
		}
		res, err := rules.Optimize(root, flags)
		if err != nil {
			return nil, s, fmt.Errorf("%s: optimize: %w", q.File, err)
		}
		root, s.Counters = res.Plan, res.Counters
		s.Optimize = time.Since(start)
	}
	out, err := exec.Collect(ctx, root, exec.Options{Mem: mem, MemoryLimit: q.MemoryLimit})
	s.Total = time.Since(start)
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		s.CPU = cpu1 - cpu0
	}
	if err != nil {
		return nil, s, fmt.Errorf("%s: collect: %w", q.File, err)
	}
	return out, s, nil
}

// QueryResult is the measurement of one query.
type QueryResult struct {
	Name, File string
	// Samples holds the timed runs, in order (the warm-up is not included).
	Samples []Sample
	// Rows is the result's row count (the same in every run).
	Rows int64
	// Checksum sums the result's numeric columns (from the warm-up run).
	Checksum Checksum
	// Counters are the optimizer's counters.
	Counters rules.Counters
}

// Median, Min and Max summarize the total (optimize+collect) times.
func (r QueryResult) Median() time.Duration { return median(r.totals()) }

// Min is the fastest timed run.
func (r QueryResult) Min() time.Duration { return slices.Min(r.totals()) }

// Max is the slowest timed run.
func (r QueryResult) Max() time.Duration { return slices.Max(r.totals()) }

// CPUMedian is the median CPU time of the timed runs (see Sample.CPU).
func (r QueryResult) CPUMedian() time.Duration {
	ds := make([]time.Duration, len(r.Samples))
	for i, s := range r.Samples {
		ds[i] = s.CPU
	}
	return median(ds)
}

// OptimizeMedian is the median time of the optimize step alone.
func (r QueryResult) OptimizeMedian() time.Duration {
	ds := make([]time.Duration, len(r.Samples))
	for i, s := range r.Samples {
		ds[i] = s.Optimize
	}
	return median(ds)
}

func (r QueryResult) totals() []time.Duration {
	ds := make([]time.Duration, len(r.Samples))
	for i, s := range r.Samples {
		ds[i] = s.Total
	}
	if len(ds) == 0 {
		return []time.Duration{0}
	}
	return ds
}

// median is the middle value, or the mean of the two middle values.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Measure runs q once as a warm-up (whose result is checksummed) and then
// runs times more, timed. A garbage collection runs before each timed run,
// outside the timing, so one run's garbage is not charged to the next.
// Every timed run must return the warm-up's row count.
func Measure(ctx context.Context, q *Query, runs int, mem memory.Allocator) (QueryResult, error) {
	if runs <= 0 {
		runs = DefaultRuns
	}
	r := QueryResult{Name: q.Name, File: q.File}
	res, s, err := q.Once(ctx, mem)
	if err != nil {
		return r, err
	}
	r.Rows = int64(res.NumRows())
	r.Counters = s.Counters
	r.Checksum, err = ChecksumRecord(res.Record)
	res.Release()
	if err != nil {
		return r, fmt.Errorf("%s: %w", q.File, err)
	}
	for i := 0; i < runs; i++ {
		runtime.GC()
		res, s, err := q.Once(ctx, mem)
		if err != nil {
			return r, err
		}
		rows := int64(res.NumRows())
		res.Release()
		if rows != r.Rows {
			return r, fmt.Errorf("%s: run %d returned %d rows, the warm-up %d", q.File, i+1, rows, r.Rows)
		}
		r.Samples = append(r.Samples, s)
	}
	return r, nil
}

// Run loads the files (Load) and measures each query in order (Measure).
// It stops at the first failure, returning the results so far.
func Run(ctx context.Context, files []string, opts Options) ([]QueryResult, error) {
	s, err := Load(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []QueryResult
	for _, q := range s.Queries {
		r, err := Measure(ctx, q, opts.Runs, opts.Mem)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if opts.OnResult != nil {
			opts.OnResult(r)
		}
	}
	return out, nil
}
