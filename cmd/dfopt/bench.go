package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dfopt/dfopt/bench"
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
	fs := newFlagSet("bench", "bench FILE... [-n RUNS] [--no-opt] [--memory] [--data DIR] [--flags name=bool,...]", env.stderr)
	runs := fs.Int("n", bench.DefaultRuns, "timed runs per query, after one warm-up")
	noOpt := fs.Bool("no-opt", false, "collect the plans as written, without optimizing them")
	inMemory := fs.Bool("memory", false, "read each Parquet file once into memory and scan it from there")
	dataDir := fs.String("data", "", "read every Parquet table from this directory (by its file name) instead of the plan file's path")
	flags := flagList{}
	fs.Var(flags, "flags", "optimizer flags to override, name=bool,... (names: "+strings.Join(rules.FlagNames(), ", ")+")")
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
	fmt.Fprintf(env.stdout, "bench: mode=%s opt=%v runs=%d gomaxprocs=%d", mode, !*noOpt, *runs, runtime.GOMAXPROCS(0))
	if *inMemory {
		fmt.Fprintf(env.stdout, " load_s=%.3f", suite.LoadTime.Seconds())
	}
	fmt.Fprintln(env.stdout)
	var total, totalCPU time.Duration
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
	}
	fmt.Fprintf(env.stdout, "bench: ok queries=%d mode=%s opt=%v runs=%d gomaxprocs=%d total_median_s=%.6f total_cpu_s=%.6f\n",
		len(suite.Queries), mode, !*noOpt, *runs, runtime.GOMAXPROCS(0), total.Seconds(), totalCPU.Seconds())
	return exitOK
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
