package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("oracle", command{
		synopsis: "random differential campaign; minimized counterexamples go to -out DIR",
		run:      runOracle,
	})
}

// isTerminal reports whether f is a character device (a terminal), where
// the progress bar redraws itself with \r; elsewhere (CI logs, files) the
// campaign prints plain periodic lines.
var isTerminal = func(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runOracle(env *environment, args []string) int {
	fs := newFlagSet("oracle", "oracle [-n N] [-seed S] [-workers W] [-shard K/N] [-out DIR] [-rows R] [-twins P] [-parquet P] [-tier T] [-parallelism P] [-partition-rows R] [-fail-unexercised]", env.stderr)
	n := fs.Int("n", 10000, "number of plans")
	seed := fs.Int64("seed", 1, "campaign seed (plan i uses proptest.CaseSeed(seed, i))")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel workers (results do not depend on it)")
	shard := fs.String("shard", "", "run only the indices i with i % N == K (K/N)")
	out := fs.String("out", "oracle-counterexamples", "directory for minimized counterexamples (plan files)")
	rows := fs.Int("rows", 0, "maximum rows per generated table (0: the generator's default, 64)")
	twins := fs.Float64("twins", 0, "share of shared subtrees given a twin over twin tables (fingerprint collisions; cell ss.structural)")
	failUnexercised := fs.Bool("fail-unexercised", false, "exit 1 when a legality cell outcome was never exercised")
	maxShrink := fs.Int("max-shrink", 20, "divergence classes to minimize and write")
	quiet := fs.Bool("quiet", false, "no progress output")
	parallelism := fs.Int("parallelism", 0, "goroutines one collect of the executor may use (0: GOMAXPROCS; 1: sequential)")
	partitionRows := fs.Int("partition-rows", 0, "fewest rows per partition of a parallel node (0: the executor's default; 1: 8-row partitions, so small tables split)")
	parquet := fs.Int("parquet", 0, "percent of each case's tables scanned from Parquet files (row groups of 1-3 rows) instead of memory")
	tier := fs.String("tier", "standard", "optimizer preset: bounded or standard")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(rest) != 0 {
		return badArgs(env, fs, "unexpected argument %q (oracle reads no file)", rest[0])
	}
	if err := firstError(
		checkInt("n", int64(*n), 0, maxPlans),
		checkInt("workers", int64(*workers), 1, maxWorkers),
		checkNonEmpty("out", *out),
		checkInt("rows", int64(*rows), 0, maxGenRows),
		checkFloat("twins", *twins, 0, 1),
		checkInt("max-shrink", int64(*maxShrink), 0, maxCalls),
		checkInt("parallelism", int64(*parallelism), 0, maxWorkers),
		checkInt("partition-rows", int64(*partitionRows), 0, 1<<30),
		checkInt("parquet", int64(*parquet), 0, 100),
		checkTier(*tier),
	); err != nil {
		return fail(env, "oracle", exitBadArgs, err)
	}
	c := &oracle.Campaign{Seed: *seed, N: *n, Workers: *workers, OutDir: *out, MaxShrink: *maxShrink, Parquet: *parquet}
	if t, _ := rules.ParseTier(*tier); t != rules.TierStandard {
		flags := rules.Builtin().TierFlags(t)
		flags.Verify = true
		c.Flags = &flags
	}
	if *shard != "" {
		if c.Shard, err = oracle.ParseShard(*shard); err != nil {
			return fail(env, "oracle", exitBadArgs, fmt.Errorf("-shard: %w", err))
		}
	}
	c.Config = proptest.Config{MaxRows: *rows, TwinShare: *twins}
	if *parallelism != 0 || *partitionRows != 0 {
		c.Executor = oracle.ExecExecutor{Options: exec.Options{Parallelism: *parallelism, PartitionRows: *partitionRows, FilterStageRows: oracle.FilterStageRows}}
	}
	if *maxShrink == 0 {
		c.MaxShrink = -1
	}
	// A campaign allocates many short-lived values; collecting less often
	// trades memory for throughput: 3,000-plan campaigns (seed 1, one
	// worker) ran at about 1.45 times the plans per second of GOGC=100 and
	// 1.7 times its plans per CPU-second. GOGC, when set, wins.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}

	var bar *progressBar
	if !*quiet {
		bar = newProgressBar(env.stderr, env.stderr == io.Writer(os.Stderr) && isTerminal(os.Stderr))
		c.Progress = bar.update
		if !bar.tty {
			c.ProgressEvery = 5 * time.Second
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := c.Run(ctx)
	if bar != nil {
		bar.finish()
	}
	if st == nil {
		return fail(env, "oracle", exitBadArgs, err)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "dfopt oracle: %v (statistics cover the plans checked)\n", err)
	}
	report(env.stdout, st)
	unexercised := st.Unexercised()
	status, code := "ok", exitOK
	switch {
	case st.Divergences > 0:
		status, code = "DIVERGENCE", exitFailed
	case *failUnexercised && len(unexercised) > 0:
		status, code = "UNEXERCISED", exitFailed
	case err != nil:
		status, code = "interrupted", exitFailed
	}
	fmt.Fprintf(env.stdout, "oracle: %s plans=%d divergences=%d plans/s=%.0f plans/cpu-s=%.0f unexercised=%d seed=%d shard=%s fires: %s\n",
		status, st.Plans, st.Divergences, st.PlansPerSecond(), st.PlansPerCPUSecond(), len(unexercised), st.Seed, st.Shard, st.FireSummary())
	return code
}

// report prints the per-cell table, the campaign's other figures, the
// divergence classes and the counterexamples.
func report(w io.Writer, st *oracle.Stats) {
	fmt.Fprint(w, st.CellTable())
	for _, u := range st.Unexercised() {
		fmt.Fprintf(w, "UNEXERCISED %s\n", u)
	}
	fmt.Fprintf(w, "plans=%d workers=%d elapsed=%s cpu=%s resolve_failures=%.1f%% eval_errors=%.1f%% ill_typed_mismatch=%d\n",
		st.Plans, st.Workers, st.Elapsed.Round(time.Millisecond), st.CPU.Round(time.Millisecond),
		100*st.Share(st.ResolveFailures), 100*st.Share(st.EvalErrors), st.IllTypedMismatch)
	fmt.Fprintf(w, "rewrites (counters moved): %s\n", st.RewriteSummary())
	fmt.Fprintf(w, "%s\n", st.ReferenceSummary())
	for _, class := range st.ClassList() {
		fmt.Fprintf(w, "divergence class %q: %d plans\n", class, st.Classes[class])
	}
	for _, x := range st.Counterexamples {
		fmt.Fprintf(w, "counterexample %s\n", x.Summary())
		if x.Report != nil {
			fmt.Fprint(w, indentLines(x.Report.String(), "  "))
		}
	}
}

func indentLines(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

// progressBar draws the campaign's progress: on a terminal one line redrawn
// with \r, elsewhere a plain line per update.
type progressBar struct {
	w    io.Writer
	tty  bool
	last int
}

func newProgressBar(w io.Writer, tty bool) *progressBar { return &progressBar{w: w, tty: tty} }

func (b *progressBar) update(p oracle.Progress) {
	if p.Phase == "shrink" {
		b.finish()
		b.last = 0
		fmt.Fprintf(b.w, "oracle: minimizing %d divergence classes\n", p.Shrinking)
		return
	}
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Done) / s
	}
	pct := 100.0
	if p.Total > 0 {
		pct = 100 * float64(p.Done) / float64(p.Total)
	}
	if !b.tty {
		fmt.Fprintf(b.w, "oracle: %d/%d plans (%.0f%%) %.0f plans/s divergences=%d elapsed=%s\n",
			p.Done, p.Total, pct, rate, p.Divergences, p.Elapsed.Round(time.Second))
		return
	}
	const width = 30
	filled := int(pct / 100 * width)
	eta := ""
	if rate > 0 && p.Done < p.Total {
		eta = " eta " + time.Duration(float64(p.Total-p.Done)/rate*float64(time.Second)).Round(time.Second).String()
	}
	line := fmt.Sprintf("\r[%s%s] %d/%d %3.0f%% %.0f plans/s divergences=%d%s",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.Done, p.Total, pct, rate, p.Divergences, eta)
	pad := ""
	if n := b.last - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	b.last = len(line)
	fmt.Fprint(b.w, line+pad)
}

func (b *progressBar) finish() {
	if b.tty && b.last > 0 {
		fmt.Fprintln(b.w)
	}
}
