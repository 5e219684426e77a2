package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dfopt/dfopt/bench"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("bench", command{
		synopsis: "time optimize+collect of plan files (median/min/max, rows, checksum)",
		run:      runBench,
	})
}

// flagList is the value of --flags: name=bool pairs separated by commas;
// the flag may be repeated.
type flagList map[string]bool

func (l flagList) String() string {
	parts := make([]string, 0, len(l))
	for k, v := range l {
		parts = append(parts, k+"="+strconv.FormatBool(v))
	}
	return strings.Join(parts, ",")
}

func (l flagList) Set(s string) error {
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("%q: want name=true or name=false", item)
		}
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%q: %q is not a boolean", item, val)
		}
		l[strings.TrimSpace(name)] = b
	}
	return nil
}

func runBench(env *environment, args []string) int {
	fs := newFlagSet("bench", "bench FILE... [-n RUNS] [--no-opt] [--memory] [--data DIR] [--flags name=bool,...] [--threads N,...] [--worth [--worth-timeout D] [--worth-memory-limit SIZE]]", env.stderr)
	runs := fs.Int("n", bench.DefaultRuns, "timed runs per query, after one warm-up")
	noOpt := fs.Bool("no-opt", false, "collect the plans as written, without optimizing them")
	inMemory := fs.Bool("memory", false, "read each Parquet file once into memory and scan it from there")
	dataDir := fs.String("data", "", "read every Parquet table from this directory (by its file name) instead of the plan file's path")
	flags := flagList{}
	fs.Var(flags, "flags", "optimizer flags to override, name=bool,... (names: "+strings.Join(rules.FlagNames(), ", ")+")")
	threads := fs.String("threads", "", "thread counts to run the whole suite under, one pass each, e.g. 1,2 (GOMAXPROCS, which bounds the executor's parallelism; default: the current GOMAXPROCS)")
	worth := fs.Bool("worth", false, "also time every query with each rule or arm flag off in turn (verify excepted) whose optimized plan differs from the default's, and print the worth table after each pass")
	worthTimeout := fs.Duration("worth-timeout", 60*time.Second, "with --worth: the most one flag-off run may take; a slower one is reported as timeout")
	worthLimit := fs.String("worth-memory-limit", "2GiB", "with --worth: the memory limit of the flag-off runs (a plan left as a cross product fails with resource_exhausted instead of exhausting the machine)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(files) == 0 {
		return badArgs(env, fs, "want at least one FILE")
	}
	if err := checkInt("n", int64(*runs), 1, maxRuns); err != nil {
		return fail(env, "bench", exitBadArgs, err)
	}
	if *dataDir != "" {
		if st, err := os.Stat(*dataDir); err != nil || !st.IsDir() {
			return fail(env, "bench", exitBadArgs, fmt.Errorf("-data %s: not a directory", *dataDir))
		}
	}
	if _, err := rules.FlagsFromMap(flags); err != nil {
		return fail(env, "bench", exitBadArgs, fmt.Errorf("--flags: %w", err))
	}
	passes := []int{runtime.GOMAXPROCS(0)}
	if *threads != "" {
		passes = nil
		for _, f := range strings.Split(*threads, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 1024 {
				return fail(env, "bench", exitBadArgs, fmt.Errorf("--threads: %q is not a thread count in [1, 1024]", f))
			}
			passes = append(passes, n)
		}
	}
	if *worth && *noOpt {
		return fail(env, "bench", exitBadArgs, fmt.Errorf("--worth needs the optimizer: it cannot go with --no-opt"))
	}
	if *worthTimeout <= 0 {
		return fail(env, "bench", exitBadArgs, fmt.Errorf("--worth-timeout: %s is not a positive duration", *worthTimeout))
	}
	limit, err := parseSize(*worthLimit)
	if err != nil {
		return fail(env, "bench", exitBadArgs, fmt.Errorf("--worth-memory-limit: %w", err))
	}
	mode := "parquet"
	if *inMemory {
		mode = "memory"
	}
	ctx := context.Background()
	suite, err := bench.Load(ctx, files, bench.Options{Memory: *inMemory, DataDir: *dataDir, NoOpt: *noOpt, Flags: flags})
	if err != nil {
		return fail(env, "bench", exitBadArgs, err)
	}
	defer suite.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range passes {
		runtime.GOMAXPROCS(procs)
		fmt.Fprintf(env.stdout, "bench: mode=%s opt=%v runs=%d gomaxprocs=%d", mode, !*noOpt, *runs, runtime.GOMAXPROCS(0))
		if *inMemory {
			fmt.Fprintf(env.stdout, " load_s=%.3f", suite.LoadTime.Seconds())
		}
		fmt.Fprintln(env.stdout)
		var total, totalCPU time.Duration
		var table []worthRow
		for _, q := range suite.Queries {
			r, err := bench.Measure(ctx, q, *runs, nil)
			if err != nil {
				fmt.Fprintf(env.stderr, "dfopt bench: %v\n", err)
				fmt.Fprintf(env.stdout, "bench: failed file=%s\n", q.File)
				return exitFailed
			}
			total += r.Median()
			totalCPU += r.CPUMedian()
			fmt.Fprintln(env.stdout, formatBenchLine(r, *noOpt))
			if *worth {
				row, err := measureWorth(ctx, env, q, r, *runs, *worthTimeout, limit)
				if err != nil {
					fmt.Fprintf(env.stderr, "dfopt bench: %v\n", err)
					fmt.Fprintf(env.stdout, "bench: failed file=%s\n", q.File)
					return exitFailed
				}
				table = append(table, row)
			}
		}
		fmt.Fprintf(env.stdout, "bench: ok queries=%d mode=%s opt=%v runs=%d gomaxprocs=%d total_median_s=%.6f total_cpu_s=%.6f\n",
			len(suite.Queries), mode, !*noOpt, *runs, runtime.GOMAXPROCS(0), total.Seconds(), totalCPU.Seconds())
		if *worth {
			printWorthTable(env, mode, table)
		}
	}
	return exitOK
}

