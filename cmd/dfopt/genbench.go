package main

import (
	"context"
	"fmt"
	"time"

	"github.com/dfopt/dfopt/bench"
)

func init() {
	register("gen-bench", command{
		synopsis: "generate the benchmark tables t.parquet and d.parquet (deterministic)",
		run:      runGenBench,
	})
}

func runGenBench(env *environment, args []string) int {
	fs := newFlagSet("gen-bench", "gen-bench [-rows N] [-rowgroup R] -out DIR", env.stderr)
	rows := fs.Int64("rows", bench.DefaultRows, "rows of table t")
	rowGroup := fs.Int64("rowgroup", bench.DefaultRowGroup, "rows per Parquet row group of t")
	out := fs.String("out", "", "directory to write t.parquet and d.parquet into (created if missing); bench/data for the plan files in bench/queries")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(pos) != 0 {
		return badArgs(env, fs, "unexpected argument %q (the directory goes after -out)", pos[0])
	}
	if *out == "" {
		return badArgs(env, fs, "-out DIR is required")
	}
	if err := firstError(
		checkInt("rows", *rows, 1, 1<<32),
		checkInt("rowgroup", *rowGroup, 1, 1<<32),
	); err != nil {
		return fail(env, "gen-bench", exitBadArgs, err)
	}
	start := time.Now()
	res, err := bench.Generate(context.Background(), *out, bench.GenOptions{Rows: *rows, RowGroup: *rowGroup})
	if err != nil {
		fmt.Fprintf(env.stderr, "dfopt gen-bench: %v\n", err)
		fmt.Fprintf(env.stderr, "gen-bench: failed out=%s\n", *out)
		return exitFailed
	}
	fmt.Fprintf(env.stdout, "%s: %d rows, %d row groups, %d bytes\n", res.TPath, res.TRows, res.TRowGroups, res.TBytes)
	fmt.Fprintf(env.stdout, "%s: %d rows, %d bytes\n", res.DPath, res.DRows, res.DBytes)
	fmt.Fprintf(env.stdout, "gen-bench: ok out=%s rows=%d rowgroup=%d seconds=%.3f\n", *out, res.TRows, *rowGroup, time.Since(start).Seconds())
	return exitOK
}
