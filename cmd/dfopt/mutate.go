package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/proptest"
)

func init() {
	register("mutate", command{
		synopsis: "mutation campaign: flip each legality cell, count it killed at the first divergence; print the score",
		run:      runMutate,
	})
}

// runMutate runs the mutation campaign. Exit status: 0 when every cell is
// killed or a documented equivalent mutant (and the real table never
// diverged), 1 otherwise, 2 for bad usage.
func runMutate(env *environment, args []string) int {
	fs := newFlagSet("mutate", "mutate [-n N] [-seed S] [-workers W] [-cells a,b] [-rows R] [--markdown] [-quiet]", env.stderr)
	n := fs.Int("n", 20000, "plans per cell at most (a cell's campaign stops at its first kill)")
	seed := fs.Int64("seed", 1, "campaign seed (plan i uses proptest.CaseSeed(seed, i) for every cell)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel workers (results but the seconds do not depend on it)")
	var cells cellList
	fs.Var(&cells, "cells", "mutate only these cells (comma-separated; default: every cell)")
	rows := fs.Int("rows", 0, "maximum rows per generated table (0: the generator's default)")
	markdown := fs.Bool("markdown", false, "print the table as Markdown (the docs/oracle.md section)")
	quiet := fs.Bool("quiet", false, "no progress output")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(rest) != 0 {
		return badArgs(env, fs, "unexpected argument %q (mutate reads no file)", rest[0])
	}
	if err := firstError(
		checkInt("n", int64(*n), 1, maxPlans),
		checkInt("workers", int64(*workers), 1, maxWorkers),
		checkInt("rows", int64(*rows), 0, maxGenRows),
		checkCells("cells", cells),
	); err != nil {
		return fail(env, "mutate", exitBadArgs, err)
	}
	m := &oracle.Mutation{Seed: *seed, N: *n, Workers: *workers, Cells: cells}
	if *rows != 0 {
		m.Config = proptest.Config{MaxRows: *rows}
	}
	if !*quiet {
		m.Progress = func(done, total, killed, cells int) {
			fmt.Fprintf(env.stderr, "mutate: %d/%d plans, %d/%d cells killed\n", done, total, killed, cells)
		}
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := m.Run(ctx)
	if rep == nil {
		return fail(env, "mutate", exitBadArgs, err)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "dfopt mutate: %v (the report covers the plans checked)\n", err)
	}
	if *markdown {
		fmt.Fprint(env.stdout, rep.Markdown(time.Now().UTC().Format("2006-01-02")))
	} else {
		fmt.Fprint(env.stdout, rep.Table())
	}
	killed, counted, score := rep.Score()
	survivors := rep.Survivors()
	status, code := "ok", exitOK
	switch {
	case err != nil:
		status, code = "interrupted", exitFailed
	case len(survivors) > 0 || rep.RealDivergences > 0:
		status, code = "SURVIVORS", exitFailed
	}
	names := make([]string, len(survivors))
	for i, s := range survivors {
		names[i] = string(s)
	}
	list := strings.Join(names, ",")
	if list == "" {
		list = "-"
	}
	// With --markdown, stdout is the page section: the summary goes to
	// stderr, as for dfopt legality --markdown.
	summary := env.stdout
	if *markdown {
		summary = env.stderr
	}
	fmt.Fprintf(summary, "mutate: %s score=%.1f%% killed=%d counted=%d cells=%d median_plans_to_kill=%.0f survivors=%s real_divergences=%d n=%d seed=%d plans=%d elapsed=%.1fs\n",
		status, 100*score, killed, counted, len(rep.Results), rep.MedianPlansToKill(), list, rep.RealDivergences, rep.N, rep.Seed, rep.Plans, rep.Elapsed.Seconds())
	return code
}