// worthRow is one query's line of the worth table: its default median and,
// per flag, what turning the flag off did.
type worthRow struct {
	name  string
	base  time.Duration
	cells map[string]string // flag → "=" (same plan), "x1.23" (median / base), "timeout", "failed"
}

// worthFlags are the flags the worth table turns off one at a time: every
// rule and arm flag but verify.
func worthFlags() []string {
	var out []string
	for _, f := range rules.FlagNames() {
		if f != rules.FlagVerify {
			out = append(out, f)
		}
	}
	return out
}

// measureWorth times q with each flag of worthFlags off in turn (those q
// runs with), when the flag changes q's optimized plan; a flag that leaves
// the plan as the default's is "=" without a run. Each flag-off run gets
// timeout and the memory limit, so a plan left as a cross product is
// reported, not run to exhaustion. It prints one line per flag measured:
// "worth NAME flag=F off_median_s=... ratio=... rows=N", or the failure.
// A flag-off run whose row count differs from the default's is an error
// (the rules must not change results). Last comes the row "(all off)":
// the plan as written, every rule off at once.
func measureWorth(ctx context.Context, env *environment, q *bench.Query, base bench.QueryResult, runs int, timeout time.Duration, limit int64) (worthRow, error) {
	name := q.Name
	if filepath.Base(filepath.Dir(q.File)) == "sql" {
		name = "sql/" + name // the SQL style beside the dataframe style of TPC-H
	}
	row := worthRow{name: name, base: base.Median(), cells: map[string]string{}}
	basePlan, err := optimizeWith(q.Plan, q.Flags)
	if err != nil {
		return row, fmt.Errorf("%s: optimize: %w", q.File, err)
	}
	for _, f := range worthFlags() {
		if !q.Flags.Enabled(f) {
			continue
		}
		fq := *q
		if err := fq.Flags.Set(f, false); err != nil {
			return row, err
		}
		off, err := optimizeWith(q.Plan, fq.Flags)
		if err != nil {
			return row, fmt.Errorf("%s: optimize with %s off: %w", q.File, f, err)
		}
		if plan.Equal(off, basePlan) {
			row.cells[f] = "="
			continue
		}
		fq.MemoryLimit = limit
		cell, err := measureOff(ctx, env, &fq, f, base, runs, timeout)
		if err != nil {
			return row, err
		}
		row.cells[f] = cell
	}
	// Every rule off at once: the plan as written, under the same timeout
	// and memory limit (a SQL-style plan as written is a cross product).
	aq := *q
	aq.NoOpt = true
	aq.MemoryLimit = limit
	cell, err := measureOff(ctx, env, &aq, worthAllOff, base, runs, timeout)
	if err != nil {
		return row, err
	}
	row.cells[worthAllOff] = cell
	return row, nil
}

// worthAllOff is the worth table's row for every rule off at once: the
// plan as written, which is what the optimizer as a whole is worth.
const worthAllOff = "(all off)"

// measureOff times q (a flag-off variant of a query) under timeout, prints
// its worth line and returns its table cell: the median over the
// default's ("x1.50"), "timeout" or "failed". A row count other than the
// default's is an error: the rules must not change results.
func measureOff(ctx context.Context, env *environment, q *bench.Query, flag string, base bench.QueryResult, runs int, timeout time.Duration) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	r, err := bench.Measure(tctx, q, runs, nil)
	timedOut := tctx.Err() != nil
	cancel()
	switch {
	case timedOut:
		fmt.Fprintf(env.stdout, "worth %s flag=%s timeout_s=%.0f\n", q.Name, flag, timeout.Seconds())
		return "timeout", nil
	case err != nil:
		fmt.Fprintf(env.stdout, "worth %s flag=%s failed=%q\n", q.Name, flag, plan.Abbrev(err.Error(), 160))
		return "failed", nil
	case r.Rows != base.Rows:
		return "", fmt.Errorf("%s: %d rows with %s off, %d with the default flags", q.File, r.Rows, flag, base.Rows)
	}
	ratio := r.Median().Seconds() / max(base.Median().Seconds(), 1e-9)
	fmt.Fprintf(env.stdout, "worth %s flag=%s off_median_s=%.6f ratio=%.3f rows=%d\n", q.Name, flag, r.Median().Seconds(), ratio, r.Rows)
	return fmt.Sprintf("x%.2f", ratio), nil
}

// optimizeWith optimizes root under flags with the executor's constant
// evaluator, as bench.Query.Once does.
func optimizeWith(root plan.Node, flags rules.Flags) (plan.Node, error) {
	if flags.Evaluator == nil {
		flags.Evaluator = exec.ConstEvaluator{}
	}
	res, err := rules.Optimize(root, flags)
	if err != nil {
		return nil, err
	}
	return res.Plan, nil
}

// printWorthTable prints the worth table of one pass: a row per flag that
// changed some query's plan, a column per query, each cell the median with
// the flag off over the default's ("x1.50": 1.5 times slower), "=" when
// the flag leaves that query's plan unchanged, "timeout" or "failed".
func printWorthTable(env *environment, mode string, rows []worthRow) {
	fmt.Fprintf(env.stdout, "worth: mode=%s gomaxprocs=%d (median with the flag off / median with every flag on; = the same plan)\n", mode, runtime.GOMAXPROCS(0))
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s", "flag off")
	for _, r := range rows {
		fmt.Fprintf(&b, " %8s", r.name)
	}
	fmt.Fprintln(env.stdout, strings.TrimRight(b.String(), " "))
	b.Reset()
	fmt.Fprintf(&b, "%-22s", "(default median_s)")
	for _, r := range rows {
		fmt.Fprintf(&b, " %8.3f", r.base.Seconds())
	}
	fmt.Fprintln(env.stdout, b.String())
	for _, f := range append(worthFlags(), worthAllOff) {
		changed := false
		for _, r := range rows {
			if c, ok := r.cells[f]; ok && c != "=" {
				changed = true
			}
		}
		if !changed {
			continue
		}
		b.Reset()
		fmt.Fprintf(&b, "%-22s", f)
		for _, r := range rows {
			c := r.cells[f]
			if c == "" {
				c = "-"
			}
			fmt.Fprintf(&b, " %8s", c)
		}
		fmt.Fprintln(env.stdout, b.String())
	}
}

// formatBenchLine prints one query's measurement as name then key=value
// fields, seconds with microsecond resolution: the median, min and max wall
// time of optimize+collect, the median of optimize alone, the median CPU
// time of the process over optimize+collect (robust to other load on the
// machine), the row count and the checksum.
func formatBenchLine(r bench.QueryResult, noOpt bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s median_s=%.6f min_s=%.6f max_s=%.6f", r.Name, r.Median().Seconds(), r.Min().Seconds(), r.Max().Seconds())
	if !noOpt {
		fmt.Fprintf(&b, " optimize_s=%.6f", r.OptimizeMedian().Seconds())
	}
	fmt.Fprintf(&b, " cpu_s=%.6f rows=%d", r.CPUMedian().Seconds(), r.Rows)
	if cs := r.Checksum.String(); cs != "" {
		b.WriteString(" " + cs)
	}
	return b.String()
}
